// The labels kube-apiserver puts on a request's apiserver_request_total and
// apiserver_request_duration_seconds: the reported verb (LIST and WATCH told apart from GET,
// APPLY from PATCH, anything unknown as `other`), the scope, the dry-run value, and the group,
// version, resource and subresource of the route.
// upstream (v1.33): staging/src/k8s.io/apiserver/pkg/endpoints/metrics/metrics.go (MonitorRequest,
//           CleanScope, CanonicalVerb, CleanVerb, cleanVerb, getVerbIfWatch, cleanDryRun,
//           validRequestMethods, validConnectRequests),
//           staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (the verb `create`
//           of a POST), staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation (ValidateDryRun)

/** The `component` label of the API's own routes. */
export const APISERVER_COMPONENT = 'apiserver';

/** The reported verbs; any other becomes `other`. */
const VALID_REQUEST_METHODS: ReadonlySet<string> = new Set([
  'APPLY',
  'CONNECT',
  'CREATE',
  'DELETE',
  'DELETECOLLECTION',
  'GET',
  'LIST',
  'PATCH',
  'POST',
  'PROXY',
  'PUT',
  'UPDATE',
  'WATCH',
  'WATCHLIST',
]);

/** Subresources whose requests are reported as CONNECT. */
const CONNECT_SUBRESOURCES: ReadonlySet<string> = new Set(['log', 'exec', 'portforward', 'attach', 'proxy']);

const APPLY_PATCH_CONTENT_TYPE = 'application/apply-patch+yaml';

/** What the route of a resource request says about it (the API's RequestInfo). */
export interface ResourceRequest {
  /** The HTTP method. */
  readonly method: string;
  /** The request's query (`watch`, `dryRun` are read from it). */
  readonly query: URLSearchParams;
  /** The request's Content-Type header, as sent. */
  readonly contentType: string | undefined;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  /** '' for a cluster-scoped path or a list across namespaces. */
  readonly namespace: string;
  /** '' for a collection. */
  readonly name: string;
}

/** The labels of one request, but for the response code. */
export interface RequestLabels {
  readonly verb: string;
  readonly dry_run: string;
  readonly group: string;
  readonly version: string;
  readonly resource: string;
  readonly subresource: string;
  readonly scope: string;
  readonly component: string;
}

/** What CleanScope reads of a RequestInfo. */
export interface ScopeInfo {
  /** RequestInfo's verb: `create` for a POST. */
  readonly verb?: string;
  readonly namespace?: string;
  readonly name?: string;
  readonly isResourceRequest?: boolean;
}

/**
 * The scope: `resource` for a named object or a create, `namespace` for a namespace's
 * collection, `cluster` for a cluster-wide collection, '' for a path that is no resource.
 */
export function cleanScope(info: ScopeInfo): string {
  if ((info.name ?? '') !== '' || info.verb === 'create') return 'resource';
  if ((info.namespace ?? '') !== '') return 'namespace';
  if (info.isResourceRequest === true) return 'cluster';
  return '';
}

/** GET (and HEAD) of anything but one object is a LIST. `verb` is upper case. */
export function canonicalVerb(verb: string, scope: string): string {
  if (verb === 'GET' || verb === 'HEAD') return scope !== 'resource' && scope !== '' ? 'LIST' : 'GET';
  return verb;
}

/** What cleanVerb reads of the HTTP request. */
export interface VerbRequest {
  readonly method?: string;
  readonly query?: URLSearchParams;
  readonly contentType?: string | undefined;
  /** The route's subresource ('' or absent for none). */
  readonly subresource?: string;
}

/** A GET with a `watch` parameter whose first value is neither `0` nor `false` (any case) is a WATCH. */
function isWatch(request: VerbRequest): boolean {
  const m = (request.method ?? '').toUpperCase();
  if (m !== 'GET' && m !== 'LIST') return false;
  const values = request.query?.getAll('watch') ?? [];
  if (values.length === 0) return false;
  const value = (values[0] ?? '').toLowerCase();
  return value !== '0' && value !== 'false';
}

/**
 * The verb as reported, from the canonical verb and the verb the route was installed with
 * (`suggestedVerb`, '' when none): WATCH, APPLY and CONNECT told apart, an unknown verb as `other`.
 */
export function cleanVerb(verb: string, suggestedVerb: string, request: VerbRequest): string {
  if (suggestedVerb === 'WATCH' || suggestedVerb === 'WATCHLIST') return 'WATCH';
  let reported = verb;
  if (isWatch(request)) reported = 'WATCH';
  if (verb === 'WATCHLIST') reported = 'WATCH';
  if (verb === 'PATCH' && request.contentType === APPLY_PATCH_CONTENT_TYPE) reported = 'APPLY';
  if ((request.subresource ?? '') !== '' && CONNECT_SUBRESOURCES.has(request.subresource ?? '')) reported = 'CONNECT';
  return VALID_REQUEST_METHODS.has(reported) ? reported : 'other';
}

/** The RequestInfo verb of a resource request's method, as far as the scope needs it. */
function requestInfoVerb(method: string): string {
  return method.toUpperCase() === 'POST' ? 'create' : method.toLowerCase();
}

/**
 * The dry_run label: '' when the query has no dryRun, `invalid` when a value is not `All`,
 * otherwise the values deduplicated, sorted and joined with commas.
 */
export function cleanDryRun(query: URLSearchParams): string {
  const values = query.getAll('dryRun');
  if (values.length === 0) return '';
  if (values.some((v) => v !== 'All')) return 'invalid';
  return [...new Set(values)].sort().join(',');
}

/** Every label of a resource request but its code. */
export function requestLabels(request: ResourceRequest): RequestLabels {
  const scope = cleanScope({ verb: requestInfoVerb(request.method), namespace: request.namespace, name: request.name, isResourceRequest: true });
  return {
    verb: cleanVerb(canonicalVerb(request.method.toUpperCase(), scope), '', request),
    dry_run: cleanDryRun(request.query),
    group: request.group,
    version: request.version,
    resource: request.resource,
    subresource: request.subresource,
    scope,
    component: APISERVER_COMPONENT,
  };
}

// Who a request is, and what kube-apiserver answers one that offers no credential.
// kube-apiserver runs with anonymous requests allowed (--anonymous-auth defaults to true) and
// RBAC: a request with no bearer token is the user `system:anonymous`, which RBAC lets read
// only the public info paths (/healthz, /livez, /readyz, /version: the
// system:public-info-viewer role), so anything else gets 403 Forbidden naming the user, the
// verb and the resource or path. A request that offers a bearer token the server does not know
// gets 401 Unauthorized: the anonymous authenticator is only asked when no credential was offered.
// upstream (v1.33): staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go
//           (AuthenticateRequest: what counts as an offered token, an unknown one is an error),
//           staging/src/k8s.io/apiserver/pkg/authentication/request/union (NewFailOnError),
//           pkg/kubeapiserver/authenticator/config.go (anonymous last, behind FailOnError),
//           staging/src/k8s.io/apiserver/pkg/endpoints/request/requestinfo.go (NewRequestInfo: the
//           verb, resource, subresource, namespace and name RBAC is asked about),
//           staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/errors.go
//           (Forbidden, forbiddenMessage), staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go
//           (NewForbidden), plugin/pkg/auth/authorizer/rbac/bootstrappolicy/policy.go
//           (system:public-info-viewer)
import { timingSafeEqual } from 'node:crypto';
import type { ApiStatus } from '@kubesvc/api-types';
import type { RequestTarget } from './request-target.js';
import { unauthorizedStatus } from './status-bodies.js';

/** The paths RBAC's system:public-info-viewer lets anyone read, `system:anonymous` too. */
const PUBLIC_INFO_PATHS: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/livez', '/version', '/version/']);

export function isPublicInfoPath(path: string): boolean {
  return PUBLIC_INFO_PATHS.has(path);
}

/** `user`: the server's token; `anonymous`: no credential offered; `invalid`: a bearer token the server does not know (401). */
export type Authentication = 'user' | 'anonymous' | 'invalid';

/** Go's strings.TrimSpace for the ASCII white space an HTTP header can carry. */
function trimSpace(text: string): string {
  return text.replace(/^[\t\n\v\f\r ]+|[\t\n\v\f\r ]+$/g, '');
}

/** The bearer token a request offers, as upstream's bearer-token authenticator reads it, or undefined when it offers none. */
export function offeredBearerToken(header: string | undefined): string | undefined {
  const auth = trimSpace(header ?? '');
  if (auth === '') return undefined;
  // strings.SplitN(auth, " ", 3): whatever follows a third space is not part of the token.
  const first = auth.indexOf(' ');
  if (first === -1) return undefined;
  if (auth.slice(0, first).toLowerCase() !== 'bearer') return undefined;
  const rest = auth.slice(first + 1);
  const second = rest.indexOf(' ');
  const token = second === -1 ? rest : rest.slice(0, second);
  return token === '' ? undefined : token;
}

export function authenticate(header: string | undefined, token: string): Authentication {
  const given = offeredBearerToken(header);
  if (given === undefined) return 'anonymous';
  const a = Buffer.from(given);
  const want = Buffer.from(token);
  return a.length === want.length && timingSafeEqual(a, want) ? 'user' : 'invalid';
}

/** What RBAC is asked about a request (the parts of upstream's RequestInfo it reads). */
export interface RequestInfo {
  readonly isResourceRequest: boolean;
  readonly path: string;
  readonly verb: string;
  readonly apiGroup: string;
  readonly namespace: string;
  readonly resource: string;
  readonly subresource: string;
  readonly name: string;
}

const SPECIAL_VERBS: ReadonlySet<string> = new Set(['proxy', 'watch']);
const NAMESPACE_SUBRESOURCES: ReadonlySet<string> = new Set(['status', 'finalize']);
/** Go's strconv.ParseBool's true values, as the list options' `watch` is read. */
const GO_TRUE: ReadonlySet<string> = new Set(['1', 't', 'T', 'TRUE', 'true', 'True']);

function verbOfMethod(method: string): string {
  switch (method) {
    case 'POST':
      return 'create';
    case 'GET':
    case 'HEAD':
      return 'get';
    case 'PUT':
      return 'update';
    case 'PATCH':
      return 'patch';
    case 'DELETE':
      return 'delete';
    default:
      return '';
  }
}

/**
 * NewRequestInfo for the API's prefixes (`/api` without a group, `/apis` with one). `path` is
 * the request's path as written (not decoded), `query` its query.
 */
export function requestInfo(method: string, path: string, query: URLSearchParams): RequestInfo {
  const nonResource: RequestInfo = { isResourceRequest: false, path, verb: method.toLowerCase(), apiGroup: '', namespace: '', resource: '', subresource: '', name: '' };
  // splitPath: the path without its leading and trailing slashes, cut at each slash.
  const trimmed = path.replace(/^\/+|\/+$/g, '');
  let parts = trimmed === '' ? [] : trimmed.split('/');
  if (parts.length < 3) return nonResource;
  const prefix = parts[0];
  if (prefix !== 'api' && prefix !== 'apis') return nonResource;
  parts = parts.slice(1);
  let apiGroup = '';
  if (prefix === 'apis') {
    if (parts.length < 3) return nonResource;
    apiGroup = parts[0] ?? '';
    parts = parts.slice(1);
  }
  // The version.
  parts = parts.slice(1);
  let verb: string;
  if (SPECIAL_VERBS.has(parts[0] ?? '')) {
    // upstream answers "unable to determine kind and namespace from url" here; RBAC is never asked.
    if (parts.length < 2) return nonResource;
    verb = parts[0] ?? '';
    parts = parts.slice(1);
  } else {
    verb = verbOfMethod(method);
  }
  let namespace = '';
  if (parts[0] === 'namespaces') {
    if (parts.length > 1) {
      namespace = parts[1] ?? '';
      if (parts.length > 2 && !NAMESPACE_SUBRESOURCES.has(parts[2] ?? '')) parts = parts.slice(2);
    }
  }
  const resource = parts[0] ?? '';
  let name = parts.length >= 2 ? (parts[1] ?? '') : '';
  const subresource = parts.length >= 3 && verb !== 'proxy' ? (parts[2] ?? '') : '';
  if (name === '' && verb === 'get') {
    verb = GO_TRUE.has(query.get('watch') ?? '') ? 'watch' : 'list';
    // A list or watch of one name by field selector is asked about that name.
    const exact = (query.get('fieldSelector') ?? '')
      .split(',')
      .map((term) => /^metadata\.name==?(.*)$/.exec(term)?.[1])
      .find((value) => value !== undefined);
    if (exact !== undefined && exact !== '' && exact !== '.' && exact !== '..' && !/[/%]/.test(exact)) name = exact;
  }
  if (name === '' && verb === 'delete') verb = 'deletecollection';
  return { isResourceRequest: true, path, verb, apiGroup, namespace, resource, subresource, name };
}

const ANONYMOUS = 'system:anonymous';

/** The 403 RBAC's deny becomes for `system:anonymous`. */
export function anonymousForbiddenStatus(info: RequestInfo): ApiStatus {
  if (!info.isResourceRequest) {
    return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `forbidden: User "${ANONYMOUS}" cannot ${info.verb} path "${info.path}"`, reason: 'Forbidden', details: {}, code: 403 };
  }
  const resource = info.subresource === '' ? info.resource : `${info.resource}/${info.subresource}`;
  const where = info.namespace === '' ? 'at the cluster scope' : `in the namespace "${info.namespace}"`;
  const why = `User "${ANONYMOUS}" cannot ${info.verb} resource "${resource}" in API group "${info.apiGroup}" ${where}`;
  const qualified = info.apiGroup === '' ? info.resource : `${info.resource}.${info.apiGroup}`;
  const message = qualified === '' ? `forbidden: ${why}` : info.name === '' ? `${qualified} is forbidden: ${why}` : `${qualified} "${info.name}" is forbidden: ${why}`;
  const details = { ...(info.name === '' ? {} : { name: info.name }), ...(info.apiGroup === '' ? {} : { group: info.apiGroup }), ...(info.resource === '' ? {} : { kind: info.resource }) };
  return { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'Forbidden', details, code: 403 };
}

/**
 * Why a request (not to a public info path) is refused, or undefined when it carries `token`:
 * 401 for a bearer token the server does not know, 403 (RBAC's deny of `system:anonymous`)
 * for a request that offers none.
 */
export function authenticationRefusal(authorization: string | undefined, token: string, method: string, target: RequestTarget): ApiStatus | undefined {
  switch (authenticate(authorization, token)) {
    case 'user':
      return undefined;
    case 'invalid':
      return unauthorizedStatus();
    case 'anonymous':
      return anonymousForbiddenStatus(requestInfo(method, target.path, target.query));
  }
}

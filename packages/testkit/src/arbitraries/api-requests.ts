// Requests for fuzzing the HTTP API: the query strings, content types and bodies any request
// may carry (garbage and near-valid objects alike), and hostile requests against a control
// plane seeded with a known world (FUZZ_WORLD): dot segments in paths, collection deletes with
// selectors, deep nesting, big values, `__proto__` keys, JSON-patch copy chains, Service type
// changes onto ClusterIPs and NodePorts already taken or out of range, watches, and bearer
// tokens spelt every way. Each request says which family made it, for the failure report.
import { fc } from '@fast-check/vitest';

// `watch` is left out: a valid watch is a stream that does not end by itself.
const queryKey = fc.constantFrom('labelSelector', 'fieldSelector', 'limit', 'continue', 'resourceVersion', 'fieldValidation', 'fieldManager', 'dryRun', 'propagationPolicy', 'gracePeriodSeconds', 'includeObject', 'timeoutSeconds', 'x');
const queryValue = fc.oneof(fc.string({ maxLength: 20 }), fc.constantFrom('app=web', 'app in (x', 'metadata.name=web', 'spec.foo=1', '-1', '0', '2', 'All', 'Strict', 'Ignore', 'Orphan', 'eyJ2IjoibWV0YS5rOHMuaW8vdjEiLCJydiI6MSwic3RhcnQiOiIuLiJ9'));

/** `?k=v&…` from up to four of the list, selector, write and delete options, or ''. */
export const apiQueryArb: fc.Arbitrary<string> = fc
  .array(fc.tuple(queryKey, queryValue), { maxLength: 4 })
  .map((pairs) => (pairs.length === 0 ? '' : `?${new URLSearchParams(pairs).toString()}`));

/** A Content-Type header: the four patch types, JSON, YAML apply, a wrong one, or none (''). */
export const apiContentTypeArb: fc.Arbitrary<string> = fc.constantFrom(
  'application/json',
  'application/merge-patch+json',
  'application/json-patch+json',
  'application/strategic-merge-patch+json',
  'application/apply-patch+yaml',
  'text/plain',
  'application/json; charset=utf-8',
  '',
);

// A valid Service with one field replaced by any JSON value, or deleted.
const SERVICE = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { app: 'web' } }, spec: { type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }], selector: { app: 'web' } } };
const FIELD_PATHS: readonly (readonly string[])[] = [['apiVersion'], ['kind'], ['metadata'], ['metadata', 'name'], ['metadata', 'labels'], ['metadata', 'resourceVersion'], ['metadata', 'uid'], ['spec'], ['spec', 'type'], ['spec', 'ports'], ['spec', 'clusterIP'], ['spec', 'selector'], ['status']];
function mutate(path: readonly string[], value: unknown, remove: boolean): string {
  const copy = structuredClone(SERVICE) as Record<string, unknown>;
  let at: Record<string, unknown> = copy;
  for (const key of path.slice(0, -1)) {
    const next = at[key];
    if (typeof next !== 'object' || next === null) return JSON.stringify(copy);
    at = next as Record<string, unknown>;
  }
  const last = path[path.length - 1] ?? '';
  if (remove) delete at[last];
  else at[last] = value;
  return JSON.stringify(copy);
}

/** A body: empty, text, any JSON, a Service with one field changed, bytes, or a known awkward one. */
export const apiBodyArb: fc.Arbitrary<string> = fc.oneof(
  fc.constant(''),
  fc.string({ maxLength: 40 }),
  fc.jsonValue({ maxDepth: 3 }).map((v) => JSON.stringify(v)),
  fc.tuple(fc.constantFrom(...FIELD_PATHS), fc.jsonValue({ maxDepth: 2 }), fc.boolean()).map(([p, v, r]) => mutate(p, v, r)),
  fc.uint8Array({ maxLength: 40 }).map((b) => Buffer.from(b).toString('latin1')),
  fc.constantFrom('[{"op":"replace","path":"/spec/ports/0/port","value":0}]', '{"spec":{"type":"Bogus"}}', '{"metadata":{"name":"other"}}', '[{"op":"test","path":"/x","value":1}]', 'null', '[]', '{'),
);

// ---------------------------------------------------------------------------------------------
// The seeded world of the control-plane fuzz: what exists before the first request, so that
// requests can name real objects and collide with real ClusterIPs and NodePorts.

export const FUZZ_SERVICE_CIDR = '10.96.0.0/24';
export const FUZZ_NODE_PORT_RANGE = '30000-32767';
export const FUZZ_NODE_NAME = 'fuzz-node';
/** The namespaces NamespaceLifecycle refuses to delete. upstream: staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go */
export const IMMORTAL_NAMESPACES: readonly string[] = ['default', 'kube-system', 'kube-public'];
export const FUZZ_USER_NAMESPACES: readonly string[] = ['alpha', 'beta', 'victim', 'x'];
/** The namespaces that hold the seeded Services, pods and endpoints. */
export const FUZZ_SEEDED_NAMESPACES: readonly string[] = ['default', ...FUZZ_USER_NAMESPACES];
/** The seeded Services' names: one per type, a selector-less one with hand-written Endpoints, and `y`. */
export const FUZZ_SERVICE_NAMES: readonly string[] = ['web', 'np', 'lb', 'hl', 'ext', 'nosel', 'y'];
export const FUZZ_POD_NAMES: readonly string[] = ['p1', 'p2'];

type Json = Record<string, unknown>;

export interface FuzzWorld {
  /** Namespaces to create (the system ones come from the control plane). */
  readonly namespaces: readonly string[];
  /** Objects to create, in order: [resource, namespace, object]. */
  readonly objects: readonly (readonly [resource: 'services' | 'pods' | 'endpoints', namespace: string, object: Json])[];
  /** ClusterIPs and NodePorts the seeded Services hold. */
  readonly clusterIPs: readonly string[];
  readonly nodePorts: readonly number[];
}

/** The seeded world: in each seeded namespace one Service of each type (fixed ClusterIPs and NodePorts), two pods, hand-written Endpoints. */
export function fuzzWorld(): FuzzWorld {
  const objects: [('services' | 'pods' | 'endpoints'), string, Json][] = [];
  const clusterIPs: string[] = [];
  const nodePorts: number[] = [];
  FUZZ_SEEDED_NAMESPACES.forEach((ns, i) => {
    const meta = (name: string, labels: Record<string, string>): Json => ({ name, labels, annotations: { seeded: 'yes' } });
    const ports = [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080 }];
    const ip = (base: number): string => `10.96.0.${base + i}`;
    clusterIPs.push(ip(10), ip(20), ip(30), ip(40), ip(50));
    nodePorts.push(30100 + i, 30200 + i);
    objects.push(
      ['services', ns, { apiVersion: 'v1', kind: 'Service', metadata: meta('web', { app: 'web', tier: 'front' }), spec: { type: 'ClusterIP', clusterIP: ip(10), selector: { app: 'web' }, ports } }],
      ['services', ns, { apiVersion: 'v1', kind: 'Service', metadata: meta('np', { app: 'np' }), spec: { type: 'NodePort', clusterIP: ip(20), selector: { app: 'web' }, ports: [{ ...ports[0], nodePort: 30100 + i }] } }],
      ['services', ns, { apiVersion: 'v1', kind: 'Service', metadata: meta('lb', { app: 'lb' }), spec: { type: 'LoadBalancer', clusterIP: ip(30), selector: { app: 'web' }, ports: [{ ...ports[0], nodePort: 30200 + i }] } }],
      ['services', ns, { apiVersion: 'v1', kind: 'Service', metadata: meta('hl', { app: 'web' }), spec: { clusterIP: 'None', selector: { app: 'web' }, ports } }],
      ['services', ns, { apiVersion: 'v1', kind: 'Service', metadata: meta('ext', { app: 'ext' }), spec: { type: 'ExternalName', externalName: 'db.example.com' } }],
      ['services', ns, { apiVersion: 'v1', kind: 'Service', metadata: meta('nosel', {}), spec: { type: 'ClusterIP', clusterIP: ip(40), ports } }],
      ['services', ns, { apiVersion: 'v1', kind: 'Service', metadata: meta('y', { app: 'y' }), spec: { type: 'ClusterIP', clusterIP: ip(50), selector: { app: 'y' }, ports } }],
      ['endpoints', ns, { apiVersion: 'v1', kind: 'Endpoints', metadata: meta('nosel', {}), subsets: [{ addresses: [{ ip: '192.0.2.7' }], ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }] }],
    );
    for (const pod of FUZZ_POD_NAMES) {
      objects.push(['pods', ns, { apiVersion: 'v1', kind: 'Pod', metadata: meta(pod, { app: 'web' }), spec: { nodeName: FUZZ_NODE_NAME, containers: [{ name: 'c', image: 'nginx', ports: [{ containerPort: 8080 }] }] } }]);
    }
  });
  return { namespaces: FUZZ_USER_NAMESPACES, objects, clusterIPs, nodePorts };
}

// ---------------------------------------------------------------------------------------------
// Hostile requests.

export type RequestFamily = 'generic' | 'dot-segments' | 'collection-delete' | 'deep-nesting' | 'big-values' | 'proto-keys' | 'patch-chains' | 'type-changes' | 'watch' | 'auth';

export interface HostileRequest {
  readonly family: RequestFamily;
  readonly method: string;
  /** The raw path and query, to be sent as it is. */
  readonly path: string;
  /** The Authorization header, or undefined for none. */
  readonly authorization: string | undefined;
  readonly contentType?: string;
  readonly accept?: string;
  readonly body?: string;
  /** A watch: the client cuts the stream unless it ends by itself. */
  readonly watch?: { readonly timeoutSeconds: number | undefined };
  /** Before sending, read the object at this path and put its resourceVersion in the body's metadata (a read-modify-write). */
  readonly withResourceVersion?: boolean;
}

/**
 * Who kube-apiserver (anonymous requests on, its default) takes a request with this
 * Authorization header for: `user` when the bearer token is `token`; `invalid` (401) when the
 * header offers another bearer token; `anonymous` when it offers none. The header is trimmed
 * and split on single spaces; a first part `bearer` in any case and a non-empty second part
 * offer a token (later parts are ignored).
 * upstream: staging/src/k8s.io/apiserver/pkg/authentication/request/bearertoken/bearertoken.go,
 *           pkg/kubeapiserver/authenticator/config.go (anonymous behind FailOnError)
 */
export function upstreamAuthentication(header: string | undefined, token: string): 'user' | 'invalid' | 'anonymous' {
  if (header === undefined) return 'anonymous';
  const parts = header.trim().split(' ');
  if (parts.length < 2 || (parts[0] ?? '').toLowerCase() !== 'bearer' || parts[1] === '') return 'anonymous';
  return parts[1] === token ? 'user' : 'invalid';
}

function authorizationArb(token: string): fc.Arbitrary<string | undefined> {
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(`Bearer ${token}`) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        undefined,
        `bearer ${token}`,
        `BEARER ${token}`,
        ` Bearer ${token} `,
        `Bearer ${token} extra`,
        `Bearer  ${token}`,
        `Bearer ${token.slice(0, -1)}`,
        'Bearer nope',
        'Bearer',
        `Basic ${Buffer.from(`admin:${token}`).toString('base64')}`,
        token,
        '',
      ),
    },
  );
}

const NAMESPACES = [...IMMORTAL_NAMESPACES, ...FUZZ_USER_NAMESPACES, 'kube-node-lease', 'nope'];
const NAMESPACED = ['services', 'endpoints', 'pods', 'events'];
const NAMES = [...FUZZ_SERVICE_NAMES, ...FUZZ_POD_NAMES, 'kubernetes', 'fuzz-new', 'nope'];

const nsArb = fc.constantFrom(...NAMESPACES);
const nameArb = fc.constantFrom(...NAMES);

/** A route of the API: collection or item, namespaced or cluster-scoped, with /status now and then. */
const routeArb: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(nsArb, fc.constantFrom(...NAMESPACED)).map(([ns, r]) => `/api/v1/namespaces/${ns}/${r}`),
  fc.tuple(nsArb, fc.constantFrom(...NAMESPACED), nameArb).map(([ns, r, n]) => `/api/v1/namespaces/${ns}/${r}/${n}`),
  fc.tuple(nsArb, fc.constantFrom('services', 'pods'), nameArb).map(([ns, r, n]) => `/api/v1/namespaces/${ns}/${r}/${n}/status`),
  fc.tuple(nsArb, nameArb).map(([ns, n]) => `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices${n === 'nope' ? '' : `/${n}`}`),
  fc.constantFrom('/api/v1/namespaces', '/api/v1/nodes', '/api/v1/services', '/api/v1/pods', '/api/v1/endpoints', '/apis/discovery.k8s.io/v1/endpointslices', `/api/v1/nodes/${FUZZ_NODE_NAME}`, `/api/v1/nodes/${FUZZ_NODE_NAME}/status`),
  nsArb.map((ns) => `/api/v1/namespaces/${ns}`),
  nsArb.map((ns) => `/api/v1/namespaces/${ns}/status`),
  nsArb.map((ns) => `/api/v1/namespaces/${ns}/finalize`),
);

const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
const PATCH_TYPES = ['application/merge-patch+json', 'application/json-patch+json', 'application/strategic-merge-patch+json'];
const patchTypeArb = fc.constantFrom(...PATCH_TYPES);
const acceptArb = fc.option(fc.constantFrom('application/json;as=Table;v=v1;g=meta.k8s.io', 'application/vnd.kubernetes.protobuf', '*/*', 'text/html'), { freq: 6, nil: undefined });

/** A Service body for `namespace/name` with `spec` (a POST or PUT). */
function serviceBody(name: string, spec: Json, labels: Record<string, string> = { app: name }, extraMeta: Json = {}): string {
  return JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name, labels, ...extraMeta }, spec: { ports: [{ port: 80, protocol: 'TCP' }], ...spec } });
}

// Spellings of `.` and `..` a path may carry, raw or percent-encoded.
const DOT_FORMS = ['.', '..', '%2e', '%2e%2e', '%2E.', '.%2e', '%2E%2E', '%2e.'];

function dotSegmentsArb(): fc.Arbitrary<{ method: string; path: string; contentType?: string; body?: string }> {
  const dot = fc.constantFrom(...DOT_FORMS);
  const path = fc.oneof(
    // The name replaced: /namespaces/victim/services/%2e%2e
    fc.tuple(nsArb, fc.constantFrom(...NAMESPACED), dot).map(([ns, r, d]) => `/api/v1/namespaces/${ns}/${r}/${d}`),
    // A trailing dot segment: /namespaces/x/services/y/..
    fc.tuple(nsArb, fc.constantFrom(...NAMESPACED), nameArb, dot, fc.boolean()).map(([ns, r, n, d, slash]) => `/api/v1/namespaces/${ns}/${r}/${n}/${d}${slash ? '/' : ''}`),
    // The namespace replaced, or stepped out of: /namespaces/../services, /namespaces/x/../victim/services/web
    fc.tuple(dot, fc.constantFrom(...NAMESPACED), fc.option(nameArb, { nil: undefined })).map(([d, r, n]) => `/api/v1/namespaces/${d}/${r}${n === undefined ? '' : `/${n}`}`),
    fc.tuple(nsArb, dot, nsArb, fc.constantFrom(...NAMESPACED), nameArb).map(([a, d, b, r, n]) => `/api/v1/namespaces/${a}/${d}/${b}/${r}/${n}`),
    // Cluster-scoped: /namespaces/victim/.., /nodes/fuzz-node/%2e%2e
    fc.tuple(nsArb, dot).map(([ns, d]) => `/api/v1/namespaces/${ns}/${d}`),
    fc.tuple(dot, fc.constantFrom('namespaces', 'nodes')).map(([d, r]) => `/api/v1/${r}/${d}`),
    // Above the version: /api/v1/%2e%2e/v1/namespaces/victim
    fc.tuple(dot, nsArb).map(([d, ns]) => `/api/v1/${d}/v1/namespaces/${ns}`),
    fc.tuple(nsArb, dot).map(([ns, d]) => `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices/${d}`),
  );
  return fc.tuple(fc.constantFrom('DELETE', 'DELETE', 'DELETE', 'GET', 'PUT', 'PATCH', 'POST'), path, apiQueryArb.map((q) => (q.includes('watch') ? '' : q)), fc.boolean()).map(([method, p, q, withQuery]) => {
    const full = withQuery ? p + q : p;
    if (method === 'PATCH') return { method, path: full, contentType: 'application/merge-patch+json', body: '{"metadata":{"labels":{"touched":"yes"}}}' };
    if (method === 'PUT' || method === 'POST') return { method, path: full, contentType: 'application/json', body: serviceBody('web', { selector: { app: 'web' } }) };
    return { method, path: full };
  });
}

const LABEL_SELECTORS = ['app=web', 'app!=web', 'app', '!app', 'app in (web,y)', 'app notin (web)', 'tier=front', 'nomatch=1', 'app in (x', '=', 'a=b,,'];
const FIELD_SELECTORS = ['metadata.name=web', 'metadata.name!=web', 'metadata.namespace=x', 'spec.type=ClusterIP', 'metadata.name'];

function collectionDeleteArb(): fc.Arbitrary<{ method: string; path: string; body?: string; contentType?: string }> {
  const collection = fc.oneof(
    { weight: 4, arbitrary: fc.tuple(nsArb, fc.constantFrom(...NAMESPACED)).map(([ns, r]) => `/api/v1/namespaces/${ns}/${r}`) },
    { weight: 1, arbitrary: nsArb.map((ns) => `/apis/discovery.k8s.io/v1/namespaces/${ns}/endpointslices`) },
    { weight: 2, arbitrary: fc.constantFrom('/api/v1/namespaces', '/api/v1/namespaces/', '/api/v1/services', '/api/v1/pods', '/api/v1/nodes', '/apis/discovery.k8s.io/v1/endpointslices') },
    // Not collections, but deletes aimed as wide: a whole namespace, the system ones included.
    { weight: 1, arbitrary: nsArb.map((ns) => `/api/v1/namespaces/${ns}`) },
  );
  const query = fc.tuple(fc.option(fc.constantFrom(...LABEL_SELECTORS), { nil: undefined }), fc.option(fc.constantFrom(...FIELD_SELECTORS), { nil: undefined })).map(([l, f]) => {
    const params = new URLSearchParams();
    if (l !== undefined) params.set('labelSelector', l);
    if (f !== undefined) params.set('fieldSelector', f);
    const text = params.toString();
    return text === '' ? '' : `?${text}`;
  });
  const body = fc.constantFrom(undefined, '', '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}', '{"gracePeriodSeconds":-1}', 'not json');
  return fc.tuple(collection, query, body).map(([p, q, b]) => ({ method: 'DELETE', path: p + q, ...(b === undefined ? {} : { body: b, contentType: 'application/json' }) }));
}

/** `depth` levels of arrays or objects around a number: `[[[1]]]` or `{"a":{"a":1}}`. */
export function nestedJson(depth: number, shape: 'array' | 'object'): string {
  return shape === 'array' ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
}

function deepNestingArb(maxDepth: number): fc.Arbitrary<{ method: string; path: string; contentType: string; body: string }> {
  const depth = fc.oneof(fc.integer({ min: 1, max: maxDepth }), fc.constantFrom(...[100, 1000, 1900, 5000, 12_000].filter((d) => d <= maxDepth)));
  const shape = fc.constantFrom('array' as const, 'object' as const);
  return fc.tuple(depth, shape, fc.constantFrom('create', 'whole-create', 'put', 'merge', 'strategic', 'json-patch', 'list-param'), nsArb).map(([d, s, how, ns]) => {
    const nested = nestedJson(d, s);
    const item = `/api/v1/namespaces/${ns}/services/web`;
    switch (how) {
      case 'create':
        return { method: 'POST', path: `/api/v1/namespaces/${ns}/services`, contentType: 'application/json', body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"deep","labels":${nested}},"spec":{"ports":[{"port":80}]}}` };
      case 'whole-create':
        return { method: 'POST', path: `/api/v1/namespaces/${ns}/services`, contentType: 'application/json', body: nested };
      case 'put':
        return { method: 'PUT', path: item, contentType: 'application/json', body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"web"},"spec":${nested}}` };
      case 'merge':
        return { method: 'PATCH', path: item, contentType: 'application/merge-patch+json', body: `{"metadata":{"annotations":{"deep":"x"},"labels":${nested}}}` };
      case 'strategic':
        return { method: 'PATCH', path: item, contentType: 'application/strategic-merge-patch+json', body: `{"spec":{"ports":${nested}}}` };
      case 'json-patch':
        return { method: 'PATCH', path: item, contentType: 'application/json-patch+json', body: `[{"op":"add","path":"/metadata/annotations/deep","value":${nested}}]` };
      default:
        return { method: 'DELETE', path: item, contentType: 'application/json', body: `{"kind":"DeleteOptions","apiVersion":"v1","preconditions":${nested}}` };
    }
  });
}

function bigValuesArb(maxChars: number): fc.Arbitrary<{ method: string; path: string; contentType: string; body: string }> {
  const size = fc.oneof(fc.integer({ min: 1, max: maxChars }), fc.constantFrom(...[63, 64, 253, 254, 65_536, 262_144, 262_145, 1_000_000, 3_000_000].filter((n) => n <= maxChars)));
  return fc.tuple(size, fc.constantFrom('label-value', 'label-key', 'annotation', 'many-labels', 'name', 'patch-label', 'selector'), nsArb).map(([n, where, ns]) => {
    const big = 'a'.repeat(n);
    const collection = `/api/v1/namespaces/${ns}/services`;
    switch (where) {
      case 'label-value':
        return { method: 'POST', path: collection, contentType: 'application/json', body: serviceBody('big', {}, { app: big }) };
      case 'label-key':
        return { method: 'POST', path: collection, contentType: 'application/json', body: serviceBody('big', {}, { [big]: 'v' }) };
      case 'annotation':
        return { method: 'POST', path: collection, contentType: 'application/json', body: serviceBody('big', {}, {}, { annotations: { a: big } }) };
      case 'many-labels': {
        const labels: Record<string, string> = {};
        for (let i = 0; i < Math.min(n, 20_000); i++) labels[`k${i}`] = 'v';
        return { method: 'POST', path: collection, contentType: 'application/json', body: serviceBody('big', {}, labels) };
      }
      case 'name':
        return { method: 'POST', path: collection, contentType: 'application/json', body: serviceBody(big, {}) };
      case 'patch-label':
        return { method: 'PATCH', path: `${collection}/web`, contentType: 'application/merge-patch+json', body: JSON.stringify({ metadata: { labels: { app: big } } }) };
      default:
        return { method: 'PATCH', path: `${collection}/web`, contentType: 'application/strategic-merge-patch+json', body: JSON.stringify({ spec: { selector: { app: big } } }) };
    }
  });
}

const PROTO_BODIES: readonly (readonly [contentType: string, body: string])[] = [
  ['application/merge-patch+json', '{"__proto__":{"polluted":"yes"}}'],
  ['application/merge-patch+json', '{"metadata":{"__proto__":{"polluted":"yes"}}}'],
  ['application/merge-patch+json', '{"constructor":{"prototype":{"polluted":"yes"}}}'],
  ['application/merge-patch+json', '{"metadata":{"labels":{"__proto__":"x","constructor":"y"}}}'],
  ['application/merge-patch+json', '{"spec":{"selector":{"__proto__":{"polluted":"yes"}}}}'],
  ['application/strategic-merge-patch+json', '{"__proto__":{"polluted":"yes"}}'],
  ['application/strategic-merge-patch+json', '{"spec":{"ports":[{"port":80,"__proto__":{"polluted":"yes"}}]}}'],
  ['application/strategic-merge-patch+json', '{"spec":{"$setElementOrder/ports":[{"port":"__proto__"}],"ports":[{"$patch":"delete","port":"__proto__"}]}}'],
  ['application/strategic-merge-patch+json', '{"metadata":{"$retainKeys":["__proto__"],"__proto__":{"polluted":"yes"}}}'],
  ['application/json-patch+json', '[{"op":"add","path":"/__proto__/polluted","value":"yes"}]'],
  ['application/json-patch+json', '[{"op":"add","path":"/metadata/__proto__","value":{"polluted":"yes"}}]'],
  ['application/json-patch+json', '[{"op":"replace","path":"/constructor/prototype/polluted","value":1}]'],
  ['application/json-patch+json', '[{"op":"add","path":"/metadata/labels/__proto__","value":"x"}]'],
  ['application/json-patch+json', '[{"op":"copy","from":"/__proto__","path":"/metadata/annotations/p"}]'],
  ['application/json-patch+json', '[{"op":"move","from":"/metadata/labels","path":"/__proto__"}]'],
  ['application/json-patch+json', '[{"op":"test","path":"/__proto__","value":{}}]'],
  ['application/json-patch+json', '[{"op":"remove","path":"/constructor"}]'],
];

function protoKeysArb(): fc.Arbitrary<{ method: string; path: string; contentType: string; body: string }> {
  const create = fc.constantFrom(
    '{"apiVersion":"v1","kind":"Service","__proto__":{"polluted":"yes"},"metadata":{"name":"proto"},"spec":{"ports":[{"port":80}]}}',
    '{"apiVersion":"v1","kind":"Service","metadata":{"name":"proto","__proto__":{"polluted":"yes"}},"spec":{"ports":[{"port":80}]}}',
    '{"apiVersion":"v1","kind":"Service","metadata":{"name":"proto","labels":{"__proto__":"x"}},"spec":{"ports":[{"port":80}]}}',
    '{"apiVersion":"v1","kind":"Service","metadata":{"name":"proto"},"spec":{"constructor":{"prototype":{"polluted":"yes"}},"ports":[{"port":80}]}}',
    '{"apiVersion":"v1","kind":"Service","metadata":{"name":"__proto__"},"spec":{"ports":[{"port":80}]}}',
    '{"apiVersion":"v1","kind":"Service","metadata":{"name":"constructor"},"spec":{"ports":[{"port":80}]}}',
  );
  return fc.oneof(
    fc.tuple(fc.constantFrom(...PROTO_BODIES), nsArb, fc.constantFrom('services/web', 'services/ext', 'pods/p1', 'endpoints/nosel', 'services/web/status')).map(([[contentType, body], ns, item]) => ({ method: 'PATCH', path: `/api/v1/namespaces/${ns}/${item}`, contentType, body })),
    fc.tuple(create, nsArb).map(([body, ns]) => ({ method: 'POST', path: `/api/v1/namespaces/${ns}/services`, contentType: 'application/json', body })),
    fc.tuple(fc.constantFrom('__proto__', 'constructor', 'prototype', 'hasOwnProperty', 'toString'), fc.constantFrom('GET', 'DELETE', 'PATCH')).map(([name, method]) => ({
      method,
      path: `/api/v1/namespaces/${name}/services/${name}`,
      contentType: 'application/merge-patch+json',
      body: '{}',
    })),
    fc.constantFrom('__proto__', 'constructor', 'toString').map((r) => ({ method: 'GET', path: `/api/v1/${r}`, contentType: 'application/json', body: '' })),
  );
}

/** `count` JSON-patch ops that each copy (or move) a part of the object into itself, so each may double it. */
export function copyChainPatch(count: number, from: '/metadata' | '/spec' | '/spec/ports/0', op: 'copy' | 'move' | 'copy-append'): string {
  const ops: Json[] = [];
  for (let i = 0; i < count; i++) {
    if (op === 'copy-append') ops.push({ op: 'copy', from, path: '/spec/ports/-' });
    else if (op === 'move') ops.push({ op: 'move', from: i % 2 === 0 ? from : `/metadata/annotations/m${i - 1}`, path: i % 2 === 0 ? `/metadata/annotations/m${i}` : from });
    else ops.push({ op: 'copy', from, path: `/metadata/annotations/c${i}` });
  }
  return JSON.stringify(ops);
}

function patchChainsArb(maxOps: number): fc.Arbitrary<{ method: string; path: string; contentType: string; body: string }> {
  return fc
    .tuple(fc.integer({ min: 1, max: maxOps }), fc.constantFrom('/metadata' as const, '/spec' as const, '/spec/ports/0' as const), fc.constantFrom('copy' as const, 'move' as const, 'copy-append' as const), nsArb, fc.constantFrom('web', 'np', 'ext', 'kubernetes'))
    .map(([n, from, op, ns, name]) => ({ method: 'PATCH', path: `/api/v1/namespaces/${ns}/services/${name}`, contentType: 'application/json-patch+json', body: copyChainPatch(n, from, op) }));
}

const COLLIDING_IPS = ['10.96.0.1', '10.96.0.10', '10.96.0.21', '10.96.0.32', '10.96.0.44'];
const BAD_IPS = ['10.96.1.5', '10.97.0.1', '10.96.0.0', '10.96.0.255', '192.168.0.1', 'fd00::1', '0.0.0.0', 'not-an-ip', ''];
const COLLIDING_PORTS = [30100, 30101, 30200, 30204];
const BAD_PORTS = [29_999, 32_768, 65_535, 65_536, 0, -1, 80];

function typeChangesArb(): fc.Arbitrary<{ method: string; path: string; contentType: string; body: string; withResourceVersion?: boolean }> {
  const ip = fc.oneof(fc.constantFrom(...COLLIDING_IPS), fc.constantFrom(...BAD_IPS), fc.constant(undefined), fc.integer({ min: 1, max: 254 }).map((n) => `10.96.0.${n}`));
  const port = fc.oneof(fc.constantFrom(...COLLIDING_PORTS), fc.constantFrom(...BAD_PORTS), fc.constant(undefined), fc.integer({ min: 30_000, max: 30_300 }));
  const type = fc.constantFrom('ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName', undefined);
  const spec = fc.tuple(type, ip, port, fc.boolean(), fc.boolean()).map(([t, clusterIP, nodePort, headless, dual]) => {
    const s: Json = {};
    if (t !== undefined) s['type'] = t;
    if (t === 'ExternalName') s['externalName'] = 'moved.example.com';
    if (headless) s['clusterIP'] = 'None';
    else if (clusterIP !== undefined) s['clusterIP'] = clusterIP;
    if (dual && clusterIP !== undefined) s['clusterIPs'] = [clusterIP, 'fd00::10'];
    s['ports'] = [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 8080, ...(nodePort === undefined ? {} : { nodePort }) }];
    return s;
  });
  return fc.tuple(spec, nsArb, fc.constantFrom(...FUZZ_SERVICE_NAMES, 'kubernetes', 'fresh'), fc.constantFrom('merge', 'strategic', 'json-patch', 'put', 'post')).map(([s, ns, name, how]) => {
    const item = `/api/v1/namespaces/${ns}/services/${name}`;
    switch (how) {
      case 'merge':
        return { method: 'PATCH', path: item, contentType: 'application/merge-patch+json', body: JSON.stringify({ spec: s }) };
      case 'strategic':
        return { method: 'PATCH', path: item, contentType: 'application/strategic-merge-patch+json', body: JSON.stringify({ spec: s }) };
      case 'json-patch':
        return {
          method: 'PATCH',
          path: item,
          contentType: 'application/json-patch+json',
          body: JSON.stringify(Object.entries(s).map(([k, v]) => ({ op: 'add', path: `/spec/${k}`, value: v }))),
        };
      case 'put':
        return { method: 'PUT', path: item, contentType: 'application/json', body: serviceBody(name, { selector: { app: 'web' }, ...s }), withResourceVersion: true };
      default:
        return { method: 'POST', path: `/api/v1/namespaces/${ns}/services`, contentType: 'application/json', body: serviceBody(`${name}-new`, { selector: { app: 'web' }, ...s }) };
    }
  });
}

function watchArb(): fc.Arbitrary<{ method: string; path: string; timeoutSeconds: number | undefined }> {
  const collection = fc.oneof(
    fc.tuple(nsArb, fc.constantFrom(...NAMESPACED)).map(([ns, r]) => `/api/v1/namespaces/${ns}/${r}`),
    fc.constantFrom('/api/v1/namespaces', '/api/v1/services', '/api/v1/nodes', '/apis/discovery.k8s.io/v1/endpointslices'),
  );
  const timeout = fc.constantFrom(-5, -1, 1, undefined);
  const extra = fc.constantFrom('', '&resourceVersion=0', '&resourceVersion=1', '&allowWatchBookmarks=true', '&labelSelector=app%3Dweb', '&fieldSelector=metadata.name%3Dweb', '&resourceVersion=abc');
  return fc.tuple(collection, timeout, extra, fc.constantFrom('watch=true', 'watch=1')).map(([p, t, e, w]) => ({ method: 'GET', path: `${p}?${w}${t === undefined ? '' : `&timeoutSeconds=${t}`}${e}`, timeoutSeconds: t }));
}

function genericArb(): fc.Arbitrary<{ method: string; path: string; contentType: string; body: string; accept: string | undefined }> {
  const body = fc.oneof(
    apiBodyArb,
    fc.tuple(nameArb, fc.jsonValue({ maxDepth: 2 })).map(([n, spec]) => serviceBody(n, { selector: { app: 'web' }, extra: spec })),
    fc.constantFrom('{"metadata":{"labels":{"app":"changed"}}}', '{"metadata":{"finalizers":["x/y"]}}', '{"spec":{"finalizers":[]}}', '{"status":{"phase":"Terminating"}}', '{"metadata":{"deletionTimestamp":"2020-01-01T00:00:00Z"}}'),
  );
  return fc.tuple(fc.constantFrom(...METHODS), routeArb, apiQueryArb, fc.oneof(apiContentTypeArb, patchTypeArb), body, acceptArb).map(([method, p, q, contentType, b, accept]) => ({ method, path: p + q, contentType, body: b, accept }));
}

export interface HostileRequestOptions {
  /** The server's bearer token. */
  readonly token: string;
  /** Deepest nesting generated. Default 12,000. */
  readonly maxDepth?: number;
  /** Largest big value generated, in characters. Default 300,000. */
  readonly maxValueChars?: number;
  /** Longest JSON-patch copy chain. Default 12 (each op may double the object). */
  readonly maxCopyOps?: number;
}

/** One hostile request against the seeded world. */
export function hostileRequestArb(options: HostileRequestOptions): fc.Arbitrary<HostileRequest> {
  const maxDepth = options.maxDepth ?? 12_000;
  const maxValueChars = options.maxValueChars ?? 300_000;
  const maxCopyOps = options.maxCopyOps ?? 12;
  type Shape = { method: string; path: string; contentType?: string; body?: string; accept?: string | undefined; withResourceVersion?: boolean; timeoutSeconds?: number | undefined };
  const tagged = (family: RequestFamily, arb: fc.Arbitrary<Shape>): fc.Arbitrary<[RequestFamily, Shape]> => arb.map((s) => [family, s]);
  const shaped = fc.oneof(
    { weight: 6, arbitrary: tagged('generic', genericArb()) },
    { weight: 4, arbitrary: tagged('dot-segments', dotSegmentsArb()) },
    { weight: 3, arbitrary: tagged('collection-delete', collectionDeleteArb()) },
    { weight: 1, arbitrary: tagged('deep-nesting', deepNestingArb(maxDepth)) },
    { weight: 1, arbitrary: tagged('big-values', bigValuesArb(maxValueChars)) },
    { weight: 2, arbitrary: tagged('proto-keys', protoKeysArb()) },
    { weight: 1, arbitrary: tagged('patch-chains', patchChainsArb(maxCopyOps)) },
    { weight: 4, arbitrary: tagged('type-changes', typeChangesArb()) },
    { weight: 1, arbitrary: tagged('watch', watchArb()) },
  );
  return fc.tuple(shaped, authorizationArb(options.token)).map(([[family, s], authorization]) => {
    const r: HostileRequest = {
      family: authorization === `Bearer ${options.token}` ? family : 'auth',
      method: s.method,
      path: s.path,
      authorization,
      ...(s.contentType === undefined || s.contentType === '' ? {} : { contentType: s.contentType }),
      ...(s.accept === undefined ? {} : { accept: s.accept }),
      ...(s.body === undefined ? {} : { body: s.body }),
      ...(family === 'watch' ? { watch: { timeoutSeconds: s.timeoutSeconds } } : {}),
      ...(s.withResourceVersion === true ? { withResourceVersion: true } : {}),
    };
    return r;
  });
}

/** The request as one line for a failure report: long bodies are cut, with their length. */
export function describeRequest(r: HostileRequest): string {
  const body = r.body === undefined ? '' : r.body.length > 300 ? ` body(${r.body.length} chars)=${r.body.slice(0, 300)}…` : ` body=${r.body}`;
  const headers = [r.authorization === undefined ? 'no Authorization' : `Authorization=${JSON.stringify(r.authorization.replace(/[A-Za-z0-9_-]{16,}/g, '<token>'))}`, r.contentType === undefined ? '' : `Content-Type=${r.contentType}`, r.accept === undefined ? '' : `Accept=${r.accept}`]
    .filter((h) => h !== '')
    .join(' ');
  return `[${r.family}] ${r.method} ${r.path.length > 300 ? `${r.path.slice(0, 300)}…` : r.path} (${headers})${body}`;
}

/** `count` hostile requests drawn with `seed`: the same list on every run (for a benchmark). */
export function sampleHostileRequests(options: HostileRequestOptions, count: number, seed: number): HostileRequest[] {
  return fc.sample(hostileRequestArb(options), { numRuns: count, seed });
}

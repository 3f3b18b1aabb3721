// The OpenAPI documents kubectl reads before a create or an apply. v2 is served empty (a
// protobuf Document with no fields, which kubectl accepts; it then has no schema to validate
// against on the client side). v3 lists, per group version, the write operations of every
// resource with their query parameters: kubectl's query-parameter verifier looks for
// `fieldValidation` on the PATCH operation of the object's group-version-kind and, finding it,
// sends `fieldValidation=Strict` so that the server refuses unknown fields.
// upstream: staging/src/k8s.io/cli-runtime/pkg/resource/query_param_verifier_v3.go,
//           staging/src/k8s.io/kube-openapi/pkg/handler3/handler.go (the /openapi/v3 index)
import { createHash } from 'node:crypto';
import { RESOURCES, type ResourceInfo } from '../registry/resources.js';

function queryParam(name: string, description: string): Record<string, unknown> {
  return { name, in: 'query', description, schema: { type: 'string', uniqueItems: true } };
}

const WRITE_PARAMS = [
  queryParam('dryRun', 'When present, indicates that modifications should not be persisted.'),
  queryParam('fieldManager', 'fieldManager is a name associated with the actor or entity that is making these changes.'),
  queryParam('fieldValidation', 'fieldValidation instructs the server on how to handle objects in the request containing unknown or duplicate fields.'),
];

function gvk(info: ResourceInfo): Record<string, string> {
  const slash = info.apiVersion.indexOf('/');
  return { group: info.group, version: slash < 0 ? info.apiVersion : info.apiVersion.slice(slash + 1), kind: info.kind };
}

function operation(info: ResourceInfo, action: string, verb: string): Record<string, unknown> {
  return {
    operationId: `${verb}${info.kind}`,
    parameters: WRITE_PARAMS,
    responses: { '200': { description: 'OK' } },
    'x-kubernetes-action': action,
    'x-kubernetes-group-version-kind': gvk(info),
  };
}

function pathsOf(info: ResourceInfo, base: string): Record<string, unknown> {
  const collection = info.namespaced ? `${base}/namespaces/{namespace}/${info.resource}` : `${base}/${info.resource}`;
  return {
    [collection]: { post: operation(info, 'post', 'create') },
    [`${collection}/{name}`]: { put: operation(info, 'put', 'replace'), patch: operation(info, 'patch', 'patch') },
  };
}

/** The URL path (without the leading `/openapi/v3/`) of each group version's document. */
function groupVersionPath(info: ResourceInfo): string {
  return info.group === '' ? `api/${info.apiVersion}` : `apis/${info.apiVersion}`;
}

interface Documents {
  readonly byPath: ReadonlyMap<string, { readonly body: string; readonly hash: string }>;
  readonly index: string;
}

let cached: { readonly key: string; readonly docs: Documents } | undefined;

function documents(): Documents {
  const infos = Object.values(RESOURCES);
  const key = infos.map((i) => `${i.apiVersion}/${i.resource}`).join(',');
  if (cached?.key === key) return cached.docs;
  const grouped = new Map<string, ResourceInfo[]>();
  for (const info of infos) {
    const p = groupVersionPath(info);
    grouped.set(p, [...(grouped.get(p) ?? []), info]);
  }
  const byPath = new Map<string, { body: string; hash: string }>();
  const index: Record<string, { serverRelativeURL: string }> = {};
  for (const [p, list] of [...grouped].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const paths: Record<string, unknown> = {};
    for (const info of list) Object.assign(paths, pathsOf(info, `/${p}`));
    const body = JSON.stringify({ openapi: '3.0.0', info: { title: 'Kubernetes', version: 'v1.33.0' }, paths, components: {} });
    const hash = createHash('sha512').update(body).digest('hex').toUpperCase();
    byPath.set(p, { body, hash });
    index[p] = { serverRelativeURL: `/openapi/v3/${p}?hash=${hash}` };
  }
  const docs = { byPath, index: JSON.stringify({ paths: index }) };
  cached = { key, docs };
  return docs;
}

/** GET /openapi/v3: the index of group-version documents. */
export function openApiV3Index(): string {
  return documents().index;
}

/** GET /openapi/v3/<path>: one group version's document, or undefined. */
export function openApiV3Document(path: string): string | undefined {
  return documents().byPath.get(path)?.body;
}

// Fields a v1 object does not have, found by walking the api-types zod schema beside the
// decoded JSON. The schemas are loose on purpose (a cluster dump prints back unchanged), so
// the walk decides what is unknown: a key that is neither in the schema's shape nor in the
// short list of real v1 fields api-types does not model (below). Upstream's strict decoder
// reports them as `unknown field "spec.foo"` and its lenient one drops them; `pruneUnknown`
// does the latter.
// upstream: sigs.k8s.io/json (UnmarshalStrict: `unknown field "<path>"`),
//           staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/json.go (strict decoding)
import type { z } from 'zod';

interface Def {
  readonly type: string;
  readonly shape?: Readonly<Record<string, z.ZodType>>;
  readonly innerType?: z.ZodType;
  readonly element?: z.ZodType;
  readonly valueType?: z.ZodType;
  readonly options?: readonly z.ZodType[];
}

function defOf(schema: z.ZodType): Def {
  return (schema as unknown as { readonly _zod: { readonly def: Def } })._zod.def;
}

/**
 * Paths (upstream's syntax, `[]` for any list index) under which every field is accepted:
 * v1 fields api-types keeps as they come but does not model.
 */
export type OpenPaths = ReadonlySet<string>;

const COMMON_OPEN = ['metadata.managedFields'];

/** Real v1 fields per kind that the api-types schemas do not list. */
export const OPEN_PATHS: Readonly<Record<string, OpenPaths>> = {
  Service: new Set([...COMMON_OPEN, 'spec.trafficDistribution', 'spec.sessionAffinityConfig.clientIP']),
  Endpoints: new Set(COMMON_OPEN),
  EndpointSlice: new Set([...COMMON_OPEN, 'endpoints[].hints.forNodes']),
  Namespace: new Set([...COMMON_OPEN, 'status.conditions']),
  // A Pod's containers, volumes and most of its status are real fields api-types leaves alone.
  Pod: new Set([...COMMON_OPEN, 'spec', 'status']),
  Event: new Set([...COMMON_OPEN, 'series', 'related']),
  // A Node's status carries images, volumes, runtime handlers and more that api-types leaves alone.
  Node: new Set([
    ...COMMON_OPEN,
    'spec.configSource',
    'spec.externalID',
    'status.images',
    'status.volumesInUse',
    'status.volumesAttached',
    'status.config',
    'status.runtimeHandlers',
    'status.features',
    'status.declaredFeatures',
    'status.nodeInfo.swap',
  ]),
  ServiceCIDR: new Set(COMMON_OPEN),
  IPAddress: new Set(COMMON_OPEN),
  // The pod template's spec is a PodSpec, kept as it came (as a Pod's is).
  Deployment: new Set([...COMMON_OPEN, 'spec.template.spec', 'spec.template.metadata.managedFields']),
  ReplicaSet: new Set([...COMMON_OPEN, 'spec.template.spec', 'spec.template.metadata.managedFields']),
  Scale: new Set(COMMON_OPEN),
};

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function walk(schema: z.ZodType, value: unknown, path: string, generic: string, open: OpenPaths, out: string[]): void {
  if (open.has(generic)) return;
  const def = defOf(schema);
  switch (def.type) {
    case 'optional':
    case 'nullable':
    case 'default':
    case 'nonoptional':
    case 'readonly':
    case 'catch':
      if (def.innerType !== undefined) walk(def.innerType, value, path, generic, open, out);
      return;
    case 'array':
      if (Array.isArray(value) && def.element !== undefined) {
        const element = def.element;
        value.forEach((item, i) => walk(element, item, `${path}[${i}]`, `${generic}[]`, open, out));
      }
      return;
    case 'object': {
      if (!isRecord(value) || def.shape === undefined) return;
      for (const [key, child] of Object.entries(value)) {
        const childPath = path === '' ? key : `${path}.${key}`;
        const childGeneric = generic === '' ? key : `${generic}.${key}`;
        // Own keys only: a field named like an Object.prototype member ("toString") is unknown.
        const field = Object.hasOwn(def.shape, key) ? def.shape[key] : undefined;
        if (field === undefined) {
          if (!open.has(childGeneric)) out.push(childPath);
          continue;
        }
        walk(field, child, childPath, childGeneric, open, out);
      }
      return;
    }
    default:
      // Scalars, maps (any key is a value, not a field) and unions (intOrString).
      return;
  }
}

/** The unknown fields of `value` under `schema`, in document order, as upstream prints their paths. */
export function unknownFields(schema: z.ZodType, value: unknown, open: OpenPaths): string[] {
  const out: string[] = [];
  walk(schema, value, '', '', open, out);
  return out;
}

/**
 * A copy of `value` without the fields at `paths` (as unknownFields returned them). Only the
 * objects and arrays on the way to a removed field are copied; the rest is shared, so a removed
 * field is never walked or copied, however deep it nests.
 */
export function pruneUnknown(value: unknown, paths: readonly string[]): unknown {
  if (paths.length === 0) return value;
  const copied = new Set<unknown>();
  const own = <T extends object>(node: T): T => {
    if (copied.has(node)) return node;
    const copy = (Array.isArray(node) ? [...node] : { ...node }) as T;
    copied.add(copy);
    return copy;
  };
  if (!(typeof value === 'object' && value !== null)) return value;
  const root = own(value);
  for (const path of paths) {
    const steps = path.match(/[^.[\]]+/g) ?? [];
    let node: unknown = root;
    for (const step of steps.slice(0, -1)) {
      const parent = node;
      if (Array.isArray(parent)) {
        const child: unknown = parent[Number(step)];
        node = typeof child === 'object' && child !== null ? (parent[Number(step)] = own(child)) : undefined;
      } else if (isRecord(parent)) {
        const child = parent[step];
        node = typeof child === 'object' && child !== null ? (parent[step] = own(child)) : undefined;
      } else {
        node = undefined;
      }
    }
    const last = steps[steps.length - 1];
    if (isRecord(node) && last !== undefined) delete node[last];
  }
  return root;
}

// A cluster dump, read: the objects of a `-f FILE|-` input sorted by kind. Pure.
//
// The input is anything api-types' parseManifests reads (multi-document YAML, a stream of
// JSON objects, `kind: List`, typed lists: `kubectl get svc,endpointslices -A -o yaml`), read
// tolerantly: kinds this project does not model (a Deployment in a dump) are skipped and
// counted, never an error. Every problem names the input, the document and the field.
import {
  err,
  formatManifestIssue,
  ok,
  parseManifests,
  type EndpointSlice,
  type Endpoints,
  type IPAddress,
  type KubeObject,
  type ManifestIssue,
  type Namespace,
  type Pod,
  type RangeAllocation,
  type Result,
  type Service,
  type ServiceCIDR,
  type TaggedError,
} from '@kubesvc/api-types';
import { parseSingleJsonDocument } from './fast-json.js';

export interface Dump {
  /** The file name as given, or `-` for standard input. */
  readonly source: string;
  readonly objects: readonly KubeObject[];
  readonly services: readonly Service[];
  readonly endpointSlices: readonly EndpointSlice[];
  readonly endpoints: readonly Endpoints[];
  readonly pods: readonly Pod[];
  readonly namespaces: readonly Namespace[];
  readonly rangeAllocations: readonly RangeAllocation[];
  /** networking.k8s.io/v1: the ranges ClusterIPs come from, and one object per allocated ClusterIP. */
  readonly serviceCIDRs: readonly ServiceCIDR[];
  readonly ipAddresses: readonly IPAddress[];
  /** Documents of kinds this project does not model. */
  readonly skipped: readonly ManifestIssue[];
}

/** An input that does not read: every cause printed as `SOURCE: document N (...): field: message`. */
export interface ErrDump extends TaggedError<'ErrDump'> {
  readonly causes: readonly string[];
}

/** Bytes as text: UTF-8, a byte-order mark dropped, invalid sequences replaced (never an exception). */
export function decodeText(bytes: Uint8Array): string {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** `SOURCE: document 2, items[3] (Service default/web): spec.ports[0].port: ...` */
export function formatIssueAt(source: string, issue: ManifestIssue): string {
  return `${source}: ${formatManifestIssue(issue)}`;
}

/** The kinds read here that live in a namespace (the others: Namespace, Node, RangeAllocation, ServiceCIDR, IPAddress). */
const NAMESPACED: ReadonlySet<string> = new Set(['Service', 'Endpoints', 'EndpointSlice', 'Pod', 'Event']);

/**
 * The object with `metadata.namespace: default` when it is of a namespaced kind and names
 * none, as kubectl fills in its context's namespace (`default` unless configured) before it
 * sends an object: a manifest written for `kubectl apply -f` usually leaves it out.
 * upstream: staging/src/k8s.io/cli-runtime/pkg/resource/visitor.go (SetNamespace: the
 * namespace is set on a namespaced object that has none)
 */
export function withDefaultNamespace<T extends KubeObject>(object: T): T {
  if (!NAMESPACED.has(object.kind) || (object.metadata.namespace ?? '') !== '') return object;
  return { ...object, metadata: { ...object.metadata, namespace: 'default' } };
}

/** Kinds the parser decodes that no offline command reads: skipped like the kinds it does not know. */
const UNREAD_KINDS: ReadonlySet<string> = new Set(['Deployment', 'ReplicaSet', 'Scale']);

/** Sorts decoded objects by kind, each namespaced one without a namespace put in `default`. */
export function dumpOf(source: string, decoded: readonly KubeObject[], skippedKinds: readonly ManifestIssue[] = []): Dump {
  // Kinds the parser knows but no offline command reads (a Deployment, a ReplicaSet) are
  // skipped as the kinds it does not know are, with the same warning.
  const skipped = [...skippedKinds];
  const objects: KubeObject[] = [];
  for (const object of decoded.map(withDefaultNamespace)) {
    if (!UNREAD_KINDS.has(object.kind)) {
      objects.push(object);
      continue;
    }
    const { name, namespace } = object.metadata;
    skipped.push({ document: 0, kind: object.kind, ...(name === undefined ? {} : { name }), ...(namespace === undefined ? {} : { namespace }), message: `not read here: ${object.kind}` });
  }
  const services: Service[] = [];
  const endpointSlices: EndpointSlice[] = [];
  const endpoints: Endpoints[] = [];
  const pods: Pod[] = [];
  const namespaces: Namespace[] = [];
  const rangeAllocations: RangeAllocation[] = [];
  const serviceCIDRs: ServiceCIDR[] = [];
  const ipAddresses: IPAddress[] = [];
  for (const object of objects) {
    switch (object.kind) {
      case 'Service':
        services.push(object);
        break;
      case 'EndpointSlice':
        endpointSlices.push(object);
        break;
      case 'Endpoints':
        endpoints.push(object);
        break;
      case 'Pod':
        pods.push(object);
        break;
      case 'Namespace':
        namespaces.push(object);
        break;
      case 'RangeAllocation':
        rangeAllocations.push(object);
        break;
      case 'ServiceCIDR':
        serviceCIDRs.push(object);
        break;
      case 'IPAddress':
        ipAddresses.push(object);
        break;
      default:
        break;
    }
  }
  return { source, objects, services, endpointSlices, endpoints, pods, namespaces, rangeAllocations, serviceCIDRs, ipAddresses, skipped };
}

/** Reads a dump. Never throws: an input that does not decode is ErrDump naming every problem. */
export function loadDump(source: string, text: string): Result<Dump, ErrDump> {
  const fast = parseSingleJsonDocument(text);
  if (fast !== undefined) return ok(dumpOf(source, fast.objects, fast.skipped));
  const parsed = parseManifests(text, { tolerant: true });
  if (!parsed.ok) {
    const causes = parsed.error.causes.map((issue) => formatIssueAt(source, issue));
    return err({ _tag: 'ErrDump', message: causes.join('\n'), causes });
  }
  return ok(dumpOf(source, parsed.value.objects, parsed.value.skipped));
}

/** One line for stderr about what was skipped, or undefined: `skipped 3 objects of kinds not modelled here (ConfigMap, Deployment)`. */
export function skippedNote(dump: Dump): string | undefined {
  if (dump.skipped.length === 0) return undefined;
  const kinds = [...new Set(dump.skipped.map((s) => s.kind ?? '?'))].sort();
  const n = dump.skipped.length;
  return `${dump.source}: skipped ${n} object${n === 1 ? '' : 's'} of kinds not modelled here (${kinds.join(', ')})`;
}

/** The kind, namespace and name that make an object one object: `Service default/web`. */
function objectKey(object: KubeObject): string | undefined {
  const { name, namespace } = object.metadata;
  if (name === undefined || name === '') return undefined;
  return `${object.kind} ${namespace === undefined || namespace === '' ? '' : `${namespace}/`}${name}`;
}

/**
 * The dumps of several inputs (`-f a.yaml -f b.yaml`, a directory's files) as one, named
 * `source`: every object of each, in input order. An object that is in two inputs (the same
 * kind, namespace and name) is an error naming it and both inputs: kubectl apply would apply
 * both, the later over the earlier, but a dump is a picture of one moment, and which of the
 * two it shows cannot be told from it.
 */
export function mergeDumps(source: string, dumps: readonly Dump[]): Result<Dump, ErrDump> {
  const seen = new Map<string, string>();
  const causes: string[] = [];
  for (const dump of dumps) {
    const own = new Set<string>();
    for (const object of dump.objects) {
      const key = objectKey(object);
      if (key === undefined) continue;
      const first = seen.get(key);
      if (first !== undefined && !own.has(key)) causes.push(`${key} is in both ${first} and ${dump.source}: an object may be in one input only`);
      else if (first === undefined) seen.set(key, dump.source);
      own.add(key);
    }
  }
  if (causes.length > 0) return err({ _tag: 'ErrDump', message: causes.join('\n'), causes });
  return ok(dumpOf(source, dumps.flatMap((d) => d.objects), dumps.flatMap((d) => d.skipped)));
}

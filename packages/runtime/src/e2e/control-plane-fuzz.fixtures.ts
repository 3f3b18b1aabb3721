// Test support for fuzzing a running control plane: one started as `kubesvc up` starts it (the
// SQLite store in a temp dir, the bootstrap controller, the namespace, endpoints, EndpointSlice
// and mirroring controllers, the simulated kubelet, the HTTP API with its Table printer),
// seeded with the testkit's fuzz world; the objects it holds, read as one snapshot; the oracle
// of what a DELETE named; and the invariants the Services must keep (no ClusterIP or NodePort
// held twice, every ClusterIP in the service range, none for ExternalName).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { IPAddress, KubeObject, Service } from '@kubesvc/api-types';
import { FUZZ_NODE_NAME, FUZZ_NODE_PORT_RANGE, FUZZ_SERVICE_CIDR, fuzzWorld } from '@kubesvc/testkit';
import { startApiServer, type ApiServer, printTable, type Logger, type Registry, type ResourceName } from '@kubesvc/apiserver';
import { startControlPlane, type ControlPlane } from '../control-plane.js';
import { standardControllers } from '@kubesvc/controllers';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { type Store, systemClock } from '@kubesvc/store';

export const FUZZ_TOKEN = 'fuzz-control-plane-token-0123456789';
const ADVERTISE_ADDRESS = '192.0.2.10';

export interface FuzzCluster {
  readonly dir: string;
  readonly store: Store;
  readonly plane: ControlPlane;
  readonly registry: Registry;
  readonly api: ApiServer;
  readonly host: string;
  readonly port: number;
  /** What the control plane logged at level error, for the report. */
  readonly errors: string[];
  /** The last 50 lines it logged at level warning or error, for a failure's report. */
  readonly recentWarnings: string[];
  /** Stops the API, the control plane and the store, and removes the temp dir; safe to call twice, and after a failed start. */
  close(): Promise<void>;
}

/**
 * Starts the control plane and the API on 127.0.0.1 and seeds the fuzz world. The bootstrap
 * controller's intervals are short (the kubernetes Service and the system namespaces come back
 * within a second of a deletion), so the test's final checks need not wait long.
 */
export async function startFuzzCluster(): Promise<FuzzCluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-cp-fuzz-'));
  const cleanups: (() => Promise<void> | void)[] = [() => rmSync(dir, { recursive: true, force: true })];
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      for (const c of cleanups.splice(0).reverse()) {
        try {
          await c();
        } catch (error) {
          console.error(`control-plane fuzz cleanup: ${error instanceof Error ? error.message : String(error)}`);
        }
      }
    })());
  try {
    const store = openSqliteStore({ path: join(dir, 'state.db') });
    cleanups.push(() => store.close());
    const errors: string[] = [];
    const recentWarnings: string[] = [];
    const logger: Logger = {
      log: (level, message) => {
        if (level === 'error') errors.push(message);
        if (level === 'error' || level === 'warning') {
          recentWarnings.push(`${new Date().toISOString()} ${level}: ${message}`);
          if (recentWarnings.length > 50) recentWarnings.shift();
        }
      },
    };
    const started = await startControlPlane({
      store,
      clock: systemClock,
      logger,
      seed: 7,
      serviceClusterIPRange: FUZZ_SERVICE_CIDR,
      serviceNodePortRange: FUZZ_NODE_PORT_RANGE,
      advertiseAddress: ADVERTISE_ADDRESS,
      hostname: FUZZ_NODE_NAME,
      endpointIntervalMs: 200,
      // RepairIPAddress's periodic pass mends what its event-driven syncs undo in a race (an
      // IPAddress deleted as a wrong reference while the cache still had the Service before its
      // update, as v1.33.0 does); the end of the test waits for one.
      repairIntervalMs: 2_000,
      systemNamespacesIntervalMs: 500,
      compactionIntervalMs: 0,
      controllers: standardControllers({ hostName: FUZZ_NODE_NAME, nodes: [{ name: FUZZ_NODE_NAME, podCIDR: '10.244.0.0/24', internalIP: ADVERTISE_ADDRESS }] }),
    });
    if (!started.ok) throw new Error(started.error.message);
    const plane = started.value;
    cleanups.push(() => plane.stop());
    await plane.whenReady();
    const registry = plane.registry;
    const refused = await seedWorld(registry);
    if (refused.length > 0) throw new Error(`seeding the fuzz world: ${refused.join('; ')}`);
    await plane.idle();
    const api = await startApiServer({ registry, host: '127.0.0.1', token: FUZZ_TOKEN, ready: () => plane.isReady(), tables: printTable });
    cleanups.push(() => api.close());
    return { dir, store, plane, registry, api, host: '127.0.0.1', port: api.port, errors, recentWarnings, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/**
 * Creates the fuzz world's namespaces and objects that do not exist; returns what the registry
 * refused, other than AlreadyExists. Run again during a fuzz run, it brings back what deletes
 * took away (a refusal then is expected: a namespace still terminating, a ClusterIP taken since).
 */
export async function seedWorld(registry: Registry): Promise<string[]> {
  const refused: string[] = [];
  const world = fuzzWorld();
  for (const name of world.namespaces) {
    const r = await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    if (!r.ok && r.error._tag !== 'AlreadyExists') refused.push(`namespace ${name}: ${r.error.message}`);
  }
  for (const [resource, namespace, object] of world.objects) {
    const r = await registry.create(resource, namespace, object as unknown as KubeObject);
    if (!r.ok && r.error._tag !== 'AlreadyExists') refused.push(`${resource} ${namespace}/${String((object['metadata'] as { name?: string }).name)}: ${r.error.message}`);
  }
  return refused;
}

// ---------------------------------------------------------------------------------------------
// Snapshots and the deletion oracle.

/** The resources whose objects the oracle follows: EndpointSlices and Events are the controllers' to delete and recreate. */
export const TRACKED_RESOURCES: readonly ResourceName[] = ['namespaces', 'nodes', 'services', 'endpoints', 'pods'];

export interface TrackedObject {
  /** `resource/namespace/name` (namespace '' for cluster-scoped objects). */
  readonly key: string;
  readonly resource: ResourceName;
  readonly namespace: string;
  readonly name: string;
  readonly uid: string;
  readonly labels: Readonly<Record<string, string>>;
}

export interface Snapshot {
  readonly objects: ReadonlyMap<string, TrackedObject>;
  readonly services: readonly Service[];
}

export function objectKey(resource: string, namespace: string, name: string): string {
  return `${resource}/${namespace}/${name}`;
}

/** Every tracked object, read through the registry. */
export async function takeSnapshot(registry: Registry): Promise<Snapshot> {
  const objects = new Map<string, TrackedObject>();
  let services: Service[] = [];
  for (const resource of TRACKED_RESOURCES) {
    const listed = await registry.list(resource);
    if (!listed.ok) throw new Error(`listing ${resource}: ${listed.error.message}`);
    if (resource === 'services') services = listed.value.items as Service[];
    for (const o of listed.value.items) {
      const namespace = o.metadata.namespace ?? '';
      const name = o.metadata.name ?? '';
      const key = objectKey(resource, namespace, name);
      objects.set(key, { key, resource, namespace, name, uid: o.metadata.uid ?? '', labels: o.metadata.labels ?? {} });
    }
  }
  return { objects, services };
}

/** What one successful DELETE named: objects by key (as the path spelt them), objects by uid (a collection's matches), or a whole namespace. */
export type Naming =
  | { readonly kind: 'object'; readonly key: string }
  | { readonly kind: 'namespace'; readonly name: string }
  | { readonly kind: 'matched'; readonly uids: ReadonlySet<string>; readonly keys: ReadonlySet<string> };

const CLUSTER_SCOPED = new Set(['namespaces', 'nodes']);
const GROUP_RESOURCES: Readonly<Record<string, readonly string[]>> = {
  v1: ['namespaces', 'nodes', 'services', 'endpoints', 'pods', 'events'],
  'discovery.k8s.io/v1': ['endpointslices'],
};

type Matcher = (o: TrackedObject) => boolean;
const ALL: Matcher = () => true;

/**
 * The label selector's clauses this oracle understands (equality, inequality, existence, in,
 * notin); anything else matches everything, so an unparsed selector can only widen what a
 * collection delete is taken to have named.
 */
export function labelMatcher(selector: string | null): Matcher {
  if (selector === null || selector.trim() === '') return ALL;
  const clauses: Matcher[] = [];
  const re = /\s*(?:(!)?([A-Za-z0-9._/-]+)\s*(?:(==|=|!=)\s*([A-Za-z0-9._-]*)|\s+(in|notin)\s*\(([^)]*)\))?)\s*(?:,|$)/y;
  let at = 0;
  while (at < selector.length) {
    re.lastIndex = at;
    const m = re.exec(selector);
    if (m === null || m[0] === '') return ALL;
    at = re.lastIndex;
    const [, not, key = '', op, value = '', setOp, set] = m;
    if (op !== undefined) {
      if (not !== undefined) return ALL;
      clauses.push(op === '!=' ? (o) => o.labels[key] !== value : (o) => o.labels[key] === value);
    } else if (setOp !== undefined) {
      if (not !== undefined) return ALL;
      const values = new Set((set ?? '').split(',').map((v) => v.trim()));
      clauses.push(setOp === 'in' ? (o) => Object.hasOwn(o.labels, key) && values.has(o.labels[key] ?? '') : (o) => !Object.hasOwn(o.labels, key) || !values.has(o.labels[key] ?? ''));
    } else {
      clauses.push(not === undefined ? (o) => Object.hasOwn(o.labels, key) : (o) => !Object.hasOwn(o.labels, key));
    }
  }
  return (o) => clauses.every((c) => c(o));
}

/** metadata.name and metadata.namespace, = and !=; any other field selector matches everything. */
export function fieldMatcher(selector: string | null): Matcher {
  if (selector === null || selector.trim() === '') return ALL;
  const clauses: Matcher[] = [];
  for (const part of selector.split(',')) {
    const m = /^\s*metadata\.(name|namespace)\s*(==|=|!=)\s*(.*?)\s*$/.exec(part);
    if (m === null) return ALL;
    const [, field, op, value] = m;
    const get = (o: TrackedObject): string => (field === 'name' ? o.name : o.namespace);
    clauses.push(op === '!=' ? (o) => get(o) !== value : (o) => get(o) === value);
  }
  return (o) => clauses.every((c) => c(o));
}

/**
 * What a DELETE that got a 2xx named, read from its raw path as sent (no dot segment resolved:
 * a segment `..` names an object called `..`), against the objects that existed before it.
 * A namespace's deletion names everything in it; a collection's, the objects of that resource
 * (in that namespace) its selectors match. A path that is no object or collection names nothing.
 */
export function namedByDelete(rawPath: string, before: Snapshot): Naming[] {
  const q = rawPath.indexOf('?');
  const pathPart = q < 0 ? rawPath : rawPath.slice(0, q);
  const query = new URLSearchParams(q < 0 ? '' : rawPath.slice(q + 1));
  let segments: string[];
  try {
    segments = pathPart
      .split('/')
      .slice(1)
      .map((s) => decodeURIComponent(s));
  } catch {
    return [];
  }
  if (segments.length > 1 && segments[segments.length - 1] === '') segments = segments.slice(0, -1);
  let groupVersion: string;
  let rest: string[];
  if (segments[0] === 'api' && segments[1] === 'v1') {
    groupVersion = 'v1';
    rest = segments.slice(2);
  } else if (segments[0] === 'apis' && segments.length >= 3) {
    groupVersion = `${segments[1]}/${segments[2]}`;
    rest = segments.slice(3);
  } else {
    return [];
  }
  const known = GROUP_RESOURCES[groupVersion] ?? [];
  const matches = (resource: string, namespace: string | undefined): Naming => {
    const label = labelMatcher(query.get('labelSelector'));
    const field = fieldMatcher(query.get('fieldSelector'));
    const uids = new Set<string>();
    const keys = new Set<string>();
    for (const o of before.objects.values()) {
      if (o.resource !== resource || (namespace !== undefined && o.namespace !== namespace) || !label(o) || !field(o)) continue;
      uids.add(o.uid);
      keys.add(o.key);
    }
    return { kind: 'matched', uids, keys };
  };
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const [, ns = '', resource = '', name] = rest;
    if (!known.includes(resource) || CLUSTER_SCOPED.has(resource)) return [];
    if (rest.length === 3) return [matches(resource, ns)];
    if (rest.length === 4 && name !== undefined) return [{ kind: 'object', key: objectKey(resource, ns, name) }];
    return [];
  }
  const [resource = '', name] = rest;
  if (!known.includes(resource)) return [];
  if (rest.length === 1) {
    const matched = matches(resource, undefined);
    if (resource !== 'namespaces' || matched.kind !== 'matched') return [matched];
    return [matched, ...[...matched.keys].map((k): Naming => ({ kind: 'namespace', name: k.split('/')[2] ?? '' }))];
  }
  if (rest.length === 2 && name !== undefined && CLUSTER_SCOPED.has(resource)) {
    const object: Naming = { kind: 'object', key: objectKey(resource, '', name) };
    return resource === 'namespaces' ? [object, { kind: 'namespace', name }] : [object];
  }
  return [];
}

function namedDirectly(o: Pick<TrackedObject, 'key' | 'uid' | 'namespace' | 'resource' | 'name'>, named: readonly Naming[]): boolean {
  return named.some((n) => {
    switch (n.kind) {
      case 'object':
        return n.key === o.key;
      case 'namespace':
        return o.namespace === n.name || (o.resource === 'namespaces' && o.name === n.name);
      default:
        return n.uids.has(o.uid) || n.keys.has(o.key);
    }
  });
}

/** Whether the object's disappearance is accounted for: it, its namespace, or (for Endpoints) its Service was named. */
export function isNamed(o: TrackedObject, named: readonly Naming[]): boolean {
  if (namedDirectly(o, named)) return true;
  if (o.resource === 'endpoints') {
    const service = { ...o, resource: 'services' as const, key: objectKey('services', o.namespace, o.name), uid: '' };
    return namedDirectly(service, named);
  }
  return false;
}

/** The tracked objects of `before` that are gone (or replaced by another uid) in `after`. */
export function vanished(before: Snapshot, after: Snapshot): TrackedObject[] {
  return [...before.objects.values()].filter((o) => after.objects.get(o.key)?.uid !== o.uid);
}

// ---------------------------------------------------------------------------------------------
// The Services' allocation invariants.

const [RANGE_BASE = '', RANGE_BITS = '32'] = FUZZ_SERVICE_CIDR.split('/');
const [PORT_MIN = 0, PORT_MAX = 0] = FUZZ_NODE_PORT_RANGE.split('-').map(Number);

function ipv4Value(ip: string): number | undefined {
  const m = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(ip);
  if (m === null) return undefined;
  const octets = m.slice(1).map(Number);
  if (octets.some((o) => o > 255) || m.slice(1).some((o) => o.length > 1 && o.startsWith('0'))) return undefined;
  return octets.reduce((v, o) => v * 256 + o, 0);
}

/** Whether the service IP allocator could have handed out `ip`: inside the range, not its network or broadcast address. */
export function inServiceRange(ip: string): boolean {
  const value = ipv4Value(ip);
  const base = ipv4Value(RANGE_BASE);
  if (value === undefined || base === undefined) return false;
  const size = 2 ** (32 - Number(RANGE_BITS));
  return value > base && value < base + size - 1;
}

/**
 * What is wrong with the Services' allocations: a ClusterIP or NodePort held by two Services,
 * a ClusterIP outside the range, an ExternalName Service with a ClusterIP, a NodePort of a
 * NodePort or LoadBalancer Service outside the range, a ClusterIP Service with a NodePort.
 * upstream: pkg/registry/core/service/storage/alloc.go, pkg/apis/core/validation/validation.go
 *           (ValidateService), pkg/registry/core/service/strategy.go (dropTypeDependentFields)
 */
export function serviceViolations(services: readonly Service[]): string[] {
  const out: string[] = [];
  const ips = new Map<string, string>();
  const ports = new Map<number, string>();
  for (const s of services) {
    const id = `${s.metadata.namespace ?? ''}/${s.metadata.name ?? ''}`;
    const spec = s.spec ?? {};
    const type = spec.type ?? 'ClusterIP';
    const clusterIPs = spec.clusterIPs ?? (spec.clusterIP === undefined || spec.clusterIP === '' ? [] : [spec.clusterIP]);
    if (type === 'ExternalName') {
      if ((spec.clusterIP ?? '') !== '' || clusterIPs.length > 0) out.push(`ExternalName Service ${id} has clusterIP ${JSON.stringify(spec.clusterIP)} clusterIPs ${JSON.stringify(spec.clusterIPs)}`);
    } else if (spec.clusterIP === 'None') {
      if (clusterIPs.some((ip) => ip !== 'None')) out.push(`headless Service ${id} has clusterIPs ${JSON.stringify(clusterIPs)}`);
    } else {
      if (clusterIPs.length === 0) out.push(`${type} Service ${id} has no ClusterIP`);
      if (spec.clusterIP !== undefined && clusterIPs[0] !== spec.clusterIP) out.push(`Service ${id}: clusterIP ${spec.clusterIP} is not clusterIPs[0] ${JSON.stringify(clusterIPs)}`);
      for (const ip of clusterIPs) {
        if (!inServiceRange(ip)) out.push(`Service ${id} has ClusterIP ${ip}, outside ${FUZZ_SERVICE_CIDR}`);
        const holder = ips.get(ip);
        if (holder !== undefined && holder !== id) out.push(`ClusterIP ${ip} is held by ${holder} and ${id}`);
        ips.set(ip, id);
      }
    }
    for (const p of spec.ports ?? []) {
      const nodePort = p.nodePort ?? 0;
      if (nodePort === 0) continue;
      // upstream: ValidateService forbids a nodePort on a ClusterIP Service; an ExternalName
      // Service's is not allocated, so it neither holds a port nor needs one in the range.
      if (type === 'ClusterIP') out.push(`ClusterIP Service ${id} has nodePort ${nodePort}`);
      if (type !== 'NodePort' && type !== 'LoadBalancer') continue;
      if (nodePort < PORT_MIN || nodePort > PORT_MAX) out.push(`Service ${id} has NodePort ${nodePort}, outside ${FUZZ_NODE_PORT_RANGE}`);
      const holder = ports.get(nodePort);
      if (holder !== undefined && holder !== id) out.push(`NodePort ${nodePort} is held by ${holder} and ${id}`);
      ports.set(nodePort, id);
    }
  }
  return out;
}

/**
 * The ClusterIPs without an IPAddress naming their Service (the IPAddress allocator's
 * invariant once the control plane is idle: the registry creates it at allocation, and
 * RepairIPAddress restores one that is missing).
 * upstream: pkg/registry/core/service/ipallocator/controller/repairip.go (the Service side)
 */
export function missingIPAddresses(services: readonly Service[], ipAddresses: readonly IPAddress[]): string[] {
  const byName = new Map(ipAddresses.map((a) => [a.metadata.name ?? '', a] as const));
  const out: string[] = [];
  for (const s of services) {
    const spec = s.spec ?? {};
    if ((spec.type ?? 'ClusterIP') === 'ExternalName' || spec.clusterIP === 'None') continue;
    const namespace = s.metadata.namespace ?? '';
    const name = s.metadata.name ?? '';
    for (const ip of spec.clusterIPs ?? (spec.clusterIP === undefined || spec.clusterIP === '' ? [] : [spec.clusterIP])) {
      const ref = byName.get(ip)?.spec?.parentRef;
      if (ref?.resource !== 'services' || (ref.group ?? '') !== '' || ref.namespace !== namespace || ref.name !== name) {
        out.push(`Service ${namespace}/${name} ClusterIP ${ip}: IPAddress ${ref === undefined ? 'missing' : `names ${JSON.stringify(ref)}`}`);
      }
    }
  }
  return out;
}

/** The repair loops' findings that mean an allocation went wrong (a leak, freed on a later run, is not one). upstream: ipallocator/controller/repair.go, portallocator/controller/repair.go */
export const REPAIR_PROBLEMS: ReadonlySet<string> = new Set([
  'ClusterIPNotValid',
  'ClusterIPNotAllocated',
  'ClusterIPAlreadyAllocated',
  'ClusterIPOutOfRange',
  'PortNotAllocated',
  'PortAlreadyAllocated',
  'PortOutOfRange',
  'UnknownError',
]);

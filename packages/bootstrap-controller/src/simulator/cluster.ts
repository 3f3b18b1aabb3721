// The simulator's cluster: the objects the bootstrap controller reads and writes, kept as an
// immutable value. Services created through it get their ClusterIP and NodePorts from the real
// allocators, and the RangeAllocation objects are kept in step, as the apiserver's registry does;
// errors carry upstream's Status messages. There is no admission: system namespaces can be deleted.
// upstream: pkg/registry/core/service/storage (alloc.go: "failed to allocate IP %v: %v"),
//           staging/src/k8s.io/apimachinery/pkg/api/errors (NewAlreadyExists, NewNotFound, NewConflict),
//           pkg/registry/core/service/allocator/storage (the range's resourceVersion check)
import {
  defaultNamespace,
  err,
  defaultService,
  fieldPath,
  formatIP,
  goStringSlice,
  invalid,
  invalidError,
  isServiceIPSet,
  ok,
  parseIPSloppy,
  type CIDR,
  type Endpoints,
  type EndpointSlice,
  type FieldError,
  type Namespace,
  type ObjectMeta,
  type RangeAllocation,
  type Result,
  type Rng,
  type Service,
} from '@kubesvc/api-types';
import {
  allocateIP,
  allocateNextIP,
  ipAllocatorFromSnapshot,
  newIPAllocator,
  releaseIP,
  snapshotIPAllocator,
  type IPAllocator,
} from '@kubesvc/ipallocator';
import {
  allocateNextPort,
  allocatePort,
  newPortAllocator,
  portAllocatorFromSnapshot,
  releasePort,
  snapshotPortAllocator,
  type PortAllocator,
  type PortRange,
} from '@kubesvc/portallocator';
import { LEASE_STORAGE_PREFIX, type Lease } from '@kubesvc/reconcilers';
import type { ApiError, Observation, RangeAllocations, RangeKey, Write } from '../messages.js';

export interface Cluster {
  readonly serviceCIDR: CIDR;
  readonly nodePortRange: PortRange;
  /** The store's revision: every write takes the next one as its resourceVersion. */
  readonly revision: number;
  readonly namespaces: ReadonlyMap<string, Namespace>;
  /** Keyed `namespace/name`. */
  readonly services: ReadonlyMap<string, Service>;
  readonly endpoints: ReadonlyMap<string, Endpoints>;
  readonly endpointSlices: ReadonlyMap<string, EndpointSlice>;
  readonly ranges: RangeAllocations;
  readonly leases: ReadonlyMap<string, Lease>;
  /** Draws the dynamic ClusterIPs and NodePorts. */
  readonly rng: Rng;
}

export type ClusterResult = Result<Cluster, ApiError>;

type Kind = 'Namespace' | 'Service' | 'Endpoints' | 'EndpointSlice';
const RESOURCE: Readonly<Record<Kind, string>> = {
  Namespace: 'namespaces',
  Service: 'services',
  Endpoints: 'endpoints',
  EndpointSlice: 'endpointslices.discovery.k8s.io',
};
const COLLECTION = { Namespace: 'namespaces', Service: 'services', Endpoints: 'endpoints', EndpointSlice: 'endpointSlices' } as const;

export function newCluster(serviceCIDR: CIDR, nodePortRange: PortRange, rng: Rng): Cluster {
  return {
    serviceCIDR,
    nodePortRange,
    revision: 1,
    namespaces: new Map(),
    services: new Map(),
    endpoints: new Map(),
    endpointSlices: new Map(),
    ranges: {},
    leases: new Map(),
    rng,
  };
}

function fail(reason: ApiError['_tag'], message: string): ClusterResult {
  return err({ _tag: reason, message });
}

export const alreadyExists = (kind: Kind, name: string): ClusterResult => fail('AlreadyExists', `${RESOURCE[kind]} "${name}" already exists`);
export const notFound = (kind: Kind, name: string): ClusterResult => fail('NotFound', `${RESOURCE[kind]} "${name}" not found`);
export const conflict = (kind: Kind, name: string): ClusterResult =>
  fail('Conflict', `Operation cannot be fulfilled on ${RESOURCE[kind]} "${name}": the object has been modified; please apply your changes to the latest version and try again`);

function keyOf(kind: Kind, namespace: string | undefined, name: string): string {
  return kind === 'Namespace' ? name : `${namespace ?? ''}/${name}`;
}

function withSet<V>(map: ReadonlyMap<string, V>, key: string, value: V): Map<string, V> {
  return new Map(map).set(key, value);
}

function withDeleted<V>(map: ReadonlyMap<string, V>, key: string): Map<string, V> {
  const out = new Map(map);
  out.delete(key);
  return out;
}

function stamp<T extends { metadata: ObjectMeta }>(object: T, revision: number): T {
  return { ...object, metadata: { ...object.metadata, resourceVersion: String(revision) } };
}

/** What a controller sees: every object, and the leases that have not expired by `now`. */
export function observe(cluster: Cluster, now: number): Observation {
  const leases = new Map([...cluster.leases].filter(([, lease]) => lease.expiresAt > now));
  return {
    services: [...cluster.services.values()],
    endpoints: [...cluster.endpoints.values()],
    endpointSlices: [...cluster.endpointSlices.values()],
    namespaces: [...cluster.namespaces.values()],
    rangeAllocations: cluster.ranges,
    leases,
  };
}

// --- the allocators, restored from and saved to their RangeAllocation objects ---------------

function ipAllocator(cluster: Cluster): IPAllocator {
  const stored = cluster.ranges.serviceIPs;
  const restored = stored === undefined ? undefined : ipAllocatorFromSnapshot(stored);
  return restored?.ok ? restored.value : newIPAllocator(cluster.serviceCIDR);
}

function portAllocator(cluster: Cluster): PortAllocator {
  const stored = cluster.ranges.nodePorts;
  const restored = stored === undefined ? undefined : portAllocatorFromSnapshot(stored);
  return restored?.ok ? restored.value : newPortAllocator(cluster.nodePortRange);
}

function saveRange(ranges: RangeAllocations, key: RangeKey, allocation: RangeAllocation, revision: number): RangeAllocations {
  return { ...ranges, [key]: stamp({ ...allocation, metadata: { ...allocation.metadata } }, revision) };
}

function nodePortsOf(service: Service | undefined): number[] {
  return (service?.spec?.ports ?? []).map((p) => p.nodePort ?? 0).filter((p) => p !== 0);
}

interface Allocation {
  readonly service: Service;
  readonly ips: IPAllocator;
  readonly ports: PortAllocator;
  readonly rng: Rng;
}

/** The registry's allocation on create (or, with `old`, on update): ClusterIP first, then NodePorts. */
function allocate(cluster: Cluster, service: Service, old: Service | undefined): Result<Allocation, ApiError> {
  let ips = ipAllocator(cluster);
  let ports = portAllocator(cluster);
  let rng = cluster.rng;
  let spec = { ...service.spec };
  const name = service.metadata.name ?? '';
  const invalidService = (errors: FieldError[]) => err<ApiError>({ _tag: 'Invalid', message: invalidError('Service', name, errors).message });

  if (old === undefined) {
    const wanted = spec.clusterIP ?? '';
    if (wanted === '') {
      const next = allocateNextIP(ips, rng);
      if (!next.ok) return err<ApiError>({ _tag: 'InternalError', message: `Internal error occurred: failed to allocate a serviceIP: ${next.error.message}` });
      ({ allocator: ips, rng } = next.value);
      spec = { ...spec, clusterIP: formatIP(next.value.ip), clusterIPs: [formatIP(next.value.ip)] };
    } else if (isServiceIPSet(spec)) {
      const parsed = parseIPSloppy(wanted);
      const taken = parsed.ok ? allocateIP(ips, parsed.value) : undefined;
      if (taken === undefined || !taken.ok) {
        const reason = taken === undefined ? 'not a valid IP' : taken.error.message;
        return invalidService([invalid(fieldPath('spec', 'clusterIPs'), goStringSlice([wanted]), `failed to allocate IP ${wanted}: ${reason}`)]);
      }
      ips = taken.value;
      spec = { ...spec, clusterIPs: [wanted] };
    }
  }

  if (spec.type === 'NodePort' || spec.type === 'LoadBalancer') {
    const kept = new Set(nodePortsOf(old));
    const portsOut = [];
    for (const [i, port] of (spec.ports ?? []).entries()) {
      const wanted = port.nodePort ?? 0;
      if (wanted !== 0 && kept.delete(wanted)) {
        portsOut.push(port);
      } else if (wanted !== 0) {
        const taken = allocatePort(ports, wanted);
        if (!taken.ok) return invalidService([invalid(fieldPath('spec', 'ports').index(i).child('nodePort'), wanted, taken.error.message)]);
        ports = taken.value;
        portsOut.push(port);
      } else {
        const next = allocateNextPort(ports, rng);
        if (!next.ok) return err<ApiError>({ _tag: 'InternalError', message: `Internal error occurred: failed to allocate a nodePort: ${next.error.message}` });
        ({ allocator: ports, rng } = next.value);
        portsOut.push({ ...port, nodePort: next.value.port });
      }
    }
    for (const released of kept) ports = releasePort(ports, released);
    spec = { ...spec, ports: portsOut };
  } else {
    for (const released of nodePortsOf(old)) ports = releasePort(ports, released);
  }
  return ok({ service: { ...service, spec }, ips, ports, rng });
}

function commitAllocation(cluster: Cluster, a: Allocation, revision: number): Cluster {
  let ranges = cluster.ranges;
  const ipSnapshot = snapshotIPAllocator(a.ips, cluster.ranges.serviceIPs);
  if (ipSnapshot.data !== cluster.ranges.serviceIPs?.data || cluster.ranges.serviceIPs === undefined) {
    ranges = saveRange(ranges, 'serviceIPs', ipSnapshot, revision);
  }
  const portSnapshot = snapshotPortAllocator(a.ports, cluster.ranges.nodePorts);
  if (portSnapshot.data !== cluster.ranges.nodePorts?.data || cluster.ranges.nodePorts === undefined) {
    ranges = saveRange(ranges, 'nodePorts', portSnapshot, revision);
  }
  return { ...cluster, ranges, rng: a.rng };
}

function releaseService(cluster: Cluster, service: Service, revision: number): Cluster {
  let ips = ipAllocator(cluster);
  const ip = parseIPSloppy(service.spec?.clusterIP ?? '');
  if (ip.ok) ips = releaseIP(ips, ip.value);
  let ports = portAllocator(cluster);
  for (const port of nodePortsOf(service)) ports = releasePort(ports, port);
  return commitAllocation(cluster, { service, ips, ports, rng: cluster.rng }, revision);
}

// --- writes ------------------------------------------------------------------------------

/** Creates a Service as the registry does: default, allocate, then store (a name clash gives the allocation back). */
export function createService(cluster: Cluster, input: Service): ClusterResult {
  const namespace = input.metadata.namespace ?? 'default';
  const name = input.metadata.name ?? '';
  if (!cluster.namespaces.has(namespace)) return notFound('Namespace', namespace);
  const service = defaultService({ ...input, metadata: { ...input.metadata, namespace } });
  const allocation = allocate(cluster, service, undefined);
  if (!allocation.ok) return allocation;
  const key = keyOf('Service', namespace, name);
  if (cluster.services.has(key)) return alreadyExists('Service', name);
  const revision = cluster.revision + 1;
  const next = commitAllocation(cluster, allocation.value, revision);
  return ok({ ...next, revision, services: withSet(cluster.services, key, stamp(allocation.value.service, revision)) });
}

function updateService(cluster: Cluster, input: Service, resourceVersion: string | undefined): ClusterResult {
  const name = input.metadata.name ?? '';
  const key = keyOf('Service', input.metadata.namespace, name);
  const old = cluster.services.get(key);
  if (old === undefined) return notFound('Service', name);
  if (resourceVersion !== undefined && resourceVersion !== old.metadata.resourceVersion) return conflict('Service', name);
  // The ClusterIP cannot change once set.
  const service = defaultService({ ...input, spec: { ...input.spec, clusterIP: old.spec?.clusterIP, clusterIPs: old.spec?.clusterIPs } });
  const allocation = allocate(cluster, service, old);
  if (!allocation.ok) return allocation;
  const revision = cluster.revision + 1;
  const next = commitAllocation(cluster, allocation.value, revision);
  return ok({ ...next, revision, services: withSet(cluster.services, key, stamp(allocation.value.service, revision)) });
}

export function createNamespace(cluster: Cluster, namespace: Namespace): ClusterResult {
  const name = namespace.metadata.name ?? '';
  if (cluster.namespaces.has(name)) return alreadyExists('Namespace', name);
  const revision = cluster.revision + 1;
  return ok({ ...cluster, revision, namespaces: withSet(cluster.namespaces, name, stamp(defaultNamespace(namespace), revision)) });
}

function putObject(cluster: Cluster, object: Endpoints | EndpointSlice, mode: 'create' | 'update', resourceVersion?: string): ClusterResult {
  const kind = object.kind;
  const name = object.metadata.name ?? '';
  const namespace = object.metadata.namespace ?? 'default';
  const collection = COLLECTION[kind];
  const map = cluster[collection] as ReadonlyMap<string, Endpoints | EndpointSlice>;
  const key = keyOf(kind, namespace, name);
  const old = map.get(key);
  if (mode === 'create') {
    if (!cluster.namespaces.has(namespace)) return notFound('Namespace', namespace);
    if (old !== undefined) return alreadyExists(kind, name);
  } else {
    if (old === undefined) return notFound(kind, name);
    if (resourceVersion !== undefined && resourceVersion !== old.metadata.resourceVersion) return conflict(kind, name);
  }
  const revision = cluster.revision + 1;
  return ok({ ...cluster, revision, [collection]: withSet(map, key, stamp({ ...object, metadata: { ...object.metadata, namespace } }, revision)) });
}

/** Deletes an object; deleting a Service gives its ClusterIP and NodePorts back, deleting a namespace deletes what is in it. */
export function deleteObject(cluster: Cluster, kind: Kind, namespace: string, name: string, resourceVersion?: string): ClusterResult {
  const key = keyOf(kind, namespace, name);
  const map = cluster[COLLECTION[kind]] as ReadonlyMap<string, { metadata: ObjectMeta }>;
  const old = map.get(key);
  if (old === undefined) return notFound(kind, name);
  if (resourceVersion !== undefined && resourceVersion !== old.metadata.resourceVersion) return conflict(kind, name);
  const revision = cluster.revision + 1;
  let next: Cluster = { ...cluster, revision, [COLLECTION[kind]]: withDeleted(map, key) };
  if (kind === 'Service') next = releaseService(next, old as Service, revision);
  if (kind === 'Namespace') {
    const inside = (k: string) => k.startsWith(`${name}/`);
    for (const [k, service] of next.services) if (inside(k)) next = releaseService(next, service, revision);
    next = {
      ...next,
      services: new Map([...next.services].filter(([k]) => !inside(k))),
      endpoints: new Map([...next.endpoints].filter(([k]) => !inside(k))),
      endpointSlices: new Map([...next.endpointSlices].filter(([k]) => !inside(k))),
    };
  }
  return ok(next);
}

const RANGE_RESOURCE: Readonly<Record<RangeKey, string>> = {
  serviceIPs: 'serviceipallocations',
  secondaryServiceIPs: 'serviceipallocations',
  nodePorts: 'servicenodeportallocations',
};

export const rangeConflict = (key: RangeKey, why: string): ClusterResult =>
  fail('Conflict', `Operation cannot be fulfilled on ${RANGE_RESOURCE[key]} "": ${why}`);

// upstream: pkg/registry/core/service/allocator/storage/storage.go CreateOrUpdate: a
// GuaranteedUpdate that ignores NotFound, so a missing range is written whatever version the
// caller holds, and a stored one needs the caller's version to match.
function writeRange(cluster: Cluster, key: RangeKey, allocation: RangeAllocation, resourceVersion: string | undefined): ClusterResult {
  const stored = cluster.ranges[key];
  if (stored !== undefined && resourceVersion === undefined) return rangeConflict(key, 'another caller has already initialized the resource');
  if (stored !== undefined && resourceVersion !== stored.metadata.resourceVersion) return rangeConflict(key, 'the provided resource version does not match');
  const revision = cluster.revision + 1;
  return ok({ ...cluster, revision, ranges: saveRange(cluster.ranges, key, allocation, revision) });
}

/** A leaked allocation: taken in the RangeAllocation, held by no Service (a crash between allocation and store). */
export function leakClusterIP(cluster: Cluster, ip: string): ClusterResult {
  const parsed = parseIPSloppy(ip);
  if (!parsed.ok) return fail('Invalid', parsed.error.message);
  const taken = allocateIP(ipAllocator(cluster), parsed.value);
  if (!taken.ok) return fail('Invalid', taken.error.message);
  const revision = cluster.revision + 1;
  return ok({ ...cluster, revision, ranges: saveRange(cluster.ranges, 'serviceIPs', snapshotIPAllocator(taken.value, cluster.ranges.serviceIPs), revision) });
}

/** The same for a NodePort. */
export function leakClusterNodePort(cluster: Cluster, port: number): ClusterResult {
  const taken = allocatePort(portAllocator(cluster), port);
  if (!taken.ok) return fail('Invalid', taken.error.message);
  const revision = cluster.revision + 1;
  return ok({ ...cluster, revision, ranges: saveRange(cluster.ranges, 'nodePorts', snapshotPortAllocator(taken.value, cluster.ranges.nodePorts), revision) });
}

/** Applies a controller's write at time `now`. */
export function applyWrite(cluster: Cluster, write: Write, now: number): ClusterResult {
  switch (write.kind) {
    case 'create':
      switch (write.object.kind) {
        case 'Namespace':
          return createNamespace(cluster, write.object);
        case 'Service':
          return createService(cluster, write.object);
        default:
          return putObject(cluster, write.object, 'create');
      }
    case 'update':
      return write.object.kind === 'Service'
        ? updateService(cluster, write.object, write.resourceVersion)
        : putObject(cluster, write.object, 'update', write.resourceVersion);
    case 'delete':
      return deleteObject(cluster, write.objectKind, write.namespace, write.name, write.resourceVersion);
    case 'write-range':
      return writeRange(cluster, write.range, write.allocation, write.resourceVersion);
    case 'put-lease': {
      const revision = cluster.revision + 1;
      const lease = { ip: write.lease.ip, expiresAt: now + write.ttlMs };
      return ok({ ...cluster, revision, leases: withSet(cluster.leases, lease.ip, lease) });
    }
    case 'delete-lease': {
      const lease = cluster.leases.get(write.ip);
      // An expired key is gone from the store.
      if (lease === undefined || lease.expiresAt <= now) {
        return fail('NotFound', `StorageError: key not found, Code: 1, Key: ${LEASE_STORAGE_PREFIX}${write.ip}, ResourceVersion: 0, AdditionalErrorMsg: `);
      }
      return ok({ ...cluster, revision: cluster.revision + 1, leases: withDeleted(cluster.leases, write.ip) });
    }
    case 'event':
      return ok(cluster);
  }
}

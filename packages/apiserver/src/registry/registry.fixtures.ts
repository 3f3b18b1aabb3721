// What the registry's tests share: a registry over a memory store on a virtual clock with the
// namespaces a test needs, a Service body, the allocations the store holds, and `must` for the
// set-up steps that cannot fail.
import type { Namespace, RangeAllocation, Service } from '@kubesvc/api-types';
import { BITMAP_CLUSTER_IP_ALLOCATION, formatIP } from '@kubesvc/api-types';
import { allocatedIPs, ipAllocatorFromSnapshot } from '@kubesvc/ipallocator';
import { allocatedPorts, portAllocatorFromSnapshot } from '@kubesvc/portallocator';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { createRegistry, type Registry } from './registry.js';
import { SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY } from './resources.js';
import type { RegistryOptions } from './types.js';

/** The value of a Result a test's set-up needs; throws the error's message otherwise. */
export function must<T>(r: { ok: true; value: T } | { ok: false; error: { message: string } }): T {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

export interface MemoryRegistryOptions extends Partial<RegistryOptions> {
  /** The virtual clock's start, ms since the epoch (ignored when `clock` is given). */
  readonly start?: number;
  /** Namespaces created before the test runs, in this order. */
  readonly namespaces?: readonly string[];
  /** Whether to run the apiserver's start (ranges, default ServiceCIDR) before the namespaces, as openRegistry does. Default: only with the IPAddress allocator. */
  readonly initRanges?: boolean;
}

/**
 * A registry over a memory store (or `options.store`) with service range 10.96.0.0/24 and
 * node ports 30000-30100 unless `options` say otherwise, and `options.namespaces` created
 * (`default` alone when none are named).
 *
 * Its ClusterIPs come from the bitmap allocator unless `clusterIPAllocation` names the
 * IPAddress allocator: most registry tests are about the verbs, and read the allocations from
 * the RangeAllocation. With the IPAddress allocator the start is always run (initRanges), since
 * without the default ServiceCIDR it creates it has no range to allocate from.
 */
export async function memoryRegistry(options: MemoryRegistryOptions = {}): Promise<{ registry: Registry; store: Store }> {
  const { start = 0, namespaces = ['default'], clusterIPAllocation = BITMAP_CLUSTER_IP_ALLOCATION, ...rest } = options;
  const initRanges = options.initRanges ?? clusterIPAllocation.allocator === 'ipaddress';
  const clock = rest.clock ?? virtualClock(start);
  const store = rest.store ?? openMemoryStore({ clock });
  const registry = must(
    createRegistry({ seed: 1, serviceClusterIPRanges: ['10.96.0.0/24'], serviceNodePortRange: '30000-30100', ...rest, clusterIPAllocation, store, clock }),
  );
  if (initRanges) await registry.initRanges();
  for (const name of namespaces) must(await registry.create<Namespace>('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
  return { registry, store };
}

/** A Service named `name` with one port 80, selecting app=`name`, and `spec` laid over that. */
export function svc(name: string, spec: Service['spec'] = {}): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec } };
}

/** The ClusterIPs the stored RangeAllocation marks taken, in its order. */
export async function rangeIPs(store: Store): Promise<string[]> {
  const { kv } = await store.get(SERVICE_IPS_KEY);
  if (kv === undefined) return [];
  return allocatedIPs(must(ipAllocatorFromSnapshot(JSON.parse(kv.value) as RangeAllocation))).map(formatIP);
}

/** The ClusterIPs the stored RangeAllocation marks taken, in text order, for tests that compare a set. */
export async function sortedRangeIPs(store: Store): Promise<string[]> {
  return (await rangeIPs(store)).sort();
}

/** The node ports the stored RangeAllocation marks taken, in its order. */
export async function rangePorts(store: Store): Promise<number[]> {
  const { kv } = await store.get(SERVICE_NODE_PORTS_KEY);
  if (kv === undefined) return [];
  return allocatedPorts(must(portAllocatorFromSnapshot(JSON.parse(kv.value) as RangeAllocation)));
}

// One run of the ClusterIP and NodePort repair loops over the store: read every Service and
// the RangeAllocation objects, rebuild them with the allocator packages' pure repair
// functions, and write them back with a compare-and-swap. The leak counters are the loop's
// memory between runs (upstream keeps them in the controller, not in etcd), so the caller
// carries them: a leaked IP or port is freed on the third run that finds it.
// upstream: pkg/registry/core/service/ipallocator/controller/repair.go,
//           pkg/registry/core/service/portallocator/controller/repair.go (runOnce)
import type { RangeAllocation, Service } from '@kubesvc/api-types';
import type { Store, TxnOp, Compare } from '@kubesvc/store';
import { repairAllocations, type ClusterIPLeaks, type ClusterNetworking, type LeakCounters } from './pure-adapters.js';
import { RESOURCES, SECONDARY_SERVICE_IPS_KEY, SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY } from './resources.js';

export interface RepairLeaks {
  readonly ips: ClusterIPLeaks;
  readonly ports: LeakCounters;
}

export const NO_LEAKS: RepairLeaks = { ips: {}, ports: {} };

export interface RepairRun {
  /** The counters for the next run. */
  readonly leaks: RepairLeaks;
  /** The repair events (reason and message), e.g. ClusterIPNotAllocated. */
  readonly events: readonly { readonly reason: string; readonly message: string }[];
  /** Whether the rebuilt ranges were written (false: a conflict or a failed run; try again later). */
  readonly written: boolean;
  readonly error?: string;
}

/** Runs both repair loops once against the store's current contents. */
export async function repairOnce(store: Store, net: ClusterNetworking, leaks: RepairLeaks): Promise<RepairRun> {
  const ipKeys = [SERVICE_IPS_KEY, SECONDARY_SERVICE_IPS_KEY].slice(0, net.serviceCIDRs.length);
  const keys = [...ipKeys, SERVICE_NODE_PORTS_KEY];
  // One read of the services and the ranges, at one revision, so the run sees a consistent state.
  const ranges = await store.txn([], keys.map((key) => ({ kind: 'get', key })));
  const services = await store.range(RESOURCES.services.prefix, { revision: ranges.revision });
  const stored = ranges.results.map((r) => (r.kind === 'get' && r.kv !== undefined ? (JSON.parse(r.kv.value) as RangeAllocation) : undefined));
  const outcome = repairAllocations({
    net,
    ipSnapshots: stored.slice(0, ipKeys.length),
    portSnapshot: stored[ipKeys.length],
    services: services.kvs.map((kv) => JSON.parse(kv.value) as Service),
    ipLeaks: leaks.ips,
    portLeaks: leaks.ports,
  });
  const next: RepairLeaks = { ips: outcome.ipLeaks, ports: outcome.portLeaks };
  if (outcome.error !== undefined || outcome.ipSnapshots === undefined || outcome.portSnapshot === undefined) {
    return { leaks: next, events: outcome.events, written: false, error: outcome.error?.message ?? 'repair run failed' };
  }
  const values = [...outcome.ipSnapshots, outcome.portSnapshot].map((s) => {
    const { resourceVersion: _rv, ...meta } = s.metadata;
    return JSON.stringify({ ...s, metadata: meta });
  });
  const compares: Compare[] = [];
  const puts: TxnOp[] = [];
  keys.forEach((key, i) => {
    const res = ranges.results[i];
    const kv = res?.kind === 'get' ? res.kv : undefined;
    const value = values[i] ?? '';
    if (kv?.value === value) return;
    compares.push({ key, target: 'modRevision', op: '=', value: kv?.modRevision ?? 0 });
    puts.push({ kind: 'put', key, value });
  });
  if (puts.length === 0) return { leaks: next, events: outcome.events, written: true };
  const r = await store.txn(compares, puts);
  // A conflict (an allocation raced the run): upstream returns the error and the loop retries.
  return { leaks: next, events: outcome.events, written: r.succeeded };
}

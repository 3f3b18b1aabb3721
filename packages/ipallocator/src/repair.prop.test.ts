// Properties of the ClusterIP repair run over random Services and stored snapshots.
import { fc, test } from '@fast-check/vitest';
import { formatIP, type RangeAllocation, type Service } from '@kubesvc/api-types';
import { expect } from 'vitest';
import { allocateIP, allocatedIPs, ipAllocatorFromSnapshot, newIPAllocator, snapshotIPAllocator } from './ip-allocator.js';
import { repairClusterIPs, type ClusterIPLeaks, type ClusterIPRepair, type ClusterIPRepairInput } from './repair.js';
import { mustParseCIDR as cidr } from '@kubesvc/testkit';

const NETWORK = cidr('10.96.0.0/24');
/** .1 .. .254 of the network. */
const hostArb = fc.integer({ min: 1, max: 254 });
const ipText = (host: number) => `10.96.0.${host}`;

function svc(name: string, host: number): Service {
  const ip = ipText(host);
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name }, spec: { clusterIP: ip, clusterIPs: [ip] } };
}

function snapshotOf(hosts: Iterable<number>): RangeAllocation {
  let a = newIPAllocator(NETWORK);
  for (const h of hosts) {
    const r = allocateIP(a, { family: 4, value: NETWORK.network.value + BigInt(h) });
    if (r.ok) a = r.value;
  }
  return snapshotIPAllocator(a);
}

function held(snapshot: RangeAllocation | undefined): string[] {
  if (snapshot === undefined) throw new Error('the run wrote no snapshot');
  const r = ipAllocatorFromSnapshot(snapshot);
  if (!r.ok) throw new Error(r.error.message);
  return allocatedIPs(r.value).map(formatIP);
}

/** A run that must succeed; fails the property with the run's error otherwise. */
function repaired(input: ClusterIPRepairInput): ClusterIPRepair {
  const result = repairClusterIPs(input);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

test.prop([fc.uniqueArray(hostArb, { maxLength: 30 }), fc.uniqueArray(hostArb, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 3 })])(
  'INV-REPAIR-LEAK3: a leaked IP survives runs 1 and 2 and is freed on run 3; one used again before that is never freed and its counter resets',
  (inUse, leakedCandidates, reuseAtRun) => {
    const leaked = leakedCandidates.filter((h) => !inUse.includes(h));
    fc.pre(leaked.length > 0);
    const services = inUse.map((h, i) => svc(`s${i}`, h));
    let snapshot = snapshotOf([...inUse, ...leaked]);
    let leaks: ClusterIPLeaks = {};
    // the first leaked IP is picked up by a new Service before run `reuseAtRun` (when < 3)
    const [reused, ...others] = leaked;
    if (reused === undefined) return;
    for (let run = 1; run <= 3; run++) {
      const current = run >= reuseAtRun && reuseAtRun < 3 ? [...services, svc('reuser', reused)] : services;
      const result = repaired({ networks: [NETWORK], snapshots: [snapshot], services: current, leaks });
      const after = new Set(held(result.snapshots[0]));
      for (const h of inUse) expect(after.has(ipText(h))).toBe(true);
      for (const h of others) expect(after.has(ipText(h))).toBe(run < 3);
      if (reuseAtRun < 3) {
        expect(after.has(ipText(reused))).toBe(true);
        if (run >= reuseAtRun) expect(result.leaks.IPv4?.[ipText(reused)]).toBeUndefined();
      } else {
        expect(after.has(ipText(reused))).toBe(run < 3);
      }
      expect(result.events).toEqual([]);
      const next = result.snapshots[0];
      if (next === undefined) return;
      snapshot = next;
      leaks = result.leaks;
    }
  },
);

test.prop([fc.uniqueArray(hostArb, { maxLength: 60 })])(
  'INV-REPAIR-FIXPOINT: repairing a consistent state changes nothing and emits no event',
  (hosts) => {
    const services = hosts.map((h, i) => svc(`s${i}`, h));
    const snapshot = { ...snapshotOf(hosts), metadata: { resourceVersion: '42' } };
    const result = repaired({ networks: [NETWORK], snapshots: [snapshot], services, leaks: { IPv4: {} } });
    expect(result.events).toEqual([]);
    expect(result.snapshots).toEqual([snapshot]);
    expect(result.leaks).toEqual({ IPv4: {} });
    // and running again on the result is the same
    const again = repairClusterIPs({ networks: [NETWORK], snapshots: result.snapshots, services, leaks: result.leaks });
    expect(again).toEqual({ ok: true, value: result });
  },
);

test.prop([fc.uniqueArray(hostArb, { minLength: 1, maxLength: 20 }), fc.nat(), fc.boolean()])(
  'INV-REPAIR-DUP: two Services holding one IP give ClusterIPAlreadyAllocated for the extra holder, and the IP stays allocated',
  (hosts, pick, stored) => {
    const shared = hosts[pick % hosts.length] ?? 1;
    const services = [...hosts.map((h, i) => svc(`s${i}`, h)), svc('extra', shared)];
    const input = { networks: [NETWORK], snapshots: [snapshotOf(stored ? hosts : [])], services, leaks: { IPv4: { '10.96.0.255': 1 } } };
    const copy = structuredClone(input);
    const result = repaired(input);
    expect(input).toEqual(copy); // the run never changes what it is given
    const dup = result.events.filter((e) => e.reason === 'ClusterIPAlreadyAllocated');
    expect(dup).toEqual([
      {
        type: 'Warning',
        reason: 'ClusterIPAlreadyAllocated',
        message: `Cluster IP [IPv4]:${ipText(shared)} was assigned to multiple services; please recreate service`,
        action: 'ClusterIPAllocation',
        reportingController: 'ipallocator-repair-controller',
        service: { namespace: 'default', name: 'extra' },
      },
    ]);
    expect(held(result.snapshots[0])).toContain(ipText(shared));
    expect(held(result.snapshots[0]).length).toBe(hosts.length);
  },
);

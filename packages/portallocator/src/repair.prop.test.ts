// Properties of the NodePort repair run over random Services and stored snapshots.
import { fc, test } from '@fast-check/vitest';
import type { LeakCounters, RangeAllocation, Service } from '@kubesvc/api-types';
import { expect } from 'vitest';
import { allocatePort, allocatedPorts, newPortAllocator, portAllocatorFromSnapshot, snapshotPortAllocator } from './port-allocator.js';
import { repairNodePorts, type NodePortRepair, type NodePortRepairInput } from './repair.js';

const RANGE = { base: 30000, size: 2768 };
const portArb = fc.integer({ min: 30000, max: 32767 });

function svc(name: string, nodePort: number): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace: 'default', name }, spec: { type: 'NodePort', ports: [{ port: 80, protocol: 'TCP', nodePort }] } };
}

function snapshotOf(ports: Iterable<number>): RangeAllocation {
  let a = newPortAllocator(RANGE);
  for (const p of ports) {
    const r = allocatePort(a, p);
    if (r.ok) a = r.value;
  }
  return snapshotPortAllocator(a);
}

function held(snapshot: RangeAllocation | undefined): number[] {
  if (snapshot === undefined) throw new Error('the run wrote no snapshot');
  const r = portAllocatorFromSnapshot(snapshot);
  if (!r.ok) throw new Error(r.error.message);
  return allocatedPorts(r.value);
}

/** A run that must succeed; fails the property with the run's error otherwise. */
function repaired(input: NodePortRepairInput): NodePortRepair {
  const result = repairNodePorts(input);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

test.prop([fc.uniqueArray(portArb, { maxLength: 30 }), fc.uniqueArray(portArb, { minLength: 1, maxLength: 10 }), fc.integer({ min: 1, max: 3 })])(
  'INV-REPAIR-LEAK3: a leaked port survives runs 1 and 2 and is freed on run 3; one used again before that is never freed and its counter resets',
  (inUse, candidates, reuseAtRun) => {
    const leaked = candidates.filter((p) => !inUse.includes(p));
    fc.pre(leaked.length > 0);
    const [reused, ...others] = leaked;
    if (reused === undefined) return;
    const services = inUse.map((p, i) => svc(`s${i}`, p));
    let snapshot = snapshotOf([...inUse, ...leaked]);
    let leaks: LeakCounters = {};
    for (let run = 1; run <= 3; run++) {
      const current = run >= reuseAtRun && reuseAtRun < 3 ? [...services, svc('reuser', reused)] : services;
      const result = repaired({ portRange: RANGE, snapshot, services: current, leaks });
      const after = new Set(held(result.snapshot));
      for (const p of inUse) expect(after.has(p)).toBe(true);
      for (const p of others) expect(after.has(p)).toBe(run < 3);
      if (reuseAtRun < 3) {
        expect(after.has(reused)).toBe(true);
        if (run >= reuseAtRun) expect(result.leaks[String(reused)]).toBeUndefined();
      } else {
        expect(after.has(reused)).toBe(run < 3);
      }
      expect(result.events).toEqual([]);
      snapshot = result.snapshot;
      leaks = result.leaks;
    }
  },
);

test.prop([fc.uniqueArray(portArb, { maxLength: 60 })])('INV-REPAIR-FIXPOINT: repairing a consistent state changes nothing and emits no event', (ports) => {
  const services = ports.map((p, i) => svc(`s${i}`, p));
  const snapshot = { ...snapshotOf(ports), metadata: { resourceVersion: '3' } };
  const result = repairNodePorts({ portRange: RANGE, snapshot, services, leaks: {} });
  expect(result).toEqual({ ok: true, value: { snapshot, leaks: {}, events: [] } });
});

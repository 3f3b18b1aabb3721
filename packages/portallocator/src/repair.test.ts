// Worked examples of the NodePort repair run (upstream: pkg/registry/core/service/portallocator/
// controller/repair_test.go TestRepair, TestRepairLeak, TestRepairWithExisting,
// TestCollectServiceNodePorts).
import type { RangeAllocation, Service, ServicePort } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { allocatePort, allocatedPorts, newPortAllocator, portAllocatorFromSnapshot, snapshotPortAllocator } from './port-allocator.js';
import { collectServiceNodePorts, repairNodePorts, type NodePortRepair, type NodePortRepairInput } from './repair.js';
import type { LeakCounters } from '@kubesvc/api-types';

const RANGE = { base: 100, size: 101 }; // 100-200

function service(name: string, ports: Partial<ServicePort>[], healthCheckNodePort?: number): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'one', name },
    spec: {
      type: 'NodePort',
      ports: ports.map((p, i) => ({ port: 80 + i, ...p })),
      ...(healthCheckNodePort === undefined ? {} : { healthCheckNodePort }),
    },
  };
}

function snapshotOf(ports: number[]): RangeAllocation {
  let a = newPortAllocator(RANGE);
  for (const p of ports) {
    const r = allocatePort(a, p);
    if (!r.ok) throw new Error(r.error.message);
    a = r.value;
  }
  return snapshotPortAllocator(a);
}

function held(snapshot: RangeAllocation | undefined): number[] {
  if (snapshot === undefined) throw new Error('no snapshot');
  const r = portAllocatorFromSnapshot(snapshot);
  if (!r.ok) throw new Error(r.error.message);
  return allocatedPorts(r.value);
}

/** A run that must succeed; fails the test with the run's error otherwise. */
function repaired(input: NodePortRepairInput): NodePortRepair {
  const result = repairNodePorts(input);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('repairNodePorts', () => {
  it('TestRepairWithExisting: rebuilds the ports in use and reports the rest', () => {
    const services = [
      service('one', [{ nodePort: 111 }]),
      service('two', [{ nodePort: 122 }, { nodePort: 133 }]),
      service('three', [{ nodePort: 99 }]), // out of range
      service('four', [{ nodePort: 111 }]), // duplicate
      service('five', [{ port: 80 }]), // no node port
      service('six', [{ nodePort: 144 }], 155), // health check node port
    ];
    const result = repaired({ portRange: RANGE, snapshot: snapshotOf([111, 122, 133]), services });
    expect(held(result.snapshot)).toEqual([111, 122, 133, 144, 155]);
    expect(result.events.map((e) => [e.service.name, e.reason, e.message])).toEqual([
      ['three', 'PortOutOfRange', 'Port 99 is not within the port range 100-200; please recreate service'],
      ['four', 'PortAlreadyAllocated', 'Port 111 was assigned to multiple services; please recreate service'],
      ['six', 'PortNotAllocated', 'Port 144 is not allocated; repairing'],
      ['six', 'PortNotAllocated', 'Port 155 is not allocated; repairing'],
    ]);
    expect(result.events.every((e) => e.type === 'Warning' && e.action === 'PortAllocation' && e.reportingController === 'portallocator-repair-controller')).toBe(true);
  });

  it('TestRepairLeak: a leaked port is kept by runs 1 and 2 and freed by run 3', () => {
    let snapshot = snapshotOf([111]);
    let leaks: LeakCounters = {};
    const seen: number[][] = [];
    for (let run = 1; run <= 3; run++) {
      const result = repaired({ portRange: RANGE, snapshot, services: [], leaks });
      const next = result.snapshot;
      seen.push(held(next));
      snapshot = next;
      leaks = result.leaks;
    }
    expect(seen).toEqual([[111], [111], []]);
  });

  it('starts from the range when nothing is stored yet, and fails on a stored range that does not parse', () => {
    const fresh = repaired({ portRange: RANGE, services: [service('a', [{ nodePort: 150 }])] });
    expect(fresh.snapshot.range).toBe('100-200');
    expect(held(fresh.snapshot)).toEqual([150]);
    const broken = repairNodePorts({
      portRange: RANGE,
      snapshot: { apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range: 'x-y', data: '' },
      services: [],
      leaks: { '150': 1 },
    });
    // Nothing to write; the counters for the next run ride on the error, as they were.
    expect(broken).toEqual({
      ok: false,
      error: {
        _tag: 'ErrRepair',
        message: 'unable to rebuild allocator from snapshot: unable to parse port range: x-y: strconv.Atoi: parsing "x": invalid syntax',
        leaks: { '150': 1 },
      },
    });
  });

  it('accepts Services as the API lists them, without apiVersion or kind', () => {
    // A ServiceList's items carry neither field; only metadata and spec are read.
    const listed = { metadata: { namespace: 'one', name: 'bare' }, spec: { type: 'NodePort' as const, ports: [{ port: 80, nodePort: 160 }] } };
    const result = repaired({ portRange: RANGE, services: [listed] });
    expect(held(result.snapshot)).toEqual([160]);
    expect(collectServiceNodePorts(listed)).toEqual([160]);
  });
});

describe('collectServiceNodePorts', () => {
  it('counts a port shared by TCP and UDP once, the same protocol twice, and the health check port', () => {
    expect(collectServiceNodePorts(service('a', [{ nodePort: 111, protocol: 'TCP' }, { nodePort: 111, protocol: 'UDP' }]))).toEqual([111]);
    expect(collectServiceNodePorts(service('b', [{ nodePort: 111, protocol: 'TCP' }, { nodePort: 111, protocol: 'TCP' }]))).toEqual([111, 111]);
    expect(collectServiceNodePorts(service('c', [{ nodePort: 111 }], 112))).toEqual([111, 112]);
    expect(collectServiceNodePorts(service('d', [{ nodePort: 111, protocol: 'UDP' }], 111))).toEqual([111]);
    expect(collectServiceNodePorts(service('e', [{ nodePort: 111, protocol: 'TCP' }], 111))).toEqual([111, 111]);
  });
});

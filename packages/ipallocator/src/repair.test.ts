// Worked examples of the ClusterIP repair run (upstream: pkg/registry/core/service/ipallocator/
// controller/repair_test.go TestRepair, TestRepairLeak, TestRepairWithExisting,
// TestRepairDualStack).
import { formatIP, parseIP, type RangeAllocation, type Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import {
  allocateIP,
  allocatedIPs,
  ipAllocatorFree,
  ipAllocatorFromSnapshot,
  newIPAllocator,
  snapshotIPAllocator,
  type IPAllocator,
} from './ip-allocator.js';
import { repairClusterIPs, type ClusterIPLeaks, type ClusterIPRepair, type ClusterIPRepairInput } from './repair.js';
import { mustParseCIDR as cidr } from '@kubesvc/testkit';

function service(name: string, clusterIP: string, clusterIPs?: string[]): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: 'one', name },
    spec: { clusterIP, ...(clusterIPs ? { clusterIPs } : {}), ports: [{ port: 80 }] },
  };
}

function withIPs(network: string, ips: string[]): IPAllocator {
  let a = newIPAllocator(cidr(network));
  for (const text of ips) {
    const parsed = parseIP(text);
    if (!parsed.ok) throw new Error(parsed.error.message);
    const r = allocateIP(a, parsed.value);
    if (!r.ok) throw new Error(r.error.message);
    a = r.value;
  }
  return a;
}

function held(snapshot: RangeAllocation | undefined): string[] {
  if (snapshot === undefined) throw new Error('no snapshot');
  const r = ipAllocatorFromSnapshot(snapshot);
  if (!r.ok) throw new Error(r.error.message);
  return allocatedIPs(r.value).map(formatIP);
}

function freeOf(snapshot: RangeAllocation | undefined): number {
  if (snapshot === undefined) throw new Error('no snapshot');
  const r = ipAllocatorFromSnapshot(snapshot);
  if (!r.ok) throw new Error(r.error.message);
  return ipAllocatorFree(r.value);
}

/** A run that must succeed; fails the test with the run's error otherwise. */
function repaired(input: ClusterIPRepairInput): ClusterIPRepair {
  const result = repairClusterIPs(input);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('repairClusterIPs', () => {
  it('TestRepairWithExisting: rebuilds .1 and .100, reports the rest, free 252', () => {
    const services = [
      service('one', '192.168.1.1'),
      service('two', '192.168.1.100'),
      service('three', '192.168.0.1'),
      service('four', ''),
      service('five', '192.168.1.1'),
      service('six', 'None'),
    ];
    const result = repaired({ networks: [cidr('192.168.1.0/24')], services });
    expect(held(result.snapshots[0])).toEqual(['192.168.1.1', '192.168.1.100']);
    expect(freeOf(result.snapshots[0])).toBe(252);
    expect(result.events.map((e) => [e.service.name, e.reason, e.message])).toEqual([
      ['one', 'ClusterIPNotAllocated', 'Cluster IP [IPv4]:192.168.1.1 is not allocated; repairing'],
      ['two', 'ClusterIPNotAllocated', 'Cluster IP [IPv4]:192.168.1.100 is not allocated; repairing'],
      ['three', 'ClusterIPOutOfRange', 'Cluster IP [IPv4]:192.168.0.1 is not within the service CIDR 192.168.1.0/24; please recreate service'],
      ['five', 'ClusterIPAlreadyAllocated', 'Cluster IP [IPv4]:192.168.1.1 was assigned to multiple services; please recreate service'],
    ]);
    expect(result.events.every((e) => e.type === 'Warning' && e.action === 'ClusterIPAllocation')).toBe(true);
    expect(result.events[0]?.reportingController).toBe('ipallocator-repair-controller');
    expect(result.events[0]?.service).toEqual({ namespace: 'one', name: 'one' });
  });

  it('TestRepairLeak: a leaked IP is kept by runs 1 and 2 and freed by run 3', () => {
    const network = cidr('192.168.1.0/24');
    let snapshot: RangeAllocation = { ...snapshotIPAllocator(withIPs('192.168.1.0/24', ['192.168.1.10'])), metadata: { resourceVersion: '1' } };
    let leaks: ClusterIPLeaks = {};
    const seen: string[][] = [];
    for (let run = 1; run <= 3; run++) {
      const result = repaired({ networks: [network], snapshots: [snapshot], services: [], leaks });
      expect(result.events).toEqual([]);
      const next = result.snapshots[0];
      if (next === undefined) throw new Error('no snapshot');
      expect(next.metadata).toEqual({ resourceVersion: '1' });
      seen.push(held(next));
      snapshot = next;
      leaks = result.leaks;
    }
    expect(seen).toEqual([['192.168.1.10'], ['192.168.1.10'], []]);
    expect(leaks).toEqual({ IPv4: { '192.168.1.10': 0 } });
  });

  it('an invalid cluster IP and a family the cluster no longer has are ClusterIPNotValid', () => {
    const result = repaired({
      networks: [cidr('10.0.0.0/24')],
      services: [service('bad', 'not-an-ip', ['not-an-ip']), service('v6', 'fd00::5', ['fd00::5'])],
    });
    expect(result.events.map((e) => [e.reason, e.message])).toEqual([
      ['ClusterIPNotValid', 'Cluster IP not-an-ip is not a valid IP; please recreate service'],
      ['ClusterIPNotValid', 'Cluster IP fd00::5(IPv6) is of ip family that is no longer configured on cluster; please recreate service'],
    ]);
  });

  it('dual-stack: each IP goes to the allocator of its family, and each family has its own leaks', () => {
    const v4 = cidr('10.0.0.0/24');
    const v6 = cidr('2000::/108');
    const stored6 = snapshotIPAllocator(withIPs('2000::/108', ['2000::1', '2000::9']));
    const result = repaired({
      networks: [v4, v6],
      snapshots: [undefined, stored6],
      services: [service('ds', '10.0.0.7', ['10.0.0.7', '2000::1'])],
    });
    expect(held(result.snapshots[0])).toEqual(['10.0.0.7']);
    expect(held(result.snapshots[1])).toEqual(['2000::1', '2000::9']);
    expect(result.snapshots[1]?.range).toBe('2000::/108');
    expect(result.events.map((e) => e.message)).toEqual(['Cluster IP [IPv4]:10.0.0.7 is not allocated; repairing']);
    expect(result.leaks).toEqual({ IPv4: {}, IPv6: { '2000::9': 1 } });
  });

  it('fails with upstream error when a stored range does not parse, and writes nothing', () => {
    const result = repairClusterIPs({
      networks: [cidr('10.0.0.0/24')],
      snapshots: [{ apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range: 'garbage', data: '' }],
      services: [],
      leaks: { IPv4: { '10.0.0.3': 1 } },
    });
    // The counters for the next run ride on the error, as they were.
    expect(result).toEqual({
      ok: false,
      error: {
        _tag: 'ErrRepair',
        message: 'unable to rebuild allocator from snapshots for family:IPv4 with error:invalid CIDR address: garbage',
        leaks: { IPv4: { '10.0.0.3': 1 } },
      },
    });
  });

  it('accepts Services as the API lists them, without apiVersion or kind', () => {
    // A ServiceList's items carry neither field; only metadata and spec are read.
    const listed = { metadata: { namespace: 'one', name: 'bare' }, spec: { clusterIP: '10.0.0.9', clusterIPs: ['10.0.0.9'] } };
    const result = repaired({ networks: [cidr('10.0.0.0/24')], services: [listed] });
    expect(held(result.snapshots[0])).toEqual(['10.0.0.9']);
    expect(result.events.map((e) => [e.service.name, e.reason])).toEqual([['bare', 'ClusterIPNotAllocated']]);
  });

  it('a Service without a spec, or with only the old clusterIP field, is read as upstream reads it', () => {
    // Go's Spec is a struct: absent in JSON it is the zero value, with no cluster IP to
    // repair. A Service written before clusterIPs existed has only spec.clusterIP, which
    // defaulting copies into clusterIPs (upstream: pkg/apis/core/v1/defaults.go SetDefaults_Service).
    const noSpec = { metadata: { namespace: 'one', name: 'nospec' } };
    const onlyOld = { metadata: { namespace: 'one', name: 'old' }, spec: { clusterIP: '10.0.0.8' } };
    const result = repaired({ networks: [cidr('10.0.0.0/24')], services: [noSpec, onlyOld] as never });
    expect(held(result.snapshots[0])).toEqual(['10.0.0.8']);
    expect(result.events.map((e) => [e.service.name, e.reason])).toEqual([['old', 'ClusterIPNotAllocated']]);
  });

  it('an event about a Service listed without a namespace names the empty namespace, as Go\'s zero ObjectMeta does', () => {
    const bare = { metadata: { name: 'nons' }, spec: { clusterIP: '10.0.0.7', clusterIPs: ['10.0.0.7'] } };
    const result = repaired({ networks: [cidr('10.0.0.0/24')], services: [bare] as never });
    expect(result.events.map((e) => e.service)).toEqual([{ namespace: '', name: 'nons' }]);
  });

  it('a stored snapshot of an older range: its IPs inside the new range are kept, the others dropped', () => {
    const old = snapshotIPAllocator(withIPs('10.0.0.0/16', ['10.0.0.5', '10.0.9.9']));
    const result = repaired({ networks: [cidr('10.0.0.0/24')], snapshots: [old], services: [] });
    expect(result.snapshots[0]?.range).toBe('10.0.0.0/24');
    expect(held(result.snapshots[0])).toEqual(['10.0.0.5']);
  });
});

// `kubesvc ips` on a Kubernetes v1.33 dump: each ServiceCIDR's allocation drawn from the
// IPAddresses, who holds an IP, and one pass of RepairIPAddress at the dump's time.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadDump, type Dump } from '../dump/load-dump.js';
import { FIXTURES } from '../run-bin.fixtures.js';
import {
  hasServiceCIDRView,
  lookupIPAddress,
  parseNow,
  repairClock,
  serviceCIDRReport,
  serviceCIDRTable,
  serviceClusterIPRangeOf,
} from './ips-service-cidrs.js';

function dumpOf(text: string): Dump {
  const loaded = loadDump('in.yaml', text);
  if (!loaded.ok) throw new Error(loaded.error.message);
  return loaded.value;
}

const FIXTURE = dumpOf(readFileSync(join(FIXTURES, 'ips-service-cidrs.yaml'), 'utf8'));
const NOON = Date.parse('2025-05-01T12:00:00Z');

const LABELS = '{ipaddress.kubernetes.io/ip-family: IPv4, ipaddress.kubernetes.io/managed-by: ipallocator.k8s.io}';
const KUBERNETES_CIDR = 'apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: kubernetes}\nspec: {cidrs: [10.96.0.0/28]}';
function ipAddress(name: string, parent: string, created?: string): string {
  const stamp = created === undefined ? '' : `, creationTimestamp: "${created}"`;
  return `apiVersion: networking.k8s.io/v1\nkind: IPAddress\nmetadata: {name: "${name}", labels: ${LABELS}${stamp}}\nspec: {parentRef: {resource: services, namespace: default, name: ${parent}}}`;
}
function service(name: string, ip: string, created?: string): string {
  const stamp = created === undefined ? '' : `, creationTimestamp: "${created}"`;
  return `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}, namespace: default${stamp}}\nspec: {clusterIP: ${ip}, clusterIPs: [${ip}], ports: [{port: 80}]}`;
}
const stream = (...docs: string[]) => docs.join('\n---\n');

describe('which view a dump gets', () => {
  it('ServiceCIDRs or IPAddresses make it a v1.33 dump; Services and a RangeAllocation alone do not', () => {
    expect(hasServiceCIDRView(FIXTURE)).toBe(true);
    expect(hasServiceCIDRView(dumpOf(KUBERNETES_CIDR))).toBe(true);
    expect(hasServiceCIDRView(dumpOf(ipAddress('10.96.0.5', 'web')))).toBe(true);
    expect(hasServiceCIDRView(dumpOf(readFileSync(join(FIXTURES, 'ips.yaml'), 'utf8')))).toBe(false);
  });
});

describe('the --service-cluster-ip-range a dump records', () => {
  it('is the CIDRs of the ServiceCIDR kubernetes, primary first, when they make a valid flag', () => {
    expect(serviceClusterIPRangeOf(FIXTURE)).toBe('10.96.0.0/24');
    const dual = KUBERNETES_CIDR.replace('[10.96.0.0/28]', '[10.96.0.0/28, "fd00::/112"]');
    expect(serviceClusterIPRangeOf(dumpOf(dual))).toBe('10.96.0.0/28,fd00::/112');
    // Another name is not the flag's; two of one family are no valid flag.
    expect(serviceClusterIPRangeOf(dumpOf(KUBERNETES_CIDR.replace('name: kubernetes', 'name: extra')))).toBeUndefined();
    expect(serviceClusterIPRangeOf(dumpOf(KUBERNETES_CIDR.replace('[10.96.0.0/28]', '[10.96.0.0/28, 10.97.0.0/28]')))).toBeUndefined();
  });
});

describe('the clock of the offline pass', () => {
  it('is the latest creationTimestamp, managedFields time or condition transition in the input', () => {
    const text = stream(
      'apiVersion: v1\nkind: Service\nmetadata:\n  name: a\n  creationTimestamp: "2025-05-01T10:00:00Z"\n  managedFields: [{manager: kubectl, time: "2025-05-01T11:30:00Z"}]\nspec: {ports: [{port: 80}]}',
      'apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: kubernetes, creationTimestamp: "2025-05-01T09:00:00Z"}\nspec: {cidrs: [10.96.0.0/28]}\nstatus: {conditions: [{type: Ready, status: "True", lastTransitionTime: "2025-05-01T11:45:00Z", reason: "", message: ""}]}',
    );
    expect(repairClock(dumpOf(text))).toEqual({ now: Date.parse('2025-05-01T11:45:00Z'), from: 'the input' });
    expect(repairClock(FIXTURE)).toEqual({ now: NOON, from: 'the input' });
  });

  it('--now wins over the input; an input with no time at all reads as the epoch', () => {
    expect(repairClock(FIXTURE, 5)).toEqual({ now: 5, from: '--now' });
    expect(repairClock(dumpOf(KUBERNETES_CIDR))).toEqual({ now: 0, from: 'none' });
  });

  it('--now takes RFC 3339 times only', () => {
    expect(parseNow('2025-05-01T12:00:30Z')).toBe(NOON + 30_000);
    expect(parseNow('2025-05-01T14:00:00+02:00')).toBe(NOON);
    expect(parseNow('2025-05-01')).toBeUndefined();
    expect(parseNow('yesterday')).toBeUndefined();
    expect(parseNow('2025-13-01T00:00:00Z')).toBeUndefined();
  });
});

describe('the allocation of each ServiceCIDR', () => {
  const report = serviceCIDRReport(FIXTURE, repairClock(FIXTURE));

  it('one row per CIDR of each family: its size, the IPAddresses inside it, and its bands', () => {
    expect(report.cidrs.map((c) => [c.cidr, c.serviceCIDRs.join(','), c.family, c.ready, c.size, c.used, c.free])).toEqual([
      ['10.96.0.0/24', 'kubernetes', 'IPv4', true, '254', 7, '247'],
      ['10.100.0.0/28', 'extra', 'IPv4', true, '14', 1, '13'],
      ['fd00:10:100::/120', 'extra', 'IPv6', true, '255', 1, '254'],
    ]);
    // A /24's static band is its first 16 addresses; .1 and .10 are in it, the other five above.
    const [v4] = report.cidrs;
    expect(v4?.staticBand).toEqual({ first: '10.96.0.1', last: '10.96.0.16', size: '16', used: 2 });
    expect(v4?.dynamicBand).toEqual({ first: '10.96.0.17', last: '10.96.0.254', size: '238', used: 5 });
    // A /28 (16 addresses) has no static band.
    expect(report.cidrs[1]?.staticBand).toEqual({ first: '', last: '', size: '0', used: 0 });
  });

  it('each IPAddress with its CIDR and what the input says of its parentRef, sorted by address', () => {
    expect(report.ipAddresses.map((a) => `${a.ip} ${a.cidrs.join(',')} ${a.heldBy} (${a.parent})`)).toEqual([
      '10.96.0.1 10.96.0.0/24 Service default/kubernetes (holds it)',
      '10.96.0.10 10.96.0.0/24 Service kube-system/dns (holds it)',
      '10.96.0.60 10.96.0.0/24 Service shop/old-name (not in the input)',
      '10.96.0.66 10.96.0.0/24 gateway.networking.k8s.io/gateways shop/edge (not a Service)',
      '10.96.0.77 10.96.0.0/24 Service shop/new (not in the input)',
      '10.96.0.88 10.96.0.0/24 Service shop/web (does not list it)',
      '10.96.0.99 10.96.0.0/24 Service shop/gone (not in the input)',
      '10.100.0.5 10.100.0.0/28 Service shop/web (holds it)',
      'fd00:10:100::5 fd00:10:100::/120 Service shop/web (holds it)',
    ]);
  });

  it('a ServiceCIDR being deleted takes no new IPs, and an IPv6 CIDR wider than /64 gets no allocator', () => {
    const dump = dumpOf(
      stream(
        KUBERNETES_CIDR,
        'apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: old, deletionTimestamp: "2025-05-01T00:00:00Z"}\nspec: {cidrs: [10.97.0.0/28]}',
        'apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata: {name: wide}\nspec: {cidrs: ["fd00::/48"]}',
      ),
    );
    const r = serviceCIDRReport(dump, repairClock(dump));
    expect(r.cidrs.map((c) => `${c.cidr} ${c.ready}`)).toEqual(['10.96.0.0/28 true', '10.97.0.0/28 false']);
    expect(r.unusable).toEqual([{ serviceCIDR: 'wide', cidr: 'fd00::/48', message: 'shortest allowed prefix length for service CIDR is 64, got 48' }]);
    expect(serviceCIDRTable(r)).toContain('ServiceCIDR wide: fd00::/48 takes no IPs: shortest allowed prefix length for service CIDR is 64, got 48\n');
  });
});

describe('one pass of RepairIPAddress over the dump', () => {
  const report = serviceCIDRReport(FIXTURE, repairClock(FIXTURE));

  it("reports upstream's reasons: the Services first, then the IPAddresses", () => {
    expect(report.repair.events.map((e) => `${e.reason} ${e.regarding.kind} ${e.regarding.name}`)).toEqual([
      'ClusterIPAlreadyAllocated Service dns-copy',
      'ClusterIPOutOfRange Service moved',
      'ClusterIPNotAllocated Service restored',
      'ClusterIPNotAllocated Service renamed',
      'IPAddressNotAllocated IPAddress 10.96.0.66',
      'IPAddressWrongReference IPAddress 10.96.0.88',
      'IPAddressNotAllocated IPAddress 10.96.0.99',
    ]);
  });

  it('writes: the missing IPAddress created, the wrong one replaced, the stray ones deleted', () => {
    expect(report.repair.writes.map((w) => (w.verb === 'create' ? `create ${w.ipAddress.metadata.name ?? ''} for ${w.ipAddress.spec?.parentRef?.name ?? ''}` : `delete ${w.name}`))).toEqual([
      'create 10.96.0.50 for restored',
      'delete 10.96.0.60',
      'create 10.96.0.60 for renamed',
      'delete 10.96.0.66',
      'delete 10.96.0.88',
      'delete 10.96.0.99',
    ]);
  });

  it('orphans: the IPAddresses whose Service is missing after the Service syncs, deleted now or after the grace period', () => {
    // 10.96.0.60 names a missing Service too, but shop/renamed claims it and the Service sync
    // gives it to that Service before the IPAddress sync looks at it: no orphan.
    expect(report.repair.orphans).toEqual([
      { ip: '10.96.0.77', parent: 'Service shop/new', created: '2025-05-01T11:59:40Z', deletedThisPass: false, afterMs: 40_000 },
      { ip: '10.96.0.99', parent: 'Service shop/gone', created: '2025-05-01T10:00:00Z', deletedThisPass: true, afterMs: -7_140_000 },
    ]);
  });

  it('the clock decides the grace period: the same dump two minutes later deletes both orphans', () => {
    const later = serviceCIDRReport(FIXTURE, repairClock(FIXTURE, NOON + 120_000));
    expect(later.repair.orphans.map((o) => [o.ip, o.deletedThisPass])).toEqual([
      ['10.96.0.77', true],
      ['10.96.0.99', true],
    ]);
    expect(later.repair.events.filter((e) => e.reason === 'IPAddressNotAllocated').map((e) => e.message)).toContain(
      'IPAddress: 10.96.0.77 for Service shop/new appears to have leaked: cleaning up',
    );
  });

  it('an IPAddress without a creationTimestamp is past the grace period whatever the clock', () => {
    const dump = dumpOf(stream(KUBERNETES_CIDR, ipAddress('10.96.0.5', 'gone')));
    const r = serviceCIDRReport(dump, repairClock(dump));
    expect(r.repair.clock.from).toBe('none');
    expect(r.repair.orphans.map((o) => [o.ip, o.deletedThisPass])).toEqual([['10.96.0.5', true]]);
  });

  it('a timestamp at the end of what a Date holds is printed as ms, never thrown on', () => {
    const end = '+275760-09-13T00:00:00Z';
    const dump = dumpOf(stream(KUBERNETES_CIDR, ipAddress('10.96.0.5', 'gone', end)));
    const r = serviceCIDRReport(dump, repairClock(dump));
    expect(r.repair.clock).toEqual({ now: 8.64e15, from: 'the input' });
    expect(serviceCIDRTable(r)).toContain('10.96.0.5            Service default/gone (not in the input)   +275760-09-13T00:00:00Z   at 8640000000060000 ms since the epoch (in 60s) unless its Service appears\n');
  });

  it('a consistent dump has nothing to repair; without the ServiceCIDR kubernetes the table says the loop waits for it', () => {
    const ok = dumpOf(stream(KUBERNETES_CIDR, service('web', '10.96.0.5', '2025-05-01T12:00:00Z'), ipAddress('10.96.0.5', 'web')));
    expect(serviceCIDRTable(serviceCIDRReport(ok, repairClock(ok))).split('\n').slice(-2)).toEqual([
      'one pass of the IPAddress repair loop (RepairIPAddress) at 2025-05-01T12:00:00Z (the latest timestamp in the input): nothing to repair',
      '',
    ]);
    const other = dumpOf(stream(KUBERNETES_CIDR.replace('name: kubernetes', 'name: extra'), service('web', '10.96.0.5'), ipAddress('10.96.0.5', 'web')));
    expect(serviceCIDRTable(serviceCIDRReport(other, repairClock(other)))).toContain(
      'no ServiceCIDR named kubernetes in the input: the repair loop waits for it before its first pass\n',
    );
  });
});

describe('--ip in a v1.33 dump', () => {
  it('answers from the IPAddress named by the address, and lists the Services that claim it', () => {
    const shared = lookupIPAddress(FIXTURE, '10.96.0.10');
    expect(shared?.cidrs).toEqual(['10.96.0.0/24']);
    expect(shared?.band).toBe('static');
    expect(shared?.ipAddress?.heldBy).toBe('Service kube-system/dns');
    expect(shared?.services.map((s) => `${s.namespace}/${s.name} ${s.field}`)).toEqual(['kube-system/dns spec.clusterIPs[0]', 'kube-system/dns-copy spec.clusterIPs[0]']);
  });

  it('an address written another way is the same IPAddress; an IPv6 one is found in its family', () => {
    expect(lookupIPAddress(FIXTURE, 'FD00:10:100:0::5')?.ipAddress?.ip).toBe('fd00:10:100::5');
    expect(lookupIPAddress(FIXTURE, 'fd00:10:100::5')?.band).toBe('static');
  });

  it('no IPAddress: a Service that names the IP is listed, and an address outside every ServiceCIDR is out of range', () => {
    const restored = lookupIPAddress(FIXTURE, '10.96.0.50');
    expect(restored?.ipAddress).toBeUndefined();
    expect(restored?.services.map((s) => s.name)).toEqual(['restored']);
    expect(lookupIPAddress(FIXTURE, '10.97.0.5')).toMatchObject({ cidrs: [], band: 'out of range' });
    expect(lookupIPAddress(FIXTURE, '10.96.0.1')?.band).toBe('first');
    expect(lookupIPAddress(FIXTURE, 'not-an-ip')).toBeUndefined();
  });
});

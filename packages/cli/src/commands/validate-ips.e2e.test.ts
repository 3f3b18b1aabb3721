// `kubesvc validate` and `kubesvc ips` through the real bin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { parseAllDocuments, stringify } from 'yaml';
import { FIXTURES, runBin } from '../run-bin.fixtures.js';

const INVALID = join(FIXTURES, 'invalid.yaml');
const CLUSTER = join(FIXTURES, 'cluster.yaml');
const IPS = join(FIXTURES, 'ips.yaml');
const SERVICE_CIDRS = join(FIXTURES, 'ips-service-cidrs.yaml');
const DUAL_WRITE = join(FIXTURES, 'ips-dual-write.yaml');

describe('kubesvc validate', () => {
  test("an invalid object: upstream's message and field errors, the file and document named, exit code 1", async () => {
    const run = await runBin(['validate', '-f', INVALID]);
    expect(run.code).toBe(1);
    expect(run.stdout.split('\n')).toEqual([
      `${INVALID}: document 1 (Service shop/web): valid`,
      `${INVALID}: document 2 (Service shop/api): Service "api" is invalid: [spec.ports[1].name: Required value, spec.ports[1].protocol: Unsupported value: "HTTPS": supported values: "SCTP", "TCP", "UDP"]`,
      '  spec.ports[1].name: Required value',
      '  spec.ports[1].protocol: Unsupported value: "HTTPS": supported values: "SCTP", "TCP", "UDP"',
      `${INVALID}: document 3 (Service shop/db): does not decode`,
      '  spec.ports[0].port: expected number, got string "5432"',
      '1 valid, 2 invalid',
      '',
    ]);
  });

  test('a kubectl dump is valid: exit code 0, list items placed, its Deployment checked as apps/v1 validation checks it', async () => {
    const run = await runBin(['validate', '-f', CLUSTER, '-o', 'json']);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout) as { valid: number; invalid: number; skipped: number; objects: Array<{ document: number; item: number; kind: string; result: string }> };
    expect([data.valid, data.invalid, data.skipped]).toEqual([11, 0, 0]);
    expect(data.objects.map((o) => `${o.document}.${o.item} ${o.kind} ${o.result}`).slice(-2)).toEqual(['1.9 EndpointSlice valid', '1.10 Deployment valid']);
  });
});

describe('kubesvc ips', () => {
  test("reads --service-cluster-ip-range with kube-apiserver's parser and messages", async () => {
    const same = await runBin(['ips', '-f', IPS, '--service-cluster-ip-range', '10.96.0.0/24,10.97.0.0/24']);
    expect(same.code).toBe(2);
    expect(same.stderr.trim()).toBe('error: --service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family');
    const bad = await runBin(['validate', '-f', IPS, '--service-cluster-ip-range', '10.96.0.0/24,bad']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('error: service-cluster-ip-range[1] is not an ip net');
  });

  test('the repair run from the stored RangeAllocation: duplicate, out of range, not allocated, and the leak', async () => {
    const run = await runBin(['ips', '-f', IPS, '--service-cluster-ip-range', '10.96.0.0/24', '-o', 'json']);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout) as {
      ranges: Array<{ size: number; staticBand: { size: number } }>;
      repair: { events: Array<{ reason: string; service: string; message: string }>; leaks: Array<{ ip: string; freedOnRun: number }> };
    };
    // A /24 has 254 usable addresses, and its static band is max(16, 256/16) = 16 of them.
    expect(data.ranges.map((r) => [r.size, r.staticBand.size])).toEqual([[254, 16]]);
    expect(data.repair.events).toEqual([
      { reason: 'ClusterIPAlreadyAllocated', service: 'kube-system/dns-copy', message: 'Cluster IP [IPv4]:10.96.0.10 was assigned to multiple services; please recreate service' },
      { reason: 'ClusterIPOutOfRange', service: 'shop/moved', message: 'Cluster IP [IPv4]:10.97.0.5 is not within the service CIDR 10.96.0.0/24; please recreate service' },
      { reason: 'ClusterIPNotAllocated', service: 'shop/restored', message: 'Cluster IP [IPv4]:10.96.0.50 is not allocated; repairing' },
    ]);
    // Held by no Service: kept by the first two runs, freed by the third.
    expect(data.repair.leaks).toEqual([{ ip: '10.96.0.99', freedOnRun: 3 }]);
  });

  test('--ip: who holds an address, and exit code 1 for one nobody holds', async () => {
    const held = await runBin(['ips', '-f', CLUSTER, '--ip', '10.96.0.10']);
    expect(held.code).toBe(0);
    expect(held.stdout.split('\n')[1]?.split(/\s{3,}/)).toEqual(['10.96.0.10', '10.96.0.0/12', 'static', 'Service kube-system/kube-dns spec.clusterIPs[0]']);
    const free = await runBin(['ips', '-f', CLUSTER, '--ip', '10.100.0.7', '-o', 'yaml']);
    expect(free.code).toBe(1);
    expect(free.stdout).toBe('band: dynamic\nholders: []\nip: 10.100.0.7\nrange: 10.96.0.0/12\n');
  });

  test('without a RangeAllocation, a consistent dump has nothing to repair', async () => {
    const run = await runBin(['ips', '-f', CLUSTER]);
    expect(run.code).toBe(0);
    expect(run.stdout.trimEnd().split('\n').at(-1)).toBe('a repair run (no RangeAllocation in the input: leaks cannot be seen): nothing to repair');
  });
});

describe('kubesvc ips on a Kubernetes v1.33 dump (ServiceCIDRs and IPAddresses)', () => {
  interface CidrData {
    serviceCIDRs: Array<{ cidr: string; serviceCIDRs: string[]; size: string; used: number; free: string }>;
    ipAddresses: Array<{ ip: string; heldBy: string; parent: string }>;
    ipAddressRepair: {
      now: string;
      nowFrom: string;
      events: Array<{ reason: string; regarding: string; message: string }>;
      writes: Array<{ verb: string; name: string; parentRef?: string }>;
      orphans: Array<{ ip: string; deletedThisPass: boolean; afterMs: number }>;
    };
    ranges?: unknown;
    bitmap?: { ranges: Array<{ range: string; used: number }>; repair: { events: Array<{ reason: string; service: string }> } };
  }

  test("each ServiceCIDR's allocation and one RepairIPAddress pass at the dump's latest timestamp, exit code 0", async () => {
    const run = await runBin(['ips', '-f', SERVICE_CIDRS, '-o', 'json']);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout) as CidrData;
    expect(data.ranges).toBeUndefined();
    expect(data.serviceCIDRs.map((c) => `${c.cidr} ${c.serviceCIDRs.join(',')} ${c.size} ${c.used} ${c.free}`)).toEqual([
      '10.96.0.0/24 kubernetes 254 7 247',
      '10.100.0.0/28 extra 14 1 13',
      'fd00:10:100::/120 extra 255 1 254',
    ]);
    expect(data.ipAddressRepair.now).toBe('2025-05-01T12:00:00Z');
    expect(data.ipAddressRepair.nowFrom).toBe('the input');
    expect(data.ipAddressRepair.events).toEqual([
      { reason: 'ClusterIPAlreadyAllocated', action: 'ClusterIPAllocation', regarding: 'Service kube-system/dns-copy', message: 'Cluster IP [IPv4]:10.96.0.10 was assigned to multiple services; please recreate service' },
      { reason: 'ClusterIPOutOfRange', action: 'ClusterIPAllocation', regarding: 'Service shop/moved', message: 'Cluster IP [IPv4]: 10.97.0.5 is not within any configured Service CIDR; please recreate service' },
      { reason: 'ClusterIPNotAllocated', action: 'ClusterIPAllocation', regarding: 'Service shop/restored', message: 'Cluster IP [IPv4]: 10.96.0.50 is not allocated; repairing' },
      { reason: 'ClusterIPNotAllocated', action: 'ClusterIPAllocation', regarding: 'Service shop/renamed', message: 'the ClusterIP [IPv4]: 10.96.0.60 for Service shop/renamed has a wrong reference; repairing' },
      { reason: 'IPAddressNotAllocated', action: 'IPAddressAllocation', regarding: 'IPAddress 10.96.0.66', message: 'IPAddress 10.96.0.66 appears to have been modified, not referencing a Service &{gateway.networking.k8s.io gateways shop edge}: cleaning up' },
      { reason: 'IPAddressWrongReference', action: 'IPAddressAllocation', regarding: 'IPAddress 10.96.0.88', message: 'IPAddress: 10.96.0.88 for Service shop/web has a wrong reference; cleaning up' },
      { reason: 'IPAddressNotAllocated', action: 'IPAddressAllocation', regarding: 'IPAddress 10.96.0.99', message: 'IPAddress: 10.96.0.99 for Service shop/gone appears to have leaked: cleaning up' },
    ]);
    expect(data.ipAddressRepair.writes).toContainEqual({ verb: 'create', name: '10.96.0.50', parentRef: 'Service shop/restored' });
    // Created 20 s before the dump: within the 60 s grace period, deleted 40 s later unless its Service appears.
    expect(data.ipAddressRepair.orphans.map((o) => [o.ip, o.deletedThisPass, o.afterMs])).toEqual([
      ['10.96.0.77', false, 40_000],
      ['10.96.0.99', true, -7_140_000],
    ]);
  });

  test('--now sets the clock: a minute later the young orphan is deleted too; a time that does not parse is a usage error', async () => {
    const run = await runBin(['ips', '-f', SERVICE_CIDRS, '--now', '2025-05-01T12:01:00Z', '-o', 'yaml']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('nowFrom: --now');
    expect(run.stdout).toContain('message: "IPAddress: 10.96.0.77 for Service shop/new appears to have leaked: cleaning up"');
    const bad = await runBin(['ips', '-f', SERVICE_CIDRS, '--now', 'noon']);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe('error: --now "noon": not an RFC 3339 time such as 2025-05-01T12:00:00Z');
  });

  test('--ip answers from the IPAddress (its parentRef); an address no IPAddress records is exit code 1', async () => {
    const held = await runBin(['ips', '-f', SERVICE_CIDRS, '--ip', '10.96.0.10']);
    expect(held.code).toBe(0);
    expect(held.stdout.split('\n').slice(1, 3).map((l) => l.trim().split(/\s{3,}/))).toEqual([
      ['10.96.0.10', '10.96.0.0/24', 'static', 'IPAddress 10.96.0.10 parentRef Service kube-system/dns'],
      ['Service kube-system/dns-copy spec.clusterIPs[0], without an IPAddress naming it'],
    ]);
    const unrecorded = await runBin(['ips', '-f', SERVICE_CIDRS, '--ip', '10.96.0.50', '-o', 'json']);
    expect(unrecorded.code).toBe(1);
    const data = JSON.parse(unrecorded.stdout) as { ipAddress?: unknown; services: Array<{ name: string }> };
    expect(data.ipAddress).toBeUndefined();
    expect(data.services.map((s) => s.name)).toEqual(['restored']);
  });

  test('a dump with a RangeAllocation too (the dual-write migration): both views, labelled, the bitmap one as the command prints it alone', async () => {
    const run = await runBin(['ips', '-f', DUAL_WRITE, '--service-cluster-ip-range', '10.96.0.0/24']);
    expect(run.code).toBe(0);
    const cidrHeading = 'ServiceCIDRs and IPAddresses (networking.k8s.io/v1), what the v1.33 allocator reads:\n';
    const bitmapAt = run.stdout.indexOf('\nthe bitmap of --service-cluster-ip-range 10.96.0.0/24: the stored RangeAllocation');
    expect(run.stdout.startsWith(cidrHeading)).toBe(true);
    expect(bitmapAt).toBeGreaterThan(0);
    // The ServiceCIDR view: shop/legacy, allocated by an apiserver still on the bitmap, has no IPAddress.
    expect(run.stdout.slice(0, bitmapAt)).toContain('ClusterIPNotAllocated   Service shop/legacy   Cluster IP [IPv4]: 10.96.0.30 is not allocated; repairing');
    // The bitmap view is what the command prints for the same dump without its ServiceCIDRs and IPAddresses.
    const bitmapOnly = parseAllDocuments(readFileSync(DUAL_WRITE, 'utf8'))
      .map((d) => d.toJS() as { kind: string; items?: Array<{ kind: string }> })
      .filter((d) => d.kind !== 'ServiceCIDR')
      .map((d) => stringify(d.items === undefined ? d : { ...d, items: d.items.filter((i) => i.kind !== 'IPAddress') }))
      .join('---\n');
    const alone = await runBin(['ips', '-f', '-', '--service-cluster-ip-range', '10.96.0.0/24'], { stdin: bitmapOnly });
    expect(alone.code).toBe(0);
    expect(alone.stdout).toContain('ClusterIPNotAllocated   shop/web');
    expect(run.stdout.slice(run.stdout.indexOf('\n\n', bitmapAt + 1) + 2)).toBe(alone.stdout);

    // Without the flag, the bitmap is that of the range the ServiceCIDR kubernetes records.
    const unflagged = await runBin(['ips', '-f', DUAL_WRITE]);
    expect(unflagged.code).toBe(0);
    expect(unflagged.stdout).toBe(
      run.stdout.replace('--service-cluster-ip-range 10.96.0.0/24:', '--service-cluster-ip-range 10.96.0.0/24, read from the ServiceCIDR kubernetes:'),
    );

    const json = JSON.parse((await runBin(['ips', '-f', DUAL_WRITE, '-o', 'json'])).stdout) as CidrData;
    expect(json.serviceCIDRs.map((c) => `${c.cidr} ${c.used}`)).toEqual(['10.96.0.0/24 3']);
    expect(json.bitmap?.ranges.map((r) => `${r.range} ${r.used}`)).toEqual(['10.96.0.0/24 4']);
    expect(json.bitmap?.repair.events.map((e) => `${e.reason} ${e.service}`)).toEqual(['ClusterIPNotAllocated shop/web']);
  });
});

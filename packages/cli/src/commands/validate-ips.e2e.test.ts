// `kubesvc validate` and `kubesvc ips` through the real bin.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURES, runBin } from '../run-bin.fixtures.js';

const INVALID = join(FIXTURES, 'invalid.yaml');
const CLUSTER = join(FIXTURES, 'cluster.yaml');
const IPS = join(FIXTURES, 'ips.yaml');

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

  test('a kubectl dump is valid: exit code 0, list items placed, unmodelled kinds skipped', async () => {
    const run = await runBin(['validate', '-f', CLUSTER, '-o', 'json']);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout) as { valid: number; invalid: number; skipped: number; objects: Array<{ document: number; item: number; kind: string; result: string }> };
    expect([data.valid, data.invalid, data.skipped]).toEqual([10, 0, 1]);
    expect(data.objects.map((o) => `${o.document}.${o.item} ${o.kind} ${o.result}`).slice(-2)).toEqual(['1.9 EndpointSlice valid', '1.10 Deployment skipped']);
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

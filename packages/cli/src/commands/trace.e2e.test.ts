// `kubesvc trace` through the real bin: curl to a ClusterIP is DNATed to an endpoint with the
// probabilities kube-proxy writes; ping to it matches no rule.
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURES, runBin } from '../run-bin.fixtures.js';

const CLUSTER = join(FIXTURES, 'cluster.yaml');
const SERVICE_CIDRS = join(FIXTURES, 'ips-service-cidrs.yaml');

describe('kubesvc trace', () => {
  test('tcp to a ClusterIP: each of the three endpoints with its exact probability, in the table', async () => {
    const run = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.100.10:80', '-o', 'table']);
    expect(run.code).toBe(0);
    const rows = run.stdout.trimEnd().split('\n').slice(1).map((line) => line.split(/\s{3,}/));
    // kube-proxy writes 1/3 as 0.3333333333 and 1/2 as 0.5000000000: the first endpoint gets
    // exactly 0.3333333333, the other two (1 - 0.3333333333) / 2 each.
    expect(rows.map((r) => [r[0], r[1], r[2]])).toEqual([
      ['DNAT', '10.244.1.5:8080', '3333333333/10000000000'],
      ['DNAT', '10.244.2.7:8080', '6666666667/20000000000'],
      ['DNAT', '10.244.3.9:8080', '6666666667/20000000000'],
    ]);
    expect(rows[0]?.[6]).toMatch(/^KUBE-SERVICES > KUBE-SVC-\w{16} > KUBE-SEP-\w{16}$/);
  });

  test('the text output walks the chains of every outcome', async () => {
    const run = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.100.10:80']);
    expect(run.code).toBe(0);
    expect(run.stdout.split('\n').slice(0, 2)).toEqual(['tcp 10.244.0.2 -> 10.96.100.10:80 from a pod on this node (conntrack NEW)', '3 possible outcomes']);
    expect(run.stdout).toContain('outcome 3: DNAT to 10.244.3.9:8080 (forwarded)');
    expect(run.stdout).toContain('  nat KUBE-SERVICES\n    -A KUBE-SERVICES -m comment --comment "shop/web:http cluster IP" -m tcp -p tcp -d 10.96.100.10 --dport 80 -j KUBE-SVC-');
  });

  test('ping fails, curl works: an ICMP echo to a ClusterIP matches no rule and leaves unchanged', async () => {
    const ping = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.0.1', '--proto', 'icmp']);
    expect(ping.code).toBe(0);
    expect(ping.stdout).toContain('1 possible outcome\n');
    expect(ping.stdout).toContain('outcome 1: no rule decided: not DNATed, the packet leaves the node unchanged towards 10.96.0.1 (forwarded)');
    expect(ping.stdout).toContain('the ping gets no reply');
    const curl = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.0.1:443', '-o', 'json']);
    const data = JSON.parse(curl.stdout) as { outcomes: Array<{ outcome: string; dnat: string; probability: { written: string } }> };
    expect(data.outcomes.map((o) => [o.outcome, o.dnat, o.probability.written])).toEqual([['dnat', '172.18.0.2:6443', '1']]);
  });

  test('--node-port: from outside to a node port, masqueraded (externalTrafficPolicy Cluster), with ClientIP affinity set', async () => {
    const run = await runBin(['trace', '-f', CLUSTER, '--node-ip', '192.168.0.10', '--to', ':30443', '--node-port', '-o', 'yaml']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('entry: outside');
    expect(run.stdout).toContain('destination: 192.168.0.10');
    expect(run.stdout.match(/outcome: dnat/g)).toHaveLength(2);
    expect(run.stdout.match(/masqueraded: true/g)).toHaveLength(2);
  });

  test('a port on an ICMP packet, or no port on TCP, is a usage error', async () => {
    const noPort = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.0.1']);
    expect(noPort.code).toBe(2);
    expect(noPort.stderr).toBe('error: --to "10.96.0.1": expected IP:PORT: address 10.96.0.1: missing port in address\n');
    const icmpPort = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.0.1:443', '--proto', 'icmp']);
    expect(icmpPort.code).toBe(2);
    expect(icmpPort.stderr).toContain('an ICMP echo has no port');
  });
});

describe('kubesvc trace --proxy-mode nftables', () => {
  test('tcp to a ClusterIP: each of the three endpoints with probability exactly 1/3, one numgen verdict map', async () => {
    const run = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.100.10:80', '-o', 'table', '--proxy-mode', 'nftables']);
    expect(run.code).toBe(0);
    const rows = run.stdout.trimEnd().split('\n').slice(1).map((line) => line.split(/\s{3,}/));
    expect(rows.map((r) => [r[0], r[1], r[2], r[3]])).toEqual([
      ['DNAT', '10.244.1.5:8080', '1/3', '0.3333333333'],
      ['DNAT', '10.244.2.7:8080', '1/3', '0.3333333333'],
      ['DNAT', '10.244.3.9:8080', '1/3', '0.3333333333'],
    ]);
    // The kernel maps a 32-bit random number to 0..2 by (r * 3) >> 32: 1431655766, 1431655765
    // and 1431655765 of the 2^32 numbers.
    expect(rows.map((r) => r[4])).toEqual(['0.3333333335', '0.3333333333', '0.3333333333']);
    expect(rows[0]?.[6]).toMatch(/^services > service-\w{8}-shop\/web\/tcp\/http > endpoint-\w{8}-shop\/web\/tcp\/http__10\.244\.1\.5\/8080$/);
    // No ServiceCIDR in this dump: said, since then nothing drops unallocated ClusterIPs.
    expect(run.stderr).toContain('warning: the input has no ServiceCIDR objects and no --service-cidr was given');
  });

  test('a ping to a ClusterIP is rejected in nftables mode (exit 1), where the iptables mode lets it leave unanswered', async () => {
    const run = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.100.10', '--proto', 'icmp', '--proxy-mode', 'nftables']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('1 possible outcome\n\noutcome 1: reject\n');
    expect(run.stdout).toContain('  cluster-ips-check\n    ip daddr @cluster-ips reject\n');
    const iptables = await runBin(['trace', '-f', CLUSTER, '--to', '10.96.100.10', '--proto', 'icmp']);
    expect(iptables.code).toBe(0);
    expect(iptables.stdout).toContain('outcome 1: no rule decided');
  });

  test("a packet to an unallocated address of the dump's ServiceCIDRs is dropped; with --service-cidr, of those", async () => {
    const run = await runBin(['trace', '-f', SERVICE_CIDRS, '--to', '10.96.0.77:80', '--proxy-mode', 'nftables']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('outcome 1: drop\n');
    expect(run.stdout).toContain('    ip daddr { 10.96.0.0/24,10.100.0.0/28 } drop\n');
    expect(run.stderr).not.toContain('no ServiceCIDR objects');
    const other = await runBin(['trace', '-f', SERVICE_CIDRS, '--to', '10.96.0.77:80', '--proxy-mode', 'nftables', '--service-cidr', '10.200.0.0/16']);
    expect(other.code).toBe(0);
    expect(other.stdout).toContain('outcome 1: no rule decided');
  });
});

test('kubesvc explore --proxy-mode nftables is a usage error: the page draws the iptables mode only, and never draws it for an nftables node', async () => {
  const run = await runBin(['explore', '-f', CLUSTER, '--proxy-mode', 'nftables', '--port', '0']);
  expect(run.code).toBe(2);
  expect(run.stderr).toContain('the explorer draws the iptables mode only: use kubesvc rules or trace --proxy-mode nftables for the nftables rules');
  expect(run.stdout).toBe('');
});

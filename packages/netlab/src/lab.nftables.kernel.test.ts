// Real packets through proxy-nftables' rules: a lab whose node holds v1.33's kube-proxy table,
// loaded with `nft -f`, and the demo cluster's services, checked with real TCP and ICMP against
// proxy-nftables' tracer: the endpoint distribution (chi-square), ClientIP affinity, and what
// sets the nftables mode apart (pkg/proxy/nftables/README.md): a ping to a ClusterIP and a
// connection to an undefined port of it are rejected, one to an unallocated address of the
// ServiceCIDR is dropped.
//
// Needs root, iproute2, nftables and iputils-ping; without them every test FAILS with a message
// saying what is missing (.ci/run installs them, and CI runs as root). Every load loop is bounded
// in count and in time (the client agent's count, timeoutMs and deadlineMs).
import type { Packet, PortPacket, Trace, TraceOutcome } from '@kubesvc/proxy-nftables';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chiSquareTest } from './chi-square.js';
import { DEMO_SERVICES, demoCluster, type LabServiceSpec } from './cluster.js';
import { Lab } from './lab.js';
import { dnatAddress, predictedShares, sharesTable } from './predict.js';

let lab: Lab | undefined;

function theLab(): Lab {
  if (lab === undefined) throw new Error('the lab was not created (see the beforeAll error above)');
  return lab;
}

beforeAll(async () => {
  lab = await Lab.create({ backends: ['be0', 'be1', 'be2'], proxyMode: 'nftables' });
  const { services, endpointSlices } = demoCluster(lab.backendIPs, lab.nodeName);
  const first = lab.syncNftables(services, endpointSlices);
  expect(first.command).toContain('nft');
}, 60_000);

afterAll(async () => {
  if (lab !== undefined) expect(await lab.teardownAndCheck()).toEqual({ namespaces: [], links: [], processes: [] });
});

const clientIP = (): string => theLab().pod('client').ip;

function packetTo(spec: LabServiceSpec, overrides: Partial<PortPacket> = {}): PortPacket {
  return { source: clientIP(), destination: spec.clusterIP, protocol: 'tcp', destinationPort: spec.port, entry: 'pod', ...overrides };
}

function traceOf(packet: Packet, extra = {}): Trace {
  const trace = theLab().traceNftables(packet, extra);
  if (!trace.ok) throw new Error(trace.error.message);
  return trace.value;
}

function backendOf(outcome: TraceOutcome): string {
  if (outcome.dnat === undefined) return `(${outcome.kind})`;
  return theLab().podByIP(dnatAddress(outcome.dnat))?.name ?? outcome.dnat;
}

describe('real packets through the nftables rules', () => {
  test('the node holds the kube-proxy table with v1.33\'s base chains', () => {
    const listing = theLab().nftListRuleset();
    expect(listing).toContain('table ip kube-proxy {');
    for (const chain of ['filter-prerouting', 'filter-output-post-dnat', 'nat-prerouting', 'nat-postrouting', 'cluster-ips-check']) {
      expect(listing).toContain(`chain ${chain} {`);
    }
  });

  test('INV-NFT-KERNEL: 3,000 TCP connections to a 3-endpoint ClusterIP all succeed, and the kernel chooses backends as the tracer predicts (chi-square, p > 0.001)', async () => {
    const l = theLab();
    const web = DEMO_SERVICES.web;
    const report = await l.connect('client', { protocol: 'tcp', host: web.clusterIP, port: web.port, count: 3000, concurrency: 16, timeoutMs: 5_000, deadlineMs: 40_000 });
    expect(report.launched).toBe(3000);
    expect(report.failures).toEqual([]);
    const trace = traceOf(packetTo(web));
    // One numgen map: each endpoint exactly 1/3 as written.
    expect(trace.outcomes.map((o) => `${o.probability.written.numerator}/${o.probability.written.denominator}`)).toEqual(['1/3', '1/3', '1/3']);
    const predicted = predictedShares(trace, backendOf);
    expect(Object.keys(predicted).sort()).toEqual(['be0', 'be1', 'be2']);
    const result = chiSquareTest(report.counts, predicted);
    console.log(
      `nftables: TCP ${web.clusterIP}:${web.port}, ${report.launched} connections in ${report.elapsedMs} ms\n${sharesTable(report.counts, predicted)}\n` +
        `  chi-square ${result.statistic.toFixed(3)} with ${result.degreesOfFreedom} df: p = ${result.pValue.toFixed(4)}`,
    );
    expect(result.pValue).toBeGreaterThan(0.001);
  });

  test("ClientIP affinity: 200 connections from one client reach one backend, and that endpoint's affinity set holds the client", async () => {
    const l = theLab();
    const sticky = DEMO_SERVICES.sticky;
    const report = await l.connect('client', { protocol: 'tcp', host: sticky.clusterIP, port: sticky.port, count: 200, concurrency: 4 });
    expect(report.failures).toEqual([]);
    const chosen = Object.keys(report.counts);
    expect(chosen).toHaveLength(1);
    const fresh = traceOf(packetTo(sticky)).outcomes;
    expect(fresh).toHaveLength(3);
    const sets = new Map(fresh.map((o) => [backendOf(o), o.affinityUpdates[0]?.name ?? '']));
    const set = sets.get(chosen[0] ?? '') ?? '';
    expect(set).toMatch(/^affinity-/);
    expect(l.nftSetElements(set)).toEqual([clientIP()]);
    for (const [backend, other] of sets) if (backend !== chosen[0]) expect(l.nftSetElements(other)).toEqual([]);
    // Given that entry, the tracer predicts the same backend with probability 1.
    const sticking = traceOf(packetTo(sticky), { recent: [{ name: set, source: clientIP(), lastSeen: 0 }], now: 1_000 }).outcomes;
    expect(sticking.map(backendOf)).toEqual(chosen);
  });

  test('a ping to a ClusterIP is rejected (ICMP port unreachable), as the tracer says', () => {
    const l = theLab();
    const web = DEMO_SERVICES.web;
    expect(traceOf({ protocol: 'icmp', source: clientIP(), destination: web.clusterIP, entry: 'pod' }).outcomes.map((o) => o.kind)).toEqual(['reject']);
    const ping = l.ping('client', web.clusterIP);
    console.log(`nftables: ICMP echo to ${web.clusterIP}:\n${ping.output}`);
    expect(ping.replied).toBe(false);
    expect(ping.output).toMatch(/Destination Port Unreachable/);
  });

  test('an undefined port of a ClusterIP is rejected at once (ECONNREFUSED); an unallocated address of the ServiceCIDR is dropped (the connection times out)', async () => {
    const l = theLab();
    const web = DEMO_SERVICES.web;
    expect(traceOf(packetTo(web, { destinationPort: 81 })).outcomes.map((o) => o.kind)).toEqual(['reject']);
    const refused = await l.connect('client', { protocol: 'tcp', host: web.clusterIP, port: 81, count: 3, timeoutMs: 5_000 });
    expect(refused.results.map((r) => (r.ok ? 'answered' : r.error.message))).toEqual(Array(3).fill('ECONNREFUSED'));
    expect(traceOf(packetTo(web, { destination: '10.96.0.99' })).outcomes.map((o) => o.kind)).toEqual(['drop']);
    const dropped = await l.connect('client', { protocol: 'tcp', host: '10.96.0.99', port: 80, count: 2, timeoutMs: 1_500 });
    expect(dropped.results.map((r) => (r.ok ? 'answered' : r.error.message))).toEqual(['timeout', 'timeout']);
  });

  test('no endpoints: the connection is refused at once, never timed out', async () => {
    const l = theLab();
    const empty = DEMO_SERVICES.empty;
    const report = await l.connect('client', { protocol: 'tcp', host: empty.clusterIP, port: empty.port, count: 3, timeoutMs: 5_000 });
    expect(report.results.map((r) => (r.ok ? 'answered' : r.error.message))).toEqual(Array(3).fill('ECONNREFUSED'));
    expect(traceOf(packetTo(empty)).outcomes.map((o) => o.kind)).toEqual(['reject']);
  });
});

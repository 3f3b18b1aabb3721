// Real packets through proxy-iptables' rules: one lab (a node namespace with kube-proxy's rules
// loaded by iptables-nft-restore, a client pod, five backend pods) and the demo cluster's
// services, checked with real TCP, UDP and ICMP, and against proxy-iptables' tracer.
//
// Needs root, iproute2, iptables and iputils-ping; without them every test FAILS with a message
// saying what is missing (.ci/run installs them, and CI runs as root). Every load loop is bounded
// in count and in time (the client agent's count, timeoutMs and deadlineMs).
import type { Packet, PortPacket, Trace, TraceOutcome } from '@kubesvc/proxy-iptables';
import { explain } from '@kubesvc/proxy-iptables';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { countByBackend, type ConnectionResult } from './agents.js';
import { chiSquareTest } from './chi-square.js';
import { DEMO_SERVICES, demoCluster, type LabServiceSpec } from './cluster.js';
import { Lab, NODE_IP, POD_GATEWAY } from './lab.js';
import { leftovers } from './netns.js';
import { dnatAddress, predictedShares, sharesTable } from './predict.js';

let lab: Lab | undefined;

function theLab(): Lab {
  if (lab === undefined) throw new Error('the lab was not created (see the beforeAll error above)');
  return lab;
}

beforeAll(async () => {
  // The bridge topology (as with the CNI bridge plugin); variants.kernel.test.ts runs the routed one.
  lab = await Lab.create({ backends: ['be0', 'be1', 'be2', 'be3', 'be4'], topology: 'bridge' });
  const three = lab.backendIPs.slice(0, 3);
  const { services, endpointSlices } = demoCluster(three, lab.nodeName);
  const first = lab.sync(services, endpointSlices);
  expect(first.result.stats.full).toBe(true);
}, 60_000);

afterAll(async () => {
  if (lab !== undefined) expect(await lab.teardownAndCheck()).toEqual({ namespaces: [], links: [], processes: [] });
});

const clientIP = (): string => theLab().pod('client').ip;

function packetTo(spec: LabServiceSpec, overrides: Partial<PortPacket> = {}): PortPacket {
  return {
    source: clientIP(),
    destination: spec.clusterIP,
    protocol: spec.protocol === 'UDP' ? 'udp' : 'tcp',
    destinationPort: spec.port,
    entry: 'pod',
    ...overrides,
  };
}

/** The tracer's trace, or a failed test. */
function traceOf(packet: Packet, extra = {}): Trace {
  const trace = theLab().trace(packet, extra);
  if (!trace.ok) throw new Error(trace.error.message);
  return trace.value;
}

const traced = (packet: Packet, extra = {}): readonly TraceOutcome[] => traceOf(packet, extra).outcomes;

/** The backend pod name an outcome DNATs to. */
function backendOf(outcome: TraceOutcome): string {
  if (outcome.dnat === undefined) return `(${outcome.kind})`;
  return theLab().podByIP(dnatAddress(outcome.dnat))?.name ?? outcome.dnat;
}

const peerAddress = (r: ConnectionResult): string => (r.ok ? (r.value.peer.split(':')[0] ?? '') : '');

describe('the lab', () => {
  test('names carry the run prefix; every link lives inside the lab namespaces; kernel settings are set there', () => {
    const l = theLab();
    expect(l.prefix).toMatch(/^kl[a-z0-9]{6}$/);
    for (const ns of l.namespaceNames) expect(ns.startsWith(`${l.prefix}-`)).toBe(true);
    // The namespaces exist, and the namespace the lab runs from holds none of its links.
    expect([...leftovers(l.prefix).namespaces].sort()).toEqual([...l.namespaceNames].sort());
    expect(leftovers(l.prefix).links).toEqual([]);
    // The node's only way out is an uplink whose peer is down: nothing leaves the lab.
    const links = l.exec(l.nodeNamespace, ['ip', '-o', 'link', 'show']).stdout;
    expect(links).toMatch(new RegExp(`${l.prefix}ux@${l.prefix}up: <[^>]*> .*state DOWN`));
    expect(l.exec(l.nodeNamespace, ['ip', 'route', 'show', 'default']).stdout).toContain(`dev ${l.uplink}`);
    expect(l.readSysctl('net.ipv4.ip_forward')).toBe('1');
    expect(l.readSysctl('net.ipv4.conf.all.route_localnet')).toBe('1');
    expect(l.topology).toBe('bridge');
    expect(l.readSysctl('net.bridge.bridge-nf-call-iptables')).toBe('1');
    // kube-proxy's jump rules are in the built-in chains, in the order the tracer assumes.
    const save = l.iptablesSave();
    expect(save).toMatch(/^-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES$/m);
    expect(save).toMatch(/^-A POSTROUTING -m comment --comment "kubernetes postrouting rules" -j KUBE-POSTROUTING$/m);
  });
});

describe('real packets through the rules', () => {
  test('INV-IPT-KERNEL: 3,000 TCP connections to a 3-endpoint ClusterIP all succeed, and the kernel chooses backends as the tracer predicts (chi-square, p > 0.001)', async () => {
    const l = theLab();
    const web = DEMO_SERVICES.web;
    const report = await l.connect('client', { protocol: 'tcp', host: web.clusterIP, port: web.port, count: 3000, concurrency: 16, timeoutMs: 5_000, deadlineMs: 40_000 });
    expect(report.launched).toBe(3000);
    expect(report.failures).toEqual([]);
    const predicted = predictedShares(traceOf(packetTo(web)), backendOf);
    expect(Object.keys(predicted).sort()).toEqual(['be0', 'be1', 'be2']);
    const test = chiSquareTest(report.counts, predicted);
    console.log(
      `TCP ${web.clusterIP}:${web.port}, ${report.launched} connections in ${report.elapsedMs} ms\n${sharesTable(report.counts, predicted)}\n` +
        `  chi-square ${test.statistic.toFixed(3)} with ${test.degreesOfFreedom} df: p = ${test.pValue.toFixed(4)}`,
    );
    expect(test.pValue).toBeGreaterThan(0.001);
    // A pod in the cluster CIDR is not masqueraded: the backend sees the client's own address.
    expect(new Set(report.results.map(peerAddress))).toEqual(new Set([clientIP()]));
    expect(traced(packetTo(web)).every((o) => !o.masqueraded)).toBe(true);
  });

  test('ClientIP affinity: 200 connections from one client reach one backend, and that endpoint\'s xt_recent list holds the client', async () => {
    const l = theLab();
    const sticky = DEMO_SERVICES.sticky;
    const report = await l.connect('client', { protocol: 'tcp', host: sticky.clusterIP, port: sticky.port, count: 200, concurrency: 4 });
    expect(report.failures).toEqual([]);
    const chosen = Object.keys(report.counts);
    expect(chosen).toHaveLength(1);
    expect(report.counts[chosen[0] ?? '']).toBe(200);
    // The tracer names the list each endpoint's SEP chain `--set`s; the chosen one holds the client.
    const fresh = traced(packetTo(sticky));
    expect(fresh).toHaveLength(3);
    const lists = new Map(fresh.map((o) => [backendOf(o), o.recentUpdates[0]?.name ?? '']));
    const list = lists.get(chosen[0] ?? '') ?? '';
    expect(list).toMatch(/^KUBE-SEP-/);
    expect(l.recentList(list)).toEqual([clientIP()]);
    for (const [backend, other] of lists) if (backend !== chosen[0]) expect(l.recentList(other)).toEqual([]);
    // Given that list entry, the tracer predicts the same backend with probability 1.
    const sticking = traced(packetTo(sticky), { recent: [{ name: list, source: clientIP(), lastSeen: 0 }], now: 1_000 });
    expect(sticking.map(backendOf)).toEqual(chosen);
    expect(sticking[0]?.probability.kernel).toEqual({ numerator: 1n, denominator: 1n });
  });

  test('the classic experiment: TCP to the ClusterIP is answered by a backend, an ICMP echo to it gets no reply', async () => {
    const l = theLab();
    const web = DEMO_SERVICES.web;
    const report = await l.connect('client', { protocol: 'tcp', host: web.clusterIP, port: web.port, count: 20 });
    expect(report.failures).toEqual([]);
    // The tracer's account of the TCP packet: DNAT in a KUBE-SEP chain, to one of the backends.
    const outcomes = traced(packetTo(web));
    expect(outcomes.every((o) => o.kind === 'dnat' && o.chains.some((c) => c.startsWith('KUBE-SEP-')))).toBe(true);
    const predictedBackends = new Set(outcomes.map(backendOf));
    for (const backend of Object.keys(report.counts)) expect(predictedBackends).toContain(backend);
    const explanation = explain(l.ruleset(), packetTo(web), l.traceOptions());
    expect(explanation.ok && explanation.value).toContain('DNAT to');
    // ICMP: no rule for the ClusterIP matches it (every one names its protocol), so nothing
    // DNATs the echo; the node routes it on, towards its gateway, and no reply comes.
    const rulesForIP = l
      .ruleset()
      .tables.flatMap((t) => t.rules)
      .filter((r) => r.matches.some((m) => m.kind === 'destination' && m.address === web.clusterIP));
    expect(rulesForIP.length).toBeGreaterThan(0);
    for (const rule of rulesForIP) expect(rule.matches.some((m) => m.kind === 'protocol')).toBe(true);
    const ping = l.ping('client', web.clusterIP);
    console.log(`ICMP echo to ${web.clusterIP}:\n${ping.output}`);
    expect(ping.replied).toBe(false);
    expect(ping.output).toMatch(/1 packets transmitted, 0 received/);
  });

  test('no endpoints: the connection is refused at once (REJECT, ECONNREFUSED), never timed out', async () => {
    const l = theLab();
    const empty = DEMO_SERVICES.empty;
    const report = await l.connect('client', { protocol: 'tcp', host: empty.clusterIP, port: empty.port, count: 5, timeoutMs: 5_000 });
    expect(report.results.map((r) => (r.ok ? 'answered' : r.error.message))).toEqual(Array(5).fill('ECONNREFUSED'));
    const outcomes = traced(packetTo(empty));
    expect(outcomes.map((o) => o.kind)).toEqual(['reject']);
    expect(outcomes[0]?.matched.map((m) => m.text).join('\n')).toContain('has no endpoints');
  });

  test('NodePort: a connection to the node\'s address on the nodePort reaches a backend, source-NATed to the node', async () => {
    const l = theLab();
    const np = DEMO_SERVICES.nodeport;
    const masqueradeCount = (): number => {
      const line = l
        .exec(l.nodeNamespace, [`iptables-${l.iptables}-save`, '-c', '-t', 'nat'])
        .stdout.split('\n')
        .find((x) => / -A KUBE-POSTROUTING .*-j MASQUERADE/.test(x));
      return Number(/^\[(\d+):/.exec(line ?? '')?.[1] ?? NaN);
    };
    const before = masqueradeCount();
    const report = await l.connect('client', { protocol: 'tcp', host: NODE_IP, port: np.nodePort, count: 20 });
    expect(report.failures).toEqual([]);
    expect(Object.keys(report.counts).every((b) => ['be0', 'be1', 'be2'].includes(b))).toBe(true);
    // The backends saw the node's address on the pod network, not the client's.
    expect(new Set(report.results.map(peerAddress))).toEqual(new Set([POD_GATEWAY]));
    // Only marked packets reach the MASQUERADE rule (KUBE-POSTROUTING returns the others first).
    expect(masqueradeCount() - before).toBeGreaterThanOrEqual(20);
    const outcomes = traced(packetTo(np, { destination: NODE_IP, destinationPort: np.nodePort }));
    expect(outcomes).toHaveLength(3);
    for (const o of outcomes) {
      expect(o.kind).toBe('dnat');
      expect(o.markedForMasquerade).toBe(true);
      expect(o.masqueraded).toBe(true);
    }
  });

  test('a partial sync under load: scaling 3 → 5 → 3 endpoints with iptables-restore --noflush fails no connection, and the new endpoints get traffic after the sync', async () => {
    const l = theLab();
    const scale = DEMO_SERVICES.scale;
    const three = l.backendIPs.slice(0, 3);
    const five = l.backendIPs.slice(0, 5);
    const load = l.startClient('client', { protocol: 'tcp', host: scale.clusterIP, port: scale.port, count: 4000, concurrency: 4, deadlineMs: 30_000, progressEvery: 20 });
    await load.progress(100);
    const upStart = await load.mark('up-start');
    const up = demoCluster(three, l.nodeName, five);
    const scaledUp = l.sync(up.services, up.endpointSlices);
    const upDone = await load.mark('up');
    await load.progress(upDone + 400);
    const downStart = await load.mark('down-start');
    const down = demoCluster(three, l.nodeName, three);
    const scaledDown = l.sync(down.services, down.endpointSlices);
    const downDone = await load.mark('down');
    await load.progress(downDone + 200);
    load.stop();
    const report = await load.report;

    for (const s of [scaledUp, scaledDown]) {
      expect(s.result.stats.full).toBe(false);
      expect(s.result.stats.servicesChanged).toBe(1);
      expect(s.command).toContain('--noflush');
    }
    expect(scaledDown.result.stats.chainsDeleted).toBe(2);
    expect(report.failures).toEqual([]);
    const window = (from: number, to: number): Record<string, number> => countByBackend(report.results.slice(from, to));
    const before = window(0, upStart);
    const during = window(upDone, downStart);
    const after = window(downDone, report.launched);
    console.log(`scale 3 → 5 → 3 under load, ${report.launched} connections, 0 failed:\n  before ${JSON.stringify(before)}\n  at 5 ${JSON.stringify(during)}\n  back at 3 ${JSON.stringify(after)}`);
    expect(Object.keys(before).sort()).toEqual(['be0', 'be1', 'be2']);
    expect(Object.keys(during).sort()).toEqual(['be0', 'be1', 'be2', 'be3', 'be4']);
    expect(Object.keys(after).sort()).toEqual(['be0', 'be1', 'be2']);
  });

  test('UDP: datagrams to a UDP ClusterIP reach a backend, and the replies come back from the ClusterIP', async () => {
    const l = theLab();
    const dns = DEMO_SERVICES.dns;
    // The client's sockets are connected to the ClusterIP, so only replies un-DNATed back to it are read.
    const report = await l.connect('client', { protocol: 'udp', host: dns.clusterIP, port: dns.port, count: 30, concurrency: 4, timeoutMs: 3_000 });
    expect(report.failures).toEqual([]);
    expect(report.results).toHaveLength(30);
    const outcomes = traced(packetTo(dns));
    expect(outcomes.map((o) => o.dnat).sort()).toEqual(l.backendIPs.slice(0, 3).map((ip) => `${ip}:5353`));
    const predictedBackends = new Set(outcomes.map(backendOf));
    for (const backend of Object.keys(report.counts)) expect(predictedBackends).toContain(backend);
  });

  test('why kube-proxy needs bridge-nf-call-iptables: with it off, the backend\'s reply is bridged past conntrack and the connection fails', async () => {
    const l = theLab();
    expect(l.topology).toBe('bridge');
    const web = DEMO_SERVICES.web;
    l.sysctl('net.bridge.bridge-nf-call-iptables', '0');
    try {
      const report = await l.connect('client', { protocol: 'tcp', host: web.clusterIP, port: web.port, count: 3, concurrency: 3, timeoutMs: 1_000 });
      expect(report.results.filter((r) => r.ok)).toEqual([]);
    } finally {
      l.sysctl('net.bridge.bridge-nf-call-iptables', '1');
    }
    const again = await l.connect('client', { protocol: 'tcp', host: web.clusterIP, port: web.port, count: 3 });
    expect(again.failures).toEqual([]);
  });
});

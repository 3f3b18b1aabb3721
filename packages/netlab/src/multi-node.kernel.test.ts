// INV-LAB-PER-NODE. Two nodes, each with its own kube-proxy rules in its own namespace, and real packets: an
// externalTrafficPolicy: Local NodePort answers on the node that runs its endpoint and drops on
// the other, zone hints keep a pod's connections in its zone, and pod traffic crosses between
// the nodes, each as that node's tracer predicts. Once with iptables (v1.31's proxier, loaded by
// iptables-nft-restore), once with nftables (v1.33's, loaded by nft -f).
//
// Needs root, iproute2, iptables, nftables and iputils-ping, like every lab test (.ci/run
// installs them). Every load is bounded in count and time.
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { chiSquareTest } from './chi-square.js';
import type { LabProxyMode } from './lab.js';
import { EXTERNAL_HOST, EXTERNAL_HOST_IP, MultiNodeLab } from './multi-node.js';
import { leftovers } from './netns.js';
import { NODES_SERVICES, nodesDemoCluster, runNodesDemo, TWO_NODES } from './nodes-demo.js';
import { dnatAddress, predictedShares } from './predict.js';
import type { LabTraceOutcome } from './trace-result.js';

function twoNodeSuite(proxyMode: LabProxyMode): void {
  describe(`two nodes, ${proxyMode} mode`, () => {
    let lab: MultiNodeLab | undefined;
    const theLab = (): MultiNodeLab => {
      if (lab === undefined) throw new Error('the lab was not created (see the beforeAll error above)');
      return lab;
    };
    const nameOf = (o: LabTraceOutcome): string => (o.kind === 'dnat' ? (theLab().podByIP(dnatAddress(o.dnat ?? ''))?.name ?? String(o.dnat)) : o.kind);
    const traced = (node: string, source: string, destination: string, port: number, entry: 'pod' | 'outside'): readonly LabTraceOutcome[] => {
      const trace = theLab().trace(node, { source, destination, protocol: 'tcp', destinationPort: port, entry });
      if (!trace.ok) throw new Error(trace.error.message);
      return trace.value.outcomes;
    };

    beforeAll(async () => {
      lab = await MultiNodeLab.create({ nodes: TWO_NODES, proxyMode });
      const { services, endpointSlices } = nodesDemoCluster(lab);
      const synced = lab.sync(services, endpointSlices);
      expect(synced.map((s) => s.node)).toEqual(['node-a', 'node-b']);
    }, 90_000);

    afterAll(async () => {
      if (lab !== undefined) expect(await lab.teardownAndCheck()).toEqual({ namespaces: [], links: [], processes: [] });
    });

    test('each node has its node IP, its pod range, a route to the other node\'s pods and its own rules; nothing is in the namespace the lab runs from', () => {
      const l = theLab();
      expect(l.nodes.map((n) => [n.name, n.zone, n.ip, n.podCIDR])).toEqual([
        ['node-a', 'zone-a', '192.0.2.11', '10.244.1.0/24'],
        ['node-b', 'zone-b', '192.0.2.12', '10.244.2.0/24'],
      ]);
      expect(l.exec(l.node('node-a').namespace, ['ip', '-o', 'route', 'show', '10.244.2.0/24']).stdout).toContain('via 192.0.2.12');
      expect(l.exec(l.node('node-b').namespace, ['ip', '-o', 'route', 'show', '10.244.1.0/24']).stdout).toContain('via 192.0.2.11');
      expect(leftovers(l.prefix).links).toEqual([]);
      // Each node's tables hold kube-proxy's rules, NodePorts included.
      const list = proxyMode === 'nftables' ? ['nft', 'list', 'table', 'ip', 'kube-proxy'] : ['iptables-nft-save', '-t', 'nat'];
      for (const node of l.nodes) expect(l.exec(node.namespace, list).stdout).toContain('30081');
    });

    test('an externalTrafficPolicy: Local NodePort answers on the node with the endpoint, keeping the client address, and times out on the other, as traced', async () => {
      const l = theLab();
      const port = NODES_SERVICES.local.nodePort;
      const onA = traced('node-a', EXTERNAL_HOST_IP, l.node('node-a').ip, port, 'outside');
      const onB = traced('node-b', EXTERNAL_HOST_IP, l.node('node-b').ip, port, 'outside');
      expect(onA.map((o) => [nameOf(o), o.masqueraded])).toEqual([['bea1', false]]);
      expect(onB.map((o) => o.kind)).toEqual(['drop']);

      const viaA = await l.connect(EXTERNAL_HOST, { protocol: 'tcp', host: l.node('node-a').ip, port, count: 3, timeoutMs: 2_000 });
      const viaB = await l.connect(EXTERNAL_HOST, { protocol: 'tcp', host: l.node('node-b').ip, port, count: 3, timeoutMs: 2_000 });
      expect(viaA.results.map((r) => (r.ok ? `${r.value.backend} ${r.value.peer.split(':')[0]}` : r.error.message))).toEqual(Array(3).fill(`bea1 ${EXTERNAL_HOST_IP}`));
      expect(viaB.results.map((r) => (r.ok ? r.value.backend : r.error.message))).toEqual(['timeout', 'timeout', 'timeout']);
    });

    test('the same NodePort with externalTrafficPolicy: Cluster answers on both nodes: from node-b across to node-a\'s pod, with source NAT to node-b', async () => {
      const l = theLab();
      const port = NODES_SERVICES.cluster.nodePort;
      const onB = traced('node-b', EXTERNAL_HOST_IP, l.node('node-b').ip, port, 'outside');
      expect(onB.map((o) => [nameOf(o), o.masqueraded])).toEqual([['bea1', true]]);
      const viaB = await l.connect(EXTERNAL_HOST, { protocol: 'tcp', host: l.node('node-b').ip, port, count: 3, timeoutMs: 2_000 });
      expect(viaB.results.map((r) => (r.ok ? `${r.value.backend} ${r.value.peer.split(':')[0]}` : r.error.message))).toEqual(Array(3).fill('bea1 192.0.2.12'));
    });

    test('PreferClose: a pod\'s connections stay in its node\'s zone (only the hinted endpoints answer, in the traced shares); without hints they cross nodes', async () => {
      const l = theLab();
      const zonal = NODES_SERVICES.zonal;
      const fromA = await l.connect('ca', { protocol: 'tcp', host: zonal.clusterIP, port: zonal.port, count: 400, concurrency: 16, timeoutMs: 5_000, deadlineMs: 60_000 });
      const fromB = await l.connect('cb', { protocol: 'tcp', host: zonal.clusterIP, port: zonal.port, count: 200, concurrency: 16, timeoutMs: 5_000, deadlineMs: 60_000 });
      expect(fromA.failures).toEqual([]);
      expect(fromB.failures).toEqual([]);
      expect(Object.keys(fromA.counts).sort()).toEqual(['bea1', 'bea2']);
      expect(fromB.counts).toEqual({ beb1: 200 });
      const sharesA = predictedShares({ outcomes: traced('node-a', l.pod('ca').ip, zonal.clusterIP, zonal.port, 'pod') }, nameOf);
      expect(sharesA).toEqual({ bea1: 0.5, bea2: 0.5 });
      expect(chiSquareTest(fromA.counts, sharesA).pValue).toBeGreaterThan(0.001);

      const spread = NODES_SERVICES.spread;
      const crossing = await l.connect('cb', { protocol: 'tcp', host: spread.clusterIP, port: spread.port, count: 300, concurrency: 16, timeoutMs: 5_000, deadlineMs: 60_000 });
      expect(crossing.failures).toEqual([]);
      const sharesB = predictedShares({ outcomes: traced('node-b', l.pod('cb').ip, spread.clusterIP, spread.port, 'pod') }, nameOf);
      expect(Object.keys(sharesB).sort()).toEqual(['bea1', 'bea2', 'beb1']);
      expect(Object.keys(crossing.counts).sort()).toEqual(['bea1', 'bea2', 'beb1']);
      expect(chiSquareTest(crossing.counts, sharesB).pValue).toBeGreaterThan(0.001);
    });

    test('the `npm run lab -- --nodes 2` demo finds every answer as traced', async () => {
      const lines: string[] = [];
      const result = await runNodesDemo(theLab(), { connections: 150 }, (line) => lines.push(line));
      expect(result.problems).toEqual([]);
      expect(lines.join('\n')).toMatch(/via node-b +192\.0\.2\.12:30081 +timeout +traced: drop/);
    });
  });
}

twoNodeSuite('iptables');
twoNodeSuite('nftables');

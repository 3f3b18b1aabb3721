// `--dataplane netns` in nftables mode: each of the node agent's nftables syncs (the first
// full, then partial ones, as its proxier writes them) loaded with `nft -f` into the node
// namespace of a network-namespace lab, and checked with real TCP connections from a client pod
// to a ClusterIP whose EndpointSlice (written through the registry) names two backend pods.
//
// Needs root, iproute2 and nftables, like the lab's own nftables kernel tests: without them the
// test FAILS with the message saying what is missing (CI runs as root). Every load loop is
// bounded in count and time (the client agent's count and deadline).
import { BACKEND_TCP_PORT } from '@kubesvc/netlab';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { systemClock } from '@kubesvc/store';
import { startNodeAgent, type NodeAgent } from './node-agent.js';
import { netnsDataplane, type NetnsDataplane } from './netns/index.js';
import { endpointSlice, must, openTestCluster, poll, revisionOf, service, type TestCluster } from './node-agent.fixtures.js';

let cluster: TestCluster | undefined;
let agent: NodeAgent<NetnsDataplane> | undefined;

beforeAll(async () => {
  cluster = await openTestCluster(systemClock, 'memory');
  const started = await startNodeAgent({
    source: cluster.informer,
    clock: systemClock,
    nodeName: 'node-1',
    nodeIP: '192.0.2.10',
    dataDir: cluster.dir,
    dnsPort: false,
    proxyMode: 'nftables',
    nftables: { serviceCIDRs: ['10.96.0.0/16'] },
    dataplane: netnsDataplane({ backends: ['be0', 'be1'] }),
  });
  if (!started.ok) throw new Error(started.error.message);
  agent = started.value;
}, 60_000);

afterAll(async () => {
  const lab = agent?.dataplane?.lab;
  await agent?.stop();
  await cluster?.close();
  // The lab's namespaces and processes are gone with the agent.
  if (lab !== undefined) expect(lab.namespaceNames).toStrictEqual([]);
});

test('a Service created through the registry reaches both backend pods through the kernel\'s nftables, and is rejected once its endpoints go', async () => {
  const c = cluster;
  const lab = agent?.dataplane?.lab;
  if (c === undefined || lab === undefined || agent === undefined) throw new Error('the agent did not start (see the beforeAll error)');
  const a = agent;
  expect(lab.proxyMode).toBe('nftables');
  // The first sync (no Services yet) made the table, its base chains hooked in.
  expect(lab.nftListRuleset()).toMatch(/chain nat-prerouting \{\n\s+type nat hook prerouting priority dstnat; policy accept;/);

  await must(c.registry.create('services', 'default', service('echo', { clusterIP: '10.96.0.50', ports: [{ name: 'tcp', port: 80, protocol: 'TCP', targetPort: BACKEND_TCP_PORT }] })));
  const slice = await must(c.registry.create('endpointslices', 'default', endpointSlice('echo', lab.backendIPs, [{ name: 'tcp', port: BACKEND_TCP_PORT, protocol: 'TCP' }])));
  await c.informer.waitFor(revisionOf(slice));
  const loaded = await poll(async () => (/dnat to 10\.244\.0\.\d+:/.test(lab.nftListRuleset()) && a.lastNftablesSync()?.full === false ? true : undefined), 5_000, 50);
  expect(loaded).toBe(true);
  // The lab's model of the table is the agent's.
  expect(lab.nftTable()).toBe(a.nftablesState()?.table);

  const report = await lab.connect('client', { protocol: 'tcp', host: '10.96.0.50', port: 80, count: 40, concurrency: 4, timeoutMs: 2_000, deadlineMs: 20_000 });
  expect(report.failures).toStrictEqual([]);
  expect(Object.keys(report.counts).sort()).toStrictEqual(['be0', 'be1']);

  await must(c.registry.delete('endpointslices', 'default', 'echo-1'));
  const rejected = await poll(async () => (/10\.96\.0\.50 \. tcp \. 80 comment "default\/echo:tcp" : goto reject-chain/.test(lab.nftListRuleset()) ? true : undefined), 5_000, 50);
  expect(rejected).toBe(true);
  const after = await lab.connect('client', { protocol: 'tcp', host: '10.96.0.50', port: 80, count: 3, timeoutMs: 2_000, deadlineMs: 10_000 });
  expect(after.results.every((r) => !r.ok)).toBe(true);
}, 120_000);

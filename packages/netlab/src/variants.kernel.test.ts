// The lab's other configuration: rules loaded by iptables-legacy-restore, pods on routed
// point-to-point veths instead of a bridge (the topology used where br_netfilter is missing).
// The same rules must behave the same: ClusterIP load balancing, REJECT without endpoints,
// NodePort with source NAT, UDP. Needs root (.ci/run; CI runs as root).
import { afterAll, beforeAll, expect, test } from 'vitest';
import { DEMO_SERVICES, demoCluster } from './cluster.js';
import { Lab, NODE_IP, POD_GATEWAY } from './lab.js';

let lab: Lab | undefined;

function theLab(): Lab {
  if (lab === undefined) throw new Error('the lab was not created (see the beforeAll error above)');
  return lab;
}

beforeAll(async () => {
  lab = await Lab.create({ backends: ['be0', 'be1', 'be2'], iptables: 'legacy', topology: 'routed' });
  const { services, endpointSlices } = demoCluster(lab.backendIPs, lab.nodeName);
  lab.sync(services, endpointSlices);
}, 60_000);

afterAll(async () => {
  if (lab !== undefined) expect(await lab.teardownAndCheck()).toEqual({ namespaces: [], links: [], processes: [] });
});

test('legacy iptables, routed pods: the rules are in the legacy tables, and there is no bridge', () => {
  const l = theLab();
  expect(l.iptables).toBe('legacy');
  expect(l.topology).toBe('routed');
  expect(l.iptablesSave()).toMatch(/^-A KUBE-SERVICES .*-d 10\.96\.0\.10\/32 .*-j KUBE-SVC-/m);
  expect(l.exec(l.nodeNamespace, ['ip', '-o', 'link', 'show', 'type', 'bridge']).stdout.trim()).toBe('');
  expect(l.exec(l.nodeNamespace, ['ip', 'route', 'show', `${l.pod('be0').ip}/32`]).stdout).toContain(`dev ${l.pod('be0').veth}`);
});

test('ClusterIP: 300 connections all succeed and reach every endpoint; no endpoints: refused; UDP answered', async () => {
  const l = theLab();
  const web = DEMO_SERVICES.web;
  const report = await l.connect('client', { protocol: 'tcp', host: web.clusterIP, port: web.port, count: 300, concurrency: 8 });
  expect(report.failures).toEqual([]);
  expect(Object.keys(report.counts).sort()).toEqual(['be0', 'be1', 'be2']);
  const empty = DEMO_SERVICES.empty;
  const refused = await l.connect('client', { protocol: 'tcp', host: empty.clusterIP, port: empty.port, count: 2 });
  expect(refused.results.map((r) => (r.ok ? 'answered' : r.error.message))).toEqual(['ECONNREFUSED', 'ECONNREFUSED']);
  const dns = DEMO_SERVICES.dns;
  const udp = await l.connect('client', { protocol: 'udp', host: dns.clusterIP, port: dns.port, count: 10 });
  expect(udp.failures).toEqual([]);
  expect(l.ping('client', web.clusterIP).replied).toBe(false);
});

test('NodePort: answered with source NAT to the node', async () => {
  const l = theLab();
  const report = await l.connect('client', { protocol: 'tcp', host: NODE_IP, port: DEMO_SERVICES.nodeport.nodePort, count: 10 });
  expect(report.failures).toEqual([]);
  expect(new Set(report.results.map((r) => (r.ok ? r.value.peer.split(':')[0] : '')))).toEqual(new Set([POD_GATEWAY]));
});

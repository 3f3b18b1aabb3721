// The kube-proxies of nodes 2..N against a real API server over HTTPS (the serving certificate
// as the CA, as `kubesvc up` gives it): each writes its rules under <data-dir>/nodes/<node>/
// with its own node's view of an externalTrafficPolicy: Local Service, each holds its own watch
// connections, and stopNodeProxies closes every one of them while the API still runs; the same
// on this thread (workers: 0) and in worker threads.
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { parseServiceNetworking, type EndpointSlice, type Service } from '@kubesvc/api-types';
import { generateServingCertificate, openRegistry, silentLogger, startApiServer, type ApiServer } from '@kubesvc/apiserver';
import { openMemoryStore, systemClock, type Store } from '@kubesvc/store';
import { nodeDataDir, startNodeProxies, stopNodeProxies, type NodeProxies } from './node-proxies.js';

const TOKEN = 'node-proxies-test';
let cleanup: (() => Promise<void>)[] = [];

afterEach(async () => {
  for (const c of cleanup.reverse()) await c();
  cleanup = [];
});

async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 400; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: last seen ${JSON.stringify(last)}`);
}

it.each([
  { workers: 0, where: 'on this thread' },
  { workers: 2, where: 'in 2 worker threads' },
])('each node past the first gets a kube-proxy on its own watches ($where), with its own rules; stopping closes every watch while the API runs', async ({ workers }) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubesvc-node-proxies-'));
  cleanup.push(() => Promise.resolve(rmSync(dataDir, { recursive: true, force: true })));
  const store: Store = openMemoryStore({ clock: systemClock });
  cleanup.push(() => store.close());
  const opened = await openRegistry({ store, clock: systemClock, seed: 1, serviceClusterIPRanges: ['10.96.0.0/24'], serviceNodePortRange: '30000-32767' });
  if (!opened.ok) throw new Error(opened.error.message);
  const registry = opened.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const cert = await generateServingCertificate({ ips: ['127.0.0.1'], dnsNames: ['localhost'] });
  const server: ApiServer = await startApiServer({ registry, token: TOKEN, tls: cert, logger: silentLogger });
  cleanup.push(() => server.close());
  const networking = parseServiceNetworking({ serviceClusterIPRange: '10.96.0.0/24', serviceNodePortRange: '30000-32767' });
  if (!networking.ok) throw new Error(networking.error.message);

  // One pod endpoint, on node-2; the Service keeps external traffic on the endpoint's node.
  const svc = await registry.create<Service>('services', 'default', {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'web' },
    spec: { type: 'NodePort', externalTrafficPolicy: 'Local', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080, nodePort: 30080, protocol: 'TCP' }] },
  });
  if (!svc.ok) throw new Error(svc.error.message);
  const slice = await registry.create<EndpointSlice>('endpointslices', 'default', {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
    addressType: 'IPv4',
    endpoints: [{ addresses: ['10.244.1.2'], conditions: { ready: true }, nodeName: 'node-2' }],
    ports: [{ port: 8080, protocol: 'TCP' }],
  });
  if (!slice.ok) throw new Error(slice.error.message);

  const nodes = [
    { name: 'node-2', podCIDR: '10.244.1.0/24', internalIP: '127.0.0.2', labels: { 'topology.kubernetes.io/zone': 'b' }, cpu: '4' },
    { name: 'node-3', podCIDR: '10.244.2.0/24', internalIP: '127.0.0.3', labels: { 'topology.kubernetes.io/zone': 'c' }, cpu: '4' },
  ];
  // Stopped by cleanup too if the test fails before it stops them.
  const held: { started?: NodeProxies } = {};
  cleanup.push(() => (held.started === undefined ? Promise.resolve() : stopNodeProxies(held.started)));
  const started = await startNodeProxies({
    workers,
    nodes,
    apiURL: server.url,
    token: TOKEN,
    ca: cert.cert,
    dataDir,
    proxyMode: 'iptables',
    clusterCIDR: '10.244.0.0/16',
    serviceNetworking: networking.value,
    preferSameTrafficDistribution: false,
    logger: silentLogger,
  });
  held.started = started;
  const proxies = started.proxies;
  expect(started.workers).toBe(workers);
  expect(proxies.map((p) => [p.nodeName, p.rules])).toEqual([
    ['node-2', join(dataDir, 'nodes', 'node-2', 'iptables', 'rules.txt')],
    ['node-3', join(dataDir, 'nodes', 'node-3', 'iptables', 'rules.txt')],
  ]);
  expect(nodeDataDir(dataDir, 'node-3')).toBe(join(dataDir, 'nodes', 'node-3'));
  // Each is its own node: its name and IP in the proxier's settings (on this thread, where the agents are at hand).
  if (workers === 0) {
    expect(proxies.map((p) => [p.agent?.nodeName, p.agent?.proxierConfig?.nodeIP])).toEqual([
      ['node-2', '127.0.0.2'],
      ['node-3', '127.0.0.3'],
    ]);
  } else {
    expect(proxies.map((p) => [p.agent, p.worker])).toEqual([
      [undefined, 0],
      [undefined, 1],
    ]);
  }

  // The first sync is made before start resolves, from the first LIST.
  const node2 = readFileSync(proxies[0]?.rules ?? '', 'utf8');
  const node3 = readFileSync(proxies[1]?.rules ?? '', 'utf8');
  const dropLine = '-A KUBE-EXTERNAL-SERVICES -m comment --comment "default/web has no local endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 30080 -j DROP';
  expect(node2).toMatch(/^-A KUBE-EXT-[A-Z0-9]+ -j KUBE-SVL-[A-Z0-9]+$/m);
  expect(node2).not.toContain(dropLine);
  expect(node3).toContain(dropLine);
  expect(node3).not.toContain('KUBE-SVL-');

  // Two watches (Services, EndpointSlices) per kube-proxy.
  await until('the watches open', () => server.stats(), (s) => s.connections >= 4);
  // A change reaches every node through its own watch: the endpoint moves to node-3.
  const moved = await registry.update<EndpointSlice>('endpointslices', 'default', 'web-1', { ...slice.value, endpoints: [{ addresses: ['10.244.2.2'], conditions: { ready: true }, nodeName: 'node-3' }] });
  if (!moved.ok) throw new Error(moved.error.message);
  const after = await until(
    'both nodes see the endpoint on node-3',
    async () => proxies.map((p) => readFileSync(p.rules, 'utf8')),
    ([a, b]) => (a ?? '').includes('10.244.2.2:8080') && (b ?? '').includes('10.244.2.2:8080'),
  );
  expect(after[0]).toContain(dropLine);
  expect(after[1]).not.toContain(dropLine);
  expect(after[1]).toMatch(/^-A KUBE-EXT-[A-Z0-9]+ -j KUBE-SVL-[A-Z0-9]+$/m);

  await stopNodeProxies(started);
  const stats = await until('every watch connection closed', () => server.stats(), (s) => s.connections === 0);
  expect(stats.connections).toBe(0);
  expect(existsSync(join(dataDir, 'iptables'))).toBe(false);
}, 60_000);

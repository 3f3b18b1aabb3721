// The node agent end to end on 127.0.0.1: a real SQLite store, the registry, an informer, the
// agent's DNS server asked by the real dig, and the pod environment. The iptables and userspace
// modes have their own files.
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';
import type { Service } from '@kubesvc/api-types';
import { afterEach, describe, expect, it } from 'vitest';
import { systemClock, virtualClock } from '@kubesvc/store';
import { startNodeAgent, type NodeAgent, type NodeAgentOptions } from './node-agent.js';
import { netnsDataplane } from './netns/index.js';
import { dig, endpointSlice, must, openTestCluster, poll, revisionOf, service, type TestCluster } from './node-agent.fixtures.js';

let cluster: TestCluster | undefined;
let agent: NodeAgent | undefined;

afterEach(async () => {
  await agent?.stop();
  agent = undefined;
  await cluster?.close();
  cluster = undefined;
});

async function start(options: Partial<NodeAgentOptions> = {}): Promise<{ cluster: TestCluster; agent: NodeAgent; logs: string[] }> {
  cluster = await openTestCluster(options.clock ?? systemClock);
  const logs: string[] = [];
  const started = await startNodeAgent({
    source: cluster.informer,
    clock: systemClock,
    logger: { log: (_level, message) => logs.push(message) },
    nodeName: 'node-1',
    nodeIP: '192.0.2.10',
    clusterCIDR: '10.244.0.0/16',
    proxyMode: 'none',
    dnsPort: 0,
    ...options,
  });
  if (!started.ok) throw new Error(started.error.message);
  agent = started.value;
  return { cluster, agent, logs };
}

function dnsPort(a: NodeAgent): number {
  if (a.dns === undefined) throw new Error('no DNS server');
  return a.dns.port;
}

describe('cluster DNS from live objects', () => {
  it('answers for a Service created after the agent started, within a generous bound of the informer seeing it, and the measured latency is reported', async () => {
    const { cluster: c, agent: a } = await start();
    const port = dnsPort(a);
    expect((await dig(port, 'web.default.svc.cluster.local', 'A')).status).toBe('NXDOMAIN');

    // The moment the informer applies the new Service, measured by a listener of the same informer.
    let seenAt: number | undefined;
    const off = c.informer.onChange((change) => {
      if (change.resource === 'services' && change.object.metadata?.name === 'web') seenAt ??= performance.now();
    });
    const created = await must(c.registry.create('services', 'default', service('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] })));
    const ip = created.spec?.clusterIP ?? '';
    expect(ip).toMatch(/^10\.96\.0\.\d+$/);
    const answered = await poll(async () => {
      const r = await dig(port, '+norecurse', 'web.default.svc.cluster.local', 'A');
      return r.answers.length > 0 ? { r, at: performance.now() } : undefined;
    }, 2_000);
    off();
    expect(answered?.r.answers).toStrictEqual([`web.default.svc.cluster.local. 30 IN A ${ip}`]);
    expect(seenAt).toBeDefined();
    // The swap itself: the agent's own figure, from the informer change to the zone in the server.
    const rebuild = a.lastDnsRebuild();
    expect(rebuild?.revision).toBeGreaterThanOrEqual(revisionOf(created));
    expect(a.dnsRevision()).toBeGreaterThanOrEqual(revisionOf(created));
    // Not a timing assertion (the machine is shared): the figures are recorded by the bench.
    expect((answered?.at ?? Infinity) - (seenAt ?? 0)).toBeLessThan(2_000);
  });

  it('serves what CoreDNS serves for the objects: SRV and PTR of a ClusterIP Service, a headless Service\'s endpoints, an ExternalName CNAME, and NXDOMAIN after a delete', async () => {
    const { cluster: c, agent: a } = await start();
    const port = dnsPort(a);
    const web = await must(c.registry.create('services', 'default', service('web', { clusterIP: '10.96.0.20', selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] })));
    await must(c.registry.create('services', 'default', service('db', { clusterIP: 'None', selector: { app: 'db' }, ports: [{ name: 'pg', port: 5432 }] })));
    await must(c.registry.create('endpointslices', 'default', endpointSlice('db', ['10.244.1.5', '10.244.2.6'], [{ name: 'pg', port: 5432, protocol: 'TCP' }], { hostnames: ['db-0', undefined as unknown as string] })));
    const ext = await must(c.registry.create('services', 'default', service('search', { type: 'ExternalName', externalName: 'search.example.com' })));
    await c.informer.waitFor(revisionOf(ext));
    const ready = await poll(async () => ((await dig(port, 'search.default.svc.cluster.local', 'CNAME')).answers.length > 0 ? true : undefined), 2_000);
    expect(ready).toBe(true);

    expect((await dig(port, '_http._tcp.web.default.svc.cluster.local', 'SRV')).answers).toStrictEqual(['_http._tcp.web.default.svc.cluster.local. 30 IN SRV 0 100 80 web.default.svc.cluster.local.']);
    expect((await dig(port, '-x', '10.96.0.20')).answers).toStrictEqual(['20.0.96.10.in-addr.arpa. 30 IN PTR web.default.svc.cluster.local.']);
    // A headless Service answers with its ready endpoints; one with a hostname also has its own name.
    expect([...(await dig(port, 'db.default.svc.cluster.local', 'A')).answers].sort()).toStrictEqual(['db.default.svc.cluster.local. 30 IN A 10.244.1.5', 'db.default.svc.cluster.local. 30 IN A 10.244.2.6']);
    expect((await dig(port, 'db-0.db.default.svc.cluster.local', 'A')).answers).toStrictEqual(['db-0.db.default.svc.cluster.local. 30 IN A 10.244.1.5']);
    expect((await dig(port, 'search.default.svc.cluster.local', 'CNAME')).answers).toStrictEqual(['search.default.svc.cluster.local. 30 IN CNAME search.example.com.']);
    // pods insecure (kubeadm's Corefile): a pod name answers with the address it spells.
    expect((await dig(port, '10-244-1-5.default.pod.cluster.local', 'A')).answers).toStrictEqual(['10-244-1-5.default.pod.cluster.local. 30 IN A 10.244.1.5']);

    const deleted = await must(c.registry.delete<Service>('services', 'default', 'web'));
    expect(deleted.object.metadata.name).toBe('web');
    const gone = await poll(async () => ((await dig(port, 'web.default.svc.cluster.local', 'A')).status === 'NXDOMAIN' ? true : undefined), 2_000);
    expect(gone).toBe(true);
    expect(web.spec?.clusterIP).toBe('10.96.0.20');
  });

  it('coalesces a burst of changes into one rebuild on the virtual clock, and builds nothing before coalesceMs', async () => {
    const clock = virtualClock(Date.UTC(2026, 0, 1));
    const { cluster: c, agent: a, logs } = await start({ clock, dns: { coalesceMs: 10 } });
    const swapsBefore = logs.filter((l) => l.startsWith('dns zone swapped ')).length;
    let last = 0;
    for (const name of ['a', 'b', 'c']) last = revisionOf(await must(c.registry.create('services', 'default', service(name, { selector: { app: name }, ports: [{ port: 80 }] }))));
    await c.informer.waitFor(last);
    expect(a.dnsZone()?.services.has('a.default')).toBe(false);
    clock.advance(9);
    expect(a.dnsZone()?.services.has('a.default')).toBe(false);
    clock.advance(1);
    const zone = a.dnsZone();
    expect(['a', 'b', 'c'].map((n) => zone?.services.has(`${n}.default`))).toStrictEqual([true, true, true]);
    expect(logs.filter((l) => l.startsWith('dns zone swapped ')).length).toBe(swapsBefore + 1);
    expect(logs.at(-1)).toMatch(/^dns zone swapped revision=\d+ services=3 buildMs=[\d.]+ latencyMs=10$/);
    expect(a.lastDnsRebuild()?.latencyMs).toBe(10);
    expect(a.dnsRevision()).toBe(last);
  });
});

describe('pod environment', () => {
  it('gives the variables kubelet injects: the namespace\'s Services and default/kubernetes, with the Docker-link set', async () => {
    const { cluster: c, agent: a } = await start();
    await must(c.registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } }));
    await must(c.registry.create('services', 'default', service('kubernetes', { clusterIP: '10.96.0.1', ports: [{ name: 'https', port: 443, protocol: 'TCP' }] })));
    await must(c.registry.create('services', 'shop', service('redis-master', { clusterIP: '10.96.0.11', selector: { app: 'redis' }, ports: [{ port: 6379, protocol: 'TCP' }] }, 'shop')));
    const other = await must(c.registry.create('services', 'default', service('other', { clusterIP: '10.96.0.12', selector: { app: 'o' }, ports: [{ port: 80 }] })));
    await c.informer.waitFor(revisionOf(other));

    const env = Object.fromEntries(a.podEnvironment('shop').map((v) => [v.name, v.value]));
    // The variables of the redis-master example in the Kubernetes documentation ("Discovering services").
    expect(env).toMatchObject({
      REDIS_MASTER_SERVICE_HOST: '10.96.0.11',
      REDIS_MASTER_SERVICE_PORT: '6379',
      REDIS_MASTER_PORT: 'tcp://10.96.0.11:6379',
      REDIS_MASTER_PORT_6379_TCP: 'tcp://10.96.0.11:6379',
      REDIS_MASTER_PORT_6379_TCP_PROTO: 'tcp',
      REDIS_MASTER_PORT_6379_TCP_PORT: '6379',
      REDIS_MASTER_PORT_6379_TCP_ADDR: '10.96.0.11',
      KUBERNETES_SERVICE_HOST: '10.96.0.1',
      KUBERNETES_SERVICE_PORT: '443',
      KUBERNETES_SERVICE_PORT_HTTPS: '443',
    });
    // A Service of another namespace is not there; with enableServiceLinks off only the master's are.
    expect(Object.keys(env).some((k) => k.startsWith('OTHER_'))).toBe(false);
    const noLinks = a.podEnvironmentOf({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', namespace: 'shop' }, spec: { enableServiceLinks: false, containers: [{ name: 'c', image: 'x' }] } });
    expect(noLinks.map((v) => v.name)).toStrictEqual([
      'KUBERNETES_SERVICE_HOST',
      'KUBERNETES_SERVICE_PORT',
      'KUBERNETES_SERVICE_PORT_HTTPS',
      'KUBERNETES_PORT',
      'KUBERNETES_PORT_443_TCP',
      'KUBERNETES_PORT_443_TCP_PROTO',
      'KUBERNETES_PORT_443_TCP_PORT',
      'KUBERNETES_PORT_443_TCP_ADDR',
    ]);
  });
});

describe('configuration and stop', () => {
  it('refuses settings that cannot work with an error value', async () => {
    cluster = await openTestCluster(systemClock);
    const base = { source: cluster.informer, clock: systemClock, nodeName: 'n', dnsPort: false as const };
    const bad = await startNodeAgent({ ...base, nodeIP: '192.0.2.300', proxyMode: 'none' });
    expect(bad.ok ? undefined : bad.error).toStrictEqual({ _tag: 'ErrNodeAgentConfig', message: 'nodeIP: "192.0.2.300" is not an IP address' });
    const noDir = await startNodeAgent({ ...base, nodeIP: '192.0.2.10' });
    expect(noDir.ok ? undefined : noDir.error.message).toBe('the iptables proxy mode needs a dataDir for its rules files');
    const netnsUserspace = await startNodeAgent({ ...base, nodeIP: '192.0.2.10', proxyMode: 'userspace', dataplane: netnsDataplane() });
    expect(netnsUserspace.ok ? undefined : netnsUserspace.error.message).toBe('--dataplane netns needs the iptables or nftables proxy mode');
  });

  it('a DNS port already taken is an exception, and nothing is left open', async () => {
    cluster = await openTestCluster(systemClock);
    const taken = createSocket('udp4');
    await new Promise<void>((resolve) => taken.bind(0, '127.0.0.1', resolve));
    try {
      await expect(startNodeAgent({ source: cluster.informer, clock: systemClock, nodeName: 'n', nodeIP: '192.0.2.10', proxyMode: 'none', dnsPort: taken.address().port })).rejects.toThrow(/EADDRINUSE/);
    } finally {
      await new Promise<void>((resolve) => taken.close(() => resolve()));
    }
  });

  it('stop closes the DNS sockets (the port can be bound again), cancels its timers and is idempotent', async () => {
    const clock = virtualClock(0);
    const { cluster: c, agent: a } = await start({ clock });
    const port = dnsPort(a);
    const s = await must(c.registry.create('services', 'default', service('x', { selector: { app: 'x' }, ports: [{ port: 80 }] })));
    await c.informer.waitFor(revisionOf(s));
    expect(clock.pendingTimers()).toBe(1); // the DNS rebuild waiting for coalesceMs
    await a.stop();
    await a.stop();
    expect(clock.pendingTimers()).toBe(0);
    // Both the UDP and the TCP port are free again.
    const udp = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      udp.once('error', reject);
      udp.bind(port, '127.0.0.1', () => resolve());
    });
    await new Promise<void>((resolve) => udp.close(() => resolve()));
    const tcp = createServer();
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(port, '127.0.0.1', () => resolve());
    });
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
    agent = undefined;
  });
});

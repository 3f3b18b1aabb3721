// Kube-proxies on worker threads: the nodes spread round robin over the workers, each agent on
// its own watch through the API (the server counts one watcher per node and resource), each
// node's rules written, and the workers' metrics observed on this thread's registry under each
// node's label.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry as PromRegistry } from 'prom-client';
import { afterEach, describe, expect, it } from 'vitest';
import type { EndpointSlice } from '@kubesvc/api-types';
import { openRegistry, startApiServer, type ApiServer } from '@kubesvc/apiserver';
import { openMemoryStore, systemClock, type Store } from '@kubesvc/store';
import { createProxyMetrics } from '../proxy-metrics.js';
import { endpointSlice, must, poll, service } from '../node-agent.fixtures.js';
import { assignNodes, defaultProxyWorkers, startProxyWorkers, type ProxyWorkers } from './proxy-workers.js';

const TOKEN = 'workers-token';

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

describe('assignNodes and defaultProxyWorkers', () => {
  it('deals the nodes round robin over at most one worker per node', () => {
    expect(assignNodes(['a', 'b', 'c', 'd', 'e'], 2)).toStrictEqual([['a', 'c', 'e'], ['b', 'd']]);
    expect(assignNodes(['a', 'b'], 5)).toStrictEqual([['a'], ['b']]);
    expect(assignNodes([], 3)).toStrictEqual([]);
  });

  it('takes one worker per core, at least 2, at most one per node', () => {
    expect(defaultProxyWorkers(100, 2)).toBe(2);
    expect(defaultProxyWorkers(100, 1)).toBe(2);
    expect(defaultProxyWorkers(100, 8)).toBe(8);
    expect(defaultProxyWorkers(3, 8)).toBe(3);
    expect(defaultProxyWorkers(1, 8)).toBe(1);
    expect(defaultProxyWorkers(0, 8)).toBe(0);
  });
});

describe('startProxyWorkers', () => {
  it('runs 5 nodes\' kube-proxies in 2 workers, each on its own watch; every node writes the rules of a new Service, and /metrics has each node\'s syncs and network programming latency', async () => {
    const store: Store = openMemoryStore({ clock: systemClock });
    cleanups.push(() => store.close());
    const opened = await openRegistry({ store, clock: systemClock, seed: 3, serviceClusterIPRanges: ['10.96.0.0/24'] });
    if (!opened.ok) throw new Error(opened.error.message);
    const registry = opened.value;
    await must(registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
    const server: ApiServer = await startApiServer({ registry, token: TOKEN, host: '127.0.0.1', port: 0 });
    cleanups.push(() => server.close());
    const dir = mkdtempSync(join(tmpdir(), 'kubesvc-proxy-workers-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const prom = new PromRegistry();
    const logs: string[] = [];
    const names = ['node-1', 'node-2', 'node-3', 'node-4', 'node-5'];
    const workers: ProxyWorkers = await startProxyWorkers({
      nodes: names.map((name, i) => ({ name, internalIP: `172.16.0.${i + 1}`, dataDir: join(dir, name) })),
      workers: 2,
      apiURL: server.url,
      token: TOKEN,
      proxyMode: 'iptables',
      clusterCIDR: '10.244.0.0/16',
      metrics: createProxyMetrics(prom),
      logger: { log: (level, line) => logs.push(`${level} ${line}`) },
    });
    cleanups.push(() => workers.stop());
    expect(workers.workers).toBe(2);
    expect(workers.nodes.map((n) => [n.nodeName, n.worker])).toStrictEqual([['node-1', 0], ['node-2', 1], ['node-3', 0], ['node-4', 1], ['node-5', 0]]);
    expect(workers.nodes[1]?.rules).toBe(join(dir, 'node-2', 'iptables', 'rules.txt'));

    await must(registry.create('services', 'default', service('web', { clusterIP: '10.96.0.20', ports: [{ name: 'http', port: 80 }] })));
    const slice: EndpointSlice = endpointSlice('web', ['10.244.1.5'], [{ name: 'http', port: 8080, protocol: 'TCP' }]);
    const created = await must(registry.create('endpointslices', 'default', { ...slice, metadata: { ...slice.metadata, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': new Date().toISOString() } } }));
    const revision = Number(created.metadata.resourceVersion);

    let last: unknown;
    const applied = await poll(async () => {
      const stats = await workers.stats();
      last = stats;
      const nodes = stats.flatMap((s) => s.nodes);
      return nodes.length === 5 && nodes.every((n) => n.appliedRevision >= revision) ? nodes : undefined;
    }, 30_000, 50);
    expect(applied, JSON.stringify(last)).toBeDefined();
    // The files are written just after the sync that applied the slice.
    const files = await poll(async () => {
      const texts = workers.nodes.map((n) => readFileSync(n.rules, 'utf8'));
      return texts.every((t) => t.includes('-A KUBE-SEP-')) ? texts : undefined;
    }, 10_000, 50);
    expect(files).toHaveLength(5);
    expect(readFileSync(join(dir, 'node-4', 'iptables', 'rules.txt'), 'utf8')).toContain('--comment "default/web:http -> 10.244.1.5:8080"');
    // Each node's source saw the slice on its own watch.
    for (const n of applied ?? []) expect(n.events.endpointslices).toBeGreaterThanOrEqual(1);

    // The metrics reach this thread's registry, one series per node.
    let text = '';
    const observed = await poll(async () => {
      text = await prom.metrics();
      return names.every((n) => new RegExp(`^kubeproxy_network_programming_duration_seconds_count\\{node="${n}"\\} [1-9]`, 'm').test(text)) ? true : undefined;
    }, 10_000, 50);
    expect(observed, text).toBe(true);
    for (const n of names) {
      expect(text).toMatch(new RegExp(`^kubeproxy_sync_proxy_rules_duration_seconds_count\\{node="${n}"\\} [2-9]`, 'm'));
      expect(text).toMatch(new RegExp(`^kubeproxy_sync_proxy_rules_last_timestamp_seconds\\{node="${n}"\\} \\d`, 'm'));
    }
    expect(logs.some((l) => l.startsWith('info iptables sync mode="partial"'))).toBe(true);
    expect(logs.filter((l) => l.startsWith('error'))).toStrictEqual([]);

    await workers.stop();
    const stats = await workers.stats();
    expect(stats.flatMap((s) => s.nodes)).toStrictEqual([]);
  }, 60_000);

  it('a worker that dies is logged and its agents start again in a fresh worker, each listing again', async () => {
    const store: Store = openMemoryStore({ clock: systemClock });
    cleanups.push(() => store.close());
    const opened = await openRegistry({ store, clock: systemClock, seed: 3, serviceClusterIPRanges: ['10.96.0.0/24'] });
    if (!opened.ok) throw new Error(opened.error.message);
    const registry = opened.value;
    await must(registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
    const server: ApiServer = await startApiServer({ registry, token: TOKEN, host: '127.0.0.1', port: 0 });
    cleanups.push(() => server.close());
    const dir = mkdtempSync(join(tmpdir(), 'kubesvc-proxy-workers-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const logs: string[] = [];
    const workers = await startProxyWorkers({
      nodes: ['node-a', 'node-b'].map((name, i) => ({ name, internalIP: `172.16.0.${i + 1}`, dataDir: join(dir, name) })),
      workers: 2,
      apiURL: server.url,
      token: TOKEN,
      proxyMode: 'iptables',
      logger: { log: (level, line) => logs.push(`${level} ${line}`) },
    });
    cleanups.push(() => workers.stop());
    await workers.terminateWorker(1);
    expect(logs.filter((l) => l.startsWith('error'))).toStrictEqual([expect.stringMatching(/^error kube-proxy worker exited, starting its agents again worker=1 code=1 nodes=1 restartInMs=1000$/)]);
    // While it is down, a new Service: node-b's fresh agent lists it.
    await must(registry.create('services', 'default', service('late', { clusterIP: '10.96.0.40', ports: [{ name: 'http', port: 80 }] })));
    let last: unknown;
    const back = await poll(async () => {
      const stats = await workers.stats();
      last = { stats, restarts: workers.restarts };
      const b = stats[1]?.nodes[0];
      return workers.restarts === 1 && b?.nodeName === 'node-b' ? b : undefined;
    }, 30_000, 50);
    expect(back, JSON.stringify(last)).toBeDefined();
    const rules = await poll(async () => {
      const text = readFileSync(join(dir, 'node-b', 'iptables', 'rules.txt'), 'utf8');
      return text.includes('default/late:http has no endpoints') ? text : undefined;
    }, 10_000, 50);
    expect(rules).toBeDefined();
  }, 60_000);
});

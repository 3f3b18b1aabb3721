// Bench suite "api-stall": does one hostile request freeze the control plane? `kubesvc up`'s
// control plane (SQLite store, controllers, simulated kubelet) and its HTTP API on 127.0.0.1,
// seeded with the control-plane fuzz world (testkit's fuzzWorld) and 2,000 more Services, with
// the node agent's cluster DNS. While the requests run, one client polls GET /healthz every
// 10 ms and another asks the cluster DNS for web.default.svc.cluster.local every 10 ms, each on
// its own; both record how long every answer took. The API and the DNS server share the one
// event loop, so a request that holds it shows in both.
// - Expensive requests, one at a time, in turn: a Service with a 3,000,000-character label
//   value, a JSON patch of 20 `copy` ops from /metadata into its own annotations (each may
//   double the object), a Service 12,000 levels deep, a merge patch 12,000 levels deep, and a
//   list of every Service. tinybench times each request; the metrics are /healthz's and DNS's
//   worst and 99th-percentile waits meanwhile.
// - A fuzz run: 10,000 of the control-plane fuzz's hostile requests (a fixed seed, sent one at a
//   time, watches cut after 150 ms), made once in the task's setup and reported as metrics
//   (count, per status code, duration, requests/s, /healthz's and DNS's waits); tinybench then
//   times single requests drawn from the same list.
// Bounded: every request has a 120 s limit, the fuzz run stops after 300 s.
import { Resolver } from 'node:dns/promises';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { KubeObject } from '@kubesvc/api-types';
import { standardControllers } from '@kubesvc/controllers';
import { printTable, silentLogger, startApiServer, type ApiServer } from '@kubesvc/apiserver';
import { startControlPlane, startInformer, type ControlPlane, type Informer } from '@kubesvc/runtime';
import { startNodeAgent, type NodeAgent } from '@kubesvc/node-agent';
import { systemClock, type Store } from '@kubesvc/store';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { copyChainPatch, FUZZ_NODE_NAME, FUZZ_NODE_PORT_RANGE, FUZZ_SERVICE_CIDR, fuzzWorld, nestedJson, sampleHostileRequests, sendRaw, type HostileRequest } from '@kubesvc/testkit';
import type { BenchSuite, BenchTask } from './harness.js';

const TOKEN = 'bench-stall-token-0123456789abcdef';
const EXTRA_SERVICES = 2_000;
const POLL_MS = 10;
const REQUEST_TIMEOUT_MS = 120_000;
const FUZZ_REQUESTS = 10_000;
const FUZZ_TIME_LIMIT_MS = 300_000;
const DNS_TIMEOUT_MS = 2_000;

/** Latency samples in ms; the worst and the 99th percentile. */
class Waits {
  samples: number[] = [];
  failures = 0;
  add(ms: number, ok: boolean): void {
    this.samples.push(ms);
    if (!ok) this.failures++;
  }
  reset(): void {
    this.samples = [];
    this.failures = 0;
  }
  max(): number {
    return this.samples.reduce((m, v) => Math.max(m, v), 0);
  }
  p99(): number {
    const sorted = [...this.samples].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? 0;
  }
}

interface Cluster {
  dir: string;
  store: Store;
  plane: ControlPlane;
  api: ApiServer;
  informer: Informer;
  agent: NodeAgent;
  health: Waits;
  dns: Waits;
  stopPollers: () => Promise<void>;
}

let cluster: Promise<Cluster> | undefined;

async function start(): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-stall-'));
  const store = openSqliteStore({ path: join(dir, 'state.db') });
  const node = { name: FUZZ_NODE_NAME, podCIDR: '10.244.0.0/24', internalIP: '192.0.2.10' };
  const started = await startControlPlane({
    store,
    clock: systemClock,
    logger: silentLogger,
    seed: 7,
    // Room for the extra Services beside the fuzz world's /24.
    serviceClusterIPRange: FUZZ_SERVICE_CIDR.replace('/24', '/20'),
    serviceNodePortRange: FUZZ_NODE_PORT_RANGE,
    advertiseAddress: node.internalIP,
    hostname: node.name,
    compactionIntervalMs: 0,
    controllers: standardControllers({ hostName: node.name, nodes: [node] }),
  });
  if (!started.ok) throw new Error(started.error.message);
  const plane = started.value;
  await plane.whenReady();
  const { registry } = plane;
  const world = fuzzWorld();
  for (const name of world.namespaces) await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const [resource, namespace, object] of world.objects) await registry.create(resource, namespace, object as unknown as KubeObject);
  for (let i = 0; i < EXTRA_SERVICES; i++) {
    await registry.create('services', 'alpha', { apiVersion: 'v1', kind: 'Service', metadata: { name: `bulk-${i}`, labels: { bulk: 'yes' } }, spec: { selector: { app: `bulk-${i}` }, ports: [{ port: 80 }] } } as KubeObject);
  }
  await plane.idle();
  const api = await startApiServer({ registry, host: '127.0.0.1', token: TOKEN, ready: () => plane.isReady(), tables: printTable });
  const informer = await startInformer({ store, resources: ['services', 'endpointslices', 'namespaces', 'pods'] });
  const agentStarted = await startNodeAgent({ source: informer, clock: systemClock, nodeName: node.name, nodeIP: node.internalIP, proxyMode: 'none', dnsPort: 0 });
  if (!agentStarted.ok) throw new Error(agentStarted.error.message);
  const agent = agentStarted.value;
  const dnsPort = agent.dns?.port ?? 0;

  const health = new Waits();
  const dns = new Waits();
  let running = true;
  const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
  const healthLoop = (async () => {
    while (running) {
      const t0 = performance.now();
      let ok: boolean;
      try {
        ok = (await sendRaw('127.0.0.1', api.port, { method: 'GET', path: '/healthz' }, { timeoutMs: REQUEST_TIMEOUT_MS })).status === 200;
      } catch {
        ok = false;
      }
      health.add(performance.now() - t0, ok);
      await sleep(POLL_MS);
    }
  })();
  const resolver = new Resolver({ timeout: DNS_TIMEOUT_MS, tries: 1 });
  resolver.setServers([`127.0.0.1:${dnsPort}`]);
  const dnsLoop = (async () => {
    while (running) {
      const t0 = performance.now();
      let ok: boolean;
      try {
        ok = (await resolver.resolve4('web.default.svc.cluster.local')).length > 0;
      } catch {
        ok = false;
      }
      dns.add(performance.now() - t0, ok);
      await sleep(POLL_MS);
    }
  })();
  return {
    dir,
    store,
    plane,
    api,
    informer,
    agent,
    health,
    dns,
    stopPollers: async () => {
      running = false;
      await Promise.all([healthLoop, dnsLoop]);
    },
  };
}

/** Stops everything the suite started; registered to run when the process exits its event loop. */
async function stop(c: Cluster): Promise<void> {
  await c.stopPollers();
  await c.agent.stop();
  c.informer.stop();
  await c.api.close();
  await c.plane.stop();
  await c.store.close();
  rmSync(c.dir, { recursive: true, force: true });
}

async function send(c: Cluster, r: { method: string; path: string; contentType?: string; body?: string; authorization?: string | undefined; accept?: string; watch?: unknown }): Promise<number> {
  const headers: Record<string, string> = {};
  if (r.authorization !== undefined) headers['Authorization'] = r.authorization;
  if (r.contentType !== undefined) headers['Content-Type'] = r.contentType;
  if (r.accept !== undefined) headers['Accept'] = r.accept;
  const hasBody = r.method !== 'GET' && r.method !== 'HEAD' && r.body !== undefined;
  try {
    const res = await sendRaw('127.0.0.1', c.api.port, { method: r.method, path: r.path, headers, ...(hasBody ? { body: r.body } : {}) }, { timeoutMs: REQUEST_TIMEOUT_MS, keepChars: 1024, ...(r.watch === undefined ? {} : { streamMs: 150 }) });
    return res.status;
  } catch {
    return 0;
  }
}

const AUTH = `Bearer ${TOKEN}`;
const BIG = 'a'.repeat(3_000_000);
const EXPENSIVE: readonly { name: string; method: string; path: string; contentType?: string; body?: string; authorization: string }[] = [
  {
    name: 'label3M',
    method: 'POST',
    path: '/api/v1/namespaces/beta/services',
    contentType: 'application/json',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'big', labels: { app: BIG } }, spec: { ports: [{ port: 80 }] } }),
    authorization: AUTH,
  },
  { name: 'copyBomb20', method: 'PATCH', path: '/api/v1/namespaces/beta/services/web', contentType: 'application/json-patch+json', body: copyChainPatch(20, '/metadata', 'copy'), authorization: AUTH },
  {
    name: 'deepCreate12k',
    method: 'POST',
    path: '/api/v1/namespaces/beta/services',
    contentType: 'application/json',
    body: `{"apiVersion":"v1","kind":"Service","metadata":{"name":"deep","labels":${nestedJson(12_000, 'object')}},"spec":{"ports":[{"port":80}]}}`,
    authorization: AUTH,
  },
  { name: 'deepMerge12k', method: 'PATCH', path: '/api/v1/namespaces/beta/services/web', contentType: 'application/merge-patch+json', body: `{"metadata":{"labels":${nestedJson(12_000, 'array')}}}`, authorization: AUTH },
  { name: 'listAll', method: 'GET', path: '/api/v1/services', authorization: AUTH },
];

function expensiveTask(): BenchTask {
  let n = 0;
  const worst = new Map<string, number>();
  const statuses = new Map<string, number>();
  return {
    name: `expensive requests in turn (3M label, 20-op copy patch, 12,000 levels twice, list of ${EXTRA_SERVICES.toLocaleString('en-US')}+ Services) under /healthz and DNS polling`,
    setup: async () => {
      cluster ??= start();
      const c = await cluster;
      c.health.reset();
      c.dns.reset();
    },
    fn: async () => {
      const c = await (cluster ?? Promise.reject(new Error('no cluster')));
      const r = EXPENSIVE[n++ % EXPENSIVE.length];
      if (r === undefined) return;
      const t0 = performance.now();
      const status = await send(c, r);
      worst.set(r.name, Math.max(worst.get(r.name) ?? 0, performance.now() - t0));
      statuses.set(r.name, status);
    },
    metrics: () => {
      return {
        ...pollFigures(latest),
        ...Object.fromEntries([...worst].map(([k, v]) => [`${k}MaxMs`, v])),
        ...Object.fromEntries([...statuses].map(([k, v]) => [`${k}Status`, v])),
      };
    },
  };
}

let latest: Cluster | undefined;

/** The pollers' figures since their last reset. */
function pollFigures(c: Cluster | undefined): Record<string, number> {
  if (c === undefined) return {};
  return {
    healthzMaxMs: c.health.max(),
    healthzP99Ms: c.health.p99(),
    healthzPolls: c.health.samples.length,
    healthzFailed: c.health.failures,
    dnsMaxMs: c.dns.max(),
    dnsP99Ms: c.dns.p99(),
    dnsQueries: c.dns.samples.length,
    dnsFailed: c.dns.failures,
  };
}

/** How many of the fuzz run's slowest requests the suite prints. */
const SLOWEST_SHOWN = 8;

function fuzzTask(): BenchTask {
  let requests: HostileRequest[] = [];
  let n = 0;
  const figures: Record<string, number> = {};
  return {
    name: `fuzz run: ${FUZZ_REQUESTS.toLocaleString('en-US')} hostile requests one at a time (setup), then single requests timed`,
    setup: async () => {
      cluster ??= start();
      const c = await cluster;
      requests = sampleHostileRequests({ token: TOKEN }, FUZZ_REQUESTS, 42);
      c.health.reset();
      c.dns.reset();
      const byStatus = new Map<number, number>();
      const t0 = performance.now();
      let sent = 0;
      // The slowest requests, to name what a long /healthz wait lined up with.
      const slowest: { ms: number; what: string }[] = [];
      for (const r of requests) {
        if (performance.now() - t0 > FUZZ_TIME_LIMIT_MS) break;
        const started = performance.now();
        const status = await send(c, r);
        const ms = performance.now() - started;
        if (slowest.length < SLOWEST_SHOWN || ms > (slowest[slowest.length - 1]?.ms ?? 0)) {
          slowest.push({ ms, what: `${r.family} ${r.method} ${r.path.slice(0, 80)} ${r.contentType ?? ''} body ${r.body?.length ?? 0} chars -> ${status}` });
          slowest.sort((a, b) => b.ms - a.ms);
          slowest.length = Math.min(slowest.length, SLOWEST_SHOWN);
        }
        byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
        sent++;
      }
      process.stdout.write(`api-stall: the ${SLOWEST_SHOWN} slowest requests of the fuzz run:\n${slowest.map((x) => `  ${x.ms.toFixed(1)} ms  ${x.what}`).join('\n')}\n`);
      const seconds = (performance.now() - t0) / 1000;
      Object.assign(figures, pollFigures(c), { fuzzRequests: sent, fuzzSeconds: seconds, fuzzPerSecond: sent / seconds });
      for (const [status, count] of [...byStatus].sort((a, b) => a[0] - b[0])) figures[`status${status === 0 ? 'NoAnswer' : status}`] = count;
    },
    fn: async () => {
      const c = await (cluster ?? Promise.reject(new Error('no cluster')));
      const r = requests[n++ % Math.max(1, requests.length)];
      if (r !== undefined) await send(c, r);
    },
    metrics: () => figures,
  };
}

export function apiStallSuite(): BenchSuite {
  const expensive = expensiveTask();
  const fuzz = fuzzTask();
  const track = (task: BenchTask): BenchTask => ({
    ...task,
    setup: async () => {
      await task.setup?.();
      latest = await cluster;
    },
  });
  return {
    name: 'api-stall',
    description: 'hostile requests against kubesvc up’s control plane while /healthz and the cluster DNS are polled every 10 ms: their worst waits, and a 10,000-request fuzz run',
    tasks: [
      track(expensive),
      {
        ...track(fuzz),
        metrics: () => {
          const figures = fuzz.metrics?.() ?? {};
          // The last task: everything the suite started stops once its figures are read.
          if (cluster !== undefined) void cluster.then(stop);
          return figures;
        },
      },
    ],
  };
}

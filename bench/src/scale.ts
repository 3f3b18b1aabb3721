// Bench suite "scale": the control plane at SIG Scalability's limits, and network programming
// latency measured as upstream measures it (kubeproxy_network_programming_duration_seconds,
// from each EndpointSlice's last-change-trigger-time to the sync that applied it, read from the
// histogram's buckets as Prometheus' histogram_quantile reads them).
//
// One process, as `kubesvc up --nodes N` runs: the store (SQLite in a temp dir, or a real etcd
// started by testkit's startEtcd), the control plane (bootstrap controller, repair loops, the
// standard controllers and the simulated kubelet) on the store timed by /metrics, the HTTPS API,
// and N kube-proxies (iptables mode, files data plane), each fed by its own list and watch
// through the API and recording on the shared /metrics under its node's name. Where `kubesvc up`
// feeds the first node's agent from the in-process informer, here every node goes through the API.
//
// The load: S selectorless Services, each with one EndpointSlice of E ready endpoints written
// directly (the simulated kubelet and the EndpointSlice controller would make 100,000 pods at
// the default size, more than the run's time allows), each slice carrying the trigger time of
// its write as the EndpointSlice controller writes it. Then a churn at a fixed rate for a fixed
// time: each change replaces one endpoint of a Service chosen at random (a pod replaced), and
// every CREATE_DELETE_EVERY-th change creates or deletes a Service of its own.
//
// The sizes are parameters from the environment (defaults: the targets):
//   SCALE_NODES (100), SCALE_SERVICES (10000), SCALE_ENDPOINTS (10), SCALE_RATE (20 changes/s),
//   SCALE_CHURN_SECONDS (120: with the two stores the default run ends within 20 minutes on 2 cores), SCALE_PHASE_LIMIT_SECONDS (1800, a hard limit on each phase),
//   SCALE_SAMPLE_SECONDS (5), SCALE_HEAP_LIMIT_MIB (3072: past it a phase stops early, reported as
//   such, rather than the process running out of memory), SCALE_BACKENDS (sqlite,etcd),
//   SCALE_OUT (bench/results), SCALE_NODE_WORKERS (the worker threads the kube-proxies run in:
//   default one per core, at least 2; 0 runs them on the main thread, as before),
//   SCALE_TABLES_FILES_SECONDS (each agent's rules.txt and rules.save.txt, a render of every
//   Service, at most this often; 0 at every sync; default: the first sync's only, as the run reads
//   last-sync.txt's syncs through the metrics and never the tables files), SCALE_SHARE_OBJECTS
//   (1, the default: the agents of a worker keep one copy of an object parsed at the same
//   resourceVersion; 0: each its own).
// Every run is bounded; its temp dirs and etcd are removed on exit, also on failure.
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { createApiServerMetrics, generateServingCertificate, instrumentStore, startApiServer, type ApiServer, type ApiServerMetrics } from '@kubesvc/apiserver';
import { standardControllers } from '@kubesvc/controllers';
import { createProxyMetrics, defaultProxyWorkers, startApiSource, startNodeAgent, startProxyWorkers, type ApiSource, type NodeAgent, type ProxyWorkers } from '@kubesvc/node-agent';
import { startControlPlane, type ControlPlane } from '@kubesvc/runtime';
import { systemClock, type Store } from '@kubesvc/store';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { fullGC } from './full-gc.js';
import type { ScaleEtcd } from './scale-etcd.js';
import type { BenchSuite, BenchTask } from './harness.js';
import { histogramDelta, histogramQuantile, lineChartSvg, readGauge, readHistogram, type HistogramReading } from './scale-report.js';

export type ScaleBackend = 'sqlite' | 'etcd';

export interface ScaleSize {
  readonly nodes: number;
  readonly services: number;
  readonly endpoints: number;
  /** Endpoint changes per second during the churn. */
  readonly rate: number;
  readonly churnSeconds: number;
  /** A hard limit on each phase (agents' start, load, settle), in seconds. */
  readonly phaseLimitSeconds: number;
  readonly sampleSeconds: number;
  /** The heap (MiB) past which the run stops its phase early and reports what it has: V8's limit here is about 4 GiB. */
  readonly heapLimitMiB: number;
}

/** How the kube-proxies run: in worker threads (0: on the main thread), and how often they render their whole-table files. */
export interface ScaleAgents {
  readonly workers: number;
  readonly tablesFilesSeconds: number;
  /** The agents of a worker share the objects parsed at the same resourceVersion (SCALE_SHARE_OBJECTS, default 1). */
  readonly shareObjects?: boolean;
}

/** SCALE_NODE_WORKERS and SCALE_TABLES_FILES_SECONDS, each a whole number ≥ 0 (the latter Infinity when unset: never after the first sync). */
export function scaleAgentsFromEnv(nodes: number, env: NodeJS.ProcessEnv = process.env): ScaleAgents {
  const read = (name: string, fallback: number): number => {
    const raw = env[name];
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < 0) throw new Error(`${name} must be a whole number of 0 or more, got "${raw}"`);
    return value;
  };
  return { workers: Math.min(nodes, read('SCALE_NODE_WORKERS', defaultProxyWorkers(nodes))), tablesFilesSeconds: read('SCALE_TABLES_FILES_SECONDS', Infinity), shareObjects: read('SCALE_SHARE_OBJECTS', 1) !== 0 };
}

export const SCALE_DEFAULTS: ScaleSize = { nodes: 100, services: 10_000, endpoints: 10, rate: 20, churnSeconds: 120, phaseLimitSeconds: 1800, sampleSeconds: 5, heapLimitMiB: 3072 };

const ENV: Record<keyof ScaleSize, string> = {
  nodes: 'SCALE_NODES',
  services: 'SCALE_SERVICES',
  endpoints: 'SCALE_ENDPOINTS',
  rate: 'SCALE_RATE',
  churnSeconds: 'SCALE_CHURN_SECONDS',
  phaseLimitSeconds: 'SCALE_PHASE_LIMIT_SECONDS',
  sampleSeconds: 'SCALE_SAMPLE_SECONDS',
  heapLimitMiB: 'SCALE_HEAP_LIMIT_MIB',
};

/** The sizes from the environment, each a positive number, the defaults where unset. */
export function scaleSizeFromEnv(env: NodeJS.ProcessEnv = process.env): ScaleSize {
  const out: Record<string, number> = { ...SCALE_DEFAULTS };
  for (const [key, name] of Object.entries(ENV)) {
    const raw = env[name];
    if (raw === undefined || raw === '') continue;
    const value = Number(raw);
    if (!(value > 0) || !Number.isFinite(value)) throw new Error(`${name} must be a number above 0, got "${raw}"`);
    out[key] = value;
  }
  return out as unknown as ScaleSize;
}

const TOKEN = 'scale-bench';
const NAMESPACE = 'default';
const CREATE_DELETE_EVERY = 25;
const LOAD_CONCURRENCY = 16;
const CHURN_IN_FLIGHT = 64;
const AGENT_START_CONCURRENCY = 8;
const NP = 'kubeproxy_network_programming_duration_seconds';
const SYNC = 'kubeproxy_sync_proxy_rules_duration_seconds';
const MiB = 2 ** 20;
const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));
const fileSize = (path: string): number => (existsSync(path) ? statSync(path).size : 0);

/** A pod address for the n-th endpoint ever made: 10.64.0.0/10 holds 4 million. */
function podIP(n: number): string {
  return `10.${64 + ((n >> 16) & 63)}.${(n >> 8) & 255}.${n & 255}`;
}

/** A small seeded generator (mulberry32), so that two runs churn the same Services. */
function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** One reading of the run, every sampleSeconds. */
interface Sample {
  readonly t: number;
  readonly phase: string;
  readonly np: HistogramReading;
  readonly syncSum: number;
  readonly syncCount: number;
  readonly rssMiB: number;
  readonly heapMiB: number;
  readonly dbMiB: number;
  readonly walMiB: number;
  readonly cpuUserS: number;
  readonly cpuSystemS: number;
  readonly watchEvents: number;
  readonly writes: number;
  /** The kube-proxy workers' heaps, summed (0 without workers). */
  readonly workersHeapMiB: number;
}

interface PhaseFigures {
  readonly seconds: number;
  readonly writes: number;
  readonly writesPerSecond: number;
  readonly npCount: number;
  readonly npP50: number;
  readonly npP90: number;
  readonly npP99: number;
  readonly cpuSeconds: number;
  readonly proxySyncSeconds: number;
  readonly syncs: number;
  readonly watchEventsPerSecond: number;
}

class Run {
  readonly dir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-scale-'));
  store: Store | undefined;
  etcd: ScaleEtcd | undefined;
  metrics: ApiServerMetrics | undefined;
  plane: ControlPlane | undefined;
  api: ApiServer | undefined;
  readonly sources: ApiSource[] = [];
  private readonly pending: ApiSource[] = [];
  readonly agents: NodeAgent[] = [];
  proxyWorkers: ProxyWorkers | undefined;
  readonly samples: Sample[] = [];
  readonly phases: Record<string, PhaseFigures> = {};
  readonly figures: Record<string, number> = {};
  writes = 0;
  creates = 0;
  updates = 0;
  deletes = 0;
  conflicts = 0;
  /** Writes the store refused or timed out (an overloaded etcd): counted and reported, the run goes on, as a client that retries later would. */
  failedWrites = 0;
  phase = 'start';
  /** The heap passed heapLimitMiB at a sample: each phase stops early. */
  overHeap = false;
  private sampler: NodeJS.Timeout | undefined;
  private readonly t0 = performance.now();
  private readonly slices = new Map<string, EndpointSlice>();
  private nextEndpoint = 0;

  constructor(
    readonly backend: ScaleBackend,
    readonly size: ScaleSize,
    readonly out: (line: string) => void,
    readonly agentsMode: ScaleAgents = { workers: 0, tablesFilesSeconds: 0 },
  ) {
    const remove = () => rmSync(this.dir, { recursive: true, force: true });
    process.once('exit', remove);
    // An interrupted run (Ctrl-C, a timeout's SIGTERM) removes its dir too, then exits as the signal would.
    for (const signal of ['SIGINT', 'SIGTERM'] as const) {
      process.once(signal, () => {
        remove();
        void this.etcd?.dispose().finally(() => process.exit(128 + (signal === 'SIGINT' ? 2 : 15)));
        if (this.etcd === undefined) process.exit(128 + (signal === 'SIGINT' ? 2 : 15));
      });
    }
  }

  elapsed(): number {
    return (performance.now() - this.t0) / 1000;
  }

  log(text: string): void {
    this.out(`scale[${this.backend}] ${this.elapsed().toFixed(0)}s ${this.phase}: ${text}`);
  }

  async start(): Promise<void> {
    if (this.backend === 'sqlite') {
      this.store = openSqliteStore({ path: join(this.dir, 'state.db') });
    } else {
      this.etcd = await (await import('./scale-etcd.js')).openScaleEtcd();
      this.store = this.etcd.store;
    }
    const store = this.store;
    this.metrics = createApiServerMetrics({ store });
    const nodes = Array.from({ length: this.size.nodes }, (_, i) => ({ name: `node-${i + 1}`, podCIDR: '10.64.0.0/10', labels: {}, internalIP: `172.16.${(i + 1) >> 8}.${(i + 1) & 255}` }));
    const started = await startControlPlane({
      store: instrumentStore(store, this.metrics),
      clock: systemClock,
      serviceClusterIPRange: '10.96.0.0/16',
      advertiseAddress: '127.0.0.1',
      securePort: 6443,
      endpointReconcilerType: 'none',
      hostname: 'node-1',
      controllers: standardControllers({ hostName: 'node-1', nodes }),
    });
    if (!started.ok) throw new Error(started.error.message);
    this.plane = started.value;
    const plane = started.value;
    const cert = await generateServingCertificate({ ips: ['127.0.0.1'] });
    this.api = await startApiServer({ registry: plane.registry, host: '127.0.0.1', port: 0, token: TOKEN, tls: { cert: cert.cert, key: cert.key }, ready: () => plane.isReady(), metrics: this.metrics });
    await plane.whenReady();
    const created = await plane.registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
    if (!created.ok && created.error._tag !== 'AlreadyExists') throw new Error(created.error.message);
    this.sampler = setInterval(() => void this.sample(), this.size.sampleSeconds * 1000);
    await this.startAgents(nodes, cert.cert);
  }

  private async startAgents(nodes: readonly { name: string; internalIP: string }[], ca: string): Promise<void> {
    this.phase = 'agents';
    const url = this.api?.url ?? '';
    const proxyMetrics = createProxyMetrics(this.metrics?.registry ?? (() => { throw new Error('no metrics'); })());
    fullGC();
    const before = process.memoryUsage();
    this.figures.nodeWorkers = this.agentsMode.workers;
    this.figures.tablesFilesSeconds = this.agentsMode.tablesFilesSeconds;
    this.figures.shareObjects = this.agentsMode.shareObjects === false ? 0 : 1;
    if (this.agentsMode.workers > 0) {
      this.proxyWorkers = await startProxyWorkers({
        nodes: nodes.map((n) => ({ name: n.name, internalIP: n.internalIP, dataDir: join(this.dir, 'nodes', n.name) })),
        workers: this.agentsMode.workers,
        apiURL: url,
        token: TOKEN,
        ca,
        proxyMode: 'iptables',
        clusterCIDR: '10.64.0.0/10',
        ...(this.plane === undefined ? {} : { serviceNetworking: this.plane.config.serviceNetworking }),
        tablesFilesIntervalMs: this.agentsMode.tablesFilesSeconds * 1000,
        metrics: proxyMetrics,
        maxOldGenerationSizeMb: this.size.heapLimitMiB + 512,
        shareObjects: this.agentsMode.shareObjects ?? true,
        logger: { log: (level, line) => (level === 'info' ? undefined : this.log(`${level} ${line}`)) },
      });
      fullGC();
      const heaps = await this.proxyWorkers.stats({ gc: true });
      this.figures.heapMiBBeforeAgents = round(before.heapUsed / MiB, 1);
      this.figures.rssMiBBeforeAgents = round(before.rss / MiB, 1);
      this.figures.heapMiBWorkersEmpty = round(heaps.reduce((n, h) => n + h.heapUsed, 0) / MiB, 1);
      this.figures.heapMiBPerAgentEmpty = round(this.figures.heapMiBWorkersEmpty / nodes.length, 2);
      this.figures.arrayBuffersMiBPerAgentEmpty = round(heaps.reduce((n, h) => n + h.arrayBuffers, 0) / MiB / nodes.length, 2);
      this.log(`${nodes.length} kube-proxies started in ${this.proxyWorkers.workers} worker threads, each on its own watch (workers' heaps ${this.figures.heapMiBWorkersEmpty} MiB together, empty cluster, their code included)`);
      return;
    }
    const deadline = performance.now() + this.size.phaseLimitSeconds * 1000;
    for (let i = 0; i < nodes.length; i += AGENT_START_CONCURRENCY) {
      if (performance.now() > deadline) throw new Error(`the agents did not start within ${this.size.phaseLimitSeconds} s (${this.agents.length} of ${nodes.length})`);
      await Promise.all(nodes.slice(i, i + AGENT_START_CONCURRENCY).map(async (node) => {
        const source = await startApiSource({ server: url, token: TOKEN, ca, resources: ['services', 'endpointslices'], name: node.name });
        // Kept at once so that a failure below still stops it; sources[k] feeds agents[k] once both are in.
        this.pending.push(source);
        const dataDir = join(this.dir, 'nodes', node.name);
        mkdirSync(dataDir, { recursive: true });
        const agent = await startNodeAgent({ source, clock: systemClock, nodeName: node.name, nodeIP: node.internalIP, clusterCIDR: '10.64.0.0/10', ...(this.plane === undefined ? {} : { serviceNetworking: this.plane.config.serviceNetworking }), dataDir, proxyMode: 'iptables', dnsPort: false, metrics: proxyMetrics, iptables: { tablesFilesIntervalMs: this.agentsMode.tablesFilesSeconds * 1000 } });
        if (!agent.ok) throw new Error(`${node.name}: ${agent.error.message}`);
        this.pending.splice(this.pending.indexOf(source), 1);
        this.sources.push(source);
        this.agents.push(agent.value);
      }));
    }
    fullGC();
    const after = process.memoryUsage();
    this.figures.heapMiBBeforeAgents = round(before.heapUsed / MiB, 1);
    this.figures.rssMiBBeforeAgents = round(before.rss / MiB, 1);
    this.figures.heapMiBPerAgentEmpty = round((after.heapUsed - before.heapUsed) / MiB / nodes.length, 2);
    this.log(`${this.agents.length} kube-proxies started, each on its own watch (${this.figures.heapMiBPerAgentEmpty} MiB of heap each, empty cluster)`);
  }

  private slice(name: string, endpoints: readonly number[]): EndpointSlice {
    return {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: {
        name: `${name}-1`,
        namespace: NAMESPACE,
        labels: { 'kubernetes.io/service-name': name, 'endpointslice.kubernetes.io/managed-by': 'scale-bench' },
        annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': new Date().toISOString() },
      },
      addressType: 'IPv4',
      endpoints: endpoints.map((n) => ({ addresses: [podIP(n)], conditions: { ready: true }, nodeName: `node-${(n % this.size.nodes) + 1}` })),
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    };
  }

  /** A selectorless Service and its one slice of `endpoints` ready endpoints. */
  async createService(name: string): Promise<void> {
    const registry = this.plane?.registry;
    if (registry === undefined) throw new Error('not started');
    const svc = await registry.create('services', NAMESPACE, { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } } as Service);
    this.writes++;
    if (!svc.ok) {
      this.writeFailed(`create service ${name}`, svc.error.message);
      return;
    }
    this.creates++;
    const endpoints = Array.from({ length: this.size.endpoints }, () => this.nextEndpoint++);
    const slice = await registry.create('endpointslices', NAMESPACE, this.slice(name, endpoints));
    this.writes++;
    if (!slice.ok) {
      this.writeFailed(`create slice of ${name}`, slice.error.message);
      return;
    }
    this.creates++;
    this.slices.set(name, slice.value);
  }

  /** A write that failed for another reason than a conflict: the first few are logged. */
  private writeFailed(what: string, message: string): void {
    this.failedWrites++;
    if (this.failedWrites <= 5) this.log(`${what} failed: ${message} (counted in failedWrites; the run goes on)`);
  }

  async deleteService(name: string): Promise<void> {
    const registry = this.plane?.registry;
    if (registry === undefined) throw new Error('not started');
    this.slices.delete(name);
    for (const [resource, object] of [['endpointslices', `${name}-1`], ['services', name]] as const) {
      const deleted = await registry.delete(resource, NAMESPACE, object);
      this.writes++;
      if (deleted.ok || deleted.error._tag === 'NotFound') this.deletes++;
      else this.writeFailed(`delete ${resource} ${object}`, deleted.error.message);
    }
  }

  /** One pod replaced: one endpoint of the Service's slice gives way to a new address. */
  async replaceEndpoint(name: string, which: number): Promise<number | undefined> {
    const registry = this.plane?.registry;
    const current = this.slices.get(name);
    if (registry === undefined || current === undefined) return undefined;
    const endpoints = [...(current.endpoints ?? [])];
    const n = this.nextEndpoint++;
    endpoints[which % endpoints.length] = { addresses: [podIP(n)], conditions: { ready: true }, nodeName: `node-${(n % this.size.nodes) + 1}` };
    const fresh = this.slice(name, []);
    const next: EndpointSlice = { ...current, metadata: { ...current.metadata, annotations: fresh.metadata.annotations }, endpoints };
    const updated = await registry.update('endpointslices', NAMESPACE, next.metadata.name ?? '', next);
    this.writes++;
    if (!updated.ok) {
      if (updated.error._tag === 'Conflict') this.conflicts++;
      else this.writeFailed(`update slice of ${name}`, updated.error.message);
      return undefined;
    }
    this.updates++;
    if (this.slices.has(name)) this.slices.set(name, updated.value);
    return Number(updated.value.metadata.resourceVersion);
  }

  /** The settle marker's write (see settle()), tried again a few times if it fails; Infinity if it never lands (then settle waits out its limit). */
  private async marker(): Promise<number> {
    for (let attempt = 0; attempt < 5; attempt++) {
      const rv = await this.replaceEndpoint('svc-0', 0);
      if (rv !== undefined) return rv;
      await sleep(1_000);
    }
    return Infinity;
  }

  async load(): Promise<void> {
    this.phase = 'load';
    const deadline = performance.now() + this.size.phaseLimitSeconds * 1000;
    let next = 0;
    const progressEvery = Math.max(1, Math.round(this.size.services / 10));
    const worker = async () => {
      while (next < this.size.services && !this.overHeap) {
        if (performance.now() > deadline) {
          // Stopped at the limit: the rest of the run goes on with the Services loaded so far.
          if (this.figures.loadStoppedAtLimit === undefined) this.log(`the load did not finish within ${this.size.phaseLimitSeconds} s (${next} of ${this.size.services} Services): going on with those`);
          this.figures.loadStoppedAtLimit = 1;
          return;
        }
        const i = next++;
        await this.createService(`svc-${i}`);
        if ((i + 1) % progressEvery === 0) this.log(`${i + 1} Services and slices written (RSS ${round(process.memoryUsage().rss / MiB, 0)} MiB)`);
      }
    };
    await Promise.all(Array.from({ length: LOAD_CONCURRENCY }, worker));
    this.figures.servicesLoaded = next;
  }

  /** Waits until every agent has applied a sync that saw the last write, bounded by the phase limit. */
  async settle(): Promise<boolean> {
    this.phase = `${this.phase}-settle`;
    if (this.proxyWorkers !== undefined) return this.settleWorkers(this.proxyWorkers);
    // A marker: one more endpoint change, after every other write. A source that has delivered
    // it has delivered every slice change before it (a watch is ordered); the agent hears it in
    // the same call, and the sync that applies it ends after that, so its last-sync timestamp
    // is at or after the moment the marker arrived.
    const MARKER = 'svc-0-1';
    const arrived = new Map<number, { rv: number; at: number }>();
    const unsubscribe = this.sources.map((s, k) =>
      s.onChange((change) => {
        if (change.resource === 'endpointslices' && change.object.metadata?.name === MARKER) arrived.set(k, { rv: Number(change.object.metadata.resourceVersion), at: Date.now() });
      }),
    );
    try {
      const target = await this.marker();
      const deadline = performance.now() + this.size.phaseLimitSeconds * 1000;
      let lastProgress = performance.now();
      for (;;) {
        const text = (await this.metrics?.registry.metrics()) ?? '';
        const last = readGauge(text, 'kubeproxy_sync_proxy_rules_last_timestamp_seconds', 'node');
        const caughtUp = [...arrived.values()].filter((a) => a.rv >= target).length;
        const agentsDone = this.agents.filter((a, k) => {
          const seen = arrived.get(k);
          const synced = last.get(a.nodeName);
          return seen !== undefined && seen.rv >= target && synced !== undefined && synced * 1000 >= seen.at;
        }).length;
        if (agentsDone === this.agents.length) return true;
        if (this.overHeap) return false;
        if (performance.now() - lastProgress > 15_000) {
          lastProgress = performance.now();
          this.log(`${caughtUp} of ${this.agents.length} sources past the marker, ${agentsDone} agents synced after it`);
        }
        if (performance.now() > deadline) {
          this.log(`not settled within ${this.size.phaseLimitSeconds} s: ${agentsDone} of ${this.agents.length} agents synced past revision ${target}`);
          return false;
        }
        await sleep(250);
      }
    } finally {
      for (const u of unsubscribe) u();
    }
  }

  /**
   * settle() with the agents in workers: each worker says, per node, the revision its source had
   * delivered when the agent's last applied sync ran (a sync runs in one turn, so every change
   * delivered before it is in it). Settled when every node's is at or past the marker's.
   */
  private async settleWorkers(workers: ProxyWorkers): Promise<boolean> {
    const target = await this.marker();
    const deadline = performance.now() + this.size.phaseLimitSeconds * 1000;
    let lastProgress = performance.now();
    for (;;) {
      const nodes = (await workers.stats()).flatMap((w) => w.nodes);
      const caughtUp = nodes.filter((n) => n.deliveredRevision >= target).length;
      const agentsDone = nodes.filter((n) => n.appliedRevision >= target).length;
      if (agentsDone === this.size.nodes) return true;
      if (this.overHeap) return false;
      if (performance.now() - lastProgress > 15_000) {
        lastProgress = performance.now();
        this.log(`${caughtUp} of ${this.size.nodes} sources past the marker, ${agentsDone} agents synced after it`);
      }
      if (performance.now() > deadline) {
        this.log(`not settled within ${this.size.phaseLimitSeconds} s: ${agentsDone} of ${this.size.nodes} agents synced past revision ${target}`);
        return false;
      }
      await sleep(250);
    }
  }

  async churn(): Promise<void> {
    this.phase = 'churn';
    const random = prng(1);
    const periodMs = 1000 / this.size.rate;
    const endAt = performance.now() + Math.min(this.size.churnSeconds, this.size.phaseLimitSeconds) * 1000;
    const start = performance.now();
    const busy = new Set<string>();
    const inFlight = new Set<Promise<void>>();
    const extra: string[] = [];
    const loaded = this.figures.servicesLoaded ?? this.size.services;
    let k = 0;
    let behind = 0;
    let lastProgress = start;
    while (performance.now() < endAt && !this.overHeap) {
      const due = start + k * periodMs;
      const wait = due - performance.now();
      if (wait > 0) await sleep(wait);
      else if (wait < -1000) behind++;
      while (inFlight.size >= CHURN_IN_FLIGHT) await Promise.race(inFlight);
      k++;
      let work: Promise<void>;
      if (k % CREATE_DELETE_EVERY === 0) {
        // Alternately a new Service (with its slice) and the deletion of the oldest one made here.
        const old = (k / CREATE_DELETE_EVERY) % 2 === 0 ? extra.shift() : undefined;
        if (old !== undefined) work = this.deleteService(old);
        else {
          const name = `churn-${k}`;
          extra.push(name);
          work = this.createService(name);
        }
      } else {
        let name = `svc-${Math.floor(random() * loaded)}`;
        for (let tries = 0; busy.has(name) && tries < 10; tries++) name = `svc-${Math.floor(random() * loaded)}`;
        if (busy.has(name)) continue;
        busy.add(name);
        work = this.replaceEndpoint(name, k).then(() => undefined).finally(() => busy.delete(name));
      }
      const tracked: Promise<void> = work.finally(() => inFlight.delete(tracked));
      inFlight.add(tracked);
      if (performance.now() - lastProgress > 30_000) {
        lastProgress = performance.now();
        this.log(`${k} changes, ${inFlight.size} in flight, RSS ${round(process.memoryUsage().rss / MiB, 0)} MiB`);
      }
    }
    await Promise.all(inFlight);
    this.figures.churnChanges = k;
    this.figures.churnBehindSchedule = behind;
    for (const name of extra) await this.deleteService(name);
  }

  async sample(): Promise<Sample | undefined> {
    const registry = this.metrics?.registry;
    if (registry === undefined) return undefined;
    const text = await registry.metrics();
    const np = readHistogram(text, NP);
    const sync = readHistogram(text, SYNC);
    const cpu = process.cpuUsage();
    const mem = process.memoryUsage();
    const db = join(this.dir, 'state.db');
    const workerStats = this.proxyWorkers === undefined ? [] : await this.proxyWorkers.stats();
    const workerEvents = workerStats.reduce((n, w) => n + w.nodes.reduce((m, x) => m + x.events.services + x.events.endpointslices, 0), 0);
    const workersHeapMiB = round(workerStats.reduce((n, w) => n + w.heapUsed, 0) / MiB, 1);
    const maxWorkerHeapMiB = workerStats.reduce((n, w) => Math.max(n, w.heapUsed / MiB), 0);
    const s: Sample = {
      t: round(this.elapsed(), 1),
      phase: this.phase,
      np,
      syncSum: sync.sum,
      syncCount: sync.count,
      rssMiB: round(mem.rss / MiB, 1),
      heapMiB: round(mem.heapUsed / MiB, 1),
      dbMiB: this.backend === 'sqlite' ? round(fileSize(db) / MiB, 1) : NaN,
      walMiB: this.backend === 'sqlite' ? round(fileSize(`${db}-wal`) / MiB, 1) : NaN,
      cpuUserS: cpu.user / 1e6,
      cpuSystemS: cpu.system / 1e6,
      watchEvents: workerEvents + this.sources.reduce((n, src) => n + src.stats('services').events + src.stats('endpointslices').events, 0),
      writes: this.writes,
      workersHeapMiB,
    };
    this.samples.push(s);
    if (!this.overHeap && Math.max(s.heapMiB, maxWorkerHeapMiB) > this.size.heapLimitMiB) {
      this.overHeap = true;
      this.figures.stoppedOverHeapAt = s.t;
      this.log(`heap ${round(Math.max(s.heapMiB, maxWorkerHeapMiB), 0)} MiB (${s.heapMiB > maxWorkerHeapMiB ? 'main thread' : 'a kube-proxy worker'}) is past SCALE_HEAP_LIMIT_MIB (${this.size.heapLimitMiB}): stopping each phase early`);
    }
    return s;
  }

  /** The figures of the phase between two samples. */
  phaseFigures(from: Sample, to: Sample): PhaseFigures {
    const seconds = to.t - from.t;
    const np = histogramDelta(to.np, from.np);
    const per = (n: number) => (seconds > 0 ? round(n / seconds, 1) : 0);
    return {
      seconds: round(seconds, 1),
      writes: to.writes - from.writes,
      writesPerSecond: per(to.writes - from.writes),
      npCount: np.count,
      npP50: round(histogramQuantile(0.5, np.buckets), 3),
      npP90: round(histogramQuantile(0.9, np.buckets), 3),
      npP99: round(histogramQuantile(0.99, np.buckets), 3),
      cpuSeconds: round(to.cpuUserS + to.cpuSystemS - from.cpuUserS - from.cpuSystemS, 1),
      proxySyncSeconds: round(to.syncSum - from.syncSum, 1),
      syncs: to.syncCount - from.syncCount,
      watchEventsPerSecond: per(to.watchEvents - from.watchEvents),
    };
  }

  async stop(): Promise<void> {
    if (this.sampler !== undefined) clearInterval(this.sampler);
    const steps: (() => Promise<unknown> | unknown)[] = [
      () => this.proxyWorkers?.stop(),
      ...this.agents.map((a) => () => a.stop()),
      ...[...this.sources, ...this.pending].map((s) => () => s.stop()),
      () => this.api?.close(),
      () => this.plane?.stop(),
      () => (this.etcd === undefined ? this.store?.close() : this.etcd.dispose()),
      () => rmSync(this.dir, { recursive: true, force: true }),
    ];
    for (const step of steps) {
      try {
        await step();
      } catch (error) {
        this.out(`scale[${this.backend}] cleanup: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }
}

export interface ScaleResult {
  readonly backend: ScaleBackend;
  readonly size: ScaleSize;
  readonly settled: Readonly<Record<string, boolean>>;
  readonly figures: Readonly<Record<string, number>>;
  readonly phases: Readonly<Record<string, PhaseFigures>>;
  /** Per sample interval: network programming quantiles of the interval's observations, and the process's figures. */
  readonly series: readonly Record<string, number | string>[];
}

function seriesOf(samples: readonly Sample[]): Record<string, number | string>[] {
  return samples.slice(1).map((s, i) => {
    const prev = samples[i] as Sample;
    const np = histogramDelta(s.np, prev.np);
    const dt = s.t - prev.t;
    return {
      t: s.t,
      phase: s.phase,
      npCount: np.count,
      npP50: round(histogramQuantile(0.5, np.buckets), 3),
      npP90: round(histogramQuantile(0.9, np.buckets), 3),
      npP99: round(histogramQuantile(0.99, np.buckets), 3),
      rssMiB: s.rssMiB,
      heapMiB: s.heapMiB,
      workersHeapMiB: s.workersHeapMiB,
      dbMiB: s.dbMiB,
      walMiB: s.walMiB,
      cpuPercent: round(((s.cpuUserS + s.cpuSystemS - prev.cpuUserS - prev.cpuSystemS) / dt) * 100, 0),
      writesPerSecond: round((s.writes - prev.writes) / dt, 1),
      watchEventsPerSecond: round((s.watchEvents - prev.watchEvents) / dt, 0),
    };
  });
}

/** The whole run on one backend: start, load, settle, churn, settle; every phase bounded. */
export async function runScale(backend: ScaleBackend, size: ScaleSize, out: (line: string) => void, agents: ScaleAgents = scaleAgentsFromEnv(size.nodes)): Promise<{ result: ScaleResult; run: Run }> {
  const run = new Run(backend, size, out, agents);
  const settled: Record<string, boolean> = {};
  try {
    const t0 = performance.now();
    await run.start();
    run.figures.startSeconds = round((performance.now() - t0) / 1000, 1);
    const begin = await run.sample();
    await run.load();
    settled.load = await run.settle();
    const loaded = await run.sample();
    fullGC();
    const mem = process.memoryUsage();
    run.figures.rssMiBLoaded = round(mem.rss / MiB, 1);
    run.figures.heapMiBLoaded = round(mem.heapUsed / MiB, 1);
    run.log(`loaded and settled (${settled.load}); RSS ${run.figures.rssMiBLoaded} MiB, heap ${run.figures.heapMiBLoaded} MiB`);
    await run.churn();
    settled.churn = await run.settle();
    const churned = await run.sample();
    if (begin === undefined || loaded === undefined || churned === undefined) throw new Error('no samples');
    run.phases.load = run.phaseFigures(begin, loaded);
    run.phases.churn = run.phaseFigures(loaded, churned);
    fullGC();
    const end = process.memoryUsage();
    run.figures.rssMiBEnd = round(end.rss / MiB, 1);
    run.figures.heapMiBEnd = round(end.heapUsed / MiB, 1);
    run.figures.rssMiBMax = Math.max(...run.samples.map((s) => s.rssMiB));
    // Each agent's share: the heap the agents and their caches hold at the end, over the heap
    // before they started, divided among them (the apiserver's caches of the same objects grow too).
    if (run.proxyWorkers !== undefined) {
      // In workers, each agent's share is the workers' heaps (their caches, states and code) over the agents: the apiserver's caches are not in it.
      const heaps = await run.proxyWorkers.stats({ gc: true });
      run.figures.sharedObjects = heaps.reduce((n, h) => n + h.shared, 0);
      run.figures.heapMiBWorkersEnd = round(heaps.reduce((n, h) => n + h.heapUsed, 0) / MiB, 1);
      run.figures.heapMiBPerAgentLoaded = round(run.figures.heapMiBWorkersEnd / size.nodes, 2);
      // The bytes the agents' texts keep outside the heap (rendered Services, restore buffers).
      run.figures.arrayBuffersMiBPerAgentLoaded = round(heaps.reduce((n, h) => n + h.arrayBuffers, 0) / MiB / size.nodes, 2);
      run.figures.heapMiBMainEnd = round(end.heapUsed / MiB, 1);
    } else {
      run.figures.heapMiBPerAgentLoaded = round((end.heapUsed / MiB - (run.figures.heapMiBBeforeAgents ?? 0)) / size.nodes, 2);
    }
    run.figures.conflicts = run.conflicts;
    run.figures.failedWrites = run.failedWrites;
    const result: ScaleResult = { backend, size, settled, figures: run.figures, phases: run.phases, series: seriesOf(run.samples) };
    return { result, run };
  } catch (error) {
    await run.stop();
    throw error;
  }
}

const resultsDir = (): string => process.env.SCALE_OUT ?? fileURLToPath(new URL('../results', import.meta.url));

/** Writes the run's JSON and its latency chart beside the suite's results; returns the SVG's path. */
export function writeScaleFiles(result: ScaleResult, dir = resultsDir()): string {
  mkdirSync(dir, { recursive: true });
  const stamp = new Date().toISOString().replace(/[:.]/g, '-');
  const base = join(dir, `scale-${result.backend}-${stamp}`);
  writeFileSync(`${base}.json`, `${JSON.stringify(result, null, 2)}\n`);
  const point = (key: string) => result.series.map((p) => [Number(p.t), Number(p[key])] as const);
  const s = result.size;
  const markers = [...new Set(result.series.map((p) => String(p.phase)))].map((phase) => ({ x: Number(result.series.find((p) => p.phase === phase)?.t ?? 0), label: phase }));
  const svg = lineChartSvg(
    [
      { name: 'p50', color: '#1f77b4', points: point('npP50') },
      { name: 'p90', color: '#ff7f0e', points: point('npP90') },
      { name: 'p99', color: '#d62728', points: point('npP99') },
    ],
    {
      title: `Network programming latency, ${result.backend}: ${s.nodes} nodes × ${s.services} Services × ${s.endpoints} endpoints, ${s.rate} changes/s`,
      xLabel: 'seconds since start',
      yLabel: `seconds (per ${s.sampleSeconds} s interval, histogram_quantile)`,
      markers,
    },
  );
  writeFileSync(`${base}.svg`, svg);
  return `${base}.svg`;
}

function scaleTask(backend: ScaleBackend, size: ScaleSize, out: (line: string) => void, agents: ScaleAgents): BenchTask {
  let state: { result: ScaleResult; run: Run } | undefined;
  const figures: Record<string, number> = {};
  return {
    name: `${backend}: ${size.nodes} nodes × ${size.services} Services × ${size.endpoints} endpoints, ${size.rate} changes/s for ${size.churnSeconds} s, kube-proxies ${agents.workers > 0 ? `in ${agents.workers} worker threads` : 'on the main thread'}; timed: one /metrics scrape`,
    setup: async () => {
      state = await runScale(backend, size, out, agents);
      const { result } = state;
      const svg = writeScaleFiles(result);
      out(`scale[${backend}] JSON and chart: ${svg.replace(/\.svg$/, '.{json,svg}')}`);
      for (const [phase, f] of Object.entries(result.phases)) {
        out(`scale[${backend}] ${phase}: ${f.seconds} s, ${f.writesPerSecond} writes/s, network programming p50 ${f.npP50} s p90 ${f.npP90} s p99 ${f.npP99} s (${f.npCount} observations), CPU ${f.cpuSeconds} s (proxy syncs ${f.proxySyncSeconds} s in ${f.syncs} syncs), ${f.watchEventsPerSecond} watch events/s`);
        for (const [k, v] of Object.entries(f)) figures[`${phase}.${k}`] = v;
      }
      Object.assign(figures, result.figures);
      const churn = result.phases.churn;
      const rss = result.figures.rssMiBMax ?? NaN;
      const perAgent = result.figures.heapMiBPerAgentLoaded ?? NaN;
      figures['target.p99Met'] = churn !== undefined && churn.npP99 <= 2 ? 1 : 0;
      figures['target.rssMet'] = rss <= 1536 ? 1 : 0;
      figures['target.perAgentMet'] = perAgent <= 60 ? 1 : 0;
      out(`scale[${backend}] targets at this size: churn p99 ≤ 2 s ${figures['target.p99Met'] === 1 ? 'met' : 'MISSED'} (${churn?.npP99} s); RSS ≤ 1.5 GiB ${figures['target.rssMet'] === 1 ? 'met' : 'MISSED'} (max ${rss} MiB, the whole process); per agent ≤ 60 MiB ${figures['target.perAgentMet'] === 1 ? 'met' : 'MISSED'} (${perAgent} MiB of heap)`);
    },
    fn: async () => {
      await state?.run.metrics?.registry.metrics();
    },
    metrics: () => {
      void state?.run.stop();
      return figures;
    },
  };
}

export function scaleSuite(out: (line: string) => void = (line) => console.error(line)): BenchSuite {
  const size = scaleSizeFromEnv();
  const agents = scaleAgentsFromEnv(size.nodes);
  const backends = (process.env.SCALE_BACKENDS ?? 'sqlite,etcd').split(',').map((b) => b.trim()).filter((b) => b !== '');
  for (const b of backends) if (b !== 'sqlite' && b !== 'etcd') throw new Error(`SCALE_BACKENDS: "${b}" is neither sqlite nor etcd`);
  return {
    name: 'scale',
    description: `the control plane at scale (sizes from SCALE_* in the environment; now ${size.nodes} nodes × ${size.services} Services × ${size.endpoints} endpoints, ${size.rate} changes/s for ${size.churnSeconds} s): network programming latency from /metrics, writes, watch events, memory, CPU`,
    tasks: (backends as ScaleBackend[]).map((b) => scaleTask(b, size, out, agents)),
  };
}

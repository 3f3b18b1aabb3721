// Kube-proxies on worker threads: `kubesvc up --nodes N` and the scale bench run the API-fed
// kube-proxies of N nodes in W workers (node:worker_threads), each carrying about N/W agents, so
// that the thread that serves the API (and its N watches) does not also run N syncs, and each
// worker has a V8 heap of its own. Each agent keeps its own list and watch through the API: the
// apiserver serves N watchers whatever W is.
//
// Metrics: an agent in a worker records into a stand-in that batches its observations (sync
// durations, the last applied sync's time, network programming latencies) and posts them every
// 100 ms; this thread observes them on the process's ProxyMetrics under the node's label, so
// /metrics shows the same series as with in-thread agents (a sample arrives up to 100 ms late).
//
// Memory: the agents of one worker share the objects their sources parsed at the same
// resourceVersion (shareObjects, api-source's ObjectInterner): each agent still lists, watches
// and parses everything itself, so the apiserver's fan-out is unchanged, but a worker keeps about
// one copy of each object instead of one per agent.
//
// A worker that dies (an uncaught error, out of memory) is logged, and its agents are started
// again in a fresh worker after a backoff (1 s, doubling to 30 s); each lists again through the API.
import { createRequire } from 'node:module';
import { availableParallelism } from 'node:os';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { silentLogger, type Logger } from '@kubesvc/apiserver';
import { logLine } from '../logger.js';
import type { ProxyMetrics } from '../proxy-metrics.js';
import type { FromWorker, ProxyWorkerData, ProxyWorkerNode, ProxyWorkerSettings, ProxyWorkerStats, ToWorker } from './messages.js';

export type { ProxyWorkerNode, ProxyWorkerNodeStats, ProxyWorkerStats } from './messages.js';

/** Agents a worker starts at once: a hundred lists at once would stall the API. */
const START_CONCURRENCY = 4;
const RESTART_INITIAL_MS = 1_000;
const RESTART_MAX_MS = 30_000;

export interface ProxyWorkersOptions {
  readonly nodes: readonly ProxyWorkerNode[];
  /** Worker threads. Default defaultProxyWorkers(nodes.length). At most one per node. */
  readonly workers?: number;
  readonly apiURL: string;
  readonly token: string;
  /** The CA (PEM) of the API's serving certificate. */
  readonly ca?: string;
  readonly proxyMode: 'iptables' | 'nftables';
  readonly clusterCIDR?: string;
  readonly serviceNetworking?: ProxyWorkerSettings['serviceNetworking'];
  readonly preferSameTrafficDistribution?: boolean;
  readonly minSyncPeriodMs?: number;
  /** rules.txt and rules.save.txt (iptables), ruleset.nft (nftables) at most this often. Default: at every sync. */
  readonly tablesFilesIntervalMs?: number;
  /** Where the agents' metrics are observed, under each node's name. Default: nowhere. */
  readonly metrics?: ProxyMetrics;
  /** Where the agents' lines go, and the workers' crashes. Default: nowhere. */
  readonly logger?: Logger;
  /** Each worker's old-generation heap limit, MiB. Default: V8's. */
  readonly maxOldGenerationSizeMb?: number;
  /**
   * The agents of one worker keep one copy of an object their sources parsed at the same
   * resourceVersion (api-source's ObjectInterner); each still lists, watches and parses its own.
   * Default true.
   */
  readonly shareObjects?: boolean;
}

export interface ProxyWorkers {
  /** The worker threads running. */
  readonly workers: number;
  /** Each node's rules file and the worker that runs its agent, in the order given. */
  readonly nodes: readonly { readonly nodeName: string; readonly worker: number; readonly rules: string }[];
  /** Workers that died and were started again. */
  readonly restarts: number;
  /** Each worker's figures (heap, and per node: watch events, revisions, syncs); `gc`: each worker collects fully first. */
  stats(options?: { readonly gc?: boolean }): Promise<readonly ProxyWorkerStats[]>;
  /** Ends worker `index` at once, as a crash would: the pool logs it and starts its agents again. */
  terminateWorker(index: number): Promise<void>;
  /** Stops every agent and watch, then the workers. */
  stop(): Promise<void>;
}

/**
 * The default number of workers for n agents: one per core the process may use, at least 2 (a
 * worker's heap is its own: more of them spread the agents' caches), at most n.
 */
export function defaultProxyWorkers(nodes: number, cores: number = availableParallelism()): number {
  return Math.max(0, Math.min(nodes, Math.max(2, cores)));
}

/** Splits the nodes over w workers, round robin: worker k carries nodes k, k + w, k + 2w, ... */
export function assignNodes<T>(nodes: readonly T[], workers: number): T[][] {
  const out: T[][] = Array.from({ length: Math.max(1, Math.min(workers, nodes.length)) }, () => []);
  nodes.forEach((n, i) => out[i % out.length]?.push(n));
  return nodes.length === 0 ? [] : out;
}

// The worker's entry: proxy-worker.js next to this module in dist, proxy-worker.ts in the
// sources, which a worker can only load through tsx. A worker does not inherit loaders that
// the starting thread registered with module.register (the CLI's bin does), so the bootstrap
// registers tsx (and the workspace's @kubesvc/source condition) when the .ts entry needs it.
const ENTRY = new URL(import.meta.url.endsWith('.ts') ? './proxy-worker.ts' : './proxy-worker.js', import.meta.url);

const BOOTSTRAP = `
const { workerData } = require('node:worker_threads');
const boot = workerData.boot;
(async () => {
  try {
    await import(boot.entry);
  } catch (error) {
    if (error === null || typeof error !== 'object' || error.code !== 'ERR_UNKNOWN_FILE_EXTENSION' || boot.tsx === undefined) throw error;
    const { register } = require('node:module');
    const { register: registerTsx } = await import(boot.tsx);
    registerTsx();
    const hooks = 'export function resolve(s, c, next) { return next(s, { ...c, conditions: [...c.conditions, "@kubesvc/source"] }); }';
    register('data:text/javascript,' + encodeURIComponent(hooks), boot.entry);
    // A new URL: the loader keeps the failed load of the first one.
    await import(boot.entry + '?tsx');
  }
})().catch((error) => { setImmediate(() => { throw error; }); });
`;

/** The URL of tsx's register API (its ES module build, beside the CommonJS one require finds), for a .ts entry. */
function tsxApi(): string | undefined {
  if (!ENTRY.href.endsWith('.ts')) return undefined;
  try {
    return pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  } catch {
    return undefined;
  }
}

interface Slot {
  readonly index: number;
  readonly nodes: readonly ProxyWorkerNode[];
  worker: Worker | undefined;
  ready: readonly { readonly nodeName: string; readonly rules: string }[];
  stopped: Promise<void> | undefined;
}

class Pool implements ProxyWorkers {
  readonly slots: Slot[];
  restarts = 0;
  private stopping = false;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (s: ProxyWorkerStats) => void; worker: number }>();
  private readonly logger: Logger;
  private readonly settings: ProxyWorkerSettings;

  constructor(private readonly options: ProxyWorkersOptions) {
    this.logger = options.logger ?? silentLogger;
    const w = options.workers ?? defaultProxyWorkers(options.nodes.length);
    if (!Number.isInteger(w) || w < 1) throw new RangeError(`proxy workers: ${w} is not a whole number of workers above 0`);
    this.slots = assignNodes(options.nodes, w).map((nodes, index) => ({ index, nodes, worker: undefined, ready: [], stopped: undefined }));
    this.settings = {
      apiURL: options.apiURL,
      token: options.token,
      ...(options.ca === undefined ? {} : { ca: options.ca }),
      proxyMode: options.proxyMode,
      ...(options.clusterCIDR === undefined ? {} : { clusterCIDR: options.clusterCIDR }),
      ...(options.serviceNetworking === undefined ? {} : { serviceNetworking: options.serviceNetworking }),
      ...(options.preferSameTrafficDistribution === undefined ? {} : { preferSameTrafficDistribution: options.preferSameTrafficDistribution }),
      ...(options.minSyncPeriodMs === undefined ? {} : { minSyncPeriodMs: options.minSyncPeriodMs }),
      ...(options.tablesFilesIntervalMs === undefined ? {} : { tablesFilesIntervalMs: options.tablesFilesIntervalMs }),
      startConcurrency: START_CONCURRENCY,
      metrics: options.metrics !== undefined,
      shareObjects: options.shareObjects ?? true,
    };
  }

  get workers(): number {
    return this.slots.length;
  }

  get nodes(): readonly { nodeName: string; worker: number; rules: string }[] {
    const byName = new Map<string, { nodeName: string; worker: number; rules: string }>();
    for (const slot of this.slots) for (const r of slot.ready) byName.set(r.nodeName, { ...r, worker: slot.index });
    return this.options.nodes.flatMap((n) => byName.get(n.name) ?? []);
  }

  /** Starts the slot's worker; resolves once its agents have made their first syncs, rejects if they cannot start. */
  launch(slot: Slot, failures = 0): Promise<void> {
    const data: ProxyWorkerData & { boot: { entry: string; tsx?: string } } = {
      nodes: slot.nodes,
      settings: this.settings,
      boot: { entry: ENTRY.href, ...(tsxApi() === undefined ? {} : { tsx: tsxApi() as string }) },
    };
    const worker = new Worker(BOOTSTRAP, {
      eval: true,
      workerData: data,
      ...(this.options.maxOldGenerationSizeMb === undefined ? {} : { resourceLimits: { maxOldGenerationSizeMb: this.options.maxOldGenerationSizeMb } }),
    });
    slot.worker = worker;
    let started = false;
    let stoppedCleanly = false;
    let resolveStopped: () => void = () => undefined;
    slot.stopped = new Promise((r) => (resolveStopped = r));
    return new Promise<void>((resolve, reject) => {
      worker.on('message', (message: FromWorker) => {
        switch (message.type) {
          case 'ready':
            started = true;
            slot.ready = message.nodes;
            resolve();
            break;
          case 'start-failed':
            reject(new Error(`kube-proxy worker ${slot.index}: ${message.message}`));
            break;
          case 'log':
            this.logger.log(message.level, message.line);
            break;
          case 'metrics':
            this.observe(message.batch);
            break;
          case 'stats': {
            const w = this.waiting.get(message.id);
            this.waiting.delete(message.id);
            w?.resolve({ worker: slot.index, heapUsed: message.heapUsed, arrayBuffers: message.arrayBuffers, shared: message.shared, nodes: message.nodes });
            break;
          }
          case 'stopped':
            stoppedCleanly = true;
            break;
        }
      });
      worker.on('error', (error) => {
        this.logger.log('error', logLine('kube-proxy worker failed', { worker: slot.index, nodes: slot.nodes.map((n) => n.name).join(','), error: error instanceof Error ? (error.stack ?? error.message) : String(error) }));
        if (!started) reject(error);
      });
      worker.on('exit', (code) => {
        if (slot.worker === worker) slot.worker = undefined;
        resolveStopped();
        for (const [id, w] of this.waiting) {
          if (w.worker !== slot.index) continue;
          this.waiting.delete(id);
          w.resolve({ worker: slot.index, heapUsed: 0, arrayBuffers: 0, shared: 0, nodes: [] });
        }
        if (!started) {
          reject(new Error(`kube-proxy worker ${slot.index} exited with code ${code} before its agents started`));
          return;
        }
        if (this.stopping || stoppedCleanly) return;
        // A worker that died: its agents are started again in a fresh one, after a backoff.
        this.logger.log('error', logLine('kube-proxy worker exited, starting its agents again', { worker: slot.index, code, nodes: slot.nodes.length, restartInMs: this.restartDelay(failures) }));
        this.relaunch(slot, failures);
      });
    });
  }

  private restartDelay(failures: number): number {
    return Math.min(RESTART_MAX_MS, RESTART_INITIAL_MS * 2 ** failures);
  }

  /** Starts the slot's worker again after the backoff; a start that fails is logged and tried again, with a longer one. */
  private relaunch(slot: Slot, failures: number): void {
    setTimeout(() => {
      if (this.stopping) return;
      this.restarts++;
      this.launch(slot, failures + 1).catch((error: unknown) => {
        if (this.stopping) return;
        this.logger.log('error', logLine('kube-proxy worker did not start again, trying again', { worker: slot.index, error: error instanceof Error ? error.message : String(error), restartInMs: this.restartDelay(failures + 1) }));
        this.relaunch(slot, failures + 1);
      });
    }, this.restartDelay(failures)).unref();
  }

  private observe(batch: readonly { node: string; syncDurations: readonly number[]; applied?: number; programmed: readonly number[] }[]): void {
    const metrics = this.options.metrics;
    if (metrics === undefined) return;
    for (const b of batch) {
      const m = metrics.forNode(b.node);
      for (const s of b.syncDurations) m.syncDuration(s);
      if (b.applied !== undefined) m.syncApplied(b.applied);
      for (const s of b.programmed) m.networkProgrammed(s);
    }
  }

  async stats(options: { readonly gc?: boolean } = {}): Promise<readonly ProxyWorkerStats[]> {
    return Promise.all(
      this.slots.map(
        (slot) =>
          new Promise<ProxyWorkerStats>((resolve) => {
            const worker = slot.worker;
            if (worker === undefined || this.stopping) {
              resolve({ worker: slot.index, heapUsed: 0, arrayBuffers: 0, shared: 0, nodes: [] });
              return;
            }
            const id = this.nextId++;
            this.waiting.set(id, { resolve, worker: slot.index });
            worker.postMessage({ type: 'stats', id, ...(options.gc === true ? { gc: true } : {}) } satisfies ToWorker);
          }),
      ),
    );
  }

  async terminateWorker(index: number): Promise<void> {
    await this.slots[index]?.worker?.terminate();
  }

  async stop(): Promise<void> {
    this.stopping = true;
    await Promise.all(
      this.slots.map(async (slot) => {
        const worker = slot.worker;
        if (worker === undefined) return;
        worker.postMessage({ type: 'stop' } satisfies ToWorker);
        // A worker that does not stop within the bound is terminated.
        const timer = setTimeout(() => void worker.terminate(), 30_000);
        await slot.stopped;
        clearTimeout(timer);
      }),
    );
  }
}

/**
 * Starts the workers and in them one kube-proxy per node, each with its own list and watch;
 * resolves once every agent has made its first sync. If one cannot start, the workers already
 * started are stopped and it rejects.
 */
export async function startProxyWorkers(options: ProxyWorkersOptions): Promise<ProxyWorkers> {
  const pool = new Pool(options);
  const results = await Promise.allSettled(pool.slots.map((slot) => pool.launch(slot)));
  const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failed !== undefined) {
    await pool.stop();
    throw failed.reason;
  }
  return pool;
}

// A worker thread's kube-proxies: the entry point the pool (proxy-workers.ts) starts. Each node
// it carries gets its own list and watch through the API (startApiSource) and its own agent
// (startNodeAgent, no DNS), exactly as on the starting thread; only the thread differs. What
// the agents record for /metrics is batched and posted to the starting thread, which observes
// it on the process's one registry under each node's label; log lines are posted as they come.
import { mkdirSync } from 'node:fs';
import { getHeapStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { parentPort, workerData } from 'node:worker_threads';
import type { KubeObject } from '@kubesvc/api-types';
import type { LogLevel } from '@kubesvc/apiserver';
import { createRenderCache, type RenderCache } from '@kubesvc/proxy-iptables';
import { systemClock } from '@kubesvc/store';
import { createObjectInterner, startApiSource, type ApiSource } from '../api-source.js';
import { startNodeAgent, type NodeAgent } from '../node-agent.js';
import type { NodeProxyMetrics, ProxyMetrics } from '../proxy-metrics.js';
import type { FromWorker, ProxyMetricsBatch, ProxyWorkerData, ProxyWorkerNode, ProxyWorkerNodeStats, ToWorker } from './messages.js';

/** Metrics are posted at most this often (and before every stats reply and at stop). */
const METRICS_FLUSH_MS = 100;

interface Running {
  readonly node: ProxyWorkerNode;
  readonly source: ApiSource;
  readonly agent: NodeAgent;
  deliveredRevision: number;
  appliedRevision: number;
  syncs: number;
}

interface PendingMetrics {
  syncDurations: number[];
  applied: number | undefined;
  programmed: number[];
}

function post(message: FromWorker): void {
  parentPort?.postMessage(message);
}

function revisionOf(object: KubeObject): number {
  return Number((object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? 0) || 0;
}

class Worker {
  private readonly running: Running[] = [];
  private readonly pending = new Map<string, PendingMetrics>();
  private readonly byName = new Map<string, Running>();
  private flushTimer: NodeJS.Timeout | undefined;
  private stopping = false;
  private readonly interner: ReturnType<typeof createObjectInterner> | undefined;
  /** With shared objects, the agents share the text of the Services they render alike too. */
  private readonly renderCache: RenderCache | undefined;
  private collect: (() => void) | undefined;

  constructor(private readonly data: ProxyWorkerData) {
    this.interner = data.settings.shareObjects ? createObjectInterner() : undefined;
    this.renderCache = data.settings.shareObjects ? createRenderCache() : undefined;
  }

  private readonly logger = { log: (level: LogLevel, line: string) => post({ type: 'log', level, line }) };

  private pendingOf(node: string): PendingMetrics {
    let p = this.pending.get(node);
    if (p === undefined) {
      p = { syncDurations: [], applied: undefined, programmed: [] };
      this.pending.set(node, p);
    }
    return p;
  }

  /** The metrics the agents record into: kept here, posted in batches. */
  private readonly metrics: ProxyMetrics = {
    forNode: (node): NodeProxyMetrics => ({
      syncDuration: (seconds) => this.pendingOf(node).syncDurations.push(seconds),
      syncApplied: (nowMs) => {
        this.pendingOf(node).applied = nowMs;
        // A sync runs in one turn: every change delivered before it is in what it applied.
        const r = this.byName.get(node);
        if (r !== undefined) {
          r.appliedRevision = r.deliveredRevision;
          r.syncs++;
        }
      },
      networkProgrammed: (seconds) => this.pendingOf(node).programmed.push(seconds),
    }),
  };

  flush(): void {
    if (this.pending.size === 0) return;
    const batch: ProxyMetricsBatch[] = [];
    for (const [node, p] of this.pending) batch.push({ node, syncDurations: p.syncDurations, ...(p.applied === undefined ? {} : { applied: p.applied }), programmed: p.programmed });
    this.pending.clear();
    if (this.data.settings.metrics) post({ type: 'metrics', batch });
  }

  private async startOne(node: ProxyWorkerNode): Promise<void> {
    const s = this.data.settings;
    const source = await startApiSource({ server: s.apiURL, token: s.token, ...(s.ca === undefined ? {} : { ca: s.ca }), resources: ['services', 'endpointslices'], logger: this.logger, name: node.name, ...(this.interner === undefined ? {} : { interner: this.interner }) });
    try {
      mkdirSync(node.dataDir, { recursive: true, mode: 0o700 });
      // Registered before the agent's own listener: a change's revision is counted before the agent sees it.
      const r: { deliveredRevision: number } = { deliveredRevision: 0 };
      const unsubscribe = source.onChange((change) => {
        r.deliveredRevision = Math.max(r.deliveredRevision, revisionOf(change.object));
      });
      const started = await startNodeAgent({
        source,
        clock: systemClock,
        logger: this.logger,
        nodeName: node.name,
        nodeIP: node.internalIP,
        topology: { ...(node.labels === undefined ? {} : { labels: node.labels }), preferSameTrafficDistribution: s.preferSameTrafficDistribution === true },
        ...(s.clusterCIDR === undefined ? {} : { clusterCIDR: s.clusterCIDR }),
        ...(s.serviceNetworking === undefined ? {} : { serviceNetworking: s.serviceNetworking }),
        dataDir: node.dataDir,
        proxyMode: s.proxyMode,
        dnsPort: false,
        ...(s.proxyMode === 'iptables' ? { iptables: { ...(s.minSyncPeriodMs === undefined ? {} : { minSyncPeriodMs: s.minSyncPeriodMs }), ...(s.tablesFilesIntervalMs === undefined ? {} : { tablesFilesIntervalMs: s.tablesFilesIntervalMs }), ...(this.renderCache === undefined ? {} : { renderCache: this.renderCache }) } } : {}),
        ...(s.proxyMode === 'nftables' ? { nftables: { ...(s.minSyncPeriodMs === undefined ? {} : { minSyncPeriodMs: s.minSyncPeriodMs }), ...(s.tablesFilesIntervalMs === undefined ? {} : { tablesFilesIntervalMs: s.tablesFilesIntervalMs }) } } : {}),
        metrics: this.metrics,
      });
      if (!started.ok) {
        unsubscribe();
        throw new Error(`node ${node.name}: ${started.error.message}`);
      }
      // The first sync ran inside startNodeAgent, before this entry existed: it applied what the list held.
      const listed = Math.max(r.deliveredRevision, Number(source.stats('endpointslices').resourceVersion) || 0, Number(source.stats('services').resourceVersion) || 0);
      const running: Running = { node, source, agent: started.value, deliveredRevision: listed, appliedRevision: listed, syncs: 1 };
      unsubscribe();
      source.onChange((change) => {
        running.deliveredRevision = Math.max(running.deliveredRevision, revisionOf(change.object));
      });
      this.running.push(running);
      this.byName.set(node.name, running);
    } catch (error) {
      await source.stop();
      throw error;
    }
  }

  async start(): Promise<void> {
    this.flushTimer = setInterval(() => this.flush(), METRICS_FLUSH_MS);
    const { nodes, settings } = this.data;
    for (let i = 0; i < nodes.length; i += settings.startConcurrency) {
      const results = await Promise.allSettled(nodes.slice(i, i + settings.startConcurrency).map((n) => this.startOne(n)));
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    }
    post({ type: 'ready', nodes: this.running.map((r) => ({ nodeName: r.node.name, rules: r.agent.iptablesFiles?.rules ?? r.agent.nftablesFiles?.ruleset ?? r.node.dataDir })) });
  }

  /** Two full collections (the flag set at run time; a new context sees `gc`). */
  private fullGC(): void {
    if (this.collect === undefined) {
      setFlagsFromString('--expose-gc');
      this.collect = runInNewContext('gc') as () => void;
    }
    this.collect();
    this.collect();
  }

  stats(id: number, gc: boolean): void {
    this.flush();
    if (gc) this.fullGC();
    const nodes: ProxyWorkerNodeStats[] = this.running.map((r) => ({
      nodeName: r.node.name,
      events: { services: r.source.stats('services').events, endpointslices: r.source.stats('endpointslices').events },
      deliveredRevision: r.deliveredRevision,
      appliedRevision: r.appliedRevision,
      syncs: r.syncs,
    }));
    post({ type: 'stats', id, heapUsed: getHeapStatistics().used_heap_size, arrayBuffers: process.memoryUsage().arrayBuffers, shared: this.interner?.size ?? 0, nodes });
  }

  /** Stops the agents, then their watches; posts what is left of the metrics, then `stopped`. */
  async stop(): Promise<void> {
    if (this.stopping) return;
    this.stopping = true;
    await Promise.all(this.running.map(async (r) => {
      await r.agent.stop();
      await r.source.stop();
    }));
    if (this.flushTimer !== undefined) clearInterval(this.flushTimer);
    this.flush();
    post({ type: 'stopped' });
    parentPort?.close();
  }
}

const data = workerData as ProxyWorkerData | undefined;
if (parentPort !== null && data !== undefined && Array.isArray(data.nodes)) {
  const worker = new Worker(data);
  parentPort.on('message', (message: ToWorker) => {
    if (message.type === 'stats') worker.stats(message.id, message.gc === true);
    else if (message.type === 'stop') void worker.stop();
  });
  worker.start().catch(async (error: unknown) => {
    post({ type: 'start-failed', message: error instanceof Error ? error.message : String(error) });
    await worker.stop();
  });
}

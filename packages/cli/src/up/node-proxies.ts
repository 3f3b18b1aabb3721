// The kube-proxies of `kubesvc up --nodes N` past the first node. Each runs as a real
// kube-proxy does on its own node: its own node name, node IP and topology labels, fed by its
// own list and watch of Services and EndpointSlices through the HTTP API (with the token and
// the serving certificate as its CA), so the apiserver serves N watches, one per node. The
// first node's agent (DNS and kube-proxy) reads the control plane's in-process informer, as
// before; userspace mode binds ports on this host, so it stays with the first node alone. With
// `--dataplane netns` each node's rules are also loaded into that node's namespace of the pod
// network (the `dataplane` option), from this thread: the network's namespaces and the loads
// into them are this process's.
//
// Layout: node i's rules are written under `<data-dir>/nodes/<node-name>/`, in the same
// `iptables/` or `nftables/` folder the first node's agent writes under `<data-dir>/`.
//
// Threads: with `workers` > 0 (--node-workers; the default is one per core, at least 2, at most
// one per node) the kube-proxies run in that many worker threads (@kubesvc/node-agent's
// startProxyWorkers), so the thread that serves the API and its watches does not also run the N
// syncs; each keeps its own watch all the same. Their metrics reach this process's /metrics under
// each node's label, their lines its log; a worker that dies is logged and its kube-proxies start
// again in a fresh worker. With 0 they run on this thread, as the first node's agent does.
import { join } from 'node:path';
import type { ServiceNetworking } from '@kubesvc/api-types';
import type { Logger } from '@kubesvc/apiserver';
import { defaultProxyWorkers, startApiSource, startNodeAgent, startProxyWorkers, type ApiSource, type DataplaneFactory, type NodeAgent, type ProxyMetrics, type ProxyMode } from '@kubesvc/node-agent';
import { systemClock } from '@kubesvc/store';
import { ensurePrivateDir } from './atomic-file.js';
import type { UpNode } from './nodes.js';

/** The folder under the data dir that holds one folder per node past the first. */
export const NODES_DIR = 'nodes';

/** How many kube-proxies list at once while they start: a hundred lists at once would stall the API. */
const START_CONCURRENCY = 8;

export interface NodeProxy {
  readonly nodeName: string;
  readonly proxyMode: Extract<ProxyMode, 'iptables' | 'nftables'>;
  /** The rules file (iptables: rules.txt; nftables: ruleset.nft). */
  readonly rules: string;
  /** The agent and its source, when it runs on this thread (workers: 0). */
  readonly agent?: NodeAgent;
  readonly source?: ApiSource;
  /** The worker thread that runs it, when it runs in one. */
  readonly worker?: number;
}

/** The kube-proxies of the nodes past the first, and how to stop them. */
export interface NodeProxies {
  readonly proxies: readonly NodeProxy[];
  /** Worker threads they run in (0: this thread). */
  readonly workers: number;
  stop(): Promise<void>;
}

export interface NodeProxiesOptions {
  /** The nodes past the first, each with its InternalIP. */
  readonly nodes: readonly (UpNode & { readonly internalIP: string })[];
  readonly apiURL: string;
  readonly token: string;
  /** The API's serving certificate (self-signed: its own CA). */
  readonly ca: string;
  readonly dataDir: string;
  readonly proxyMode: Extract<ProxyMode, 'iptables' | 'nftables'>;
  readonly clusterCIDR: string;
  readonly serviceNetworking: ServiceNetworking;
  readonly preferSameTrafficDistribution: boolean;
  readonly logger: Logger;
  /** kube-proxy's metrics, shared by every node's agent (each records under its node name). */
  readonly metrics?: ProxyMetrics;
  /** Worker threads to run them in (--node-workers). Default defaultProxyWorkers(nodes); 0: this thread. Ignored with a `dataplane`, which runs on this thread. */
  readonly workers?: number;
  /** Where each node's syncs go besides its files (the pod network's node namespaces). Default: the files alone. */
  readonly dataplane?: DataplaneFactory;
  /** The whole-table files at most this often (--tables-files-interval). Default: at every sync. */
  readonly tablesFilesIntervalMs?: number;
}

/** Where node `name`'s agent writes: `<data-dir>/nodes/<name>`. */
export function nodeDataDir(dataDir: string, name: string): string {
  return join(dataDir, NODES_DIR, name);
}

async function startOne(node: NodesOptionsNode, options: NodeProxiesOptions): Promise<NodeProxy> {
  const source = await startApiSource({
    server: options.apiURL,
    token: options.token,
    ca: options.ca,
    resources: ['services', 'endpointslices'],
    logger: options.logger,
    name: node.name,
  });
  try {
    const dir = nodeDataDir(options.dataDir, node.name);
    ensurePrivateDir(dir);
    const started = await startNodeAgent({
      source,
      clock: systemClock,
      logger: options.logger,
      nodeName: node.name,
      nodeIP: node.internalIP,
      topology: { labels: node.labels, preferSameTrafficDistribution: options.preferSameTrafficDistribution },
      clusterCIDR: options.clusterCIDR,
      serviceNetworking: options.serviceNetworking,
      dataDir: dir,
      proxyMode: options.proxyMode,
      dnsPort: false,
      ...(options.tablesFilesIntervalMs === undefined ? {} : { iptables: { tablesFilesIntervalMs: options.tablesFilesIntervalMs }, nftables: { tablesFilesIntervalMs: options.tablesFilesIntervalMs } }),
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
      ...(options.dataplane === undefined ? {} : { dataplane: options.dataplane }),
    });
    if (!started.ok) throw new Error(`node ${node.name}: ${started.error.message}`);
    const agent = started.value;
    const rules = agent.iptablesFiles?.rules ?? agent.nftablesFiles?.ruleset ?? dir;
    return { nodeName: node.name, proxyMode: options.proxyMode, agent, source, rules };
  } catch (error) {
    await source.stop();
    throw error;
  }
}

type NodesOptionsNode = NodeProxiesOptions['nodes'][number];

/** Stops the agents, then their watches (and the workers they run in). */
export async function stopNodeProxies(proxies: NodeProxies): Promise<void> {
  await proxies.stop();
}

async function stopInThread(proxies: readonly NodeProxy[]): Promise<void> {
  await Promise.all(proxies.map(async (p) => {
    await p.agent?.stop();
    await p.source?.stop();
  }));
}

/**
 * Starts a kube-proxy for each node, in worker threads or on this one, a few at a time; resolves
 * once each has made its first sync. One that cannot start stops those already started and rejects.
 */
export async function startNodeProxies(options: NodeProxiesOptions): Promise<NodeProxies> {
  if (options.nodes.length > 0) ensurePrivateDir(join(options.dataDir, NODES_DIR));
  const workers = options.dataplane !== undefined ? 0 : Math.min(options.nodes.length, options.workers ?? defaultProxyWorkers(options.nodes.length));
  if (workers > 0) {
    for (const n of options.nodes) ensurePrivateDir(nodeDataDir(options.dataDir, n.name));
    const pool = await startProxyWorkers({
      nodes: options.nodes.map((n) => ({ name: n.name, internalIP: n.internalIP, labels: n.labels, dataDir: nodeDataDir(options.dataDir, n.name) })),
      workers,
      apiURL: options.apiURL,
      token: options.token,
      ca: options.ca,
      proxyMode: options.proxyMode,
      clusterCIDR: options.clusterCIDR,
      serviceNetworking: options.serviceNetworking,
      preferSameTrafficDistribution: options.preferSameTrafficDistribution,
      ...(options.tablesFilesIntervalMs === undefined ? {} : { tablesFilesIntervalMs: options.tablesFilesIntervalMs }),
      logger: options.logger,
      ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
    });
    const proxies = pool.nodes.map((n) => ({ nodeName: n.nodeName, proxyMode: options.proxyMode, rules: n.rules, worker: n.worker }));
    return { proxies, workers: pool.workers, stop: () => pool.stop() };
  }
  const started = await startInThread(options);
  return { proxies: started, workers: 0, stop: () => stopInThread(started) };
}

async function startInThread(options: NodeProxiesOptions): Promise<NodeProxy[]> {
  const started: NodeProxy[] = [];
  try {
    for (let i = 0; i < options.nodes.length; i += START_CONCURRENCY) {
      const batch = options.nodes.slice(i, i + START_CONCURRENCY);
      const results = await Promise.allSettled(batch.map((n) => startOne(n, options)));
      for (const r of results) if (r.status === 'fulfilled') started.push(r.value);
      const failed = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
      if (failed !== undefined) throw failed.reason;
    }
  } catch (error) {
    await stopInThread(started);
    throw error;
  }
  return started;
}

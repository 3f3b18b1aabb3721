// What the kube-proxy workers and the thread that starts them say to each other. Everything
// here crosses a MessagePort, so it is plain data (structured clone): no functions, no classes.
import type { ServiceNetworking } from '@kubesvc/api-types';
import type { LogLevel } from '@kubesvc/apiserver';

/** One node's kube-proxy, as a worker starts it. */
export interface ProxyWorkerNode {
  readonly name: string;
  /** The node's InternalIP: kube-proxy's node IP. */
  readonly internalIP: string;
  /** The node's labels (topology.kubernetes.io/zone for topology hints). */
  readonly labels?: Readonly<Record<string, string>>;
  /** Where its rules files go (`<dataDir>/iptables/`, `<dataDir>/nftables/`); made if missing. */
  readonly dataDir: string;
}

/** What every agent of a worker shares. */
export interface ProxyWorkerSettings {
  readonly apiURL: string;
  readonly token: string;
  readonly ca?: string;
  readonly proxyMode: 'iptables' | 'nftables';
  readonly clusterCIDR?: string;
  readonly serviceNetworking?: ServiceNetworking;
  readonly preferSameTrafficDistribution?: boolean;
  readonly minSyncPeriodMs?: number;
  /** rules.txt and rules.save.txt (iptables mode), ruleset.nft (nftables mode) at most this often (NodeAgentOptions.iptables / nftables.tablesFilesIntervalMs). */
  readonly tablesFilesIntervalMs?: number;
  /** Agents a worker starts at once (each lists through the API). */
  readonly startConcurrency: number;
  /** Whether to post kube-proxy's metrics to the starting thread. */
  readonly metrics: boolean;
  /** The worker's sources share one ObjectInterner (same resource, key and resourceVersion: one object kept). */
  readonly shareObjects: boolean;
}

export interface ProxyWorkerData {
  readonly nodes: readonly ProxyWorkerNode[];
  readonly settings: ProxyWorkerSettings;
}

/** One node's figures, for status and benches. */
export interface ProxyWorkerNodeStats {
  readonly nodeName: string;
  /** Watch events its source received, per resource. */
  readonly events: { readonly services: number; readonly endpointslices: number };
  /** The highest resourceVersion among the changes its source delivered to the agent. */
  readonly deliveredRevision: number;
  /** deliveredRevision as it stood when the agent's last applied sync ran: every change up to it is in the rules. */
  readonly appliedRevision: number;
  /** Syncs applied. */
  readonly syncs: number;
}

export interface ProxyWorkerStats {
  readonly worker: number;
  /** The worker's own V8 heap, used bytes. */
  readonly heapUsed: number;
  /** Bytes of its array buffers, outside the heap (the restore texts' and rendered Services' bytes). */
  readonly arrayBuffers: number;
  /** Objects its sources share (shareObjects), 0 otherwise. */
  readonly shared: number;
  readonly nodes: readonly ProxyWorkerNodeStats[];
}

/** Metric observations since the last batch, per node. */
export interface ProxyMetricsBatch {
  readonly node: string;
  readonly syncDurations: readonly number[];
  /** The last applied sync's time (ms since the epoch), if one was applied since the last batch. */
  readonly applied?: number;
  readonly programmed: readonly number[];
}

/** `gc`: a full collection first, so that heapUsed is what is held. */
export type ToWorker = { readonly type: 'stats'; readonly id: number; readonly gc?: boolean } | { readonly type: 'stop' };

export type FromWorker =
  | { readonly type: 'ready'; readonly nodes: readonly { readonly nodeName: string; readonly rules: string }[] }
  | { readonly type: 'start-failed'; readonly message: string }
  | { readonly type: 'log'; readonly level: LogLevel; readonly line: string }
  | { readonly type: 'metrics'; readonly batch: readonly ProxyMetricsBatch[] }
  | { readonly type: 'stats'; readonly id: number; readonly heapUsed: number; readonly arrayBuffers: number; readonly shared: number; readonly nodes: readonly ProxyWorkerNodeStats[] }
  | { readonly type: 'stopped' };

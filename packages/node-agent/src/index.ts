// Public API of @kubesvc/node-agent: what a node runs besides the kubelet's pod work, fed by the
// runtime's informer. Cluster DNS, kube-proxy (iptables, nftables or userspace) and the pod environment;
// the atomic write and the write-failure counter `kubesvc up` shares with the rules files.
export { DEFAULT_DNS_PORT, startNodeAgent } from './node-agent.js';
export { writeFileAtomic, writeFileAtomicSync, type FileContent } from './atomic-write.js';
export { WriteFailures } from './write-failures.js';
export type { ErrNodeAgent, ErrNodeAgentConfig, NodeAgent, NodeAgentOptions, NodeAgentSource, ProxyMode } from './node-agent.js';
// A source fed through the HTTP API (list, then watch, as a kube-proxy's reflectors), for an
// agent that does not share the control plane's process memory.
export { BACKOFF_INITIAL_MS, BACKOFF_MAX_MS, MIN_WATCH_TIMEOUT_SECONDS, collectionPath, createObjectInterner, startApiSource } from './api-source.js';
export type { ApiSource, ApiSourceOptions, ObjectInterner, ReflectorStats } from './api-source.js';
// The agent logs to @kubesvc/runtime's Logger; logLine writes its klog-style key=value figures.
export type { NodeAgentLogFields } from './logger.js';
export { logLine } from './logger.js';
export type { DnsRebuild } from './cluster-dns.js';
export {
  DEFAULT_BURST_SYNCS,
  DEFAULT_FULL_SYNC_PERIOD_MS,
  DEFAULT_MIN_SYNC_PERIOD_MS,
  DEFAULT_SYNC_PERIOD_MS,
} from './proxy-sync-loop.js';
export type { ProxySyncReport } from './proxy-sync-loop.js';
export { iptablesFiles } from './iptables-proxy.js';
export type { IptablesFiles, IptablesSyncReport } from './iptables-proxy.js';
export type { ProxyPort } from './userspace-proxy.js';
export type { PodEnvironmentOptions } from './pod-environment.js';
// The data plane the agent takes: files by default; the netns one is `@kubesvc/node-agent/netns`.
export type { Dataplane, DataplaneContext, DataplaneFactory, ErrDataplane } from './dataplane.js';
export { filesDataplane } from './dataplane.js';
export type { IptablesLoader } from './iptables-proxy.js';
export { loadableDump, nftablesFiles } from './nftables-proxy.js';
export type { NftablesFiles, NftablesLoader, NftablesSyncReport } from './nftables-proxy.js';
// kube-proxy's metrics, made once per process on the registry /metrics serves.
export { createProxyMetrics, NETWORK_PROGRAMMING_DURATION_BUCKETS, SYNC_PROXY_RULES_DURATION_BUCKETS } from './proxy-metrics.js';
export type { NodeProxyMetrics, ProxyMetrics } from './proxy-metrics.js';
export { ANNOTATION_LAST_CHANGE_TRIGGER_TIME, parseRFC3339Nano } from './network-programming.js';
// API-fed kube-proxies on worker threads (`kubesvc up --nodes N`, the scale bench).
export { assignNodes, defaultProxyWorkers, startProxyWorkers } from './workers/proxy-workers.js';
export type { ProxyWorkerNode, ProxyWorkerNodeStats, ProxyWorkers, ProxyWorkersOptions, ProxyWorkerStats } from './workers/proxy-workers.js';

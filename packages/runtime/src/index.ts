// Public API of @kubesvc/runtime: the store (etcd v3's model) with its memory, SQLite and etcd
// backends, its typed errors, the clocks the shell runs on, the registry, the controller host,
// the node agent and the HTTP API. The controllers and their contract are @kubesvc/controllers.
export type { CancelTimer, Clock } from './clock.js';
export { systemClock } from './system-clock.js';
export { virtualClock } from './virtual-clock.js';
export type { VirtualClock } from './virtual-clock.js';
export { ErrCompacted, ErrDuplicateKey, ErrFutureRevision, ErrLeaseNotFound, ErrStoreClosed } from './store/errors.js';
export type { StoreError } from './store/errors.js';
export type {
  Compare,
  CompareOp,
  CompareTarget,
  GetResult,
  KeyValue,
  Lease,
  LeaseId,
  RangeOptions,
  RangeResult,
  Store,
  TxnOp,
  TxnOpResult,
  TxnResult,
  Watch,
  WatchEvent,
  WatchOptions,
} from './store/types.js';
export { openMemoryStore } from './store/memory/memory-store.js';
export type { MemoryStoreOptions } from './store/memory/memory-store.js';
export { openSqliteStore } from './store/sqlite/sqlite-store.js';
export type { SqliteStoreOptions, SqliteSynchronous } from './store/sqlite/sqlite-store.js';
export { openEtcdStore } from './store/etcd/etcd-store.js';
export type { EtcdStoreOptions } from './store/etcd/etcd-store.js';
export * from './registry/index.js';
export { printTable, printWatchEventTable, type PrintTableContext, type Table } from './api/table/index.js';
export { startInformer } from './host/informer.js';
export { COMPACT_REV_KEY, DEFAULT_COMPACTION_INTERVAL_MS, compactRound, startCompactor } from './host/compactor.js';
export type { CompactRoundResult, Compactor, CompactorOptions, CompactorState } from './host/compactor.js';
export type { Informer, InformerOptions } from './host/informer.js';
export { consoleLogger, recordingLogger, silentLogger } from './host/logger.js';
export type { Logger, LogLevel, RecordingLogger } from './host/logger.js';
export { BACKOFF_BASE_MS, BACKOFF_MAX_MS, BUCKET_BURST, BUCKET_QPS, ControllerRateLimiter, WorkQueue } from './host/workqueue.js';
export type { RateLimiterOptions } from './host/workqueue.js';
export { startControllerRunner } from './host/controller-runner.js';
export type { ControllerRunner, ControllerRunnerOptions } from './host/controller-runner.js';
export { BOOTSTRAP_RESOURCES, reducerError, startBootstrapHost } from './host/bootstrap-host.js';
export type { BootstrapHost, BootstrapHostOptions } from './host/bootstrap-host.js';
export { startControlPlane } from './control-plane.js';
export type { ControlPlane, ControlPlaneError, ControlPlaneOptions, ControlPlaneResult } from './control-plane.js';
// The node agent (node/): cluster DNS, kube-proxy (iptables or userspace) and the pod environment, fed by an informer.
export { DEFAULT_DNS_PORT, startNodeAgent } from './node/node-agent.js';
export type { ErrNodeAgent, ErrNodeAgentConfig, NodeAgent, NodeAgentOptions, NodeAgentSource, ProxyMode } from './node/node-agent.js';
export type { NodeAgentLogFields, NodeAgentLogger, NodeAgentLogLevel } from './node/logger.js';
export { logLine, quietNodeLogger } from './node/logger.js';
export type { DnsRebuild } from './node/cluster-dns.js';
export {
  DEFAULT_BURST_SYNCS,
  DEFAULT_FULL_SYNC_PERIOD_MS,
  DEFAULT_MIN_SYNC_PERIOD_MS,
  DEFAULT_SYNC_PERIOD_MS,
  iptablesFiles,
} from './node/iptables-proxy.js';
export type { IptablesFiles, IptablesSyncReport } from './node/iptables-proxy.js';
export type { ProxyPort } from './node/userspace-proxy.js';
export type { PodEnvironmentOptions } from './node/pod-environment.js';
export type { ErrDataplane } from './node/netns-dataplane.js';
export { netnsUnavailable } from './node/netns-dataplane.js';
export * from './api/index.js';

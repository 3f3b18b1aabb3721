// Public API of @kubesvc/runtime: the controller host, the control plane and the node agent.
// The store, its backends, the compactor and the clocks are @kubesvc/store's (and its /sqlite
// and /etcd subpaths); the registry, the HTTP API and the Logger are @kubesvc/apiserver's; the
// controllers and their contract are @kubesvc/controllers'.
export { startInformer } from './host/informer.js';
export type { Informer, InformerOptions } from './host/informer.js';
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
export { writeFileAtomic, writeFileAtomicSync } from './node/atomic-write.js';
export { WriteFailures } from './node/write-failures.js';
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

// Public API of @kubesvc/runtime: the informer, the workqueue, the controller host and the
// control plane. The store, its backends, the compactor and the clocks are @kubesvc/store's (and
// its /sqlite and /etcd subpaths); the registry, the HTTP API and the Logger are
// @kubesvc/apiserver's; the controllers and their contract are @kubesvc/controllers'; the node
// agent is @kubesvc/node-agent's.
export { startInformer } from './host/informer.js';
export type { Informer, InformerOptions } from './host/informer.js';
export { BACKOFF_BASE_MS, BACKOFF_MAX_MS, BUCKET_BURST, BUCKET_QPS, ControllerRateLimiter, WorkQueue } from './host/workqueue.js';
export type { RateLimiterOptions } from './host/workqueue.js';
export { startControllerRunner } from './host/controller-runner.js';
export type { ControllerRunner, ControllerRunnerOptions } from './host/controller-runner.js';
export { BOOTSTRAP_RESOURCES, reducerError, startBootstrapHost } from './host/bootstrap-host.js';
export type { BootstrapHost, BootstrapHostOptions } from './host/bootstrap-host.js';
export { startDefaultServiceCIDRHost } from './host/default-service-cidr-host.js';
export type { DefaultServiceCIDRHost, DefaultServiceCIDRHostOptions } from './host/default-service-cidr-host.js';
export { IP_ADDRESS_REPAIR_MAX_RETRIES, IP_ADDRESS_REPAIR_RESOURCES, startIPAddressRepairHost } from './host/ip-address-repair-host.js';
export type { IPAddressRepairHost, IPAddressRepairHostOptions, IPAddressRepairPhase } from './host/ip-address-repair-host.js';
export { startControlPlane } from './control-plane.js';
export { EventRecorder } from './host/events.js';
export type { CoreEvent, EventRegarding } from './host/events.js';
export type { ControlPlane, ControlPlaneError, ControlPlaneOptions, ControlPlaneResult } from './control-plane.js';

// Public API of @kubesvc/runtime: the registry, the controller host and the HTTP API. The store,
// its backends, the compactor and the clocks are @kubesvc/store's (and its /sqlite and /etcd
// subpaths); the controllers and their contract are @kubesvc/controllers'; the node agent is
// @kubesvc/node-agent's.
export * from './registry/index.js';
export { printTable, printWatchEventTable, type PrintTableContext, type Table } from './api/table/index.js';
export { startInformer } from './host/informer.js';
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
export * from './api/index.js';

// Public API of @kubesvc/runtime: the store (etcd v3's model) with its memory and SQLite
// backends, its typed errors, the clocks the shell runs on, and the registry.
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
export * from './registry/index.js';
export type { CacheChange, CacheView, KeyedController, ReconcileAction } from './host/types.js';
export { endpointsController } from './controllers/endpoints-controller.js';
export { DEFAULT_MAX_ENDPOINTS_PER_SLICE, endpointSliceController } from './controllers/endpoint-slice-controller.js';
export type { EndpointSliceControllerOptions } from './controllers/endpoint-slice-controller.js';
export { DEFAULT_MIRRORING_MAX_ENDPOINTS_PER_SUBSET, endpointSliceMirroringController } from './controllers/endpoint-slice-mirroring-controller.js';
export type { EndpointSliceMirroringControllerOptions } from './controllers/endpoint-slice-mirroring-controller.js';
export { simulatedKubelet } from './controllers/simulated-kubelet.js';
export type { SimulatedKubeletOptions, SimulatedNode } from './controllers/simulated-kubelet.js';

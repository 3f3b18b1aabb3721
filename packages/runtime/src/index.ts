// Public API of @kubesvc/runtime: the store (etcd v3's model) with its memory, SQLite and etcd
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
export { openEtcdStore } from './store/etcd/etcd-store.js';
export type { EtcdStoreOptions } from './store/etcd/etcd-store.js';
export * from './registry/index.js';

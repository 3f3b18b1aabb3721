// Public API of @kubesvc/store: the Store interface (etcd v3's model), its typed errors, the
// memory backend, the compactor and the clocks the store and the shell above it run on. The
// SQLite and etcd backends are the subpaths @kubesvc/store/sqlite and @kubesvc/store/etcd, so
// importing this entry point loads neither better-sqlite3 nor etcd3.
export type { CancelTimer, Clock } from './clock.js';
export { systemClock } from './system-clock.js';
export { virtualClock } from './virtual-clock.js';
export type { VirtualClock } from './virtual-clock.js';
export { ErrCompacted, ErrDuplicateKey, ErrFutureRevision, ErrLeaseNotFound, ErrStoreClosed } from './errors.js';
export type { StoreError } from './errors.js';
export type {
  Compare,
  CompareOp,
  CompareTarget,
  GetResult,
  KeyValue,
  Lease,
  LeaseId,
  PutValue,
  RangeOptions,
  RangeResult,
  Store,
  TxnOp,
  TxnOpResult,
  TxnResult,
  Watch,
  WatchEvent,
  WatchOptions,
} from './types.js';
export { compareKeys, lowerBound } from './key-order.js';
export { openMemoryStore } from './memory/memory-store.js';
export type { MemoryStoreOptions } from './memory/memory-store.js';
export { COMPACT_REV_KEY, DEFAULT_COMPACTION_INTERVAL_MS, compactRound, startCompactor } from './compactor.js';
export type { CompactRoundResult, Compactor, CompactorLogger, CompactorOptions, CompactorState } from './compactor.js';
export { TokenBucket } from './token-bucket.js';
export type { TokenBucketOptions } from './token-bucket.js';

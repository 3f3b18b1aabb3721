// The store: one interface with etcd v3's data model, implemented by the memory, SQLite and
// etcd backends and checked by one conformance suite (store.conformance.ts).
// upstream model: etcd api/mvccpb/kv.proto and api/etcdserverpb/rpc.proto (KeyValue, Compare,
// RequestOp, TxnResponse, WatchResponse, LeaseGrant/KeepAlive/Revoke, Compaction).
//
// Keys and values are strings: keys are the /registry/... paths Kubernetes uses, values are
// the JSON of v1 objects. A put may hand its value over as UTF-8 bytes instead (PutValue); reads
// give every value back as text. Revisions are plain numbers (safe up to 2^53).

/** A lease id, as etcd's int64 in decimal. `undefined`/absent means no lease. */
export type LeaseId = string;

export interface KeyValue {
  readonly key: string;
  readonly value: string;
  /** The revision of the put that created this key (since its last delete). */
  readonly createRevision: number;
  /** The revision of the last put to this key. */
  readonly modRevision: number;
  /** 1 after the create, +1 per put; a delete resets it. */
  readonly version: number;
  readonly lease?: LeaseId;
}

export type CompareTarget = 'value' | 'modRevision' | 'createRevision' | 'version';
export type CompareOp = '=' | '!=' | '<' | '>';

/**
 * One condition of a txn. As in etcd, a missing key has createRevision, modRevision and
 * version 0 and never compares equal on `value`.
 */
export type Compare =
  | { readonly key: string; readonly target: 'value'; readonly op: CompareOp; readonly value: string }
  | { readonly key: string; readonly target: 'modRevision' | 'createRevision' | 'version'; readonly op: CompareOp; readonly value: number };

/**
 * A put's value: text, or the UTF-8 bytes of the text. Bytes let a writer that rewrites one large
 * value again and again (the allocator's range objects, 175 KB for a /12) keep one buffer and
 * change the parts that changed, instead of making a new string of the whole per write: each
 * such string is fresh memory, faulted in page by page. The store reads the bytes while it runs
 * the txn, which may be after txn() returned (the SQLite store's group commit runs on the next
 * turn of the event loop), so the caller leaves them unchanged until the txn's promise settles.
 */
export type PutValue = string | Uint8Array;

export type TxnOp =
  | { readonly kind: 'put'; readonly key: string; readonly value: PutValue; readonly lease?: LeaseId }
  | { readonly kind: 'delete'; readonly key: string }
  | { readonly kind: 'get'; readonly key: string };

export type TxnOpResult =
  | { readonly kind: 'put'; readonly prevKv?: KeyValue }
  | { readonly kind: 'delete'; readonly deleted: 0 | 1; readonly prevKv?: KeyValue }
  | { readonly kind: 'get'; readonly kv?: KeyValue };

export interface TxnResult {
  readonly succeeded: boolean;
  /** The store's revision after the txn: one more than before if any branch op wrote. */
  readonly revision: number;
  /** One result per op of the branch that ran, in order. */
  readonly results: readonly TxnOpResult[];
}

export interface RangeOptions {
  /** At most this many keys; 0 or absent is no limit. */
  readonly limit?: number;
  /** Start at this key (inclusive), as a list's `continue` token resumes. */
  readonly continueKey?: string;
  /** Read the state as of this revision; below the compacted revision is ErrCompacted. */
  readonly revision?: number;
}

export interface RangeResult {
  /** Keys in byte order (etcd's order). */
  readonly kvs: readonly KeyValue[];
  /** True when `limit` cut the list short. */
  readonly more: boolean;
  /** The revision the read was served at. */
  readonly revision: number;
}

export interface GetResult {
  readonly kv?: KeyValue;
  readonly revision: number;
}

export interface WatchEvent {
  readonly type: 'put' | 'delete';
  /** For a delete, `value` is empty and `modRevision` is the delete's revision. */
  readonly kv: KeyValue;
  /** The key's value before this event; absent for a create. */
  readonly prevKv?: KeyValue;
}

export interface WatchOptions {
  /**
   * Deliver every event with revision >= fromRevision, then live ones. Absent: live events
   * only (those after the current revision). A fromRevision at or below the compacted
   * revision makes the iterator throw ErrCompacted.
   */
  readonly fromRevision?: number;
}

/** An async iterable of events in revision order; `close()` ends it. */
export interface Watch extends AsyncIterable<WatchEvent> {
  close(): void;
}

export interface Lease {
  readonly id: LeaseId;
  /** The granted TTL in seconds. */
  readonly ttlSeconds: number;
}

export interface Store {
  readonly backend: 'memory' | 'sqlite' | 'etcd';
  get(key: string, options?: { readonly revision?: number }): Promise<GetResult>;
  /** Every key that starts with `prefix`. */
  range(prefix: string, options?: RangeOptions): Promise<RangeResult>;
  txn(compares: readonly Compare[], onSuccess: readonly TxnOp[], onFailure?: readonly TxnOp[]): Promise<TxnResult>;
  watch(prefix: string, options?: WatchOptions): Watch;
  grant(ttlSeconds: number): Promise<Lease>;
  /** Renews the lease's TTL; rejects with ErrLeaseNotFound once it has expired or been revoked. */
  keepAlive(id: LeaseId): Promise<Lease>;
  /** Deletes the lease and every key attached to it (each a watch delete event). */
  revoke(id: LeaseId): Promise<void>;
  /** Forgets history at or below `revision`; reads and watches there fail with ErrCompacted. */
  compact(revision: number): Promise<void>;
  /** The current revision (the highest one written; 0 for an empty store never written). */
  revision(): Promise<number>;
  close(): Promise<void>;
}

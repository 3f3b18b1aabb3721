// The memory backend: etcd v3's MVCC model held in process memory, with time injected so
// that lease expiry runs on a virtual clock in tests and properties.
//
// State: for every key, its history (one entry per write: a KeyValue, or a tombstone for a
// delete) in revision order, kept until compaction; a sorted index of the keys that have
// any history, a B+ tree (sorted-btree), where a new key costs a few comparisons and no move of
// the keys after it; and the event log the watches replay from. Every operation runs to completion
// synchronously when called, so operations take effect in call order, and a watch that
// starts from revision r sees the log up to now and then every later commit, with no gap.
// upstream model: etcd server/storage/mvcc (kvstore, key_index, watchable_store) and
// server/lease/lessor.go.
import { createRequire } from 'node:module';
import type SortedBtree from 'sorted-btree';
import type { Clock } from '../clock.js';
import { systemClock } from '../system-clock.js';
import { ErrCompacted, ErrLeaseNotFound, ErrStoreClosed } from '../errors.js';
import { compareKeys, isPlainKey, nativeOrder } from '../key-order.js';
import { checkCompact, checkTtl, putValueText, readRevision, txnBranch } from '../txn-rules.js';
import type {
  Compare,
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
} from '../types.js';
import { WatchHub, WatchStream } from '../watch-stream.js';

export interface MemoryStoreOptions {
  /** Drives lease expiry. Default: the system clock. */
  readonly clock?: Clock;
}

interface Entry {
  readonly revision: number;
  /** Absent: the key was deleted at this revision. */
  readonly kv: KeyValue | undefined;
}

interface LogEntry {
  readonly revision: number;
  readonly event: WatchEvent;
}

interface LeaseState {
  readonly id: LeaseId;
  readonly ttlSeconds: number;
  cancelTimer: () => void;
  /** Keys whose current value is attached to this lease. */
  readonly keys: Set<string>;
}

const noTimer = (): void => undefined;

// sorted-btree is CommonJS with its class on `exports.default`. A default import reads that
// differently under Node's ESM loader (module.exports) and vitest (its `default`); require reads
// it the same way under both.
const { default: BTree } = createRequire(import.meta.url)('sorted-btree') as typeof SortedBtree;

type KeyIndex = SortedBtree.default<string, undefined>;

/** An empty sorted set of keys, ordered by `order`. */
function keyIndex(order: (a: string, b: string) => number): KeyIndex {
  return new BTree<string, undefined>(undefined, order);
}

/** Opens an empty in-memory store. */
export function openMemoryStore(options: MemoryStoreOptions = {}): Store {
  return new MemoryStore(options.clock ?? systemClock);
}

class MemoryStore implements Store {
  readonly backend = 'memory' as const;
  private current = 0;
  private compacted = 0;
  private closed = false;
  private nextLease = 1;
  private readonly history = new Map<string, Entry[]>();
  /**
   * The keys with any history, sorted. It was a sorted array, where inserting a key moved every
   * key after it: 20 to 40 µs per new key in a store of 30,000 keys, growing with the store.
   *
   * While every key in it is plain (no code unit at or above U+D800, as in every key whose name
   * is a DNS label or subdomain), the tree compares with JavaScript's `<`: each comparison it
   * makes involves one of its keys, so `<` gives etcd's byte order there, and costs a native call
   * instead of compareKeys' walk along the common prefix (a 40,000-key insert test: 0.5 to 1.0 µs
   * an insert against 2.6 to 3.7). The first key that is not plain rebuilds it with compareKeys,
   * for good.
   */
  private sortedKeys = keyIndex(nativeOrder);
  private byteOrdered = false;
  private log: LogEntry[] = [];
  private readonly leases = new Map<LeaseId, LeaseState>();
  private readonly hub = new WatchHub();

  constructor(private readonly clock: Clock) {}

  private open(): void {
    if (this.closed) throw new ErrStoreClosed();
  }

  private readRevision(revision: number | undefined): number {
    return readRevision(revision, this.current, this.compacted);
  }

  private latest(key: string): KeyValue | undefined {
    const entries = this.history.get(key);
    return entries === undefined ? undefined : entries[entries.length - 1]?.kv;
  }

  private at(key: string, revision: number): KeyValue | undefined {
    const entries = this.history.get(key);
    if (entries === undefined) return undefined;
    for (let i = entries.length - 1; i >= 0; i--) {
      const entry = entries[i] as Entry;
      if (entry.revision <= revision) return entry.kv;
    }
    return undefined;
  }

  get(key: string, options: { readonly revision?: number } = {}): Promise<GetResult> {
    try {
      this.open();
      const revision = this.readRevision(options.revision);
      const kv = revision === this.current ? this.latest(key) : this.at(key, revision);
      return Promise.resolve(kv === undefined ? { revision } : { kv, revision });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    try {
      this.open();
      const revision = this.readRevision(options.revision);
      const limit = options.limit !== undefined && options.limit > 0 ? options.limit : Infinity;
      const start = options.continueKey !== undefined && compareKeys(options.continueKey, prefix) > 0 ? options.continueKey : prefix;
      const kvs: KeyValue[] = [];
      let more = false;
      for (const key of this.sortedKeys.keys(start)) {
        if (!key.startsWith(prefix)) break;
        const kv = this.at(key, revision);
        if (kv === undefined) continue;
        if (kvs.length >= limit) {
          more = true;
          break;
        }
        kvs.push(kv);
      }
      return Promise.resolve({ kvs, more, revision });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  txn(compares: readonly Compare[], onSuccess: readonly TxnOp[], onFailure: readonly TxnOp[] = []): Promise<TxnResult> {
    try {
      this.open();
      const { succeeded, ops } = txnBranch(compares, (key) => this.latest(key), onSuccess, onFailure, (id) => this.leases.has(id));
      const revision = this.current + 1;
      const events: WatchEvent[] = [];
      const results: TxnOpResult[] = ops.map((op): TxnOpResult => {
        switch (op.kind) {
          case 'get': {
            const kv = this.latest(op.key);
            return kv === undefined ? { kind: 'get' } : { kind: 'get', kv };
          }
          case 'put': {
            const prev = this.latest(op.key);
            this.put(op.key, putValueText(op.value), op.lease, prev, revision, events);
            return prev === undefined ? { kind: 'put' } : { kind: 'put', prevKv: prev };
          }
          case 'delete': {
            const prev = this.latest(op.key);
            if (prev === undefined) return { kind: 'delete', deleted: 0 };
            this.delete(prev, revision, events);
            return { kind: 'delete', deleted: 1, prevKv: prev };
          }
        }
      });
      this.commit(revision, events);
      return Promise.resolve({ succeeded, revision: this.current, results });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  private append(key: string, entry: Entry): void {
    let entries = this.history.get(key);
    if (entries === undefined) {
      entries = [];
      this.history.set(key, entries);
      if (!this.byteOrdered && !isPlainKey(key)) this.orderByBytes();
      this.sortedKeys.set(key, undefined);
    }
    entries.push(entry);
  }

  /** The index, rebuilt to compare with compareKeys: a key that is not plain is coming in. */
  private orderByBytes(): void {
    const index = keyIndex(compareKeys);
    for (const key of this.sortedKeys.keys()) index.set(key, undefined);
    this.sortedKeys = index;
    this.byteOrdered = true;
  }

  private detach(kv: KeyValue): void {
    if (kv.lease !== undefined) this.leases.get(kv.lease)?.keys.delete(kv.key);
  }

  private put(key: string, value: string, lease: LeaseId | undefined, prev: KeyValue | undefined, revision: number, events: WatchEvent[]): void {
    const kv: KeyValue = {
      key,
      value,
      createRevision: prev === undefined ? revision : prev.createRevision,
      modRevision: revision,
      version: prev === undefined ? 1 : prev.version + 1,
      ...(lease === undefined ? {} : { lease }),
    };
    if (prev !== undefined) this.detach(prev);
    if (lease !== undefined) this.leases.get(lease)?.keys.add(key);
    this.append(key, { revision, kv });
    events.push(prev === undefined ? { type: 'put', kv } : { type: 'put', kv, prevKv: prev });
  }

  private delete(prev: KeyValue, revision: number, events: WatchEvent[]): void {
    this.detach(prev);
    this.append(prev.key, { revision, kv: undefined });
    events.push({ type: 'delete', kv: { key: prev.key, value: '', createRevision: 0, modRevision: revision, version: 0 }, prevKv: prev });
  }

  /** Makes a txn's writes one revision (none if nothing was written) and tells the watches. */
  private commit(revision: number, events: WatchEvent[]): void {
    if (events.length === 0) return;
    this.current = revision;
    for (const event of events) this.log.push({ revision, event });
    this.hub.publish(events);
  }

  watch(prefix: string, options: WatchOptions = {}): Watch {
    const stream = new WatchStream((s) => this.hub.remove(s));
    if (this.closed) {
      stream.fail(new ErrStoreClosed());
      return stream;
    }
    const from = options.fromRevision;
    if (from !== undefined && from > 0) {
      if (from <= this.compacted) {
        stream.fail(new ErrCompacted(from, this.compacted));
        return stream;
      }
      let lo = 0;
      let hi = this.log.length;
      while (lo < hi) {
        const mid = (lo + hi) >>> 1;
        if ((this.log[mid] as LogEntry).revision < from) lo = mid + 1;
        else hi = mid;
      }
      for (let i = lo; i < this.log.length; i++) {
        const { event } = this.log[i] as LogEntry;
        if (event.kv.key.startsWith(prefix)) stream.push(event);
      }
    }
    this.hub.add(prefix, stream, from ?? 0);
    return stream;
  }

  grant(ttlSeconds: number): Promise<Lease> {
    try {
      this.open();
      checkTtl(ttlSeconds);
      const id = String(this.nextLease++);
      const state: LeaseState = { id, ttlSeconds, cancelTimer: noTimer, keys: new Set() };
      this.leases.set(id, state);
      this.arm(state);
      return Promise.resolve({ id, ttlSeconds });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  private arm(state: LeaseState): void {
    state.cancelTimer();
    state.cancelTimer = this.clock.setTimer(this.clock.now() + state.ttlSeconds * 1000, () => {
      if (!this.closed && this.leases.get(state.id) === state) this.expire(state);
    });
  }

  keepAlive(id: LeaseId): Promise<Lease> {
    try {
      this.open();
      const state = this.leases.get(id);
      if (state === undefined) throw new ErrLeaseNotFound(id);
      this.arm(state);
      return Promise.resolve({ id, ttlSeconds: state.ttlSeconds });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  revoke(id: LeaseId): Promise<void> {
    try {
      this.open();
      const state = this.leases.get(id);
      if (state === undefined) throw new ErrLeaseNotFound(id);
      this.expire(state);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /**
   * Drops a lease and deletes its keys, all in one revision, in key order.
   * upstream: etcd server/lease/lessor.go Revoke (one txn deleting the lease's keys, sorted).
   */
  private expire(state: LeaseState): void {
    state.cancelTimer();
    this.leases.delete(state.id);
    const revision = this.current + 1;
    const events: WatchEvent[] = [];
    for (const key of [...state.keys].sort(compareKeys)) {
      const prev = this.latest(key);
      if (prev !== undefined) this.delete(prev, revision, events);
    }
    this.commit(revision, events);
  }

  compact(revision: number): Promise<void> {
    try {
      this.open();
      checkCompact(revision, this.current, this.compacted);
      this.compacted = revision;
      // Keep, for every key, its entries after `revision` and the one in force at `revision`
      // (unless that is a tombstone), as etcd's keyIndex.compact does.
      const gone: string[] = [];
      for (const key of this.sortedKeys.keys()) {
        const entries = this.history.get(key) as Entry[];
        let first = entries.length;
        while (first > 0 && (entries[first - 1] as Entry).revision > revision) first--;
        const inForce = entries[first - 1];
        const kept = entries.slice(inForce?.kv === undefined ? first : first - 1);
        if (kept.length === 0) {
          this.history.delete(key);
          gone.push(key);
        } else {
          this.history.set(key, kept);
        }
      }
      // After the walk: the tree is not changed while its iterator runs.
      for (const key of gone) this.sortedKeys.delete(key);
      let drop = 0;
      while (drop < this.log.length && (this.log[drop] as LogEntry).revision <= revision) drop++;
      this.log = this.log.slice(drop);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  revision(): Promise<number> {
    return this.closed ? Promise.reject(new ErrStoreClosed()) : Promise.resolve(this.current);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const state of this.leases.values()) state.cancelTimer();
    this.hub.closeAll();
    return Promise.resolve();
  }
}

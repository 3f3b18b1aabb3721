// The SQLite backend, kubesvc's embedded default: etcd v3's model over one append-only log
// table (schema.ts), through better-sqlite3.
//
// - Every write is in a SQLite transaction (BEGIN IMMEDIATE ... COMMIT). txn(), revoke() and
//   compact() resolve only after their COMMIT returned, so an acknowledged write is in the
//   database file (its WAL); see the README's "Durability" for what `synchronous` promises.
// - Group commit: the txns asked for within one turn of the event loop (concurrent API
//   requests) run one after the other in ONE SQLite transaction, each in a savepoint of its
//   own and at a revision of its own, and resolve once that transaction committed: a commit
//   costs a write of the WAL, the same for one small row as for ten. A read or a watch sees the
//   txns that have resolved, as a read from etcd sees the writes acknowledged before it (one
//   asked for and not yet resolved is not in it yet); a lease call, a compaction and close first
//   run the txns asked for before them, so the writes keep the order they were asked in.
// - One process serves one database file: the connection takes SQLite's EXCLUSIVE locking mode,
//   so a second process opening the same file fails at once with "database is locked" instead
//   of writing behind the first one's watches. Watches are fanned out in process, right after
//   each commit; a watch from a past revision replays the log table first, synchronously,
//   so there is no gap between history and live events.
// - Lease expiry runs on the injected Clock's timers. On open, every stored lease gets a fresh
//   TTL from now, as etcd's lessor does when it is promoted after a restart
//   (upstream: etcd server/lease/lessor.go Promote, "refresh the expiries of all leases").
import { closeSync, openSync } from 'node:fs';
import { constants as zlibConstants, deflateRawSync, inflateRawSync } from 'node:zlib';
import Database from 'better-sqlite3';
import type { Clock } from '../clock.js';
import { systemClock } from '../system-clock.js';
import { ErrCompacted, ErrLeaseNotFound, ErrStoreClosed } from '../errors.js';
import { compareKeys, isPlainKey } from '../key-order.js';
import { checkCompact, checkTtl, putValueText, readRevision, txnBranch } from '../txn-rules.js';
import type {
  Compare,
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
} from '../types.js';
import { WatchHub, WatchStream } from '../watch-stream.js';
import { SCHEMA, SCHEMA_VERSION, type LogRow } from './schema.js';

/**
 * SQLite's `synchronous` setting in WAL mode.
 * - 'NORMAL' (the default): a commit is durable against a crash of the process (the WAL is in
 *   the operating system's page cache once COMMIT returns), and the database is never corrupted;
 *   a power loss or kernel crash may lose the last commits before a checkpoint.
 * - 'FULL': the WAL is fsync'd at every commit, so a commit also survives a power loss, at the
 *   cost of one fsync per write.
 */
export type SqliteSynchronous = 'NORMAL' | 'FULL';

export interface SqliteStoreOptions {
  /** The database file; created if missing. */
  readonly path: string;
  /** Drives lease expiry. Default: the system clock. */
  readonly clock?: Clock;
  /** Default 'NORMAL' (see SqliteSynchronous). */
  readonly synchronous?: SqliteSynchronous;
}

interface PrevColumns {
  readonly p_revision: number | null;
  readonly p_deleted: number | null;
  readonly p_create_revision: number | null;
  readonly p_version: number | null;
  readonly p_lease: number | null;
  readonly p_value: string | Buffer | null;
}

type EventRow = LogRow & PrevColumns;

/** A txn asked for and not yet run (see flush). */
interface PendingTxn {
  readonly compares: readonly Compare[];
  readonly onSuccess: readonly TxnOp[];
  readonly onFailure: readonly TxnOp[];
  readonly resolve: (r: TxnResult) => void;
  readonly reject: (e: Error) => void;
}

/** One txn as run within a group commit: its outcome, and its events and revision for after the commit. */
type RunTxn =
  | {
      readonly ok: true;
      readonly succeeded: boolean;
      readonly results: readonly TxnOpResult[];
      readonly events: readonly WatchEvent[];
      readonly revision: number;
      /** The rows its puts wrote: id and value. */
      readonly written: readonly [number, StoredValue][];
    }
  | { readonly ok: false; readonly error: Error };

/**
 * Values of this many characters (a string) or bytes (a Uint8Array) and more are stored deflated
 * (zlib's raw deflate, DEFLATE_OPTIONS), as a BLOB. The allocator's range object for a /12 is
 * 175 KB of JSON, mostly base64 of zero bytes, rewritten on every batch of allocations: deflated
 * it is a few KB, and a write of it, deflating included, took half the CPU time of binding the
 * text (a loop of 1,500 such writes, 256 against 512 µs each). A read inflates it again.
 */
const DEFLATE_MIN = 64 * 1024;

/**
 * Level 1 with run-length matching only: a range object's zero bytes are long runs of one letter.
 * On a /12's 175 KB with random allocations (one machine, one run): 500 taken, 221 µs and 1.4 KB
 * against 335 µs and 2.9 KB for plain level 1; 5,000 taken, 102 µs and 9 KB against 275 µs and
 * 15 KB; 50,000 taken, 1.2 ms and 45 KB against 1.5 ms and 57 KB.
 */
const DEFLATE_OPTIONS = { level: 1, strategy: zlibConstants.Z_RLE };

/** A large value as the log table holds it: its UTF-8, deflated; the text is made when read. */
class Deflated {
  constructor(readonly data: Buffer) {}

  text(): string {
    return inflateRawSync(this.data).toString('utf8');
  }
}

/** A value as the store keeps it: text, or deflated (DEFLATE_MIN). */
type StoredValue = string | Deflated;

/** A column read from the log table: text, or the BLOB of a deflated value. */
function storedOf(column: string | Buffer | StoredValue): StoredValue {
  return typeof column === 'string' || column instanceof Deflated ? column : new Deflated(column);
}

/** What a put binds into the log table, and what the store keeps of it. */
function encodeValue(value: PutValue): { readonly column: string | Buffer; readonly stored: StoredValue } {
  const size = typeof value === 'string' ? value.length : value.byteLength;
  if (size < DEFLATE_MIN) {
    const text = putValueText(value);
    return { column: text, stored: text };
  }
  const data = deflateRawSync(value, DEFLATE_OPTIONS);
  return { column: data, stored: new Deflated(data) };
}

/** The size a value takes in memory: a string's characters, a deflated value's bytes. */
function storedSize(value: StoredValue): number {
  return typeof value === 'string' ? value.length : value.data.length;
}

/**
 * A KeyValue. A deflated value is inflated when `value` is first read (an own, enumerable
 * getter, so a spread or JSON.stringify of the KeyValue still carries the text): a watcher that
 * skips the key by its name (the runtime's informer skips the range objects) never pays for it.
 */
function kvOf(key: string, value: StoredValue, createRevision: number, modRevision: number, version: number, lease: LeaseId | undefined): KeyValue {
  if (typeof value === 'string') {
    return lease === undefined ? { key, value, createRevision, modRevision, version } : { key, value, createRevision, modRevision, version, lease };
  }
  let text: string | undefined;
  const kv: { -readonly [K in keyof KeyValue]: KeyValue[K] } = {
    key,
    get value() {
      return (text ??= value.text());
    },
    createRevision,
    modRevision,
    version,
  };
  if (lease !== undefined) kv.lease = lease;
  return kv;
}

/** A log row with its value as the store keeps it. */
type StoredRow = Omit<LogRow, 'value'> & { readonly value: StoredValue };

/** name, id, create_revision, revision, version, lease: a range reads the values by id (ValueCache). */
type RangeRow = [string, number, number, number, number, number];

/**
 * Values of log rows by row id, the newest written last. A row never changes once written (the
 * log is append-only, and AUTOINCREMENT never gives an id twice), so a cached value is never
 * stale: a range reads the ids of the rows in force and takes each value from here, instead of
 * SQLite making a fresh copy of every value on every list (most of a 10,000-object list's
 * memory). Rows are cached as they are committed and as they are read, and the oldest go first
 * once the values cached exceed the budget. Rows deleted by compaction are never asked for
 * again and leave as the budget turns over.
 */
class ValueCache {
  private readonly small = new Budgeted(VALUE_CACHE_CHARS);
  private readonly large = new Budgeted(LARGE_VALUE_CACHE_CHARS);

  get(id: number): StoredValue | undefined {
    return this.small.get(id) ?? this.large.get(id);
  }

  set(id: number, value: StoredValue): void {
    (typeof value !== 'string' || value.length > MAX_SMALL_VALUE_CHARS ? this.large : this.small).set(id, value);
  }
}

/** Values by id within a budget of characters (the bytes of a deflated one); the oldest go first. */
class Budgeted {
  private readonly values = new Map<number, StoredValue>();
  private chars = 0;

  constructor(private readonly budgetChars: number) {}

  get(id: number): StoredValue | undefined {
    return this.values.get(id);
  }

  set(id: number, value: StoredValue): void {
    const size = storedSize(value);
    if (size > this.budgetChars || this.values.has(id)) return;
    this.values.set(id, value);
    this.chars += size;
    if (this.chars <= this.budgetChars) return;
    for (const [oldest, v] of this.values) {
      this.values.delete(oldest);
      this.chars -= storedSize(v);
      if (this.chars <= this.budgetChars) break;
    }
  }
}

/** The value cache's budget for small values: 32 Mi characters (the values of some 60,000 Services). */
const VALUE_CACHE_CHARS = 32 * 1024 * 1024;
/**
 * Larger values, and deflated ones, have a budget of their own, so that the allocator's range
 * objects (rewritten on every batch of allocations) do not push the objects a list reads out:
 * the last few are kept, for the previous value of the next write of the same key.
 */
const MAX_SMALL_VALUE_CHARS = 16 * 1024;
const LARGE_VALUE_CACHE_CHARS = 1024 * 1024;

const NO_UPPER = '';

/** The smallest string above every key that starts with `prefix`, or '' when there is none we can form. */
function prefixEnd(prefix: string): string {
  if (prefix === '') return NO_UPPER;
  const last = prefix.charCodeAt(prefix.length - 1);
  // Incrementing a code unit keeps UTF-8 byte order outside the surrogates and U+FFFF.
  if (last < 0xd7ff || (last >= 0xe000 && last < 0xffff)) return prefix.slice(0, -1) + String.fromCharCode(last + 1);
  return NO_UPPER;
}

/**
 * compareKeys(a, b) < 0, with JavaScript's own comparison where it gives the same answer: when
 * either key is plain (isPlainKey: nearly all keys), `<` is byte order.
 */
function inKeyOrder(a: string, b: string): boolean {
  if (isPlainKey(a) || isPlainKey(b)) return a < b;
  return compareKeys(a, b) < 0;
}

function toKv(row: LogRow | StoredRow): KeyValue {
  return kvOf(row.name, storedOf(row.value), row.create_revision, row.revision, row.version, row.lease === 0 ? undefined : String(row.lease));
}

function prevKvOf(row: EventRow): KeyValue | undefined {
  if (row.p_revision === null || row.p_deleted !== 0) return undefined;
  const lease = row.p_lease === null || row.p_lease === 0 ? undefined : String(row.p_lease);
  return kvOf(row.name, storedOf(row.p_value ?? ''), row.p_create_revision ?? 0, row.p_revision, row.p_version ?? 0, lease);
}

function eventOf(row: EventRow): WatchEvent {
  const prevKv = prevKvOf(row);
  const kv: KeyValue =
    row.deleted !== 0 ? { key: row.name, value: '', createRevision: 0, modRevision: row.revision, version: 0 } : toKv(row);
  return { type: row.deleted !== 0 ? 'delete' : 'put', kv, ...(prevKv === undefined ? {} : { prevKv }) };
}

/**
 * Creates a missing database file readable by its owner only (0600, narrowed further by the
 * umask, never widened): it holds every object. SQLite gives its -wal and -shm files the mode
 * of the database file, so they follow. Left to SQLite, a new file is 0644 (0666 minus the
 * umask). Only a missing file is created here (O_EXCL): opening and closing a descriptor of a
 * file this process already has open in SQLite would drop SQLite's POSIX locks on it.
 */
function createOwnerOnly(path: string): void {
  if (path === '' || path === ':memory:' || path.startsWith('file:')) return;
  try {
    closeSync(openSync(path, 'wx', 0o600));
  } catch {
    // It exists (EEXIST), or cannot be made: SQLite opens it, or says why it cannot.
  }
}

/**
 * Revisions per compaction batch: etcd deletes 1,000 keys per batch by default; a revision here
 * is at most a few rows (one txn's writes). 500 revisions of 1 KB values dirty some 250 pages
 * (1 MiB of WAL), so one batch neither holds writes long nor swells the WAL far past a checkpoint.
 */
const COMPACT_BATCH_REVISIONS = 500;
/** Pages handed back to the file system per step after a compaction (1 MiB of WAL, as a batch). */
const VACUUM_PAGES_PER_STEP = 256;
/**
 * The WAL is checkpointed into the database file once it holds this many pages (4 MiB of 4 KiB
 * pages, SQLite's default). A write of one key dirties some five pages (the row's, two indexes',
 * the revision counter's, AUTOINCREMENT's), so a checkpoint comes about every 200 writes; with
 * `synchronous = NORMAL` each checkpoint is two fsyncs, and checkpointing every 2 MiB instead
 * cost some 15% of the writes per second of a churn (medians of five interleaved runs: 2,984
 * against 3,460 on a shared 2-core machine) for 2 MiB of file.
 */
const WAL_CHECKPOINT_PAGES = 1_000;
/**
 * The WAL file is cut back to this when it starts over after a checkpoint: it is overwritten from
 * its start rather than shortened, so without a limit it keeps the size of its largest stretch
 * between checkpoints (4 MiB plus the transaction that crossed it, or one large transaction).
 */
const WAL_SIZE_LIMIT_BYTES = 4 * 1024 * 1024;

/** Lets timers, sockets and other writes run between the steps of a long job. */
function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Refuses a file a newer kubesvc wrote: its rows may be in a form this one cannot read (version 2
 * added deflated values), and reading them as text would give wrong values rather than an error.
 */
function checkSchemaVersion(db: Database.Database, path: string): void {
  const meta = db.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'meta'").get();
  if (meta === undefined) return;
  const version = db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'schema_version'").get()?.value ?? 0;
  if (version > SCHEMA_VERSION) {
    throw new Error(`sqlite store: ${path} has schema version ${version}, written by a newer kubesvc; this one reads versions up to ${SCHEMA_VERSION}`);
  }
}

/** Opens (creating if needed, mode 0600) the SQLite store at `options.path`. */
export function openSqliteStore(options: SqliteStoreOptions): Store {
  return new SqliteStore(options);
}

class SqliteStore implements Store {
  readonly backend = 'sqlite' as const;
  private readonly db: Database.Database;
  private readonly clock: Clock;
  private closed = false;
  private current: number;
  private compacted: number;
  private readonly leases = new Map<LeaseId, { readonly ttlSeconds: number; cancelTimer: () => void }>();
  private readonly hub = new WatchHub();
  private readonly valueCache = new ValueCache();
  private readonly q;
  /** The compaction deleting rows now (they run one after another). */
  private compaction: Promise<void> = Promise.resolve();
  /** The txns asked for since the last group commit, in order (flush runs them). */
  private pending: PendingTxn[] = [];
  private flushScheduled = false;
  /** One txn's body (runTxn) in a savepoint, and a group of them in one transaction: made once. */
  private readonly savepointTxn: (t: PendingTxn, revision: number) => RunTxn & { readonly ok: true };
  private readonly groupTxn: (batch: readonly PendingTxn[]) => RunTxn[];

  constructor(options: SqliteStoreOptions) {
    this.clock = options.clock ?? systemClock;
    createOwnerOnly(options.path);
    const db = new Database(options.path, { timeout: 0 });
    try {
      db.pragma('locking_mode = EXCLUSIVE');
      // auto_vacuum only takes effect on a new database (before the first table): it lets
      // compaction hand freed pages back to the file system.
      db.pragma('auto_vacuum = INCREMENTAL');
      const mode = db.pragma('journal_mode = WAL', { simple: true });
      if (mode !== 'wal') throw new Error(`sqlite store: could not switch ${options.path} to WAL mode (got ${String(mode)})`);
      db.pragma(`synchronous = ${options.synchronous ?? 'NORMAL'}`);
      db.pragma(`wal_autocheckpoint = ${WAL_CHECKPOINT_PAGES}`);
      db.pragma(`journal_size_limit = ${WAL_SIZE_LIMIT_BYTES}`);
      // Reads through a memory map and a 64 MiB page cache: listing 10,000 Services reads
      // about 11 MB of rows, and read() calls for each page cost more than the rows.
      db.pragma('mmap_size = 268435456');
      db.pragma('cache_size = -65536');
      checkSchemaVersion(db, options.path);
      db.exec(SCHEMA);
      db.prepare("UPDATE meta SET value = ? WHERE name = 'schema_version' AND value < ?").run(SCHEMA_VERSION, SCHEMA_VERSION);
    } catch (error) {
      db.close();
      if (error instanceof Error && /database is locked/.test(error.message)) {
        throw new Error(`sqlite store: ${options.path} is in use by another process (one process serves one SQLite file)`, { cause: error });
      }
      throw error;
    }
    this.db = db;
    this.q = {
      meta: db.prepare<[string], { value: number }>('SELECT value FROM meta WHERE name = ?'),
      setMeta: db.prepare<[number, string]>('UPDATE meta SET value = ? WHERE name = ?'),
      // A key's newest row without its value, which comes from the ValueCache when it is
      // needed (newest): a compare on a revision or version needs none, and the allocator's
      // range objects (175 KB for a /12) were read back from SQLite for each write's prevKv.
      latestMeta: db.prepare<[string], Omit<LogRow, 'value' | 'old_value'>>(
        'SELECT id, revision, name, created, deleted, create_revision, prev_revision, version, lease FROM log WHERE name = ? ORDER BY revision DESC LIMIT 1',
      ),
      at: db.prepare<[string, number], LogRow>('SELECT * FROM log WHERE name = ? AND revision <= ? ORDER BY revision DESC LIMIT 1'),
      // The newest row of each name at or below the revision, found in the (name, revision)
      // index (which holds the rowid: SQLite returns the bare column `id` from the row that
      // gave MAX), then read by rowid; columns as arrays (RangeRow), the value left to the
      // ValueCache (valueOf). The index yields names in order and the outer loop keeps it (no
      // sort); range() checks it all the same.
      range: db
        .prepare<{ start: string; end: string; rev: number; limit: number }, RangeRow>(
          `SELECT l.name, l.id, l.create_revision, l.revision, l.version, l.lease
           FROM (SELECT MAX(revision) AS r, id FROM log WHERE name >= @start AND name < @end AND revision <= @rev GROUP BY name ORDER BY name) m
           CROSS JOIN log l ON l.id = m.id
           WHERE l.deleted = 0 LIMIT @limit`,
        )
        .raw(true),
      rangeOpen: db
        .prepare<{ start: string; rev: number; limit: number }, RangeRow>(
          `SELECT l.name, l.id, l.create_revision, l.revision, l.version, l.lease
           FROM (SELECT MAX(revision) AS r, id FROM log WHERE name >= @start AND revision <= @rev GROUP BY name ORDER BY name) m
           CROSS JOIN log l ON l.id = m.id
           WHERE l.deleted = 0 LIMIT @limit`,
        )
        .raw(true),
      value: db.prepare<[number], { value: string | Buffer }>('SELECT value FROM log WHERE id = ?'),
      insert: db.prepare<[number, string, number, number, number, number, number, number, string | Buffer, string]>(
        `INSERT INTO log (revision, name, created, deleted, create_revision, prev_revision, version, lease, value, old_value)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      ),
      events: db.prepare<{ from: number }, EventRow>(
        `SELECT l.*, p.revision AS p_revision, p.deleted AS p_deleted, p.create_revision AS p_create_revision,
                p.version AS p_version, p.lease AS p_lease, p.value AS p_value
         FROM log l LEFT JOIN log p ON p.name = l.name AND p.revision = l.prev_revision
         WHERE l.id >= (SELECT MIN(id) FROM log WHERE revision >= @from)
         ORDER BY l.id`,
      ),
      // `lease != 0` lets SQLite use the partial index on lease (a bound parameter alone could be 0).
      leaseKeys: db.prepare<[number], LogRow>(
        `SELECT l.* FROM log l
         WHERE l.lease = ? AND l.lease != 0 AND l.deleted = 0 AND l.revision = (SELECT MAX(revision) FROM log m WHERE m.name = l.name)
         ORDER BY l.name`,
      ),
      leases: db.prepare<[], { id: number; ttl_seconds: number }>('SELECT id, ttl_seconds FROM lease'),
      insertLease: db.prepare<[number]>('INSERT INTO lease (ttl_seconds) VALUES (?)'),
      deleteLease: db.prepare<[number]>('DELETE FROM lease WHERE id = ?'),
      // The rows a compaction to @to forgets, for the revisions after @from (those at or below
      // it were forgotten by the compactions before): the row each later row superseded, and
      // tombstones.
      compact: db.prepare<{ from: number; to: number }>(
        `DELETE FROM log WHERE id IN (
           SELECT p.id FROM log l JOIN log p ON p.name = l.name AND p.revision = l.prev_revision WHERE l.revision > @from AND l.revision <= @to
           UNION
           SELECT id FROM log WHERE deleted != 0 AND revision > @from AND revision <= @to)`,
      ),
    };
    this.savepointTxn = db.transaction((t: PendingTxn, revision: number) => this.runTxn(t, revision));
    this.groupTxn = db.transaction((batch: readonly PendingTxn[]) => this.runGroup(batch)).immediate;
    this.current = this.q.meta.get('revision')?.value ?? 0;
    this.compacted = this.q.meta.get('compact_revision')?.value ?? 0;
    for (const row of this.q.leases.all()) {
      const id = String(row.id);
      const state = { ttlSeconds: row.ttl_seconds, cancelTimer: () => undefined };
      this.leases.set(id, state);
      this.arm(id);
    }
  }

  private open(): void {
    if (this.closed) throw new ErrStoreClosed();
  }

  /** Checks the store is open, and runs the txns asked for before this write (see flush). */
  private openForWrite(): void {
    this.open();
    if (this.pending.length > 0) this.flush();
  }

  private readRevision(revision: number | undefined): number {
    return readRevision(revision, this.current, this.compacted);
  }

  /** The key's newest row, tombstone or not; its value from the ValueCache (see valueOf). */
  private newest(key: string, row = this.q.latestMeta.get(key)): StoredRow | undefined {
    if (row === undefined) return undefined;
    return { ...row, value: row.deleted !== 0 ? '' : this.valueOf(row.id), old_value: '' };
  }

  /** The key's row in force (none when deleted). */
  private latest(key: string): StoredRow | undefined {
    const row = this.newest(key);
    return row === undefined || row.deleted !== 0 ? undefined : row;
  }

  get(key: string, options: { readonly revision?: number } = {}): Promise<GetResult> {
    try {
      this.open();
      const revision = this.readRevision(options.revision);
      const row = revision === this.current ? this.newest(key) : this.q.at.get(key, revision);
      return Promise.resolve(row === undefined || row.deleted !== 0 ? { revision } : { kv: toKv(row), revision });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    try {
      this.open();
      const revision = this.readRevision(options.revision);
      const limit = options.limit !== undefined && options.limit > 0 ? options.limit : -1;
      const start = options.continueKey !== undefined && compareKeys(options.continueKey, prefix) > 0 ? options.continueKey : prefix;
      const end = prefixEnd(prefix);
      const query = (sqlLimit: number): RangeRow[] =>
        end === NO_UPPER ? this.q.rangeOpen.all({ start, rev: revision, limit: sqlLimit }) : this.q.range.all({ start, end, rev: revision, limit: sqlLimit });
      // One row more than asked says whether there is more. Without an upper bound (a prefix
      // ending in a character we cannot increment), keys past the prefix are read and dropped.
      let rows = query(limit < 0 || (end === NO_UPPER && prefix !== '') ? -1 : limit + 1);
      if (!rows.every((row, i) => i === 0 || inKeyOrder((rows[i - 1] as RangeRow)[0], row[0]))) {
        // SQLite chose a plan that does not keep the index order: read everything and sort.
        rows = query(-1).sort((a, b) => compareKeys(a[0], b[0]));
      }
      const kvs: KeyValue[] = [];
      let more = false;
      for (const [name, id, createRevision, modRevision, version, lease] of rows) {
        if (!name.startsWith(prefix)) continue;
        if (limit >= 0 && kvs.length >= limit) {
          more = true;
          break;
        }
        kvs.push(kvOf(name, this.valueOf(id), createRevision, modRevision, version, lease === 0 ? undefined : String(lease)));
      }
      return Promise.resolve({ kvs, more, revision });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** The value of the log row `id` (which exists), from the ValueCache or read and cached. */
  private valueOf(id: number): StoredValue {
    const cached = this.valueCache.get(id);
    if (cached !== undefined) return cached;
    const value = storedOf(this.q.value.get(id)?.value ?? '');
    this.valueCache.set(id, value);
    return value;
  }

  /** Writes a put's row; `written` gets its id and value, for the ValueCache once committed. */
  private insertPut(revision: number, key: string, value: PutValue, lease: LeaseId | undefined, prev: StoredRow | undefined, prevRevision: number, written: [number, StoredValue][]): KeyValue {
    const createRevision = prev === undefined ? revision : prev.create_revision;
    const version = prev === undefined ? 1 : prev.version + 1;
    const { column, stored } = encodeValue(value);
    const { lastInsertRowid } = this.q.insert.run(revision, key, prev === undefined ? 1 : 0, 0, createRevision, prevRevision, version, lease === undefined ? 0 : Number(lease), column, '');
    written.push([Number(lastInsertRowid), stored]);
    return kvOf(key, stored, createRevision, revision, version, lease);
  }

  private insertDelete(revision: number, prev: LogRow | StoredRow): WatchEvent {
    // The deleted value stays in the row at prev_revision (schema.ts: old_value is left empty).
    this.q.insert.run(revision, prev.name, 0, 1, prev.create_revision, prev.revision, prev.version, prev.lease, '', '');
    return { type: 'delete', kv: { key: prev.name, value: '', createRevision: 0, modRevision: revision, version: 0 }, prevKv: toKv(prev) };
  }

  private setRevision(revision: number): void {
    this.q.setMeta.run(revision, 'revision');
  }

  txn(compares: readonly Compare[], onSuccess: readonly TxnOp[], onFailure: readonly TxnOp[] = []): Promise<TxnResult> {
    if (this.closed) return Promise.reject(new ErrStoreClosed());
    return new Promise((resolve, reject) => {
      this.pending.push({ compares, onSuccess, onFailure, resolve, reject });
      if (!this.flushScheduled) {
        this.flushScheduled = true;
        setImmediate(() => {
          this.flushScheduled = false;
          if (!this.closed && this.pending.length > 0) this.flush();
        });
      }
    });
  }

  /**
   * The group commit: runs the txns asked for so far, in order, in one SQLite transaction, each
   * at the next revision and in a savepoint of its own (a txn that fails, a refused lease say,
   * fails alone), then commits, and only then publishes each txn's events and resolves it, in
   * order. A failure of the transaction itself (the commit) fails every txn of the group: none
   * of them is acknowledged, and none is in the database.
   */
  private flush(): void {
    const batch = this.pending;
    this.pending = [];
    let outcomes: RunTxn[];
    try {
      outcomes = this.groupTxn(batch);
    } catch (error) {
      for (const t of batch) t.reject(error as Error);
      return;
    }
    // Committed: now the writes are acknowledged, and the watches hear of them.
    batch.forEach((t, i) => {
      const outcome = outcomes[i];
      if (outcome === undefined) return;
      if (!outcome.ok) {
        t.reject(outcome.error);
        return;
      }
      for (const [id, value] of outcome.written) this.valueCache.set(id, value);
      if (outcome.events.length > 0) {
        this.current = outcome.revision;
        this.hub.publish(outcome.events);
      }
      t.resolve({ succeeded: outcome.succeeded, revision: this.current, results: outcome.results });
    });
  }

  /** The body of the group transaction (flush): the txns in order, at consecutive revisions. */
  private runGroup(batch: readonly PendingTxn[]): RunTxn[] {
    let revision = this.current;
    const outcomes: RunTxn[] = [];
    for (const t of batch) {
      if (batch.length === 1) {
        // Alone in its transaction: a failure rolls the transaction back, no savepoint needed.
        const r = this.runTxn(t, revision + 1);
        if (r.events.length > 0) revision = r.revision;
        outcomes.push(r);
        continue;
      }
      try {
        const r = this.savepointTxn(t, revision + 1);
        if (r.events.length > 0) revision = r.revision;
        outcomes.push(r);
      } catch (error) {
        // SQLite rolls a whole transaction back on some errors (a full disk, an I/O error):
        // then the txns before this one are gone too, and the group fails as one.
        if (!this.db.inTransaction) throw error;
        outcomes.push({ ok: false, error: error as Error });
      }
    }
    if (revision !== this.current) this.setRevision(revision);
    return outcomes;
  }

  /** One txn's reads and writes at `revision` (inside the group transaction). */
  private runTxn({ compares, onSuccess, onFailure }: PendingTxn, revision: number): RunTxn & { readonly ok: true } {
    // Each key's newest row as this txn read it, until the txn writes the key: a create's
    // compare and its put read the same row, once.
    const read = new Map<string, ReturnType<typeof this.q.latestMeta.get>>();
    const metaOf = (key: string) => {
      if (read.has(key)) return read.get(key);
      const row = this.q.latestMeta.get(key);
      read.set(key, row);
      return row;
    };
    const newest = (key: string): StoredRow | undefined => this.newest(key, metaOf(key));
    const latest = (key: string): StoredRow | undefined => {
      const row = newest(key);
      return row === undefined || row.deleted !== 0 ? undefined : row;
    };
    const values = compares.some((c) => c.target === 'value');
    const current = (key: string): KeyValue | undefined => {
      if (values) {
        const row = latest(key);
        return row === undefined ? undefined : toKv(row);
      }
      // The value is left empty: compareHolds reads it only for a 'value' target.
      const row = metaOf(key);
      return row === undefined || row.deleted !== 0 ? undefined : toKv({ ...row, value: '', old_value: '' });
    };
    const { succeeded, ops } = txnBranch(compares, current, onSuccess, onFailure, (id) => this.leases.has(id));
    const events: WatchEvent[] = [];
    const written: [number, StoredValue][] = [];
    const results = ops.map((op): TxnOpResult => {
      switch (op.kind) {
        case 'get': {
          const row = latest(op.key);
          return row === undefined ? { kind: 'get' } : { kind: 'get', kv: toKv(row) };
        }
        case 'put': {
          // The row in force may be a tombstone: a re-create points at it, as in kine.
          const last = newest(op.key);
          const prev = last === undefined || last.deleted !== 0 ? undefined : last;
          read.delete(op.key);
          const kv = this.insertPut(revision, op.key, op.value, op.lease, prev, last?.revision ?? 0, written);
          const prevKv = prev === undefined ? undefined : toKv(prev);
          events.push(prevKv === undefined ? { type: 'put', kv } : { type: 'put', kv, prevKv });
          return prevKv === undefined ? { kind: 'put' } : { kind: 'put', prevKv };
        }
        case 'delete': {
          const prev = latest(op.key);
          read.delete(op.key);
          if (prev === undefined) return { kind: 'delete', deleted: 0 };
          events.push(this.insertDelete(revision, prev));
          return { kind: 'delete', deleted: 1, prevKv: toKv(prev) };
        }
      }
    });
    return { ok: true, succeeded, results, events, revision, written };
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
      if (from <= this.current) {
        for (const row of this.q.events.iterate({ from })) if (row.name.startsWith(prefix)) stream.push(eventOf(row));
      }
    }
    this.hub.add(prefix, stream, from ?? 0);
    return stream;
  }

  private arm(id: LeaseId): void {
    const state = this.leases.get(id);
    if (state === undefined) return;
    state.cancelTimer();
    state.cancelTimer = this.clock.setTimer(this.clock.now() + state.ttlSeconds * 1000, () => {
      if (this.closed || this.leases.get(id) !== state) return;
      if (this.pending.length > 0) this.flush();
      if (this.leases.get(id) !== state) return;
      try {
        this.expire(id);
      } catch {
        // The database refused the write (a full disk, say): the lease stays, and expiry is
        // tried again in a second, as etcd's lessor retries a failed revoke.
        state.cancelTimer = this.clock.setTimer(this.clock.now() + 1000, () => {
          if (!this.closed && this.leases.get(id) === state) this.arm(id);
        });
      }
    });
  }

  grant(ttlSeconds: number): Promise<Lease> {
    try {
      this.openForWrite();
      checkTtl(ttlSeconds);
      const id = String(this.q.insertLease.run(ttlSeconds).lastInsertRowid);
      this.leases.set(id, { ttlSeconds, cancelTimer: () => undefined });
      this.arm(id);
      return Promise.resolve({ id, ttlSeconds });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  keepAlive(id: LeaseId): Promise<Lease> {
    try {
      this.open();
      const state = this.leases.get(id);
      if (state === undefined) throw new ErrLeaseNotFound(id);
      this.arm(id);
      return Promise.resolve({ id, ttlSeconds: state.ttlSeconds });
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  revoke(id: LeaseId): Promise<void> {
    try {
      this.openForWrite();
      if (!this.leases.has(id)) throw new ErrLeaseNotFound(id);
      this.expire(id);
      return Promise.resolve();
    } catch (error) {
      return Promise.reject(error as Error);
    }
  }

  /** Deletes the lease and its keys in one transaction and one revision, keys in order (etcd's lessor.Revoke). */
  private expire(id: LeaseId): void {
    const run = this.db.transaction(() => {
      const revision = this.current + 1;
      const events = this.q.leaseKeys.all(Number(id)).map((row) => this.insertDelete(revision, row));
      this.q.deleteLease.run(Number(id));
      if (events.length > 0) this.setRevision(revision);
      return { events, revision };
    });
    const { events, revision } = run.immediate();
    const state = this.leases.get(id);
    state?.cancelTimer();
    this.leases.delete(id);
    if (events.length > 0) {
      this.current = revision;
      this.hub.publish(events);
    }
  }

  /**
   * Compacts as etcd does: the revision is marked at once (reads and watches below it fail from
   * now on), then the rows are deleted in batches of COMPACT_BATCH_REVISIONS revisions, each its
   * own transaction, with the event loop free between them, so writes go on during a large
   * compaction instead of waiting for one long DELETE; then the freed pages go back to the file
   * system, also in steps. Resolves when the rows are gone (etcd's physical compaction). A
   * compaction cut short by a close or crash is finished by the next one.
   * upstream: etcd server/storage/mvcc/kvstore_compaction.go (scheduleCompaction: batches of
   * --experimental-compaction-batch-limit with a pause between them; scheduled and finished
   * compact revisions kept apart)
   */
  compact(revision: number): Promise<void> {
    try {
      this.openForWrite();
      checkCompact(revision, this.current, this.compacted);
      this.q.setMeta.run(revision, 'compact_revision');
      this.compacted = revision;
    } catch (error) {
      return Promise.reject(error as Error);
    }
    const run = this.compaction.then(() => this.deleteHistory(revision));
    // The next compaction waits for this one, whether it failed or not.
    this.compaction = run.catch(() => undefined);
    return run;
  }

  private async deleteHistory(to: number): Promise<void> {
    if (this.closed) return;
    let from = this.q.meta.get('compact_finished')?.value ?? 0;
    while (from < to) {
      if (this.closed) return;
      const upTo = Math.min(to, from + COMPACT_BATCH_REVISIONS);
      this.db
        .transaction(() => {
          this.q.compact.run({ from, to: upTo });
          this.q.setMeta.run(upTo, 'compact_finished');
        })
        .immediate();
      from = upTo;
      await yieldToEventLoop();
    }
    // Give every freed page back to the file system (auto_vacuum = INCREMENTAL), in steps of
    // VACUUM_PAGES_PER_STEP with writes going on between them. The file only shrinks when a
    // checkpoint copies the vacuum into it, so one runs at the end, a TRUNCATE: it also empties
    // the WAL, which would otherwise stay at its high-water mark until the next checkpoint. The
    // connection is the file's only one (exclusive locking), so no reader can make it wait.
    while (!this.closed && (this.db.pragma('freelist_count', { simple: true }) as number) > 0) {
      this.db.pragma(`incremental_vacuum(${VACUUM_PAGES_PER_STEP})`);
      await yieldToEventLoop();
    }
    if (!this.closed) this.db.pragma('wal_checkpoint(TRUNCATE)');
  }

  revision(): Promise<number> {
    return this.closed ? Promise.reject(new ErrStoreClosed()) : Promise.resolve(this.current);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    // The txns asked for before the close are run, as they would have been at once.
    if (this.pending.length > 0) this.flush();
    this.closed = true;
    for (const state of this.leases.values()) state.cancelTimer();
    this.hub.closeAll();
    this.db.close();
    return Promise.resolve();
  }
}

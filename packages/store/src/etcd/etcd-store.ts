// The etcd backend: every Store operation is the etcd v3 RPC of the same meaning, through npm
// etcd3's generated gRPC clients (KV, Watch, Lease), so etcd itself does the MVCC, the txn
// compares, the leases and the compaction; this file only converts shapes and errors.
// upstream: etcd api/etcdserverpb/rpc.proto, server/etcdserver/api/v3rpc/rpctypes/error.go.
//
// What it adds on top of etcd, and why:
// - A watch without fromRevision starts at one past the highest revision this store has seen
//   (every response header raises it), so a watch opened right after a write can neither miss a
//   later write nor see that one: etcd's own "start at 0" would be the revision at the time the
//   server gets the create request, which races with writes already on their way.
//   If another client compacted past that revision meanwhile, it starts after the compacted
//   revision instead of failing, as it asked for no history.
// - A watch from revision r asks etcd for r - 1 and drops the events below r, so that a watch
//   from exactly the compacted revision fails with ErrCompacted, as the other backends do
//   (docs/deviations.md); etcd only refuses a start below the compacted revision.
// - A watch survives a lost connection: it opens a new gRPC stream with backoff and asks again
//   from one past the last revision it delivered (etcd sends a revision's events in one
//   response), so nothing is skipped or repeated. etcd3's own Watcher resumes from the create
//   response's header revision, which is the server's current revision and not what was
//   delivered, so a watch replaying history could skip events; it is not used here.
// - Calls made while the connection is down wait for it, up to their deadline (gRPC
//   wait-for-ready), as etcd's Go client's calls do.
// - Unary calls are not retried (etcd3's default retries UNAVAILABLE three times): a txn that
//   reached etcd before the connection broke would be applied twice. The caller decides.
import { InterceptingCall, type Interceptor } from '@grpc/grpc-js';
import { noop } from 'cockatiel';
import { CompareResult, CompareTarget, Etcd3, type ICompare, type IEvent, type IKeyValue, type IRequestOp, type IResponseOp, type IWatchResponse } from 'etcd3';
import type { Clock } from '../clock.js';
import { systemClock } from '../system-clock.js';
import { ErrCompacted, ErrDuplicateKey, ErrFutureRevision, ErrLeaseNotFound, ErrStoreClosed } from '../errors.js';
import { checkTtl } from '../txn-rules.js';
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
import { WatchStream } from '../watch-stream.js';

export interface EtcdStoreOptions {
  /** Client URLs of the etcd members, e.g. `http://127.0.0.1:2379`. */
  readonly endpoints: readonly string[];
  /** Drives the watches' reconnect backoff. etcd's leases run on the server's clock. Default: the system clock. */
  readonly clock?: Clock;
  /** Deadline of each unary call. Default 10,000 ms. */
  readonly requestTimeoutMs?: number;
  /** First and largest wait before a watch reconnects. Default 50 ms, doubling to 2,000 ms. */
  readonly watchBackoffMs?: { readonly initial: number; readonly max: number };
}

/** The rest of the keyspace after every key that starts with `prefix` (etcd's prefix range end). */
export function prefixEnd(prefix: Buffer): Buffer {
  const end = Buffer.from(prefix);
  for (let i = end.length - 1; i >= 0; i--) {
    if ((end[i] as number) < 0xff) {
      end[i] = (end[i] as number) + 1;
      return end.subarray(0, i + 1);
    }
  }
  // Every byte is 0xff (or the prefix is empty): to the end of the keyspace.
  return Buffer.from([0]);
}

const NO_LEASE = '0';

/**
 * The Store's KeyValue of etcd's, its value decoded from UTF-8 when first read. A watch on a
 * wide prefix gets every event with its previous value too, and most are read by nobody: the
 * apiservers' RangeAllocations (175 KB for a /12) came with every allocation, twice, to every
 * informer watching the registry, and decoding them took about a third of an apiserver's CPU
 * under concurrent creates. The value is an own enumerable property (a getter of the object
 * literal), so spreading or serialising the KeyValue reads it as before; once decoded, the
 * bytes (a view of the whole gRPC message) are let go.
 */
function toKeyValue(kv: IKeyValue): KeyValue {
  const lease = String(kv.lease);
  let bytes: Buffer | undefined = kv.value;
  let text: string | undefined;
  return {
    key: kv.key.toString('utf8'),
    get value(): string {
      text ??= (bytes as Buffer).toString('utf8');
      bytes = undefined;
      return text;
    },
    createRevision: Number(kv.create_revision),
    modRevision: Number(kv.mod_revision),
    version: Number(kv.version),
    ...(lease === NO_LEASE || lease === '' ? {} : { lease }),
  };
}

function toEvent(ev: IEvent): WatchEvent {
  // etcd3 loads the protos with `enums: String`: the type is the enum's name, PUT or DELETE.
  const type = String(ev.type).toLowerCase() === 'delete' ? 'delete' : 'put';
  const kv = toKeyValue(ev.kv);
  return ev.prev_kv === null || ev.prev_kv === undefined ? { type, kv } : { type, kv, prevKv: toKeyValue(ev.prev_kv) };
}

const COMPARE_RESULT: Record<Compare['op'], CompareResult> = {
  '=': CompareResult.Equal,
  '!=': CompareResult.NotEqual,
  '<': CompareResult.Less,
  '>': CompareResult.Greater,
};

function toCompare(c: Compare): ICompare {
  const key = Buffer.from(c.key, 'utf8');
  const result = COMPARE_RESULT[c.op];
  switch (c.target) {
    case 'value':
      return { key, result, target: CompareTarget.Value, value: Buffer.from(c.value, 'utf8') };
    case 'modRevision':
      return { key, result, target: CompareTarget.Mod, mod_revision: c.value };
    case 'createRevision':
      return { key, result, target: CompareTarget.Create, create_revision: c.value };
    case 'version':
      return { key, result, target: CompareTarget.Version, version: c.value };
  }
}

function toRequestOp(op: TxnOp): IRequestOp {
  const key = Buffer.from(op.key, 'utf8');
  switch (op.kind) {
    case 'put':
      // Bytes go as they are, a view without a copy: the request is encoded before the txn's
      // promise settles, and the caller keeps them unchanged until then (PutValue).
      return { request_put: { key, value: typeof op.value === 'string' ? Buffer.from(op.value, 'utf8') : Buffer.from(op.value.buffer, op.value.byteOffset, op.value.byteLength), prev_kv: true, ...(op.lease === undefined ? {} : { lease: op.lease }) } };
    case 'delete':
      return { request_delete_range: { key, prev_kv: true } };
    case 'get':
      return { request_range: { key } };
  }
}

function toOpResult(op: TxnOp, response: IResponseOp | undefined): TxnOpResult {
  switch (op.kind) {
    case 'put': {
      const prev = response?.response_put?.prev_kv;
      return prev === null || prev === undefined ? { kind: 'put' } : { kind: 'put', prevKv: toKeyValue(prev) };
    }
    case 'delete': {
      const del = response?.response_delete_range;
      const prev = del?.prev_kvs[0];
      return Number(del?.deleted ?? 0) === 0 || prev === undefined ? { kind: 'delete', deleted: 0 } : { kind: 'delete', deleted: 1, prevKv: toKeyValue(prev) };
    }
    case 'get': {
      const kv = response?.response_range?.kvs[0];
      return kv === undefined ? { kind: 'get' } : { kind: 'get', kv: toKeyValue(kv) };
    }
  }
}

// etcd's error messages (server/etcdserver/api/v3rpc/rpctypes/error.go); etcd3 keeps them in
// the message of the error it throws, behind its own prefix.
const MSG_COMPACTED = 'mvcc: required revision has been compacted';
const MSG_FUTURE = 'mvcc: required revision is a future revision';
const MSG_LEASE_NOT_FOUND = 'requested lease not found';
const MSG_DUPLICATE_KEY = 'duplicate key given in txn request';
const MSG_CLIENT_CLOSED = 'the client was already closed';

interface ErrorContext {
  /** The revision the call asked for (reads, compaction). */
  readonly revision?: number;
  /** The lease the call named (keepAlive, revoke, a txn's puts). */
  readonly lease?: LeaseId;
  /** A txn's branches, to name the key written twice. */
  readonly ops?: readonly (readonly TxnOp[])[];
}

function duplicateKeyOf(branches: readonly (readonly TxnOp[])[]): string {
  for (const ops of branches) {
    const written = new Set<string>();
    for (const op of ops) {
      if (op.kind === 'get') continue;
      if (written.has(op.key)) return op.key;
      written.add(op.key);
    }
  }
  return '';
}

/** etcd's refusals as the store's typed errors; anything else (unreachable, deadline) as it is. */
function mapError(error: unknown, context: ErrorContext = {}): Error {
  const message = error instanceof Error ? error.message : String(error);
  const requested = context.revision ?? 0;
  // etcd names no compacted revision in a read's or a compaction's error; the least it can be
  // is one past the requested revision (a read) or the requested revision (a compaction).
  if (message.includes(MSG_COMPACTED)) return new ErrCompacted(requested, requested + 1);
  if (message.includes(MSG_FUTURE)) return new ErrFutureRevision(requested);
  if (message.includes(MSG_LEASE_NOT_FOUND)) return new ErrLeaseNotFound(context.lease ?? '');
  if (message.includes(MSG_DUPLICATE_KEY)) return new ErrDuplicateKey(duplicateKeyOf(context.ops ?? []));
  if (message.includes(MSG_CLIENT_CLOSED)) return new ErrStoreClosed();
  return error instanceof Error ? error : new Error(message);
}

function leaseOf(branches: readonly (readonly TxnOp[])[]): LeaseId | undefined {
  for (const ops of branches) for (const op of ops) if (op.kind === 'put' && op.lease !== undefined) return op.lease;
  return undefined;
}

/**
 * A call made while the connection is down waits for it (up to the call's deadline) instead of
 * failing at once, as with etcd's Go client (clientv3 options.go, defaultWaitForReady). grpc-js
 * reads wait-for-ready from the call's metadata options only.
 */
const waitForReady: Interceptor = (options, nextCall) =>
  new InterceptingCall(nextCall(options), {
    start(metadata, listener, next) {
      metadata.setOptions({ waitForReady: true });
      next(metadata, listener);
    },
  });

const MAX_INT32 = 2 ** 31 - 1;

/** Connects to etcd and reads the current revision (so that a first watch knows where "now" is). */
export async function openEtcdStore(options: EtcdStoreOptions): Promise<Store> {
  if (options.endpoints.length === 0) throw new Error('openEtcdStore: no endpoints');
  const client = new Etcd3({
    hosts: [...options.endpoints],
    // No retries and no circuit breaker: see the file comment.
    faultHandling: { global: noop, host: () => noop },
    grpcOptions: {
      // Try a lost connection again at least every second (gRPC's default backs off to 120 s).
      'grpc.initial_reconnect_backoff_ms': 100,
      'grpc.max_reconnect_backoff_ms': 1000,
      // Find a dead connection under an open watch within about 40 s (etcd allows pings every 5 s).
      'grpc.keepalive_time_ms': 30_000,
      'grpc.keepalive_timeout_ms': 10_000,
      // Any response size, as etcd's Go client (clientv3's default MaxCallRecvMsgSize is
      // math.MaxInt32; upstream: client/v3/options.go). A watcher that is catching up gets up
      // to 1,000 revisions in one response, with previous values: a few dozen writes of the
      // /12 range object exceed gRPC's default 4 MiB, and over it the stream broke, reopened
      // at the same revision, got the same response and broke again, for ever.
      'grpc.max_receive_message_length': MAX_INT32,
    },
  });
  const store = new EtcdStore(client, options);
  try {
    await store.revision();
  } catch (error) {
    client.close();
    throw error;
  }
  return store;
}

class EtcdStore implements Store {
  readonly backend = 'etcd' as const;
  private closed = false;
  /** The highest revision any response has reported. */
  private seen = 0;
  private readonly watches = new Set<EtcdWatch>();
  readonly clock: Clock;
  readonly requestTimeoutMs: number;
  readonly backoff: { readonly initial: number; readonly max: number };

  constructor(
    readonly client: Etcd3,
    options: EtcdStoreOptions,
  ) {
    this.clock = options.clock ?? systemClock;
    this.requestTimeoutMs = options.requestTimeoutMs ?? 10_000;
    this.backoff = options.watchBackoffMs ?? { initial: 50, max: 2000 };
  }

  private callOptions(): { deadline: number; interceptors: Interceptor[] } {
    return { deadline: Date.now() + this.requestTimeoutMs, interceptors: [waitForReady] };
  }

  /** Records a response's header revision; returns it. */
  observe(header: { readonly revision: string } | null | undefined): number {
    const revision = Number(header?.revision ?? 0);
    if (revision > this.seen) this.seen = revision;
    return revision;
  }

  private open(): void {
    if (this.closed) throw new ErrStoreClosed();
  }

  private async call<T>(run: () => Promise<T>, context?: ErrorContext): Promise<T> {
    this.open();
    try {
      return await run();
    } catch (error) {
      throw this.closed ? new ErrStoreClosed() : mapError(error, context);
    }
  }

  async get(key: string, options: { readonly revision?: number } = {}): Promise<GetResult> {
    const at = options.revision !== undefined && options.revision > 0 ? options.revision : undefined;
    const res = await this.call(() => this.client.kv.range({ key: Buffer.from(key, 'utf8'), ...(at === undefined ? {} : { revision: at }) }, this.callOptions()), at === undefined ? {} : { revision: at });
    const current = this.observe(res.header);
    const kv = res.kvs[0];
    const revision = at ?? current;
    return kv === undefined ? { revision } : { kv: toKeyValue(kv), revision };
  }

  async range(prefix: string, options: RangeOptions = {}): Promise<RangeResult> {
    const at = options.revision !== undefined && options.revision > 0 ? options.revision : undefined;
    const from = Buffer.from(prefix, 'utf8');
    const resume = options.continueKey === undefined ? undefined : Buffer.from(options.continueKey, 'utf8');
    const start = resume !== undefined && Buffer.compare(resume, from) > 0 ? resume : from;
    const limit = options.limit !== undefined && options.limit > 0 ? options.limit : undefined;
    const res = await this.call(
      () =>
        this.client.kv.range(
          {
            key: start,
            range_end: prefixEnd(from),
            ...(limit === undefined ? {} : { limit }),
            ...(at === undefined ? {} : { revision: at }),
          },
          this.callOptions(),
        ),
      at === undefined ? {} : { revision: at },
    );
    const current = this.observe(res.header);
    return { kvs: res.kvs.map(toKeyValue), more: res.more, revision: at ?? current };
  }

  async txn(compares: readonly Compare[], onSuccess: readonly TxnOp[], onFailure: readonly TxnOp[] = []): Promise<TxnResult> {
    const branches = [onSuccess, onFailure];
    const lease = leaseOf(branches);
    const res = await this.call(
      () =>
        this.client.kv.txn(
          {
            compare: compares.map(toCompare),
            success: onSuccess.map(toRequestOp),
            failure: onFailure.map(toRequestOp),
          },
          this.callOptions(),
        ),
      { ops: branches, ...(lease === undefined ? {} : { lease }) },
    );
    const revision = this.observe(res.header);
    const ops = res.succeeded ? onSuccess : onFailure;
    return { succeeded: res.succeeded, revision, results: ops.map((op, i) => toOpResult(op, res.responses[i])) };
  }

  watch(prefix: string, options: WatchOptions = {}): Watch {
    if (this.closed) {
      const refused = new WatchStream();
      refused.fail(new ErrStoreClosed());
      return refused;
    }
    const live = options.fromRevision === undefined || options.fromRevision <= 0;
    const from = live ? this.seen + 1 : (options.fromRevision as number);
    const watch = new EtcdWatch(this, Buffer.from(prefix, 'utf8'), from, live, (w) => this.watches.delete(w));
    this.watches.add(watch);
    watch.connect();
    return watch.stream;
  }

  async grant(ttlSeconds: number): Promise<Lease> {
    this.open();
    checkTtl(ttlSeconds);
    const res = await this.call(() => this.client.leaseClient.leaseGrant({ TTL: ttlSeconds, ID: 0 }, this.callOptions()));
    this.observe(res.header);
    if (res.error !== '') throw new Error(`etcdserver: ${res.error}`);
    // etcd raises a TTL below its minimum (about 2 s with the default election timeout) and
    // answers with the TTL it granted (server/lease/lessor.go Grant, minLeaseTTL).
    return { id: String(res.ID), ttlSeconds: Number(res.TTL) };
  }

  async keepAlive(id: LeaseId): Promise<Lease> {
    // One request on a LeaseKeepAlive stream; etcd answers TTL 0 for a lease it does not have
    // (server/etcdserver/api/v3rpc/lease.go leaseKeepAlive).
    const ttl = await this.call(async () => {
      const stream = await this.client.leaseClient.leaseKeepAlive(this.callOptions());
      return new Promise<number>((resolve, reject) => {
        let answered = false;
        stream.on('data', (res) => {
          answered = true;
          this.observe(res.header);
          resolve(Number(res.TTL));
          stream.end();
        });
        stream.on('error', (error) => {
          if (!answered) reject(error);
        });
        stream.on('end', () => {
          if (!answered) reject(new Error('etcd ended the keep-alive stream without an answer'));
        });
        stream.write({ ID: id });
      });
    }, { lease: id });
    if (ttl <= 0) throw new ErrLeaseNotFound(id);
    return { id, ttlSeconds: ttl };
  }

  async revoke(id: LeaseId): Promise<void> {
    const res = await this.call(() => this.client.leaseClient.leaseRevoke({ ID: id }, this.callOptions()), { lease: id });
    this.observe(res.header);
  }

  async compact(revision: number): Promise<void> {
    // physical: the call returns once the compaction is applied, so a read right after it
    // already fails below the revision.
    const res = await this.call(() => this.client.kv.compact({ revision, physical: true }, this.callOptions()), { revision: revision - 1 });
    this.observe(res.header);
  }

  async revision(): Promise<number> {
    const res = await this.call(() => this.client.kv.range({ key: Buffer.from([0]), count_only: true }, this.callOptions()));
    return this.observe(res.header);
  }

  close(): Promise<void> {
    if (this.closed) return Promise.resolve();
    this.closed = true;
    for (const watch of [...this.watches]) watch.end();
    this.watches.clear();
    this.client.close();
    return Promise.resolve();
  }
}

type WatchGrpcStream = Awaited<ReturnType<Etcd3['watchClient']['watch']>>;

/**
 * One Store watch: one gRPC Watch stream with one etcd watcher on the prefix, opened again
 * after a lost connection from the revision after the last one delivered.
 */
class EtcdWatch {
  /** The Store side: closing it stops the gRPC side. */
  readonly stream: WatchStream;
  private grpc: WatchGrpcStream | undefined;
  private stopped = false;
  private cancelTimer: (() => void) | undefined;
  private delay: number;
  /** The revision to ask etcd for: events from here on are still owed. */
  private next: number;
  /** Events below this revision are dropped (the watch asked for one revision earlier). */
  private minRevision: number;
  /** Whether any event was delivered yet. */
  private delivered = false;

  constructor(
    private readonly store: EtcdStore,
    private readonly prefix: Buffer,
    from: number,
    /** Started without fromRevision: `from` is one past the highest revision the store saw. */
    private readonly live: boolean,
    onClosed: (watch: EtcdWatch) => void,
  ) {
    this.stream = new WatchStream(() => {
      this.stop();
      onClosed(this);
    });
    this.minRevision = from;
    // The revision before `from`, so that etcd's compaction check (start below the compacted
    // revision) refuses a start at the compacted revision too. Not for a live watch, which
    // asked for no history.
    this.next = !live && from > 1 ? from - 1 : from;
    this.delay = store.backoff.initial;
  }

  connect(): void {
    if (this.stopped) return;
    this.store.client.watchClient.watch({ interceptors: [waitForReady] }).then(
      (grpc) => {
        if (this.stopped) {
          this.hangUp(grpc);
          return;
        }
        this.grpc = grpc;
        grpc.on('data', (res) => this.onResponse(grpc, res));
        grpc.on('error', () => this.onBroken(grpc));
        grpc.on('end', () => this.onBroken(grpc));
        grpc.write({
          create_request: {
            key: this.prefix,
            range_end: prefixEnd(this.prefix),
            start_revision: this.next,
            prev_kv: true,
            progress_notify: true,
          },
        });
      },
      () => this.onBroken(undefined),
    );
  }

  private onResponse(grpc: WatchGrpcStream, res: IWatchResponse): void {
    if (this.stopped || grpc !== this.grpc) return;
    const revision = this.store.observe(res.header);
    if (res.canceled) {
      const compacted = Number(res.compact_revision);
      if (compacted > 0 && this.live && !this.delivered) {
        // A watch without fromRevision asked for no history: when another client compacted
        // past the last revision this store saw, it starts again after the compacted revision
        // rather than failing. Those revisions were written before etcd got the watch, so
        // etcd's own "from now" watch would not have sent them either.
        this.minRevision = compacted + 1;
        this.next = compacted + 1;
        this.hangUp(grpc);
        this.grpc = undefined;
        this.connect();
        return;
      }
      const requested = Math.max(this.minRevision, this.next);
      this.fail(compacted > 0 ? new ErrCompacted(requested, compacted) : mapError(new Error(`etcdserver: watch canceled: ${res.cancel_reason}`), { revision: requested }));
      return;
    }
    if (res.created) {
      this.delay = this.store.backoff.initial;
      return;
    }
    if (res.events.length === 0) {
      // A progress notification: etcd sends one only to a watcher that has caught up, and
      // every later event has a higher revision (IResponseHeader.revision).
      if (revision + 1 > this.next) this.next = revision + 1;
      return;
    }
    for (const ev of res.events) {
      const event = toEvent(ev);
      if (event.kv.modRevision < this.minRevision) continue;
      this.delivered = true;
      this.stream.push(event);
    }
    const last = Number(res.events[res.events.length - 1]?.kv.mod_revision ?? 0);
    if (last + 1 > this.next) this.next = last + 1;
  }

  private onBroken(grpc: WatchGrpcStream | undefined): void {
    if (this.stopped || (grpc !== undefined && grpc !== this.grpc)) return;
    if (grpc !== undefined) this.hangUp(grpc);
    this.grpc = undefined;
    if (this.cancelTimer !== undefined) return;
    const wait = this.delay;
    this.delay = Math.min(this.delay * 2, this.store.backoff.max);
    this.cancelTimer = this.store.clock.setTimer(this.store.clock.now() + wait, () => {
      this.cancelTimer = undefined;
      this.connect();
    });
  }

  private hangUp(grpc: WatchGrpcStream): void {
    // Half-close first: etcd3 resets the whole connection when an open stream errors, and a
    // cancel() of a stream still writable would count as one.
    grpc.end();
    grpc.cancel();
  }

  private fail(error: Error): void {
    this.stop();
    this.stream.fail(error);
  }

  /** Stops the gRPC side (the Store watch was closed, or failed). */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    this.cancelTimer?.();
    this.cancelTimer = undefined;
    const grpc = this.grpc;
    this.grpc = undefined;
    if (grpc !== undefined) this.hangUp(grpc);
  }

  /** Ends the Store watch (the store is closing). */
  end(): void {
    this.stop();
    this.stream.close();
  }
}

// The registry's shared state and plumbing: the store, the clock, the seeded generator behind
// names, UIDs and allocation draws, the one place the crash points fire (crash.ts names them),
// one txn helper, and the Service IP and
// port allocations on the RangeAllocation objects (batched compare-and-swaps, retried on
// conflict). The verbs (verbs/*.ts) and the strategies' allocation hooks run on it.
//
// With the IPAddress allocator (MultiCIDRServiceAllocator, the default), an allocation also
// reads the ServiceCIDRs and the names of the IPAddresses, and its compare-and-swap creates each
// new IPAddress under the condition that its key does not exist: the object's existence is the
// lock, as upstream's create is. A lost race is read again and planned again. Upstream's
// allocator goes on scanning from the IP it lost; here the batch is planned afresh from the
// state read, so which free IP a Service gets after a lost race differs, never whether two
// Services can get one (docs/deviations.md).
// upstream: pkg/registry/core/service/allocator/storage/storage.go (tryUpdate through
//           GuaranteedUpdate), pkg/registry/core/service/storage/storage.go (beginCreate,
//           beginUpdate, afterDelete: allocate, then give back on failure)
import {
  DEFAULT_CLUSTER_IP_ALLOCATION,
  err,
  ok,
  type ClusterIPAllocation,
  type IPAddress,
  type RangeAllocation,
  type Service,
  type ServiceCIDR,
} from '@kubesvc/api-types';
import { seededRng, type Rng } from '@kubesvc/ipallocator';
import type { Clock, Compare, Store, TxnOp, TxnResult } from '@kubesvc/store';
import type { CrashHook, CrashPoint } from './crash.js';
import { internalError } from './errors.js';
import { DEFAULT_EVENT_LOOP_SLICE_MS } from './event-loop-turns.js';
import { formatTimestamp, generateName, generateUID } from './names.js';
import { DEFAULT_PATCHERS, type Patcher } from './patch.js';
import {
  clusterIPOffset,
  ipAddressAllocators,
  fullSnapshotBytes,
  nodePortOffset,
  ipAllocatorOf,
  ipAllocatorSnapshot,
  portAllocatorOf,
  portAllocatorSnapshot,
  type AdapterError,
  type ClusterNetworking,
  type IPAllocator,
  type PortAllocator,
} from './pure-adapters.js';
import { RESOURCES, SECONDARY_SERVICE_IPS_KEY, SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY } from './resources.js';
import { isEmpty, NOTHING, release, type AllocState, type Held, type PlanResult } from './service-alloc.js';
import { rangeAllocationBytes, rangeTextOf, updateRangeText, type RangeText } from './range-text.js';
import { ReaderTextCache, serializeObject } from './stored-object.js';
import type { RangeCasStats, RegistryOptions, RegistryResult } from './types.js';

/**
 * Attempts of one allocation or release CAS on the range objects. Upstream's GuaranteedUpdate
 * retries a conflict until the request's deadline, with no count: several apiservers creating at
 * once on etcd lose far more than MAX_RETRIES rounds in a row (measured: 19 of 250 creates failed
 * with 16 at 3 apiservers x 4 clients). The bound only stops a broken store from spinning.
 * upstream: pkg/registry/core/service/allocator/storage/storage.go (tryUpdate through
 *           GuaranteedUpdate), staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go
 */
const MAX_RANGE_CAS_ATTEMPTS = 1000;

/** The turns of the event loop a batch of allocations may wait for more to join it (allocate). */
const MAX_GATHER_TURNS = 4;

/** The ranges' keys, by CIDR index, and the node ports. */
const IP_KEYS = [SERVICE_IPS_KEY, SECONDARY_SERVICE_IPS_KEY] as const;

/**
 * The IPAddresses that exist, by name (the IPAddress allocator's lock objects). A successful
 * write adds and removes its own names in place (writeRanges): the set is the registry's one
 * record of what exists, shared by the views built on one read. A copy per write was a copy of
 * every IPAddress name on every batch of allocations, growing with the Services.
 */
interface IPAddressNames {
  readonly names: Set<string>;
}

/** The ServiceCIDRs as read: their keys and modRevisions, which say whether the allocators built from them still hold. */
type ServiceCIDRsRead = { readonly kvs: readonly { readonly key: string; readonly value: string; readonly modRevision: number }[] };

function serviceCIDRsVersion(read: ServiceCIDRsRead): string {
  return read.kvs.map((kv) => `${kv.key}@${kv.modRevision}`).join(',');
}

interface RangeView {
  readonly state: AllocState;
  /** With the IPAddress allocator: the names read, kept up to date with this registry's own writes. */
  readonly ipAddressNames?: IPAddressNames;
  /** With the IPAddress allocator: which ServiceCIDRs (keys and revisions) its MetaAllocators were built from. */
  readonly serviceCIDRsVersion?: string;
  /** The modRevision each range key had (0: absent), for the CAS. */
  readonly revisions: ReadonlyMap<string, number>;
  /** Each key's snapshot bytes at full length, once computed (see fullSnapshotBytes); writeRanges flips bits in them in place. */
  readonly mirrors: ({ readonly range: string; readonly bytes: Uint8Array; readonly text?: RangeText } | undefined)[];
}

/** A range write: the ranges as written, or lost to another writer with the ranges that writer left (undefined when they do not decode). */
type RangeWrite = { readonly _tag: 'Written'; readonly view: RangeView } | { readonly _tag: 'LostRace'; readonly fresh: RangeView | undefined };

/** A Service create's or update's allocation: planned against the ranges, then written. */
export type AllocPlan = (state: AllocState, rng: Rng) => PlanResult;

export interface Allocated {
  readonly service: Service;
  readonly held: Held;
  readonly toRelease: Held;
}

interface PendingAlloc {
  readonly plan: AllocPlan;
  readonly resolve: (r: RegistryResult<Allocated>) => void;
  readonly reject: (e: unknown) => void;
}

/** What an operation set and cleared, to flip in the snapshot bytes, and the IPAddresses it creates and deletes. */
interface Delta {
  readonly set: Held;
  readonly clear: Held;
  readonly creates: readonly IPAddress[];
  readonly deletes: readonly string[];
}

const IP_ADDRESS_PREFIX = RESOURCES.ipaddresses.prefix;
const NAMESPACE_PREFIX = RESOURCES.namespaces.prefix;
/**
 * How long a namespace read as active answers the create path's admission check without a read
 * of the store (activeNamespace), as kube-apiserver's NamespaceLifecycle answers from its
 * informer's lister: about as stale as a lister can be behind another apiserver's write. This
 * registry's own writes of a namespace forget it at once.
 */
const ACTIVE_NAMESPACE_MS = 1000;
/** At most this many namespaces are remembered; past it all are forgotten and read again. */
const MAX_ACTIVE_NAMESPACES = 10_000;
const SERVICE_CIDR_PREFIX = RESOURCES.servicecidrs.prefix;

/** Flips the bit of `offset` (none when negative); the index of the byte it is in, or -1. */
function flip(bytes: Uint8Array, offset: number, on: boolean): number {
  if (offset < 0) return -1;
  const index = bytes.length - 1 - (offset >> 3);
  const mask = 1 << (offset & 7);
  const b = bytes[index] ?? 0;
  bytes[index] = on ? b | mask : b & ~mask;
  return index;
}


export class RegistryCore {
  readonly store: Store;
  readonly clock: Clock;
  readonly net: ClusterNetworking;
  readonly patchers: Readonly<Record<string, Patcher>>;
  readonly eventLoopSliceMs: number;
  /** The plain list's texts of stored objects (listJson). */
  readonly readerTexts = new ReaderTextCache();
  private rng: Rng;
  private readonly crashHook: CrashHook | undefined;
  private rangeCache: RangeView | undefined;
  /** The views' mirrors a range write has started from: each is written on by one write only (writeRanges). */
  private readonly takenMirrors = new WeakSet<object>();
  private rangeCas = { attempts: 0, conflicts: 0 };
  /** Allocations waiting for the next batch (see allocate). */
  private readonly allocQueue: PendingAlloc[] = [];
  private allocRunning = false;
  /** The RangeAllocation keys: one per service CIDR (primary first) unless the IPAddress allocator runs alone, then the node ports. */
  private readonly rangeKeys: readonly string[];
  /** Which ClusterIP allocator runs. */
  readonly clusterIPAllocation: ClusterIPAllocation;
  /** Namespaces read as active (not terminating) by their key: modRevision, and when read (activeNamespace). */
  private readonly activeNamespaces = new Map<string, { readonly revision: number; readonly at: number }>();

  constructor(options: RegistryOptions, net: ClusterNetworking) {
    this.store = options.store;
    this.clock = options.clock;
    this.net = net;
    this.clusterIPAllocation = options.clusterIPAllocation ?? DEFAULT_CLUSTER_IP_ALLOCATION;
    const bitmaps = this.clusterIPAllocation.allocator === 'bitmap' || this.clusterIPAllocation.dualWrite ? net.serviceCIDRs.length : 0;
    this.rangeKeys = [...IP_KEYS.slice(0, bitmaps), SERVICE_NODE_PORTS_KEY];
    this.rng = seededRng(options.seed);
    this.crashHook = options.crashHook;
    this.patchers = { ...DEFAULT_PATCHERS, ...options.patchers };
    this.eventLoopSliceMs = options.eventLoopSliceMs ?? DEFAULT_EVENT_LOOP_SLICE_MS;
  }

  /** The range CAS counters (for the benchmarks and the HA tests). */
  rangeCasStats(): RangeCasStats {
    return { ...this.rangeCas };
  }

  /** A name from generateName's base and the seeded generator. */
  nextName(base: string): string {
    const [name, rng] = generateName(base, this.rng);
    this.rng = rng;
    return name;
  }

  /** A UID from the seeded generator. */
  nextUID(): string {
    const [uid, rng] = generateUID(this.rng);
    this.rng = rng;
    return uid;
  }

  /** The clock's time as metadata timestamps print it. */
  timestamp(): string {
    return formatTimestamp(this.clock.now());
  }

  // --- allocation --------------------------------------------------------------------------

  /** The stored ranges, or a cached copy (checked by the CAS, refreshed when it fails). */
  async readRanges(): Promise<RegistryResult<RangeView>> {
    const keys = this.rangeKeys;
    const r = await this.store.txn([], keys.map((key) => ({ kind: 'get', key })));
    const ranges = this.rangesFrom(keys, r);
    if (!ranges.ok || this.clusterIPAllocation.allocator === 'bitmap') return ranges;
    // At the ranges' revision, so that the three reads are one state of the store.
    const [cidrs, addresses] = await Promise.all([
      this.store.range(SERVICE_CIDR_PREFIX, { revision: r.revision }),
      this.store.range(IP_ADDRESS_PREFIX, { revision: r.revision }),
    ]);
    const names = new Set(addresses.kvs.map((kv) => kv.key.slice(IP_ADDRESS_PREFIX.length)));
    return this.withServiceCIDRs({ ...ranges.value, ipAddressNames: { names } }, cidrs);
  }

  /**
   * Reads the ServiceCIDRs of a cached view again (a handful of objects, read on every batch so
   * that a new or terminating one counts at once); its allocators are rebuilt only when one of
   * them changed.
   */
  private async refreshServiceCIDRs(view: RangeView): Promise<RegistryResult<RangeView>> {
    if (view.ipAddressNames === undefined) return ok(view);
    return this.withServiceCIDRs(view, await this.store.range(SERVICE_CIDR_PREFIX));
  }

  /** The view with the IPAddress allocator's state: MetaAllocators over `cidrs` (kept when they are the ones the view was built from), and its names. */
  private withServiceCIDRs(view: RangeView, cidrs: ServiceCIDRsRead): RegistryResult<RangeView> {
    const names = view.ipAddressNames ?? { names: new Set<string>() };
    const version = serviceCIDRsVersion(cidrs);
    let metas = view.state.ipAddresses?.metas;
    if (metas === undefined || version !== view.serviceCIDRsVersion) {
      const built = ipAddressAllocators(this.net.families, cidrs.kvs.map((kv) => JSON.parse(kv.value) as ServiceCIDR));
      if (!built.ok) return err(internalError(adapterMessage(built.error)));
      metas = built.value;
    }
    const ipAddresses = { metas, taken: names.names, dualWrite: this.clusterIPAllocation.dualWrite };
    return ok({ ...view, state: { ...view.state, ipAddresses }, ipAddressNames: names, serviceCIDRsVersion: version });
  }

  /** `view` with the IPAddress names `names` (flat: the plans' views are layered on the one read). */
  private withNames(view: RangeView, names: Set<string>): RangeView {
    if (view.state.ipAddresses === undefined) return view;
    return { ...view, state: { ...view.state, ipAddresses: { ...view.state.ipAddresses, taken: names } }, ipAddressNames: { names } };
  }

  rangesFrom(keys: readonly string[], r: TxnResult): RegistryResult<RangeView> {
    const revisions = new Map<string, number>();
    const stored: (RangeAllocation | undefined)[] = [];
    keys.forEach((key, i) => {
      const res = r.results[i];
      const kv = res?.kind === 'get' ? res.kv : undefined;
      revisions.set(key, kv?.modRevision ?? 0);
      stored.push(kv === undefined ? undefined : (JSON.parse(kv.value) as RangeAllocation));
    });
    const ips = [];
    for (const [i, cidr] of this.net.serviceCIDRs.slice(0, keys.length - 1).entries()) {
      const a = ipAllocatorOf(cidr, stored[i]);
      if (!a.ok) return err(internalError(adapterMessage(a.error)));
      ips.push(a.value);
    }
    const ports = portAllocatorOf(this.net.portRange, stored[stored.length - 1]);
    if (!ports.ok) return err(internalError(adapterMessage(ports.error)));
    return ok({ state: { ips, ports: ports.value }, revisions, mirrors: [] });
  }

  /**
   * Runs `plan` against the ranges and writes its result with a CAS on every range key, retried
   * with fresh ranges on conflict. Nothing is written when the plan fails or changes nothing.
   *
   * Plans are queued and run in batches: the allocations that arrive within one turn of the
   * event loop (concurrent API requests) are planned one after the other, each against the state
   * the previous one left, and written in ONE compare-and-swap of the range objects. A
   * RangeAllocation of a /12 is 128 KiB of bitmap, so one write per batch instead of one per
   * Service is most of a create's cost under load; each plan still sees exactly the state a
   * sequential run would give it, and a failed plan fails alone. A batch waits a turn more while
   * the turn before brought more allocations (up to MAX_GATHER_TURNS): requests that arrive
   * together are read over a few turns when the server is busy, and a batch that left half of
   * them for the next write cost a range write each.
   */
  allocate(plan: AllocPlan): Promise<RegistryResult<Allocated>> {
    return new Promise((resolve, reject) => {
      this.allocQueue.push({ plan, resolve, reject });
      if (this.allocQueue.length === 1 && !this.allocRunning) this.gatherAllocations(0, 0);
    });
  }

  /** Starts the next batch a turn from now, or later while each turn brings more allocations. */
  private gatherAllocations(seen: number, turns: number): void {
    setImmediate(() => {
      const queued = this.allocQueue.length;
      if (queued > seen && turns + 1 < MAX_GATHER_TURNS) this.gatherAllocations(queued, turns + 1);
      else void this.drainAllocations();
    });
  }

  private async drainAllocations(): Promise<void> {
    this.allocRunning = true;
    try {
      const batch = this.allocQueue.splice(0);
      try {
        await this.allocateBatch(batch);
      } catch (e) {
        // A store failure or a simulated crash: every caller of the batch sees it.
        for (const p of batch) p.reject(e);
      }
    } finally {
      this.allocRunning = false;
      // The next batch is gathered as the first was: the allocations of the requests read in
      // the meantime join it, rather than each going alone behind this write.
      if (this.allocQueue.length > 0) this.gatherAllocations(0, 0);
    }
  }

  private async allocateBatch(batch: readonly PendingAlloc[]): Promise<void> {
    const keys = this.rangeKeys;
    let view = this.rangeCache;
    let pending = batch;
    for (let attempt = 0; attempt < MAX_RANGE_CAS_ATTEMPTS; attempt++) {
      let cached = false;
      if (view === undefined) {
        const read = await this.readRanges();
        if (!read.ok) {
          for (const p of pending) p.resolve(read);
          return;
        }
        view = read.value;
      } else if (view.ipAddressNames !== undefined) {
        const refreshed = await this.refreshServiceCIDRs(view);
        if (!refreshed.ok) {
          for (const p of pending) p.resolve(refreshed);
          return;
        }
        view = refreshed.value;
        cached = true;
      }
      let state = view.state;
      const writing: { readonly p: PendingAlloc; readonly value: Allocated }[] = [];
      const failed: { readonly p: PendingAlloc; readonly result: RegistryResult<Allocated> }[] = [];
      const ips: Held['ips'][number][] = [];
      const ports: number[] = [];
      const creates: IPAddress[] = [];
      for (const p of pending) {
        const { result: planned, rng } = p.plan(state, this.rng);
        this.rng = rng;
        if (!planned.ok) {
          failed.push({ p, result: planned });
          continue;
        }
        const value = { service: planned.value.service, held: planned.value.allocated, toRelease: planned.value.toRelease };
        if (isEmpty(planned.value.allocated)) {
          p.resolve(ok(value));
          continue;
        }
        state = planned.value.state;
        ips.push(...planned.value.allocated.ips);
        ports.push(...planned.value.allocated.ports);
        creates.push(...(planned.value.allocated.ipAddresses ?? []));
        writing.push({ p, value });
      }
      // The IPAddress names were cached: an IP another writer freed since looks taken, so a
      // plan that failed (a full range, say) is planned again on what the store holds now.
      if (cached && failed.length > 0) {
        view = undefined;
        continue;
      }
      for (const { p, result } of failed) p.resolve(result);
      if (writing.length === 0) return;
      const written = await this.writeRanges(keys, view, state, { set: { ips, ports }, clear: NOTHING, creates, deletes: [] }, 'allocate');
      if (written._tag === 'Written') {
        this.rangeCache = written.view;
        for (const { p, value } of writing) p.resolve(ok(value));
        return;
      }
      view = written.fresh;
      pending = writing.map((w) => w.p);
    }
    for (const p of pending) p.resolve(err(internalError('failed to allocate: too many conflicts on the range allocations')));
  }

  /**
   * One compare-and-swap of the range objects. Losing it to another writer is no failure but
   * an outcome the callers retry on (with the ranges the lost transaction read, when they
   * decode), so it is a tagged outcome of its own rather than a Result with an error.
   */
  private async writeRanges(
    keys: readonly string[],
    view: RangeView,
    next: AllocState,
    delta: Delta,
    what: string,
  ): Promise<RangeWrite> {
    const compares: Compare[] = [];
    const puts: TxnOp[] = [];
    const current = [...view.state.ips, view.state.ports];
    const nextAll = [...next.ips, next.ports];
    const mirrors = [...view.mirrors];
    const portIndex = keys.length - 1;
    keys.forEach((key, i) => {
      const before = current[i];
      if (before === undefined || before === nextAll[i]) return;
      // The bytes before, then the bits this operation flipped, in place, and the base64 of the
      // pieces flipped made again into the JSON's bytes (range-text.ts), which the store reads
      // when it runs the txn: a copy of the 128 KiB of a /12, or a new string of its 175 KB of
      // JSON, per write was fresh memory on every batch. So a mirror is written on by one write
      // only, the first to start from it: the cache is cleared below before the commit, and a
      // lost race goes on from the ranges read back. Two writes can still start from one view
      // (an allocation awaits the ServiceCIDRs while a release takes the cached view), and the
      // second must not change bytes the first one's txn has yet to write: it starts from a copy.
      const cached = mirrors[i];
      const base: { readonly range: string; readonly bytes: Uint8Array; readonly text?: RangeText } =
        cached !== undefined && !this.takenMirrors.has(cached) ? cached : fullSnapshotBytes(before);
      if (cached !== undefined) this.takenMirrors.add(cached);
      const bytes = base.bytes;
      const changed: number[] = [];
      const apply = (held: Held, on: boolean) => {
        if (i === portIndex) {
          for (const port of held.ports) changed.push(flip(bytes, nodePortOffset(view.state.ports, port), on));
        } else {
          const allocator = view.state.ips[i];
          if (allocator === undefined) return;
          for (const { family, ip } of held.ips) if (this.net.families[i] === family) changed.push(flip(bytes, clusterIPOffset(allocator, ip), on));
        }
      };
      apply(delta.set, true);
      apply(delta.clear, false);
      let text = base.text;
      if (text === undefined) text = rangeTextOf(bytes);
      else updateRangeText(text, bytes, changed);
      mirrors[i] = { range: base.range, bytes, text };
      compares.push({ key, target: 'modRevision', op: '=', value: view.revisions.get(key) ?? 0 });
      puts.push({ kind: 'put', key, value: rangeAllocationBytes(base.range, text) });
    });
    const rangePuts = puts.length;
    // The IPAddresses: a create only where no object of that name exists (the lock), a
    // release's delete whatever is there (upstream deletes by name and ignores the answer).
    const createKeys = delta.creates.map((a) => `${IP_ADDRESS_PREFIX}${a.metadata.name ?? ''}`);
    delta.creates.forEach((ipAddress, i) => {
      const key = createKeys[i] ?? '';
      compares.push({ key, target: 'createRevision', op: '=', value: 0 });
      const object: IPAddress = { ...ipAddress, metadata: { ...ipAddress.metadata, uid: this.nextUID(), creationTimestamp: this.timestamp() } };
      puts.push({ kind: 'put', key, value: serializeObject(object) });
    });
    for (const name of delta.deletes) puts.push({ kind: 'delete', key: `${IP_ADDRESS_PREFIX}${name}` });
    if (puts.length === 0) return { _tag: 'Written', view };
    this.rangeCache = undefined;
    const r = await this.commit(`${what} ranges`, compares, puts, [...keys, ...createKeys].map((key) => ({ kind: 'get', key })));
    if (rangePuts > 0) this.rangeCas.attempts++;
    if (!r.succeeded) {
      if (rangePuts > 0) this.rangeCas.conflicts++;
      const fresh = this.rangesFrom(keys, r);
      if (!fresh.ok) return { _tag: 'LostRace', fresh: undefined };
      if (view.ipAddressNames === undefined) return { _tag: 'LostRace', fresh: fresh.value };
      // What the lost race tells of the IPAddresses: which of the ones it would create exist.
      // The rest of the cached names stay as they were; a plan that then fails reads them all
      // again (allocateBatch).
      const names = new Set(view.ipAddressNames.names);
      createKeys.forEach((key, i) => {
        const got = r.results[keys.length + i];
        if (got?.kind === 'get' && got.kv !== undefined) names.add(key.slice(IP_ADDRESS_PREFIX.length));
      });
      const { ipAddressNames: _n, ...withoutNames } = view;
      return { _tag: 'LostRace', fresh: this.withNames({ ...withoutNames, ...fresh.value, state: { ...fresh.value.state, ...(view.state.ipAddresses === undefined ? {} : { ipAddresses: view.state.ipAddresses }) } }, names) };
    }
    // The range objects' revisions, the only ones a later write compares: the IPAddresses
    // created here are not kept, or the map (copied per write) would grow with every one.
    const revisions = new Map(view.revisions);
    for (const op of puts.slice(0, rangePuts)) if (op.kind === 'put') revisions.set(op.key, r.revision);
    const written: RangeView = { ...view, state: { ...next, ...(view.state.ipAddresses === undefined ? {} : { ipAddresses: view.state.ipAddresses }) }, revisions, mirrors };
    if (view.ipAddressNames === undefined) return { _tag: 'Written', view: written };
    // In place (IPAddressNames): what this write created and deleted is so in the store now,
    // whichever view (this one, or another write's that shares the set) goes on from here.
    const names = view.ipAddressNames.names;
    for (const name of createKeys) names.add(name.slice(IP_ADDRESS_PREFIX.length));
    for (const name of delta.deletes) names.delete(name);
    return { _tag: 'Written', view: this.withNames(written, names) };
  }

  /** Gives `held` back with a CAS, retried on conflict. */
  async releaseHeld(held: Held): Promise<void> {
    const keys = this.rangeKeys;
    let view = this.rangeCache;
    for (let attempt = 0; attempt < MAX_RANGE_CAS_ATTEMPTS; attempt++) {
      if (view === undefined) {
        const read = await this.readRanges();
        if (!read.ok) return;
        view = read.value;
      }
      const released = release(view.state, held, this.net);
      const clear = { ips: released.cleared, ports: held.ports };
      const written = await this.writeRanges(keys, view, released.state, { set: NOTHING, clear, creates: [], deletes: released.deletes }, 'release');
      if (written._tag === 'Written') {
        this.rangeCache = written.view;
        return;
      }
      view = written.fresh;
    }
    // Still held: the repair loop frees it on its third run.
  }

  /**
   * Writes empty RangeAllocation objects for the ranges that have none yet, as kube-apiserver
   * does when it starts (its allocators' CreateOrUpdate), so that later allocations and
   * releases always compare-and-swap an existing object. Idempotent.
   */
  async initRanges(): Promise<void> {
    const keys = this.rangeKeys;
    const bitmaps = this.net.serviceCIDRs.slice(0, keys.length - 1);
    const empty = [...bitmaps.map((cidr) => ipAllocatorOf(cidr, undefined)), portAllocatorOf(this.net.portRange, undefined)];
    const values = empty.map((a, i) => {
      if (!a.ok) throw new Error(a.error.message);
      return JSON.stringify(i < keys.length - 1 ? ipAllocatorSnapshot(a.value as IPAllocator) : portAllocatorSnapshot(a.value as PortAllocator));
    });
    for (const [i, key] of keys.entries()) {
      await this.store.txn([{ key, target: 'createRevision', op: '=', value: 0 }], [{ kind: 'put', key, value: values[i] ?? '' }]);
    }
  }

  /** Forgets the cached ranges (after another writer, such as the repair loop, changed them). */
  invalidateRangeCache(): void {
    this.rangeCache = undefined;
  }

  // --- plumbing ----------------------------------------------------------------------------

  // --- crash points --------------------------------------------------------------------------
  // Every point of crash.ts fires here and nowhere else: the verbs call the steps below (take
  // ranges, write, give back) and never name a point. Without a crashHook (production) no
  // point fires and each step is the plain write.

  private crash(point: CrashPoint, txn?: string, keys?: readonly string[]): void {
    if (this.crashHook === undefined) return;
    this.crashHook({ point, ...(txn === undefined ? {} : { txn }), ...(keys === undefined ? {} : { keys }) });
  }

  /**
   * A Service create's or update's allocation (allocate). Once it committed, the write is at
   * `service-create:after-allocate` (always) or `service-update:after-allocate` (when the
   * update took new IPs or ports): dying there leaks the bits until the repair loop frees them.
   */
  async allocateForWrite(write: 'create' | 'update', plan: AllocPlan): Promise<RegistryResult<Allocated>> {
    const planned = await this.allocate(plan);
    if (planned.ok && (write === 'create' || !isEmpty(planned.value.held))) this.crash(`service-${write}:after-allocate`);
    return planned;
  }

  /**
   * Gives back what a persisted Service update or delete let go (releaseHeld), when there is
   * anything; `service-update:after-persist` or `service-delete:after-persist` lies between
   * the persisted write and this release.
   */
  async releaseAfterPersist(write: 'update' | 'delete', held: Held): Promise<void> {
    if (isEmpty(held)) return;
    this.crash(`service-${write}:after-persist`);
    await this.releaseHeld(held);
  }

  /** The namespace controller deleted (or found gone) one of a namespace's objects: `namespace-finalize:after-object-delete`. */
  finalizedNamespaceObject(): void {
    this.crash('namespace-finalize:after-object-delete');
  }

  // --- writes ------------------------------------------------------------------------------

  /** One store txn; a multi-key one is wrapped by `txn:before-commit` and `txn:after-commit`. */

  /**
   * The modRevision of the namespace at `key` as last read active within ACTIVE_NAMESPACE_MS,
   * or undefined: then the caller reads it from the store. A create's txn compares the
   * namespace's modRevision all the same, so a namespace changed since (terminating, deleted)
   * fails that compare and is read again before anything is written.
   * upstream (v1.33): staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go
   * (Validate: the namespace from the lister, a live read when the lister has none)
   */
  activeNamespace(key: string): number | undefined {
    const seen = this.activeNamespaces.get(key);
    if (seen === undefined) return undefined;
    const age = this.clock.now() - seen.at;
    if (age >= 0 && age < ACTIVE_NAMESPACE_MS) return seen.revision;
    this.activeNamespaces.delete(key);
    return undefined;
  }

  /** What a read of the namespace at `key` found: active at `revision`, or (undefined) missing or terminating. */
  sawNamespace(key: string, revision: number | undefined): void {
    if (revision === undefined) {
      this.activeNamespaces.delete(key);
      return;
    }
    if (this.activeNamespaces.size >= MAX_ACTIVE_NAMESPACES) this.activeNamespaces.clear();
    this.activeNamespaces.set(key, { revision, at: this.clock.now() });
  }

  async commit(name: string, compares: readonly Compare[], onSuccess: readonly TxnOp[], onFailure?: readonly TxnOp[]): Promise<TxnResult> {
    // A write of a namespace (its deletion marks it terminating) forgets what was read of it.
    if (this.activeNamespaces.size > 0) for (const op of onSuccess) if (op.kind !== 'get' && op.key.startsWith(NAMESPACE_PREFIX)) this.activeNamespaces.delete(op.key);
    const multi = onSuccess.filter((op) => op.kind !== 'get').length > 1;
    const keys = multi ? onSuccess.map((op) => op.key) : undefined;
    if (multi) this.crash('txn:before-commit', name, keys);
    const r = await this.store.txn(compares, onSuccess, onFailure);
    if (multi && r.succeeded) this.crash('txn:after-commit', name, keys);
    return r;
  }
}

function adapterMessage(e: AdapterError): string {
  return e.message;
}

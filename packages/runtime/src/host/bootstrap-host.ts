// The bootstrap controller's host: the one place where the pure reducer of
// @kubesvc/bootstrap-controller meets the store. It feeds the reducer Observed messages built
// from the informer caches (Services, Endpoints, EndpointSlices, Namespaces) and from the
// RangeAllocations and master leases read at the cache's revision, carries out the actions the
// reducer returns, and answers each write with an ActionResult, after an Observed that shows
// the write. Ticks come from the clock at the times the reducer asks for.
// upstream: pkg/controlplane/controller.go (v1.21–v1.26: the goroutines this reducer models),
//           pkg/controlplane/reconcilers/lease.go (storageLeases: UpdateLease, RemoveLease),
//           pkg/registry/core/service/allocator/storage/storage.go (CreateOrUpdate),
//           staging/src/k8s.io/client-go/tools/events/recorder.go (makeEvent),
//           pkg/apis/events/v1/conversion.go (how an events/v1 Event reads as a core/v1 Event)
import { hostname as osHostname } from 'node:os';
import type { Endpoints, EndpointSlice, KubeObject, Namespace, RangeAllocation, RepairEvent, Service } from '@kubesvc/api-types';
import {
  initialState,
  KUBERNETES_SERVICE_NAME,
  KUBERNETES_SERVICE_NAMESPACE,
  step,
  type Action,
  type ApiError as ReducerApiError,
  type ApiErrorReason,
  type BootstrapConfig,
  type ControllerState,
  type Message,
  type Observation,
  type RangeAllocations,
  type RangeKey,
  type WriteAction,
} from '@kubesvc/bootstrap-controller';
import type { Lease } from '@kubesvc/reconcilers';
import { type CancelTimer, type Clock, ErrLeaseNotFound, type LeaseId, type Store, type TxnResult } from '@kubesvc/store';
import { conflictError, internalError, type ApiError, type Registry, MASTER_LEASES_PREFIX, masterLeaseKey, SECONDARY_SERVICE_IPS_KEY, SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY, type ResourceName, deserializeObject, silentLogger, type Logger } from '@kubesvc/apiserver';
import { EventRecorder } from './events.js';
import type { Informer } from './informer.js';
import { Mailbox } from './mailbox.js';

/** The resources the bootstrap controller reads from the informer. */
export const BOOTSTRAP_RESOURCES: readonly ResourceName[] = ['services', 'endpoints', 'endpointslices', 'namespaces'];

const RANGE_KEYS: Readonly<Record<RangeKey, string>> = {
  serviceIPs: SERVICE_IPS_KEY,
  secondaryServiceIPs: SECONDARY_SERVICE_IPS_KEY,
  nodePorts: SERVICE_NODE_PORTS_KEY,
};

/** The RangeAllocation resources, as the allocator storage names them in its errors. */
const RANGE_RESOURCES: Readonly<Record<RangeKey, string>> = {
  serviceIPs: 'serviceipallocations',
  secondaryServiceIPs: 'serviceipallocations',
  nodePorts: 'servicenodeportallocations',
};

/** upstream: RunKubernetesService polls /readyz every 100 ms until it answers 200. */
const READYZ_POLL_MS = 100;

export interface BootstrapHostOptions {
  readonly registry: Registry;
  /** Must watch BOOTSTRAP_RESOURCES. */
  readonly informer: Informer;
  readonly clock: Clock;
  readonly config: BootstrapConfig;
  readonly logger?: Logger;
  /** The events' reportingInstance is `<controller>-<hostname>`, as the events/v1 recorder makes it. Default: os.hostname(). */
  readonly hostname?: string;
  /** The reducer asked the apiserver to exit (upstream klog.Fatalf). The host has halted. */
  readonly onFatal?: (message: string) => void;
  /**
   * The apiserver's other readyz checks, beside the store's: the post-start hooks that have not
   * returned yet (the default ServiceCIDR, RepairIPAddress's first pass). Until it holds, the
   * reducer's /readyz poll answers false; recheckReadyz() asks again when it may have changed.
   */
  readonly readyzChecks?: () => boolean;
}

export interface BootstrapHost {
  /** The kubernetes Service has been reconciled once since start: the first Service pass is over and the Service is in the cache. */
  isReady(): boolean;
  /** Resolves when isReady() first holds; rejects if the host halts before (fatal, stop, kill). */
  whenReady(): Promise<void>;
  /** The reducer's state, for status pages and tests. */
  state(): ControllerState;
  /** readyzChecks may hold now: poll /readyz at once instead of at the next 100 ms. */
  recheckReadyz(): void;
  /** RepairIPAddress made its first successful pass (the 'ipaddress' allocator): the initial-repair deadline counts it. */
  ipAddressRepairSucceeded(): void;
  /** Resolves when no message is queued or being handled (timers aside). */
  idle(): Promise<void>;
  /** What kube-apiserver does on SIGTERM: the reducer's Stop removes this apiserver's endpoint and lease, then the host halts. */
  stop(): Promise<void>;
  /** What SIGKILL leaves: the host halts at once, writing nothing more; a master lease is left to expire. */
  kill(): Promise<void>;
}

function errorReason(tag: ApiError['_tag']): ApiErrorReason {
  switch (tag) {
    case 'AlreadyExists':
    case 'Conflict':
    case 'NotFound':
    case 'Invalid':
    case 'Forbidden':
    case 'InternalError':
      return tag;
    default:
      // The reducer tells apart only the reasons above; the message keeps the rest.
      return 'InternalError';
  }
}

/** A registry error as the reducer's client error: its Status reason and message. */
export function reducerError(error: ApiError): ReducerApiError {
  return { _tag: errorReason(error._tag), message: error.message };
}

function thrownError(e: unknown): ReducerApiError {
  return reducerError(internalError(e instanceof Error ? e.message : String(e)));
}

function resourceOf(kind: 'Namespace' | 'Service' | 'Endpoints' | 'EndpointSlice'): ResourceName {
  switch (kind) {
    case 'Namespace':
      return 'namespaces';
    case 'Service':
      return 'services';
    case 'Endpoints':
      return 'endpoints';
    case 'EndpointSlice':
      return 'endpointslices';
  }
}

type Outcome = { readonly error?: ReducerApiError; readonly revision?: number };

class Host implements BootstrapHost {
  private st: ControllerState;
  private readonly mailbox: Mailbox<Message>;
  private observedRevision = -1;
  private wake: CancelTimer | undefined;
  private readyzTimer: CancelTimer | undefined;
  private ready = false;
  /** /readyz has answered 200 once: the poll is over. */
  private readyzOk = false;
  private readyWaiters: { resolve: () => void; reject: (e: Error) => void }[] = [];
  private stopWaiters: (() => void)[] = [];
  /** Our master lease's store lease, renewed by each put-lease. */
  private leaseId: LeaseId | undefined;
  private readonly events: EventRecorder;
  private readonly registry: Registry;
  private readonly store: Store;
  private readonly informer: Informer;
  private readonly clock: Clock;
  private readonly logger: Logger;
  private readonly hostname: string;

  constructor(private readonly options: BootstrapHostOptions) {
    this.registry = options.registry;
    this.store = options.registry.store;
    this.informer = options.informer;
    this.clock = options.clock;
    this.logger = options.logger ?? silentLogger;
    this.hostname = options.hostname ?? osHostname();
    this.events = new EventRecorder(this.registry, this.informer, this.clock, this.hostname, this.logger);
    for (const r of BOOTSTRAP_RESOURCES) {
      if (!this.informer.resources.includes(r)) throw new Error(`the bootstrap controller needs an informer on ${r}`);
    }
    this.st = initialState(options.config);
    // A bug in the host or the reducer: say so, and go on with the next message.
    this.mailbox = new Mailbox<Message>(
      (message) => this.handle(message),
      (e) => this.logger.log('error', `bootstrap controller host: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
    );
  }

  start(): void {
    this.post({ type: 'Start', now: this.clock.now() });
    void this.pollReadyz();
  }

  // --- the mailbox -------------------------------------------------------------------------

  private get halted(): boolean {
    return this.mailbox.halted;
  }

  private post(message: Message): void {
    this.mailbox.post(message);
  }

  /** One message: first the cluster as it is now, if it changed since the last look. */
  private async handle(message: Message): Promise<void> {
    if (this.informer.revision !== this.observedRevision) await this.deliver(await this.observe());
    if (this.halted) return;
    await this.deliver(message);
  }

  private async deliver(message: Message): Promise<void> {
    const result = step(this.st, message);
    this.st = result.state;
    for (const action of result.actions) {
      if (this.halted) return;
      await this.perform(action);
    }
    this.checkReady();
    this.checkStopped();
  }

  // --- what the reducer sees ---------------------------------------------------------------

  /** The caches, and the ranges and leases read at the caches' revision, so that all of it is one moment. */
  private async observe(): Promise<Message> {
    const revision = this.informer.revision;
    const read = async (prefix: string) => {
      try {
        return await this.store.range(prefix, revision > 0 ? { revision } : {});
      } catch {
        // Compacted past the cache's revision: the current state is the next best.
        return await this.store.range(prefix);
      }
    };
    const [ranges, leases] = await Promise.all([read('/registry/ranges/'), read(MASTER_LEASES_PREFIX)]);
    const byKey = new Map(ranges.kvs.map((kv) => [kv.key, deserializeObject<RangeAllocation>(kv)] as const));
    const rangeAllocations: RangeAllocations = {
      serviceIPs: byKey.get(SERVICE_IPS_KEY),
      secondaryServiceIPs: byKey.get(SECONDARY_SERVICE_IPS_KEY),
      nodePorts: byKey.get(SERVICE_NODE_PORTS_KEY),
    };
    // The store deletes a master lease's key when its TTL runs out, so every key listed is
    // live: its expiry is the store's business, never in the past as the reducer sees it.
    const live = new Map<string, Lease>();
    for (const kv of leases.kvs) {
      const ip = kv.key.slice(MASTER_LEASES_PREFIX.length);
      live.set(ip, { ip, expiresAt: Number.POSITIVE_INFINITY });
    }
    const observation: Observation = {
      services: this.informer.list<Service>('services'),
      endpoints: this.informer.list<Endpoints>('endpoints'),
      endpointSlices: this.informer.list<EndpointSlice>('endpointslices'),
      namespaces: this.informer.list<Namespace>('namespaces'),
      rangeAllocations,
      leases: live,
    };
    this.observedRevision = revision;
    return { type: 'Observed', ...observation };
  }

  // --- what the reducer asks for -----------------------------------------------------------

  private async perform(action: Action): Promise<void> {
    switch (action.kind) {
      case 'wake-at':
        this.wake?.();
        this.wake = this.clock.setTimer(action.at, () => {
          this.wake = undefined;
          this.post({ type: 'Tick', now: this.clock.now() });
        });
        return;
      case 'log':
        this.logger.log(action.level, action.message);
        return;
      case 'fatal':
        this.logger.log('error', action.message);
        this.halt(new Error(action.message));
        this.options.onFatal?.(action.message);
        return;
      default: {
        const outcome = await this.write(action);
        // Hold the answer until the caches show the write (or whatever beat it to the store).
        try {
          await this.informer.waitFor(Math.max(outcome.revision ?? 0, await this.store.revision()));
        } catch {
          // The store is closed: the answer goes out with what the caches have.
        }
        this.mailbox.enqueue({ type: 'ActionResult', id: action.id, error: outcome.error });
      }
    }
  }

  private async write(action: WriteAction): Promise<Outcome> {
    try {
      switch (action.kind) {
        case 'create': {
          const object = action.object;
          const r = await this.registry.create(resourceOf(object.kind), object.metadata.namespace ?? '', object as KubeObject);
          return r.ok ? { revision: Number(r.value.metadata?.resourceVersion ?? 0) } : { error: reducerError(r.error) };
        }
        case 'update': {
          const { object, resourceVersion } = action;
          const { resourceVersion: _stale, ...meta } = object.metadata;
          // The precondition is the one the action carries; none means "whatever is stored".
          const body = { ...object, metadata: resourceVersion === undefined ? meta : { ...meta, resourceVersion } } as KubeObject;
          const r = await this.registry.update(resourceOf(object.kind), meta.namespace ?? '', meta.name ?? '', body);
          return r.ok ? { revision: Number(r.value.metadata?.resourceVersion ?? 0) } : { error: reducerError(r.error) };
        }
        case 'delete': {
          const r = await this.registry.delete(resourceOf(action.objectKind), action.namespace, action.name, action.resourceVersion === undefined ? {} : { preconditions: { resourceVersion: action.resourceVersion } });
          return r.ok ? {} : { error: reducerError(r.error) };
        }
        case 'write-range':
          return await this.writeRange(action.range, action.allocation, action.resourceVersion);
        case 'put-lease':
          return await this.putLease(action.lease.ip, action.ttlMs);
        case 'delete-lease':
          return await this.deleteLease(action.ip);
        case 'event':
          return await this.recordEvent(action.event);
      }
    } catch (e) {
      return { error: thrownError(e) };
    }
  }

  /**
   * upstream RangeRegistry.CreateOrUpdate: a missing range is written whatever version the
   * caller holds; a stored one only over the version the caller read.
   */
  private async writeRange(range: RangeKey, allocation: RangeAllocation, resourceVersion: string | undefined): Promise<Outcome> {
    const key = RANGE_KEYS[range];
    const { kv } = await this.store.get(key);
    const gr = { group: '', resource: RANGE_RESOURCES[range] };
    if (kv !== undefined && resourceVersion === undefined) return { error: reducerError(conflictError(gr, '', 'another caller has already initialized the resource')) };
    const { resourceVersion: _rv, ...meta } = allocation.metadata;
    const value = JSON.stringify({ ...allocation, metadata: meta });
    const guard =
      kv === undefined
        ? { key, target: 'createRevision' as const, op: '=' as const, value: 0 }
        : { key, target: 'modRevision' as const, op: '=' as const, value: Number(resourceVersion) };
    const r: TxnResult = await this.store.txn([guard], [{ kind: 'put', key, value }]);
    if (!r.succeeded) return { error: reducerError(conflictError(gr, '', 'the provided resource version does not match')) };
    // The registry allocates from a cached copy checked by its own compare-and-swap; drop it now.
    this.registry.invalidateRangeCache();
    return { revision: r.revision };
  }

  /**
   * upstream storageLeases.UpdateLease: rewrite `/masterleases/<ip>` (an Endpoints holding the
   * IP, its generation bumped so that the write is never skipped) with the TTL. The key rides on
   * a store lease that each update renews, or a new one once the old has run out.
   */
  private async putLease(ip: string, ttlMs: number): Promise<Outcome> {
    const key = masterLeaseKey(ip);
    const ttlSeconds = Math.max(1, Math.ceil(ttlMs / 1000));
    let id = this.leaseId;
    if (id !== undefined) {
      try {
        await this.store.keepAlive(id);
      } catch (e) {
        if (!(e instanceof ErrLeaseNotFound)) throw e;
        id = undefined;
      }
    }
    id ??= (await this.store.grant(ttlSeconds)).id;
    this.leaseId = id;
    const { kv } = await this.store.get(key);
    const generation = kv === undefined ? 0 : ((JSON.parse(kv.value) as { metadata?: { generation?: number } }).metadata?.generation ?? 0);
    const value = JSON.stringify({ kind: 'Endpoints', apiVersion: 'v1', metadata: { generation: generation + 1 }, subsets: [{ addresses: [{ ip }] }] });
    const r = await this.store.txn([], [{ kind: 'put', key, value, lease: id }]);
    return { revision: r.revision };
  }

  /** upstream storageLeases.RemoveLease: delete the key; a missing one is the storage's NotFound. */
  private async deleteLease(ip: string): Promise<Outcome> {
    const key = masterLeaseKey(ip);
    const r = await this.store.txn([{ key, target: 'createRevision', op: '>', value: 0 }], [{ kind: 'delete', key }]);
    // The reducer removes only this apiserver's lease: the store lease under it goes too.
    await this.dropLease();
    if (!r.succeeded) {
      return { error: { _tag: 'NotFound', message: `StorageError: key not found, Code: 1, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: ` } };
    }
    return { revision: r.revision };
  }

  private async dropLease(): Promise<void> {
    const id = this.leaseId;
    this.leaseId = undefined;
    if (id === undefined) return;
    try {
      await this.store.revoke(id);
    } catch (e) {
      if (!(e instanceof ErrLeaseNotFound)) throw e;
    }
  }

  /** A repair loop's Warning, about the Service, as the events/v1 recorder writes it (events.ts). */
  private async recordEvent(event: RepairEvent): Promise<Outcome> {
    const { namespace: ns, name } = event.service;
    const namespace = ns === '' ? 'default' : ns;
    const r = await this.events.recordV1({
      type: event.type,
      reason: event.reason,
      note: event.message,
      action: event.action,
      reportingController: event.reportingController,
      regarding: { apiVersion: 'v1', kind: 'Service', namespace, name, resource: 'services' },
    });
    if (!r.ok) return { error: reducerError(r.error) };
    return { revision: Number(r.value.metadata.resourceVersion ?? 0) };
  }

  // --- readiness ---------------------------------------------------------------------------

  /**
   * The reducer's /readyz poll, answered from what the apiserver's own readyz checks: the store
   * answers and the informer has synced (it has, once the host exists).
   */
  private async pollReadyz(): Promise<void> {
    this.readyzTimer?.();
    this.readyzTimer = undefined;
    if (this.halted || this.readyzOk) return;
    let ok = true;
    try {
      await this.store.revision();
    } catch {
      ok = false;
    }
    if (ok && this.options.readyzChecks !== undefined && !this.options.readyzChecks()) ok = false;
    if (this.readyzOk) return;
    this.readyzOk = ok;
    this.post({ type: 'Readyz', ok, now: this.clock.now() });
    if (!ok && !this.halted) {
      // A poll that ran meanwhile (recheckReadyz) may have set one.
      (this.readyzTimer as CancelTimer | undefined)?.();
      this.readyzTimer = this.clock.setTimer(this.clock.now() + READYZ_POLL_MS, () => void this.pollReadyz());
    }
  }

  recheckReadyz(): void {
    if (!this.readyzOk && !this.halted) void this.pollReadyz();
  }

  ipAddressRepairSucceeded(): void {
    this.post({ type: 'IPAddressRepairSucceeded', now: this.clock.now() });
  }

  isReady(): boolean {
    return this.ready;
  }

  private checkReady(): void {
    if (this.ready) return;
    const s = this.st;
    if (s.phase !== 'running' || s.loops.service.runs < 1) return;
    if (this.informer.get('services', KUBERNETES_SERVICE_NAMESPACE, KUBERNETES_SERVICE_NAME) === undefined) return;
    this.ready = true;
    for (const w of this.readyWaiters.splice(0)) w.resolve();
  }

  whenReady(): Promise<void> {
    if (this.ready) return Promise.resolve();
    if (this.halted) return Promise.reject(new Error('the bootstrap controller has stopped'));
    return new Promise((resolve, reject) => this.readyWaiters.push({ resolve, reject }));
  }

  state(): ControllerState {
    return this.st;
  }

  idle(): Promise<void> {
    return this.mailbox.idle();
  }

  // --- stopping ----------------------------------------------------------------------------

  private checkStopped(): void {
    if (this.st.phase !== 'stopped' && this.st.phase !== 'fatal') return;
    for (const resolve of this.stopWaiters.splice(0)) resolve();
  }

  private halt(reason: Error): void {
    if (this.halted) return;
    this.mailbox.halt();
    this.wake?.();
    this.wake = undefined;
    this.readyzTimer?.();
    this.readyzTimer = undefined;
    for (const w of this.readyWaiters.splice(0)) w.reject(reason);
    for (const resolve of this.stopWaiters.splice(0)) resolve();
  }

  async stop(): Promise<void> {
    if (!this.halted) {
      const stopped = new Promise<void>((resolve) => this.stopWaiters.push(resolve));
      this.post({ type: 'Stop', now: this.clock.now() });
      await stopped;
    }
    this.halt(new Error('the bootstrap controller was stopped'));
    await this.mailbox.settled();
  }

  async kill(): Promise<void> {
    this.halt(new Error('the bootstrap controller was killed'));
    await this.mailbox.settled();
  }
}

/** Starts the bootstrap controller on `informer` (already synced). */
export function startBootstrapHost(options: BootstrapHostOptions): BootstrapHost {
  const host = new Host(options);
  host.start();
  return host;
}

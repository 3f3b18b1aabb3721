// RepairIPAddress's host: the ClusterIP repair of an apiserver whose ClusterIPs are IPAddress
// objects (MultiCIDRServiceAllocator). It runs @kubesvc/ipallocator's pure syncs over the
// informer's Services, ServiceCIDRs and IPAddresses, carries their writes out through the
// registry, and records their Warnings as the events/v1 recorder does. As upstream's RunUntil:
// it waits for the ServiceCIDR `kubernetes`, makes one full pass (retried on a Conflict, as
// RetryOnConflict does), reports the first success, and from then on syncs each Service and
// IPAddress the informer reports changed, every one of them again at each resync (the repair
// interval), with the default controller rate limiter's backoff on a failure. A first pass
// that fails ends the loop, as upstream's RunUntil returns; the apiserver then exits when the
// initial-repair minute is over (the bootstrap controller's deadline).
// upstream (v1.33): pkg/registry/core/service/ipallocator/controller/repairip.go (NewRepairIPAddress,
//           RunUntil, runOnce, doRunOnce, processNextWorkSvc, handleSvcErr, processNextWorkIp,
//           handleIpErr), pkg/registry/core/rest/storage_core.go (startServiceClusterIPRepair)
import type { IPAddress, KubeObject, Service, ServiceCIDR } from '@kubesvc/api-types';
import { IP_ADDRESS_LABEL_MANAGED_BY, IP_ALLOCATOR_CONTROLLER_NAME } from '@kubesvc/api-types';
import {
  IP_REPAIR_CONTROLLER,
  hasDefaultServiceCIDR,
  serviceKey,
  syncIPAddress,
  syncServiceIPAddresses,
  type IPAddressRepairListers,
  type IPAddressRepairResult,
  type IPAddressRepairStep,
} from '@kubesvc/ipallocator';
import type { CancelTimer, Clock } from '@kubesvc/store';
import { silentLogger, type Logger, type Registry, type ResourceName } from '@kubesvc/apiserver';
import type { CacheChange } from '@kubesvc/controllers';
import { hostname as osHostname } from 'node:os';
import { EventRecorder } from './events.js';
import type { Informer } from './informer.js';
import { WorkQueue, type RateLimiterOptions } from './workqueue.js';

/** The resources RepairIPAddress reads from the informer. */
export const IP_ADDRESS_REPAIR_RESOURCES: readonly ResourceName[] = ['services', 'servicecidrs', 'ipaddresses'];

/** upstream maxRetries: a key failing this many times in a row is dropped until its next change. */
export const IP_ADDRESS_REPAIR_MAX_RETRIES = 15;
/** upstream: RunUntil polls for the default ServiceCIDR every 100 ms. */
const DEFAULT_SERVICE_CIDR_POLL_MS = 100;
/** upstream retry.DefaultBackoff.Steps: RetryOnConflict's attempts. */
const CONFLICT_ATTEMPTS = 4;

export interface IPAddressRepairHostOptions {
  readonly registry: Registry;
  /** Must watch IP_ADDRESS_REPAIR_RESOURCES. */
  readonly informer: Informer;
  readonly clock: Clock;
  /** The resync period: every Service and IPAddress is synced again this often (--repair-services-interval). */
  readonly intervalMs: number;
  readonly logger?: Logger;
  /** The events' reportingInstance is `ipallocator-repair-controller-<hostname>`. Default os.hostname(). */
  readonly hostname?: string;
  readonly rateLimiter?: RateLimiterOptions;
  /** upstream onFirstSuccess: the first full pass has succeeded. Called once. */
  readonly onFirstSuccess?: () => void;
}

export type IPAddressRepairPhase = 'waiting-for-default-service-cidr' | 'first-pass' | 'running' | 'failed' | 'stopped';

export interface IPAddressRepairHost {
  phase(): IPAddressRepairPhase;
  /** Resolves when no pass or sync is running and no key is queued (keys waiting on a delay aside). */
  idle(): Promise<void>;
  /** Stops the loop; once it resolves nothing more is written. */
  stop(): Promise<void>;
}

interface Failure {
  readonly message: string;
  readonly conflict: boolean;
}

class Host implements IPAddressRepairHost {
  private state: IPAddressRepairPhase = 'waiting-for-default-service-cidr';
  private readonly svcQueue: WorkQueue;
  private readonly ipQueue: WorkQueue;
  private readonly tasks = new Set<Promise<void>>();
  private svcWorker: Promise<void> | undefined;
  private ipWorker: Promise<void> | undefined;
  private pollTimer: CancelTimer | undefined;
  private resyncTimer: CancelTimer | undefined;
  private unsubscribe: (() => void) | undefined;
  private idleWaiters: (() => void)[] = [];
  private readonly logger: Logger;
  private readonly events: EventRecorder;
  private readonly listers: IPAddressRepairListers;

  constructor(private readonly options: IPAddressRepairHostOptions) {
    const { informer, clock } = options;
    for (const r of IP_ADDRESS_REPAIR_RESOURCES) {
      if (!informer.resources.includes(r)) throw new Error(`RepairIPAddress needs an informer on ${r}`);
    }
    this.logger = options.logger ?? silentLogger;
    this.events = new EventRecorder(options.registry, informer, clock, options.hostname ?? osHostname(), this.logger);
    this.svcQueue = new WorkQueue(clock, () => this.kickSvc(), options.rateLimiter);
    this.ipQueue = new WorkQueue(clock, () => this.kickIP(), options.rateLimiter);
    this.listers = {
      service: (namespace, name) => informer.get<Service>('services', namespace, name),
      ipAddress: (name) => informer.get<IPAddress>('ipaddresses', '', name),
      serviceCIDRs: () => informer.list<ServiceCIDR>('servicecidrs'),
    };
  }

  start(): void {
    this.logger.log('info', `Starting ${IP_REPAIR_CONTROLLER}`);
    // The handlers are there from the start, as upstream registers them in NewRepairIPAddress:
    // the informer's list and every change since queue keys for the workers to come.
    this.unsubscribe = this.options.informer.onChange((change) => this.onChange(change));
    this.enqueueAll();
    this.pollDefaultServiceCIDR();
  }

  phase(): IPAddressRepairPhase {
    return this.state;
  }

  // --- the informer's events ---------------------------------------------------------------

  private onChange(change: CacheChange): void {
    switch (change.resource) {
      case 'services':
        this.svcQueue.add(serviceKey(change.object as Service));
        return;
      case 'ipaddresses':
        this.ipQueue.add((change.object as IPAddress).metadata.name ?? '');
        return;
      case 'servicecidrs':
        if (this.state === 'waiting-for-default-service-cidr') this.pollDefaultServiceCIDR();
        return;
      default:
        return;
    }
  }

  /** What a resync (and the informer's first list) hands the handlers: every object again. */
  private enqueueAll(): void {
    for (const service of this.options.informer.list<Service>('services')) this.svcQueue.add(serviceKey(service));
    for (const ip of this.options.informer.list<IPAddress>('ipaddresses')) this.ipQueue.add(ip.metadata.name ?? '');
  }

  private scheduleResync(): void {
    const { clock, intervalMs } = this.options;
    this.resyncTimer = clock.setTimer(clock.now() + intervalMs, () => {
      this.resyncTimer = undefined;
      if (this.state !== 'running') return;
      this.enqueueAll();
      this.scheduleResync();
    });
  }

  // --- RunUntil ------------------------------------------------------------------------------

  private pollDefaultServiceCIDR(): void {
    if (this.state !== 'waiting-for-default-service-cidr') return;
    this.pollTimer?.();
    this.pollTimer = undefined;
    if (!hasDefaultServiceCIDR(this.options.informer.list<ServiceCIDR>('servicecidrs'))) {
      const { clock } = this.options;
      this.pollTimer = clock.setTimer(clock.now() + DEFAULT_SERVICE_CIDR_POLL_MS, () => {
        this.pollTimer = undefined;
        this.pollDefaultServiceCIDR();
      });
      return;
    }
    this.state = 'first-pass';
    this.track(this.firstPass());
  }

  private track(task: Promise<void>): void {
    this.tasks.add(task);
    void task.finally(() => {
      this.tasks.delete(task);
      this.checkIdle();
    });
  }

  private async firstPass(): Promise<void> {
    let failure: Failure | undefined;
    for (let attempt = 1; attempt <= CONFLICT_ATTEMPTS; attempt++) {
      failure = await this.doRunOnce();
      if (this.state !== 'first-pass') return;
      if (failure === undefined || !failure.conflict) break;
    }
    if (failure !== undefined) {
      // runtime.HandleError, and RunUntil returns: no workers, no onFirstSuccess.
      this.logger.log('error', failure.message);
      this.logger.log('info', `Shutting down ${IP_REPAIR_CONTROLLER}`);
      this.state = 'failed';
      this.shutdownQueues();
      return;
    }
    this.state = 'running';
    this.options.onFirstSuccess?.();
    this.scheduleResync();
    this.kickSvc();
    this.kickIP();
  }

  /** upstream doRunOnce: every Service in the cache, then every IPAddress the allocator manages. */
  private async doRunOnce(): Promise<Failure | undefined> {
    const { informer } = this.options;
    for (const service of informer.list<Service>('services')) {
      const failure = await this.syncService(serviceKey(service));
      if (failure !== undefined) return failure;
    }
    const managed = informer.list<IPAddress>('ipaddresses').filter((ip) => ip.metadata.labels?.[IP_ADDRESS_LABEL_MANAGED_BY] === IP_ALLOCATOR_CONTROLLER_NAME);
    for (const ip of managed) {
      const failure = await this.syncIP(ip.metadata.name ?? '');
      if (failure !== undefined) return failure;
    }
    return undefined;
  }

  // --- the syncs -----------------------------------------------------------------------------

  private syncService(key: string): Promise<Failure | undefined> {
    return this.carryOut(syncServiceIPAddresses(this.listers, key));
  }

  private syncIP(name: string): Promise<Failure | undefined> {
    return this.carryOut(syncIPAddress(this.listers, name, this.options.clock.now()));
  }

  /** The sync's events, its writes in order (the first failure ends it), then its requeues. */
  private async carryOut(result: IPAddressRepairResult<IPAddressRepairStep>): Promise<Failure | undefined> {
    if (!result.ok) return { message: result.error.message, conflict: false };
    const { events, writes, requeues } = result.value;
    for (const event of events) {
      const { regarding } = event;
      await this.events.recordV1({
        type: event.type,
        reason: event.reason,
        note: event.message,
        action: event.action,
        reportingController: event.reportingController,
        regarding:
          regarding.kind === 'Service'
            ? { apiVersion: 'v1', kind: 'Service', namespace: regarding.namespace === '' ? 'default' : regarding.namespace, name: regarding.name, resource: 'services' }
            : { apiVersion: regarding.apiVersion, kind: 'IPAddress', namespace: '', name: regarding.name, resource: 'ipaddresses' },
      });
    }
    let failure: Failure | undefined;
    const { registry } = this.options;
    for (const write of writes) {
      if (this.state === 'stopped') return undefined;
      try {
        if (write.verb === 'create') {
          const r = await registry.create<IPAddress>('ipaddresses', '', write.ipAddress as IPAddress & KubeObject);
          if (!r.ok) failure = { message: `create ipaddresses ${write.ipAddress.metadata.name ?? ''}: ${r.error.message}`, conflict: r.error._tag === 'Conflict' };
        } else {
          const r = await registry.delete('ipaddresses', '', write.name);
          // A delete that finds nothing is what it wanted.
          if (!r.ok && r.error.code !== 404) failure = { message: `delete ipaddresses ${write.name}: ${r.error.message}`, conflict: r.error._tag === 'Conflict' };
        }
      } catch (e) {
        failure = { message: e instanceof Error ? e.message : String(e), conflict: false };
      }
      if (failure !== undefined) break;
    }
    if (writes.length > 0) await this.catchUp();
    // A requeue "now" (the grace period just ran out) waits one millisecond: the age is
    // compared with `>`, so on a clock that has not moved the same sync would requeue itself
    // forever (upstream's real clock always moves on).
    if (failure === undefined) for (const r of requeues) this.ipQueue.addAfter(r.name, Math.max(1, r.afterMs));
    return failure;
  }

  private async catchUp(): Promise<void> {
    try {
      await this.options.informer.waitFor(await this.options.registry.store.revision());
    } catch {
      // A closed store: nothing to wait for.
    }
  }

  // --- the workers ---------------------------------------------------------------------------

  private kickSvc(): void {
    if (this.svcWorker !== undefined || this.state !== 'running') return;
    this.svcWorker = this.work(this.svcQueue, 'Service', (key) => this.syncService(key)).finally(() => {
      this.svcWorker = undefined;
      this.checkIdle();
      if (this.svcQueue.length > 0) this.kickSvc();
    });
  }

  private kickIP(): void {
    if (this.ipWorker !== undefined || this.state !== 'running') return;
    this.ipWorker = this.work(this.ipQueue, 'IPAddress', (name) => this.syncIP(name)).finally(() => {
      this.ipWorker = undefined;
      this.checkIdle();
      if (this.ipQueue.length > 0) this.kickIP();
    });
  }

  /** processNextWork{Svc,Ip} and handle{Svc,Ip}Err: forget on success, backoff on failure, dropped after maxRetries. */
  private async work(queue: WorkQueue, what: string, sync: (key: string) => Promise<Failure | undefined>): Promise<void> {
    for (let key = queue.get(); key !== undefined && this.state === 'running'; key = queue.get()) {
      try {
        const failure = await sync(key);
        if (failure === undefined) {
          queue.forget(key);
        } else if (queue.limiter.numRequeues(key) < IP_ADDRESS_REPAIR_MAX_RETRIES) {
          queue.addRateLimited(key);
        } else {
          this.logger.log('warning', `Dropping ${what} ${JSON.stringify(key)} out of the queue: ${failure.message}`);
          queue.forget(key);
        }
      } finally {
        queue.done(key);
      }
    }
  }

  // --- idle and stop -------------------------------------------------------------------------

  private isIdle(): boolean {
    if (this.tasks.size > 0) return false;
    if (this.state !== 'running') return true;
    return this.svcWorker === undefined && this.ipWorker === undefined && this.svcQueue.length === 0 && this.ipQueue.length === 0;
  }

  private checkIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private shutdownQueues(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.svcQueue.shutdown();
    this.ipQueue.shutdown();
    this.pollTimer?.();
    this.pollTimer = undefined;
    this.resyncTimer?.();
    this.resyncTimer = undefined;
  }

  async stop(): Promise<void> {
    const wasRunning = this.state !== 'failed' && this.state !== 'stopped';
    this.state = 'stopped';
    this.shutdownQueues();
    await Promise.all([...this.tasks, this.svcWorker, this.ipWorker]);
    if (wasRunning) this.logger.log('info', `Shutting down ${IP_REPAIR_CONTROLLER}`);
    this.checkIdle();
  }
}

/** Starts RepairIPAddress on `informer` (already synced). */
export function startIPAddressRepairHost(options: IPAddressRepairHostOptions): IPAddressRepairHost {
  const host = new Host(options);
  host.start();
  return host;
}

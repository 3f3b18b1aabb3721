// The keyed-controller runner: any number of KeyedControllers over one shared informer, each
// with its own workqueue and one worker, as kube-controller-manager runs its controllers.
// Changes become keys (keysFor), keys become reconciles, and a reconcile's actions are carried
// out through the registry in order. After its writes, a key is held until the informer has
// caught up with the store, so the next reconcile of that key never reads a cache older than
// its own writes. A failed write ends the reconcile and requeues the key with the default
// controller rate limiter's backoff. An event a controller records is written as the events/v1
// recorder writes it; a failed event write is logged and dropped, as upstream's broadcaster does.
// upstream: staging/src/k8s.io/client-go/util/workqueue (the queue), and the worker loop every
//           controller has (pkg/controller/endpoint/endpoints_controller.go processNextWorkItem,
//           handleErr: Forget on success, AddRateLimited on error)
import { hostname as osHostname } from 'node:os';
import type { KubeObject, ObjectMeta } from '@kubesvc/api-types';
import type { Clock } from '@kubesvc/store';
import { type ApiError, type Registry, type ResourceName, silentLogger, type Logger } from '@kubesvc/apiserver';
import type { Informer } from './informer.js';
import type { CacheChange, ControllerEvent, KeyedController, ReconcileAction } from '@kubesvc/controllers';
import { EventRecorder } from './events.js';
import { WorkQueue, type RateLimiterOptions } from './workqueue.js';

export interface ControllerRunnerOptions {
  readonly registry: Registry;
  /** Must watch every resource the controllers watch. */
  readonly informer: Informer;
  readonly clock: Clock;
  readonly controllers: readonly KeyedController[];
  readonly logger?: Logger;
  /** The rate limiter of every queue; default client-go's (5 ms doubling to 1000 s, 10 qps burst 100). */
  readonly rateLimiter?: RateLimiterOptions;
  /** The recorded events' reportingInstance suffix (`default-scheduler-<hostname>`). Default os.hostname(). */
  readonly hostname?: string;
}

export interface ControllerRunner {
  /** Resolves when every queue is empty and no reconcile is running (keys waiting on a delay aside). */
  idle(): Promise<void>;
  /** Stops every worker; once it resolves, no write is made any more. */
  stop(): Promise<void>;
  /** How many times `key` of `controller` has been requeued for a failure since its last success. */
  numRequeues(controller: string, key: string): number;
}

function metaOf(object: KubeObject): ObjectMeta {
  return (object as { metadata?: ObjectMeta }).metadata ?? {};
}

class Worker {
  readonly queue: WorkQueue;
  running: Promise<void> | undefined;
  /** What the controller asked to keep per key (`remember`), handed back at its next reconcile. */
  private readonly memory = new Map<string, unknown>();

  constructor(
    readonly controller: KeyedController,
    private readonly runner: Runner,
  ) {
    this.queue = new WorkQueue(runner.clock, () => this.kick(), runner.rateLimiter);
  }

  kick(): void {
    if (this.running !== undefined || this.runner.stopping || !this.runner.started) return;
    this.running = this.drain().finally(() => {
      this.running = undefined;
      this.runner.checkIdle();
      // A key may have been queued after the last get() returned nothing.
      if (this.queue.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    for (let key = this.queue.get(); key !== undefined && !this.runner.stopping; key = this.queue.get()) {
      try {
        await this.process(key);
      } finally {
        this.queue.done(key);
      }
    }
  }

  private async process(key: string): Promise<void> {
    const { controller } = this;
    const runner = this.runner;
    let actions: readonly ReconcileAction[];
    try {
      actions = controller.reconcile(key, runner.informer, runner.clock.now(), this.memory.get(key));
    } catch (e) {
      // A controller bug: upstream's HandleError logs it, and the key is retried with backoff.
      runner.logger.log('error', `${controller.name}: reconcile of ${JSON.stringify(key)} threw: ${e instanceof Error ? e.message : String(e)}`);
      this.queue.addRateLimited(key);
      return;
    }
    let wrote = false;
    let failure: string | undefined;
    for (const action of actions) {
      if (runner.stopping) return;
      if (action.kind === 'requeue-after') {
        this.queue.addAfter(action.key, action.afterMs);
        continue;
      }
      if (action.kind === 'remember') {
        if (action.value === undefined) this.memory.delete(action.key);
        else this.memory.set(action.key, action.value);
        continue;
      }
      if (action.kind === 'event') {
        // Not a write the key waits on: a rejected event is logged and dropped.
        await runner.record(action.event);
        continue;
      }
      wrote = true;
      failure = await runner.carryOut(action);
      if (failure !== undefined) break;
    }
    // Hold the key until the cache shows what was just written (or what beat the write).
    if (wrote) await runner.catchUp();
    if (failure === undefined) {
      this.queue.forget(key);
      return;
    }
    const delay = this.queue.addRateLimited(key);
    runner.logger.log('error', `${controller.name}: error syncing ${JSON.stringify(key)}, requeuing in ${delay} ms: ${failure}`);
  }
}

class Runner implements ControllerRunner {
  readonly registry: Registry;
  readonly informer: Informer;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly rateLimiter: RateLimiterOptions | undefined;
  readonly workers: Worker[];
  readonly events: EventRecorder;
  stopping = false;
  /** Workers start once the first list is queued, as controllers wait for their caches to sync. */
  started = false;
  private unsubscribe: (() => void) | undefined;
  private idleWaiters: (() => void)[] = [];

  constructor(options: ControllerRunnerOptions) {
    this.registry = options.registry;
    this.informer = options.informer;
    this.clock = options.clock;
    this.logger = options.logger ?? silentLogger;
    this.rateLimiter = options.rateLimiter;
    this.events = new EventRecorder(options.registry, options.informer, options.clock, options.hostname ?? osHostname(), this.logger);
    const names = new Set<string>();
    for (const c of options.controllers) {
      if (names.has(c.name)) throw new Error(`two controllers are named ${JSON.stringify(c.name)}`);
      names.add(c.name);
      for (const r of c.watches) {
        if (!this.informer.resources.includes(r)) throw new Error(`controller ${c.name} watches ${r}, which the informer does not`);
      }
    }
    this.workers = options.controllers.map((c) => new Worker(c, this));
  }

  start(): void {
    this.unsubscribe = this.informer.onChange((change) => this.onChange(change));
    // The informer's first list, as the ADDED events a new informer handler receives, then initialKeys.
    for (const worker of this.workers) {
      const { controller } = worker;
      for (const resource of controller.watches) {
        for (const object of this.informer.list(resource)) this.enqueue(worker, { resource, type: 'ADDED', object });
      }
      for (const key of controller.initialKeys?.(this.informer) ?? []) worker.queue.add(key);
    }
    this.started = true;
    for (const worker of this.workers) worker.kick();
  }

  private onChange(change: CacheChange): void {
    for (const worker of this.workers) if (worker.controller.watches.includes(change.resource)) this.enqueue(worker, change);
  }

  private enqueue(worker: Worker, change: CacheChange): void {
    let keys: readonly string[];
    try {
      keys = worker.controller.keysFor(change, this.informer);
    } catch (e) {
      this.logger.log('error', `${worker.controller.name}: keysFor threw: ${e instanceof Error ? e.message : String(e)}`);
      return;
    }
    for (const key of keys) worker.queue.add(key);
  }

  /** Records a controller's event through the recorder it names. */
  async record(event: ControllerEvent): Promise<void> {
    const { type, reason, message, reportingController, regarding } = event;
    if (event.recorder === 'events/v1') await this.events.recordV1({ type, reason, note: message, action: event.action ?? '', reportingController, regarding });
    else await this.events.recordCore({ type, reason, message, component: reportingController, regarding });
  }

  /** Carries one write out; returns why it failed, or undefined. */
  async carryOut(action: Exclude<ReconcileAction, { kind: 'requeue-after' | 'event' | 'remember' }>): Promise<string | undefined> {
    const r = this.registry;
    try {
      switch (action.kind) {
        case 'create': {
          const res = await r.create(action.resource, action.namespace, action.object);
          return res.ok ? undefined : describe('create', action.resource, action.namespace, metaOf(action.object).name ?? metaOf(action.object).generateName ?? '', res.error);
        }
        case 'update': {
          // The precondition is the object's resourceVersion. A status write goes to /status,
          // which keeps the stored spec; a plain update keeps the stored status (pods,
          // services, nodes), as the apiserver's strategies do.
          const name = metaOf(action.object).name ?? '';
          const res =
            action.subresource === 'status'
              ? await r.updateStatus(action.resource, action.namespace, name, action.object)
              : await r.update(action.resource, action.namespace, name, action.object);
          return res.ok ? undefined : describe(action.subresource === 'status' ? 'update status of' : 'update', action.resource, action.namespace, name, res.error);
        }
        case 'delete': {
          // Always with options, as a client's DELETE has them: a pod is deleted gracefully
          // unless the action asks for a grace period of 0 (the kubelet's final delete).
          const res = await r.delete(action.resource, action.namespace, action.name, {
            ...(action.resourceVersion === undefined && action.uid === undefined
              ? {}
              : { preconditions: { ...(action.resourceVersion === undefined ? {} : { resourceVersion: action.resourceVersion }), ...(action.uid === undefined ? {} : { uid: action.uid }) } }),
            ...(action.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: action.gracePeriodSeconds }),
            ...(action.propagationPolicy === undefined ? {} : { propagationPolicy: action.propagationPolicy }),
          });
          // Already gone (a namespace deletion took it first) is what the delete wanted: the
          // controllers treat NotFound on delete as done, not as an error to retry.
          // upstream: pkg/controller/endpoint/endpoints_controller.go (syncService: IsNotFound)
          if (!res.ok && res.error.code === 404) return undefined;
          return res.ok ? undefined : describe('delete', action.resource, action.namespace, action.name, res.error);
        }
        case 'finalize-namespace': {
          const res = await r.finalizeNamespace(action.name);
          if (!res.ok) return describe('finalize', 'namespaces', '', action.name, res.error);
          // Deleted, or already gone: done. Still there means something changed under us: retry.
          if (res.value.namespaceDeleted || this.informer.get('namespaces', '', action.name) === undefined) return undefined;
          const { kv } = await r.store.get(`/registry/namespaces/${action.name}`);
          if (kv === undefined) return undefined;
          return res.value.remainingObjects > 0
            ? `namespace ${JSON.stringify(action.name)} still has ${res.value.remainingObjects} object(s) that finalizers keep`
            : `namespace ${JSON.stringify(action.name)} changed while it was being finalized`;
        }
      }
    } catch (e) {
      return e instanceof Error ? e.message : String(e);
    }
  }

  /** Waits until the informer reflects every write the store has acknowledged so far. */
  async catchUp(): Promise<void> {
    try {
      await this.informer.waitFor(await this.registry.store.revision());
    } catch {
      // A closed store: nothing to wait for.
    }
  }

  numRequeues(controller: string, key: string): number {
    return this.workers.find((w) => w.controller.name === controller)?.queue.limiter.numRequeues(key) ?? 0;
  }

  private isIdle(): boolean {
    return this.workers.every((w) => w.running === undefined && (w.queue.length === 0 || this.stopping));
  }

  checkIdle(): void {
    if (!this.isIdle()) return;
    for (const resolve of this.idleWaiters.splice(0)) resolve();
  }

  idle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  async stop(): Promise<void> {
    this.stopping = true;
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    for (const w of this.workers) w.queue.shutdown();
    await Promise.all(this.workers.map((w) => w.running));
    this.checkIdle();
  }
}

function describe(verb: string, resource: ResourceName, namespace: string, name: string, error: ApiError): string {
  const where = namespace === '' ? name : `${namespace}/${name}`;
  return `${verb} ${resource} ${where}: ${error._tag}: ${error.message}`;
}

/** Starts the controllers over `informer` (already synced): each object in it is handed to keysFor as ADDED. */
export function startControllerRunner(options: ControllerRunnerOptions): ControllerRunner {
  const runner = new Runner(options);
  runner.start();
  return runner;
}

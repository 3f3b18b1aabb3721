// The default ServiceCIDR controller's host: kube-apiserver's start-kubernetes-service-cidr-
// controller post-start hook, run over the pure reducer of @kubesvc/bootstrap-controller. It
// feeds the reducer the informer's ServiceCIDRs, carries out its writes through the registry
// (answering each after an Observed that shows it), records its events as the core/v1
// recorder does, and wakes it on the clock. Until the reducer's first sync has succeeded (its
// Start has returned) the hook has not finished, and the apiserver is not ready.
// upstream (v1.33): pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go,
//           pkg/controlplane/instance.go (the hook: "The default serviceCIDR must exist before
//           the apiserver is healthy otherwise the allocators for Services will not work")
import type { CIDR, KubeObject, ServiceCIDR } from '@kubesvc/api-types';
import {
  defaultServiceCIDRInitialized,
  initialDefaultServiceCIDRState,
  stepDefaultServiceCIDR,
  type DefaultServiceCIDRAction,
  type DefaultServiceCIDRMessage,
  type DefaultServiceCIDRState,
  type DefaultServiceCIDRWrite,
  type ApiError as ReducerApiError,
} from '@kubesvc/bootstrap-controller';
import type { CancelTimer, Clock } from '@kubesvc/store';
import { internalError, silentLogger, type Logger, type Registry } from '@kubesvc/apiserver';
import { reducerError } from './bootstrap-host.js';
import { EventRecorder } from './events.js';
import type { Informer } from './informer.js';
import { Mailbox } from './mailbox.js';

export interface DefaultServiceCIDRHostOptions {
  readonly registry: Registry;
  /** Must watch servicecidrs. */
  readonly informer: Informer;
  readonly clock: Clock;
  /** The flags' service CIDRs, primary first (BootstrapConfig.serviceCIDRs). */
  readonly serviceCIDRs: readonly CIDR[];
  readonly logger?: Logger;
  /** Called once, when the first sync has succeeded (upstream's Start returns). */
  readonly onInitialized?: () => void;
}

export interface DefaultServiceCIDRHost {
  /** The first sync has succeeded: the ServiceCIDR `kubernetes` exists (and is Ready, unless it is someone else's to fix). */
  isInitialized(): boolean;
  state(): DefaultServiceCIDRState;
  /** Resolves when no message is queued or being handled (timers aside). */
  idle(): Promise<void>;
  /** The apiserver's shutdown: the reducer's Stop, then nothing more is written. */
  stop(): Promise<void>;
}

/** How often a status apply reads again after losing a race. */
const APPLY_ATTEMPTS = 5;

type Outcome = { readonly object?: ServiceCIDR; readonly error?: ReducerApiError; readonly revision?: number };

class Host implements DefaultServiceCIDRHost {
  private st: DefaultServiceCIDRState;
  private readonly mailbox: Mailbox<DefaultServiceCIDRMessage>;
  private observedRevision = -1;
  private wake: CancelTimer | undefined;
  private initialized = false;
  private readonly logger: Logger;
  private readonly events: EventRecorder;

  constructor(private readonly options: DefaultServiceCIDRHostOptions) {
    if (!options.informer.resources.includes('servicecidrs')) throw new Error('the default ServiceCIDR controller needs an informer on servicecidrs');
    this.logger = options.logger ?? silentLogger;
    // The core/v1 recorder names no instance: the hostname is unused.
    this.events = new EventRecorder(options.registry, options.informer, options.clock, '', this.logger);
    this.st = initialDefaultServiceCIDRState(options.serviceCIDRs);
    this.mailbox = new Mailbox<DefaultServiceCIDRMessage>(
      (message) => this.handle(message),
      (e) => this.logger.log('error', `default ServiceCIDR controller host: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}`),
    );
  }

  private get halted(): boolean {
    return this.mailbox.halted;
  }

  start(): void {
    this.post({ type: 'Start', now: this.options.clock.now() });
  }

  private post(message: DefaultServiceCIDRMessage): void {
    this.mailbox.post(message);
  }

  /** One message: first the informer's list, if it changed since the last look. */
  private async handle(message: DefaultServiceCIDRMessage): Promise<void> {
    const revision = this.options.informer.revision;
    if (revision !== this.observedRevision) {
      this.observedRevision = revision;
      await this.deliver({ type: 'Observed', serviceCIDRs: this.options.informer.list<ServiceCIDR>('servicecidrs') });
    }
    if (this.halted) return;
    await this.deliver(message);
  }

  private async deliver(message: DefaultServiceCIDRMessage): Promise<void> {
    const result = stepDefaultServiceCIDR(this.st, message);
    this.st = result.state;
    for (const action of result.actions) {
      if (this.halted) return;
      await this.perform(action);
    }
    if (!this.initialized && defaultServiceCIDRInitialized(this.st)) {
      this.initialized = true;
      this.options.onInitialized?.();
    }
  }

  private async perform(action: DefaultServiceCIDRAction): Promise<void> {
    switch (action.kind) {
      case 'wake-at':
        this.wake?.();
        this.wake = this.options.clock.setTimer(action.at, () => {
          this.wake = undefined;
          this.post({ type: 'Tick', now: this.options.clock.now() });
        });
        return;
      case 'log':
        this.logger.log(action.level, action.message);
        return;
      case 'event': {
        // Recorded; the reducer waits for no answer.
        const { event } = action;
        if (event.regarding.name === '') {
          // About the empty object a failed create returns: upstream's event would be named
          // `.<UnixNano in hex>`, which the apiserver refuses (not a DNS subdomain), and the
          // broadcaster drops it with a log line.
          this.logger.log('error', `Server rejected event (will not retry!): ${event.reason}: ${event.message}: the event names no object`);
          return;
        }
        await this.events.recordCore({
          type: event.type,
          reason: event.reason,
          message: event.message,
          component: event.component,
          regarding: { apiVersion: event.regarding.apiVersion, kind: event.regarding.kind, namespace: '', name: event.regarding.name, resource: 'servicecidrs' },
        });
        return;
      }
      default: {
        const outcome = await this.write(action);
        try {
          await this.options.informer.waitFor(Math.max(outcome.revision ?? 0, await this.options.registry.store.revision()));
        } catch {
          // The store is closed: the answer goes out with what the cache has.
        }
        this.mailbox.enqueue({ type: 'ActionResult', id: action.id, object: outcome.object, error: outcome.error });
      }
    }
  }

  private async write(action: Exclude<DefaultServiceCIDRWrite, { kind: 'event' }>): Promise<Outcome> {
    const { registry } = this.options;
    const done = (r: { ok: true; value: ServiceCIDR } | { ok: false; error: Parameters<typeof reducerError>[0] }): Outcome =>
      r.ok ? { object: r.value, revision: Number(r.value.metadata.resourceVersion ?? 0) } : { error: reducerError(r.error) };
    try {
      switch (action.kind) {
        case 'create':
          return done(await registry.create<ServiceCIDR>('servicecidrs', '', action.object));
        case 'update': {
          const { resourceVersion: _stale, ...meta } = action.object.metadata;
          const body: ServiceCIDR = { ...action.object, metadata: action.resourceVersion === undefined ? meta : { ...meta, resourceVersion: action.resourceVersion } };
          return done(await registry.update<ServiceCIDR>('servicecidrs', '', meta.name ?? '', body));
        }
        case 'apply-status': {
          // A forced server-side apply of one condition: the stored object's other conditions
          // stay, whatever its resourceVersion. Here: the stored object read and written back
          // over its resourceVersion, read again when another writer got there first.
          let last: Outcome = {};
          for (let attempt = 0; attempt < APPLY_ATTEMPTS; attempt++) {
            const current = await registry.get<ServiceCIDR>('servicecidrs', '', action.name);
            if (!current.ok) return { error: reducerError(current.error) };
            const conditions = current.value.status?.conditions ?? [];
            const merged = conditions.some((c) => c.type === action.condition.type)
              ? conditions.map((c) => (c.type === action.condition.type ? action.condition : c))
              : [...conditions, action.condition];
            const body: ServiceCIDR = { ...current.value, status: { ...current.value.status, conditions: merged } };
            const r = await registry.updateStatus<ServiceCIDR>('servicecidrs', '', action.name, body as ServiceCIDR & KubeObject);
            last = done(r);
            if (r.ok || r.error._tag !== 'Conflict') return last;
          }
          return last;
        }
      }
    } catch (e) {
      return { error: reducerError(internalError(e instanceof Error ? e.message : String(e))) };
    }
  }

  isInitialized(): boolean {
    return this.initialized;
  }

  state(): DefaultServiceCIDRState {
    return this.st;
  }

  idle(): Promise<void> {
    return this.mailbox.idle();
  }

  async stop(): Promise<void> {
    if (!this.halted) {
      this.post({ type: 'Stop', now: this.options.clock.now() });
      await this.idle();
    }
    this.mailbox.halt();
    this.wake?.();
    this.wake = undefined;
    await this.mailbox.settled();
  }
}

/** Starts the default ServiceCIDR controller on `informer` (already synced). */
export function startDefaultServiceCIDRHost(options: DefaultServiceCIDRHostOptions): DefaultServiceCIDRHost {
  const host = new Host(options);
  host.start();
  return host;
}

// A fake apiserver for the default ServiceCIDR controller's tests: it keeps ServiceCIDRs in a
// map, answers each write as upstream's registry would (AlreadyExists, a resourceVersion
// Conflict, a forced status apply that replaces the condition of its type), can be told to
// fail a verb, and delivers the Observed that shows a write before its ActionResult, as the
// runtime does. Events and logs are recorded in order.
import { SERVICE_CIDR_API_VERSION, parseCIDR, type ServiceCIDR } from '@kubesvc/api-types';
import {
  initialDefaultServiceCIDRState,
  stepDefaultServiceCIDR,
  type DefaultServiceCIDRAction,
  type DefaultServiceCIDRMessage,
  type DefaultServiceCIDRState,
  type DefaultServiceCIDREvent,
} from './default-service-cidr.js';
import type { ApiError } from './messages.js';

export type Verb = 'create' | 'update' | 'apply-status';

export class FakeApiserver {
  readonly objects = new Map<string, ServiceCIDR>();
  /** Every write, as upstream's fake client lists its actions: create, update, patch (status). */
  readonly verbs: string[] = [];
  /** Every write with what was stored under its name when it came. */
  readonly writes: { readonly action: Extract<DefaultServiceCIDRAction, { kind: Verb }>; readonly before: ServiceCIDR | undefined }[] = [];
  readonly events: DefaultServiceCIDREvent[] = [];
  readonly logs: string[] = [];
  readonly failures = new Map<Verb, ApiError>();
  state: DefaultServiceCIDRState;
  now = 0;
  wakeAt: number | undefined;
  private rv = 100;

  constructor(flags: readonly string[], existing: readonly ServiceCIDR[] = []) {
    const cidrs = flags.map((f) => {
      const parsed = parseCIDR(f);
      if (!parsed.ok) throw new Error(parsed.error.message);
      return parsed.value.cidr;
    });
    this.state = initialDefaultServiceCIDRState(cidrs);
    for (const o of existing) this.put(o);
  }

  put(o: ServiceCIDR): void {
    this.objects.set(o.metadata.name ?? '', { ...o, metadata: { ...o.metadata, resourceVersion: String(++this.rv) } });
  }

  list(): ServiceCIDR[] {
    return [...this.objects.values()];
  }

  /** A change by someone else, which the informer then shows. */
  change(f: (api: this) => void): void {
    f(this);
    this.send({ type: 'Observed', serviceCIDRs: this.list() });
  }

  /** Sends a message and carries out whatever follows from it, writes answered at once. */
  send(message: DefaultServiceCIDRMessage): void {
    const queue: DefaultServiceCIDRMessage[] = [message];
    for (let m = queue.shift(); m !== undefined; m = queue.shift()) {
      const r = stepDefaultServiceCIDR(this.state, m);
      this.state = r.state;
      for (const a of r.actions) queue.push(...this.carryOut(a));
    }
  }

  start(): void {
    this.send({ type: 'Observed', serviceCIDRs: this.list() });
    this.send({ type: 'Start', now: this.now });
  }

  /** Moves the clock to `until`, delivering each Tick asked for on the way. */
  advanceTo(until: number): void {
    while (this.wakeAt !== undefined && this.wakeAt <= until) {
      this.now = this.wakeAt;
      this.wakeAt = undefined;
      this.send({ type: 'Tick', now: this.now });
    }
    this.now = until;
  }

  private carryOut(a: DefaultServiceCIDRAction): DefaultServiceCIDRMessage[] {
    switch (a.kind) {
      case 'log':
        this.logs.push(a.message);
        return [];
      case 'wake-at':
        this.wakeAt = a.at;
        return [];
      case 'event':
        this.events.push(a.event);
        return [];
      case 'create':
      case 'update':
      case 'apply-status':
        return this.write(a);
    }
  }

  private write(a: Extract<DefaultServiceCIDRAction, { kind: Verb }>): DefaultServiceCIDRMessage[] {
    this.verbs.push(a.kind === 'apply-status' ? 'patch status' : a.kind);
    this.writes.push({ action: a, before: this.objects.get(a.kind === 'apply-status' ? a.name : (a.object.metadata.name ?? '')) });
    const failure = this.failures.get(a.kind);
    if (failure !== undefined) return [{ type: 'ActionResult', id: a.id, error: failure }];
    let stored: ServiceCIDR | undefined;
    if (a.kind === 'create') {
      const name = a.object.metadata.name ?? '';
      if (this.objects.has(name)) return [{ type: 'ActionResult', id: a.id, error: apiError('AlreadyExists', `servicecidrs.networking.k8s.io "${name}" already exists`) }];
      this.put(a.object);
      stored = this.objects.get(name);
    } else if (a.kind === 'update') {
      const name = a.object.metadata.name ?? '';
      const current = this.objects.get(name);
      if (current === undefined) return [{ type: 'ActionResult', id: a.id, error: apiError('NotFound', `servicecidrs.networking.k8s.io "${name}" not found`) }];
      if (a.resourceVersion !== undefined && a.resourceVersion !== current.metadata.resourceVersion) {
        return [{ type: 'ActionResult', id: a.id, error: apiError('Conflict', `Operation cannot be fulfilled on servicecidrs.networking.k8s.io "${name}": the object has been modified; please apply your changes to the latest version and try again`) }];
      }
      this.put(a.object);
    } else {
      const current = this.objects.get(a.name);
      if (current === undefined) return [{ type: 'ActionResult', id: a.id, error: apiError('NotFound', `servicecidrs.networking.k8s.io "${a.name}" not found`) }];
      const others = current.status?.conditions ?? [];
      const conditions = others.some((c) => c.type === a.condition.type) ? others.map((c) => (c.type === a.condition.type ? a.condition : c)) : [...others, a.condition];
      this.put({ ...current, status: { ...current.status, conditions } });
    }
    return [
      { type: 'Observed', serviceCIDRs: this.list() },
      { type: 'ActionResult', id: a.id, ...(stored === undefined ? {} : { object: stored }) },
    ];
  }
}

export function apiError(reason: ApiError['_tag'], message: string): ApiError {
  return { _tag: reason, message };
}

export function serviceCIDR(name: string, cidrs: readonly string[], extra: Partial<ServiceCIDR> = {}): ServiceCIDR {
  return { apiVersion: SERVICE_CIDR_API_VERSION, kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: [...cidrs] }, ...extra };
}

// A small in-memory model of the cluster for the controllers' tests: objects by resource, a
// resourceVersion counter, generated names and UIDs, the registry's rules that the controllers
// depend on (preconditions, a pod's status kept by a plain update, v1 defaulting and
// validation of every write), and a work queue that runs keyed controllers to a fixpoint the
// way the host does. It is a model of the cluster, not a stand-in for the host: the host's own
// tests run the controllers against the real registry.
import { defaultObject, semanticEqual, validateObject, renderFieldError, type KubeObject, type ObjectMeta, type ResourceName } from '@kubesvc/api-types';
import type { CacheChange, CacheView, ControllerEvent, KeyedController, ReconcileAction } from './contract.js';

/** Whether a resource's objects live in a namespace, as the registry's resource table says. */
const NAMESPACED: Readonly<Record<ResourceName, boolean>> = {
  namespaces: false,
  services: true,
  endpoints: true,
  endpointslices: true,
  pods: true,
  nodes: false,
  events: true,
  servicecidrs: false,
  ipaddresses: false,
  deployments: true,
  replicasets: true,
};

function keyOf(namespace: string, name: string): string {
  return `${namespace}/${name}`;
}

export interface WriteFailure {
  readonly controller: string;
  readonly action: ReconcileAction;
  readonly reason: string;
}

export class ClusterModel implements CacheView {
  private readonly objects = new Map<ResourceName, Map<string, KubeObject>>();
  private revision = 0;
  private uids = 0;
  private names = 0;
  /** Writes the model refused because they were invalid (a controller bug, unlike a conflict). */
  readonly invalidWrites: WriteFailure[] = [];
  /** Every change, in order, as informers would have delivered it. */
  readonly changes: CacheChange[] = [];
  /** The core/v1 events the controllers recorded (`event` actions of that recorder), in order. */
  readonly events: ControllerEvent[] = [];
  /** The events/v1 events the controllers recorded (`event` actions of that recorder), in order. */
  readonly v1Events: ControllerEvent[] = [];

  private bucket(resource: ResourceName): Map<string, KubeObject> {
    let b = this.objects.get(resource);
    if (b === undefined) {
      b = new Map();
      this.objects.set(resource, b);
    }
    return b;
  }

  list<T extends KubeObject = KubeObject>(resource: ResourceName, namespace?: string): readonly T[] {
    const all = [...this.bucket(resource).entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, o]) => o as T);
    return namespace === undefined || namespace === '' ? all : all.filter((o) => (o.metadata.namespace ?? '') === namespace);
  }

  get<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string): T | undefined {
    const ns = NAMESPACED[resource] ? namespace : '';
    return this.bucket(resource).get(keyOf(ns, name)) as T | undefined;
  }

  private nextMeta(meta: ObjectMeta, resource: ResourceName, namespace: string, now: number, old?: KubeObject): ObjectMeta {
    this.revision++;
    const out: ObjectMeta = { ...meta, resourceVersion: String(this.revision) };
    if (NAMESPACED[resource]) out.namespace = namespace;
    else delete out.namespace;
    if (old === undefined) {
      if ((out.name ?? '') === '' && (out.generateName ?? '') !== '') out.name = `${out.generateName}${(++this.names).toString(36).padStart(5, '0')}`;
      out.uid = `uid-${++this.uids}`;
      out.creationTimestamp = new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z');
    } else {
      out.uid = old.metadata.uid ?? '';
      if (old.metadata.creationTimestamp !== undefined) out.creationTimestamp = old.metadata.creationTimestamp;
    }
    return out;
  }

  private validated(object: KubeObject, old: KubeObject | undefined): { ok: true; object: KubeObject } | { ok: false; reason: string } {
    const defaulted = defaultObject(object);
    const errors = validateObject(defaulted, old);
    return errors.length > 0 ? { ok: false, reason: errors.map(renderFieldError).join('; ') } : { ok: true, object: defaulted };
  }

  /**
   * Carries out one write. `conflict` and `notfound` are what the registry answers (the host
   * requeues); `invalid` means the controller asked for an object upstream would refuse.
   */
  apply(action: ReconcileAction, now: number): { readonly outcome: 'ok' | 'conflict' | 'notfound' | 'exists' | 'invalid'; readonly change?: CacheChange; readonly reason?: string } {
    switch (action.kind) {
      case 'requeue-after':
      case 'remember':
        return { outcome: 'ok' };
      case 'event':
        (action.event.recorder === 'events/v1' ? this.v1Events : this.events).push(action.event);
        return { outcome: 'ok' };
      case 'finalize-namespace':
        // The endpoint controllers and the kubelet never finalize namespaces; the host's
        // namespace controller does, against the real registry.
        return { outcome: 'invalid', reason: 'the cluster model does not finalize namespaces' };
      case 'create': {
        const ns = NAMESPACED[action.resource] ? action.namespace : '';
        const meta = this.nextMeta(action.object.metadata, action.resource, ns, now);
        const object = { ...action.object, metadata: meta } as KubeObject;
        const name = meta.name ?? '';
        if (this.bucket(action.resource).has(keyOf(ns, name))) return { outcome: 'exists' };
        const v = this.validated(object, undefined);
        if (!v.ok) return { outcome: 'invalid', reason: v.reason };
        this.bucket(action.resource).set(keyOf(ns, name), v.object);
        return this.record({ resource: action.resource, type: 'ADDED', object: v.object });
      }
      case 'update': {
        const ns = NAMESPACED[action.resource] ? action.namespace : '';
        const name = action.object.metadata.name ?? '';
        const old = this.bucket(action.resource).get(keyOf(ns, name));
        if (old === undefined) return { outcome: 'notfound' };
        const wanted = action.object.metadata.resourceVersion;
        if (wanted !== undefined && wanted !== old.metadata.resourceVersion) return { outcome: 'conflict' };
        let body: KubeObject;
        if (action.subresource === 'status') {
          // The status subresource takes only the status.
          body = { ...old, status: (action.object as { status?: unknown }).status } as KubeObject;
          // A Deployment's status strategy keeps the request's metadata but its labels: the
          // deployment controller writes the revision annotation through /status.
          if (old.kind === 'Deployment') {
            const annotations = action.object.metadata.annotations;
            body = { ...body, metadata: { ...old.metadata, ...(annotations === undefined ? {} : { annotations }) } } as KubeObject;
          }
        } else if (old.kind === 'Pod') {
          // A plain update of a pod keeps its status (the registry's PrepareForUpdate).
          const { status: _s, ...rest } = action.object as KubeObject & { status?: unknown };
          body = (old.status === undefined ? rest : { ...rest, status: old.status }) as KubeObject;
        } else {
          body = action.object;
        }
        const meta = this.nextMeta(body.metadata, action.resource, ns, now, old);
        const object = { ...body, metadata: meta } as KubeObject;
        const v = this.validated(object, old);
        if (!v.ok) return { outcome: 'invalid', reason: v.reason };
        // Nothing changed: the registry writes nothing and no watcher hears of it (GuaranteedUpdate's no-op check).
        if (semanticEqual({ ...v.object, metadata: { ...v.object.metadata, resourceVersion: old.metadata.resourceVersion } }, old)) return { outcome: 'ok' };
        if (old.metadata.deletionTimestamp && (v.object.metadata.finalizers ?? []).length === 0 && (old.metadata.deletionGracePeriodSeconds ?? 0) === 0) {
          // The last finalizer is gone from an object being deleted: it goes (ShouldDeleteDuringUpdate).
          this.bucket(action.resource).delete(keyOf(ns, name));
          return this.record({ resource: action.resource, type: 'DELETED', object: old, old });
        }
        this.bucket(action.resource).set(keyOf(ns, name), v.object);
        return this.record({ resource: action.resource, type: 'MODIFIED', object: v.object, old });
      }
      case 'delete': {
        const ns = NAMESPACED[action.resource] ? action.namespace : '';
        const old = this.bucket(action.resource).get(keyOf(ns, action.name));
        if (old === undefined) return { outcome: 'notfound' };
        if (action.resourceVersion !== undefined && action.resourceVersion !== old.metadata.resourceVersion) return { outcome: 'conflict' };
        if (action.uid !== undefined && action.uid !== old.metadata.uid) return { outcome: 'conflict' };
        // The registry's delete: the propagation policy's finalizer (orphan, foregroundDeletion)
        // keeps the object, marked; a pod not asked to go at once is marked for its grace period.
        const kept = (old.metadata.finalizers ?? []).filter((f) => f !== 'orphan' && f !== 'foregroundDeletion');
        if (action.propagationPolicy === 'Orphan') kept.push('orphan');
        else if (action.propagationPolicy === 'Foreground') kept.push('foregroundDeletion');
        else if (action.propagationPolicy === undefined) kept.push(...(old.metadata.finalizers ?? []).filter((f) => f === 'orphan' || f === 'foregroundDeletion'));
        const graceful = old.kind === 'Pod' && action.gracePeriodSeconds !== 0 && (old.spec?.nodeName ?? '') !== '';
        if (kept.length > 0 || graceful) {
          if (old.metadata.deletionTimestamp) return { outcome: 'ok' };
          const grace = graceful ? 30 : 0;
          const marked = { ...old, metadata: { ...old.metadata, finalizers: kept, deletionTimestamp: new Date(now + grace * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z'), deletionGracePeriodSeconds: grace } } as KubeObject;
          const meta = this.nextMeta(marked.metadata, action.resource, ns, now, old);
          const object = { ...marked, metadata: kept.length > 0 ? meta : { ...meta, finalizers: undefined } } as KubeObject;
          this.bucket(action.resource).set(keyOf(ns, action.name), object);
          return this.record({ resource: action.resource, type: 'MODIFIED', object, old });
        }
        this.bucket(action.resource).delete(keyOf(ns, action.name));
        this.revision++;
        return this.record({ resource: action.resource, type: 'DELETED', object: old, old });
      }
    }
  }

  private record(change: CacheChange): { readonly outcome: 'ok'; readonly change: CacheChange } {
    this.changes.push(change);
    return { outcome: 'ok', change };
  }

  /** A write by someone else (a test playing kubectl): created, replaced or deleted as given, no validation. */
  put(resource: ResourceName, object: KubeObject, now = 0): CacheChange {
    const ns = NAMESPACED[resource] ? (object.metadata.namespace ?? 'default') : '';
    const name = object.metadata.name ?? '';
    const old = this.bucket(resource).get(keyOf(ns, name));
    const meta = this.nextMeta(object.metadata, resource, ns, now, old);
    const stored = { ...object, metadata: meta } as KubeObject;
    this.bucket(resource).set(keyOf(ns, name), stored);
    return this.record(old === undefined ? { resource, type: 'ADDED', object: stored } : { resource, type: 'MODIFIED', object: stored, old }).change;
  }

  remove(resource: ResourceName, namespace: string, name: string): CacheChange | undefined {
    const ns = NAMESPACED[resource] ? namespace : '';
    const old = this.bucket(resource).get(keyOf(ns, name));
    if (old === undefined) return undefined;
    this.bucket(resource).delete(keyOf(ns, name));
    this.revision++;
    return this.record({ resource, type: 'DELETED', object: old, old }).change;
  }
}

export interface RunOutcome {
  /** Reconciles run. */
  readonly steps: number;
  /** Successful writes (creates, updates, deletes). */
  readonly writes: number;
  /** Timers asked for with requeue-after and not yet due: key → due time. */
  readonly timers: ReadonlyMap<string, number>;
}

/**
 * The host's loop over a model: keys from changes and initial keys, one reconcile per key, its
 * writes applied in order (a failed write requeues the key, as the host does), until no key is
 * left. Timers due at or before `until` fire, advancing the clock; later ones are returned.
 */
export class ControllerLoop {
  private readonly queues = new Map<string, string[]>();
  private readonly timers = new Map<string, Map<string, number>>();
  /** Per controller, what it asked to keep per key (`remember`). */
  private readonly memory = new Map<string, Map<string, unknown>>();
  now: number;

  constructor(
    readonly model: ClusterModel,
    readonly controllers: readonly KeyedController[],
    now: number,
  ) {
    this.now = now;
    for (const c of controllers) this.queues.set(c.name, []);
  }

  private enqueue(controller: KeyedController, key: string): void {
    const q = this.queues.get(controller.name) ?? [];
    if (!q.includes(key)) q.push(key);
    this.queues.set(controller.name, q);
  }

  /** Tells every controller watching the change's resource about it. */
  notify(change: CacheChange): void {
    for (const c of this.controllers) {
      if (!c.watches.includes(change.resource)) continue;
      for (const key of c.keysFor(change, this.model)) this.enqueue(c, key);
    }
  }

  /** A write by someone else, told to the controllers. */
  put(resource: ResourceName, object: KubeObject): CacheChange {
    const change = this.model.put(resource, object, this.now);
    this.notify(change);
    return change;
  }

  remove(resource: ResourceName, namespace: string, name: string): void {
    const change = this.model.remove(resource, namespace, name);
    if (change !== undefined) this.notify(change);
  }

  /** What an informer's initial list gives: ADDED for every watched object, then the initial keys. */
  start(): void {
    for (const c of this.controllers) {
      for (const resource of c.watches) {
        for (const object of this.model.list(resource)) for (const key of c.keysFor({ resource, type: 'ADDED', object }, this.model)) this.enqueue(c, key);
      }
      for (const key of c.initialKeys?.(this.model) ?? []) this.enqueue(c, key);
    }
  }

  /** Runs until no key is queued and no timer is due by `until` (default: now). Throws past `maxSteps`. */
  run(options: { readonly until?: number; readonly maxSteps?: number } = {}): RunOutcome {
    const until = options.until ?? this.now;
    const maxSteps = options.maxSteps ?? 10_000;
    let steps = 0;
    let writes = 0;
    for (;;) {
      let progressed = false;
      for (const c of this.controllers) {
        const q = this.queues.get(c.name) ?? [];
        const key = q.shift();
        if (key === undefined) continue;
        progressed = true;
        if (++steps > maxSteps) throw new Error(`no fixpoint after ${maxSteps} reconciles (last: ${c.name} ${key})`);
        const memory = this.memory.get(c.name) ?? new Map<string, unknown>();
        this.memory.set(c.name, memory);
        for (const action of c.reconcile(key, this.model, this.now, memory.get(key))) {
          if (action.kind === 'remember') {
            if (action.value === undefined) memory.delete(action.key);
            else memory.set(action.key, action.value);
            continue;
          }
          if (action.kind === 'requeue-after') {
            const t = this.timers.get(c.name) ?? new Map<string, number>();
            const due = this.now + action.afterMs;
            t.set(action.key, Math.min(t.get(action.key) ?? Infinity, due));
            this.timers.set(c.name, t);
            continue;
          }
          if (action.kind === 'event') {
            // Recorded, not a write: the key does not wait on it.
            this.model.apply(action, this.now);
            continue;
          }
          const result = this.model.apply(action, this.now);
          if (result.outcome === 'ok') {
            // A no-op update changes nothing and is heard by no one.
            if (result.change !== undefined) {
              writes++;
              this.notify(result.change);
            }
          } else if (result.outcome === 'invalid') {
            this.model.invalidWrites.push({ controller: c.name, action, reason: result.reason ?? '' });
          } else {
            this.enqueue(c, key);
            break;
          }
        }
      }
      if (progressed) continue;
      // Nothing queued: fire the earliest timer due by `until`.
      let next: { controller: KeyedController; key: string; due: number } | undefined;
      for (const c of this.controllers) {
        for (const [key, due] of this.timers.get(c.name) ?? []) if (due <= until && (next === undefined || due < next.due)) next = { controller: c, key, due };
      }
      if (next === undefined) break;
      this.timers.get(next.controller.name)?.delete(next.key);
      this.now = Math.max(this.now, next.due);
      this.enqueue(next.controller, next.key);
    }
    const pending = new Map<string, number>();
    for (const [name, t] of this.timers) for (const [key, due] of t) pending.set(`${name}:${key}`, due);
    return { steps, writes, timers: pending };
  }
}

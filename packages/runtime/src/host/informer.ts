// An informer: a local cache of some resources, kept current by a store watch, with change
// listeners. It is what upstream's shared informers (a reflector's list-then-watch into a
// thread-safe store, plus event handlers) give every controller and kube-proxy.
// upstream: staging/src/k8s.io/client-go/tools/cache/reflector.go (ListAndWatch),
//           staging/src/k8s.io/client-go/tools/cache/shared_informer.go
//
// The list and the watches run against the store directly, at one revision, so the cache is a
// consistent snapshot plus every later event in revision order. When a watch fails (the store
// compacted past it, say), the informer lists again and reports the difference as changes, as
// a reflector's relist does. Listeners run synchronously after each change is applied, so a
// listener sees the cache with that change in it.
import type { KubeObject } from '@kubesvc/api-types';
import { REGISTRY_PREFIX, RESOURCES, type ResourceInfo, type ResourceName, deserializeObject } from '@kubesvc/apiserver';
import type { Store, Watch, WatchEvent } from '@kubesvc/store';
import type { CacheChange, CacheView } from '@kubesvc/controllers';

const REGISTRY_WATCH_PREFIX = `${REGISTRY_PREFIX}/`;

export interface Informer extends CacheView {
  readonly resources: readonly ResourceName[];
  /** The store revision the cache reflects: every event at or below it has been applied. */
  readonly revision: number;
  /** Calls `listener` after each change is applied to the cache; returns the unsubscribe. */
  onChange(listener: (change: CacheChange) => void): () => void;
  /** Resolves once the cache reflects `revision` (a write's revision, say). */
  waitFor(revision: number): Promise<void>;
  /** Ends the watches; the cache keeps its last state. */
  stop(): void;
}

export interface InformerOptions {
  readonly store: Store;
  readonly resources: readonly ResourceName[];
  /** Called when a watch fails and the informer lists again (a compaction, say). */
  readonly onRelist?: (error: unknown) => void;
}

function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Where `key` is, or would go, in the sorted `keys`. */
function searchKeys(keys: readonly string[], key: string): number {
  let lo = 0;
  let hi = keys.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if ((keys[mid] as string) < key) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function labelOf(object: KubeObject | undefined, label: string): string | undefined {
  const labels = (object as { metadata?: { labels?: Record<string, string> | null } } | undefined)?.metadata?.labels;
  return labels === undefined || labels === null || !Object.hasOwn(labels, label) ? undefined : labels[label];
}

/**
 * One resource's objects by store key, with the keys in order (sorted once, then kept in order
 * as keys come and go: a controller that lists between writes would otherwise sort the whole
 * key set again after every create), and indexes by label value, built on first use.
 */
class ResourceCache {
  readonly objects = new Map<string, KubeObject>();
  private sortedKeys: string[] | undefined;
  /** label name -> label value -> keys */
  private readonly labelIndexes = new Map<string, Map<string, Set<string>>>();

  constructor(readonly info: ResourceInfo) {}

  set(key: string, object: KubeObject): KubeObject | undefined {
    const old = this.objects.get(key);
    this.objects.set(key, object);
    if (old === undefined && this.sortedKeys !== undefined) this.sortedKeys.splice(searchKeys(this.sortedKeys, key), 0, key);
    for (const [label, index] of this.labelIndexes) {
      const before = labelOf(old, label);
      const after = labelOf(object, label);
      if (old !== undefined && before === after) continue;
      if (before !== undefined) index.get(before)?.delete(key);
      if (after !== undefined) addToIndex(index, after, key);
    }
    return old;
  }

  delete(key: string): KubeObject | undefined {
    const old = this.objects.get(key);
    if (old !== undefined) {
      this.objects.delete(key);
      if (this.sortedKeys !== undefined) {
        const i = searchKeys(this.sortedKeys, key);
        if (this.sortedKeys[i] === key) this.sortedKeys.splice(i, 1);
      }
      for (const [label, index] of this.labelIndexes) {
        const value = labelOf(old, label);
        if (value !== undefined) index.get(value)?.delete(key);
      }
    }
    return old;
  }

  /** The keys in store order: bytes, as the store orders them (the /registry keys are ASCII). */
  keys(): readonly string[] {
    this.sortedKeys ??= [...this.objects.keys()].sort(compareKeys);
    return this.sortedKeys;
  }

  /** The keys of the objects whose `label` is `value`, in store order. */
  keysWithLabel(label: string, value: string): string[] {
    let index = this.labelIndexes.get(label);
    if (index === undefined) {
      index = new Map();
      for (const [key, object] of this.objects) {
        const v = labelOf(object, label);
        if (v !== undefined) addToIndex(index, v, key);
      }
      this.labelIndexes.set(label, index);
    }
    return [...(index.get(value) ?? [])].sort(compareKeys);
  }
}

function addToIndex(index: Map<string, Set<string>>, value: string, key: string): void {
  const keys = index.get(value);
  if (keys === undefined) index.set(value, new Set([key]));
  else keys.add(key);
}

class StoreInformer implements Informer {
  private readonly caches = new Map<ResourceName, ResourceCache>();
  private readonly listeners = new Set<(change: CacheChange) => void>();
  private waiters: { revision: number; resolve: () => void }[] = [];
  private active: Watch | undefined;
  private stopped = false;
  private current = 0;

  constructor(
    private readonly options: InformerOptions,
    readonly resources: readonly ResourceName[],
  ) {
    for (const r of resources) this.caches.set(r, new ResourceCache(RESOURCES[r]));
  }

  get revision(): number {
    return this.current;
  }

  list<T extends KubeObject = KubeObject>(resource: ResourceName, namespace?: string): readonly T[] {
    const cache = this.cacheOf(resource);
    const all = namespace === undefined || namespace === '' || !cache.info.namespaced;
    const prefix = `${cache.info.prefix}${namespace ?? ''}/`;
    const out: T[] = [];
    for (const key of cache.keys()) if (all || key.startsWith(prefix)) out.push(cache.objects.get(key) as T);
    return out;
  }

  listByLabel<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string | undefined, label: string, value: string): readonly T[] {
    const cache = this.cacheOf(resource);
    const all = namespace === undefined || namespace === '' || !cache.info.namespaced;
    const prefix = `${cache.info.prefix}${namespace ?? ''}/`;
    const out: T[] = [];
    for (const key of cache.keysWithLabel(label, value)) if (all || key.startsWith(prefix)) out.push(cache.objects.get(key) as T);
    return out;
  }

  get<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string): T | undefined {
    const cache = this.cacheOf(resource);
    const key = cache.info.namespaced ? `${cache.info.prefix}${namespace}/${name}` : `${cache.info.prefix}${name}`;
    return cache.objects.get(key) as T | undefined;
  }

  onChange(listener: (change: CacheChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  waitFor(revision: number): Promise<void> {
    if (revision <= this.current || this.stopped) return Promise.resolve();
    return new Promise((resolve) => this.waiters.push({ revision, resolve }));
  }

  stop(): void {
    this.stopped = true;
    this.active?.close();
    this.active = undefined;
    for (const w of this.waiters.splice(0)) w.resolve();
  }

  /**
   * Lists every resource at one revision, then watches all of `/registry/` after it: one
   * watch keeps the events of every resource in the store's revision order, so the cache's
   * revision is simply the last event's.
   */
  async start(): Promise<readonly CacheChange[]> {
    let revision: number | undefined;
    const fresh = new Map<ResourceName, Map<string, KubeObject>>();
    for (const resource of this.resources) {
      const page = await this.options.store.range(RESOURCES[resource].prefix, revision === undefined ? {} : { revision });
      revision ??= page.revision;
      fresh.set(resource, new Map(page.kvs.map((kv) => [kv.key, deserializeObject(kv)] as const)));
    }
    const changes: CacheChange[] = [];
    for (const [resource, objects] of fresh) {
      const cache = this.cacheOf(resource);
      for (const [key, old] of [...cache.objects]) {
        if (!objects.has(key)) {
          cache.delete(key);
          changes.push({ resource, type: 'DELETED', object: old, old });
        }
      }
      for (const [key, object] of objects) {
        const old = cache.set(key, object);
        if (old === undefined) changes.push({ resource, type: 'ADDED', object });
        else if (old.metadata?.resourceVersion !== object.metadata?.resourceVersion) changes.push({ resource, type: 'MODIFIED', object, old });
      }
    }
    this.advance(revision ?? (await this.options.store.revision()));
    if (!this.stopped) {
      const watch = this.options.store.watch(REGISTRY_WATCH_PREFIX, { fromRevision: this.current + 1 });
      this.active = watch;
      void this.consume(watch);
    }
    return changes;
  }

  private cacheOf(resource: ResourceName): ResourceCache {
    const cache = this.caches.get(resource);
    if (cache === undefined) throw new Error(`informer does not watch ${resource}`);
    return cache;
  }

  private resourceOf(key: string): ResourceName | undefined {
    for (const [resource, cache] of this.caches) if (key.startsWith(cache.info.prefix)) return resource;
    return undefined;
  }

  private async consume(watch: Watch): Promise<void> {
    try {
      for await (const event of watch) this.apply(event);
    } catch (error) {
      if (this.stopped || this.active !== watch) return;
      this.options.onRelist?.(error);
      try {
        const changes = await this.start();
        this.emit(changes);
      } catch (relistError) {
        this.options.onRelist?.(relistError);
      }
    }
  }

  private apply(event: WatchEvent): void {
    const resource = this.resourceOf(event.kv.key);
    let change: CacheChange | undefined;
    if (resource !== undefined) {
      const cache = this.cacheOf(resource);
      if (event.type === 'put') {
        const object = deserializeObject(event.kv);
        const old = cache.set(event.kv.key, object);
        change = old === undefined ? { resource, type: 'ADDED', object } : { resource, type: 'MODIFIED', object, old };
      } else {
        // A delete event carries no value: the object is the last state the cache held.
        const old = cache.delete(event.kv.key);
        if (old !== undefined) change = { resource, type: 'DELETED', object: old, old };
      }
    }
    this.advance(event.kv.modRevision);
    if (change !== undefined) this.emit([change]);
  }

  private emit(changes: readonly CacheChange[]): void {
    for (const change of changes) for (const l of this.listeners) l(change);
  }

  private advance(revision: number): void {
    this.current = Math.max(this.current, revision);
    if (this.waiters.length === 0) return;
    const due = this.waiters.filter((w) => w.revision <= this.current);
    if (due.length === 0) return;
    this.waiters = this.waiters.filter((w) => w.revision > this.current);
    for (const w of due) w.resolve();
  }
}

/** Lists `resources` from the store and keeps them current; resolves once the first list is in. */
export async function startInformer(options: InformerOptions): Promise<Informer> {
  const informer = new StoreInformer(options, [...new Set(options.resources)]);
  await informer.start();
  return informer;
}

// A map that is never changed, of which a changed copy costs what changed, not the size of the
// map: a table of 10,000 Services holds some 130,000 chains, and a partial sync that rewrites
// one Service's chains must not copy them all. A version is a shared base (never changed once
// made) and a small delta of what changed since; an edit copies the delta only, and a delta
// grown past a bound is folded into a new base (a copy of the whole map, once per so many
// changes). Iteration is in insertion order, as a Map's: a key set again keeps its place, a key
// deleted and added again goes last.

const DELETED: unique symbol = Symbol('deleted');

/** A value with its place in the insertion order. */
interface Slot<V> {
  readonly value: V;
  readonly order: number;
}

type Change<V> = Slot<V> | typeof DELETED;

/** The smallest delta that is folded into the base, and how the bound grows with the map's size. */
const MIN_FOLD = 256;
const FOLD_PER_ROOT = 16;

function foldBound(size: number): number {
  return Math.max(MIN_FOLD, Math.ceil(Math.sqrt(size) * FOLD_PER_ROOT));
}

/** An immutable map; `edit()` gives a copy to change, `done()` the new version. */
export class PersistentMap<K, V> implements ReadonlyMap<K, V> {
  private constructor(
    /** In insertion order; never changed. */
    private readonly base: ReadonlyMap<K, Slot<V>>,
    /** Keys of base changed or deleted, and keys added (whose orders are all past the base's). */
    private readonly delta: ReadonlyMap<K, Change<V>>,
    readonly size: number,
    /** The order the next added key gets. */
    private readonly nextOrder: number,
  ) {}

  static empty<K, V>(): PersistentMap<K, V> {
    return new PersistentMap<K, V>(new Map(), new Map(), 0, 0);
  }

  /** A map with the entries of `entries`, in their order (a PersistentMap is returned as it is). */
  static from<K, V>(entries: ReadonlyMap<K, V> | undefined): PersistentMap<K, V> {
    if (entries instanceof PersistentMap) return entries as PersistentMap<K, V>;
    if (entries === undefined || entries.size === 0) return PersistentMap.empty();
    return PersistentMap.numbered(entries);
  }

  /** A map with no delta whose base holds `entries` in their order, numbered from 0. */
  private static numbered<K, V>(entries: Iterable<readonly [K, V]>): PersistentMap<K, V> {
    const base = new Map<K, Slot<V>>();
    let order = 0;
    for (const [key, value] of entries) base.set(key, { value, order: order++ });
    return new PersistentMap(base, new Map(), base.size, order);
  }

  private slot(key: K): Slot<V> | undefined {
    if (this.delta.size === 0) return this.base.get(key);
    const change = this.delta.get(key);
    if (change === DELETED) return undefined;
    return change ?? this.base.get(key);
  }

  get(key: K): V | undefined {
    return this.slot(key)?.value;
  }

  has(key: K): boolean {
    return this.slot(key) !== undefined;
  }

  /** The key's place in the insertion order (a larger number is later), or undefined when absent. */
  orderOf(key: K): number | undefined {
    return this.slot(key)?.order;
  }

  *entries(): MapIterator<[K, V]> {
    const delta = this.delta;
    if (delta.size === 0) {
      for (const [key, slot] of this.base) yield [key, slot.value];
      return;
    }
    for (const [key, slot] of this.base) {
      const change = delta.get(key);
      if (change === undefined) yield [key, slot.value];
      // Set again in place: the base's order.
      else if (change !== DELETED && change.order === slot.order) yield [key, change.value];
    }
    // Added: past the base, in the delta's order (a key added again was moved to its end).
    for (const [key, change] of delta) {
      if (change === DELETED) continue;
      const was = this.base.get(key);
      if (was === undefined || was.order !== change.order) yield [key, change.value];
    }
  }

  *keys(): MapIterator<K> {
    for (const [key] of this.entries()) yield key;
  }

  *values(): MapIterator<V> {
    for (const [, value] of this.entries()) yield value;
  }

  [Symbol.iterator](): MapIterator<[K, V]> {
    return this.entries();
  }

  forEach(callback: (value: V, key: K, map: ReadonlyMap<K, V>) => void, thisArg?: unknown): void {
    for (const [key, value] of this.entries()) callback.call(thisArg, value, key, this);
  }

  /** A copy to change; this version stays as it is. */
  edit(): PersistentMapEditor<K, V> {
    return new PersistentMapEditor(this.base, this.delta, this.size, this.nextOrder);
  }

  /** @internal the editor's result. */
  static made<K, V>(base: ReadonlyMap<K, Slot<V>>, delta: ReadonlyMap<K, Change<V>>, size: number, nextOrder: number): PersistentMap<K, V> {
    if (delta.size <= foldBound(base.size)) return new PersistentMap(base, delta, size, nextOrder);
    // Over an empty base the delta holds only additions, in order: it is the new base as it is.
    if (base.size === 0) return new PersistentMap(delta as ReadonlyMap<K, Slot<V>>, new Map(), size, nextOrder);
    return PersistentMap.numbered(new PersistentMap(base, delta, size, nextOrder));
  }
}

/** A version being changed: the delta is copied at the first change. */
export class PersistentMapEditor<K, V> {
  private own: Map<K, Change<V>> | undefined;

  constructor(
    private base: ReadonlyMap<K, Slot<V>>,
    private delta: ReadonlyMap<K, Change<V>>,
    private count: number,
    private nextOrder: number,
  ) {}

  get size(): number {
    return this.count;
  }

  private slot(key: K): Slot<V> | undefined {
    const change = this.delta.get(key);
    if (change === DELETED) return undefined;
    return change ?? (this.base.size === 0 ? undefined : this.base.get(key));
  }

  private changes(): Map<K, Change<V>> {
    if (this.own === undefined) {
      this.own = new Map(this.delta);
      this.delta = this.own;
    }
    return this.own;
  }

  get(key: K): V | undefined {
    return this.slot(key)?.value;
  }

  has(key: K): boolean {
    return this.slot(key) !== undefined;
  }

  orderOf(key: K): number | undefined {
    return this.slot(key)?.order;
  }

  set(key: K, value: V): void {
    const present = this.slot(key);
    const changes = this.changes();
    if (present !== undefined) {
      changes.set(key, { value, order: present.order });
      return;
    }
    // Added (again): last in the order, so last in the delta too.
    changes.delete(key);
    changes.set(key, { value, order: this.nextOrder++ });
    this.count++;
  }

  delete(key: K): boolean {
    if (this.slot(key) === undefined) return false;
    const changes = this.changes();
    if (this.base.has(key)) changes.set(key, DELETED);
    else changes.delete(key);
    this.count--;
    return true;
  }

  /** Every key deleted. */
  clear(): void {
    this.base = new Map();
    this.own = new Map();
    this.delta = this.own;
    this.count = 0;
  }

  /** The keys, in order (a copy of the changes is made: for rare uses). */
  keys(): IterableIterator<K> {
    return PersistentMap.made(this.base, new Map(this.delta), this.count, this.nextOrder).keys();
  }

  /** The new version (the editor is not to be used after). */
  done(): PersistentMap<K, V> {
    return PersistentMap.made(this.base, this.delta, this.count, this.nextOrder);
  }
}

// A persistent string-keyed map: a 32-way hash trie whose updates copy only the path to the
// changed leaf (a few 32-slot arrays), so a new balancer after each pick costs O(log32 n), not a
// copy of every client's affinity entry. Old maps stay valid and unchanged.

const BITS = 5;
const MASK = 31;

interface Leaf<V> {
  readonly hash: number;
  readonly entries: readonly (readonly [string, V])[];
}
interface Branch<V> {
  readonly slots: readonly Slot<V>[];
}
type Slot<V> = Leaf<V> | Branch<V> | undefined;

/** FNV-1a over UTF-16 code units. */
function hashOf(key: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < key.length; i++) {
    h ^= key.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

function isLeaf<V>(slot: Leaf<V> | Branch<V>): slot is Leaf<V> {
  return 'entries' in slot;
}

function branchWith<V>(slots: readonly Slot<V>[], index: number, slot: Slot<V>): Branch<V> {
  const copy = slots.length === 0 ? new Array<Slot<V>>(32).fill(undefined) : slots.slice();
  copy[index] = slot;
  return { slots: copy };
}

function setIn<V>(slot: Slot<V>, key: string, value: V, hash: number, shift: number): { slot: Slot<V>; added: boolean } {
  if (slot === undefined) return { slot: { hash, entries: [[key, value]] }, added: true };
  if (isLeaf(slot)) {
    if (slot.hash === hash) {
      const at = slot.entries.findIndex(([k]) => k === key);
      const entries = [...slot.entries];
      if (at < 0) entries.push([key, value]);
      else entries[at] = [key, value];
      return { slot: { hash, entries }, added: at < 0 };
    }
    // Split: push the existing leaf one level down, then insert beside it.
    const pushed = branchWith<V>([], (slot.hash >>> shift) & MASK, slot);
    return setIn(pushed, key, value, hash, shift);
  }
  const index = (hash >>> shift) & MASK;
  const inner = setIn(slot.slots[index], key, value, hash, shift + BITS);
  return { slot: branchWith(slot.slots, index, inner.slot), added: inner.added };
}

function deleteIn<V>(slot: Slot<V>, key: string, hash: number, shift: number): { slot: Slot<V>; removed: boolean } {
  if (slot === undefined) return { slot, removed: false };
  if (isLeaf(slot)) {
    if (slot.hash !== hash || !slot.entries.some(([k]) => k === key)) return { slot, removed: false };
    const entries = slot.entries.filter(([k]) => k !== key);
    return { slot: entries.length === 0 ? undefined : { hash, entries }, removed: true };
  }
  const index = (hash >>> shift) & MASK;
  const inner = deleteIn(slot.slots[index], key, hash, shift + BITS);
  if (!inner.removed) return { slot, removed: false };
  const next = branchWith(slot.slots, index, inner.slot);
  return { slot: next.slots.every((s) => s === undefined) ? undefined : next, removed: true };
}

/** Appends every entry under `slot` to `out`, in hash order. */
function collect<V>(slot: Slot<V>, out: (readonly [string, V])[]): void {
  if (slot === undefined) return;
  if (isLeaf(slot)) {
    for (const entry of slot.entries) out.push(entry);
    return;
  }
  for (const s of slot.slots) collect(s, out);
}

export class PersistentMap<V> implements Iterable<readonly [string, V]> {
  private static readonly emptyMap = new PersistentMap<never>(undefined, 0);

  private constructor(
    private readonly root: Slot<V>,
    readonly size: number,
  ) {}

  static empty<V>(): PersistentMap<V> {
    return PersistentMap.emptyMap as PersistentMap<V>;
  }

  static from<V>(entries: Iterable<readonly [string, V]>): PersistentMap<V> {
    let m = PersistentMap.empty<V>();
    for (const [k, v] of entries) m = m.set(k, v);
    return m;
  }

  get(key: string): V | undefined {
    const hash = hashOf(key);
    let slot = this.root;
    let shift = 0;
    while (slot !== undefined) {
      if (isLeaf(slot)) {
        if (slot.hash !== hash) return undefined;
        for (const [k, v] of slot.entries) if (k === key) return v;
        return undefined;
      }
      slot = slot.slots[(hash >>> shift) & MASK];
      shift += BITS;
    }
    return undefined;
  }

  has(key: string): boolean {
    return this.get(key) !== undefined;
  }

  set(key: string, value: V): PersistentMap<V> {
    const r = setIn(this.root, key, value, hashOf(key), 0);
    return new PersistentMap(r.slot, this.size + (r.added ? 1 : 0));
  }

  delete(key: string): PersistentMap<V> {
    const r = deleteIn(this.root, key, hashOf(key), 0);
    return r.removed ? new PersistentMap(r.slot, this.size - 1) : this;
  }

  /** Entries in hash order (not insertion order). */
  [Symbol.iterator](): Iterator<readonly [string, V]> {
    // One flat pass: the map never changes, so a snapshot is what a lazy walk would yield, and
    // it costs no generator per trie node.
    const out: (readonly [string, V])[] = [];
    collect(this.root, out);
    return out[Symbol.iterator]();
  }

  *keys(): Generator<string> {
    for (const [k] of this) yield k;
  }

  *values(): Generator<V> {
    for (const [, v] of this) yield v;
  }
}

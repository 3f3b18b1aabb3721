// The persistent allocation bitmap that the ClusterIP and NodePort allocators share, as upstream
// shares one (upstream: pkg/registry/core/service/allocator/bitmap.go, where it is a big.Int).
// Bit k set means "offset k is taken"; the usable offsets are [0, max).
//
// Representation: a shallow trie. Leaves are plain arrays of 65 numbers: 64 int32 words = 2048
// bits, then the leaf's count of set bits. (Plain arrays of small integers, not typed arrays:
// V8 copies a 65-slot array in ~50 ns and allocates a small typed array in ~1 µs, and every
// update copies one leaf.) Inner nodes have 32 children and their own count. An empty subtree
// is null and a leaf with all 2048 bits set is the one shared FULL_LEAF, so an empty or a full
// range costs almost nothing. Every update copies only the path to the bit it changes (one
// leaf and at most a few 32-slot arrays), so an old Bitmap stays valid and unchanged, and the
// counts make free()/used() O(1) and let scans skip full subtrees.

const LEAF_WORDS = 64;
const LEAF_BITS = LEAF_WORDS * 32;
const FAN = 32;
/** SPAN[l]: how many offsets a node at level l covers (level 0 is a leaf). 2048 * 32^l. */
const SPAN: readonly number[] = Array.from({ length: 8 }, (_, l) => LEAF_BITS * FAN ** l);
/** The largest max supported: offsets are kept exact as doubles and bit-shifted as uint32. */
export const MAX_BITMAP_SIZE = 0x1_0000_0000;

type Leaf = number[];

class Inner {
  constructor(
    readonly kids: readonly (BitNode | null)[],
    readonly count: number,
  ) {}
}

type BitNode = Leaf | Inner;

function newLeaf(): Leaf {
  return new Array<number>(LEAF_WORDS + 1).fill(0);
}

function newFullLeaf(): Leaf {
  const leaf = new Array<number>(LEAF_WORDS + 1).fill(-1);
  leaf[LEAF_WORDS] = LEAF_BITS;
  return leaf;
}
/** Shared by every full leaf of every bitmap. Never written: updates always copy a leaf first. */
const FULL_LEAF: Leaf = newFullLeaf();

/**
 * A set of offsets in [0, max). Treat it as opaque: build it with emptyBitmap or
 * bitmapFromBytes and change it only through the functions here, which return a new Bitmap.
 */
export interface Bitmap {
  readonly max: number;
  /** How many offsets are set. */
  readonly count: number;
  /** Levels of inner nodes above the leaves. */
  readonly depth: number;
  readonly root: BitNode | null;
}

function nodeCount(node: BitNode | null): number {
  if (node === null) return 0;
  return node instanceof Inner ? node.count : (node[LEAF_WORDS] ?? 0);
}

function spanAt(level: number): number {
  const span = SPAN[level];
  if (span === undefined) throw new RangeError(`bitmap level ${level} out of range`);
  return span;
}

function depthFor(max: number): number {
  let depth = 0;
  while (spanAt(depth) < max) depth++;
  return depth;
}

function checkMax(max: number): void {
  if (!Number.isInteger(max) || max < 0 || max > MAX_BITMAP_SIZE) {
    throw new RangeError(`bitmap size must be an integer in [0, 2^32], got ${max}`);
  }
}

/** The bitmap of `max` offsets with nothing set. */
export function emptyBitmap(max: number): Bitmap {
  checkMax(max);
  return { max, count: 0, depth: depthFor(max), root: null };
}

/** max - count: how many offsets are free. */
export function bitmapFree(bitmap: Bitmap): number {
  return bitmap.max - bitmap.count;
}

/** Whether `offset` is set; false for an offset outside [0, max). */
export function bitmapHas(bitmap: Bitmap, offset: number): boolean {
  if (!(offset >= 0 && offset < bitmap.max)) return false;
  let node = bitmap.root;
  let level = bitmap.depth;
  let rem = Math.floor(offset);
  while (node !== null) {
    if (node instanceof Inner) {
      const childSpan = spanAt(level - 1);
      const i = Math.floor(rem / childSpan);
      rem -= i * childSpan;
      node = node.kids[i] ?? null;
      level--;
    } else {
      return (((node[rem >>> 5] ?? 0) >>> (rem & 31)) & 1) === 1;
    }
  }
  return false;
}

function checkOffset(bitmap: Bitmap, offset: number): void {
  if (!Number.isInteger(offset) || offset < 0 || offset >= bitmap.max) {
    // upstream (modern bitmap.go Allocate) returns this text as an error; callers check the
    // range first, so here it is a programmer error.
    throw new RangeError(`offset ${offset} out of range [0,${bitmap.max}]`);
  }
}

function setIn(node: BitNode | null, level: number, rem: number): BitNode {
  if (level === 0) {
    const leaf = node === null ? newLeaf() : (node as Leaf).slice();
    leaf[rem >>> 5] = (leaf[rem >>> 5] ?? 0) | (1 << (rem & 31));
    const count = (leaf[LEAF_WORDS] ?? 0) + 1;
    if (count === LEAF_BITS) return FULL_LEAF;
    leaf[LEAF_WORDS] = count;
    return leaf;
  }
  const childSpan = spanAt(level - 1);
  const i = Math.floor(rem / childSpan);
  const kids = node === null ? new Array<BitNode | null>(FAN).fill(null) : (node as Inner).kids.slice();
  kids[i] = setIn(kids[i] ?? null, level - 1, rem - i * childSpan);
  return new Inner(kids, nodeCount(node) + 1);
}

function clearIn(node: BitNode, level: number, rem: number): BitNode | null {
  if (nodeCount(node) === 1) return null;
  if (level === 0) {
    const leaf = (node as Leaf).slice();
    leaf[rem >>> 5] = (leaf[rem >>> 5] ?? 0) & ~(1 << (rem & 31));
    leaf[LEAF_WORDS] = (leaf[LEAF_WORDS] ?? 0) - 1;
    return leaf;
  }
  const childSpan = spanAt(level - 1);
  const i = Math.floor(rem / childSpan);
  const kids = (node as Inner).kids.slice();
  const kid = kids[i];
  if (kid === null || kid === undefined) throw new Error('bitmap: clearing a bit that is not set');
  kids[i] = clearIn(kid, level - 1, rem - i * childSpan);
  return new Inner(kids, (node as Inner).count - 1);
}

/** The bitmap with `offset` set (the same bitmap if it already was). Throws outside [0, max). */
export function bitmapSet(bitmap: Bitmap, offset: number): Bitmap {
  checkOffset(bitmap, offset);
  if (bitmapHas(bitmap, offset)) return bitmap;
  return { max: bitmap.max, count: bitmap.count + 1, depth: bitmap.depth, root: setIn(bitmap.root, bitmap.depth, offset) };
}

/** The bitmap with `offset` clear (the same bitmap if it already was, or if it is outside [0, max)). */
export function bitmapClear(bitmap: Bitmap, offset: number): Bitmap {
  if (!bitmapHas(bitmap, offset) || bitmap.root === null) return bitmap;
  return { max: bitmap.max, count: bitmap.count - 1, depth: bitmap.depth, root: clearIn(bitmap.root, bitmap.depth, offset) };
}

/** Index of the lowest set bit of a non-zero int32. */
function lowestBit(x: number): number {
  return 31 - Math.clz32(x & -x);
}

function findIn(node: BitNode | null, level: number, start: number, from: number, to: number, max: number): number {
  if (node === null) return from;
  const span = spanAt(level);
  if (nodeCount(node) >= Math.min(span, max - start)) return -1;
  if (!(node instanceof Inner)) {
    const lo = from - start;
    const hi = to - start;
    const lastWord = (hi - 1) >>> 5;
    for (let w = lo >>> 5; w <= lastWord; w++) {
      let free = ~(node[w] ?? 0);
      if (w === lo >>> 5) free &= -1 << (lo & 31);
      if (w === lastWord && (hi & 31) !== 0) free &= -1 >>> (32 - (hi & 31));
      if (free !== 0) return start + w * 32 + lowestBit(free);
    }
    return -1;
  }
  const childSpan = spanAt(level - 1);
  const first = Math.floor((from - start) / childSpan);
  const last = Math.floor((to - 1 - start) / childSpan);
  for (let i = first; i <= last; i++) {
    const childStart = start + i * childSpan;
    const found = findIn(
      node.kids[i] ?? null,
      level - 1,
      childStart,
      Math.max(from, childStart),
      Math.min(to, childStart + childSpan),
      max,
    );
    if (found >= 0) return found;
  }
  return -1;
}

/** The lowest clear offset in [from, to), or -1. The bounds are clamped to [0, max). */
export function bitmapFindClear(bitmap: Bitmap, from: number, to: number): number {
  const lo = Math.max(0, Math.ceil(from));
  const hi = Math.min(bitmap.max, Math.floor(to));
  if (lo >= hi) return -1;
  return findIn(bitmap.root, bitmap.depth, 0, lo, hi, bitmap.max);
}

function eachWord(node: BitNode | null, level: number, wordStart: number, fn: (wordIndex: number, word: number) => void): void {
  if (node === null) return;
  if (node instanceof Inner) {
    const childWords = spanAt(level - 1) / 32;
    for (let i = 0; i < FAN; i++) eachWord(node.kids[i] ?? null, level - 1, wordStart + i * childWords, fn);
    return;
  }
  for (let w = 0; w < LEAF_WORDS; w++) {
    const word = node[w] ?? 0;
    if (word !== 0) fn(wordStart + w, word);
  }
}

/** Calls fn(wordIndex, word) for every non-zero 32-bit word, ascending; bit b of word w is offset 32w + b. */
export function bitmapForEachWord(bitmap: Bitmap, fn: (wordIndex: number, word: number) => void): void {
  eachWord(bitmap.root, bitmap.depth, 0, fn);
}

/** Calls fn once per set offset, from the lowest to the highest (upstream ForEach). */
export function bitmapForEach(bitmap: Bitmap, fn: (offset: number) => void): void {
  bitmapForEachWord(bitmap, (wordIndex, word) => {
    let x = word | 0;
    while (x !== 0) {
      fn(wordIndex * 32 + lowestBit(x));
      x &= x - 1;
    }
  });
}

/** The set offsets, ascending. */
export function bitmapOffsets(bitmap: Bitmap): number[] {
  const out: number[] = [];
  bitmapForEach(bitmap, (offset) => out.push(offset));
  return out;
}

function popcount(word: number): number {
  let x = word - ((word >>> 1) & 0x5555_5555);
  x = (x & 0x3333_3333) + ((x >>> 2) & 0x3333_3333);
  x = (x + (x >>> 4)) & 0x0f0f_0f0f;
  return Math.imul(x, 0x0101_0101) >>> 24;
}

/**
 * Builds a bitmap from plain words (bit b of words[w] is offset 32w + b), ignoring bits at
 * or beyond max. The words are copied, not kept. O(max / 32): the bulk path for restore and
 * for BitmapDraft.
 */
export function bitmapFromWords(max: number, words: Uint32Array): Bitmap {
  checkMax(max);
  const depth = depthFor(max);
  const leafCount = Math.ceil(max / LEAF_BITS);
  let level: (BitNode | null)[] = [];
  let total = 0;
  for (let l = 0; l < leafCount; l++) {
    const leaf = newLeaf();
    let count = 0;
    for (let w = 0; w < LEAF_WORDS; w++) {
      const index = l * LEAF_WORDS + w;
      const bitStart = index * 32;
      if (bitStart >= max) break;
      let word = (words[index] ?? 0) | 0;
      if (bitStart + 32 > max) word &= -1 >>> (32 - (max - bitStart));
      leaf[w] = word;
      count += popcount(word);
    }
    total += count;
    leaf[LEAF_WORDS] = count;
    level.push(count === 0 ? null : count === LEAF_BITS ? FULL_LEAF : leaf);
  }
  for (let l = 1; l <= depth; l++) {
    const next: (BitNode | null)[] = [];
    for (let i = 0; i < level.length; i += FAN) {
      const kids = new Array<BitNode | null>(FAN).fill(null);
      let count = 0;
      for (let k = 0; k < FAN && i + k < level.length; k++) {
        const kid = level[i + k] ?? null;
        kids[k] = kid;
        count += nodeCount(kid);
      }
      next.push(count === 0 ? null : new Inner(kids, count));
    }
    level = next;
  }
  return { max, count: total, depth, root: level[0] ?? null };
}

/**
 * upstream Snapshot's bytes: the set as a big-endian unsigned integer with no leading zero
 * bytes (Go big.Int.Bytes()); offset 0 is the lowest bit of the last byte, and the empty set
 * is zero bytes long.
 */
export function bitmapToBytes(bitmap: Bitmap): Uint8Array {
  let highestWord = -1;
  let highestValue = 0;
  bitmapForEachWord(bitmap, (wordIndex, word) => {
    highestWord = wordIndex;
    highestValue = word;
  });
  if (highestWord < 0) return new Uint8Array(0);
  const highestBit = highestWord * 32 + (31 - Math.clz32(highestValue));
  const length = Math.floor(highestBit / 8) + 1;
  const out = new Uint8Array(length);
  bitmapForEachWord(bitmap, (wordIndex, word) => {
    for (let k = 0; k < 4; k++) {
      const fromEnd = wordIndex * 4 + k;
      if (fromEnd < length) out[length - 1 - fromEnd] = (word >>> (8 * k)) & 0xff;
    }
  });
  return out;
}

/**
 * upstream Restore's load of the bytes (big.Int.SetBytes): any number of leading zero bytes is
 * accepted. Deviation: bits at or beyond max are dropped; upstream keeps them and counts them,
 * which makes Free() wrong for data no snapshot of this range can produce.
 */
export function bitmapFromBytes(max: number, bytes: Uint8Array): Bitmap {
  checkMax(max);
  const words = new Uint32Array(Math.ceil(max / 32));
  for (let fromEnd = 0; fromEnd < bytes.length; fromEnd++) {
    if (fromEnd * 8 >= max) break;
    const byte = bytes[bytes.length - 1 - fromEnd] ?? 0;
    if (byte === 0) continue;
    const w = fromEnd >>> 2;
    words[w] = (words[w] ?? 0) | (byte << (8 * (fromEnd & 3)));
  }
  return bitmapFromWords(max, words);
}

/** Whether two bitmaps have the same max and the same offsets set. */
export function bitmapEquals(a: Bitmap, b: Bitmap): boolean {
  if (a.max !== b.max || a.count !== b.count) return false;
  if (a.root === b.root) return true;
  const x = bitmapToBytes(a);
  const y = bitmapToBytes(b);
  return x.length === y.length && x.every((v, i) => v === y[i]);
}

// The shared bitmap against plain models: a Set of offsets, and a bigint for upstream's bytes
// (Go's big.Int.Bytes(): big-endian, no leading zero bytes).
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  bitmapClear,
  bitmapEquals,
  bitmapFindClear,
  bitmapFree,
  bitmapFromBytes,
  bitmapFromWords,
  bitmapHas,
  bitmapOffsets,
  bitmapSet,
  bitmapToBytes,
  emptyBitmap,
  type Bitmap,
} from './bitmap.js';

function bitmapOf(max: number, offsets: Iterable<number>): Bitmap {
  let b = emptyBitmap(max);
  for (const o of offsets) b = bitmapSet(b, o);
  return b;
}

/** The bytes of the set read as a big-endian integer, by bigint arithmetic. */
function bigintBytes(offsets: Iterable<number>): number[] {
  let n = 0n;
  for (const o of offsets) n |= 1n << BigInt(o);
  if (n === 0n) return [];
  let hex = n.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return (hex.match(/../g) ?? []).map((h) => parseInt(h, 16));
}

describe('snapshot bytes (upstream bitmap.go examples)', () => {
  it('offset 0 is the lowest bit of the last byte', () => {
    expect([...bitmapToBytes(bitmapOf(254, [0]))]).toEqual([0x01]);
  });
  it('offset 9 is two bytes', () => {
    expect([...bitmapToBytes(bitmapOf(254, [9]))]).toEqual([0x02, 0x00]);
  });
  it('offset 253 is 0x20 and 31 zero bytes', () => {
    expect([...bitmapToBytes(bitmapOf(254, [253]))]).toEqual([0x20, ...new Array<number>(31).fill(0)]);
  });
  it('offsets 0..7 are one 0xff byte', () => {
    expect([...bitmapToBytes(bitmapOf(254, [0, 1, 2, 3, 4, 5, 6, 7]))]).toEqual([0xff]);
  });
  it('the empty set is zero bytes', () => {
    expect(bitmapToBytes(emptyBitmap(65534)).length).toBe(0);
  });
  it('restore accepts leading zero bytes and drops bits at or beyond max', () => {
    const b = bitmapFromBytes(10, Uint8Array.from([0, 0, 0xff, 0xff]));
    expect(bitmapOffsets(b)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(b.count).toBe(10);
    expect(bitmapFree(b)).toBe(0);
  });
});

describe('findClear', () => {
  it('skips full leaves and finds the first clear bit after them', () => {
    const max = 10_000;
    const b = bitmapOf(max, Array.from({ length: 5000 }, (_, i) => i));
    expect(bitmapFindClear(b, 0, max)).toBe(5000);
    expect(bitmapFindClear(b, 100, 4000)).toBe(-1);
    expect(bitmapFindClear(b, 7000, 8000)).toBe(7000);
    expect(bitmapFindClear(b, 9999, 20_000)).toBe(9999);
  });
  it('returns -1 for an empty interval or a full bitmap', () => {
    const b = bitmapOf(40, Array.from({ length: 40 }, (_, i) => i));
    expect(bitmapFindClear(b, 0, 40)).toBe(-1);
    expect(bitmapFindClear(emptyBitmap(40), 5, 5)).toBe(-1);
    expect(bitmapFindClear(emptyBitmap(0), 0, 10)).toBe(-1);
  });
});

describe('sizes', () => {
  it('handles a bitmap of 2^32 offsets lazily', () => {
    const max = 2 ** 32;
    const b = bitmapSet(bitmapSet(emptyBitmap(max), max - 1), 0);
    expect(bitmapHas(b, max - 1)).toBe(true);
    expect(bitmapHas(b, max - 2)).toBe(false);
    expect(bitmapOffsets(b)).toEqual([0, max - 1]);
    expect(bitmapFindClear(b, max - 1, max)).toBe(-1);
    expect(bitmapFindClear(b, max - 3, max)).toBe(max - 3);
    expect(bitmapFree(b)).toBe(max - 2);
  });
  it('refuses a size beyond 2^32 and an offset outside the range', () => {
    expect(() => emptyBitmap(2 ** 32 + 1)).toThrow(RangeError);
    expect(() => bitmapSet(emptyBitmap(8), 8)).toThrow('offset 8 out of range [0,8]');
  });
  it('a full bitmap built from words equals one built bit by bit', () => {
    const max = 5000;
    const words = new Uint32Array(Math.ceil(max / 32)).fill(0xffff_ffff);
    const fromWords = bitmapFromWords(max, words);
    expect(fromWords.count).toBe(max);
    expect(bitmapEquals(fromWords, bitmapOf(max, Array.from({ length: max }, (_, i) => i)))).toBe(true);
  });
});

const opsArb = (max: number) =>
  fc.array(fc.record({ set: fc.boolean(), offset: fc.integer({ min: 0, max: max - 1 }) }, { noNullPrototype: true }), {
    maxLength: 200,
  });

const maxArb = fc.oneof(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 1, max: 70_000 }), fc.constant(1_048_574));

test.prop([maxArb.chain((max) => fc.tuple(fc.constant(max), opsArb(max)))])(
  'set and clear agree with a Set model: membership, count, ascending order, bytes and findClear',
  ([max, ops]) => {
    let b = emptyBitmap(max);
    const model = new Set<number>();
    for (const { set, offset } of ops) {
      const before = b;
      const beforeOffsets = bitmapOffsets(before);
      b = set ? bitmapSet(b, offset) : bitmapClear(b, offset);
      if (set) model.add(offset);
      else model.delete(offset);
      expect(bitmapOffsets(before)).toEqual(beforeOffsets);
    }
    const sorted = [...model].sort((x, y) => x - y);
    expect(bitmapOffsets(b)).toEqual(sorted);
    expect(b.count).toBe(model.size);
    expect(bitmapFree(b)).toBe(max - model.size);
    const bytes = bitmapToBytes(b);
    expect([...bytes]).toEqual(bigintBytes(sorted));
    expect(bitmapEquals(bitmapFromBytes(max, bytes), b)).toBe(true);
    let firstClear = -1;
    for (let i = 0; i < max; i++) {
      if (!model.has(i)) {
        firstClear = i;
        break;
      }
    }
    expect(bitmapFindClear(b, 0, max)).toBe(firstClear);
    for (const o of sorted.slice(0, 20)) {
      const expected = model.has(o + 1) || o + 1 >= max ? undefined : o + 1;
      if (expected !== undefined) expect(bitmapFindClear(b, o, max)).toBe(expected);
    }
  },
);

describe('edges the Set model rarely reaches', () => {
  const LEAF = 2048;

  it('a run of 2048 set offsets on a leaf boundary reads back bit by bit', () => {
    const b = bitmapOf(3 * LEAF, Array.from({ length: LEAF }, (_, i) => LEAF + i));
    expect(b.count).toBe(LEAF);
    expect(bitmapOffsets(b)).toEqual(Array.from({ length: LEAF }, (_, i) => LEAF + i));
    for (const o of [LEAF, LEAF + 31, LEAF + 32, 2 * LEAF - 1]) expect(bitmapHas(b, o)).toBe(true);
    expect(bitmapHas(b, LEAF - 1)).toBe(false);
    expect(bitmapHas(b, 2 * LEAF)).toBe(false);
    // Clearing one bit of the run leaves the other 2047, and the run it came from whole.
    const cleared = bitmapClear(b, LEAF + 100);
    expect(bitmapOffsets(cleared)).toEqual(Array.from({ length: LEAF }, (_, i) => LEAF + i).filter((o) => o !== LEAF + 100));
    expect(bitmapHas(b, LEAF + 100)).toBe(true);
  });

  it('clears bits below an inner node, in any child, and keeps the bitmap it was given', () => {
    // 70 000 offsets: two levels. One bit in the first leaf, two in a later child.
    const offsets = [5, 4100, 65_600];
    const b = bitmapOf(70_000, offsets);
    const c = bitmapClear(b, 4100);
    expect(bitmapOffsets(c)).toEqual([5, 65_600]);
    expect(c.count).toBe(2);
    expect(bitmapOffsets(b)).toEqual(offsets);
    const d = bitmapClear(bitmapClear(c, 65_600), 5);
    expect(bitmapOffsets(d)).toEqual([]);
    expect(bitmapFindClear(d, 0, 70_000)).toBe(0);
    expect(bitmapOffsets(c)).toEqual([5, 65_600]);
    // Set again after clearing to empty.
    expect(bitmapOffsets(bitmapSet(d, 65_600))).toEqual([65_600]);
  });

  it('bitmapHas is false outside [0, max), also where the leaf keeps its count', () => {
    // max 2048 is exactly one leaf: offset 2048 would read the word after the last.
    const b = bitmapOf(LEAF, [0]);
    expect(bitmapHas(b, 0)).toBe(true);
    expect(bitmapHas(b, LEAF)).toBe(false);
    expect(bitmapHas(b, -1)).toBe(false);
    expect(bitmapHas(bitmapOf(40, [39]), 40)).toBe(false);
  });

  it('refuses a negative or fractional size and a negative or fractional offset, naming the value', () => {
    expect(() => emptyBitmap(-1)).toThrow(RangeError);
    expect(() => emptyBitmap(-1)).toThrow(/-1/);
    expect(() => emptyBitmap(2.5)).toThrow(/2\.5/);
    expect(() => bitmapSet(emptyBitmap(8), -1)).toThrow(RangeError);
    expect(() => bitmapSet(emptyBitmap(8), 1.5)).toThrow(RangeError);
    expect(bitmapOffsets(bitmapSet(emptyBitmap(8), 0))).toEqual([0]);
  });

  it('bitmapFromWords ignores words and bits at or beyond max', () => {
    const ones = Uint32Array.from([0xffff_ffff, 0xffff_ffff, 0xffff_ffff]);
    const ten = bitmapFromWords(10, ones);
    expect(ten.count).toBe(10);
    expect(bitmapOffsets(ten)).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    // max a whole word: the second word starts at max.
    const word = bitmapFromWords(32, ones);
    expect(word.count).toBe(32);
    expect(bitmapOffsets(word)).toEqual(Array.from({ length: 32 }, (_, i) => i));
  });

  it('bitmapFromWords with more leaves than one inner node holds: a free bit in the first node is found', () => {
    // 33 leaves: the first inner node holds 32, the 33rd is in the next. Everything is set
    // but offset 0, so the first node is one short of full.
    const max = 33 * LEAF;
    const words = new Uint32Array(max / 32).fill(0xffff_ffff);
    words[0] = 0xffff_fffe;
    const b = bitmapFromWords(max, words);
    expect(b.count).toBe(max - 1);
    expect(bitmapFindClear(b, 0, max)).toBe(0);
    expect(bitmapHas(b, max - 1)).toBe(true);
    expect(bitmapHas(b, 0)).toBe(false);
  });

  it('bitmapEquals: the same size and the same offsets, nothing else', () => {
    expect(bitmapEquals(emptyBitmap(10), emptyBitmap(20))).toBe(false);
    expect(bitmapEquals(bitmapOf(10, [1]), bitmapOf(20, [1]))).toBe(false);
    expect(bitmapEquals(bitmapOf(10, [1]), bitmapOf(10, [2]))).toBe(false);
    // Same count, different lengths of bytes.
    expect(bitmapEquals(bitmapOf(16, [1]), bitmapOf(16, [9]))).toBe(false);
    // Same last byte, different first byte.
    expect(bitmapEquals(bitmapOf(16, [0, 8]), bitmapOf(16, [0, 9]))).toBe(false);
    expect(bitmapEquals(bitmapOf(16, [0, 9]), bitmapSet(bitmapOf(16, [9]), 0))).toBe(true);
    expect(bitmapEquals(emptyBitmap(16), emptyBitmap(16))).toBe(true);
  });
});

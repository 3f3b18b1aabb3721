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

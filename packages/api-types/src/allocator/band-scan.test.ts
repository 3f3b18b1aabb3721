import { describe, expect, it } from 'vitest';
import { bitmapHas, bitmapSet, emptyBitmap, type Bitmap } from './bitmap.js';
import { allocateNextOffset, allocateNextOffsets, pickNextOffset } from './band-scan.js';
import { nextInt, seededRng, type Rng } from './rng.js';

function fill(bitmap: Bitmap, band: number, rng: Rng, n: number): { bitmap: Bitmap; offsets: number[]; rng: Rng } {
  const offsets: number[] = [];
  let b = bitmap;
  let r = rng;
  for (let i = 0; i < n; i++) {
    const next = allocateNextOffset(b, band, r);
    if (!next.ok) {
      r = next.error.rng;
      break;
    }
    r = next.value.rng;
    offsets.push(next.value.offset);
    b = next.value.bitmap;
  }
  return { bitmap: b, offsets, rng: r };
}

describe('allocateNextOffset (randomScanStrategyWithOffset)', () => {
  it('fills the dynamic band [16, 126) before touching the static band of a /25', () => {
    const { offsets, bitmap } = fill(emptyBitmap(126), 16, seededRng(7), 110);
    expect(new Set(offsets).size).toBe(110);
    expect(Math.min(...offsets)).toBe(16);
    expect(Math.max(...offsets)).toBe(125);
    expect(bitmap.count).toBe(110);
    // the 111th comes from the static band
    const next = allocateNextOffset(bitmap, 16, seededRng(1));
    expect(next.ok && next.value.offset < 16).toBe(true);
  });
  it('starts at the drawn offset and wraps around inside the band', () => {
    const rng = seededRng(3);
    const [start] = nextInt(rng, 100 - 10);
    expect(start).toBeGreaterThan(0);
    let b = emptyBitmap(100);
    // take everything from the start to the end of the band: the scan must wrap to 10
    for (let o = 10 + start; o < 100; o++) b = bitmapSet(b, o);
    expect(pickNextOffset(b, 10, rng).offset).toBe(10);
  });
  it('draws once while the dynamic band has room and twice when it is full', () => {
    const rng = seededRng(11);
    const [, once] = nextInt(rng, 90);
    expect(pickNextOffset(emptyBitmap(100), 10, rng).rng).toEqual(once);
    let full = emptyBitmap(100);
    for (let o = 10; o < 100; o++) full = bitmapSet(full, o);
    const [start, twice0] = nextInt(once, 10);
    const pick = pickNextOffset(full, 10, rng);
    expect(pick.offset).toBe(start);
    expect(pick.rng).toEqual(twice0);
  });
  it('with no static band uses the whole range and reports full with no draw', () => {
    const { offsets, bitmap, rng } = fill(emptyBitmap(14), 0, seededRng(5), 20);
    expect([...offsets].sort((a, b) => a - b)).toEqual(Array.from({ length: 14 }, (_, i) => i));
    const after = allocateNextOffset(bitmap, 0, rng);
    expect(after).toEqual({ ok: false, error: { _tag: 'ErrFull', message: 'range is full', rng } });
  });
  it('an empty range is full', () => {
    expect(allocateNextOffset(emptyBitmap(0), 0, seededRng(1))).toEqual({ ok: false, error: { _tag: 'ErrFull', message: 'range is full', rng: seededRng(1) } });
  });
  it('is deterministic: the same seed gives the same offsets, and leaves its inputs alone', () => {
    const a = fill(emptyBitmap(1000), 62, seededRng(42), 300);
    const b = fill(emptyBitmap(1000), 62, seededRng(42), 300);
    expect(a.offsets).toEqual(b.offsets);
    const c = fill(emptyBitmap(1000), 62, seededRng(43), 300);
    expect(c.offsets).not.toEqual(a.offsets);
    expect(bitmapHas(emptyBitmap(1000), a.offsets[0] ?? 0)).toBe(false);
  });
});

describe('allocateNextOffsets (batch)', () => {
  it('picks the same offsets with the same draws as one call at a time, and stops when full', () => {
    for (const [max, band, seed, pre] of [
      [126, 16, 1, 0],
      [2768, 86, 2, 500],
      [70_000, 256, 3, 0],
      [14, 0, 4, 3],
    ] as const) {
      let start = emptyBitmap(max);
      for (let o = 0; o < pre; o++) start = bitmapSet(start, (o * 37) % max);
      const single = fill(start, band, seededRng(seed), max + 5);
      const batch = allocateNextOffsets(start, band, seededRng(seed), max + 5);
      expect(batch.offsets).toEqual(single.offsets);
      expect(batch.rng).toEqual(single.rng);
      expect(batch.full).toBe(true);
      expect(batch.bitmap.count).toBe(max);
      const partial = allocateNextOffsets(start, band, seededRng(seed), 10);
      expect(partial.offsets).toEqual(single.offsets.slice(0, 10));
      expect(partial.full).toBe(false);
      expect(partial.bitmap.count).toBe(start.count + 10);
      expect(start.count).toBe(pre === 0 ? 0 : new Set(Array.from({ length: pre }, (_, o) => (o * 37) % max)).size);
    }
  });
});

describe('band and word edges', () => {
  it('a band offset at or past the size leaves only the static band: the whole range, one draw', () => {
    for (const band of [100, 250]) {
      const rng = seededRng(8);
      const [start, advanced] = nextInt(rng, 100);
      expect(pickNextOffset(emptyBitmap(100), band, rng)).toEqual({ offset: start, rng: advanced });
      const all = allocateNextOffsets(emptyBitmap(100), band, seededRng(8), 200);
      expect([...all.offsets].sort((a, b) => a - b)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    }
  });

  it('the batch never picks an offset past a size one short of a word, or of two words', () => {
    for (const max of [31, 63]) {
      const all = allocateNextOffsets(emptyBitmap(max), 0, seededRng(max), 2 * max);
      expect([...all.offsets].sort((a, b) => a - b)).toEqual(Array.from({ length: max }, (_, i) => i));
      expect(all.full).toBe(true);
      expect(all.bitmap.count).toBe(max);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { bitmapOffsets, bitmapSet, emptyBitmap } from './bitmap.js';
import { draftClear, draftForEach, draftHas, draftOf, draftSet, draftToBitmap, emptyDraft } from './bitmap-draft.js';

describe('BitmapDraft', () => {
  it('copies a bitmap, changes in place, and turns back into an equal bitmap without touching the original', () => {
    const original = bitmapSet(bitmapSet(emptyBitmap(5000), 3), 4095);
    const draft = draftOf(original);
    expect(draftHas(draft, 3)).toBe(true);
    expect(draftSet(draft, 3)).toBe(false);
    expect(draftSet(draft, 4999)).toBe(true);
    expect(draftClear(draft, 4095)).toBe(true);
    expect(draftClear(draft, 4095)).toBe(false);
    expect(draftClear(draft, 9999)).toBe(false);
    expect(draft.count).toBe(2);
    const seen: number[] = [];
    draftForEach(draft, (o) => seen.push(o));
    expect(seen).toEqual([3, 4999]);
    expect(bitmapOffsets(draftToBitmap(draft))).toEqual([3, 4999]);
    expect(bitmapOffsets(original)).toEqual([3, 4095]);
    expect(() => draftSet(emptyDraft(10), 10)).toThrow(RangeError);
  });
});

describe('BitmapDraft edges', () => {
  it('offset 0, neighbours in one word, and the order of draftForEach', () => {
    const draft = emptyDraft(64);
    expect(draftSet(draft, 0)).toBe(true);
    expect(draftSet(draft, 1)).toBe(true);
    expect(draftSet(draft, 33)).toBe(true);
    expect(draftHas(draft, 0)).toBe(true);
    const seen: number[] = [];
    draftForEach(draft, (o) => seen.push(o));
    expect(seen).toEqual([0, 1, 33]);
    // Clearing one bit leaves its neighbour in the same word.
    expect(draftClear(draft, 1)).toBe(true);
    expect(draftHas(draft, 0)).toBe(true);
    expect(draftClear(draft, 0)).toBe(true);
    expect(draft.count).toBe(1);
    expect(bitmapOffsets(draftToBitmap(draft))).toEqual([33]);
  });

  it('draftSet refuses a negative or fractional offset, naming it, and changes nothing', () => {
    const draft = emptyDraft(10);
    expect(() => draftSet(draft, -1)).toThrow(RangeError);
    expect(() => draftSet(draft, -1)).toThrow(/-1/);
    expect(() => draftSet(draft, 2.5)).toThrow(RangeError);
    expect(draft.count).toBe(0);
    expect(draftHas(draft, -1)).toBe(false);
  });
});

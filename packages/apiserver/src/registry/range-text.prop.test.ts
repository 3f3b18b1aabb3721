// The range object's text made piece by piece into bytes kept between writes (range-text.ts)
// against the whole base64 made again: INV-REG-RANGE-TEXT in docs/invariants.md.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { RANGE_TEXT_PIECE_BYTES, rangeAllocationBytes, rangeTextOf, updateRangeText, type RangeText } from './range-text.js';

function rangeAllocationText(range: string, text: RangeText): string {
  return Buffer.from(rangeAllocationBytes(range, text)).toString('utf8');
}

/** The RangeAllocation as written before the pieces: the bytes from the first non-zero one, base64 in one go. */
function wholeText(range: string, bytes: Uint8Array): string {
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  const data = Buffer.from(bytes.subarray(first)).toString('base64');
  return JSON.stringify({ apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range, data });
}

describe('range text', () => {
  it('is the RangeAllocation as Go writes it: leading zero bytes dropped, standard base64', () => {
    const bytes = new Uint8Array([0, 0, 1, 255, 16]);
    expect(rangeAllocationText('10.0.0.0/29', rangeTextOf(bytes))).toBe('{"apiVersion":"v1","kind":"RangeAllocation","metadata":{},"range":"10.0.0.0/29","data":"Af8Q"}');
    expect(rangeAllocationText('10.0.0.0/29', rangeTextOf(new Uint8Array(4)))).toBe('{"apiVersion":"v1","kind":"RangeAllocation","metadata":{},"range":"10.0.0.0/29","data":""}');
  });

  test.prop([
    fc.integer({ min: 1, max: 4 * RANGE_TEXT_PIECE_BYTES + 7 }),
    fc.array(fc.array(fc.record({ at: fc.nat(), value: fc.integer({ min: 0, max: 255 }) }), { maxLength: 8 }), { minLength: 1, maxLength: 6 }),
  ])('INV-REG-RANGE-TEXT: after any batches of byte writes, the pieces made again give the text the whole base64 gives', (size, batches) => {
    const bytes = new Uint8Array(size);
    const text = rangeTextOf(bytes);
    let previous = rangeAllocationBytes('10.96.0.0/12', text);
    for (const batch of batches) {
      const changed: number[] = [];
      for (const { at, value } of batch) {
        // Writes near the front too, where the first non-zero byte moves.
        const index = at % 3 === 0 ? at % Math.min(size, 8) : at % size;
        bytes[index] = value;
        changed.push(index);
      }
      updateRangeText(text, bytes, changed);
      const json = rangeAllocationBytes('10.96.0.0/12', text);
      expect(Buffer.from(json).toString('utf8')).toBe(wholeText('10.96.0.0/12', bytes));
      // Kept between writes: the same buffer while the text's length stays the same.
      if (json.length === previous.length) expect(json).toBe(previous);
      previous = json;
    }
  });
});

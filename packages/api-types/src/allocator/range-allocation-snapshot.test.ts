import { describe, expect, it } from 'vitest';
import { bitmapSet, emptyBitmap } from './bitmap.js';
import { rangeAllocationSnapshot, rangeAllocationSnapshotBytes } from './range-allocation-snapshot.js';

describe('rangeAllocationSnapshot', () => {
  it('writes the range and the bitmap bytes as base64, keeping the metadata it is given', () => {
    // Offsets 0 and 9 of a 16-item range: bytes 0x02 0x01 (big-endian, offset 0 = lowest bit of the last byte).
    const bitmap = bitmapSet(bitmapSet(emptyBitmap(16), 0), 9);
    expect(rangeAllocationSnapshot('30000-30015', bitmap, { apiVersion: 'v1', kind: 'RangeAllocation', metadata: { resourceVersion: '7' }, range: '', data: '' })).toEqual({
      apiVersion: 'v1',
      kind: 'RangeAllocation',
      metadata: { resourceVersion: '7' },
      range: '30000-30015',
      data: 'AgE=',
    });
    expect(rangeAllocationSnapshot('10.0.0.0/24', emptyBitmap(254)).metadata).toEqual({});
  });

  it('keeps fields of the stored object that it does not know (the schema is a loose object)', () => {
    const stored = { apiVersion: 'v1' as const, kind: 'RangeAllocation' as const, metadata: {}, range: '', data: '', futureField: 'kept' };
    expect(rangeAllocationSnapshot('10.0.0.0/24', emptyBitmap(254), stored)).toMatchObject({ futureField: 'kept', range: '10.0.0.0/24', data: '' });
  });
});

describe('rangeAllocationSnapshotBytes', () => {
  it('reads base64 data back to bytes', () => {
    expect(rangeAllocationSnapshotBytes({ data: 'AgE=' })).toEqual({ ok: true, value: new Uint8Array([2, 1]) });
    // Bytes are the other form of a snapshot: they come back as they are.
    const bytes = new Uint8Array([2, 1]);
    const same = rangeAllocationSnapshotBytes({ data: bytes });
    expect(same.ok && same.value).toBe(bytes);
  });

  it('gives ErrInvalidSnapshot for data that is not base64', () => {
    const result = rangeAllocationSnapshotBytes({ data: 'not base64!' });
    expect(result.ok).toBe(false);
    if (!result.ok) expect(result.error).toEqual({ _tag: 'ErrInvalidSnapshot', message: 'rangeAllocationBytes: not base64: " "' });
  });
});

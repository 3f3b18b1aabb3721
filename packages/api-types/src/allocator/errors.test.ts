import { describe, expect, it } from 'vitest';
import { errFull, errInvalidSnapshot, errNotReady, errRangeMismatch } from './errors.js';

describe('allocator errors carry upstream text', () => {
  it('ErrFull, ErrNotReady (ipallocator/interfaces.go) and the Restore range mismatch (allocator/bitmap.go)', () => {
    expect(errFull).toEqual({ _tag: 'ErrFull', message: 'range is full' });
    expect(errNotReady).toEqual({ _tag: 'ErrNotReady', message: 'allocator not ready' });
    expect(errRangeMismatch).toEqual({ _tag: 'ErrRangeMismatch', message: 'the provided range does not match the current range' });
    expect(errInvalidSnapshot('invalid CIDR address: x')).toEqual({ _tag: 'ErrInvalidSnapshot', message: 'invalid CIDR address: x' });
  });
});

// What a user finds where they look: the constants and errors of the allocator are exported
// from the package itself, with upstream's values, as ipallocator exports its own.
import { expect, it } from 'vitest';
import * as portallocator from './index.js';

it('exports NUM_REPAIRS_BEFORE_LEAK_CLEANUP, upstream numRepairsBeforeLeakCleanup', () => {
  expect(portallocator.NUM_REPAIRS_BEFORE_LEAK_CLEANUP).toBe(3);
});

it('exports every allocator error beside the others, with upstream text (portallocator/allocator.go)', () => {
  expect(portallocator.errFull).toEqual({ _tag: 'ErrFull', message: 'range is full' });
  expect(portallocator.errAllocated).toEqual({ _tag: 'ErrAllocated', message: 'provided port is already allocated' });
  expect(portallocator.errMismatchedNetwork).toEqual({
    _tag: 'ErrMismatchedNetwork',
    message: 'the provided port range does not match the current port range',
  });
  expect(portallocator.errNotReady).toEqual({ _tag: 'ErrNotReady', message: 'allocator not ready' });
  expect(portallocator.errNotInRange('1-2').message).toBe('provided port is not in the valid range. The range of valid ports is 1-2');
});

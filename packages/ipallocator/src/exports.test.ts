// What a user finds where they look: the constants and errors of the allocator are exported
// from the package itself, with upstream's values.
import { expect, it } from 'vitest';
import * as ipallocator from './index.js';

it('exports NUM_REPAIRS_BEFORE_LEAK_CLEANUP, upstream numRepairsBeforeLeakCleanup', () => {
  expect(ipallocator.NUM_REPAIRS_BEFORE_LEAK_CLEANUP).toBe(3);
});

it('exports every allocator error beside the others, with upstream text (ipallocator/interfaces.go)', () => {
  expect(ipallocator.errFull).toEqual({ _tag: 'ErrFull', message: 'range is full' });
  expect(ipallocator.errAllocated).toEqual({ _tag: 'ErrAllocated', message: 'provided IP is already allocated' });
  expect(ipallocator.errMismatchedNetwork).toEqual({
    _tag: 'ErrMismatchedNetwork',
    message: 'the provided network does not match the current range',
  });
  expect(ipallocator.errNotReady).toEqual({ _tag: 'ErrNotReady', message: 'allocator not ready' });
  expect(ipallocator.errInvalidSnapshot('x')).toEqual({ _tag: 'ErrInvalidSnapshot', message: 'x' });
});

it('exports the IPAddress repair grace period, upstream gracePeriod (60 * time.Second in repairip.go syncIPAddress)', () => {
  expect(ipallocator.IP_ADDRESS_REPAIR_GRACE_PERIOD_MS).toBe(60_000);
});

it('exports the IPAddress allocator errors and the dual-write gate default (ipallocator.go, kube_features.go)', () => {
  expect(ipallocator.errServiceCIDRTooLarge(48)).toEqual({
    _tag: 'ErrServiceCIDRTooLarge',
    prefix: 48,
    message: 'shortest allowed prefix length for service CIDR is 64, got 48',
  });
  expect(ipallocator.DISABLE_ALLOCATOR_DUAL_WRITE_DEFAULT).toBe(false);
});

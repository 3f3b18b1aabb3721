// The NodePort allocator's errors, with upstream's text.
// upstream: pkg/registry/core/service/portallocator/allocator.go
import type { AllocatorError } from '@kubesvc/api-types';

export interface ErrAllocated extends AllocatorError<'ErrAllocated'> {
  readonly message: 'provided port is already allocated';
}
export const errAllocated: ErrAllocated = { _tag: 'ErrAllocated', message: 'provided port is already allocated' };

export interface ErrMismatchedNetwork extends AllocatorError<'ErrMismatchedNetwork'> {
  readonly message: 'the provided port range does not match the current port range';
}
export const errMismatchedNetwork: ErrMismatchedNetwork = {
  _tag: 'ErrMismatchedNetwork',
  message: 'the provided port range does not match the current port range',
};

/** upstream ErrNotInRange{ValidPorts}: the range as PortRange.String() prints it. */
export interface ErrNotInRange extends AllocatorError<'ErrNotInRange'> {
  readonly validPorts: string;
}

export function errNotInRange(validPorts: string): ErrNotInRange {
  return {
    _tag: 'ErrNotInRange',
    validPorts,
    message: `provided port is not in the valid range. The range of valid ports is ${validPorts}`,
  };
}

// The errors both allocators share, exported here beside this allocator's own: ErrFull
// (automatic allocation found nothing free), ErrNotReady (ipallocator's upstream `allocator not
// ready`, exported here too so that a host uses one error for both allocators before it has
// restored them) and ErrInvalidSnapshot (a stored RangeAllocation that cannot be read).
export {
  errFull,
  errInvalidSnapshot,
  errNotReady,
  type ErrFull,
  type ErrInvalidSnapshot,
  type ErrNotReady,
} from '@kubesvc/api-types';

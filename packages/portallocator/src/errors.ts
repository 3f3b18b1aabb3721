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

// A stored RangeAllocation that cannot be read: the one error both allocators share.
export { errInvalidSnapshot, type ErrInvalidSnapshot } from '@kubesvc/api-types';

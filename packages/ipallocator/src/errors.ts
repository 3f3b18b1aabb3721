// The ClusterIP allocator's errors, with upstream's text.
// upstream: pkg/registry/core/service/ipallocator/interfaces.go
import { formatIP, type AllocatorError, type IP } from '@kubesvc/api-types';

export interface ErrAllocated extends AllocatorError<'ErrAllocated'> {
  readonly message: 'provided IP is already allocated';
}
export const errAllocated: ErrAllocated = { _tag: 'ErrAllocated', message: 'provided IP is already allocated' };

export interface ErrMismatchedNetwork extends AllocatorError<'ErrMismatchedNetwork'> {
  readonly message: 'the provided network does not match the current range';
}
export const errMismatchedNetwork: ErrMismatchedNetwork = {
  _tag: 'ErrMismatchedNetwork',
  message: 'the provided network does not match the current range',
};

/** upstream ErrNotInRange{IP, ValidRange}: the IP and the range's CIDR as Go prints them. */
export interface ErrNotInRange extends AllocatorError<'ErrNotInRange'> {
  readonly ip: IP;
  readonly validRange: string;
}

export function errNotInRange(ip: IP, validRange: string): ErrNotInRange {
  return {
    _tag: 'ErrNotInRange',
    ip,
    validRange,
    message: `the provided IP (${formatIP(ip)}) is not in the valid range. The range of valid IPs is ${validRange}`,
  };
}

// The errors both allocators share, exported here beside this allocator's own: ErrFull
// (automatic allocation found nothing free), ErrNotReady (upstream's `allocator not ready`)
// and ErrInvalidSnapshot (a stored RangeAllocation that cannot be read).
export {
  errFull,
  errInvalidSnapshot,
  errNotReady,
  type ErrFull,
  type ErrInvalidSnapshot,
  type ErrNotReady,
} from '@kubesvc/api-types';

/**
 * upstream NewIPAllocator (ipallocator.go) refuses an IPv6 CIDR wider than /64: the IPAddress
 * allocator counts its addresses in a uint64. A ServiceCIDR with such a range gets no allocator.
 */
export interface ErrServiceCIDRTooLarge extends AllocatorError<'ErrServiceCIDRTooLarge'> {
  readonly prefix: number;
}

export function errServiceCIDRTooLarge(prefix: number): ErrServiceCIDRTooLarge {
  return {
    _tag: 'ErrServiceCIDRTooLarge',
    prefix,
    message: `shortest allowed prefix length for service CIDR is 64, got ${prefix}`,
  };
}

/**
 * The ServiceCIDR list given to newMetaAllocator is not a list of objects, or the family is
 * not IPv4 or IPv6. Upstream's informer only ever holds decoded ServiceCIDRs, so this has no
 * upstream text: it is the edge check of a pure entry point that takes outside data.
 */
export type ErrServiceCIDRList = AllocatorError<'ErrServiceCIDRList'>;

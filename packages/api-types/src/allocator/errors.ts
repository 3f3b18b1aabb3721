// The allocator errors that do not depend on what is allocated. Errors are values with
// upstream's text (docs/architecture.md, the pure-package contract, rule 4); ipallocator and portallocator add
// their own (ErrAllocated, ErrNotInRange, ErrMismatchedNetwork) with their own wording.
// upstream: pkg/registry/core/service/allocator/interfaces.go, ipallocator/interfaces.go,
//           portallocator/allocator.go
import type { TaggedError } from '../result.js';
import type { Rng } from './rng.js';

/** The shape of every allocator error: the one TaggedError of ../result.ts. */
export type AllocatorError<Tag extends string> = TaggedError<Tag>;

/**
 * The error of an operation that draws from the seeded generator: the advanced generator
 * rides on the error value (the Result convention: state a failure must hand back is carried
 * on its error), so that the next draw does not repeat this one.
 */
export type WithRng<E extends TaggedError> = E & { readonly rng: Rng };

/** upstream ErrFull (ipallocator and portallocator): automatic allocation found nothing free. */
export interface ErrFull extends AllocatorError<'ErrFull'> {
  readonly message: 'range is full';
}

export const errFull: ErrFull = { _tag: 'ErrFull', message: 'range is full' };

/**
 * upstream ErrNotReady (ipallocator/interfaces.go): the allocator cannot answer yet. A host
 * returns it while an allocator has not been restored from storage; the pure allocators here
 * never do.
 */
export interface ErrNotReady extends AllocatorError<'ErrNotReady'> {
  readonly message: 'allocator not ready';
}

export const errNotReady: ErrNotReady = { _tag: 'ErrNotReady', message: 'allocator not ready' };

/**
 * upstream AllocationBitmap.Restore's error when the range string of the data is not the
 * allocator's (pkg/registry/core/service/allocator/bitmap.go).
 */
export interface ErrRangeMismatch extends AllocatorError<'ErrRangeMismatch'> {
  readonly message: 'the provided range does not match the current range';
}

export const errRangeMismatch: ErrRangeMismatch = {
  _tag: 'ErrRangeMismatch',
  message: 'the provided range does not match the current range',
};

/**
 * A stored RangeAllocation that cannot be read: its range does not parse (the message is the
 * range parser's, as upstream NewFromSnapshot returns it) or its data is not base64.
 */
export type ErrInvalidSnapshot = AllocatorError<'ErrInvalidSnapshot'>;

export function errInvalidSnapshot(message: string): ErrInvalidSnapshot {
  return { _tag: 'ErrInvalidSnapshot', message };
}

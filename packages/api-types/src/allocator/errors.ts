// The allocator errors that do not depend on what is allocated. Errors are values with
// upstream's text (DESIGN.md, pure-package contract rule 4); ipallocator and portallocator add
// their own (ErrAllocated, ErrNotInRange, ErrMismatchedNetwork) with their own wording.
// upstream: pkg/registry/core/service/allocator/interfaces.go, ipallocator/interfaces.go,
//           portallocator/allocator.go

/** The shape of every allocator error: a tag to switch on and upstream's message. */
export interface AllocatorError<Tag extends string> {
  readonly _tag: Tag;
  readonly message: string;
}

/** upstream ErrFull (ipallocator and portallocator): automatic allocation found nothing free. */
export interface ErrFull extends AllocatorError<'ErrFull'> {
  readonly message: 'range is full';
}

export const errFull: ErrFull = { _tag: 'ErrFull', message: 'range is full' };

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

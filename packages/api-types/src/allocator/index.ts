export type { Rng } from './rng.js';
export { nextInt, seededRng } from './rng.js';
export type { Bitmap } from './bitmap.js';
export {
  MAX_BITMAP_SIZE,
  bitmapClear,
  bitmapEquals,
  bitmapFindClear,
  bitmapForEach,
  bitmapForEachWord,
  bitmapFree,
  bitmapFromBytes,
  bitmapFromWords,
  bitmapHas,
  bitmapOffsets,
  bitmapSet,
  bitmapToBytes,
  emptyBitmap,
} from './bitmap.js';
export type { NextOffsetResult, NextOffsetsResult } from './band-scan.js';
export { allocateNextOffset, allocateNextOffsets, pickNextOffset } from './band-scan.js';
export type { AllocatorError, ErrFull, ErrInvalidSnapshot, ErrNotReady, ErrRangeMismatch, WithRng } from './errors.js';
export { errFull, errInvalidSnapshot, errNotReady, errRangeMismatch } from './errors.js';
export type { LeakCounters } from './leaks.js';
export { NUM_REPAIRS_BEFORE_LEAK_CLEANUP, leakCountersFromMap, leakCountersToMap, leakHoldoff } from './leaks.js';
export type { ErrRepair, RepairEvent } from './repair-event.js';
export type { BitmapDraft } from './bitmap-draft.js';
export { draftClear, draftForEach, draftHas, draftOf, draftSet, draftToBitmap, emptyDraft } from './bitmap-draft.js';
export type { AllocatorSnapshot } from './range-allocation-snapshot.js';
export { rangeAllocationSnapshot, rangeAllocationSnapshotBytes } from './range-allocation-snapshot.js';
export { repairServicesShapeProblem, snapshotShapeProblem } from './input-shape.js';

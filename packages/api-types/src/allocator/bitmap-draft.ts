// A mutable, flat working copy of a Bitmap, for a pure function that makes many changes before
// it returns (a repair run rebuilds a whole range). The caller owns the draft; the Bitmap it
// came from is never touched, and draftToBitmap turns the result back into a persistent value.
// O(max / 32) to make and to finish; each has/set/clear is O(1).
import { bitmapForEachWord, bitmapFromWords, type Bitmap } from './bitmap.js';

export interface BitmapDraft {
  readonly max: number;
  /** Bit b of words[w] is offset 32w + b. */
  readonly words: Uint32Array;
  count: number;
}

export function emptyDraft(max: number): BitmapDraft {
  return { max, words: new Uint32Array(Math.ceil(max / 32)), count: 0 };
}

/** A draft holding the bitmap's offsets. */
export function draftOf(bitmap: Bitmap): BitmapDraft {
  const draft = emptyDraft(bitmap.max);
  bitmapForEachWord(bitmap, (index, word) => {
    draft.words[index] = word;
  });
  draft.count = bitmap.count;
  return draft;
}

export function draftHas(draft: BitmapDraft, offset: number): boolean {
  if (!(offset >= 0 && offset < draft.max)) return false;
  return (((draft.words[offset >>> 5] ?? 0) >>> (offset & 31)) & 1) === 1;
}

/** Sets `offset`; returns false when it was already set. Throws outside [0, max). */
export function draftSet(draft: BitmapDraft, offset: number): boolean {
  if (!Number.isInteger(offset) || offset < 0 || offset >= draft.max) {
    throw new RangeError(`offset ${offset} out of range [0,${draft.max}]`);
  }
  const w = offset >>> 5;
  const bit = 1 << (offset & 31);
  const word = draft.words[w] ?? 0;
  if ((word & bit) !== 0) return false;
  draft.words[w] = word | bit;
  draft.count++;
  return true;
}

/** Clears `offset`; returns false when it was not set (or is outside [0, max)). */
export function draftClear(draft: BitmapDraft, offset: number): boolean {
  if (!draftHas(draft, offset)) return false;
  const w = offset >>> 5;
  draft.words[w] = (draft.words[w] ?? 0) & ~(1 << (offset & 31));
  draft.count--;
  return true;
}

/** Calls fn once per set offset, ascending. */
export function draftForEach(draft: BitmapDraft, fn: (offset: number) => void): void {
  const { words } = draft;
  for (let w = 0; w < words.length; w++) {
    let x = (words[w] ?? 0) | 0;
    while (x !== 0) {
      fn(w * 32 + (31 - Math.clz32(x & -x)));
      x &= x - 1;
    }
  }
}

/** The draft's offsets as a persistent Bitmap (the draft may be used again afterwards). */
export function draftToBitmap(draft: BitmapDraft): Bitmap {
  return bitmapFromWords(draft.max, draft.words);
}

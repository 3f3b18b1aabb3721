// The stored RangeAllocation's text for the registry's full-length snapshot bytes, written again
// after each batch of allocations: only the base64 of the parts whose bytes changed is made
// anew. A /12's bitmap is 128 KiB, 175 KB of base64, and the batch flips a few bits of it; the
// whole base64 again was about 0.2 ms of every range write.
// upstream (v1.33): pkg/registry/core/service/allocator/storage/storage.go (the snapshot's
//   Data, written into the RangeAllocation on every allocation); the JSON is Go's for
//   api.RangeAllocation, the bytes standard base64 as encoding/json writes a []byte.

/** Bytes per piece of base64: a multiple of 3, so that the pieces' texts join into the whole's. */
export const RANGE_TEXT_PIECE_BYTES = 3 * 1024;

/**
 * The base64 of `bytes` from its first non-zero byte (the snapshot drops leading zero bytes),
 * in pieces of RANGE_TEXT_PIECE_BYTES. Owned by one mirror of the bytes, and changed with them.
 */
export interface RangeText {
  /** The first non-zero byte when the pieces were made (bytes.length when all are zero). */
  first: number;
  readonly pieces: string[];
}

function firstNonZero(bytes: Uint8Array): number {
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  return first;
}

function piece(bytes: Uint8Array, first: number, index: number): string {
  const start = first + index * RANGE_TEXT_PIECE_BYTES;
  const end = Math.min(bytes.length, start + RANGE_TEXT_PIECE_BYTES);
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('base64');
}

/** The pieces of `bytes` made from scratch. */
export function rangeTextOf(bytes: Uint8Array): RangeText {
  const first = firstNonZero(bytes);
  const count = Math.ceil((bytes.length - first) / RANGE_TEXT_PIECE_BYTES);
  return { first, pieces: Array.from({ length: count }, (_, i) => piece(bytes, first, i)) };
}

/**
 * Brings `text` up to date with `bytes` after the bytes at `changed` (indexes into bytes) were
 * written: the pieces holding them are made again, or all of them when the first non-zero byte
 * moved. Changes `text` in place.
 */
export function updateRangeText(text: RangeText, bytes: Uint8Array, changed: readonly number[]): void {
  const first = firstNonZero(bytes);
  if (first !== text.first) {
    const fresh = rangeTextOf(bytes);
    text.first = fresh.first;
    text.pieces.length = 0;
    text.pieces.push(...fresh.pieces);
    return;
  }
  let last = -1;
  for (const at of changed) {
    if (at < first) continue;
    const index = Math.floor((at - first) / RANGE_TEXT_PIECE_BYTES);
    if (index === last) continue;
    text.pieces[index] = piece(bytes, first, index);
    last = index;
  }
}

/** The stored RangeAllocation: standard base64 of the bytes without their leading zero bytes. */
export function rangeAllocationText(range: string, text: RangeText): string {
  // JSON.stringify would scan the (kilobytes of) base64 for characters to escape; it has none.
  // One join of every part makes the text one flat string at once. A template around the joined
  // pieces made a second string of the whole: a rope that the store's first read of it (SQLite's
  // bind) flattened into a copy. Each string of a /12's 175 KB is a large object of V8's, which
  // takes pages of its own that are faulted in afresh.
  const parts = [`{"apiVersion":"v1","kind":"RangeAllocation","metadata":{},"range":${JSON.stringify(range)},"data":"`, ...text.pieces, '"}'];
  return parts.join('');
}

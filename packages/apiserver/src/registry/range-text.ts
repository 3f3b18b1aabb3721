// The stored RangeAllocation's text for the registry's full-length snapshot bytes, written again
// after each batch of allocations: only the base64 of the parts whose bytes changed is made
// anew, and written into the JSON's bytes, which are kept between writes. A /12's bitmap is
// 128 KiB, 175 KB of base64, and the batch flips a few bits of it; the whole base64 again was
// about 0.2 ms of every range write, and a new 175 KB string per write was fresh memory,
// faulted in page by page (some 40 page faults a write).
// upstream (v1.33): pkg/registry/core/service/allocator/storage/storage.go (the snapshot's
//   Data, written into the RangeAllocation on every allocation); the JSON is Go's for
//   api.RangeAllocation, the bytes standard base64 as encoding/json writes a []byte.

/** Bytes per piece of base64: a multiple of 3, so that the pieces' texts join into the whole's. */
export const RANGE_TEXT_PIECE_BYTES = 3 * 1024;
/** Characters of base64 per full piece. */
const PIECE_CHARS = (RANGE_TEXT_PIECE_BYTES / 3) * 4;

/**
 * The base64 of `bytes` from its first non-zero byte (the snapshot drops leading zero bytes),
 * in pieces of RANGE_TEXT_PIECE_BYTES. Owned by one mirror of the bytes, and changed with them.
 */
export interface RangeText {
  /** The first non-zero byte when the pieces were made (bytes.length when all are zero). */
  first: number;
  readonly pieces: string[];
  /** The pieces made again since the JSON's bytes were last written, or all of them. */
  stale: Set<number> | 'all';
  /** The RangeAllocation's JSON as bytes, kept between writes (rangeAllocationBytes). */
  json: { readonly range: string; readonly bytes: Buffer; readonly dataStart: number } | undefined;
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
  return { first, pieces: Array.from({ length: count }, (_, i) => piece(bytes, first, i)), stale: 'all', json: undefined };
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
    text.stale = 'all';
    return;
  }
  let last = -1;
  for (const at of changed) {
    if (at < first) continue;
    const index = Math.floor((at - first) / RANGE_TEXT_PIECE_BYTES);
    if (index === last) continue;
    text.pieces[index] = piece(bytes, first, index);
    if (text.stale !== 'all') text.stale.add(index);
    last = index;
  }
}

/**
 * The stored RangeAllocation's JSON as UTF-8 bytes: standard base64 of the bytes without their
 * leading zero bytes. The bytes are `text`'s own and are written over in place by the next call
 * (only the pieces made again since): the caller hands them to one store write at a time and
 * lets that write settle before calling again (the store's PutValue).
 */
export function rangeAllocationBytes(range: string, text: RangeText): Uint8Array {
  const json = text.json;
  if (json !== undefined && json.range === range && text.stale !== 'all') {
    // A piece made again has the length it had: the same number of bytes, in the same place.
    for (const index of text.stale) json.bytes.write(text.pieces[index] ?? '', json.dataStart + index * PIECE_CHARS, 'latin1');
    text.stale.clear();
    return json.bytes;
  }
  // JSON.stringify would scan the (kilobytes of) base64 for characters to escape; it has none.
  const head = `{"apiVersion":"v1","kind":"RangeAllocation","metadata":{},"range":${JSON.stringify(range)},"data":"`;
  const dataStart = Buffer.byteLength(head);
  const length = dataStart + text.pieces.reduce((sum, p) => sum + p.length, 0) + 2;
  // The same length as before (the first non-zero byte moved by less than a piece, or not at
  // all) keeps the buffer, whose pages are already in memory.
  const bytes = json !== undefined && json.bytes.length === length ? json.bytes : Buffer.alloc(length);
  let at = bytes.write(head, 0, 'utf8');
  for (const p of text.pieces) at += bytes.write(p, at, 'latin1');
  bytes.write('"}', at, 'latin1');
  text.json = { range, bytes, dataStart };
  text.stale = new Set();
  return bytes;
}

// The object an allocator's Snapshot fills in: the RangeAllocation the apiserver stores under
// /registry/ranges/serviceips or /registry/ranges/servicenodeports. Both allocators write it
// the same way; only the range text differs (a CIDR or a port range).
// upstream: pkg/registry/core/service/allocator/storage/storage.go (Snapshot into api.RangeAllocation)
import { encodeRangeAllocationBytes, rangeAllocationBytes, type RangeAllocation } from '../objects/range-allocation.js';
import { bitmapToBytes, type Bitmap } from './bitmap.js';
import { errInvalidSnapshot, type ErrInvalidSnapshot } from './errors.js';

/**
 * `range` and the bitmap in upstream's bytes, base64 as the API carries them. The rest of
 * `into` (its metadata, with the resourceVersion a compare-and-swap needs) is kept.
 */
export function rangeAllocationSnapshot(range: string, bitmap: Bitmap, into?: RangeAllocation): RangeAllocation {
  return {
    ...(into ?? {}),
    apiVersion: 'v1',
    kind: 'RangeAllocation',
    metadata: into?.metadata ?? {},
    range,
    data: encodeRangeAllocationBytes(bitmapToBytes(bitmap)),
  };
}

/**
 * The bitmap bytes of a stored RangeAllocation, or ErrInvalidSnapshot when its data is not
 * base64 (an object decoded through the schema always is; one built by hand may not be).
 */
export function rangeAllocationSnapshotBytes(
  snapshot: Pick<RangeAllocation, 'data'>,
): { readonly ok: true; readonly bytes: Uint8Array } | { readonly ok: false; readonly error: ErrInvalidSnapshot } {
  try {
    return { ok: true, bytes: rangeAllocationBytes(snapshot) };
  } catch (e) {
    return { ok: false, error: errInvalidSnapshot(e instanceof Error ? e.message : String(e)) };
  }
}

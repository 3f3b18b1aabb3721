// The object an allocator's Snapshot fills in: the RangeAllocation the apiserver stores under
// /registry/ranges/serviceips or /registry/ranges/servicenodeports. Both allocators write it
// the same way; only the range text differs (a CIDR or a port range).
// upstream: pkg/registry/core/service/allocator/storage/storage.go (Snapshot into api.RangeAllocation)
import { encodeRangeAllocationBytes, type RangeAllocation } from '../objects/range-allocation.js';
import { bitmapToBytes, type Bitmap } from './bitmap.js';

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

// The object an allocator's Snapshot fills in: the RangeAllocation the apiserver stores under
// /registry/ranges/serviceips or /registry/ranges/servicenodeports. Both allocators write it
// the same way; only the range text differs (a CIDR or a port range).
// upstream: pkg/registry/core/service/allocator/storage/storage.go (Snapshot into api.RangeAllocation)
import { encodeRangeAllocationBytes, rangeAllocationBytes, type RangeAllocation } from '../objects/range-allocation.js';
import { ok, err, type Result } from '../result.js';
import { bitmapToBytes, type Bitmap } from './bitmap.js';
import { errInvalidSnapshot, type ErrInvalidSnapshot } from './errors.js';

/**
 * What an allocator's snapshot is and what its restore takes, in either of two forms: the
 * stored RangeAllocation (`data` base64, as the API carries it) or the same two fields with
 * `data` as upstream's raw bitmap bytes.
 */
export interface AllocatorSnapshot {
  /** The range as upstream prints it: a CIDR, or a port range such as `30000-32767`. */
  readonly range: string;
  readonly data: string | Uint8Array;
}

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
 * The bitmap bytes of a snapshot: `data` itself when it is bytes, decoded when it is base64;
 * ErrInvalidSnapshot when it is not base64 (an object decoded through the schema always is;
 * one built by hand may not be).
 */
export function rangeAllocationSnapshotBytes(snapshot: Pick<AllocatorSnapshot, 'data'>): Result<Uint8Array, ErrInvalidSnapshot> {
  const { data } = snapshot;
  if (typeof data !== 'string') return ok(data);
  try {
    return ok(rangeAllocationBytes({ data }));
  } catch (e) {
    return err(errInvalidSnapshot(e instanceof Error ? e.message : String(e)));
  }
}

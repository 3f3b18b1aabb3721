// The ClusterIP allocator as a persistent value: every operation returns a new allocator and
// leaves the one it was given as it was. The bitmap is api-types' shared persistent bitmap.
// upstream: pkg/registry/core/service/ipallocator/bitmap.go (Range: Allocate, AllocateNext,
//           Release, Has, Free, Used, ForEach, Snapshot, Restore, NewFromSnapshot, DryRun)
import {
  allocateNextOffset,
  allocateNextOffsets,
  bitmapClear,
  bitmapForEach,
  bitmapFree,
  bitmapFromBytes,
  bitmapHas,
  bitmapSet,
  bitmapToBytes,
  cidrEquals,
  emptyBitmap,
  errFull,
  parseCIDRSloppy,
  rangeAllocationSnapshot,
  rangeAllocationSnapshotBytes,
  type Bitmap,
  type CIDR,
  type ErrFull,
  type IP,
  type RangeAllocation,
  type Rng,
} from '@kubesvc/api-types';
import {
  errAllocated,
  errInvalidSnapshot,
  errMismatchedNetwork,
  errNotInRange,
  type ErrAllocated,
  type ErrInvalidSnapshot,
  type ErrMismatchedNetwork,
  type ErrNotInRange,
} from './errors.js';
import { ipAtOffset, ipOffset, ipRangeOf, type IPRange } from './ip-range.js';

export interface IPAllocator {
  readonly range: IPRange;
  readonly bitmap: Bitmap;
}

export type AllocateIPResult =
  | { readonly ok: true; readonly allocator: IPAllocator }
  | { readonly ok: false; readonly error: ErrNotInRange | ErrAllocated };

export type AllocateNextIPResult =
  | { readonly ok: true; readonly ip: IP; readonly allocator: IPAllocator; readonly rng: Rng }
  | { readonly ok: false; readonly error: ErrFull; readonly rng: Rng };

/** An empty allocator over `cidr` (upstream NewInMemory / NewCIDRRange). */
export function newIPAllocator(cidr: CIDR): IPAllocator {
  const range = ipRangeOf(cidr);
  return { range, bitmap: emptyBitmap(range.max) };
}

/**
 * Takes `ip`: ErrNotInRange when it is outside the CIDR, the network or broadcast address, or
 * beyond the IPv6 cap; ErrAllocated when it is taken.
 */
export function allocateIP(allocator: IPAllocator, ip: IP): AllocateIPResult {
  const offset = ipOffset(allocator.range, ip);
  if (offset < 0) return { ok: false, error: errNotInRange(ip, allocator.range.rangeSpec) };
  if (bitmapHas(allocator.bitmap, offset)) return { ok: false, error: errAllocated };
  return { ok: true, allocator: { range: allocator.range, bitmap: bitmapSet(allocator.bitmap, offset) } };
}

/**
 * Takes a free IP, the dynamic band first (upstream's random scan with offset); ErrFull when
 * none is free. The generator comes back advanced.
 */
export function allocateNextIP(allocator: IPAllocator, rng: Rng): AllocateNextIPResult {
  const next = allocateNextOffset(allocator.bitmap, allocator.range.bandOffset, rng);
  if (!next.ok) return { ok: false, error: errFull, rng: next.rng };
  return {
    ok: true,
    ip: ipAtOffset(allocator.range, next.offset),
    allocator: { range: allocator.range, bitmap: next.bitmap },
    rng: next.rng,
  };
}

/**
 * `count` calls of allocateNextIP in one batch (fewer if the range fills up, then `full` is
 * true): the same IPs in the same order and the same advanced generator, computed on a flat
 * copy of the bitmap. For filling large ranges; O(range size / 32) on top of the allocations.
 */
export function allocateNextIPs(
  allocator: IPAllocator,
  rng: Rng,
  count: number,
): { readonly allocator: IPAllocator; readonly ips: IP[]; readonly rng: Rng; readonly full: boolean } {
  const batch = allocateNextOffsets(allocator.bitmap, allocator.range.bandOffset, rng, count);
  return {
    allocator: batch.bitmap === allocator.bitmap ? allocator : { range: allocator.range, bitmap: batch.bitmap },
    ips: batch.offsets.map((offset) => ipAtOffset(allocator.range, offset)),
    rng: batch.rng,
    full: batch.full,
  };
}

/** Frees `ip`; an IP outside the range or not taken leaves the allocator unchanged (no error). */
export function releaseIP(allocator: IPAllocator, ip: IP): IPAllocator {
  const offset = ipOffset(allocator.range, ip);
  if (offset < 0) return allocator;
  const bitmap = bitmapClear(allocator.bitmap, offset);
  return bitmap === allocator.bitmap ? allocator : { range: allocator.range, bitmap };
}

/** Whether `ip` is taken. */
export function hasIP(allocator: IPAllocator, ip: IP): boolean {
  const offset = ipOffset(allocator.range, ip);
  return offset >= 0 && bitmapHas(allocator.bitmap, offset);
}

/** How many IPs are free. */
export function ipAllocatorFree(allocator: IPAllocator): number {
  return bitmapFree(allocator.bitmap);
}

/** How many IPs are taken (upstream Used = max - Free). */
export function ipAllocatorUsed(allocator: IPAllocator): number {
  return allocator.bitmap.count;
}

/** Calls fn for every taken IP, lowest first. */
export function forEachIP(allocator: IPAllocator, fn: (ip: IP) => void): void {
  bitmapForEach(allocator.bitmap, (offset) => fn(ipAtOffset(allocator.range, offset)));
}

/** The taken IPs, lowest first. */
export function allocatedIPs(allocator: IPAllocator): IP[] {
  const out: IP[] = [];
  forEachIP(allocator, (ip) => out.push(ip));
  return out;
}

/** upstream DryRun().Allocate: checks the range only, allocates nothing. */
export function allocateIPDryRun(allocator: IPAllocator, ip: IP): { readonly ok: true } | { readonly ok: false; readonly error: ErrNotInRange } {
  if (ipOffset(allocator.range, ip) < 0) return { ok: false, error: errNotInRange(ip, allocator.range.rangeSpec) };
  return { ok: true };
}

/** upstream DryRun().AllocateNext: the network address, nothing allocated, no draw. */
export function allocateNextIPDryRun(allocator: IPAllocator): { readonly ok: true; readonly ip: IP } {
  return { ok: true, ip: allocator.range.cidr.network };
}

/** upstream DryRun().Release: nothing. */
export function releaseIPDryRun(allocator: IPAllocator, _ip: IP): IPAllocator {
  return allocator;
}

/** The snapshot's two fields: the CIDR as Go prints it and upstream's bitmap bytes. */
export function ipAllocatorSnapshotData(allocator: IPAllocator): { readonly range: string; readonly data: Uint8Array } {
  return { range: allocator.range.rangeSpec, data: bitmapToBytes(allocator.bitmap) };
}

/**
 * The allocator as the RangeAllocation object the apiserver stores (upstream Snapshot); the
 * rest of `into` (its metadata, with the resourceVersion a compare-and-swap needs) is kept.
 */
export function snapshotIPAllocator(allocator: IPAllocator, into?: RangeAllocation): RangeAllocation {
  return rangeAllocationSnapshot(allocator.range.rangeSpec, allocator.bitmap, into);
}

/**
 * Loads `data` into the allocator's range (upstream Restore): ErrMismatchedNetwork unless
 * `cidr` is the allocator's own network and prefix.
 */
export function restoreIPAllocator(
  allocator: IPAllocator,
  cidr: CIDR,
  data: Uint8Array,
): { readonly ok: true; readonly allocator: IPAllocator } | { readonly ok: false; readonly error: ErrMismatchedNetwork } {
  if (!cidrEquals(cidr, allocator.range.cidr)) return { ok: false, error: errMismatchedNetwork };
  return { ok: true, allocator: { range: allocator.range, bitmap: bitmapFromBytes(allocator.range.max, data) } };
}

/**
 * An allocator from a stored RangeAllocation (upstream NewFromSnapshot): its range, read as
 * the apiserver reads it (ParseCIDRSloppy), and its data.
 */
export function ipAllocatorFromSnapshot(
  snapshot: Pick<RangeAllocation, 'range' | 'data'>,
): { readonly ok: true; readonly allocator: IPAllocator } | { readonly ok: false; readonly error: ErrInvalidSnapshot } {
  const parsed = parseCIDRSloppy(snapshot.range);
  if (!parsed.ok) return { ok: false, error: errInvalidSnapshot(parsed.error) };
  const data = rangeAllocationSnapshotBytes(snapshot);
  if (!data.ok) return data;
  const allocator = newIPAllocator(parsed.value.cidr);
  return { ok: true, allocator: { range: allocator.range, bitmap: bitmapFromBytes(allocator.range.max, data.bytes) } };
}

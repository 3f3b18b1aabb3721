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
  err,
  familyName,
  ok,
  parseCIDRSloppy,
  rangeAllocationSnapshot,
  rangeAllocationSnapshotBytes,
  type AllocatorSnapshot,
  type Bitmap,
  type CIDR,
  type ErrFull,
  type IP,
  type IPFamily,
  type Ok,
  type RangeAllocation,
  type Result,
  type Rng,
  type WithRng,
  snapshotShapeProblem,
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

/**
 * The same shape as portallocator's PortAllocator: `range` holds what the range allows
 * (`rangeSpec`, `base`, `max`, `bandOffset`) and `bitmap` what is taken. `family` is the
 * CIDR's (upstream Interface.IPFamily()).
 */
export interface IPAllocator {
  readonly family: IPFamily;
  readonly range: IPRange;
  readonly bitmap: Bitmap;
}

/** The allocator with `ip` taken. */
export type AllocateIPResult = Result<IPAllocator, ErrNotInRange | ErrAllocated>;

/** The IP taken, the allocator with it and the advanced generator; ErrFull carries the generator too. */
export type AllocateNextIPResult = Result<
  { readonly ip: IP; readonly allocator: IPAllocator; readonly rng: Rng },
  WithRng<ErrFull>
>;

function withBitmap(allocator: IPAllocator, bitmap: Bitmap): IPAllocator {
  return { family: allocator.family, range: allocator.range, bitmap };
}

/** An empty allocator over `cidr` (upstream NewInMemory / NewCIDRRange). */
export function newIPAllocator(cidr: CIDR): IPAllocator {
  const range = ipRangeOf(cidr);
  return { family: familyName(cidr.network.family), range, bitmap: emptyBitmap(range.max) };
}

/**
 * Takes `ip`: ErrNotInRange when it is outside the CIDR, the network or broadcast address, or
 * beyond the IPv6 cap; ErrAllocated when it is taken.
 */
export function allocateIP(allocator: IPAllocator, ip: IP): AllocateIPResult {
  const offset = ipOffset(allocator.range, ip);
  if (offset < 0) return err(errNotInRange(ip, allocator.range.rangeSpec));
  if (bitmapHas(allocator.bitmap, offset)) return err(errAllocated);
  return ok(withBitmap(allocator, bitmapSet(allocator.bitmap, offset)));
}

/**
 * Takes a free IP, the dynamic band first (upstream's random scan with offset); ErrFull when
 * none is free. The generator comes back advanced.
 */
export function allocateNextIP(allocator: IPAllocator, rng: Rng): AllocateNextIPResult {
  const next = allocateNextOffset(allocator.bitmap, allocator.range.bandOffset, rng);
  if (!next.ok) return next;
  return ok({ ip: ipAtOffset(allocator.range, next.value.offset), allocator: withBitmap(allocator, next.value.bitmap), rng: next.value.rng });
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
    allocator: batch.bitmap === allocator.bitmap ? allocator : withBitmap(allocator, batch.bitmap),
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
  return bitmap === allocator.bitmap ? allocator : withBitmap(allocator, bitmap);
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

/** upstream DryRun().Allocate: checks the range only, allocates nothing (the value is the allocator as it was). */
export function allocateIPDryRun(allocator: IPAllocator, ip: IP): Result<IPAllocator, ErrNotInRange> {
  if (ipOffset(allocator.range, ip) < 0) return err(errNotInRange(ip, allocator.range.rangeSpec));
  return ok(allocator);
}

/** upstream DryRun().AllocateNext: the network address, nothing allocated, no draw. */
export function allocateNextIPDryRun(allocator: IPAllocator): Ok<{ readonly ip: IP; readonly allocator: IPAllocator }> {
  return ok({ ip: allocator.range.cidr.network, allocator });
}

/** upstream DryRun().Release: nothing. */
export function releaseIPDryRun(allocator: IPAllocator, _ip: IP): IPAllocator {
  return allocator;
}

/**
 * The snapshot in its bytes form: the CIDR as Go prints it and upstream's bitmap bytes.
 * restoreIPAllocator and ipAllocatorFromSnapshot take it back as it is.
 */
export function ipAllocatorSnapshotData(allocator: IPAllocator): { readonly range: string; readonly data: Uint8Array } {
  return { range: allocator.range.rangeSpec, data: bitmapToBytes(allocator.bitmap) };
}

/**
 * The allocator as the RangeAllocation object the apiserver stores (upstream Snapshot); the
 * rest of `into` (its metadata, with the resourceVersion a compare-and-swap needs) is kept.
 * restoreIPAllocator and ipAllocatorFromSnapshot take it back as it is.
 */
export function snapshotIPAllocator(allocator: IPAllocator, into?: RangeAllocation): RangeAllocation {
  return rangeAllocationSnapshot(allocator.range.rangeSpec, allocator.bitmap, into);
}

function snapshotCIDR(snapshot: AllocatorSnapshot): Result<CIDR, ErrInvalidSnapshot> {
  // The edge of both restores: a snapshot often comes from JSON.
  const problem = snapshotShapeProblem(snapshot);
  if (problem !== undefined) return err(errInvalidSnapshot(problem));
  const parsed = parseCIDRSloppy(snapshot.range);
  return parsed.ok ? ok(parsed.value.cidr) : err(errInvalidSnapshot(parsed.error.message));
}

/**
 * Loads a snapshot into the allocator's range (upstream Restore), in either form
 * snapshotIPAllocator and ipAllocatorSnapshotData give: ErrMismatchedNetwork unless its range
 * is the allocator's own network and prefix, ErrInvalidSnapshot when its range or its base64
 * data cannot be read.
 */
export function restoreIPAllocator(
  allocator: IPAllocator,
  snapshot: AllocatorSnapshot,
): Result<IPAllocator, ErrMismatchedNetwork | ErrInvalidSnapshot> {
  const cidr = snapshotCIDR(snapshot);
  if (!cidr.ok) return cidr;
  if (!cidrEquals(cidr.value, allocator.range.cidr)) return err(errMismatchedNetwork);
  const data = rangeAllocationSnapshotBytes(snapshot);
  if (!data.ok) return data;
  return ok(withBitmap(allocator, bitmapFromBytes(allocator.range.max, data.value)));
}

/**
 * An allocator from a snapshot (upstream NewFromSnapshot), in either form: its range, read as
 * the apiserver reads it (ParseCIDRSloppy), and its data.
 */
export function ipAllocatorFromSnapshot(snapshot: AllocatorSnapshot): Result<IPAllocator, ErrInvalidSnapshot> {
  const cidr = snapshotCIDR(snapshot);
  if (!cidr.ok) return cidr;
  const data = rangeAllocationSnapshotBytes(snapshot);
  if (!data.ok) return data;
  const allocator = newIPAllocator(cidr.value);
  return ok(withBitmap(allocator, bitmapFromBytes(allocator.range.max, data.value)));
}

// The NodePort allocator as a persistent value: every operation returns a new allocator and
// leaves the one it was given as it was. The bitmap is api-types' shared persistent bitmap.
// upstream: pkg/registry/core/service/portallocator/allocator.go (PortAllocator: Allocate,
//           AllocateNext, Release, Has, Free, Used, ForEach, Snapshot, Restore,
//           NewFromSnapshot, DryRun)
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
  emptyBitmap,
  err,
  ok,
  rangeAllocationSnapshot,
  rangeAllocationSnapshotBytes,
  type AllocatorSnapshot,
  type Bitmap,
  type ErrFull,
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
import { formatPortRange, parsePortRange, portAllocatorRangeOf, portRangeContains, type PortAllocatorRange, type PortRange } from './port-range.js';

/**
 * The same shape as ipallocator's IPAllocator: `range` holds what the range allows
 * (`rangeSpec`, `base`, `max`, `bandOffset`) and `bitmap` what is taken.
 */
export interface PortAllocator {
  readonly range: PortAllocatorRange;
  readonly bitmap: Bitmap;
}

/** The allocator with `port` taken. */
export type AllocatePortResult = Result<PortAllocator, ErrNotInRange | ErrAllocated>;

/** The port taken, the allocator with it and the advanced generator; ErrFull carries the generator too. */
export type AllocateNextPortResult = Result<
  { readonly port: number; readonly allocator: PortAllocator; readonly rng: Rng },
  WithRng<ErrFull>
>;

function withBitmap(allocator: PortAllocator, bitmap: Bitmap): PortAllocator {
  return { range: allocator.range, bitmap };
}

/** An empty allocator over the range (upstream NewInMemory); every port in it can be allocated. */
export function newPortAllocator(portRange: PortRange): PortAllocator {
  const range = portAllocatorRangeOf(portRange);
  return { range, bitmap: emptyBitmap(range.max) };
}

function offsetOf(allocator: PortAllocator, port: number): number {
  return Number.isInteger(port) && portRangeContains(allocator.range.portRange, port) ? port - allocator.range.base : -1;
}

/** Takes `port`: ErrNotInRange outside the range, ErrAllocated when it is taken. */
export function allocatePort(allocator: PortAllocator, port: number): AllocatePortResult {
  const offset = offsetOf(allocator, port);
  if (offset < 0) return err(errNotInRange(allocator.range.rangeSpec));
  if (bitmapHas(allocator.bitmap, offset)) return err(errAllocated);
  return ok(withBitmap(allocator, bitmapSet(allocator.bitmap, offset)));
}

/** Takes a free port, the dynamic band first; ErrFull when none is free. */
export function allocateNextPort(allocator: PortAllocator, rng: Rng): AllocateNextPortResult {
  const next = allocateNextOffset(allocator.bitmap, allocator.range.bandOffset, rng);
  if (!next.ok) return next;
  return ok({ port: allocator.range.base + next.value.offset, allocator: withBitmap(allocator, next.value.bitmap), rng: next.value.rng });
}

/**
 * `count` calls of allocateNextPort in one batch (fewer if the range fills up, then `full` is
 * true): the same ports in the same order and the same advanced generator.
 */
export function allocateNextPorts(
  allocator: PortAllocator,
  rng: Rng,
  count: number,
): { readonly allocator: PortAllocator; readonly ports: number[]; readonly rng: Rng; readonly full: boolean } {
  const batch = allocateNextOffsets(allocator.bitmap, allocator.range.bandOffset, rng, count);
  return {
    allocator: batch.bitmap === allocator.bitmap ? allocator : withBitmap(allocator, batch.bitmap),
    ports: batch.offsets.map((offset) => allocator.range.base + offset),
    rng: batch.rng,
    full: batch.full,
  };
}

/**
 * Frees `port`. A port outside the range (upstream logs "port is not in the range when release
 * it") or not taken leaves the allocator unchanged.
 */
export function releasePort(allocator: PortAllocator, port: number): PortAllocator {
  const offset = offsetOf(allocator, port);
  if (offset < 0) return allocator;
  const bitmap = bitmapClear(allocator.bitmap, offset);
  return bitmap === allocator.bitmap ? allocator : withBitmap(allocator, bitmap);
}

export function hasPort(allocator: PortAllocator, port: number): boolean {
  const offset = offsetOf(allocator, port);
  return offset >= 0 && bitmapHas(allocator.bitmap, offset);
}

export function portAllocatorFree(allocator: PortAllocator): number {
  return bitmapFree(allocator.bitmap);
}

export function portAllocatorUsed(allocator: PortAllocator): number {
  return allocator.bitmap.count;
}

/** Calls fn for every taken port, lowest first. */
export function forEachPort(allocator: PortAllocator, fn: (port: number) => void): void {
  bitmapForEach(allocator.bitmap, (offset) => fn(allocator.range.base + offset));
}

export function allocatedPorts(allocator: PortAllocator): number[] {
  const out: number[] = [];
  forEachPort(allocator, (port) => out.push(port));
  return out;
}

/**
 * A dry-run allocation as the apiserver makes it for `?dryRun=All` (upstream:
 * pkg/registry/core/service/portallocator/operation.go, PortAllocationOperation with dryRun):
 * ErrAllocated when the port is taken or already among `pending`, the ports this operation has
 * handed out so far; nothing else is checked, not even the range. The value is the allocator,
 * unchanged. The caller adds the port to `pending` on success.
 */
export function allocatePortDryRun(allocator: PortAllocator, port: number, pending: readonly number[] = []): Result<PortAllocator, ErrAllocated> {
  return hasPort(allocator, port) || pending.includes(port) ? err(errAllocated) : ok(allocator);
}

/**
 * The dummy port a dry-run automatic allocation hands out (upstream operation.go): one above the
 * highest of `pending`, or 32769 for the first; below 100 the first port from there that a
 * dry-run allocation would accept.
 */
export function allocateNextPortDryRun(
  allocator: PortAllocator,
  pending: readonly number[] = [],
): Ok<{ readonly port: number; readonly allocator: PortAllocator }> {
  const last = pending.length === 0 ? 32768 : Math.max(0, ...pending);
  for (let port = last + 1; port < 100; port++) {
    if (allocatePortDryRun(allocator, port, pending).ok) return ok({ port, allocator });
  }
  return ok({ port: last + 1, allocator });
}

/** A dry-run release changes nothing. */
export function releasePortDryRun(allocator: PortAllocator, _port: number): PortAllocator {
  return allocator;
}

/**
 * The snapshot in its bytes form: the range as PortRange.String() prints it and upstream's
 * bitmap bytes. restorePortAllocator and portAllocatorFromSnapshot take it back as it is.
 */
export function portAllocatorSnapshotData(allocator: PortAllocator): { readonly range: string; readonly data: Uint8Array } {
  return { range: allocator.range.rangeSpec, data: bitmapToBytes(allocator.bitmap) };
}

/**
 * The allocator as the stored RangeAllocation (upstream Snapshot); `into`'s metadata is kept.
 * restorePortAllocator and portAllocatorFromSnapshot take it back as it is.
 */
export function snapshotPortAllocator(allocator: PortAllocator, into?: RangeAllocation): RangeAllocation {
  return rangeAllocationSnapshot(allocator.range.rangeSpec, allocator.bitmap, into);
}

function snapshotRange(snapshot: AllocatorSnapshot): Result<PortRange, ErrInvalidSnapshot> {
  // The edge of both restores: a snapshot often comes from JSON.
  const problem = snapshotShapeProblem(snapshot);
  if (problem !== undefined) return err(errInvalidSnapshot(problem));
  const parsed = parsePortRange(snapshot.range);
  return parsed.ok ? parsed : err(errInvalidSnapshot(parsed.error.message));
}

/**
 * Loads a snapshot into the allocator's range (upstream Restore), in either form
 * snapshotPortAllocator and portAllocatorSnapshotData give: ErrMismatchedNetwork unless its
 * range prints as the allocator's own, ErrInvalidSnapshot when its range or its base64 data
 * cannot be read.
 */
export function restorePortAllocator(
  allocator: PortAllocator,
  snapshot: AllocatorSnapshot,
): Result<PortAllocator, ErrMismatchedNetwork | ErrInvalidSnapshot> {
  const portRange = snapshotRange(snapshot);
  if (!portRange.ok) return portRange;
  if (formatPortRange(portRange.value) !== allocator.range.rangeSpec) return err(errMismatchedNetwork);
  const data = rangeAllocationSnapshotBytes(snapshot);
  if (!data.ok) return data;
  return ok(withBitmap(allocator, bitmapFromBytes(allocator.range.max, data.value)));
}

/** upstream NewFromSnapshot, in either form: the range parsed with ParsePortRange, then the data. */
export function portAllocatorFromSnapshot(snapshot: AllocatorSnapshot): Result<PortAllocator, ErrInvalidSnapshot> {
  const portRange = snapshotRange(snapshot);
  if (!portRange.ok) return portRange;
  const data = rangeAllocationSnapshotBytes(snapshot);
  if (!data.ok) return data;
  const allocator = newPortAllocator(portRange.value);
  return ok(withBitmap(allocator, bitmapFromBytes(allocator.range.max, data.value)));
}

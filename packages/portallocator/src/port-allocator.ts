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
  errFull,
  rangeAllocationSnapshot,
  rangeAllocationSnapshotBytes,
  type Bitmap,
  type ErrFull,
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
import { calculatePortRangeOffset, formatPortRange, parsePortRange, portRangeContains, type PortRange } from './port-range.js';

export interface PortAllocator {
  readonly portRange: PortRange;
  /** formatPortRange(portRange): the RangeAllocation's `range` and ErrNotInRange's valid ports. */
  readonly rangeSpec: string;
  /** Offsets [0, bandOffset) are the static band: automatic allocation uses them last. */
  readonly bandOffset: number;
  readonly bitmap: Bitmap;
}

export type AllocatePortResult =
  | { readonly ok: true; readonly allocator: PortAllocator }
  | { readonly ok: false; readonly error: ErrNotInRange | ErrAllocated };

export type AllocateNextPortResult =
  | { readonly ok: true; readonly port: number; readonly allocator: PortAllocator; readonly rng: Rng }
  | { readonly ok: false; readonly error: ErrFull; readonly rng: Rng };

function withBitmap(allocator: PortAllocator, bitmap: Bitmap): PortAllocator {
  return { portRange: allocator.portRange, rangeSpec: allocator.rangeSpec, bandOffset: allocator.bandOffset, bitmap };
}

/** An empty allocator over the range (upstream NewInMemory); every port in it can be allocated. */
export function newPortAllocator(portRange: PortRange): PortAllocator {
  return {
    portRange,
    rangeSpec: formatPortRange(portRange),
    bandOffset: calculatePortRangeOffset(portRange),
    bitmap: emptyBitmap(portRange.size),
  };
}

function offsetOf(allocator: PortAllocator, port: number): number {
  return Number.isInteger(port) && portRangeContains(allocator.portRange, port) ? port - allocator.portRange.base : -1;
}

/** Takes `port`: ErrNotInRange outside the range, ErrAllocated when it is taken. */
export function allocatePort(allocator: PortAllocator, port: number): AllocatePortResult {
  const offset = offsetOf(allocator, port);
  if (offset < 0) return { ok: false, error: errNotInRange(allocator.rangeSpec) };
  if (bitmapHas(allocator.bitmap, offset)) return { ok: false, error: errAllocated };
  return { ok: true, allocator: withBitmap(allocator, bitmapSet(allocator.bitmap, offset)) };
}

/** Takes a free port, the dynamic band first; ErrFull when none is free. */
export function allocateNextPort(allocator: PortAllocator, rng: Rng): AllocateNextPortResult {
  const next = allocateNextOffset(allocator.bitmap, allocator.bandOffset, rng);
  if (!next.ok) return { ok: false, error: errFull, rng: next.rng };
  return { ok: true, port: allocator.portRange.base + next.offset, allocator: withBitmap(allocator, next.bitmap), rng: next.rng };
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
  const batch = allocateNextOffsets(allocator.bitmap, allocator.bandOffset, rng, count);
  return {
    allocator: batch.bitmap === allocator.bitmap ? allocator : withBitmap(allocator, batch.bitmap),
    ports: batch.offsets.map((offset) => allocator.portRange.base + offset),
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
  bitmapForEach(allocator.bitmap, (offset) => fn(allocator.portRange.base + offset));
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
 * handed out so far; nothing else is checked, not even the range. The caller adds the port to
 * `pending` on success.
 */
export function allocatePortDryRun(
  allocator: PortAllocator,
  port: number,
  pending: readonly number[] = [],
): { readonly ok: true } | { readonly ok: false; readonly error: ErrAllocated } {
  return hasPort(allocator, port) || pending.includes(port) ? { ok: false, error: errAllocated } : { ok: true };
}

/**
 * The dummy port a dry-run automatic allocation hands out (upstream operation.go): one above the
 * highest of `pending`, or 32769 for the first; below 100 the first port from there that a
 * dry-run allocation would accept.
 */
export function allocateNextPortDryRun(allocator: PortAllocator, pending: readonly number[] = []): { readonly ok: true; readonly port: number } {
  const last = pending.length === 0 ? 32768 : Math.max(0, ...pending);
  for (let port = last + 1; port < 100; port++) {
    if (allocatePortDryRun(allocator, port, pending).ok) return { ok: true, port };
  }
  return { ok: true, port: last + 1 };
}

/** A dry-run release changes nothing. */
export function releasePortDryRun(allocator: PortAllocator, _port: number): PortAllocator {
  return allocator;
}

export function portAllocatorSnapshotData(allocator: PortAllocator): { readonly range: string; readonly data: Uint8Array } {
  return { range: allocator.rangeSpec, data: bitmapToBytes(allocator.bitmap) };
}

/** The allocator as the stored RangeAllocation (upstream Snapshot); `into`'s metadata is kept. */
export function snapshotPortAllocator(allocator: PortAllocator, into?: RangeAllocation): RangeAllocation {
  return rangeAllocationSnapshot(allocator.rangeSpec, allocator.bitmap, into);
}

/** upstream Restore: ErrMismatchedNetwork unless `portRange` prints as the allocator's own. */
export function restorePortAllocator(
  allocator: PortAllocator,
  portRange: PortRange,
  data: Uint8Array,
): { readonly ok: true; readonly allocator: PortAllocator } | { readonly ok: false; readonly error: ErrMismatchedNetwork } {
  if (formatPortRange(portRange) !== allocator.rangeSpec) return { ok: false, error: errMismatchedNetwork };
  return { ok: true, allocator: withBitmap(allocator, bitmapFromBytes(allocator.portRange.size, data)) };
}

/** upstream NewFromSnapshot: the range parsed with ParsePortRange, then the data. */
export function portAllocatorFromSnapshot(
  snapshot: Pick<RangeAllocation, 'range' | 'data'>,
): { readonly ok: true; readonly allocator: PortAllocator } | { readonly ok: false; readonly error: ErrInvalidSnapshot } {
  const parsed = parsePortRange(snapshot.range);
  if (!parsed.ok) return { ok: false, error: errInvalidSnapshot(parsed.error.message) };
  const data = rangeAllocationSnapshotBytes(snapshot);
  if (!data.ok) return data;
  const allocator = newPortAllocator(parsed.range);
  return { ok: true, allocator: withBitmap(allocator, bitmapFromBytes(parsed.range.size, data.bytes)) };
}

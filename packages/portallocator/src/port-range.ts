// PortRange as apimachinery parses and prints it (the --service-node-port-range flag): the
// parser is api-types' (the one parser of the Service networking flags), re-exported here for
// the allocator's callers; what an allocator over a range needs is this file's own.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/net/port_range.go,
//           pkg/registry/core/service/portallocator/allocator.go (calculateRangeOffset)
import { formatPortRange, type PortRange } from '@kubesvc/api-types';

export type { ErrPortRange, ParsePortRangeResult, PortRange } from '@kubesvc/api-types';
export { DEFAULT_NODE_PORT_RANGE, formatPortRange, parsePortRange, portRangeContains } from '@kubesvc/api-types';

/**
 * What a port range allows, in the same shape and under the same names as ipallocator's
 * IPRange: offset k is the port `base + k`, for k in [0, max).
 */
export interface PortAllocatorRange {
  readonly portRange: PortRange;
  /** formatPortRange(portRange): the RangeAllocation's `range` and ErrNotInRange's valid ports. */
  readonly rangeSpec: string;
  /** The port of offset 0. */
  readonly base: number;
  /** How many ports can be allocated: offsets [0, max). */
  readonly max: number;
  /** Offsets [0, bandOffset) are the static band: automatic allocation uses them last. */
  readonly bandOffset: number;
}

/**
 * upstream calculateRangeOffset (portallocator): min(max(16, size / 32), 128), and 0 when
 * size <= 16. 86 for 30000-32767.
 */
export function calculatePortRangeOffset(range: PortRange): number {
  if (range.size <= 16) return 0;
  return Math.min(Math.max(16, Math.floor(range.size / 32)), 128);
}

/** The range an allocator over `portRange` works with (upstream NewPortAllocatorCustom). */
export function portAllocatorRangeOf(portRange: PortRange): PortAllocatorRange {
  return {
    portRange,
    rangeSpec: formatPortRange(portRange),
    base: portRange.base,
    max: portRange.size,
    bandOffset: calculatePortRangeOffset(portRange),
  };
}

// Which addresses of a CIDR the ClusterIP allocator hands out, and where its static band ends.
// upstream: pkg/registry/core/service/ipallocator/bitmap.go (New, calculateRangeOffset),
//           k8s.io/utils/net RangeSize as vendored by kubernetes/kubernetes
import { formatCIDR, rangeSize, type CIDR, type IP } from '@kubesvc/api-types';

/** The bitmap of IPv6 ranges is capped at 2^16 offsets. */
export const IPV6_RANGE_CAP = 65536;

export interface IPRange {
  readonly cidr: CIDR;
  /** The CIDR as Go prints it, the RangeAllocation's `range` and ErrNotInRange's valid range. */
  readonly rangeSpec: string;
  /** The address of offset 0: network + 1. */
  readonly base: bigint;
  /** How many addresses can be allocated: offsets [0, max). */
  readonly max: number;
  /** Offsets [0, bandOffset) are the static band: automatic allocation uses them last. */
  readonly bandOffset: number;
}

/**
 * upstream calculateRangeOffset: min(max(16, size / 16), 256), and 0 when size <= 16, where
 * size is RangeSize of the CIDR before reservations (and before the IPv6 cap).
 */
export function calculateIPRangeOffset(cidr: CIDR): number {
  const size = rangeSize(cidr);
  if (size <= 16n) return 0;
  const offset = size / 16n;
  if (offset < 16n) return 16;
  if (offset > 256n) return 256;
  return Number(offset);
}

/**
 * The range over `cidr` with upstream's reservations: IPv6 is capped at 65536 addresses, IPv4
 * loses its broadcast address, and both lose the network address. /0 and /1 (RangeSize 0),
 * IPv4 /31 and /32 and IPv6 /128 have nothing to allocate; IPv6 /127 has only network + 1.
 */
export function ipRangeOf(cidr: CIDR): IPRange {
  const size = rangeSize(cidr);
  let max: bigint = size;
  if (cidr.network.family === 6) {
    if (max > BigInt(IPV6_RANGE_CAP)) max = BigInt(IPV6_RANGE_CAP);
  } else {
    max -= 1n;
  }
  max -= 1n;
  if (max < 0n) max = 0n;
  return {
    cidr,
    rangeSpec: formatCIDR(cidr),
    base: cidr.network.value + 1n,
    max: Number(max),
    bandOffset: calculateIPRangeOffset(cidr),
  };
}

/** The offset of `ip` in the range, or -1 when it is not allocatable there (upstream contains). */
export function ipOffset(range: IPRange, ip: IP): number {
  if (ip.family !== range.cidr.network.family) return -1;
  const offset = ip.value - range.base;
  if (offset < 0n || offset >= BigInt(range.max)) return -1;
  return Number(offset);
}

/** The address at `offset` (0 <= offset < max). */
export function ipAtOffset(range: IPRange, offset: number): IP {
  return { family: range.cidr.network.family, value: range.base + BigInt(offset) };
}

// Offset <-> address arithmetic inside a block, for any prefix length. Offset k names the
// address network + k; the valid offsets are 0 .. size - 1. The allocators keep their bitmaps
// in offsets and convert only at the edges.

import { formatCIDR, cidrContains, type CIDR } from './cidr.js';
import { cidrSize } from './cidr-size.js';
import { formatIP, isIPv4MappedValue, type IP } from './ip.js';
import { ok, type Result } from '../result.js';
import { netError, type ErrNotInSubnet, type ErrSubnetTooSmall } from './errors.js';

function toBigIntOffset(offset: bigint | number): bigint {
  if (typeof offset === 'bigint') return offset;
  if (!Number.isSafeInteger(offset)) throw new RangeError(`offset must be a safe integer, got ${offset}`);
  return BigInt(offset);
}

/**
 * The address at `offset` from the network address, or an error when it is not inside the
 * block. Mirrors netutils.GetIndexedIP and its error text (upstream: k8s.io/utils/net/net.go),
 * including its one IPv6 surprise: an offset that lands in ::ffff:0:0/96 inside a block such
 * as ::/64 is an error, because Go's Contains sees that address as IPv4.
 *
 * Deviation: a negative offset is always an error. Upstream adds it to a big.Int and keeps
 * Bytes(), the absolute value, so GetIndexedIP(::/64, -5) returns ::5.
 *
 * Throws RangeError when a number offset is not a safe integer (a programmer error).
 */
export function addressAtOffset(cidr: CIDR, offset: bigint | number): Result<IP, ErrSubnetTooSmall> {
  const k = toBigIntOffset(offset);
  const value = cidr.network.value + k;
  if (k < 0n || k >= cidrSize(cidr) || (cidr.network.family === 6 && isIPv4MappedValue(value))) {
    return netError(
      'ErrSubnetTooSmall',
      `can't generate IP with index ${k} from subnet. subnet too small. subnet: "${formatCIDR(cidr)}"`,
    );
  }
  return ok({ family: cidr.network.family, value });
}

/** Upstream's name for addressAtOffset (k8s.io/utils/net GetIndexedIP(subnet, index)). */
export function getIndexedIP(cidr: CIDR, index: bigint | number): Result<IP, ErrSubnetTooSmall> {
  return addressAtOffset(cidr, index);
}

/** The offset of `ip` from the network address, or an error when the block does not contain it. */
export function offsetOf(cidr: CIDR, ip: IP): Result<bigint, ErrNotInSubnet> {
  if (!cidrContains(cidr, ip)) {
    return netError('ErrNotInSubnet', `IP ${formatIP(ip)} is not in subnet "${formatCIDR(cidr)}"`);
  }
  return ok(ip.value - cidr.network.value);
}

// How many addresses a block holds: exactly, capped to a number, and as Kubernetes counts it.

import type { CIDR } from './cidr.js';
import { familyBits } from './ip.js';

/** int64's maximum, where RangeSize saturates. */
const MAX_INT64 = (1n << 63n) - 1n;

function hostBits(cidr: CIDR): number {
  return familyBits(cidr.network.family) - cidr.prefix;
}

/** 2^(host bits), exactly: 256n for a /24, 2n ** 128n for ::/0. */
export function cidrSize(cidr: CIDR): bigint {
  return 1n << BigInt(hostBits(cidr));
}

/** The block's last address value, every host bit set (IPv4's broadcast address; upstream broadcastAddress). */
export function cidrLastValue(cidr: CIDR): bigint {
  return cidr.network.value + cidrSize(cidr) - 1n;
}

/**
 * min(2^(host bits), cap) as a number, for allocators that size a bitmap (ipallocator caps
 * IPv6 ranges at 65536). Every power of two up to 2^128 is an exact double, so the only
 * rounding is the cap. Throws RangeError unless cap is a non-negative safe integer.
 */
export function cidrSizeCapped(cidr: CIDR, cap: number = Number.MAX_SAFE_INTEGER): number {
  if (!Number.isSafeInteger(cap) || cap < 0) throw new RangeError(`cap must be a non-negative safe integer, got ${cap}`);
  return Math.min(2 ** hostBits(cidr), cap);
}

/**
 * netutils.RangeSize as the service IP allocator and ServiceIPRange call it (upstream:
 * k8s.io/utils/net/net.go, as vendored by kubernetes/kubernetes vendor/k8s.io/utils/net/net.go):
 * 0 for IPv4 with 31 or more host bits (/0, /1) and for IPv6 with 127 or more (/0, /1);
 * int64's maximum, 2^63 - 1, from 63 host bits up; otherwise 2^(host bits).
 * Later k8s.io/utils (RangeSizeU64) dropped the zero cases; kubesvc follows the version above,
 * whose zero makes ServiceIPRange reject /0 and /1 ("must be at least 8 IP addresses").
 */
export function rangeSize(cidr: CIDR): bigint {
  const host = hostBits(cidr);
  const bits = familyBits(cidr.network.family);
  if (host >= bits - 1) return 0n;
  if (host >= 63) return MAX_INT64;
  return 1n << BigInt(host);
}

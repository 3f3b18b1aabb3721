// Address classes, as Go's net.IP methods define them (upstream: Go src/net/ip.go). Kubernetes
// validation rejects endpoint IPs by these exact definitions (ValidateNonSpecialIP in
// pkg/apis/core/validation/validation.go), so the ranges follow Go, not the RFCs: for IPv6
// link-local multicast Go looks only at the scope nibble (ffX2::/16 for every flag nibble X).
// IPv4-mapped IPv6 addresses are already family 4 here, which is what Go's To4() does first.

import type { IP } from './ip.js';

/** The top 16 bits of an IPv6 value. */
function top16(ip: IP): number {
  return Number(ip.value >> 112n);
}

/** 0.0.0.0 or ::. */
export function isUnspecified(ip: IP): boolean {
  return ip.value === 0n;
}

/** 127.0.0.0/8, or exactly ::1. */
export function isLoopback(ip: IP): boolean {
  return ip.family === 4 ? ip.value >> 24n === 127n : ip.value === 1n;
}

/** 224.0.0.0/4, or ff00::/8. */
export function isMulticast(ip: IP): boolean {
  return ip.family === 4 ? ip.value >> 28n === 0xen : top16(ip) >> 8 === 0xff;
}

/** IPv6 only: ff01::/16 with any flag nibble (ffX1::). */
export function isInterfaceLocalMulticast(ip: IP): boolean {
  return ip.family === 6 && (top16(ip) & 0xff0f) === 0xff01;
}

/** 224.0.0.0/24, or ffX2::/16 for any flag nibble X (Go tests the scope nibble only). */
export function isLinkLocalMulticast(ip: IP): boolean {
  return ip.family === 4 ? ip.value >> 8n === 0xe0_00_00n : (top16(ip) & 0xff0f) === 0xff02;
}

/** 169.254.0.0/16, or fe80::/10. */
export function isLinkLocalUnicast(ip: IP): boolean {
  return ip.family === 4 ? ip.value >> 16n === 0xa9_fen : (top16(ip) & 0xffc0) === 0xfe80;
}

/** 10.0.0.0/8, 172.16.0.0/12, 192.168.0.0/16, or fc00::/7 (Go's IsPrivate, RFC 1918 and 4193). */
export function isPrivate(ip: IP): boolean {
  if (ip.family === 6) return top16(ip) >> 9 === 0xfc >> 1;
  const v = Number(ip.value);
  return v >>> 24 === 10 || v >>> 20 === 0xac1 || v >>> 16 === 0xc0a8;
}

/**
 * Go's IsGlobalUnicast: none of the classes above except private, and not the IPv4 limited
 * broadcast address 255.255.255.255.
 */
export function isGlobalUnicast(ip: IP): boolean {
  if (ip.family === 4 && ip.value === 0xffff_ffffn) return false;
  return !isUnspecified(ip) && !isLoopback(ip) && !isMulticast(ip) && !isLinkLocalUnicast(ip);
}

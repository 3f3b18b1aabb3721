// IP addresses as Go's net package reads and prints them.
//
// Representation: `{ family, value }`, where `value` is the address as an unsigned integer
// (32 bits for family 4, 128 bits for family 6). A plain object of two fields is cheap to
// build, compare and key on (`${family}/${value}`), and readonly by type. Values must come
// from the parsers or constructors here, which keep one canonical form per address:
//
// - IPv4-mapped IPv6 addresses (::ffff:0:0/96) are family 4. Go's ParseIP returns them in
//   16-byte form, and To4(), String(), Equal() and IPNet.Contains() all treat them as IPv4
//   (upstream: Go src/net/ip.go), so a family-6 value never lies in ::ffff:0:0/96.
// - Zones (`fe80::1%eth0`) are rejected: net.ParseIP refuses them (src/net/ip.go parseIP).

import { ok, type Result } from '../result.js';
import { netError, type ErrInvalidIP } from './errors.js';

/** 4 or 6. The API's own spelling ("IPv4", "IPv6" in spec.ipFamilies) is familyName(). */
export type IPVersion = 4 | 6;

export interface IP {
  readonly family: IPVersion;
  readonly value: bigint;
}

const MAX_V4 = 0xffff_ffff;
const MAX_V6 = (1n << 128n) - 1n;
/** ::ffff:0.0.0.0, the first IPv4-mapped IPv6 address. */
export const MAPPED_BASE = 0xffffn << 32n;
const MAPPED_TOP = MAPPED_BASE | 0xffff_ffffn;

const DOT = 0x2e;
const COLON = 0x3a;

/** Bits in an address of the family: 32 or 128. */
export function familyBits(family: IPVersion): 32 | 128 {
  return family === 4 ? 32 : 128;
}

/** True for a 128-bit value that Go would print and compare as IPv4. */
export function isIPv4MappedValue(value: bigint): boolean {
  return value >= MAPPED_BASE && value <= MAPPED_TOP;
}

/**
 * Builds an address from its integer value. A family-6 value in ::ffff:0:0/96 becomes the
 * IPv4 address it maps, as Go's 16-byte net.IP would. Throws RangeError for a value outside
 * the family: that is a programmer error, not bad input.
 */
export function ipFromBigInt(family: IPVersion, value: bigint): IP {
  if (family === 4) {
    if (value < 0n || value > BigInt(MAX_V4)) throw new RangeError(`IPv4 value out of range: ${value}`);
    return { family: 4, value };
  }
  if (value < 0n || value > MAX_V6) throw new RangeError(`IPv6 value out of range: ${value}`);
  if (isIPv4MappedValue(value)) return { family: 4, value: value - MAPPED_BASE };
  return { family: 6, value };
}

/** Builds an IPv4 address from a 32-bit unsigned number (the allocators' hot-loop form). */
export function ipv4FromNumber(value: number): IP {
  if (!Number.isInteger(value) || value < 0 || value > MAX_V4) {
    throw new RangeError(`IPv4 value out of range: ${value}`);
  }
  return { family: 4, value: BigInt(value) };
}

function hexDigit(c: number): number {
  if (c >= 0x30 && c <= 0x39) return c - 0x30;
  if (c >= 0x61 && c <= 0x66) return c - 0x61 + 10;
  if (c >= 0x41 && c <= 0x46) return c - 0x41 + 10;
  return -1;
}

/**
 * Parses s[start..end) as a dotted quad; returns the 32-bit value or -1.
 * Strict follows netip.parseIPv4 (Go >= 1.17 ParseIP): no leading zeros, so "010.1.1.1"
 * is not silently read as octal or decimal. Sloppy follows the Go 1.16 parser that
 * Kubernetes forked (upstream: k8s.io/utils/internal/third_party/forked/golang/net/ip.go):
 * any number of leading zeros, read as DECIMAL ("010" is 10), because stored objects may
 * hold such values (https://issue.k8s.io/100895).
 */
function parseV4(s: string, start: number, end: number, sloppy: boolean): number {
  let result = 0;
  let p = start;
  for (let field = 0; field < 4; field++) {
    if (field > 0) {
      if (p >= end || s.charCodeAt(p) !== DOT) return -1;
      p++;
    }
    const first = p;
    let n = 0;
    while (p < end) {
      const c = s.charCodeAt(p);
      if (c < 0x30 || c > 0x39) break;
      if (!sloppy && p > first && n === 0) return -1;
      n = n * 10 + (c - 0x30);
      // Go's dtoi gives up at 0xFFFFFF; either way the octet is over 255.
      if (n > 255) return -1;
      p++;
    }
    if (p === first) return -1;
    result = result * 256 + n;
  }
  return p === end ? result : -1;
}

/**
 * Parses an IPv6 literal (RFC 4291 text, optional trailing dotted quad, one "::").
 * Strict follows netip.parseIPv6, which current net.ParseIP uses: at most 4 hex digits a group
 * ("each group must have 4 or less digits"). Sloppy follows the forked Go 1.16 parser, whose
 * xtoi takes any number of leading zeros in a group as long as the value fits 16 bits (so
 * did net.ParseIP itself before it moved onto netip).
 */
function parseV6(s: string, sloppy: boolean): IP | undefined {
  const groups = [0, 0, 0, 0, 0, 0, 0, 0];
  const end = s.length;
  let ellipsis = -1;
  let p = 0;
  if (end >= 2 && s.charCodeAt(0) === COLON && s.charCodeAt(1) === COLON) {
    ellipsis = 0;
    p = 2;
    if (p === end) return { family: 6, value: 0n };
  }
  let g = 0;
  while (g < 8) {
    const first = p;
    let acc = 0;
    while (p < end) {
      const d = hexDigit(s.charCodeAt(p));
      if (d < 0) break;
      if (!sloppy && p - first >= 4) return undefined;
      acc = acc * 16 + d;
      if (acc > 0xffff) return undefined;
      p++;
    }
    if (p === first) return undefined;

    if (p < end && s.charCodeAt(p) === DOT) {
      // A dotted quad may only stand for the last two groups.
      if (ellipsis < 0 && g !== 6) return undefined;
      if (g + 2 > 8) return undefined;
      const v4 = parseV4(s, first, end, sloppy);
      if (v4 < 0) return undefined;
      groups[g] = Math.floor(v4 / 0x10000);
      groups[g + 1] = v4 % 0x10000;
      g += 2;
      p = end;
      break;
    }

    groups[g] = acc;
    g++;
    if (p === end) break;
    if (s.charCodeAt(p) !== COLON || p + 1 === end) return undefined;
    p++;
    if (s.charCodeAt(p) === COLON) {
      if (ellipsis >= 0) return undefined;
      ellipsis = g;
      p++;
      if (p === end) break;
    }
  }
  if (p !== end) return undefined;

  if (g < 8) {
    if (ellipsis < 0) return undefined;
    const shift = 8 - g;
    for (let j = g - 1; j >= ellipsis; j--) groups[j + shift] = groups[j] ?? 0;
    for (let j = ellipsis; j < ellipsis + shift; j++) groups[j] = 0;
  } else if (ellipsis >= 0) {
    // "::" must stand for at least one zero group.
    return undefined;
  }

  const w0 = (groups[0] ?? 0) * 0x10000 + (groups[1] ?? 0);
  const w1 = (groups[2] ?? 0) * 0x10000 + (groups[3] ?? 0);
  const w2 = (groups[4] ?? 0) * 0x10000 + (groups[5] ?? 0);
  const w3 = (groups[6] ?? 0) * 0x10000 + (groups[7] ?? 0);
  if (w0 === 0 && w1 === 0 && w2 === 0xffff) return { family: 4, value: BigInt(w3) };
  return {
    family: 6,
    value: (BigInt(w0) << 96n) | (BigInt(w1) << 64n) | (BigInt(w2) << 32n) | BigInt(w3),
  };
}

/**
 * The shared core of parseIP and parseIPSloppy. Like Go, the first '.' or ':' decides the
 * syntax; a '%' (zone) is never valid in either, so it fails wherever it appears.
 */
export function parseAddress(s: string, sloppy: boolean): IP | undefined {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === DOT) {
      const v4 = parseV4(s, 0, s.length, sloppy);
      return v4 < 0 ? undefined : { family: 4, value: BigInt(v4) };
    }
    if (c === COLON) return parseV6(s, sloppy);
  }
  return undefined;
}

/**
 * Go's net.ParseIP as it is today, netip.ParseAddr without a zone (upstream: Go src/net/ip.go,
 * src/net/netip/netip.go): rejects leading zeros in IPv4 octets (since Go 1.17), IPv6 groups
 * of more than 4 digits, and zones.
 * The error text is Go's ParseError for an "IP address".
 */
export function parseIP(s: string): Result<IP, ErrInvalidIP> {
  const ip = parseAddress(s, false);
  return ip === undefined ? netError('ErrInvalidIP', `invalid IP address: ${s}`) : ok(ip);
}

/**
 * netutils.ParseIPSloppy (upstream: k8s.io/utils/net/parse.go, which is the forked Go 1.16
 * parser in k8s.io/utils/internal/third_party/forked/golang/net/ip.go). What the apiserver
 * validates IP fields with (apimachinery validation/ip.go IsValidIP): accepts IPv4 octets
 * with leading zeros, read as decimal ("010.1.1.1" is 10.1.1.1), and zero-padded IPv6
 * groups. Everything else is as parseIP.
 */
export function parseIPSloppy(s: string): Result<IP, ErrInvalidIP> {
  const ip = parseAddress(s, true);
  return ip === undefined ? netError('ErrInvalidIP', `invalid IP address: ${s}`) : ok(ip);
}

function formatV4(n: number): string {
  return `${n >>> 24}.${(n >>> 16) & 255}.${(n >>> 8) & 255}.${n & 255}`;
}

function trimGroup(hex: string, at: number): string {
  let i = at;
  const last = at + 3;
  while (i < last && hex.charCodeAt(i) === 0x30) i++;
  return hex.slice(i, at + 4);
}

/**
 * Go's net.IP.String(): dotted quad for IPv4 (and for IPv4-mapped IPv6), otherwise RFC 5952:
 * lowercase hex without leading zeros, the longest run of two or more zero groups (the
 * first on a tie) as "::", never a single zero group, and no dotted quad (`::1.2.3.4` prints
 * as `::102:304`). Upstream: Go src/net/ip.go (IP.String).
 */
export function formatIP(ip: IP): string {
  if (ip.family === 4) return formatV4(Number(ip.value));
  if (isIPv4MappedValue(ip.value)) return formatV4(Number(ip.value - MAPPED_BASE));

  const hex = ip.value.toString(16).padStart(32, '0');
  let bestStart = -1;
  let bestLength = 1;
  let runStart = -1;
  for (let g = 0; g <= 8; g++) {
    const zero = g < 8 && hex.startsWith('0000', g * 4);
    if (zero) {
      if (runStart < 0) runStart = g;
    } else if (runStart >= 0) {
      if (g - runStart > bestLength) {
        bestStart = runStart;
        bestLength = g - runStart;
      }
      runStart = -1;
    }
  }

  let out = '';
  for (let g = 0; g < 8; g++) {
    if (g === bestStart) {
      out += '::';
      g += bestLength - 1;
      continue;
    }
    if (out !== '' && !out.endsWith(':')) out += ':';
    out += trimGroup(hex, g * 4);
  }
  return out;
}

export function ipFamily(ip: IP): IPVersion {
  return ip.family;
}

/** The family as Service.spec.ipFamilies and EndpointSlice.addressType spell it. */
export function familyName(family: IPVersion): 'IPv4' | 'IPv6' {
  return family === 4 ? 'IPv4' : 'IPv6';
}

/** Go's IP.Equal. IPv4 and its mapped IPv6 form are one value here, so this is exact equality. */
export function ipEquals(a: IP, b: IP): boolean {
  return a.family === b.family && a.value === b.value;
}

/** netip.Addr.Compare order: every IPv4 address before every IPv6 one, then by value. */
export function compareIP(a: IP, b: IP): -1 | 0 | 1 {
  if (a.family !== b.family) return a.family < b.family ? -1 : 1;
  if (a.value === b.value) return 0;
  return a.value < b.value ? -1 : 1;
}

/** netutils.IsIPv4String (upstream: k8s.io/utils/net/ipfamily.go): sloppy parse, then family. */
export function isIPv4(s: string): boolean {
  return parseAddress(s, true)?.family === 4;
}

/** netutils.IsIPv6String: sloppy parse; an IPv4-mapped IPv6 literal is IPv4, as in Go. */
export function isIPv6(s: string): boolean {
  return parseAddress(s, true)?.family === 6;
}

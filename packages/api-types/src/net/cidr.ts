// CIDR blocks as Go's net.ParseCIDR and *net.IPNet see them (upstream: Go src/net/ip.go).
//
// Representation: `{ network, prefix }`, where `network` has every host bit cleared, so two
// CIDRs are the same block exactly when both fields are equal. Like IP, a family-6 network
// never lies in ::ffff:0:0/96: Go's IPNet.String() and Contains() treat such a network as
// IPv4 (networkNumberAndMask), so "::ffff:10.0.0.0/104" is the IPv4 block 10.0.0.0/8 here.

import { familyBits, formatIP, MAPPED_BASE, parseAddress, type IP, type IPVersion } from './ip.js';
import { ok, type Err, type Result } from '../result.js';
import { netError, type ErrInvalidCIDR } from './errors.js';

export interface CIDR {
  readonly network: IP;
  readonly prefix: number;
}

/** What net.ParseCIDR returns: the address as written, and the block it implies. */
export interface ParsedCIDR {
  readonly ip: IP;
  readonly cidr: CIDR;
}

/** Go's dtoi gives up at 0xFFFFFF (src/net/parse.go). */
const DTOI_LIMIT = 0xff_ffff;

function masked(value: bigint, hostBits: number): bigint {
  if (hostBits === 0) return value;
  const shift = BigInt(hostBits);
  return (value >> shift) << shift;
}

/**
 * The block of `prefix` leading bits around `ip`, host bits cleared (Go's ip.Mask(CIDRMask)).
 * Throws RangeError for a prefix outside 0..32 or 0..128: a programmer error.
 */
export function cidrFromIP(ip: IP, prefix: number): CIDR {
  const bits = familyBits(ip.family);
  if (!Number.isInteger(prefix) || prefix < 0 || prefix > bits) {
    throw new RangeError(`prefix length ${prefix} is out of range for an IPv${ip.family} address`);
  }
  return { network: { family: ip.family, value: masked(ip.value, bits - prefix) }, prefix };
}

/**
 * Go's dtoi on the text after the slash: decimal digits only, at least one, and leading
 * zeros ARE accepted ("10.0.0.0/08" is /8 in Go's net.ParseCIDR; only netip.ParsePrefix
 * refuses them). Returns -1 when it is not a number.
 */
function parsePrefixLength(s: string, start: number): number {
  if (start >= s.length) return -1;
  let n = 0;
  for (let i = start; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x30 || c > 0x39) return -1;
    n = n * 10 + (c - 0x30);
    if (n >= DTOI_LIMIT) return -1;
  }
  return n;
}

function invalidCIDR(s: string): Err<ErrInvalidCIDR> {
  return netError('ErrInvalidCIDR', `invalid CIDR address: ${s}`);
}

function parse(s: string, sloppy: boolean): Result<ParsedCIDR, ErrInvalidCIDR> {
  const slash = s.indexOf('/');
  if (slash < 0) return invalidCIDR(s);
  const text = s.slice(0, slash);
  const ip = parseAddress(text, sloppy);
  if (ip === undefined) return invalidCIDR(s);
  // The limit follows the text, not the family: "::ffff:1.2.3.4" is an IPv6 literal (Go's
  // netip BitLen 128, or the forked parser's iplen 16) even though it names an IPv4 address.
  const writtenBits = text.includes(':') ? 128 : 32;
  const n = parsePrefixLength(s, slash + 1);
  if (n < 0 || n > writtenBits) return invalidCIDR(s);

  if (writtenBits === 128 && ip.family === 4) {
    if (n >= 96) return ok({ ip, cidr: cidrFromIP(ip, n - 96) });
    // Go masks the 16-byte mapped form; below /96 the ffff marker loses bits, and the
    // result is an IPv6 block that does not contain the address it was written with.
    return ok({ ip, cidr: { network: { family: 6, value: masked(MAPPED_BASE | ip.value, 128 - n) }, prefix: n } });
  }
  return ok({ ip, cidr: cidrFromIP(ip, n) });
}

/**
 * Go's net.ParseCIDR: the address must parse as net.ParseIP does (no leading zeros in IPv4
 * octets, no zone), a prefix length is required and must be 0..32 for IPv4 text, 0..128 for
 * IPv6 text. Host bits are allowed and cleared in `cidr`; `ip` keeps them. The error text is
 * Go's ParseError: `invalid CIDR address: <s>`.
 */
export function parseCIDR(s: string): Result<ParsedCIDR, ErrInvalidCIDR> {
  return parse(s, false);
}

/**
 * netutils.ParseCIDRSloppy (upstream: k8s.io/utils/net/parse.go, the forked Go 1.16 ParseCIDR):
 * as parseCIDR, but IPv4 octets may carry leading zeros, read as decimal. This is what
 * apiserver validation and the --service-cluster-ip-range flag use.
 */
export function parseCIDRSloppy(s: string): Result<ParsedCIDR, ErrInvalidCIDR> {
  return parse(s, true);
}

/**
 * parseCIDR that refuses host bits, for places where "10.96.0.1/12" is more likely a typo
 * than a request for 10.96.0.0/12. Returns the block itself.
 */
export function parseCIDRStrict(s: string): Result<CIDR, ErrInvalidCIDR> {
  const parsed = parse(s, false);
  if (!parsed.ok) return parsed;
  const { ip, cidr } = parsed.value;
  if (ip.family !== cidr.network.family || ip.value !== cidr.network.value) {
    return netError('ErrInvalidCIDR', `invalid CIDR value "${s}": host bits are set; did you mean "${formatCIDR(cidr)}"?`);
  }
  return ok(cidr);
}

/** Go's IPNet.String() for a canonical mask: `network/prefix`, the network as formatIP prints it. */
export function formatCIDR(cidr: CIDR): string {
  return `${formatIP(cidr.network)}/${cidr.prefix}`;
}

export function cidrFamily(cidr: CIDR): IPVersion {
  return cidr.network.family;
}

export function cidrEquals(a: CIDR, b: CIDR): boolean {
  return a.prefix === b.prefix && a.network.family === b.network.family && a.network.value === b.network.value;
}

/**
 * Go's IPNet.Contains: false across families, so an IPv4 address (including one written as
 * ::ffff:a.b.c.d) is never inside an IPv6 block, even ::/0.
 */
export function cidrContains(cidr: CIDR, ip: IP): boolean {
  if (ip.family !== cidr.network.family) return false;
  const hostBits = familyBits(ip.family) - cidr.prefix;
  return masked(ip.value, hostBits) === cidr.network.value;
}

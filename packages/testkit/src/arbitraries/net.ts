// Arbitraries for addresses, blocks and ports. They build the plain `{ family, value }` and
// `{ network, prefix }` values of @kubesvc/api-types with their own bigint arithmetic, not
// with the helpers under test, so a property comparing the two is not a tautology. All are
// maps over fast-check primitives (no filters), so counterexamples shrink.
//
// Canonical forms they respect (see api-types src/net/ip.ts): family-6 values never lie in
// ::ffff:0:0/96 (Go treats those as IPv4), and a block's network has its host bits cleared.
import fc from 'fast-check';
import type { CIDR, IP, IPVersion } from '@kubesvc/api-types';

const MAPPED_BASE = 0xffffn << 32n;
const MAPPED_SIZE = 1n << 32n;
const V4_SPACE = 1n << 32n;
/** Canonical IPv6 values: every 128-bit value except the IPv4-mapped /96. */
const V6_CANONICAL_SPACE = (1n << 128n) - MAPPED_SIZE;

const NOTABLE_V4 = [
  0x0000_0000, // 0.0.0.0
  0xffff_ffff, // 255.255.255.255
  0x7f00_0001, // 127.0.0.1
  0xa9fe_a9fe, // 169.254.169.254
  0xe000_00fb, // 224.0.0.251
  0x0a60_0001, // 10.96.0.1
];

const NOTABLE_V6 = [
  0n, // ::
  1n, // ::1
  0x0102_0304n, // ::102:304 (written ::1.2.3.4)
  (0xfe80n << 112n) | 1n, // fe80::1
  (0xff02n << 112n) | 1n, // ff02::1
  (0x2001_0db8n << 96n) | 1n, // 2001:db8::1
  (0xfd00_0010_0096n << 80n) | 0xan, // fd00:10:96::a
  (1n << 128n) - 1n, // ffff:...:ffff
  MAPPED_BASE - 1n, // ::fffe:ffff:ffff, just below the mapped /96
  MAPPED_BASE + MAPPED_SIZE, // ::1:0:0:0, just above it
];

function v4(value: bigint): IP {
  return { family: 4, value };
}

function v6(value: bigint): IP {
  return { family: 6, value };
}

/** Any IPv4 address, with the edges and the well-known addresses over-represented. */
export const ipv4Arb: fc.Arbitrary<IP> = fc
  .oneof(
    { weight: 6, arbitrary: fc.integer({ min: 0, max: 0xffff_ffff }) },
    { weight: 1, arbitrary: fc.constantFrom(...NOTABLE_V4) },
  )
  .map((n) => v4(BigInt(n)));

// Groups are drawn one by one and often zero, so runs of zero groups (what RFC 5952
// compression is about) are common; uniform 128-bit values would almost never have them.
const groupArb = fc.oneof(
  { weight: 3, arbitrary: fc.constant(0) },
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 0xffff }) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 0xf }) },
  { weight: 1, arbitrary: fc.constant(0xffff) },
);

function fromGroups(groups: readonly number[]): bigint {
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  // The one non-canonical region: step from ::ffff:a.b.c.d to ::fffe:a.b.c.d.
  return value >= MAPPED_BASE && value < MAPPED_BASE + MAPPED_SIZE ? value ^ MAPPED_SIZE : value;
}

/** Any canonical IPv6 address (never IPv4-mapped), biased towards zero groups. */
export const ipv6Arb: fc.Arbitrary<IP> = fc.oneof(
  { weight: 6, arbitrary: fc.array(groupArb, { minLength: 8, maxLength: 8 }).map((groups) => v6(fromGroups(groups))) },
  { weight: 1, arbitrary: fc.constantFrom(...NOTABLE_V6).map(v6) },
);

/** Either family, evenly. */
export const ipArb: fc.Arbitrary<IP> = fc.oneof(ipv4Arb, ipv6Arb);

function bitsOf(family: IPVersion): number {
  return family === 4 ? 32 : 128;
}

function clearHostBits(value: bigint, hostBits: number): bigint {
  const shift = BigInt(hostBits);
  return (value >> shift) << shift;
}

/** Every prefix in [min, max], with the two ends (the largest and the smallest blocks) boosted. */
function prefixArb(min: number, max: number): fc.Arbitrary<number> {
  if (min === max) return fc.constant(min);
  return fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min, max }) },
    { weight: 1, arbitrary: fc.integer({ min, max: Math.min(max, min + 2) }) },
    { weight: 1, arbitrary: fc.integer({ min: Math.max(min, max - 2), max }) },
  );
}

export interface CidrArbOptions {
  /** Only this family; both, evenly, when absent. */
  readonly family?: IPVersion;
  /** Smallest prefix length, clamped to the family's width (default 0). */
  readonly minPrefix?: number;
  /** Largest prefix length, clamped to the family's width (default 32 or 128). */
  readonly maxPrefix?: number;
}

function cidrOfFamily(family: IPVersion, options: CidrArbOptions): fc.Arbitrary<CIDR> {
  const bits = bitsOf(family);
  const min = Math.min(Math.max(options.minPrefix ?? 0, 0), bits);
  const max = Math.min(Math.max(options.maxPrefix ?? bits, 0), bits);
  return fc
    .tuple(prefixArb(min, max), family === 4 ? ipv4Arb : ipv6Arb)
    .map(([prefix, ip]) => ({ network: { family, value: clearHostBits(ip.value, bits - prefix) }, prefix }));
}

/**
 * A block of any prefix length in the bounds, network address canonical. Throws RangeError
 * when minPrefix > maxPrefix.
 */
export function cidrArb(options: CidrArbOptions = {}): fc.Arbitrary<CIDR> {
  if ((options.minPrefix ?? 0) > (options.maxPrefix ?? 128)) {
    throw new RangeError(`minPrefix ${options.minPrefix} is greater than maxPrefix ${options.maxPrefix}`);
  }
  if (options.family !== undefined) return cidrOfFamily(options.family, options);
  return fc.oneof(cidrOfFamily(4, options), cidrOfFamily(6, options));
}

// Canonical addresses of a family, numbered without gaps: "rank" skips the IPv4-mapped /96,
// which canonical IPv6 values never use. A canonical block either contains that /96 whole or
// misses it (both are aligned blocks), so a block is one contiguous run of ranks.
function rank(family: IPVersion, value: bigint): bigint {
  return family === 6 && value >= MAPPED_BASE ? value - MAPPED_SIZE : value;
}

function unrank(family: IPVersion, r: bigint): IP {
  if (family === 4) return v4(r);
  return v6(r >= MAPPED_BASE ? r + MAPPED_SIZE : r);
}

interface RankRun {
  readonly family: IPVersion;
  readonly first: bigint;
  readonly count: bigint;
  readonly space: bigint;
}

function rankRun(cidr: CIDR): RankRun {
  const family = cidr.network.family;
  const size = 1n << BigInt(bitsOf(family) - cidr.prefix);
  const start = cidr.network.value;
  const coversMapped = family === 6 && start <= MAPPED_BASE && MAPPED_BASE + MAPPED_SIZE <= start + size;
  return {
    family,
    first: rank(family, start),
    count: coversMapped ? size - MAPPED_SIZE : size,
    space: family === 4 ? V4_SPACE : V6_CANONICAL_SPACE,
  };
}

/** Offsets 0..count-1 with the first and last boosted. */
function indexArb(count: bigint): fc.Arbitrary<bigint> {
  const last = count - 1n;
  if (last === 0n) return fc.constant(0n);
  return fc.oneof(
    { weight: 6, arbitrary: fc.bigInt({ min: 0n, max: last }) },
    { weight: 1, arbitrary: fc.constantFrom(0n, last) },
  );
}

/** A canonical address inside the block (for IPv6 blocks over ::ffff:0:0/96, never in it). */
export function ipInCidrArb(cidr: CIDR): fc.Arbitrary<IP> {
  const run = rankRun(cidr);
  return indexArb(run.count).map((k) => unrank(run.family, run.first + k));
}

export interface OutsideOptions {
  /** Only addresses of the block's family; throws RangeError when the block covers it all. */
  readonly sameFamily?: boolean;
}

/**
 * An address the block does not contain: mostly of the same family (below or above the
 * block), sometimes of the other family, which Go's Contains never matches.
 */
export function ipOutsideCidrArb(cidr: CIDR, options: OutsideOptions = {}): fc.Arbitrary<IP> {
  const run = rankRun(cidr);
  const outside = run.space - run.count;
  const otherFamily = run.family === 4 ? ipv6Arb : ipv4Arb;
  if (outside === 0n) {
    if (options.sameFamily === true) {
      throw new RangeError(`the block /${cidr.prefix} holds every IPv${run.family} address`);
    }
    return otherFamily;
  }
  const sameFamily = indexArb(outside).map((j) => unrank(run.family, j < run.first ? j : j + run.count));
  if (options.sameFamily === true) return sameFamily;
  return fc.oneof({ weight: 4, arbitrary: sameFamily }, { weight: 1, arbitrary: otherFamily });
}

/**
 * The one spelling Go's net.IP.String() gives an address: a dotted quad for IPv4; for IPv6
 * (RFC 5952 section 4) lower-case hex groups without leading zeros, and the longest run of
 * two or more zero groups (the first of equal runs) written as "::". Written here from the
 * RFC rather than with api-types' formatIP, so that properties can use it as an oracle.
 * Expects the canonical values these arbitraries make (no IPv6 value in ::ffff:0:0/96).
 */
export function canonicalIPText(ip: IP): string {
  if (ip.family === 4) return [24n, 16n, 8n, 0n].map((shift) => String((ip.value >> shift) & 0xffn)).join('.');
  const groups = Array.from({ length: 8 }, (_, i) => Number((ip.value >> BigInt(112 - 16 * i)) & 0xffffn));
  let best = 0;
  let bestLength = 0;
  for (let i = 0; i < 8; ) {
    if (groups[i] !== 0) {
      i++;
      continue;
    }
    let j = i;
    while (j < 8 && groups[j] === 0) j++;
    if (j - i > bestLength) {
      best = i;
      bestLength = j - i;
    }
    i = j;
  }
  const hex = groups.map((g) => g.toString(16));
  if (bestLength < 2) return hex.join(':');
  return `${hex.slice(0, best).join(':')}::${hex.slice(best + bestLength).join(':')}`;
}

/** The one spelling Go's net.IPNet.String() gives a block: its canonical network address, "/", the prefix length. */
export function canonicalCIDRText(cidr: CIDR): string {
  return `${canonicalIPText(cidr.network)}/${cidr.prefix}`;
}

/** One way of writing an address, and whether only ParseIPSloppy reads it. */
export interface IPSpelling {
  readonly text: string;
  /** True when the text has a zero-padded IPv4 octet or a hex group of more than 4 digits. */
  readonly sloppyOnly: boolean;
}

export interface SpellingOptions {
  /** Also pad IPv4 octets with zeros and hex groups past 4 digits (what only the sloppy parser takes). */
  readonly sloppy?: boolean;
}

const spellingChoices = fc.record({
  style: fc.integer({ min: 0, max: 3 }),
  dotted: fc.boolean(),
  compress: fc.nat({ max: 8 }),
  pads: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 8, maxLength: 8 }),
  upper: fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
  extraHexZeros: fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 3 })), {
    minLength: 8,
    maxLength: 8,
  }),
  octetZeros: fc.array(fc.oneof({ weight: 3, arbitrary: fc.constant(0) }, fc.integer({ min: 1, max: 2 })), {
    minLength: 4,
    maxLength: 4,
  }),
});

type SpellingChoices = typeof spellingChoices extends fc.Arbitrary<infer T> ? T : never;

function dottedQuad(v: bigint, zeros: readonly number[] | undefined): string {
  const octets = [24n, 16n, 8n, 0n].map((shift, i) => '0'.repeat(zeros?.[i] ?? 0) + String((v >> shift) & 0xffn));
  return octets.join('.');
}

function spellV6(value: bigint, c: SpellingChoices, dotted: boolean, compressOk: boolean, sloppy: boolean): IPSpelling {
  const hexCount = dotted ? 6 : 8;
  const parts: string[] = [];
  // Whether each part, if written, is one only the sloppy parser reads.
  const sloppyPart: boolean[] = [];
  const zero: boolean[] = [];
  for (let i = 0; i < hexCount; i++) {
    const g = Number((value >> BigInt(112 - 16 * i)) & 0xffffn);
    const hex = g.toString(16);
    let width = Math.min(4, hex.length + (c.pads[i] ?? 0));
    const extra = sloppy ? (c.extraHexZeros[i] ?? 0) : 0;
    if (extra > 0) width = Math.max(width, 4) + extra;
    const text = hex.padStart(width, '0');
    parts.push(c.upper[i] === true ? text.toUpperCase() : text);
    sloppyPart.push(extra > 0);
    zero.push(g === 0);
  }
  if (dotted) {
    const zeros = sloppy ? c.octetZeros : undefined;
    parts.push(dottedQuad(value & 0xffff_ffffn, zeros));
    sloppyPart.push(zeros?.some((z) => z > 0) === true);
  }

  // Runs of zero groups that "::" may stand for: any maximal run, not only the longest.
  const runs: [number, number][] = [];
  for (let i = 0; i < hexCount; ) {
    if (!zero[i]) {
      i++;
      continue;
    }
    let j = i;
    while (j < hexCount && zero[j]) j++;
    runs.push([i, j]);
    i = j;
  }
  const pick = compressOk ? c.compress % (runs.length + 1) : 0;
  const [from, to] = runs[pick - 1] ?? [parts.length, parts.length];
  const sloppyOnly = sloppyPart.some((flag, i) => flag && (i < from || i >= to));
  if (from === to) return { text: parts.join(':'), sloppyOnly };
  return { text: `${parts.slice(0, from).join(':')}::${parts.slice(to).join(':')}`, sloppyOnly };
}

/**
 * Text that Go's net.ParseIP reads as `ip`: zero-padded, upper- or lowercase hex groups,
 * any zero run (not only the longest) as "::", a trailing dotted quad, and for IPv4 the
 * ::ffff: mapped forms. With `sloppy`, some spellings also pad octets or groups the way
 * only netutils.ParseIPSloppy accepts, and say so.
 */
export function ipSpellingArb(ip: IP, options: SpellingOptions = {}): fc.Arbitrary<IPSpelling> {
  const sloppy = options.sloppy === true;
  return spellingChoices.map((c) => {
    if (ip.family === 6) return spellV6(ip.value, c, c.dotted, true, sloppy);
    const mapped = MAPPED_BASE | ip.value;
    switch (c.style) {
      case 1:
        return spellV6(mapped, c, true, true, sloppy);
      case 2:
        return spellV6(mapped, c, false, true, sloppy);
      case 3:
        return spellV6(mapped, c, true, false, sloppy);
      default: {
        const zeros = sloppy ? c.octetZeros : undefined;
        return { text: dottedQuad(ip.value, zeros), sloppyOnly: zeros?.some((z) => z > 0) === true };
      }
    }
  });
}

/** A port number, 1..65535, with the bounds boosted. */
export const portArb: fc.Arbitrary<number> = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 1, max: 65535 }) },
  { weight: 1, arbitrary: fc.constantFrom(1, 65535, 30000, 32767) },
);

/** A valid port range: `text` is "base-last" with 1 <= base <= last <= 65535, size = last - base + 1. */
export interface PortRangeSample {
  readonly text: string;
  readonly base: number;
  readonly size: number;
}

export const portRangeArb: fc.Arbitrary<PortRangeSample> = fc.tuple(portArb, portArb).map(([a, b]) => {
  const base = Math.min(a, b);
  const last = Math.max(a, b);
  return { text: `${base}-${last}`, base, size: last - base + 1 };
});

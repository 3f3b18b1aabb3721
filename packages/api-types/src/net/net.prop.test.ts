// INV-NET-ROUNDTRIP: addresses print canonically and read back, and offset arithmetic inverts
// address arithmetic, for every family and prefix length.
//
// The oracles are independent of the code under test: Node's net.isIP for which strings are
// addresses, the WHATWG URL parser's IPv6 serializer (RFC 5952 compression, lowercase) for
// canonical IPv6 text, and plain bigint or bit-string arithmetic for blocks and offsets. The
// arbitraries (testkit) build values with their own arithmetic too.
import { fc, test } from '@fast-check/vitest';
import { isIP } from 'node:net';
import { expect } from 'vitest';
import {
  cidrArb,
  ipArb,
  ipInCidrArb,
  ipOutsideCidrArb,
  ipSpellingArb,
} from '@kubesvc/testkit';
import { cidrContains, cidrEquals, formatCIDR, parseCIDR, parseCIDRStrict, type CIDR } from './cidr.js';
import { addressAtOffset, offsetOf } from './cidr-offset.js';
import { cidrSize } from './cidr-size.js';
import { formatIP, parseIP, parseIPSloppy, type IP } from './ip.js';

const MAPPED_BASE = 0xffffn << 32n;

function bitsOf(ip: IP): number {
  return ip.family === 4 ? 32 : 128;
}

/** Dotted quad by bigint shifts. */
function referenceV4(value: bigint): string {
  return [24n, 16n, 8n, 0n].map((s) => String((value >> s) & 0xffn)).join('.');
}

/** The canonical text of a 128-bit value by the WHATWG URL serializer, fed the uncompressed form. */
function referenceV6(value: bigint): string {
  const expanded = (value.toString(16).padStart(32, '0').match(/.{4}/g) ?? []).join(':');
  return new URL(`http://[${expanded}]/`).hostname.slice(1, -1);
}

/** What Go prints for an address: dotted for IPv4, URL-canonical hex for the rest. */
function referenceText(ip: IP): string {
  return ip.family === 4 ? referenceV4(ip.value) : referenceV6(ip.value);
}

/** The network of `ip`/`prefix` computed on the bit string. */
function referenceNetwork(ip: IP, prefix: number): bigint {
  const bits = bitsOf(ip);
  const binary = ip.value.toString(2).padStart(bits, '0');
  return BigInt(`0b${binary.slice(0, prefix).padEnd(bits, '0')}`);
}

function referenceContains(cidr: CIDR, ip: IP): boolean {
  if (ip.family !== cidr.network.family) return false;
  const bits = bitsOf(ip);
  const a = ip.value.toString(2).padStart(bits, '0').slice(0, cidr.prefix);
  const b = cidr.network.value.toString(2).padStart(bits, '0').slice(0, cidr.prefix);
  return a === b;
}

function sizeOf(cidr: CIDR): bigint {
  return 2n ** BigInt(bitsOf(cidr.network) - cidr.prefix);
}

test.prop([ipArb])(
  'INV-NET-ROUNDTRIP: formatIP is canonical and parseIP(formatIP(ip)) is ip for any IPv4 or IPv6 value',
  (ip) => {
    const text = formatIP(ip);
    expect(text).toBe(referenceText(ip));
    expect(isIP(text)).toBe(ip.family);
    const again = parseIP(text);
    expect(again).toEqual({ ok: true, value: ip });
    if (again.ok) expect(formatIP(again.value)).toBe(text);
  },
);

test.prop([ipArb.chain((ip) => ipSpellingArb(ip).map((spelling) => ({ ip, spelling })))])(
  'INV-NET-ROUNDTRIP: every spelling Go accepts parses to the same address and prints canonically',
  ({ ip, spelling }) => {
    expect(isIP(spelling.text)).not.toBe(0);
    const parsed = parseIP(spelling.text);
    expect(parsed).toEqual({ ok: true, value: ip });
    expect(parseIPSloppy(spelling.text)).toEqual(parsed);
    if (parsed.ok) expect(formatIP(parsed.value)).toBe(referenceText(ip));
    if (spelling.text.includes(':')) {
      // The URL parser reads the same text; it keeps mapped addresses in hex.
      const viaUrl = new URL(`http://[${spelling.text}]/`).hostname.slice(1, -1);
      expect(viaUrl).toBe(referenceV6(ip.family === 4 ? MAPPED_BASE | ip.value : ip.value));
    }
  },
);

test.prop([ipArb.chain((ip) => ipSpellingArb(ip, { sloppy: true }).map((spelling) => ({ ip, spelling })))])(
  'INV-NET-ROUNDTRIP: parseIPSloppy reads zero-padded spellings as decimal, and parseIP refuses exactly those',
  ({ ip, spelling }) => {
    expect(parseIPSloppy(spelling.text)).toEqual({ ok: true, value: ip });
    expect(parseIP(spelling.text).ok).toBe(!spelling.sloppyOnly);
  },
);

const MUTATION_CHARS = [...'0123456789abcdefABCDEFg:.%/ -'];

const nearMissArb = ipArb
  .chain((ip) => ipSpellingArb(ip))
  .chain(({ text }) =>
    fc
      .record({
        at: fc.nat({ max: text.length }),
        op: fc.constantFrom('insert', 'replace', 'delete'),
        ch: fc.constantFrom(...MUTATION_CHARS),
      })
      .map(({ at, op, ch }) => {
        if (op === 'insert') return text.slice(0, at) + ch + text.slice(at);
        if (op === 'replace') return text.slice(0, at) + ch + text.slice(at + 1);
        return text.slice(0, at) + text.slice(at + 1);
      }),
  );

test.prop([nearMissArb])(
  'INV-NET-ROUNDTRIP: parseIP accepts exactly the strings net.isIP accepts (zones aside) and reads them as the URL parser does',
  (text) => {
    const parsed = parseIP(text);
    // Node accepts zones; Go's ParseIP does not.
    const nodeSays = !text.includes('%') && isIP(text) !== 0;
    expect(parsed.ok).toBe(nodeSays);
    if (!parsed.ok) {
      expect(parsed.error).toEqual({ _tag: 'ErrInvalidIP', message: `invalid IP address: ${text}` });
      return;
    }
    if (text.includes(':')) {
      const viaUrl = new URL(`http://[${text}]/`).hostname.slice(1, -1);
      const ip = parsed.value;
      expect(viaUrl).toBe(referenceV6(ip.family === 4 ? MAPPED_BASE | ip.value : ip.value));
    } else {
      expect(formatIP(parsed.value)).toBe(text);
    }
    // Sloppy parsing only ever adds strings; it reads the strict ones the same way.
    expect(parseIPSloppy(text)).toEqual(parsed);
  },
);

test.prop([cidrArb()])(
  'INV-NET-ROUNDTRIP: parseCIDR(formatCIDR(cidr)) is cidr for every prefix of both families',
  (cidr) => {
    const text = formatCIDR(cidr);
    expect(text).toBe(`${referenceText(cidr.network)}/${cidr.prefix}`);
    const parsed = parseCIDR(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    expect(cidrEquals(parsed.value.cidr, cidr)).toBe(true);
    expect(parsed.value.ip).toEqual(cidr.network);
    expect(parseCIDRStrict(text)).toEqual({ ok: true, value: cidr });
  },
);

const ipAndPrefixArb = ipArb.chain((ip) =>
  fc
    .oneof(fc.integer({ min: 0, max: bitsOf(ip) }), fc.constantFrom(0, 1, bitsOf(ip) - 1, bitsOf(ip)))
    .map((prefix) => ({ ip, prefix })),
);

test.prop([ipAndPrefixArb])(
  'INV-NET-ROUNDTRIP: parseCIDR masks host bits, and the masked block is what parseCIDRStrict reads back',
  ({ ip, prefix }) => {
    const text = `${formatIP(ip)}/${prefix}`;
    const parsed = parseCIDR(text);
    expect(parsed.ok).toBe(true);
    if (!parsed.ok) return;
    const { ip: written, cidr } = parsed.value;
    expect(written).toEqual(ip);
    expect(cidr).toEqual({ network: { family: ip.family, value: referenceNetwork(ip, prefix) }, prefix });
    expect(parseCIDRStrict(formatCIDR(cidr))).toEqual({ ok: true, value: cidr });
    const strict = parseCIDRStrict(text);
    if (cidr.network.value === ip.value) {
      expect(strict).toEqual({ ok: true, value: cidr });
    } else {
      expect(strict).toEqual({
        ok: false,
        error: { _tag: 'ErrInvalidCIDR', message: `invalid CIDR value "${text}": host bits are set; did you mean "${formatCIDR(cidr)}"?` },
      });
    }
    // The prefix limit is the family's width.
    expect(parseCIDR(`${formatIP(ip)}/${bitsOf(ip) + 1}`).ok).toBe(false);
  },
);

/** A block and an offset in [0, size), the first and last offsets boosted. */
const offsetInBlockArb = fc
  .tuple(
    cidrArb(),
    fc.oneof(
      { weight: 4, arbitrary: fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }) },
      { weight: 1, arbitrary: fc.constantFrom('first', 'last') },
    ),
  )
  .map(([cidr, raw]) => {
    const size = sizeOf(cidr);
    const k = raw === 'first' ? 0n : raw === 'last' ? size - 1n : raw % size;
    return { cidr, k };
  });

test.prop([offsetInBlockArb])(
  'INV-NET-ROUNDTRIP: offsetOf(cidr, addressAtOffset(cidr, k)) is k for every k in [0, size)',
  ({ cidr, k }) => {
    const value = cidr.network.value + k;
    const address = addressAtOffset(cidr, k);
    if (cidr.network.family === 6 && value >> 32n === 0xffffn) {
      // Go's Contains sees ::ffff:a.b.c.d as IPv4, so GetIndexedIP refuses it.
      expect(address.ok).toBe(false);
      return;
    }
    expect(address).toEqual({ ok: true, value: { family: cidr.network.family, value } });
    if (!address.ok) return;
    expect(cidrContains(cidr, address.value)).toBe(true);
    expect(offsetOf(cidr, address.value)).toEqual({ ok: true, value: k });
    if (k <= BigInt(Number.MAX_SAFE_INTEGER)) expect(addressAtOffset(cidr, Number(k))).toEqual(address);
  },
);

test.prop([cidrArb().chain((cidr) => ipInCidrArb(cidr).map((ip) => ({ cidr, ip })))])(
  'INV-NET-ROUNDTRIP: addressAtOffset(cidr, offsetOf(cidr, ip)) is ip for every ip in the cidr',
  ({ cidr, ip }) => {
    expect(referenceContains(cidr, ip)).toBe(true);
    expect(cidrContains(cidr, ip)).toBe(true);
    const offset = offsetOf(cidr, ip);
    expect(offset).toEqual({ ok: true, value: ip.value - cidr.network.value });
    if (!offset.ok) return;
    expect(offset.value >= 0n && offset.value < cidrSize(cidr)).toBe(true);
    expect(addressAtOffset(cidr, offset.value)).toEqual({ ok: true, value: ip });
  },
);

const outsideArb = cidrArb().chain((cidr) =>
  fc.record({
    cidr: fc.constant(cidr),
    ip: ipOutsideCidrArb(cidr),
    below: fc.bigInt({ min: -(1n << 130n), max: -1n }),
    above: fc.bigInt({ min: 0n, max: 1n << 130n }),
  }),
);

test.prop([outsideArb])(
  'INV-NET-ROUNDTRIP: offsets outside [0, size) and addresses outside the cidr are errors',
  ({ cidr, ip, below, above }) => {
    expect(referenceContains(cidr, ip)).toBe(false);
    expect(cidrContains(cidr, ip)).toBe(false);
    expect(offsetOf(cidr, ip)).toEqual({
      ok: false,
      error: { _tag: 'ErrNotInSubnet', message: `IP ${formatIP(ip)} is not in subnet "${formatCIDR(cidr)}"` },
    });
    const size = cidrSize(cidr);
    for (const k of [below, size + above]) {
      expect(addressAtOffset(cidr, k)).toEqual({
        ok: false,
        error: { _tag: 'ErrSubnetTooSmall', message: `can't generate IP with index ${k} from subnet. subnet too small. subnet: "${formatCIDR(cidr)}"` },
      });
    }
  },
);

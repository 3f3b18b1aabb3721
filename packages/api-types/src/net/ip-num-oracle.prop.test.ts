// INV-NET-ROUNDTRIP against a second, independent implementation: ip-num (a dev dependency
// only; the helpers themselves are hand-written, being exact to Go and several times
// faster, see README). For any IPv4 block and offset, ip-num's first address plus the
// offset, its containment test and its size agree with ours.
import { fc, test } from '@fast-check/vitest';
import { cidrArb } from '@kubesvc/testkit';
import { IPv4, IPv4CidrRange, IPv6CidrRange } from 'ip-num';
import { expect } from 'vitest';
import { cidrContains, formatCIDR } from './cidr.js';
import { addressAtOffset } from './cidr-offset.js';
import { cidrSize } from './cidr-size.js';
import { formatIP } from './ip.js';

test.prop([cidrArb({ family: 4 }), fc.bigInt({ min: 0n, max: (1n << 32n) - 1n })])(
  'INV-NET-ROUNDTRIP: IPv4 offset arithmetic, containment and size agree with ip-num',
  (cidr, raw) => {
    const range = IPv4CidrRange.fromCidr(formatCIDR(cidr));
    const size = range.getSize();
    expect(cidrSize(cidr)).toBe(size);
    const offset = raw % size;
    const mine = addressAtOffset(cidr, offset);
    const theirs = new IPv4(range.getFirst().value + offset);
    expect(mine.ok && formatIP(mine.value)).toBe(theirs.toString());
    // An address just past the block is outside it for both.
    const after = range.getLast().value + 1n;
    if (after < 1n << 32n) {
      expect(range.contains(new IPv4(after))).toBe(false);
      expect(addressAtOffset(cidr, size).ok).toBe(false);
    }
    expect(mine.ok && cidrContains(cidr, mine.value)).toBe(true);
  },
);

test.prop([cidrArb({ family: 6, minPrefix: 1 })])('INV-NET-ROUNDTRIP: IPv6 block sizes and last addresses agree with ip-num', (cidr) => {
  const range = IPv6CidrRange.fromCidr(formatCIDR(cidr));
  expect(cidrSize(cidr)).toBe(range.getSize());
  const last = addressAtOffset(cidr, range.getSize() - 1n);
  if (last.ok) expect(last.value.value).toBe(range.getLast().value);
});

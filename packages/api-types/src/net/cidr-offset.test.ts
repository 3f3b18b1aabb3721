import { mustParseCIDR as cidr, mustParseIP as ip } from '@kubesvc/testkit';
import { describe, expect, test } from 'vitest';
import { addressAtOffset, getIndexedIP, offsetOf } from './cidr-offset.js';
import { formatIP } from './ip.js';

function at(block: string, offset: bigint | number): string {
  const r = addressAtOffset(cidr(block), offset);
  return r.ok ? formatIP(r.value) : r.error.message;
}

describe('addressAtOffset, as netutils.GetIndexedIP', () => {
  // ServiceIPRange's first IP (GetIndexedIP(cidr, 1)) and pkg/master services_test.go.
  test.each([
    ['10.96.0.0/16', 1, '10.96.0.1'],
    ['10.0.0.0/24', 1, '10.0.0.1'],
    ['192.168.1.0/24', 1, '192.168.1.1'],
    ['2001:db8::/64', 1, '2001:db8::1'],
    ['10.96.0.0/12', 0, '10.96.0.0'],
    ['10.96.0.0/12', 1_048_575, '10.111.255.255'],
    ['192.168.1.0/30', 3, '192.168.1.3'],
    ['10.0.0.7/32', 0, '10.0.0.7'],
    ['0.0.0.0/0', 4_294_967_295, '255.255.255.255'],
    ['2001:db8::/112', 65_535, '2001:db8::ffff'],
    ['::/0', (1n << 128n) - 1n, 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['fd00::/8', 1n << 119n, 'fd80::'],
  ])('%s index %s is %s', (block, offset, want) => {
    expect(at(block, offset)).toBe(want);
    expect(at(block, BigInt(offset))).toBe(want);
  });

  test.each([
    ['192.168.1.0/30', 4],
    ['192.168.1.0/30', -1],
    ['10.0.0.7/32', 1],
    ['2001:db8::/64', 1n << 64n],
    ['255.255.255.0/24', 256],
  ])('%s index %s is out of range, with upstream text', (block, offset) => {
    expect(at(block, offset)).toBe(
      `can't generate IP with index ${offset} from subnet. subnet too small. subnet: "${block}"`,
    );
  });

  test('an offset landing on ::ffff:0:0/96 is an error: Go sees that address as IPv4', () => {
    const block = cidr('::/64');
    const mapped = (0xffffn << 32n) | 0x0a00_0001n;
    expect(addressAtOffset(block, mapped)).toEqual({
      ok: false,
      error: { _tag: 'ErrSubnetTooSmall', message: `can't generate IP with index ${mapped} from subnet. subnet too small. subnet: "::/64"` },
    });
    expect(at('::/64', (0xffffn << 32n) - 1n)).toBe('::fffe:ffff:ffff');
    expect(at('::/64', 0x1_0000_0000_0000n)).toBe('::1:0:0:0');
  });

  test('getIndexedIP is the same function under upstream\'s name', () => {
    expect(getIndexedIP(cidr('10.96.0.0/16'), 1)).toEqual(addressAtOffset(cidr('10.96.0.0/16'), 1));
  });

  test('a number offset must be a safe integer', () => {
    expect(() => addressAtOffset(cidr('10.0.0.0/8'), 1.5)).toThrow(RangeError);
    expect(() => addressAtOffset(cidr('10.0.0.0/8'), 1.5)).toThrow(/1\.5/);
    expect(() => addressAtOffset(cidr('::/0'), 2 ** 60)).toThrow(RangeError);
    expect(() => addressAtOffset(cidr('::/0'), Number.NaN)).toThrow(RangeError);
  });
});

describe('offsetOf', () => {
  test.each([
    ['10.96.0.0/16', '10.96.0.1', 1n],
    ['10.96.0.0/12', '10.111.255.255', 1_048_575n],
    ['10.96.0.0/12', '::ffff:10.96.0.10', 10n],
    ['2001:db8::/64', '2001:db8::ffff:ffff', 0xffff_ffffn],
    ['::/0', 'ffff::', 0xffffn << 112n],
    ['0.0.0.0/0', '0.0.0.0', 0n],
  ])('%s: offset of %s is %s', (block, address, want) => {
    expect(offsetOf(cidr(block), ip(address))).toEqual({ ok: true, value: want });
  });

  test.each([
    ['10.96.0.0/16', '10.97.0.0'],
    ['10.96.0.0/16', '10.95.255.255'],
    ['2001:db8::/64', '2001:db8:0:1::'],
    ['::/0', '10.0.0.1'],
    ['0.0.0.0/0', '::1'],
  ])('%s does not hold %s', (block, address) => {
    expect(offsetOf(cidr(block), ip(address))).toEqual({
      ok: false,
      error: { _tag: 'ErrNotInSubnet', message: `IP ${formatIP(ip(address))} is not in subnet "${block}"` },
    });
  });
});

describe('negative offsets (docs/deviations.md)', () => {
  test('are refused with the out-of-range error, where upstream would drop the sign', () => {
    const r = addressAtOffset(cidr('::/64'), -5n);
    expect(r).toEqual({ ok: false, error: { _tag: 'ErrSubnetTooSmall', message: `can't generate IP with index -5 from subnet. subnet too small. subnet: "::/64"` } });
  });
});

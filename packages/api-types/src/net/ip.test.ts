import { mustParseIP as ip } from '@kubesvc/testkit';
import { describe, expect, test } from 'vitest';
import {
  compareIP,
  familyBits,
  familyName,
  formatIP,
  ipEquals,
  ipFamily,
  ipFromBigInt,
  ipv4FromNumber,
  isIPv4,
  isIPv6,
  parseIP,
  parseIPSloppy,
} from './ip.js';

/** parseIP then formatIP, or undefined when Go's ParseIP would return nil. */
function roundTrip(s: string): string | undefined {
  const r = parseIP(s);
  return r.ok ? formatIP(r.value) : undefined;
}

function sloppyRoundTrip(s: string): string | undefined {
  const r = parseIPSloppy(s);
  return r.ok ? formatIP(r.value) : undefined;
}

describe('parseIP and formatIP, as net.ParseIP and net.IP.String', () => {
  // Go src/net/ip_test.go parseIPTests and ipStringTests, and RFC 5952 section 4.
  test.each([
    ['127.0.1.2', '127.0.1.2'],
    ['0.0.0.0', '0.0.0.0'],
    ['255.255.255.255', '255.255.255.255'],
    ['::ffff:127.1.2.3', '127.1.2.3'],
    ['::ffff:7f01:0203', '127.1.2.3'],
    ['0:0:0:0:0000:ffff:127.1.2.3', '127.1.2.3'],
    ['0:0:0:0::ffff:127.1.2.3', '127.1.2.3'],
    ['::ffff:10.0.0.1', '10.0.0.1'],
    ['::FFFF:10.0.0.1', '10.0.0.1'],
    ['::ffff:0.0.0.0', '0.0.0.0'],
    ['::ffff:0:0', '0.0.0.0'],
    ['2001:4860:0:2001::68', '2001:4860:0:2001::68'],
    ['2001:4860:0000:2001:0000:0000:0000:0068', '2001:4860:0:2001::68'],
    ['2001:db8:0:0:1:0:0:1', '2001:db8::1:0:0:1'],
    ['2001:db8:0:1:1:1:1:1', '2001:db8:0:1:1:1:1:1'],
    ['2001:0:0:1:0:0:0:1', '2001:0:0:1::1'],
    ['2001:db8:0:0:1::', '2001:db8:0:0:1::'],
    ['2001:db8:0:0:1:0:0:0', '2001:db8:0:0:1::'],
    ['2001:db8::123:12:1', '2001:db8::123:12:1'],
    ['2001:db8:0:1:0:1:0:1', '2001:db8:0:1:0:1:0:1'],
    ['2001:db8:1:0:1:0:1:0', '2001:db8:1:0:1:0:1:0'],
    ['2001::1:0:0:1', '2001::1:0:0:1'],
    ['2001:DB8::A:B:C:D', '2001:db8::a:b:c:d'],
    ['2001:0DB8::000A', '2001:db8::a'],
    ['::', '::'],
    ['0:0:0:0:0:0:0:0', '::'],
    ['::1', '::1'],
    ['1::', '1::'],
    ['1:2:3:4:5:6:7::', '1:2:3:4:5:6:7:0'],
    ['::2:3:4:5:6:7:8', '0:2:3:4:5:6:7:8'],
    ['1:0:2:3:4:5:6:7', '1:0:2:3:4:5:6:7'],
    ['::1.2.3.4', '::102:304'],
    ['::fffe:1.2.3.4', '::fffe:102:304'],
    ['1:2:3:4:5:6:1.2.3.4', '1:2:3:4:5:6:102:304'],
    ['fe80::1', 'fe80::1'],
    ['ff02::1:ff00:1', 'ff02::1:ff00:1'],
    ['fd00:10:96::a', 'fd00:10:96::a'],
  ])('%s prints as %s', (input, printed) => {
    expect(roundTrip(input)).toBe(printed);
  });

  test.each([
    '',
    'abc',
    '123:',
    '-0.0.0.0',
    '0.-1.0.0',
    '127.0.0.256',
    '1.2.3',
    '1.2.3.4.5',
    '1.2..4',
    '.1.2.3',
    '1.2.3.',
    ' 1.2.3.4',
    '1.2.3.4 ',
    '1.2.3.4/32',
    '127.001.002.003',
    '::ffff:127.001.002.003',
    '123.000.000.000',
    '0123.0.0.1',
    '010.1.1.1',
    '00.0.0.0',
    'fe80::1%lo0',
    'fe80::1%911',
    'fe80::1%',
    '%eth0',
    'a1:a2:a3:a4::b1:b2:b3:b4',
    '1:2:3:4:5:6:7:8:9',
    '1:2:3:4:5:6:7',
    '1::2::3',
    ':::',
    ':1::',
    '1:::2',
    '::1:',
    '12345::',
    '0:0:0:0:000000:ffff:127.1.2.3',
    '00000::',
    '1:2:3:4:5:6:7:1.2.3.4',
    '1:2:3:4:5:1.2.3.4',
    '::1.2.3',
    '1.2.3.4::',
    '::ffff:1.2.3.4.5',
    '[::1]',
    'g::1',
  ])('%j is not an IP', (input) => {
    const r = parseIP(input);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error).toEqual({ _tag: 'ErrInvalidIP', message: `invalid IP address: ${input}` });
  });
});

describe('parseIPSloppy, as netutils.ParseIPSloppy', () => {
  test.each([
    ['010.1.1.1', '10.1.1.1'],
    ['127.001.002.003', '127.1.2.3'],
    ['123.000.000.000', '123.0.0.0'],
    ['0123.0.0.1', '123.0.0.1'],
    ['00000000010.0.0.1', '10.0.0.1'],
    ['::ffff:127.001.002.003', '127.1.2.3'],
    ['::010.1.1.1', '::a01:101'],
    ['0:0:0:0:000000:ffff:127.1.2.3', '127.1.2.3'],
    ['00000001::', '1::'],
    ['1.2.3.4', '1.2.3.4'],
    ['2001:db8::1', '2001:db8::1'],
  ])('%s is %s (leading zeros read as decimal)', (input, printed) => {
    expect(sloppyRoundTrip(input)).toBe(printed);
  });

  test.each(['0256.0.0.1', '1.2.3.0400', 'fe80::1%eth0', '10000::', '0x10.1.1.1', '1.2.3', '', '::1.2.3.04.5'])(
    '%j is still not an IP',
    (input) => {
      expect(parseIPSloppy(input)).toEqual({ ok: false, error: { _tag: 'ErrInvalidIP', message: `invalid IP address: ${input}` } });
    },
  );
});

describe('family and string helpers', () => {
  test('families, and IPv4-mapped IPv6 is IPv4 as in Go', () => {
    expect(ipFamily(ip('10.0.0.1'))).toBe(4);
    expect(ipFamily(ip('::1'))).toBe(6);
    expect(ipFamily(ip('::ffff:10.0.0.1'))).toBe(4);
    expect(familyBits(4)).toBe(32);
    expect(familyBits(6)).toBe(128);
    expect(familyName(4)).toBe('IPv4');
    expect(familyName(6)).toBe('IPv6');
  });

  test('isIPv4 and isIPv6 follow netutils.IsIPv4String / IsIPv6String (sloppy)', () => {
    expect(isIPv4('10.0.0.1')).toBe(true);
    expect(isIPv4('010.0.0.1')).toBe(true);
    expect(isIPv4('::ffff:10.0.0.1')).toBe(true);
    expect(isIPv4('::1')).toBe(false);
    expect(isIPv4('nope')).toBe(false);
    expect(isIPv6('::1')).toBe(true);
    expect(isIPv6('2001:db8::')).toBe(true);
    expect(isIPv6('::ffff:10.0.0.1')).toBe(false);
    expect(isIPv6('10.0.0.1')).toBe(false);
    expect(isIPv6('fe80::1%eth0')).toBe(false);
  });

  test('ipEquals treats an address and its mapped form as one, like IP.Equal', () => {
    expect(ipEquals(ip('10.0.0.1'), ip('::ffff:a00:1'))).toBe(true);
    expect(ipEquals(ip('::a00:1'), ip('10.0.0.1'))).toBe(false);
    expect(ipEquals(ip('2001:db8::1'), ip('2001:DB8:0::0:1'))).toBe(true);
  });

  test('compareIP orders IPv4 before IPv6, then by value (netip.Addr.Compare)', () => {
    const sorted = ['::', '255.255.255.255', '10.0.0.2', '::1', '10.0.0.10', '0.0.0.0', 'ffff::']
      .map(ip)
      .sort(compareIP)
      .map(formatIP);
    expect(sorted).toEqual(['0.0.0.0', '10.0.0.2', '10.0.0.10', '255.255.255.255', '::', '::1', 'ffff::']);
    expect(compareIP(ip('1.2.3.4'), ip('1.2.3.4'))).toBe(0);
  });
});

describe('constructors', () => {
  test('ipv4FromNumber and ipFromBigInt build canonical values', () => {
    expect(formatIP(ipv4FromNumber(0x0a60_0001))).toBe('10.96.0.1');
    expect(formatIP(ipFromBigInt(6, 1n))).toBe('::1');
    expect(ipFromBigInt(6, (0xffffn << 32n) | 0x0a00_0001n)).toEqual({ family: 4, value: 0x0a00_0001n });
    expect(formatIP(ipFromBigInt(6, (1n << 128n) - 1n))).toBe('ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff');
  });

  test('out-of-range values are programmer errors', () => {
    expect(() => ipv4FromNumber(-1)).toThrow(RangeError);
    expect(() => ipv4FromNumber(2 ** 32)).toThrow(RangeError);
    expect(() => ipv4FromNumber(1.5)).toThrow(RangeError);
    expect(() => ipFromBigInt(4, 1n << 32n)).toThrow(RangeError);
    expect(() => ipFromBigInt(6, 1n << 128n)).toThrow(RangeError);
    expect(() => ipFromBigInt(6, -1n)).toThrow(RangeError);
  });

  test('formatIP prints a family-6 value in the mapped range as Go does, dotted', () => {
    expect(formatIP({ family: 6, value: (0xffffn << 32n) | 0x0102_0304n })).toBe('1.2.3.4');
  });
});

describe('edges of the parsers and constructors', () => {
  test('a dotted quad needs dots between its four fields', () => {
    for (const s of ['1.2.3x4', '1.2.3 4', '1x2.3.4', '1.2.3.4x']) expect(roundTrip(s)).toBeUndefined();
  });

  test('"::" appears once, and stands for at least one zero group', () => {
    expect(roundTrip('::1::2')).toBeUndefined();
    expect(roundTrip('1::2::3')).toBeUndefined();
    expect(roundTrip('::1:2:3:4:5:6:7:8')).toBeUndefined();
    expect(roundTrip('1:2:3:4:5:6:7:8::')).toBeUndefined();
    expect(roundTrip('::2:3:4:5:6:7:8')).toBe('0:2:3:4:5:6:7:8');
  });

  test('only ::ffff:0:0/96 is IPv4: ffff in the third 32 bits elsewhere stays IPv6 (Go To4)', () => {
    expect(roundTrip('1::ffff:1.2.3.4')).toBe('1::ffff:102:304');
    expect(roundTrip('::1:0:ffff:1.2.3.4')).toBe('::1:0:ffff:102:304');
    expect(roundTrip('::ffff:1.2.3.4')).toBe('1.2.3.4');
    expect(roundTrip('::ffff:0.0.0.0')).toBe('0.0.0.0');
    expect(roundTrip('::ffff:255.255.255.255')).toBe('255.255.255.255');
  });

  test('ipFromBigInt: both ends of each family, the mapped block, and a value outside named', () => {
    expect(ipFromBigInt(4, 0n)).toEqual({ family: 4, value: 0n });
    expect(ipFromBigInt(4, 0xffff_ffffn)).toEqual({ family: 4, value: 0xffff_ffffn });
    expect(() => ipFromBigInt(4, -1n)).toThrow(/IPv4 value out of range: -1/);
    expect(() => ipFromBigInt(4, 1n << 32n)).toThrow(/IPv4 value out of range: 4294967296/);
    expect(ipFromBigInt(6, 0n)).toEqual({ family: 6, value: 0n });
    expect(ipFromBigInt(6, (1n << 128n) - 1n)).toEqual({ family: 6, value: (1n << 128n) - 1n });
    expect(() => ipFromBigInt(6, -1n)).toThrow(/IPv6 value out of range: -1/);
    expect(() => ipFromBigInt(6, 1n << 128n)).toThrow(RangeError);
    // ::ffff:0.0.0.0 and ::ffff:255.255.255.255 are the first and last mapped addresses.
    expect(ipFromBigInt(6, 0xffffn << 32n)).toEqual({ family: 4, value: 0n });
    expect(ipFromBigInt(6, (0xffffn << 32n) | 0xffff_ffffn)).toEqual({ family: 4, value: 0xffff_ffffn });
    expect(ipFromBigInt(6, (0xffffn << 32n) - 1n)).toEqual({ family: 6, value: (0xffffn << 32n) - 1n });
    expect(ipFromBigInt(6, 0x1_0000n << 32n)).toEqual({ family: 6, value: 0x1_0000n << 32n });
  });

  test('ipv4FromNumber: 0 and 2^32 - 1, and a value outside named', () => {
    expect(formatIP(ipv4FromNumber(0))).toBe('0.0.0.0');
    expect(formatIP(ipv4FromNumber(0xffff_ffff))).toBe('255.255.255.255');
    expect(() => ipv4FromNumber(-1)).toThrow(/IPv4 value out of range: -1/);
    expect(() => ipv4FromNumber(2 ** 32)).toThrow(RangeError);
  });

  test('ipEquals compares the value; isIPv6 parses sloppily, as netutils.IsIPv6String', () => {
    expect(ipEquals(ip('1.2.3.4'), ip('1.2.3.5'))).toBe(false);
    expect(ipEquals(ip('1.2.3.4'), ip('::ffff:1.2.3.4'))).toBe(true);
    expect(isIPv6('fd00::00001')).toBe(true);
    expect(isIPv4('010.1.1.1')).toBe(true);
  });
});

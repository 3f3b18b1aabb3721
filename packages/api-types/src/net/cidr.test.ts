import { mustParseCIDR as cidr, mustParseIP as ip } from '@kubesvc/testkit';
import { describe, expect, test } from 'vitest';
import {
  cidrContains,
  cidrEquals,
  cidrFamily,
  cidrFromIP,
  formatCIDR,
  parseCIDR,
  parseCIDRSloppy,
  parseCIDRStrict,
} from './cidr.js';
import { formatIP } from './ip.js';

/** "ip network" as Go prints ParseCIDR's two results, or the error. */
function show(s: string, parse = parseCIDR): string {
  const r = parse(s);
  return r.ok ? `${formatIP(r.value.ip)} ${formatCIDR(r.value.cidr)}` : r.error.message;
}

describe('parseCIDR, as net.ParseCIDR', () => {
  // Go src/net/ip_test.go parseCIDRTests, printed with IP.String and IPNet.String.
  test.each([
    ['135.104.0.0/32', '135.104.0.0 135.104.0.0/32'],
    ['0.0.0.0/24', '0.0.0.0 0.0.0.0/24'],
    ['135.104.0.0/24', '135.104.0.0 135.104.0.0/24'],
    ['135.104.0.1/32', '135.104.0.1 135.104.0.1/32'],
    ['135.104.0.1/24', '135.104.0.1 135.104.0.0/24'],
    ['10.96.0.1/12', '10.96.0.1 10.96.0.0/12'],
    ['0.0.0.0/0', '0.0.0.0 0.0.0.0/0'],
    ['255.255.255.255/1', '255.255.255.255 128.0.0.0/1'],
    ['::1/128', '::1 ::1/128'],
    ['abcd:2345::/127', 'abcd:2345:: abcd:2345::/127'],
    ['abcd:2345::/65', 'abcd:2345:: abcd:2345::/65'],
    ['abcd:2345::/24', 'abcd:2345:: abcd:2300::/24'],
    ['2001:DB8::/48', '2001:db8:: 2001:db8::/48'],
    ['2001:DB8::1/48', '2001:db8::1 2001:db8::/48'],
    ['::/0', ':: ::/0'],
    // Go's dtoi accepts leading zeros in the prefix length (netip.ParsePrefix does not).
    ['10.0.0.0/08', '10.0.0.0 10.0.0.0/8'],
    ['2001:db8::/064', '2001:db8:: 2001:db8::/64'],
    // IPv4-mapped text: the limit is 128, and Go's IPNet prints the block as IPv4 from /96 up.
    ['::ffff:1.2.3.4/120', '1.2.3.4 1.2.3.0/24'],
    ['::ffff:1.2.3.4/128', '1.2.3.4 1.2.3.4/32'],
    ['::ffff:1.2.3.4/96', '1.2.3.4 0.0.0.0/0'],
    ['::ffff:c0a8:0101/104', '192.168.1.1 192.0.0.0/8'],
    // Below /96 the ffff marker is masked away: an IPv6 block not containing its own address.
    ['::ffff:1.2.3.4/64', '1.2.3.4 ::/64'],
    ['::ffff:1.2.3.4/95', '1.2.3.4 ::fffe:0:0/95'],
  ])('%s gives %s', (input, want) => {
    expect(show(input)).toBe(want);
  });

  test.each([
    '',
    '192.168.1.1',
    'not.legit/22',
    '192.168.1.1/255.255.255.0',
    '192.168.1.1/35',
    '1.2.3.4/33',
    '::/129',
    '::ffff:1.2.3.4/129',
    '2001:db8::1/-1',
    '2001:db8::1/-0',
    '-0.0.0.0/32',
    '0.-1.0.0/32',
    '0.0.0.0/-0',
    '127.000.000.001/32',
    '010.0.0.0/8',
    '10.0.0.0/',
    '10.0.0.0/+8',
    '10.0.0.0/ 8',
    '10.0.0.0/8 ',
    '10.0.0.0/8/8',
    '10.0.0.0/0x8',
    '10.0.0.0/16777215',
    'fe80::1%eth0/64',
    '/24',
  ])('%j is invalid with Go\'s text', (input) => {
    expect(parseCIDR(input)).toEqual({ ok: false, error: { _tag: 'ErrInvalidCIDR', message: `invalid CIDR address: ${input}` } });
  });

  test('prefix length up to the dtoi limit is parsed then range-checked', () => {
    expect(parseCIDR('10.0.0.0/0000000000032').ok).toBe(true);
    expect(parseCIDR('10.0.0.0/000000000033').ok).toBe(false);
  });
});

describe('parseCIDRSloppy, as netutils.ParseCIDRSloppy', () => {
  test.each([
    ['010.0.0.0/8', '10.0.0.0 10.0.0.0/8'],
    ['010.096.000.001/012', '10.96.0.1 10.96.0.0/12'],
    ['::ffff:010.1.2.3/120', '10.1.2.3 10.1.2.0/24'],
    ['10.96.0.0/12', '10.96.0.0 10.96.0.0/12'],
  ])('%s gives %s', (input, want) => {
    expect(show(input, parseCIDRSloppy)).toBe(want);
  });

  test('still rejects what is not a CIDR', () => {
    expect(parseCIDRSloppy('0256.0.0.0/8')).toEqual({ ok: false, error: { _tag: 'ErrInvalidCIDR', message: 'invalid CIDR address: 0256.0.0.0/8' } });
    expect(parseCIDRSloppy('10.0.0.0')).toEqual({ ok: false, error: { _tag: 'ErrInvalidCIDR', message: 'invalid CIDR address: 10.0.0.0' } });
  });
});

describe('parseCIDRStrict', () => {
  test('accepts a network address and returns the block', () => {
    expect(formatCIDR(cidr('10.96.0.0/12'))).toBe('10.96.0.0/12');
    expect(formatCIDR(cidr('2001:DB8:0::/64'))).toBe('2001:db8::/64');
    expect(formatCIDR(cidr('::ffff:10.0.0.0/104'))).toBe('10.0.0.0/8');
    expect(formatCIDR(cidr('0.0.0.0/0'))).toBe('0.0.0.0/0');
    expect(formatCIDR(cidr('1.2.3.4/32'))).toBe('1.2.3.4/32');
  });

  test.each([
    ['10.96.0.1/12', '10.96.0.0/12'],
    ['192.168.1.5/24', '192.168.1.0/24'],
    ['2001:db8::1/64', '2001:db8::/64'],
    ['1.2.3.4/0', '0.0.0.0/0'],
    ['::ffff:1.2.3.4/120', '1.2.3.0/24'],
    ['::ffff:1.2.3.4/64', '::/64'],
  ])('%s has host bits set', (input, network) => {
    expect(parseCIDRStrict(input)).toEqual({
      ok: false,
      error: { _tag: 'ErrInvalidCIDR', message: `invalid CIDR value "${input}": host bits are set; did you mean "${network}"?` },
    });
  });

  test('passes parse errors through', () => {
    expect(parseCIDRStrict('10.0.0.0/33')).toEqual({ ok: false, error: { _tag: 'ErrInvalidCIDR', message: 'invalid CIDR address: 10.0.0.0/33' } });
  });
});

describe('block helpers', () => {
  test('cidrFromIP masks host bits and checks the prefix', () => {
    expect(formatCIDR(cidrFromIP(ip('10.96.3.4'), 12))).toBe('10.96.0.0/12');
    expect(formatCIDR(cidrFromIP(ip('2001:db8::ffff'), 112))).toBe('2001:db8::/112');
    expect(formatCIDR(cidrFromIP(ip('2001:db8::ffff'), 0))).toBe('::/0');
    expect(() => cidrFromIP(ip('10.0.0.0'), 33)).toThrow(RangeError);
    expect(() => cidrFromIP(ip('::'), 129)).toThrow(RangeError);
    expect(() => cidrFromIP(ip('::'), -1)).toThrow(RangeError);
    expect(() => cidrFromIP(ip('::'), 1.5)).toThrow(RangeError);
  });

  test('cidrFamily and cidrEquals', () => {
    expect(cidrFamily(cidr('10.0.0.0/8'))).toBe(4);
    expect(cidrFamily(cidr('fd00::/8'))).toBe(6);
    expect(cidrEquals(cidr('10.0.0.0/8'), cidr('::ffff:10.0.0.0/104'))).toBe(true);
    expect(cidrEquals(cidr('10.0.0.0/8'), cidr('10.0.0.0/9'))).toBe(false);
    expect(cidrEquals(cidr('0.0.0.0/0'), cidr('::/0'))).toBe(false);
  });

  // Go src/net/ip_test.go ipNetContainsTests (canonical masks), plus the family rules.
  // Blocks go through parseCIDR, which masks, as Go's tests build IPNets with host bits.
  test.each([
    ['172.16.0.0/12', '172.16.1.1', true],
    ['172.16.0.0/13', '172.24.0.1', false],
    ['2001:db8:1::/47', '2001:db8:1:2::1', true],
    ['2001:db8:2::/47', '2001:db8:1:2::1', false],
    ['10.96.0.0/12', '10.111.255.255', true],
    ['10.96.0.0/12', '10.112.0.0', false],
    ['10.96.0.0/12', '::ffff:10.96.0.1', true],
    ['0.0.0.0/0', '255.255.255.255', true],
    ['::/0', '10.0.0.1', false],
    ['::/0', '::ffff:10.0.0.1', false],
    ['::/0', 'ffff::', true],
    ['0.0.0.0/0', '::', false],
  ])('%s contains %s: %s', (block, address, want) => {
    const parsed = parseCIDR(block);
    expect(parsed.ok && cidrContains(parsed.value.cidr, ip(address))).toBe(want);
  });

  test('every prefix of both families round-trips through formatCIDR', () => {
    for (const [base, bits] of [
      ['203.0.113.77', 32],
      ['2001:db8:85a3:8d3:1319:8a2e:370:7348', 128],
    ] as const) {
      for (let prefix = 0; prefix <= bits; prefix++) {
        const block = cidrFromIP(ip(base), prefix);
        const again = parseCIDRStrict(formatCIDR(block));
        expect(again.ok && cidrEquals(again.value, block)).toBe(true);
      }
    }
  });
});

describe('edges of the prefix length and of parseCIDRStrict', () => {
  test('the prefix length is decimal digits only', () => {
    // '/' and ':' sit just below and just above the digits.
    for (const s of ['10.0.0.0/1/', '10.0.0.0/1:', '10.0.0.0/8a', '10.0.0.0/-8', '10.0.0.0/']) {
      expect(show(s)).toBe(`invalid CIDR address: ${s}`);
    }
  });

  test('parseCIDRStrict reads IPv4 octets strictly, and refuses an address that is not its network', () => {
    expect(parseCIDRStrict('010.0.0.0/8').ok).toBe(false);
    expect(parseCIDRSloppy('010.0.0.0/8').ok).toBe(true);
    // ::ffff:0.0.0.0 is the IPv4 address 0.0.0.0; its /64 is the IPv6 block ::/64.
    const r = parseCIDRStrict('::ffff:0.0.0.0/64');
    expect(r.ok ? formatCIDR(r.value) : r.error.message).toBe('invalid CIDR value "::ffff:0.0.0.0/64": host bits are set; did you mean "::/64"?');
  });

  test('cidrEquals compares the network too; cidrFromIP names a prefix out of range', () => {
    expect(cidrEquals(cidr('10.0.0.0/8'), cidr('11.0.0.0/8'))).toBe(false);
    expect(cidrEquals(cidr('10.0.0.0/8'), cidrFromIP(ip('10.1.0.0'), 8))).toBe(true);
    expect(() => cidrFromIP(ip('10.0.0.1'), 33)).toThrow(/prefix length 33 is out of range for an IPv4 address/);
  });
});

// The strict IP and CIDR checks, against upstream's tables: apimachinery v0.33
// pkg/util/validation/ip_test.go (TestIsValidIP, TestIsValidCIDR, the `err` column: what
// IsValidIP and IsValidCIDR say). Upstream asserts one error whose detail contains the text;
// the full text here is the message its ip.go writes.
import { describe, expect, it } from 'vitest';
import { isValidCIDR, isValidCIDRStrict, isValidIP, isValidIPStrict } from './names.js';

const NOT_AN_IP = 'must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)';
const NOT_A_CIDR = 'must be a valid CIDR value, (e.g. 10.9.8.0/24 or 2001:db8::/64)';

describe('isValidIPStrict (IsValidIP)', () => {
  it.each(['1.2.3.4', '0.0.0.0', '255.255.255.255', '1234::abcd', '::', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'])(
    'accepts %s',
    (ip) => {
      expect(isValidIPStrict(ip)).toEqual([]);
    },
  );

  it.each([
    ['0:0:0:0:0:0:0:0', 'must be in canonical form ("::")'],
    ['0001:002:03:4::', 'must be in canonical form ("1:2:3:4::")'],
    ['1234::ABCD', 'must be in canonical form ("1234::abcd")'],
    ['1.1.1.01', 'must not have leading 0s'],
    ['::ffff:1.1.1.1', 'must not be an IPv4-mapped IPv6 address'],
  ])('refuses %s: %s', (ip, message) => {
    expect(isValidIPStrict(ip)).toEqual([message]);
  });

  it.each([
    '',
    'aaaaaaa',
    'myhost.mydomain',
    '1.2.3.0/24',
    '1.2.3.400',
    '-1.0.0.0',
    '2001:db8::10005',
    '1.2.3.4:80',
    '[2001:db8::1]',
    '[2001:db8::1]:80',
    'example.com:80',
    '1234::abcd%eth0',
    '169.254.0.0%eth0',
  ])('refuses %j as no IP at all', (ip) => {
    expect(isValidIPStrict(ip)).toEqual([NOT_AN_IP]);
  });

  it('keeps the legacy check as it was for the values only strict validation refuses', () => {
    // IsValidIPForLegacyField without strict validation: upstream's `legacyErr` column is empty.
    for (const ip of ['0:0:0:0:0:0:0:0', '1234::ABCD', '1.1.1.01', '::ffff:1.1.1.1']) expect(isValidIP(ip)).toEqual([]);
  });
});

describe('isValidCIDRStrict (IsValidCIDR)', () => {
  it.each(['1.0.0.0/8', '0.0.0.0/0', '1.1.1.1/32', '2001:4860:4860::/48', '::/0', '::1/128'])('accepts %s', (cidr) => {
    expect(isValidCIDRStrict(cidr)).toEqual([]);
  });

  it.each([
    ['2a00:79e0:2:0::/64', 'must be in canonical form ("2a00:79e0:2::/64")'],
    ['2001:DB8::/64', 'must be in canonical form ("2001:db8::/64")'],
    ['1.1.01.0/24', 'must not have leading 0s in IP or prefix length'],
    ['::ffff:1.1.1.0/24', 'must not have an IPv4-mapped IPv6 address'],
    ['::ffff:1.1.1.0/120', 'must not have an IPv4-mapped IPv6 address'],
    ['1.2.3.4/24', 'must not have bits set beyond the prefix length'],
    ['2001:db8::1/64', 'must not have bits set beyond the prefix length'],
    ['192.168.0.0/016', 'must not have leading 0s in IP or prefix length'],
  ])('refuses %s: %s', (cidr, message) => {
    expect(isValidCIDRStrict(cidr)).toEqual([message]);
  });

  it.each(['', 'aaaaaaa', '1.2.3.4', '192.168.0.1/healthz', '192.168.0.1/0/99', '192.168.0.0/-16', '192.168.0.0/+16'])(
    'refuses %j as no CIDR at all',
    (cidr) => {
      expect(isValidCIDRStrict(cidr)).toEqual([NOT_A_CIDR]);
    },
  );

  it('keeps the legacy check as it was for the values only strict validation refuses', () => {
    for (const cidr of ['1.1.01.0/24', '::ffff:1.1.1.0/24', '1.2.3.4/24', '192.168.0.0/016']) expect(isValidCIDR(cidr)).toEqual([]);
  });
});

// upstream: coredns plugin/pkg/dnsutil/reverse.go (ExtractAddressFromReverse) and its tests.
import { describe, expect, it } from 'vitest';
import { addressFromReverse, reverseName } from './reverse-name.js';
import { mustParseIP as ip } from '@kubesvc/testkit';

describe('reverse names', () => {
  it('IPv4: the octets reversed under in-addr.arpa', () => {
    expect(reverseName(ip('10.96.0.1'))).toBe('1.0.96.10.in-addr.arpa');
    expect(addressFromReverse('1.0.96.10.in-addr.arpa')).toStrictEqual(ip('10.96.0.1'));
  });

  it('IPv6: 32 nibbles reversed under ip6.arpa', () => {
    const name = '1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa';
    expect(reverseName(ip('2001:db8::1'))).toBe(name);
    expect(addressFromReverse(name)).toStrictEqual(ip('2001:db8::1'));
  });

  it('an IPv4-mapped ip6.arpa name reads as the IPv4 address, as Go prints it', () => {
    const mapped = [...'00000000000000000000ffff0a600001'].reverse().join('.');
    expect(addressFromReverse(`${mapped}.ip6.arpa`)).toStrictEqual(ip('10.96.0.1'));
  });

  it.each([
    '96.10.in-addr.arpa',
    '1.0.0.96.10.in-addr.arpa',
    '256.0.96.10.in-addr.arpa',
    '01.0.96.10.in-addr.arpa',
    'x.0.96.10.in-addr.arpa',
    '1.0.ip6.arpa',
    `${'g.'.repeat(32)}ip6.arpa`,
    'in-addr.arpa',
    'example.com',
  ])('%s names no address', (name) => {
    expect(addressFromReverse(name)).toBeUndefined();
  });
});

// upstream's tests of the ServiceCIDR lookups (the repair loop's, the allocator's, the
// ServiceCIDR controller's), as vectors.
// upstream: pkg/api/servicecidr/servicecidr_test.go (TestContainsAddress, Test_PrefixContainIP,
//           TestIPToAddr)
import type { ServiceCIDR } from '../objects/service-cidr.js';
import { mustParseCIDR, mustParseIP } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { prefixContainsIP, serviceCIDRsContainingIP } from './service-cidr-match.js';

function serviceCIDR(name: string, ...cidrs: string[]): ServiceCIDR {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs } };
}

const one = [serviceCIDR('kubernetes', '10.0.0.0/24', '2001:db8::/96')];
const two = [...one, serviceCIDR('secondary', '10.0.0.0/16', '2001:db8::/64')];
const three = [one[0], serviceCIDR('kubernetes2', '10.0.0.0/24', '2001:db8::/96'), two[1]] as ServiceCIDR[];

describe('TestContainsAddress', () => {
  const cases: [string, ServiceCIDR[], string, string[]][] = [
    ['only one ServiceCIDR and IPv4 address contained', one, '10.0.0.1', ['kubernetes']],
    ['only one ServiceCIDR and IPv4 address broadcast', one, '10.0.0.255', []],
    ['only one ServiceCIDR and IPv4 address base', one, '10.0.0.0', []],
    ['only one ServiceCIDR and IPv4 address out of range', one, '192.0.0.1', []],
    ['only one ServiceCIDR and IPv6 address contained', one, '2001:db8::2:3', ['kubernetes']],
    ['only one ServiceCIDR and IPv6 address broadcast', one, '2001:db8::ffff:ffff', ['kubernetes']],
    ['only one ServiceCIDR and IPv6 address base', one, '2001:db8::', []],
    ['only one ServiceCIDR and IPv6 address out of range', one, '2002:1:2:3::2', []],
    ['two ServiceCIDR and IPv4 address contained', two, '10.0.0.1', ['kubernetes', 'secondary']],
    ['two ServiceCIDR and IPv4 address broadcast', two, '10.0.0.255', ['secondary']],
    ['two ServiceCIDR and IPv4 address base', two, '10.0.0.0', []],
    ['two ServiceCIDR and IPv4 address out of range', two, '192.0.0.1', []],
    ['two ServiceCIDR and IPv6 address contained', two, '2001:db8::2:3', ['kubernetes', 'secondary']],
    ['two ServiceCIDR and address broadcast', two, '2001:db8::ffff:ffff', ['kubernetes', 'secondary']],
    ['two ServiceCIDR and address base', two, '2001:db8::', []],
    ['two ServiceCIDR and address out of range', two, '2002:1:2:3::2', []],
    ['multiple ServiceCIDR match with overlap', three, '10.0.0.2', ['kubernetes', 'kubernetes2', 'secondary']],
  ];
  for (const [name, cidrs, address, want] of cases) {
    it(name, () => {
      const got = serviceCIDRsContainingIP(cidrs, mustParseIP(address)).map((c) => c.metadata.name ?? '');
      expect(got.sort()).toEqual([...want].sort());
    });
  }
});

describe('Test_PrefixContainIP', () => {
  const cases: [string, string, string, boolean][] = [
    ['IPv4 contains', '192.168.0.0/24', '192.168.0.1', true],
    ['IPv4 network address', '192.168.0.0/24', '192.168.0.0', false],
    ['IPv4 broadcast address', '192.168.0.0/24', '192.168.0.255', false],
    ['IPv4 does not contain', '192.168.0.0/24', '192.168.1.2', false],
    ['IPv6 contains', '2001:db2::/96', '2001:db2::1', true],
    ['IPv6 network address', '2001:db2::/96', '2001:db2::', false],
    ['IPv6 broadcast address', '2001:db2::/96', '2001:db2::ffff:ffff', true],
    ['IPv6 does not contain', '2001:db2::/96', '2001:db2:1:2:3::1', false],
  ];
  for (const [name, prefix, ip, want] of cases) {
    it(name, () => expect(prefixContainsIP(mustParseCIDR(prefix), mustParseIP(ip))).toBe(want));
  }
  it('the broadcast address of an odd IPv4 mask (TestBroadcastAddress: 192.168.0.0/23 -> 192.168.1.255)', () => {
    expect(prefixContainsIP(mustParseCIDR('192.168.0.0/23'), mustParseIP('192.168.1.255'))).toBe(false);
    expect(prefixContainsIP(mustParseCIDR('192.168.0.0/23'), mustParseIP('192.168.1.254'))).toBe(true);
  });
});

describe('reading spec.cidrs as netip.ParsePrefix does', () => {
  it('an IPv4 address written as IPv4-mapped IPv6 is the IPv4 address (TestIPToAddr)', () => {
    expect(serviceCIDRsContainingIP(one, mustParseIP('::ffff:10.0.0.1')).map((c) => c.metadata.name)).toEqual(['kubernetes']);
  });

  it('host bits in a prefix are masked away; a length with a leading zero or an IPv6-written IPv4 block holds nothing', () => {
    const ip = mustParseIP('10.0.0.7');
    expect(serviceCIDRsContainingIP([serviceCIDR('hostbits', '10.0.0.9/24')], ip)).toHaveLength(1);
    expect(serviceCIDRsContainingIP([serviceCIDR('zero', '10.0.0.0/024')], ip)).toEqual([]);
    expect(serviceCIDRsContainingIP([serviceCIDR('mapped', '::ffff:10.0.0.0/120')], ip)).toEqual([]);
    expect(serviceCIDRsContainingIP([serviceCIDR('octal', '010.0.0.0/24')], ip)).toEqual([]);
    expect(serviceCIDRsContainingIP([serviceCIDR('empty'), { metadata: {} } as ServiceCIDR], ip)).toEqual([]);
  });
});

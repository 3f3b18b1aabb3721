import { mustParseIP as ip } from '@kubesvc/testkit';
import { describe, expect, test } from 'vitest';
import {
  isGlobalUnicast,
  isInterfaceLocalMulticast,
  isLinkLocalMulticast,
  isLinkLocalUnicast,
  isLoopback,
  isMulticast,
  isPrivate,
  isUnspecified,
} from './ip-classify.js';

// Expected values are what Go's net.IP methods return (src/net/ip.go; the IPv6 cases of
// Go's own ip_test.go ipAddrScopeTests).
describe('address classes, as Go net.IP methods', () => {
  test.each([
    ['0.0.0.0', true],
    ['::', true],
    ['::ffff:0.0.0.0', true],
    ['0.0.0.1', false],
    ['::1', false],
  ])('isUnspecified(%s) is %s', (s, want) => {
    expect(isUnspecified(ip(s))).toBe(want);
  });

  test.each([
    ['127.0.0.1', true],
    ['127.255.255.254', true],
    ['::ffff:127.1.2.3', true],
    ['126.255.255.255', false],
    ['128.0.0.0', false],
    ['::1', true],
    ['::2', false],
    ['::127.0.0.1', false],
  ])('isLoopback(%s) is %s', (s, want) => {
    expect(isLoopback(ip(s))).toBe(want);
  });

  test.each([
    ['169.254.0.0', true],
    ['169.254.255.255', true],
    ['169.253.255.255', false],
    ['169.255.0.0', false],
    ['fe80::1', true],
    ['febf:ffff::', true],
    ['fec0::1', false],
    ['fe7f::1', false],
  ])('isLinkLocalUnicast(%s) is %s', (s, want) => {
    expect(isLinkLocalUnicast(ip(s))).toBe(want);
  });

  test.each([
    ['224.0.0.0', true],
    ['224.0.0.251', true],
    ['224.0.1.0', false],
    ['223.255.255.255', false],
    ['ff02::1', true],
    ['ff12::1', true], // Go checks only the scope nibble
    ['ff32::2', true],
    ['ff05::2', false],
    ['ff01::1', false],
    ['fe02::1', false],
  ])('isLinkLocalMulticast(%s) is %s', (s, want) => {
    expect(isLinkLocalMulticast(ip(s))).toBe(want);
  });

  test.each([
    ['224.0.0.0', true],
    ['239.255.255.255', true],
    ['240.0.0.0', false],
    ['ff00::', true],
    ['ff0e::1', true],
    ['fe00::', false],
  ])('isMulticast(%s) is %s', (s, want) => {
    expect(isMulticast(ip(s))).toBe(want);
  });

  test.each([
    ['ff01::1', true],
    ['ff11::1', true],
    ['ff02::1', false],
    ['224.0.0.1', false],
  ])('isInterfaceLocalMulticast(%s) is %s', (s, want) => {
    expect(isInterfaceLocalMulticast(ip(s))).toBe(want);
  });

  test.each([
    ['10.0.0.1', true],
    ['172.16.0.1', true],
    ['172.31.255.255', true],
    ['172.32.0.0', false],
    ['172.15.255.255', false],
    ['192.168.0.1', true],
    ['192.169.0.1', false],
    ['fc00::1', true],
    ['fdff::1', true],
    ['fe00::1', false],
  ])('isPrivate(%s) is %s', (s, want) => {
    expect(isPrivate(ip(s))).toBe(want);
  });

  test.each([
    ['10.0.0.1', true],
    ['2001:db8::1', true],
    ['fd00::1', true],
    ['255.255.255.255', false],
    ['0.0.0.0', false],
    ['127.0.0.1', false],
    ['224.0.0.1', false],
    ['169.254.1.1', false],
    ['fe80::1', false],
    ['ff02::1', false],
    ['::1', false],
    ['::', false],
    // IPv4-compatible, not mapped: Go's To4 is nil, so it is not the broadcast address.
    ['::ffff:ffff', true],
  ])('isGlobalUnicast(%s) is %s', (s, want) => {
    expect(isGlobalUnicast(ip(s))).toBe(want);
  });
});

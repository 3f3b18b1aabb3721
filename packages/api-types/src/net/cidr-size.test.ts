import { mustParseCIDR as cidr } from '@kubesvc/testkit';
import { describe, expect, test } from 'vitest';
import { formatIP } from './ip.js';
import { cidrLastValue, cidrSize, cidrSizeCapped, rangeSize } from './cidr-size.js';

describe('cidrSize and cidrSizeCapped', () => {
  test.each([
    ['10.0.0.1/32', 1n],
    ['10.0.0.0/31', 2n],
    ['10.0.0.0/24', 256n],
    ['10.96.0.0/12', 1_048_576n],
    ['0.0.0.0/0', 4_294_967_296n],
    ['2001:db8::/128', 1n],
    ['2001:db8::/112', 65_536n],
    ['2001:db8::/64', 18_446_744_073_709_551_616n],
    ['::/0', 1n << 128n],
  ])('%s holds %s addresses', (block, size) => {
    expect(cidrSize(cidr(block))).toBe(size);
  });

  test('the capped size is a number', () => {
    expect(cidrSizeCapped(cidr('10.0.0.0/24'))).toBe(256);
    expect(cidrSizeCapped(cidr('0.0.0.0/0'))).toBe(4_294_967_296);
    expect(cidrSizeCapped(cidr('2001:db8::/64'))).toBe(Number.MAX_SAFE_INTEGER);
    expect(cidrSizeCapped(cidr('2001:db8::/48'), 65_536)).toBe(65_536);
    expect(cidrSizeCapped(cidr('2001:db8::/120'), 65_536)).toBe(256);
    expect(cidrSizeCapped(cidr('::/0'), 0)).toBe(0);
    expect(() => cidrSizeCapped(cidr('::/0'), -1)).toThrow(RangeError);
    expect(() => cidrSizeCapped(cidr('::/0'), -1)).toThrow(/-1/);
    expect(() => cidrSizeCapped(cidr('::/0'), Number.POSITIVE_INFINITY)).toThrow(RangeError);
  });
});

// k8s.io/utils/net RangeSize as vendored by kubernetes (vendor/k8s.io/utils/net/net.go), and
// the sizes kube-apiserver's ServiceIPRange checks take from it
// (cmd/kube-apiserver/app/options/validation.go, validateClusterIPFlags).
describe('rangeSize, as netutils.RangeSize', () => {
  test.each([
    ['10.0.0.0/24', 256n],
    ['10.0.0.0/29', 8n],
    ['10.0.0.0/30', 4n],
    ['10.0.0.1/32', 1n],
    ['64.0.0.0/2', 1_073_741_824n],
    ['128.0.0.0/1', 0n],
    ['0.0.0.0/0', 0n],
    ['2001:db8::/125', 8n],
    ['2001:db8::/112', 65_536n],
    ['2001:db8::/66', 1n << 62n],
    ['2001:db8::/65', (1n << 63n) - 1n],
    ['2001:db8::/64', (1n << 63n) - 1n],
    ['4000::/2', (1n << 63n) - 1n],
    ['8000::/1', 0n],
    ['::/0', 0n],
  ])('%s is %s', (block, size) => {
    expect(rangeSize(cidr(block))).toBe(size);
  });
});

describe('cidrLastValue', () => {
  test.each([
    ['10.96.0.0/24', '10.96.0.255'],
    ['10.0.0.0/8', '10.255.255.255'],
    ['192.168.1.7/32', '192.168.1.7'],
    ['0.0.0.0/0', '255.255.255.255'],
    ['fd00::/64', 'fd00::ffff:ffff:ffff:ffff'],
    ['2001:db8::/127', '2001:db8::1'],
  ])('%s ends at %s', (text, last) => {
    const block = cidr(text);
    expect(formatIP({ family: block.network.family, value: cidrLastValue(block) })).toBe(last);
  });
});

// The reference's table of range sizes, allocatable addresses and static bands
// (upstream: pkg/registry/core/service/ipallocator/bitmap.go New and calculateRangeOffset,
// bitmap_test.go TestAllocate / TestCalculateRangeOffset).
import { formatIP, parseCIDR } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { allocateIP, allocatedIPs, allocateNextIP, ipAllocatorFree, newIPAllocator } from './ip-allocator.js';
import { calculateIPRangeOffset, ipRangeOf } from './ip-range.js';
import { seededRng } from '@kubesvc/api-types';
import { mustParseCIDR as cidr } from '@kubesvc/testkit';

function fillAll(text: string): string[] {
  let a = newIPAllocator(cidr(text));
  let rng = seededRng(1);
  for (;;) {
    const next = allocateNextIP(a, rng);
    if (!next.ok) break;
    rng = next.value.rng;
    a = next.value.allocator;
  }
  return allocatedIPs(a).map(formatIP);
}

describe('range table', () => {
  const table: ReadonlyArray<readonly [string, number, number]> = [
    ['10.0.0.0/24', 254, 16],
    ['192.168.1.0/25', 126, 16],
    ['10.0.0.0/16', 65534, 256],
    ['10.0.0.0/15', 131070, 256],
    ['10.0.0.0/12', 1048574, 256],
    ['10.0.0.0/21', 2046, 128],
    ['10.0.0.0/28', 14, 0],
    ['10.0.0.0/29', 6, 0],
    ['192.168.1.240/30', 2, 0],
    ['10.0.0.0/31', 0, 0],
    ['10.0.0.0/32', 0, 0],
    ['2001:db8::/112', 65535, 256],
    ['2001:db8::/64', 65535, 256],
    ['2001:db8::/48', 65535, 256],
    ['2001:db8::/120', 255, 16],
    ['2001:db8::/124', 15, 0],
    ['2001:db8::/127', 1, 0],
    ['2001:db8::/128', 0, 0],
    ['0.0.0.0/0', 0, 0],
    ['128.0.0.0/1', 0, 0],
  ];
  it.each(table)('%s: free %i, static band %i', (text, free, offset) => {
    const c = cidr(text);
    expect(ipAllocatorFree(newIPAllocator(c))).toBe(free);
    expect(ipRangeOf(c).max).toBe(free);
    expect(calculateIPRangeOffset(c)).toBe(offset);
  });

  it('a /29 hands out .1 to .6, a /30 .241 and .242, a /127 only ::1', () => {
    expect(fillAll('10.0.0.0/29')).toEqual(['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '10.0.0.6']);
    expect(fillAll('192.168.1.240/30')).toEqual(['192.168.1.241', '192.168.1.242']);
    expect(fillAll('2001:db8::/127')).toEqual(['2001:db8::1']);
    expect(fillAll('10.0.0.0/31')).toEqual([]);
  });

  it('a /24 allocates .1 and .254 but not the network or broadcast address', () => {
    const a = newIPAllocator(cidr('10.0.0.0/24'));
    const ip = (s: string) => {
      const parsed = parseCIDR(`${s}/32`);
      if (!parsed.ok) throw new Error(parsed.error.message);
      return parsed.value.ip;
    };
    expect(allocateIP(a, ip('10.0.0.1')).ok).toBe(true);
    expect(allocateIP(a, ip('10.0.0.254')).ok).toBe(true);
    expect(allocateIP(a, ip('10.0.0.0')).ok).toBe(false);
    expect(allocateIP(a, ip('10.0.0.255')).ok).toBe(false);
  });
});

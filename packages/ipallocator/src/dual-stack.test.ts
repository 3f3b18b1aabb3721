import { formatIP, seededRng } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import {
  allocateIPInFamily,
  allocateNextIPInFamily,
  allocatorIndexForFamily,
  hasIPInFamily,
  newIPAllocators,
  releaseIPInFamily,
  type IPAllocators,
} from './dual-stack.js';
import { mustParseCIDR as cidr, mustParseIP as ip } from '@kubesvc/testkit';

function pair(): IPAllocators {
  const r = newIPAllocators([cidr('10.96.0.0/16'), cidr('fd00:10:96::/112')]);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

describe('dual-stack allocators', () => {
  it('refuses no range, three ranges and two of one family with upstream flag errors', () => {
    const flagError = (message: string) => ({ ok: false, error: { _tag: 'ErrServiceIPRange', message } });
    expect(newIPAllocators([])).toEqual(flagError('--service-cluster-ip-range must contain at least one valid cidr'));
    expect(newIPAllocators([cidr('10.0.0.0/24'), cidr('fd00::/120'), cidr('10.1.0.0/24')])).toEqual(
      flagError('--service-cluster-ip-range must not contain more than two entries'),
    );
    expect(newIPAllocators([cidr('10.0.0.0/24'), cidr('10.1.0.0/24')])).toEqual(
      flagError('--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family'),
    );
  });

  it('chooses the allocator by the family of the IP', () => {
    let allocators = pair();
    expect(allocatorIndexForFamily(allocators, 'IPv6')).toBe(1);
    const v6 = allocateIPInFamily(allocators, ip('fd00:10:96::a'));
    if (!v6.ok) throw new Error(v6.error.message);
    allocators = v6.value;
    expect(hasIPInFamily(allocators, ip('fd00:10:96::a'))).toBe(true);
    expect(allocators[0].bitmap.count).toBe(0);
    const next = allocateNextIPInFamily(allocators, 'IPv4', seededRng(3));
    if (!next.ok) throw new Error(next.error.message);
    expect(next.value.ip.family).toBe(4);
    // The allocators after the IPv4 allocation still hold both families and the IPv6 address.
    expect(next.value.allocators.map((a) => a.family)).toEqual(['IPv4', 'IPv6']);
    expect(hasIPInFamily(next.value.allocators, ip('fd00:10:96::a'))).toBe(true);
    allocators = releaseIPInFamily(next.value.allocators, ip('fd00:10:96::a'));
    expect(hasIPInFamily(allocators, ip('fd00:10:96::a'))).toBe(false);
    expect(hasIPInFamily(allocators, next.value.ip)).toBe(true);
  });

  it('single-stack: an IP of the other family is out of range, and its family is not configured', () => {
    const single = newIPAllocators([cidr('10.0.0.0/24')]);
    if (!single.ok) throw new Error(single.error.message);
    const r = allocateIPInFamily(single.value, ip('fd00::1'));
    expect(r.ok ? 'ok' : r.error.message).toBe(
      'the provided IP (fd00::1) is not in the valid range. The range of valid IPs is 10.0.0.0/24',
    );
    const next = allocateNextIPInFamily(single.value, 'IPv6', seededRng(1));
    // The generator rides on the error, untouched: nothing was drawn.
    expect(next).toEqual({
      ok: false,
      error: { _tag: 'ErrFamilyNotConfigured', family: 'IPv6', message: 'IPv6 is not configured on this cluster', rng: seededRng(1) },
    });
    expect(formatIP(ip('10.0.0.1'))).toBe('10.0.0.1');
  });

  // Each family has its own allocator (upstream serviceIPAllocatorsByFamily): taking an
  // address in one family never drops or changes the other family's allocator.
  it('an allocation in either family keeps the other allocator and its addresses', () => {
    const start = allocateIPInFamily(pair(), ip('10.96.0.10'));
    if (!start.ok) throw new Error(start.error.message);
    const withV6 = allocateIPInFamily(start.value, ip('fd00:10:96::a'));
    if (!withV6.ok) throw new Error(withV6.error.message);
    expect(withV6.value).toHaveLength(2);
    expect(withV6.value[0]).toBe(start.value[0]);
    const withV4 = allocateIPInFamily(withV6.value, ip('10.96.0.11'));
    if (!withV4.ok) throw new Error(withV4.error.message);
    expect(withV4.value).toHaveLength(2);
    expect(withV4.value[1]).toBe(withV6.value[1]);
    for (const held of ['10.96.0.10', '10.96.0.11', 'fd00:10:96::a']) expect(hasIPInFamily(withV4.value, ip(held))).toBe(true);

    const nextV4 = allocateNextIPInFamily(withV4.value, 'IPv4', seededRng(7));
    if (!nextV4.ok) throw new Error(nextV4.error.message);
    expect(nextV4.value.allocators).toHaveLength(2);
    expect(nextV4.value.allocators[1]).toBe(withV4.value[1]);
    const nextV6 = allocateNextIPInFamily(nextV4.value.allocators, 'IPv6', nextV4.value.rng);
    if (!nextV6.ok) throw new Error(nextV6.error.message);
    expect(nextV6.value.ip.family).toBe(6);
    expect(nextV6.value.allocators[0]).toBe(nextV4.value.allocators[0]);
    expect(hasIPInFamily(nextV6.value.allocators, nextV4.value.ip)).toBe(true);
    expect(hasIPInFamily(nextV6.value.allocators, nextV6.value.ip)).toBe(true);
  });

  it('a release in one family keeps the other allocator; releasing what is not held changes nothing', () => {
    const a = allocateIPInFamily(pair(), ip('10.96.0.10'));
    if (!a.ok) throw new Error(a.error.message);
    const b = allocateIPInFamily(a.value, ip('fd00:10:96::a'));
    if (!b.ok) throw new Error(b.error.message);
    const released = releaseIPInFamily(b.value, ip('10.96.0.10'));
    expect(released).toHaveLength(2);
    expect(hasIPInFamily(released, ip('10.96.0.10'))).toBe(false);
    expect(hasIPInFamily(released, ip('fd00:10:96::a'))).toBe(true);
    expect(releaseIPInFamily(released, ip('10.96.0.99'))).toBe(released);
  });

  it('taking an address twice is ErrAllocated, in the secondary family too', () => {
    const a = allocateIPInFamily(pair(), ip('fd00:10:96::a'));
    if (!a.ok) throw new Error(a.error.message);
    const again = allocateIPInFamily(a.value, ip('fd00:10:96::a'));
    expect(again.ok ? 'ok' : again.error._tag).toBe('ErrAllocated');
  });

  it('single-stack: releasing or asking about an IP of the other family is harmless', () => {
    const single = newIPAllocators([cidr('10.0.0.0/24')]);
    if (!single.ok) throw new Error(single.error.message);
    expect(releaseIPInFamily(single.value, ip('fd00::1'))).toBe(single.value);
    expect(hasIPInFamily(single.value, ip('fd00::1'))).toBe(false);
    const v4 = allocateIPInFamily(single.value, ip('10.0.0.5'));
    if (!v4.ok) throw new Error(v4.error.message);
    expect(v4.value).toHaveLength(1);
    expect(hasIPInFamily(v4.value, ip('10.0.0.5'))).toBe(true);
  });

  it('a full family answers ErrFull with the generator, and the allocators stay as they were', () => {
    // A /30 holds two usable addresses: the network and broadcast addresses are never given out.
    const small = newIPAllocators([cidr('10.0.0.0/30'), cidr('fd00::/120')]);
    if (!small.ok) throw new Error(small.error.message);
    let allocators = small.value;
    let rng = seededRng(5);
    for (let i = 0; i < 2; i += 1) {
      const next = allocateNextIPInFamily(allocators, 'IPv4', rng);
      if (!next.ok) throw new Error(next.error.message);
      ({ allocators, rng } = next.value);
    }
    const full = allocateNextIPInFamily(allocators, 'IPv4', rng);
    expect(full.ok ? 'ok' : full.error._tag).toBe('ErrFull');
    expect(full.ok ? 'ok' : full.error.message).toBe('range is full');
    const v6 = allocateNextIPInFamily(allocators, 'IPv6', rng);
    expect(v6.ok && v6.value.ip.family).toBe(6);
  });

  it('refuses what is not an array of CIDR values, naming what it got', () => {
    const r = newIPAllocators('10.0.0.0/24' as never);
    expect(r.ok ? 'ok' : r.error.message).toBe('newIPAllocators: expected an array of CIDRs (parseCIDR\'s value), got the string "10.0.0.0/24"');
  });
});

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
    expect(allocators.map((a) => a.family)).toEqual(['IPv4', 'IPv6']);
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
});

// The entry points that take outside data refuse a wrong shape with an error value.
import { mustParseCIDR } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { newIPAllocators } from './dual-stack.js';
import { ipAllocatorFromSnapshot, newIPAllocator, restoreIPAllocator } from './ip-allocator.js';
import { repairClusterIPs } from './repair.js';
import { serviceIPRange } from './service-ip-range.js';

describe('wrong shapes are error values', () => {
  it('newIPAllocators with strings, as JavaScript may call it, says what it wanted', () => {
    expect(newIPAllocators(['10.0.0.0/24'] as never)).toEqual({
      ok: false,
      error: { _tag: 'ErrServiceIPRange', message: `newIPAllocators: cidrs[0] is not a CIDR value (parseCIDR's), got the string "10.0.0.0/24"` },
    });
    expect(newIPAllocators('10.0.0.0/24' as never)).toMatchObject({ ok: false, error: { _tag: 'ErrServiceIPRange' } });
    expect(newIPAllocators([mustParseCIDR('10.0.0.0/24')])).toMatchObject({ ok: true });
  });

  it('serviceIPRange with a number', () => {
    expect(serviceIPRange(24 as never)).toEqual({ ok: false, error: { _tag: 'ErrServiceIPRange', message: 'serviceIPRange: expected a CIDR or its text, got number 24' } });
  });

  it('a snapshot without data', () => {
    expect(ipAllocatorFromSnapshot({ range: '10.0.0.0/24' } as never)).toEqual({
      ok: false,
      error: { _tag: 'ErrInvalidSnapshot', message: 'snapshot data: expected base64 text or bytes, got undefined undefined' },
    });
    expect(restoreIPAllocator(newIPAllocator(mustParseCIDR('10.0.0.0/24')), null as never)).toMatchObject({ ok: false, error: { _tag: 'ErrInvalidSnapshot' } });
  });

  it('repair with a service whose spec is not an object, checked with the Service schema', () => {
    const result = repairClusterIPs({ networks: [mustParseCIDR('10.0.0.0/24')], services: [{ metadata: {}, spec: 'x' }] as never });
    expect(result.ok ? '' : result.error.message).toMatch(/^repairClusterIPs: services\[0\]\.spec: /);
    expect(repairClusterIPs({ networks: ['10.0.0.0/24'], services: [] } as never)).toMatchObject({ ok: false, error: { _tag: 'ErrRepair' } });
  });
});

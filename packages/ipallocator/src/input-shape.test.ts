// The entry points that take outside data refuse a wrong shape with an error value.
import { mustParseCIDR } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { newIPAllocators } from './dual-stack.js';
import { ipAllocatorFromSnapshot, newIPAllocator, restoreIPAllocator } from './ip-allocator.js';
import { isCIDRValue, isIPValue } from './input-shape.js';
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

describe('the IP and CIDR values parseIP and parseCIDR return, and nothing else', () => {
  it('an IP is a family 4 value below 2^32 or a family 6 value below 2^128, as a bigint', () => {
    const accepted = [
      { family: 4, value: 0n },
      { family: 4, value: 0xffff_ffffn },
      { family: 6, value: 0n },
      { family: 6, value: (1n << 128n) - 1n },
    ];
    for (const v of accepted) expect(isIPValue(v)).toBe(true);
    const refused = [
      { family: 4, value: 1n << 32n },
      { family: 6, value: 1n << 128n },
      { family: 4, value: -1n },
      { family: 6, value: -1n },
      { family: 4, value: 1 },
      { family: 4, value: '1' },
      { family: 5, value: 1n },
      { value: 1n },
      null,
      '10.0.0.1',
    ];
    for (const v of refused) expect(isIPValue(v)).toBe(false);
  });

  it('a CIDR has an IP network and a whole prefix from 0 to the family\'s bits', () => {
    const v4 = { family: 4, value: 0x0a00_0000n };
    const v6 = { family: 6, value: 0n };
    for (const prefix of [0, 24, 32]) expect(isCIDRValue({ network: v4, prefix })).toBe(true);
    for (const prefix of [0, 64, 128]) expect(isCIDRValue({ network: v6, prefix })).toBe(true);
    for (const prefix of [33, 128, -1, 1.5, '24', undefined]) expect(isCIDRValue({ network: v4, prefix })).toBe(false);
    for (const prefix of [129, -1, Number.NaN]) expect(isCIDRValue({ network: v6, prefix })).toBe(false);
    expect(isCIDRValue({ network: { family: 4, value: 1 }, prefix: 24 })).toBe(false);
    expect(isCIDRValue(null)).toBe(false);
    expect(isCIDRValue(mustParseCIDR('10.0.0.0/24'))).toBe(true);
  });
});

describe('repairClusterIPs names what is wrong with its input', () => {
  const network = mustParseCIDR('10.0.0.0/24');
  const message = (input: unknown): string => {
    const r = repairClusterIPs(input as never);
    return r.ok ? 'ok' : `${r.error._tag}: ${r.error.message}`;
  };

  it('the input, its networks, snapshots and leaks', () => {
    expect(message(null)).toBe('ErrRepair: repairClusterIPs: expected { networks, services, snapshots?, leaks? }, got null');
    expect(message('x')).toMatch(/^ErrRepair: repairClusterIPs: expected \{ networks, services, snapshots\?, leaks\? \}, got /);
    expect(message({ networks: 'x', services: [] })).toMatch(/^ErrRepair: repairClusterIPs: networks: expected an array of CIDRs, got /);
    expect(message({ networks: [network, { prefix: 24 }], services: [] })).toMatch(/^ErrRepair: repairClusterIPs: networks\[1\] is not a CIDR value \(parseCIDR's\), got /);
    expect(message({ networks: [network], services: [], snapshots: 'x' })).toMatch(/^ErrRepair: repairClusterIPs: snapshots: expected an array, got /);
    expect(message({ networks: [network], services: [], snapshots: [undefined, 7] })).toMatch(/^ErrRepair: repairClusterIPs: snapshots\[1\]: /);
    expect(message({ networks: [network], services: [], leaks: 'x' })).toMatch(/^ErrRepair: repairClusterIPs: leaks: expected an object, got /);
    expect(message({ networks: [network], services: [], leaks: null })).toMatch(/^ErrRepair: repairClusterIPs: leaks: expected an object, got /);
    // What is optional may be left out, and an absent snapshot in the list is allowed.
    expect(message({ networks: [network], services: [], snapshots: [undefined], leaks: {} })).toBe('ok');
    expect(message({ networks: [network], services: [] })).toBe('ok');
  });
});

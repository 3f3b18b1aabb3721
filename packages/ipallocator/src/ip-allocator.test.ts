// Worked examples of the ClusterIP allocator (upstream: pkg/registry/core/service/ipallocator/
// bitmap_test.go TestAllocate, TestAllocateTiny, TestSnapshot, TestNewFromSnapshot,
// TestAllocateReserved / the /25 static band, the metrics test on a /112).
import { formatIP, rangeAllocationBytes, seededRng, type IP, type Rng } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import {
  allocateIP,
  allocateIPDryRun,
  allocateNextIP,
  allocateNextIPDryRun,
  allocateNextIPs,
  allocatedIPs,
  hasIP,
  ipAllocatorFree,
  ipAllocatorFromSnapshot,
  ipAllocatorSnapshotData,
  ipAllocatorUsed,
  newIPAllocator,
  releaseIP,
  releaseIPDryRun,
  restoreIPAllocator,
  snapshotIPAllocator,
  type IPAllocator,
} from './ip-allocator.js';
import { mustParseCIDR as cidr, mustParseIP as ip } from '@kubesvc/testkit';

function take(a: IPAllocator, text: string): IPAllocator {
  const r = allocateIP(a, ip(text));
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function next(a: IPAllocator, rng: Rng, n: number): { allocator: IPAllocator; rng: Rng; ips: IP[] } {
  let allocator = a;
  let r = rng;
  const ips: IP[] = [];
  for (let i = 0; i < n; i++) {
    const result = allocateNextIP(allocator, r);
    if (!result.ok) {
      r = result.error.rng;
      break;
    }
    r = result.value.rng;
    allocator = result.value.allocator;
    ips.push(result.value.ip);
  }
  return { allocator, rng: r, ips };
}

describe('the allocator value', () => {
  it('tells its family, and keeps the range and band offset under range, as the port allocator does', () => {
    const v4 = newIPAllocator(cidr('10.96.0.0/16'));
    const v6 = newIPAllocator(cidr('fd00::/112'));
    expect(v4.family).toBe('IPv4');
    expect(v6.family).toBe('IPv6');
    expect(v4.range).toMatchObject({ rangeSpec: '10.96.0.0/16', max: 65534, bandOffset: 256 });
    // Every operation keeps the family.
    expect(take(v6, 'fd00::5').family).toBe('IPv6');
  });
});

describe('allocate', () => {
  it('reports upstream errors with their text', () => {
    let a = newIPAllocator(cidr('192.168.1.0/24'));
    a = take(a, '192.168.1.10');
    const again = allocateIP(a, ip('192.168.1.10'));
    expect(again).toEqual({ ok: false, error: { _tag: 'ErrAllocated', message: 'provided IP is already allocated' } });
    const outside = allocateIP(a, ip('192.168.0.1'));
    expect(outside.ok).toBe(false);
    if (!outside.ok) {
      expect(outside.error.message).toBe(
        'the provided IP (192.168.0.1) is not in the valid range. The range of valid IPs is 192.168.1.0/24',
      );
    }
    for (const bad of ['192.168.1.0', '192.168.1.255', '10.0.0.1', '2001:db8::1']) {
      const r = allocateIP(a, ip(bad));
      expect(r.ok ? 'ok' : r.error._tag).toBe('ErrNotInRange');
    }
  });

  it('IPv6 ranges are capped at 65536: 2001:db8:1::1:0 is out of a /48', () => {
    const a = newIPAllocator(cidr('2001:db8:1::/48'));
    const r = allocateIP(a, ip('2001:db8:1::1:0'));
    expect(r.ok ? 'ok' : r.error.message).toBe(
      'the provided IP (2001:db8:1::1:0) is not in the valid range. The range of valid IPs is 2001:db8:1::/48',
    );
    expect(allocateIP(a, ip('2001:db8:1::ffff')).ok).toBe(true);
  });

  it('release of an IP outside the range or not taken changes nothing', () => {
    const a = take(newIPAllocator(cidr('10.0.0.0/24')), '10.0.0.5');
    expect(releaseIP(a, ip('10.1.0.5'))).toBe(a);
    expect(releaseIP(a, ip('10.0.0.6'))).toBe(a);
    const released = releaseIP(a, ip('10.0.0.5'));
    expect(hasIP(released, ip('10.0.0.5'))).toBe(false);
    expect(hasIP(a, ip('10.0.0.5'))).toBe(true);
  });
});

describe('allocateNext', () => {
  it('a /25 fills its dynamic band .17-.126 in 110 calls and leaves .1-.16 (free 16)', () => {
    const { allocator, rng } = next(newIPAllocator(cidr('192.168.1.0/25')), seededRng(2024), 110);
    expect(ipAllocatorFree(allocator)).toBe(16);
    expect(allocatedIPs(allocator).map(formatIP)).toEqual(Array.from({ length: 110 }, (_, i) => `192.168.1.${17 + i}`));
    const rest = next(allocator, rng, 20);
    expect(rest.ips.map(formatIP).sort()).toEqual(Array.from({ length: 16 }, (_, i) => `192.168.1.${1 + i}`).sort());
    const full = allocateNextIP(rest.allocator, rest.rng);
    // A full range draws nothing: the generator on the error is the one passed in.
    expect(full.ok ? 'ok' : full.error).toEqual({ _tag: 'ErrFull', message: 'range is full', rng: rest.rng });
  });

  it('a /32 is always full', () => {
    const r = allocateNextIP(newIPAllocator(cidr('192.168.1.1/32')), seededRng(1));
    expect(r.ok ? 'ok' : r.error.message).toBe('range is full');
  });

  it('a /112 after 264 allocations has 65271 free', () => {
    const { allocator } = next(newIPAllocator(cidr('2001:db8::/112')), seededRng(5), 264);
    expect(ipAllocatorFree(allocator)).toBe(65271);
    expect(ipAllocatorUsed(allocator)).toBe(264);
  });

  it('the same seed gives the same IPs', () => {
    const a = next(newIPAllocator(cidr('10.96.0.0/16')), seededRng(77), 50).ips.map(formatIP);
    const b = next(newIPAllocator(cidr('10.96.0.0/16')), seededRng(77), 50).ips.map(formatIP);
    expect(a).toEqual(b);
  });
});

describe('dry run', () => {
  it('checks the range only, hands out the network address and never changes the allocator', () => {
    const a = take(newIPAllocator(cidr('10.0.0.0/24')), '10.0.0.5');
    const dry = allocateIPDryRun(a, ip('10.0.0.5'));
    expect(dry.ok && dry.value).toBe(a);
    expect(allocateIPDryRun(a, ip('10.0.1.5')).ok).toBe(false);
    // upstream contains(): base is network + 1, so offset 0 is .1 and the network address is out;
    // max excludes the broadcast address; an IPv6 address is never in an IPv4 range, even
    // when its number falls inside (::a00:5 is 10.0.0.5 as a number).
    const dryTag = (text: string): string => {
      const r = allocateIPDryRun(a, ip(text));
      return r.ok ? 'ok' : r.error._tag;
    };
    expect(['10.0.0.1', '10.0.0.254', '10.0.0.0', '10.0.0.255', '::a00:5'].map(dryTag)).toEqual(['ok', 'ok', 'ErrNotInRange', 'ErrNotInRange', 'ErrNotInRange']);
    const nextDry = allocateNextIPDryRun(a);
    expect(formatIP(nextDry.value.ip)).toBe('10.0.0.0');
    expect(nextDry.value.allocator).toBe(a);
    expect(releaseIPDryRun(a, ip('10.0.0.5'))).toBe(a);
  });
});

describe('snapshot and restore', () => {
  it('writes the range as Go prints it and the bytes big-endian', () => {
    let a = newIPAllocator(cidr('192.168.1.0/24'));
    a = take(a, '192.168.1.1'); // offset 0
    a = take(a, '192.168.1.10'); // offset 9
    const { range, data } = ipAllocatorSnapshotData(a);
    expect(range).toBe('192.168.1.0/24');
    expect([...data]).toEqual([0x02, 0x01]);
    const object = snapshotIPAllocator(a);
    expect(object).toEqual({ apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range: '192.168.1.0/24', data: 'AgE=' });
    expect([...rangeAllocationBytes(object)]).toEqual([0x02, 0x01]);
  });

  it('offset 253 of a /24 (192.168.1.254) is 0x20 then 31 zero bytes', () => {
    const a = take(newIPAllocator(cidr('192.168.1.0/24')), '192.168.1.254');
    expect([...ipAllocatorSnapshotData(a).data]).toEqual([0x20, ...new Array<number>(31).fill(0)]);
  });

  it('keeps the metadata of the object it snapshots into', () => {
    const into = { apiVersion: 'v1' as const, kind: 'RangeAllocation' as const, metadata: { resourceVersion: '7' }, range: '', data: '' };
    expect(snapshotIPAllocator(newIPAllocator(cidr('10.0.0.0/24')), into).metadata).toEqual({ resourceVersion: '7' });
  });

  it('restore refuses another network', () => {
    const a = newIPAllocator(cidr('192.168.1.0/24'));
    expect(restoreIPAllocator(a, { range: '192.168.0.0/24', data: new Uint8Array([1]) })).toEqual({
      ok: false,
      error: { _tag: 'ErrMismatchedNetwork', message: 'the provided network does not match the current range' },
    });
    expect(restoreIPAllocator(a, { range: '192.168.1.0/25', data: new Uint8Array([1]) }).ok).toBe(false);
    expect(restoreIPAllocator(a, { range: 'bogus', data: '' })).toEqual({
      ok: false,
      error: { _tag: 'ErrInvalidSnapshot', message: 'invalid CIDR address: bogus' },
    });
    const restored = restoreIPAllocator(a, { range: '192.168.1.0/24', data: new Uint8Array([0x02, 0x01]) });
    expect(restored.ok && allocatedIPs(restored.value).map(formatIP)).toEqual(['192.168.1.1', '192.168.1.10']);
  });

  it('snapshot and restore take and give the same forms: the RangeAllocation, or the bytes', () => {
    let a = newIPAllocator(cidr('fd00:10:96::/112'));
    a = take(a, 'fd00:10:96::1');
    a = take(a, 'fd00:10:96::ff');
    const empty = newIPAllocator(cidr('fd00:10:96::/112'));
    const object = snapshotIPAllocator(a);
    const bytes = ipAllocatorSnapshotData(a);
    for (const back of [restoreIPAllocator(empty, object), restoreIPAllocator(empty, bytes), ipAllocatorFromSnapshot(object), ipAllocatorFromSnapshot(bytes)]) {
      expect(back.ok && allocatedIPs(back.value).map(formatIP)).toEqual(['fd00:10:96::1', 'fd00:10:96::ff']);
      // What comes back snapshots to what went in, in both forms.
      expect(back.ok && snapshotIPAllocator(back.value)).toEqual(object);
      expect(back.ok && ipAllocatorSnapshotData(back.value)).toEqual(bytes);
    }
  });

  it('data that is not base64 is ErrInvalidSnapshot, from a stored object and on restore', () => {
    // The Data field is []byte: upstream's JSON decoding refuses text that is not base64.
    const bad = { range: '192.168.1.0/24', data: 'A*E=' };
    expect(ipAllocatorFromSnapshot(bad)).toMatchObject({ ok: false, error: { _tag: 'ErrInvalidSnapshot' } });
    expect(restoreIPAllocator(newIPAllocator(cidr('192.168.1.0/24')), bad)).toMatchObject({ ok: false, error: { _tag: 'ErrInvalidSnapshot' } });
  });

  it('builds an allocator from a stored object, reading its range sloppily', () => {
    const r = ipAllocatorFromSnapshot({ range: '010.000.000.000/24', data: 'AgE=' });
    expect(r.ok && allocatedIPs(r.value).map(formatIP)).toEqual(['10.0.0.1', '10.0.0.10']);
    expect(ipAllocatorFromSnapshot({ range: 'bogus', data: '' })).toEqual({
      ok: false,
      error: { _tag: 'ErrInvalidSnapshot', message: 'invalid CIDR address: bogus' },
    });
  });
});

describe('allocateNextIPs (batch)', () => {
  it('gives the IPs, the state and the generator of the same number of single calls', () => {
    const start = take(newIPAllocator(cidr('10.96.0.0/20')), '10.96.3.3');
    const single = next(start, seededRng(12), 5000);
    const batch = allocateNextIPs(start, seededRng(12), 5000);
    expect(batch.ips.map(formatIP)).toEqual(single.ips.map(formatIP));
    expect(batch.rng).toEqual(single.rng);
    expect(batch.full).toBe(true);
    expect(ipAllocatorSnapshotData(batch.allocator)).toEqual(ipAllocatorSnapshotData(single.allocator));
    expect(ipAllocatorUsed(start)).toBe(1);
  });
});

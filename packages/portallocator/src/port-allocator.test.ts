// upstream: pkg/registry/core/service/portallocator/allocator_test.go (TestAllocate,
// TestSnapshot, TestNewFromSnapshot, TestAllocateReserved) on 10000-10200 and 30000-32767.
import { rangeAllocationBytes, seededRng, type Rng } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import {
  allocateNextPort,
  allocateNextPortDryRun,
  allocateNextPorts,
  allocatePort,
  allocatePortDryRun,
  allocatedPorts,
  hasPort,
  newPortAllocator,
  portAllocatorFree,
  portAllocatorFromSnapshot,
  portAllocatorSnapshotData,
  portAllocatorUsed,
  releasePort,
  releasePortDryRun,
  restorePortAllocator,
  snapshotPortAllocator,
  type PortAllocator,
} from './port-allocator.js';

const R10000 = { base: 10000, size: 201 };
const DEFAULT = { base: 30000, size: 2768 };

function fill(a: PortAllocator, rng: Rng, n: number): { allocator: PortAllocator; ports: number[]; rng: Rng } {
  let allocator = a;
  let r = rng;
  const ports: number[] = [];
  for (let i = 0; i < n; i++) {
    const next = allocateNextPort(allocator, r);
    if (!next.ok) {
      r = next.error.rng;
      break;
    }
    ({ allocator, rng: r } = next.value);
    ports.push(next.value.port);
  }
  return { allocator, ports, rng: r };
}

describe('the allocator value', () => {
  it('keeps the range and band offset under range, as the IP allocator does', () => {
    const a = newPortAllocator(DEFAULT);
    expect(a.range).toEqual({ portRange: DEFAULT, rangeSpec: '30000-32767', base: 30000, max: 2768, bandOffset: 86 });
    const r = allocatePort(a, 30001);
    expect(r.ok && r.value.range).toBe(a.range);
  });
});

describe('allocate', () => {
  it('10000-10200 has 201 free; when full, 1, 20000 and 10201 are not in range', () => {
    const a = newPortAllocator(R10000);
    expect(portAllocatorFree(a)).toBe(201);
    const { allocator, rng } = fill(a, seededRng(3), 201);
    expect(portAllocatorFree(allocator)).toBe(0);
    expect(portAllocatorUsed(allocator)).toBe(201);
    expect(allocatedPorts(allocator)).toEqual(Array.from({ length: 201 }, (_, i) => 10000 + i));
    const full = allocateNextPort(allocator, rng);
    // A full range draws nothing: the generator on the error is the one passed in.
    expect(full.ok ? 'ok' : full.error).toEqual({ _tag: 'ErrFull', message: 'range is full', rng });
    for (const port of [1, 20000, 10201]) {
      const r = allocatePort(allocator, port);
      expect(r.ok ? 'ok' : r.error.message).toBe('provided port is not in the valid range. The range of valid ports is 10000-10200');
    }
    const taken = allocatePort(allocator, 10100);
    expect(taken.ok ? 'ok' : taken.error).toEqual({ _tag: 'ErrAllocated', message: 'provided port is already allocated' });
  });

  it('release outside the range or of a free port changes nothing', () => {
    const a = newPortAllocator(R10000);
    const r = allocatePort(a, 10005);
    if (!r.ok) throw new Error(r.error.message);
    expect(releasePort(r.value, 80)).toBe(r.value);
    expect(releasePort(r.value, 10006)).toBe(r.value);
    expect(hasPort(releasePort(r.value, 10005), 10005)).toBe(false);
    expect(hasPort(r.value, 10005)).toBe(true);
  });
});

describe('allocateNext with the static band', () => {
  it('30000-32767 fills 30086-32767 before any of 30000-30085', () => {
    const { allocator, rng } = fill(newPortAllocator(DEFAULT), seededRng(9), 2768 - 86);
    expect(allocatedPorts(allocator)).toEqual(Array.from({ length: 2768 - 86 }, (_, i) => 30086 + i));
    const next = allocateNextPort(allocator, rng);
    expect(next.ok && next.value.port < 30086).toBe(true);
  });
  it('the same seed gives the same ports', () => {
    expect(fill(newPortAllocator(DEFAULT), seededRng(4), 30).ports).toEqual(fill(newPortAllocator(DEFAULT), seededRng(4), 30).ports);
  });
});

describe('dry run (PortAllocationOperation with dryRun)', () => {
  it('refuses a taken or pending port, checks nothing else, and hands out dummy ports from 32769', () => {
    const taken = allocatePort(newPortAllocator(R10000), 10000);
    if (!taken.ok) throw new Error(taken.error.message);
    const a = taken.value;
    expect(allocatePortDryRun(a, 10000)).toEqual({ ok: false, error: { _tag: 'ErrAllocated', message: 'provided port is already allocated' } });
    expect(allocatePortDryRun(a, 10001, [10001]).ok).toBe(false);
    const dry = allocatePortDryRun(a, 9999);
    expect(dry.ok && dry.value).toBe(a);
    expect(allocateNextPortDryRun(a)).toEqual({ ok: true, value: { port: 32769, allocator: a } });
    expect(allocateNextPortDryRun(a, [32769, 30000])).toEqual({ ok: true, value: { port: 32770, allocator: a } });
    expect(allocateNextPortDryRun(a, [5, 6])).toEqual({ ok: true, value: { port: 7, allocator: a } });
    expect(releasePortDryRun(a, 10000)).toBe(a);
    expect(allocatedPorts(a)).toEqual([10000]);
  });
});

describe('snapshot and restore', () => {
  it('writes the range as PortRange prints it and upstream bytes', () => {
    let a = newPortAllocator(DEFAULT);
    for (const port of [30000, 30009]) {
      const r = allocatePort(a, port);
      if (!r.ok) throw new Error(r.error.message);
      a = r.value;
    }
    expect([...portAllocatorSnapshotData(a).data]).toEqual([0x02, 0x01]);
    const object = snapshotPortAllocator(a);
    expect(object).toEqual({ apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range: '30000-32767', data: 'AgE=' });
    expect([...rangeAllocationBytes(object)]).toEqual([2, 1]);
    const back = portAllocatorFromSnapshot(object);
    expect(back.ok && allocatedPorts(back.value)).toEqual([30000, 30009]);
  });
  it('restore refuses another range, and a range that does not parse', () => {
    const a = newPortAllocator(DEFAULT);
    expect(restorePortAllocator(a, { range: '30000-32766', data: new Uint8Array([1]) })).toEqual({
      ok: false,
      error: { _tag: 'ErrMismatchedNetwork', message: 'the provided port range does not match the current port range' },
    });
    expect(restorePortAllocator(a, { range: '5-1', data: '' })).toEqual({
      ok: false,
      error: { _tag: 'ErrInvalidSnapshot', message: 'end port cannot be less than start port: 5-1' },
    });
    const ok = restorePortAllocator(a, { range: '30000-32767', data: new Uint8Array([1]) });
    expect(ok.ok && allocatedPorts(ok.value)).toEqual([30000]);
  });
  it('snapshot and restore take and give the same forms: the RangeAllocation, or the bytes', () => {
    let a = newPortAllocator(R10000);
    for (const port of [10000, 10200]) {
      const r = allocatePort(a, port);
      if (!r.ok) throw new Error(r.error.message);
      a = r.value;
    }
    const empty = newPortAllocator(R10000);
    const object = snapshotPortAllocator(a);
    const bytes = portAllocatorSnapshotData(a);
    for (const back of [restorePortAllocator(empty, object), restorePortAllocator(empty, bytes), portAllocatorFromSnapshot(object), portAllocatorFromSnapshot(bytes)]) {
      expect(back.ok && allocatedPorts(back.value)).toEqual([10000, 10200]);
      // What comes back snapshots to what went in, in both forms.
      expect(back.ok && snapshotPortAllocator(back.value)).toEqual(object);
      expect(back.ok && portAllocatorSnapshotData(back.value)).toEqual(bytes);
    }
  });
  it('a snapshot whose range does not parse is an error', () => {
    expect(portAllocatorFromSnapshot({ range: '5-1', data: '' })).toEqual({
      ok: false,
      error: { _tag: 'ErrInvalidSnapshot', message: 'end port cannot be less than start port: 5-1' },
    });
  });
});

describe('allocateNextPorts (batch)', () => {
  it('gives the ports, the state and the generator of the same number of single calls', () => {
    const single = fill(newPortAllocator(DEFAULT), seededRng(8), 3000);
    const batch = allocateNextPorts(newPortAllocator(DEFAULT), seededRng(8), 3000);
    expect(batch.ports).toEqual(single.ports);
    expect(batch.rng).toEqual(single.rng);
    expect(batch.full).toBe(true);
    expect(portAllocatorSnapshotData(batch.allocator)).toEqual(portAllocatorSnapshotData(single.allocator));
  });
});

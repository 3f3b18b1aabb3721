// Properties of automatic NodePort allocation and of the snapshot bytes (INV-PORT-DYNAMIC-FIRST,
// INV-PORT-SNAPSHOT); the oracles are written out here (the band formula from the reference,
// bigint arithmetic for the bytes). INV-PORT-UNIQUE, INV-PORT-RANGE and INV-PORT-PERSISTENT are
// checked after every command of port-allocator.model.test.ts.
import { fc, test } from '@fast-check/vitest';
import { seededRng } from '@kubesvc/api-types';
import { expect } from 'vitest';
import {
  allocateNextPort,
  allocatePort,
  allocatedPorts,
  newPortAllocator,
  portAllocatorFromSnapshot,
  portAllocatorSnapshotData,
  restorePortAllocator,
  snapshotPortAllocator,
} from './port-allocator.js';

const rangeArb = fc
  .record({ base: fc.integer({ min: 0, max: 65535 }), size: fc.integer({ min: 1, max: 5000 }) }, { noNullPrototype: true })
  .map((r) => ({ base: r.base, size: Math.min(r.size, 65536 - r.base) }));

function oracleBand(size: number): number {
  if (size <= 16) return 0;
  return Math.min(Math.max(16, Math.floor(size / 32)), 128);
}

test.prop([rangeArb, fc.integer(), fc.array(fc.nat(), { maxLength: 40 }), fc.integer({ min: 1, max: 300 })])(
  'INV-PORT-DYNAMIC-FIRST: allocateNext returns a port of the static band only when the dynamic band is full',
  (range, seed, statics, calls) => {
    const band = oracleBand(range.size);
    let a = newPortAllocator(range);
    const taken = new Set<number>();
    for (const s of statics) {
      const port = range.base + (s % range.size);
      const r = allocatePort(a, port);
      if (r.ok) {
        a = r.value;
        taken.add(port - range.base);
      }
    }
    let dynamicTaken = [...taken].filter((k) => k >= band).length;
    let rng = seededRng(seed);
    for (let i = 0; i < calls; i++) {
      const dynamicFull = dynamicTaken === range.size - band;
      const r = allocateNextPort(a, rng);
      rng = r.ok ? r.value.rng : r.error.rng;
      if (!r.ok) {
        expect(taken.size).toBe(range.size);
        break;
      }
      const k = r.value.port - range.base;
      expect(k >= 0 && k < range.size && !taken.has(k)).toBe(true);
      if (k < band) expect(dynamicFull).toBe(true);
      taken.add(k);
      if (k >= band) dynamicTaken++;
      a = r.value.allocator;
    }
  },
);

function oracleBytes(offsets: readonly number[]): number[] {
  let n = 0n;
  for (const o of offsets) n |= 1n << BigInt(o);
  if (n === 0n) return [];
  let hex = n.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return (hex.match(/../g) ?? []).map((h) => parseInt(h, 16));
}

test.prop([rangeArb, fc.integer(), fc.integer({ min: 0, max: 300 })])(
  'INV-PORT-SNAPSHOT: restore(snapshot(s)) equals s, and the bytes are upstream encoding of the offsets',
  (range, seed, n) => {
    let a = newPortAllocator(range);
    let rng = seededRng(seed);
    for (let i = 0; i < n; i++) {
      const r = allocateNextPort(a, rng);
      if (!r.ok) break;
      rng = r.value.rng;
      a = r.value.allocator;
    }
    expect([...portAllocatorSnapshotData(a).data]).toEqual(oracleBytes(allocatedPorts(a).map((p) => p - range.base)));
    const back = portAllocatorFromSnapshot(snapshotPortAllocator(a));
    expect(back.ok && allocatedPorts(back.value)).toEqual(allocatedPorts(a));
    expect(back.ok && back.value.range).toEqual(a.range);
    expect(back.ok && back.value.range.portRange).toEqual(range);
    const fromBytes = restorePortAllocator(newPortAllocator(range), portAllocatorSnapshotData(a));
    expect(fromBytes.ok && allocatedPorts(fromBytes.value)).toEqual(allocatedPorts(a));
  },
);

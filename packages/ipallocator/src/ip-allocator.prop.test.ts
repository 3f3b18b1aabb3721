// Properties of ServiceIPRange and of automatic allocation. The oracles are bigint arithmetic on
// the CIDR, written out here, not the code under test.
import { fc, test } from '@fast-check/vitest';
import {
  formatIP,
  seededRng,
  type CIDR,
  type IP,
} from '@kubesvc/api-types';
import { cidrArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import {
  allocateIP,
  allocateNextIP,
  allocatedIPs,
  ipAllocatorFromSnapshot,
  ipAllocatorSnapshotData,
  newIPAllocator,
  restoreIPAllocator,
  snapshotIPAllocator,
  type IPAllocator,
} from './ip-allocator.js';
import { serviceIPRange } from './service-ip-range.js';

const bitsOf = (c: CIDR) => (c.network.family === 4 ? 32 : 128);
const hostBits = (c: CIDR) => bitsOf(c) - c.prefix;

/** k8s.io/utils RangeSize as upstream vendors it: 0 for /0 and /1, saturating at 2^63 - 1. */
function oracleRangeSize(c: CIDR): bigint {
  const h = hostBits(c);
  if (h >= bitsOf(c) - 1) return 0n;
  if (h >= 63) return (1n << 63n) - 1n;
  return 1n << BigInt(h);
}

/** How many addresses the allocator hands out, from the reference's table rules. */
function oracleMax(c: CIDR): bigint {
  const size = oracleRangeSize(c);
  const usable = c.network.family === 4 ? size - 2n : (size < 65536n ? size : 65536n) - 1n;
  return usable < 0n ? 0n : usable;
}

function oracleBand(c: CIDR): bigint {
  const size = oracleRangeSize(c);
  if (size <= 16n) return 0n;
  const o = size / 16n;
  return o < 16n ? 16n : o > 256n ? 256n : o;
}

test.prop([cidrArb()])('INV-IP-MIN29: a range is accepted exactly when min(RangeSize, 65536) >= 8', (c) => {
  const size = oracleRangeSize(c);
  const accepted = (size < 65536n ? size : 65536n) >= 8n;
  const r = serviceIPRange(c);
  expect(r.ok).toBe(accepted);
  if (!r.ok) expect(r.error.message).toBe('the service cluster IP range must be at least 8 IP addresses');
  // so /29 and /125 are the smallest prefixes that pass
  expect(accepted).toBe(c.prefix <= (c.network.family === 4 ? 29 : 125) && c.prefix >= 2);
});

test.prop([cidrArb({ minPrefix: 2, maxPrefix: 29 }).filter((c) => c.network.family === 4 || c.prefix <= 125)])(
  'INV-IP-FIRST: the API server service IP is network + 1, the first address the allocator can hand out',
  (c) => {
    const r = serviceIPRange(c);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.value.apiServerServiceIP).toEqual({ family: c.network.family, value: c.network.value + 1n });
    const allocator = newIPAllocator(c);
    expect(allocateIP(allocator, r.value.apiServerServiceIP).ok).toBe(true);
    const below: IP = { family: c.network.family, value: c.network.value };
    expect(allocateIP(allocator, below).ok).toBe(false);
  },
);

/** Small and medium ranges of both families, plus the capped IPv6 ones. */
const rangeArb = fc.oneof(
  cidrArb({ family: 4, minPrefix: 22, maxPrefix: 30 }),
  cidrArb({ family: 6, minPrefix: 112, maxPrefix: 126 }),
  cidrArb({ family: 6, minPrefix: 64, maxPrefix: 100 }),
);

function offsetsOf(a: IPAllocator, c: CIDR): bigint[] {
  return allocatedIPs(a).map((ip) => ip.value - c.network.value - 1n);
}

test.prop([rangeArb, fc.integer(), fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 40 }), fc.integer({ min: 1, max: 400 })])(
  'INV-IP-DYNAMIC-FIRST: allocateNext returns an IP of the static band only when the dynamic band is full',
  (c, seed, statics, calls) => {
    const max = oracleMax(c);
    const band = oracleBand(c);
    let a = newIPAllocator(c);
    for (const k of statics) {
      if (BigInt(k) >= max) continue;
      const r = allocateIP(a, { family: c.network.family, value: c.network.value + 1n + BigInt(k) });
      if (r.ok) a = r.value;
    }
    let rng = seededRng(seed);
    const taken = new Set(offsetsOf(a, c));
    let dynamicTaken = [...taken].filter((k) => k >= band).length;
    for (let i = 0; i < calls; i++) {
      const dynamicFull = BigInt(dynamicTaken) === max - band;
      const r = allocateNextIP(a, rng);
      rng = r.ok ? r.value.rng : r.error.rng;
      if (!r.ok) {
        expect(BigInt(taken.size)).toBe(max);
        break;
      }
      const k = r.value.ip.value - c.network.value - 1n;
      expect(taken.has(k)).toBe(false);
      expect(k >= 0n && k < max).toBe(true);
      if (k < band) expect(dynamicFull).toBe(true);
      taken.add(k);
      if (k >= band) dynamicTaken++;
      a = r.value.allocator;
    }
  },
);

/** The bytes upstream writes: the set of offsets as a big-endian integer, no leading zeros. */
function oracleBytes(offsets: readonly bigint[]): number[] {
  let n = 0n;
  for (const o of offsets) n |= 1n << o;
  if (n === 0n) return [];
  let hex = n.toString(16);
  if (hex.length % 2 === 1) hex = `0${hex}`;
  return (hex.match(/../g) ?? []).map((h) => parseInt(h, 16));
}

test.prop([rangeArb, fc.integer(), fc.integer({ min: 0, max: 200 })])(
  'INV-ALLOC-SNAPSHOT: restore(snapshot(s)) equals s, and the bytes are upstream encoding of the offsets',
  (c, seed, n) => {
    let a = newIPAllocator(c);
    let rng = seededRng(seed);
    for (let i = 0; i < n; i++) {
      const r = allocateNextIP(a, rng);
      if (!r.ok) break;
      rng = r.value.rng;
      a = r.value.allocator;
    }
    const { data } = ipAllocatorSnapshotData(a);
    expect([...data]).toEqual(oracleBytes(offsetsOf(a, c)));
    const back = ipAllocatorFromSnapshot(snapshotIPAllocator(a));
    expect(back.ok).toBe(true);
    if (!back.ok) return;
    expect(allocatedIPs(back.value).map(formatIP)).toEqual(allocatedIPs(a).map(formatIP));
    expect(back.value.bitmap.count).toBe(a.bitmap.count);
    expect(back.value.range).toEqual(a.range);
    expect(back.value.family).toBe(a.family);
    // The bytes form goes back the same way, into a fresh allocator over the same CIDR.
    const fromBytes = restoreIPAllocator(newIPAllocator(c), ipAllocatorSnapshotData(a));
    expect(fromBytes.ok && allocatedIPs(fromBytes.value).map(formatIP)).toEqual(allocatedIPs(a).map(formatIP));
  },
);

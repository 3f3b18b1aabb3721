// Properties of the IPAddress allocator of one range. The oracles are bigint arithmetic on the
// CIDR (upstream hostsPerNetwork, broadcastAddress and calculateRangeOffset written out here)
// and plain sets of names, not the code under test; the one differential property compares
// it with the bitmap allocator, the other model of upstream's random scan with offset.
import { fc, test } from '@fast-check/vitest';
import { formatIP, seededRng, type CIDR, type IP, type Rng } from '@kubesvc/api-types';
import { cidrArb } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { allocateIP, allocateNextIP, newIPAllocator } from './ip-allocator.js';
import {
  allocateNextIPAddress,
  newIPAddressAllocator,
  nextIPAddressCandidate,
  type IPAddressAllocator,
} from './ipaddress-allocator.js';
import { allocateNext, IPAddressStore, web } from './ipaddress-store.fixtures.js';

const bitsOf = (c: CIDR) => (c.network.family === 4 ? 32 : 128);

/** The addresses a range hands out: network + 1 up to the last one (IPv4 keeps its broadcast address). */
function oracleBounds(c: CIDR): readonly [bigint, bigint] {
  const broadcast = c.network.value + (1n << BigInt(bitsOf(c) - c.prefix)) - 1n;
  return [c.network.value + 1n, c.network.family === 4 ? broadcast - 1n : broadcast];
}

/** calculateRangeOffset over k8s.io/utils RangeSize (0 for /0 and /1, which are not generated). */
function oracleStaticBand(c: CIDR): bigint {
  const hostBits = bitsOf(c) - c.prefix;
  const size = hostBits >= 63 ? (1n << 63n) - 1n : 1n << BigInt(hostBits);
  if (size <= 16n) return 0n;
  const o = size / 16n;
  return o < 16n ? 16n : o > 256n ? 256n : o;
}

function allocatorOf(c: CIDR): IPAddressAllocator {
  const made = newIPAddressAllocator(c);
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
}

/** Ranges small enough to fill, of both families. */
const smallRangeArb = fc.oneof(cidrArb({ family: 4, minPrefix: 23, maxPrefix: 32 }), cidrArb({ family: 6, minPrefix: 114, maxPrefix: 128 }));
/** Wide ranges, where only a few allocations are made. */
const wideRangeArb = fc.oneof(cidrArb({ family: 4, minPrefix: 2, maxPrefix: 22 }), cidrArb({ family: 6, minPrefix: 64, maxPrefix: 113 }));

/** Addresses picked by offset from network + 1 (some past the range, which the view may also hold). */
function takenArb(maxOffset: number): fc.Arbitrary<number[]> {
  return fc.array(fc.integer({ min: 0, max: maxOffset }), { maxLength: 60 });
}

function nameAt(c: CIDR, offset: bigint): string {
  return formatIP({ family: c.network.family, value: c.network.value + 1n + offset });
}

test.prop([fc.oneof(smallRangeArb, wideRangeArb), takenArb(600), fc.array(fc.integer({ min: 0, max: 600 }), { maxLength: 10 }), fc.integer(), fc.integer({ min: 1, max: 80 })])(
  'INV-IPADDR-UNIQUE, INV-IPADDR-RANGE: no IP is handed out twice for one view, and each is in the range, never the network or IPv4 broadcast address',
  (c, taken, lost, seed, calls) => {
    const a = allocatorOf(c);
    const [first, last] = oracleBounds(c);
    const store = new IPAddressStore();
    const held = new Set<string>();
    for (const k of taken) {
      const name = nameAt(c, BigInt(k));
      store.objects.set(name, { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name } });
      held.add(name);
    }
    // Creates that another apiserver wins: answered AlreadyExists, never stored here.
    for (const k of lost) store.lost.add(nameAt(c, BigInt(k)));
    let rng: Rng = seededRng(seed);
    for (let i = 0; i < calls; i++) {
      const next = allocateNext(store, a, rng);
      rng = next.rng;
      if (!('ip' in next)) break;
      const name = formatIP(next.ip);
      expect(held.has(name)).toBe(false);
      expect(next.ip.family).toBe(c.network.family);
      expect(next.ip.value >= first && next.ip.value <= last).toBe(true);
      held.add(name);
    }
  },
);

test.prop([smallRangeArb, takenArb(300), fc.integer()])(
  'INV-IPADDR-RANGE: ErrFull only when the view holds every address of the range',
  (c, taken, seed) => {
    const a = allocatorOf(c);
    const [first, last] = oracleBounds(c);
    const view = new Set(taken.map((k) => nameAt(c, BigInt(k))));
    const next = allocateNextIPAddress(a, view, seededRng(seed), web);
    if (next.ok) return;
    for (let v = first; v <= last; v++) expect(view.has(formatIP({ family: c.network.family, value: v }))).toBe(true);
  },
);

test.prop([fc.oneof(smallRangeArb, wideRangeArb), takenArb(300), fc.integer()])(
  'INV-IPADDR-DYNAMIC-FIRST: an IP of the static band is handed out only when the view holds the whole dynamic band',
  (c, taken, seed) => {
    const a = allocatorOf(c);
    const [first, last] = oracleBounds(c);
    const band = oracleStaticBand(c);
    const view = new Set(taken.map((k) => nameAt(c, BigInt(k))));
    const next = allocateNextIPAddress(a, view, seededRng(seed), web);
    if (!next.ok || next.value.ip.value >= first + band) return;
    // Then the view holds at least as many names as the dynamic band has addresses, so the
    // band is small enough to walk.
    expect(last - (first + band) + 1n <= BigInt(view.size)).toBe(true);
    for (let v = first + band; v <= last; v++) expect(view.has(formatIP({ family: c.network.family, value: v }))).toBe(true);
  },
);

test.prop([fc.oneof(smallRangeArb, wideRangeArb), takenArb(300), fc.integer()])(
  'INV-IPADDR-RESUME: after a lost create, the scan goes on to the IP a fresh allocation with the lost one taken and the same generator picks',
  (c, taken, seed) => {
    const a = allocatorOf(c);
    const view = new Set(taken.map((k) => nameAt(c, BigInt(k))));
    const rng = seededRng(seed);
    const candidate = allocateNextIPAddress(a, view, rng, web);
    if (!candidate.ok) return;
    const resumed = nextIPAddressCandidate(a, view, candidate.value.scan, web);
    const withLost = new Set(view).add(formatIP(candidate.value.ip));
    const fresh = allocateNextIPAddress(a, withLost, rng, web);
    expect(resumed.ok).toBe(fresh.ok);
    if (resumed.ok && fresh.ok) {
      expect(resumed.value.ip).toEqual(fresh.value.ip);
      expect(resumed.value.scan.rng).toEqual(fresh.value.scan.rng);
    }
  },
);

/** Ranges the bitmap allocator covers whole: IPv4, and IPv6 of 65536 addresses or fewer. */
const bitmapRangeArb = fc.oneof(cidrArb({ family: 4, minPrefix: 16, maxPrefix: 32 }), cidrArb({ family: 6, minPrefix: 112, maxPrefix: 128 }));

test.prop([bitmapRangeArb, takenArb(1000), fc.integer()])(
  'INV-IPADDR-BITMAP-SAME: with the same IPs taken and the same generator, the IPAddress allocator picks the IP the bitmap allocator picks',
  (c, taken, seed) => {
    let bitmap = newIPAllocator(c);
    const view = new Set<string>();
    for (const k of taken) {
      const ip: IP = { family: c.network.family, value: c.network.value + 1n + BigInt(k) };
      const r = allocateIP(bitmap, ip);
      if (!r.ok) continue;
      bitmap = r.value;
      view.add(formatIP(ip));
    }
    const rng = seededRng(seed);
    const fromBitmap = allocateNextIP(bitmap, rng);
    const fromIPAddress = allocateNextIPAddress(allocatorOf(c), view, rng, web);
    expect(fromIPAddress.ok).toBe(fromBitmap.ok);
    if (fromIPAddress.ok && fromBitmap.ok) {
      expect(fromIPAddress.value.ip).toEqual(fromBitmap.value.ip);
      expect(fromIPAddress.value.scan.rng).toEqual(fromBitmap.value.rng);
    }
  },
);

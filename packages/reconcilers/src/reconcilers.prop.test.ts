// Properties of the reconcilers (docs/invariants.md): INV-EP-MASTERCOUNT and INV-EP-LEASE at
// the reconciler level, and that no function changes the values it was given. The cluster is
// two slots (the Endpoints and its slice) to which each step's writes are applied in order.
import { fc, test } from '@fast-check/vitest';
import type { EndpointPort, EndpointSlice, Endpoints } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import {
  endpointSliceFor,
  listLeases,
  newEndpointReconciler,
  reconcileEndpoints,
  reconcileLease,
  removeEndpoints,
  removeLease,
  updateLease,
} from './index.js';
import type { EndpointReconciler, EndpointWrite, Lease, Leases, ReconcileStep } from './index.js';

const PORTS: EndpointPort[] = [{ name: 'https', port: 6443, protocol: 'TCP' }];

interface Cluster {
  readonly endpoints: Endpoints | undefined;
  readonly endpointSlice: EndpointSlice | undefined;
}

const EMPTY: Cluster = { endpoints: undefined, endpointSlice: undefined };

function apply(c: Cluster, writes: readonly EndpointWrite[]): Cluster {
  let next = c;
  for (const w of writes) {
    switch (w.kind) {
      case 'create-endpoints':
      case 'update-endpoints':
        next = { ...next, endpoints: w.endpoints };
        break;
      case 'create-endpointslice':
      case 'update-endpointslice':
        next = { ...next, endpointSlice: w.endpointSlice };
        break;
      case 'delete-endpointslice':
        next = { ...next, endpointSlice: undefined };
        break;
    }
  }
  return next;
}

function step(r: EndpointReconciler, c: Cluster, ip: string, reconcilePorts: boolean, leases: Leases = new Map(), now = 0): ReconcileStep {
  return reconcileEndpoints(r, { serviceName: 'kubernetes', ip, endpointPorts: PORTS, reconcilePorts, observed: c }, leases, now);
}

function writesOf(s: ReconcileStep): readonly EndpointWrite[] {
  if (!s.outcome.ok) throw new Error(s.outcome.error.message);
  return s.outcome.value.writes;
}

function ipsOf(c: Cluster): string[] {
  return (c.endpoints?.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
}

/** Distinct IPv4 addresses whose text lengths differ, so string order is not numeric order. */
const mastersArb = fc.uniqueArray(fc.integer({ min: 0, max: 255 }), { minLength: 2, maxLength: 6 }).map((ns) => ns.map((n) => `10.0.${n % 3}.${n}`));

/** The oracle's sort: JavaScript's default sort compares UTF-16 units, which is byte order for ASCII. */
function sortedCopy(xs: Iterable<string>): string[] {
  return [...xs].sort();
}

describe('INV-EP-MASTERCOUNT', () => {
  test.prop([
    mastersArb.chain((masters) =>
      fc.record(
        {
          masters: fc.constant(masters),
          initial: fc.option(fc.subarray(masters), { nil: undefined }),
          schedule: fc.array(fc.nat({ max: masters.length - 1 }), { maxLength: 30 }),
          finalOrder: fc.shuffledSubarray(masters, { minLength: masters.length, maxLength: masters.length }),
          reconcilePorts: fc.array(fc.boolean(), { minLength: 31, maxLength: 31 }),
        },
        { noNullPrototype: true },
      ),
    ),
  ])(
    'INV-EP-MASTERCOUNT: with the right count, any interleaving ends at every master IP, sorted once written, and no further reconcile changes it',
    ({ masters, initial, schedule, finalOrder, reconcilePorts }) => {
      const r = newEndpointReconciler('master-count', { masterCount: masters.length });
      let c: Cluster = EMPTY;
      if (initial !== undefined) {
        const e: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes', namespace: 'default' }, subsets: [{ addresses: initial.map((ip) => ({ ip })), ports: PORTS }] };
        c = { endpoints: e, endpointSlice: undefined };
      }
      schedule.forEach((m, i) => {
        c = apply(c, writesOf(step(r, c, masters[m] ?? '', reconcilePorts[i] ?? true)));
        // Never more IPs than masters, never a stranger, always sorted.
        expect(ipsOf(c).length).toBeLessThanOrEqual(masters.length);
        expect(ipsOf(c).every((ip) => masters.includes(ip))).toBe(true);
      });
      for (const ip of finalOrder) c = apply(c, writesOf(step(r, c, ip, true)));
      expect(sortedCopy(ipsOf(c))).toEqual(sortedCopy(masters));
      // Upstream sorts only when it changes the IPs: a list that already held every master, in
      // any order, is left as it is.
      const untouched = initial !== undefined && initial.length === masters.length;
      expect(ipsOf(c)).toEqual(untouched ? initial : sortedCopy(masters));
      expect(c.endpointSlice?.endpoints?.map((e) => e.addresses[0])).toEqual(ipsOf(c));
      for (const ip of masters) {
        for (const ports of [true, false]) {
          const s = step(r, c, ip, ports);
          expect(s.outcome).toEqual({ ok: true, value: { action: 'none', writes: [] } });
        }
      }
    },
  );

  test.prop([
    mastersArb.chain((masters) =>
      fc.record(
        {
          masters: fc.constant(masters),
          count: fc.integer({ min: 1, max: masters.length - 1 }),
          schedule: fc.array(fc.nat({ max: masters.length - 1 }), { maxLength: 40 }),
        },
        { noNullPrototype: true },
      ),
    ),
  ])('INV-EP-MASTERCOUNT: with a count below the number of masters no state is stable: some master always rewrites the list', ({ masters, count, schedule }) => {
    const r = newEndpointReconciler('master-count', { masterCount: count });
    let c: Cluster = EMPTY;
    for (const m of [...schedule, ...masters.keys()]) {
      c = apply(c, writesOf(step(r, c, masters[m] ?? '', false)));
      expect(ipsOf(c).length).toBeLessThanOrEqual(count);
      const rewriters = masters.filter((ip) => writesOf(step(r, c, ip, false)).some((w) => w.kind === 'update-endpoints'));
      expect(rewriters.length).toBeGreaterThanOrEqual(masters.length - count);
    }
  });

  it('INV-EP-MASTERCOUNT: three masters with --apiserver-count=2 flap forever, each reconcile rewriting the list', () => {
    const [a, b, cc] = ['10.0.0.1', '10.0.0.2', '10.0.0.3'];
    const r = newEndpointReconciler('master-count', { masterCount: 2 });
    let c: Cluster = EMPTY;
    const seen: string[][] = [];
    for (let round = 0; round < 4; round++) {
      for (const ip of [a, b, cc]) {
        const s = step(r, c, ip, false);
        if (!s.outcome.ok) throw new Error(s.outcome.error.message);
        if (round > 0) expect(s.outcome.value.action).toBe('update');
        c = apply(c, s.outcome.value.writes);
        seen.push(ipsOf(c));
      }
    }
    // Worked by hand from instancecount.go: C adds itself and drops the entry after it,
    // wrapping to A; A drops B; B drops C; and so on.
    const cycle = [[b, cc], [a, cc], [a, b]];
    expect(seen).toEqual([[a], [a, b], ...cycle, ...cycle, ...cycle, [b, cc]]);
  });
});

const poolArb = fc.constantFrom('10.0.0.1', '10.0.0.2', '10.0.0.10', '10.0.0.100', '9.9.9.9', '192.168.1.1', 'fd00::1', 'fd00::a');

const leasesArb: fc.Arbitrary<Leases> = fc
  .uniqueArray(fc.record({ ip: poolArb, expiresAt: fc.integer({ min: 0, max: 2_000 }) }, { noNullPrototype: true }), { selector: (l) => l.ip, maxLength: 8 })
  .map((ls) => new Map(ls.map((l): [string, Lease] => [l.ip, l])));

const observedArb: fc.Arbitrary<Cluster> = fc.record(
  {
    endpoints: fc.option(
      fc.record(
        {
          ips: fc.array(poolArb, { maxLength: 6 }),
          ports: fc.constantFrom(PORTS, [{ name: 'https', port: 443, protocol: 'TCP' as const }], [] as EndpointPort[]),
          labelled: fc.boolean(),
          subsets: fc.integer({ min: 0, max: 2 }),
        },
        { noNullPrototype: true },
      ).map(({ ips, ports, labelled, subsets }): Endpoints => ({
        apiVersion: 'v1',
        kind: 'Endpoints',
        metadata: { name: 'kubernetes', namespace: 'default', resourceVersion: '5', ...(labelled ? { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } : {}) },
        subsets: Array.from({ length: subsets }, () => ({ addresses: ips.map((ip) => ({ ip })), ports })),
      })),
      { nil: undefined },
    ),
    endpointSlice: fc.option(
      fc.record({ ips: fc.array(poolArb, { maxLength: 4 }), v6: fc.boolean() }, { noNullPrototype: true }).map(({ ips, v6 }): EndpointSlice => ({
        apiVersion: 'discovery.k8s.io/v1',
        kind: 'EndpointSlice',
        metadata: { name: 'kubernetes', namespace: 'default', labels: { 'kubernetes.io/service-name': 'kubernetes' } },
        addressType: v6 ? 'IPv6' : 'IPv4',
        endpoints: ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
        ports: [{ name: 'https', port: 6443, protocol: 'TCP' }],
      })),
      { nil: undefined },
    ),
  },
  { noNullPrototype: true },
);

/** The parts of a slice the mirror decides, in plain form ([] and null alike). */
function sliceView(slice: EndpointSlice | undefined) {
  if (slice === undefined) return undefined;
  return {
    name: slice.metadata.name,
    labels: slice.metadata.labels,
    addressType: slice.addressType,
    endpoints: (slice.endpoints ?? []).map((e) => ({ ip: e.addresses[0], ready: e.conditions?.ready })),
    ports: (slice.ports ?? []).map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
  };
}

/**
 * The mirror worked out from upstream's rules, not from endpointSliceFor: IPv6 only when every
 * address is (the pool's IPv6 literals are the ones with a colon), one ready endpoint per
 * address of that family, the subset's ports.
 */
function mirrorOracle(e: Endpoints) {
  const addresses = (e.subsets?.[0]?.addresses ?? []).map((a) => a.ip);
  const v6 = addresses.length > 0 && addresses.every((ip) => ip.includes(':'));
  return {
    name: 'kubernetes',
    labels: { 'kubernetes.io/service-name': 'kubernetes' },
    addressType: v6 ? 'IPv6' : 'IPv4',
    endpoints: addresses.filter((ip) => ip.includes(':') === v6).map((ip) => ({ ip, ready: true })),
    ports: (e.subsets?.[0]?.ports ?? []).map((p) => ({ name: p.name, port: p.port, protocol: p.protocol })),
  };
}

describe('INV-EP-LEASE', () => {
  test.prop([leasesArb, observedArb, poolArb, fc.integer({ min: 0, max: 2_000 }), fc.boolean(), fc.integer({ min: 1, max: 30_000 })])(
    'INV-EP-LEASE: after a reconcile the Endpoints hold exactly the live lease IPs plus our own, sorted when rewritten, never an empty list',
    (leases, observed, ip, now, reconcilePorts, ttl) => {
      const r = newEndpointReconciler('lease', { leaseTtlMs: ttl });
      const s = step(r, observed, ip, reconcilePorts, leases, now);
      expect(s.leaseWrites).toEqual([{ kind: 'put-lease', lease: { ip, expiresAt: now + ttl }, ttlMs: ttl }]);
      const live = new Set([...leases.values()].filter((l) => l.expiresAt > now).map((l) => l.ip));
      live.add(ip);
      const expected = sortedCopy(live);
      const after = apply(observed, writesOf(s));
      const addresses = (after.endpoints?.subsets ?? []).flatMap((x) => (x.addresses ?? []).map((a) => a.ip));
      // Whether written now or already right, the Endpoints hold exactly the live set and are
      // never empty. Upstream replaces (and sorts) the addresses only when they are not already
      // that set; a set that is right keeps its order, even when a label or the ports change.
      const before = observed.endpoints?.subsets?.length === 1 ? (observed.endpoints.subsets[0]?.addresses ?? []).map((a) => a.ip) : undefined;
      const alreadyRight = before !== undefined && before.length === expected.length && new Set(before).size === before.length && before.every((x) => live.has(x));
      expect(after.endpoints?.subsets).toHaveLength(1);
      expect(addresses.length).toBeGreaterThan(0);
      expect(addresses).toEqual(alreadyRight ? before : expected);
      for (const w of writesOf(s)) {
        if (w.kind === 'create-endpoints' || w.kind === 'update-endpoints') {
          expect(w.endpoints.metadata.labels?.['endpointslice.kubernetes.io/skip-mirror']).toBe('true');
        }
      }
      // The slice mirrors what the Endpoints hold (endpointsadapter.go endpointSliceFromEndpoints).
      if (after.endpoints !== undefined) expect(sliceView(after.endpointSlice)).toEqual(mirrorOracle(after.endpoints));
    },
  );

  test.prop([leasesArb, observedArb, poolArb, fc.integer({ min: 0, max: 3_000 }), fc.boolean()])(
    'INV-EP-LEASE: with no live lease at all the reconcile refuses with upstream error and writes nothing',
    (leases, observed, ip, now, reconcilePorts) => {
      const expired: Leases = new Map([...leases].map(([k, l]) => [k, { ...l, expiresAt: Math.min(l.expiresAt, now) }]));
      const o = reconcileLease({ serviceName: 'kubernetes', ip, endpointPorts: PORTS, reconcilePorts, observed }, expired, now);
      expect(o).toEqual({ ok: false, error: { _tag: 'ErrNoMasterIPs', message: 'no master IPs were listed in storage, refusing to erase all endpoints for the kubernetes service' } });
    },
  );

  test.prop([leasesArb, observedArb, poolArb, fc.integer({ min: 0, max: 2_000 })])(
    'INV-EP-LEASE: removal leaves exactly the other live leases (sorted when rewritten), or refuses when none is left; never an empty list',
    (leases, observed, ip, now) => {
      const s = removeEndpoints(newEndpointReconciler('lease'), { serviceName: 'kubernetes', ip, endpointPorts: PORTS, observed }, leases, now);
      const others = sortedCopy(new Set([...leases.values()].filter((l) => l.expiresAt > now && l.ip !== ip).map((l) => l.ip)));
      const ourLive = (leases.get(ip)?.expiresAt ?? -1) > now;
      if (!ourLive) {
        expect(s.outcome).toEqual({ ok: true, value: { action: 'none', writes: [] } });
        return;
      }
      if (others.length === 0) {
        expect(s.outcome).toMatchObject({ ok: false, error: { _tag: 'ErrNoMasterIPs' } });
        return;
      }
      const after = apply(observed, writesOf(s));
      const addresses = after.endpoints?.subsets?.[0]?.addresses?.map((a) => a.ip);
      // Sorted when rewritten; a list that already was the right set keeps its order.
      expect(sortedCopy(addresses ?? [])).toEqual(others);
      if (writesOf(s).some((w) => w.kind === 'create-endpoints')) expect(addresses).toEqual(others);
      const before = observed.endpoints?.subsets?.length === 1 ? (observed.endpoints.subsets[0]?.addresses ?? []).map((a) => a.ip) : undefined;
      if (before === undefined || sortedCopy(before).join() !== others.join()) expect(addresses).toEqual(others);
    },
  );
});

function deepFreeze<T>(v: T): T {
  if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) {
    Object.freeze(v);
    for (const x of Object.values(v)) deepFreeze(x);
  }
  return v;
}

test.prop([leasesArb, observedArb, poolArb, fc.integer({ min: 0, max: 2_000 }), fc.boolean(), fc.integer({ min: 1, max: 4 })])(
  'no reconciler function changes the values it is given',
  (leases, observed, ip, now, reconcilePorts, masterCount) => {
    const before = structuredClone({ leases, observed });
    deepFreeze(observed);
    for (const type of ['master-count', 'lease', 'none'] as const) {
      const r = deepFreeze(newEndpointReconciler(type, { masterCount }));
      const req = deepFreeze({ serviceName: 'kubernetes', ip, endpointPorts: deepFreeze([...PORTS]), reconcilePorts, observed });
      reconcileEndpoints(r, req, leases, now);
      removeEndpoints(r, req, leases, now);
    }
    updateLease(leases, ip, now, 1_000);
    removeLease(leases, ip);
    listLeases(leases, now);
    if (observed.endpoints !== undefined) endpointSliceFor(observed.endpoints);
    expect({ leases, observed }).toEqual(before);
  },
);

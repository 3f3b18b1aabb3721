// Properties of the MetaAllocator over several, overlapping ServiceCIDRs. Each generated
// ServiceCIDR carries its CIDRs, its Ready condition (True, False or none) and whether it is
// being deleted; the oracle says which addresses may be handed out from those generated facts
// with bigint arithmetic: an address of a CIDR of the family, neither its network nor its IPv4
// broadcast address, of a ServiceCIDR whose condition is not False and that is not deleting.
import { fc, test } from '@fast-check/vitest';
import { formatIP, seededRng, type IP, type ServiceCIDR } from '@kubesvc/api-types';
import { mustParseCIDR } from '@kubesvc/testkit';
import { expect } from 'vitest';
import { allocateNextServiceIP, allocateServiceIP, newMetaAllocator, releaseServiceIP, type MetaAllocator } from './cidr-allocator.js';
import { IPAddressStore, metaAllocateNext, web, type MetaHarness } from './ipaddress-store.fixtures.js';

interface Generated {
  readonly cidrs: readonly string[];
  readonly ready: 'True' | 'False' | 'none';
  readonly deleting: boolean;
}

/** Blocks inside 10.0.0.0/24, so that they overlap often, and a few IPv6 ones the IPv4 allocator must leave alone. */
const cidrTextArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: 24, max: 30 }).chain((p) => fc.integer({ min: 0, max: 2 ** (p - 24) - 1 }).map((i) => `10.0.0.${i * 2 ** (32 - p)}/${p}`)) },
  { weight: 1, arbitrary: fc.constantFrom('fd00::/120', 'fd00::/126') },
);

const serviceCIDRsArb: fc.Arbitrary<Generated[]> = fc.array(
  fc.record({
    cidrs: fc.array(cidrTextArb, { minLength: 1, maxLength: 2 }),
    ready: fc.constantFrom('True', 'False', 'none'),
    deleting: fc.boolean(),
  }),
  { minLength: 0, maxLength: 4 },
);

function toObjects(generated: readonly Generated[]): ServiceCIDR[] {
  return generated.map((g, i) => ({
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name: `sc-${i}`, ...(g.deleting ? { deletionTimestamp: '2025-01-02T00:00:00Z' } : {}) },
    spec: { cidrs: [...g.cidrs] },
    ...(g.ready === 'none'
      ? {}
      : { status: { conditions: [{ type: 'Ready', status: g.ready, lastTransitionTime: '2025-01-01T00:00:00Z', reason: '', message: '' }] } }),
  }));
}

/** Every IPv4 address the generated ServiceCIDRs let the allocator hand out. */
function oracleAllocatable(generated: readonly Generated[]): Set<bigint> {
  const out = new Set<bigint>();
  for (const g of generated) {
    if (g.ready === 'False' || g.deleting) continue;
    for (const text of g.cidrs) {
      if (text.includes(':')) continue;
      const c = mustParseCIDR(text);
      const size = 1n << BigInt(32 - c.prefix);
      for (let v = c.network.value + 1n; v < c.network.value + size - 1n; v++) out.add(v);
    }
  }
  return out;
}

/** Every IPv4 address inside some generated CIDR, ready or not, network and broadcast left out. */
function oracleKnown(generated: readonly Generated[]): Set<bigint> {
  return oracleAllocatable(generated.map((g) => ({ ...g, ready: 'True', deleting: false })));
}

function metaOf(generated: readonly Generated[]): MetaAllocator {
  const made = newMetaAllocator('IPv4', toObjects(generated));
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
}

const v4 = (value: bigint): IP => ({ family: 4, value });

test.prop([serviceCIDRsArb, fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 120 }), fc.integer(), fc.integer({ min: 1, max: 60 })])(
  'INV-SVCCIDR-UNIQUE, INV-SVCCIDR-RANGE: across ServiceCIDRs no IP is handed out twice for one view, and each lies in a ready, not-deleting ServiceCIDR of the family',
  (generated, taken, seed, calls) => {
    const allocatable = oracleAllocatable(generated);
    const h: MetaHarness = { meta: metaOf(generated), store: new IPAddressStore(), bitmap: undefined, rng: seededRng(seed) };
    const held = new Set<string>();
    for (const k of taken) {
      const name = formatIP(v4(mustParseCIDR('10.0.0.0/24').network.value + BigInt(k)));
      h.store.objects.set(name, { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name } });
      held.add(name);
    }
    for (let i = 0; i < calls; i++) {
      const next = metaAllocateNext(h);
      if ('_tag' in next) {
        // INV-SVCCIDR-RANGE's other half: full only when the view holds every allocatable address.
        for (const v of allocatable) expect(held.has(formatIP(v4(v)))).toBe(true);
        break;
      }
      expect(next.family).toBe(4);
      expect(allocatable.has(next.value)).toBe(true);
      expect(held.has(formatIP(next))).toBe(false);
      held.add(formatIP(next));
    }
  },
);

test.prop([serviceCIDRsArb, fc.integer({ min: 0, max: 255 })])(
  'INV-SVCCIDR-GIVEN: a given IP is accepted exactly when a ready, not-deleting ServiceCIDR holds it; a release finds any ServiceCIDR holding it',
  (generated, k) => {
    const meta = metaOf(generated);
    const ip = v4(mustParseCIDR('10.0.0.0/24').network.value + BigInt(k));
    const given = allocateServiceIP(meta, ip, web);
    expect(given.ok).toBe(oracleAllocatable(generated).has(ip.value));
    if (!given.ok) expect(given.error._tag).toBe('ErrMismatchedNetwork');
    expect(releaseServiceIP(meta, ip).ok).toBe(oracleKnown(generated).has(ip.value));
  },
);

test.prop([serviceCIDRsArb, fc.integer()])(
  'INV-SVCCIDR-RANGE: with an empty view, automatic allocation fails only when no ready, not-deleting ServiceCIDR of the family has an address',
  (generated, seed) => {
    const next = allocateNextServiceIP(metaOf(generated), new Set(), seededRng(seed), web);
    expect(next.ok).toBe(oracleAllocatable(generated).size > 0);
  },
);

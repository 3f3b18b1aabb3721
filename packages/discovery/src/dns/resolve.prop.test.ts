import { parseIP, type Endpoints } from '@kubesvc/api-types';
import { endpointsArb, serviceArb } from '@kubesvc/testkit';
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import type { DnsRecord } from './records.js';
import { resolve } from './resolve.js';
import { reverseName } from './reverse-name.js';
import { buildZone, type Zone, type ZoneService } from './zone.js';

/** The zone of valid options (buildZone fails only on options). */
const zoneOf = (...args: Parameters<typeof buildZone>): Zone => {
  const built = buildZone(...args);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

/** Services with distinct names and distinct ClusterIPs, and Endpoints pointed at some of them. */
const clusterArb = fc
  .array(serviceArb(), { maxLength: 8 })
  .map((services) => {
    const keys = new Set<string>();
    const ips = new Set<string>();
    return services.filter((s) => {
      const key = `${s.metadata.name}.${s.metadata.namespace}`;
      const own = s.spec?.clusterIPs ?? [];
      if (keys.has(key) || own.some((ip) => ip !== 'None' && ips.has(ip))) return false;
      keys.add(key);
      for (const ip of own) ips.add(ip);
      return true;
    });
  })
  .chain((services) =>
    fc.tuple(
      fc.constant(services),
      services.length === 0
        ? fc.constant<Endpoints[]>([])
        : fc.array(
            fc.tuple(fc.nat(), endpointsArb()).map(([i, e]): Endpoints => {
              const target = services[i % services.length];
              return { ...e, metadata: { ...e.metadata, name: target?.metadata.name ?? 'x', namespace: target?.metadata.namespace ?? 'default' } };
            }),
            { maxLength: 4 },
          ),
    ),
  )
  .map(([services, endpoints]) => ({ services, endpoints, zone: zoneOf(services, endpoints) }));

/** The same letters in a random mix of cases. */
function recase(name: string, flips: readonly boolean[]): string {
  return [...name].map((c, i) => (flips[i % Math.max(1, flips.length)] === true ? c.toUpperCase() : c)).join('');
}

function fqdn(s: ZoneService, zone: Zone): string {
  return `${s.name}.${s.namespace}.svc.${zone.origin}`;
}

function clusterIPServices(zone: Zone): ZoneService[] {
  return [...zone.services.values()].filter((s) => s.kind === 'clusterIP');
}

const flipsArb = fc.array(fc.boolean(), { minLength: 1, maxLength: 16 });

test.prop([clusterArb, flipsArb])('INV-DNS-A: every ClusterIP service resolves to exactly its IPs, in any letter case', ({ zone }, flips) => {
  for (const s of clusterIPServices(zone)) {
    const name = recase(fqdn(s, zone), flips);
    for (const [type, family] of [
      ['A', 4],
      ['AAAA', 6],
    ] as const) {
      const got = resolve(zone, { name, type });
      const want = s.clusterIPs.filter((a) => a.ip.family === family).map((a) => a.text);
      expect(got.rcode).toBe('NOERROR');
      expect(got.answer.map((r) => r.data)).toStrictEqual(want);
      expect(got.answer.every((r) => r.name === name && r.type === type)).toBe(true);
    }
  }
});

test.prop([clusterArb, flipsArb])('INV-DNS-PTR: every ClusterIP resolves back to its service, and every PTR target resolves to the address', ({ zone }, flips) => {
  for (const s of clusterIPServices(zone)) {
    for (const a of s.clusterIPs) {
      const got = resolve(zone, { name: recase(reverseName(a.ip), flips), type: 'PTR' });
      expect(got.answer.map((r) => r.data)).toStrictEqual([fqdn(s, zone)]);
    }
  }
  for (const s of zone.services.values()) {
    for (const e of s.endpoints) {
      const got = resolve(zone, { name: reverseName(e.ip), type: 'PTR' });
      expect(got.answer.length).toBeGreaterThan(0);
      for (const ptr of got.answer) {
        const back = resolve(zone, { name: String(ptr.data), type: e.ip.family === 4 ? 'A' : 'AAAA' });
        expect(back.answer.map((r) => r.data)).toContain(e.text);
      }
    }
  }
});

function srvNames(s: ZoneService, zone: Zone): string[] {
  const base = fqdn(s, zone);
  const ports = s.kind === 'headless' ? s.endpoints.flatMap((e) => e.ports) : s.ports;
  return [base, ...ports.filter((p) => p.name !== '').map((p) => `_${p.name}._${p.protocol.toLowerCase()}.${base}`)];
}

test.prop([clusterArb])('INV-DNS-SRV: SRV records only for named ports, and every SRV target resolves to its additional address', ({ zone }) => {
  for (const s of zone.services.values()) {
    const named = new Set((s.kind === 'headless' ? s.endpoints.flatMap((e) => e.ports) : s.ports).filter((p) => p.name !== '').map((p) => p.port));
    for (const name of srvNames(s, zone)) {
      const got = resolve(zone, { name, type: 'SRV' });
      for (const srv of got.answer) {
        if (srv.type !== 'SRV') throw new Error(`not an SRV: ${srv.type}`);
        expect(named.has(srv.data.port)).toBe(true);
        const additional = got.additional.filter((r) => r.name === srv.data.target).map((r) => r.data);
        expect(additional.length).toBeGreaterThan(0);
        const resolved = [
          ...resolve(zone, { name: srv.data.target, type: 'A' }).answer,
          ...resolve(zone, { name: srv.data.target, type: 'AAAA' }).answer,
        ].map((r) => r.data);
        for (const address of additional) expect(resolved).toContain(address);
      }
    }
  }
});

const OTHER_TYPES = ['TXT', 'MX', 'HINFO', 'NS', 'SOA', 'PTR', 'CAA', 'UNKNOWN_65280'];

function isSoaOf(records: readonly DnsRecord[], zone: Zone): boolean {
  return records.length === 1 && records[0]?.type === 'SOA' && records[0].name === zone.origin;
}

test.prop([clusterArb, fc.constantFrom(...OTHER_TYPES), fc.string({ minLength: 1, maxLength: 8, unit: fc.constantFrom('a', 'b', 'z', '0', '-') })])(
  'INV-DNS-NXDOMAIN: an undefined name is NXDOMAIN; an existing name asked for another type is NOERROR with the SOA',
  ({ zone }, type, junk) => {
    for (const s of zone.services.values()) {
      // Existing: the service's own name, asked for a type it has no records of. A headless
      // service without ready endpoints does not exist (spec §2.4.1), nor does an
      // ExternalName that is an IP address (CoreDNS makes no CNAME of it).
      const exists = s.kind === 'clusterIP' || (s.kind === 'headless' && s.endpoints.length > 0) || (s.kind === 'externalName' && !parseIP(s.externalName).ok);
      const existing = resolve(zone, { name: fqdn(s, zone), type });
      expect(existing.rcode).toBe(exists ? 'NOERROR' : 'NXDOMAIN');
      expect(existing.answer).toStrictEqual([]);
      expect(isSoaOf(existing.authority, zone)).toBe(true);
      // Undefined: a service name nobody has, in the same namespace.
      const name = `x${junk}x`;
      if (zone.services.has(`${name}.${s.namespace}`)) continue;
      for (const t of ['A', 'AAAA', 'SRV', type]) {
        const missing = resolve(zone, { name: `${name}.${s.namespace}.svc.${zone.origin}`, type: t });
        expect(missing.rcode).toBe('NXDOMAIN');
        expect(missing.answer).toStrictEqual([]);
        expect(isSoaOf(missing.authority, zone)).toBe(true);
      }
    }
  },
);

test.prop([clusterArb])('building a zone does not change its inputs', ({ services, endpoints }) => {
  const before = JSON.stringify([services, endpoints]);
  const zone = zoneOf(services, endpoints);
  for (const s of zone.services.values()) resolve(zone, { name: fqdn(s, zone), type: 'A' });
  expect(JSON.stringify([services, endpoints])).toBe(before);
});

test('reverseName and parseIP agree on a known pair', () => {
  const ip = parseIP('10.96.0.10');
  expect(ip.ok && reverseName(ip.value)).toBe('10.0.96.10.in-addr.arpa');
});

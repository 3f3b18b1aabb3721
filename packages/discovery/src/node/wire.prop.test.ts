import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { endpointSliceArb, serviceArb } from '@kubesvc/testkit';
import { fc, test } from '@fast-check/vitest';
import * as dnsPacket from 'dns-packet';
import { expect } from 'vitest';
import type { DnsRecord } from '../dns/records.js';
import { RCODE_VALUES } from '../dns/records.js';
import { resolve } from '../dns/resolve.js';
import { handleQuery } from './wire.js';
import { buildZone, type Zone } from '../dns/zone.js';

/** The zone of valid options (buildZone fails only on options). */
const zoneOf = (...args: Parameters<typeof buildZone>): Zone => {
  const built = buildZone(...args);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

const zoneArb = fc
  .tuple(fc.array(serviceArb(), { maxLength: 5 }), fc.array(endpointSliceArb(), { maxLength: 3 }))
  .map(([services, slices]: [Service[], EndpointSlice[]]) => {
    // Point the slices at the services, so that headless ones have endpoints.
    const pointed = slices.map((slice, i): EndpointSlice => {
      const target = services[i % Math.max(1, services.length)];
      return {
        ...slice,
        metadata: { ...slice.metadata, namespace: target?.metadata.namespace ?? 'default', labels: { 'kubernetes.io/service-name': target?.metadata.name ?? 'x' } },
      };
    });
    return { services, zone: zoneOf(services, pointed, [], { pods: 'insecure' }) };
  });

const TYPES: dnsPacket.RecordType[] = ['A', 'AAAA', 'SRV', 'PTR', 'TXT', 'CNAME', 'SOA', 'NS', 'MX'];

/** Names the zone knows, names near them, and names elsewhere, in mixed case. */
function namesOf(services: readonly Service[]): fc.Arbitrary<string> {
  const known = services.flatMap((s) => {
    const base = `${s.metadata.name}.${s.metadata.namespace}.svc.cluster.local`;
    const ports = (s.spec?.ports ?? []).filter((p) => p.name !== undefined).map((p) => `_${p.name}._${(p.protocol ?? 'TCP').toLowerCase()}.${base}`);
    return [base, ...ports, `x.${base}`];
  });
  return fc.oneof(
    fc.constantFrom('cluster.local', 'dns-version.cluster.local', 'svc.cluster.local', 'example.com', '1.0.96.10.in-addr.arpa', '10-0-0-1.default.pod.cluster.local', ...known),
    fc.stringMatching(/^[a-zA-Z0-9-]{1,10}(\.[a-zA-Z0-9-]{1,10}){0,4}$/),
  );
}

function normalise(record: dnsPacket.Answer): unknown {
  if (record.type === 'OPT') return { name: record.name, type: record.type };
  const data = record.data;
  if (record.type === 'TXT') {
    const chunks = Array.isArray(data) ? data : [data];
    return { name: record.name, type: record.type, ttl: record.ttl, data: chunks.map((c) => (typeof c === 'string' ? c : Buffer.from(c as Uint8Array).toString())) };
  }
  return { name: record.name, type: record.type, ttl: record.ttl, data };
}

function fromResolve(record: DnsRecord): unknown {
  return { name: record.name, type: record.type, ttl: record.ttl, data: record.type === 'TXT' ? [...record.data] : record.data };
}

test.prop([fc.uint8Array({ maxLength: 600 })])(
  'INV-DNS-WIRE: handleQuery never throws on random bytes; it answers exactly those with a whole header and QR clear, with a response of the same ID',
  (bytes) => {
    const zone = zoneOf([], []);
    const out = handleQuery(zone, bytes);
    if (bytes.length < 12 || ((bytes[2] ?? 0) & 0x80) !== 0) {
      expect(out).toBeUndefined();
      return;
    }
    if (out === undefined) throw new Error('a request with a whole header and QR clear got no response');
    expect(out.length).toBeGreaterThanOrEqual(12);
    expect([out[0], out[1]]).toStrictEqual([bytes[0], bytes[1]]);
    expect((out[2] ?? 0) & 0x80).toBe(0x80);
    expect(() => dnsPacket.decode(Buffer.from(out))).not.toThrow();
  },
);

test.prop([zoneArb, fc.uint8Array({ minLength: 1, maxLength: 8 }), fc.nat()])(
  'INV-DNS-WIRE: a valid query with bytes overwritten never makes handleQuery throw',
  ({ zone }, junk, at) => {
    const q = dnsPacket.encode({ type: 'query', id: 7, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
    const bytes = new Uint8Array(q);
    bytes.set(junk.subarray(0, Math.max(0, bytes.length - (at % bytes.length))), at % bytes.length);
    expect(() => handleQuery(zone, bytes)).not.toThrow();
  },
);

test.prop([zoneArb.chain(({ services, zone }) => fc.tuple(fc.constant(zone), namesOf(services), fc.constantFrom(...TYPES), fc.boolean()))])(
  'INV-DNS-WIRE: the decoded answer of handleQuery is what resolve() says (a UDP answer cut short is a prefix, with TC)',
  ([zone, name, type, tcp]) => {
    const request = dnsPacket.encode({ type: 'query', id: 99, flags: 0, questions: [{ name, type, class: 'IN' }] });
    const bytes = handleQuery(zone, request, { transport: tcp ? 'tcp' : 'udp' });
    if (bytes === undefined) throw new Error('a query got no response');
    const response = dnsPacket.decode(Buffer.from(bytes));
    const expected = resolve(zone, { name, type });
    expect((bytes[3] ?? 0) & 0xf).toBe(RCODE_VALUES[expected.rcode]);
    expect(response.flag_aa).toBe(expected.authoritative);
    const answers = (response.answers ?? []).map(normalise);
    const want = expected.answer.map(fromResolve);
    if (response.flag_tc) {
      expect(tcp).toBe(false);
      expect(answers).toStrictEqual(want.slice(0, answers.length));
    } else {
      expect(answers).toStrictEqual(want);
      expect((response.authorities ?? []).map(normalise)).toStrictEqual(expected.authority.map(fromResolve));
      expect((response.additionals ?? []).map(normalise)).toStrictEqual(expected.additional.map(fromResolve));
    }
  },
);

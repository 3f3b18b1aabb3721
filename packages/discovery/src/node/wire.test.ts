import type { Endpoints, Service } from '@kubesvc/api-types';
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { handleQuery } from './wire.js';
import { buildZone, type Zone } from '../dns/zone.js';

/** The zone of valid options (buildZone fails only on options). */
const zoneOf = (...args: Parameters<typeof buildZone>): Zone => {
  const built = buildZone(...args);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

const services: Service[] = [
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { clusterIP: '10.96.0.20', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } },
  { apiVersion: 'v1', kind: 'Service', metadata: { name: 'many', namespace: 'default' }, spec: { clusterIP: 'None', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] } },
];
const many: Endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'many', namespace: 'default' },
  subsets: [{ addresses: Array.from({ length: 60 }, (_, i) => ({ ip: `10.244.1.${i + 1}` })), ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
};
const zone = zoneOf(services, [many]);

function query(name: string, type: dnsPacket.RecordType, extra: Partial<dnsPacket.Packet> = {}): Uint8Array {
  return dnsPacket.encode({ type: 'query', id: 4242, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type, class: 'IN' }], ...extra });
}

function decode(bytes: Uint8Array): dnsPacket.DecodedPacket {
  return dnsPacket.decode(Buffer.from(bytes));
}

const rcodeOf = (bytes: Uint8Array): number => (bytes[3] ?? 0) & 0xf;

describe('handleQuery', () => {
  it('answers a query: id and question echoed, QR, AA and RD set, rcode NOERROR', () => {
    const out = decode(handleQuery(zone, query('web.default.svc.cluster.local', 'A')));
    expect(out.id).toBe(4242);
    expect(out.type).toBe('response');
    expect(out.flag_aa).toBe(true);
    expect(out.flag_rd).toBe(true);
    expect(out.flag_tc).toBe(false);
    expect(rcodeOf(handleQuery(zone, query('web.default.svc.cluster.local', 'A')))).toBe(0);
    expect(out.questions).toStrictEqual([{ name: 'web.default.svc.cluster.local', type: 'A', class: 'IN' }]);
    expect(out.answers?.map((a) => (a.type === 'OPT' ? [] : [a.name, a.type, a.ttl, a.data]))).toStrictEqual([['web.default.svc.cluster.local', 'A', 5, '10.96.0.20']]);
  });

  it('puts the rcode in the flags (dns-packet ignores a separate rcode field)', () => {
    const nx = handleQuery(zone, query('nope.default.svc.cluster.local', 'A'));
    expect(rcodeOf(nx)).toBe(3);
    expect(decode(nx).authorities?.map((a) => a.type)).toStrictEqual(['SOA']);
    expect(rcodeOf(handleQuery(zone, query('example.com', 'A')))).toBe(5);
  });

  it('FORMERR for a message that is too short, garbage, a response, or has no question', () => {
    expect(Array.from(handleQuery(zone, new Uint8Array([0x12, 0x34, 0x01])))).toStrictEqual([0x12, 0x34, 0x80, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]);
    const garbage = new Uint8Array([0xab, 0xcd, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 1, 2]);
    expect(rcodeOf(handleQuery(zone, garbage))).toBe(1);
    expect(rcodeOf(handleQuery(zone, dnsPacket.encode({ type: 'response', id: 1, questions: [{ name: 'a', type: 'A' }] })))).toBe(1);
    expect(rcodeOf(handleQuery(zone, dnsPacket.encode({ type: 'query', id: 1, questions: [] })))).toBe(1);
    const two = dnsPacket.encode({ type: 'query', id: 1, questions: [{ name: 'a', type: 'A' }, { name: 'b', type: 'A' }] });
    expect(rcodeOf(handleQuery(zone, two))).toBe(1);
  });

  it('NOTIMP for an opcode other than QUERY', () => {
    const notify = query('web.default.svc.cluster.local', 'SOA', { flags: 4 << 11 });
    const out = handleQuery(zone, notify);
    expect(rcodeOf(out)).toBe(4);
    expect(((out[2] ?? 0) >> 3) & 0xf).toBe(4);
  });

  it('truncates a UDP answer over 512 bytes: TC set, a prefix of the answers; TCP gets them all', () => {
    const q = query('many.default.svc.cluster.local', 'A');
    const udp = handleQuery(zone, q);
    expect(udp.length).toBeLessThanOrEqual(512);
    const truncated = decode(udp);
    expect(truncated.flag_tc).toBe(true);
    const full = decode(handleQuery(zone, q, { transport: 'tcp' }));
    expect(full.flag_tc).toBe(false);
    expect(full.answers).toHaveLength(60);
    expect(truncated.answers?.length).toBeGreaterThan(0);
    expect(truncated.answers).toStrictEqual(full.answers?.slice(0, truncated.answers?.length));
  });

  it('uses the client’s EDNS size and answers with an OPT record', () => {
    const edns = query('many.default.svc.cluster.local', 'A', {
      additionals: [{ type: 'OPT', name: '.', udpPayloadSize: 4096, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }],
    });
    const out = decode(handleQuery(zone, edns));
    expect(out.flag_tc).toBe(false);
    expect(out.answers).toHaveLength(60);
    expect(out.additionals?.map((a) => (a.type === 'OPT' ? a.udpPayloadSize : 0))).toStrictEqual([4096]);
  });

  it('an SRV answer with its additional records is truncated over UDP too', () => {
    const out = decode(handleQuery(zone, query('_http._tcp.many.default.svc.cluster.local', 'SRV')));
    expect(out.flag_tc).toBe(true);
    expect(out.additionals).toStrictEqual([]);
  });
});

import type { Endpoints, Service } from '@kubesvc/api-types';
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { handleQuery as handleQueryOrNone } from './wire.js';
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

/** handleQuery for a message it must answer. */
function handleQuery(...args: Parameters<typeof handleQueryOrNone>): Uint8Array {
  const response = handleQueryOrNone(...args);
  if (response === undefined) throw new Error('a query got no response');
  return response;
}

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

  it('no response at all to a response (QR set) or to a message shorter than a header', () => {
    // miekg/dns server.go: a short message is not answered; acceptfunc.go: nor is a response.
    expect(handleQueryOrNone(zone, new Uint8Array([0x12, 0x34, 0x01]))).toBeUndefined();
    expect(handleQueryOrNone(zone, new Uint8Array(11))).toBeUndefined();
    const response = dnsPacket.encode({ type: 'response', id: 1, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
    expect(handleQueryOrNone(zone, response)).toBeUndefined();
    // Not even a FORMERR for a response that does not parse, or one with another opcode.
    expect(handleQueryOrNone(zone, Uint8Array.of(0xab, 0xcd, 0x80, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 1, 2))).toBeUndefined();
    expect(handleQueryOrNone(zone, Uint8Array.of(0xab, 0xcd, 0xa8, 0, 0, 0, 0, 0, 0, 0, 0, 0))).toBeUndefined();
  });

  it('FORMERR, with the opcode reset to QUERY and no question, for garbage or other than one question', () => {
    const garbage = new Uint8Array([0xab, 0xcd, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 1, 2]);
    // ID, QR and RD (echoed), rcode FORMERR, every count 0.
    expect([...handleQuery(zone, garbage)]).toStrictEqual([0xab, 0xcd, 0x81, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]);
    expect(rcodeOf(handleQuery(zone, dnsPacket.encode({ type: 'query', id: 1, questions: [] })))).toBe(1);
    const two = dnsPacket.encode({ type: 'query', id: 1, questions: [{ name: 'a', type: 'A' }, { name: 'b', type: 'A' }] });
    expect(rcodeOf(handleQuery(zone, two))).toBe(1);
    // 65535 questions announced, one present.
    const huge = new Uint8Array(query('web.default.svc.cluster.local', 'A'));
    huge[4] = 0xff;
    huge[5] = 0xff;
    expect([...handleQuery(zone, huge)]).toStrictEqual([0x10, 0x92, 0x81, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('FORMERR for more records than a query carries: an answer or authority count over 1, an additional count over 2', () => {
    const counted = (at: number, n: number): Uint8Array => {
      const bytes = new Uint8Array(query('web.default.svc.cluster.local', 'A'));
      bytes[at + 1] = n;
      return bytes;
    };
    expect(rcodeOf(handleQuery(zone, counted(6, 2)))).toBe(1);
    expect(rcodeOf(handleQuery(zone, counted(8, 2)))).toBe(1);
    expect(rcodeOf(handleQuery(zone, counted(10, 3)))).toBe(1);
  });

  it('a compression pointer loop in the question is FORMERR', () => {
    // The name is a pointer to itself (offset 12).
    const loop = Uint8Array.of(0, 7, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 0x0c, 0, 1, 0, 1);
    expect([...handleQuery(zone, loop)]).toStrictEqual([0, 7, 0x80, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]);
  });

  it('NOTIMP for every opcode other than QUERY, the opcode echoed', () => {
    for (let opcode = 1; opcode < 16; opcode++) {
      const out = handleQuery(zone, query('web.default.svc.cluster.local', 'SOA', { flags: (opcode << 11) | dnsPacket.RECURSION_DESIRED }));
      expect([...out]).toStrictEqual([0x10, 0x92, 0x81 | (opcode << 3), 0x04, 0, 0, 0, 0, 0, 0, 0, 0]);
    }
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

describe('handleQuery compresses names (RFC 1035 §4.1.4)', () => {
  const hex = (bytes: Uint8Array): string => Buffer.from(bytes).toString('hex');
  const labels = (name: string): string => hex(Uint8Array.from(name.split('.').flatMap((l) => [l.length, ...Buffer.from(l)])));

  it('an A answer names its owner with a pointer to the question: 63 bytes, not 92', () => {
    const out = handleQuery(zone, query('web.default.svc.cluster.local', 'A'));
    // Header 12, question 31 + 4; the answer: pointer 2, type class TTL RDLENGTH 10, address 4.
    expect(out).toHaveLength(12 + 35 + 16);
    expect(hex(out.subarray(47))).toBe('c00c' + '0001' + '0001' + '00000005' + '0004' + '0a600014');
  });

  it('the SOA of an NXDOMAIN: its owner and both of its names point into the question', () => {
    const out = handleQuery(zone, query('nope.default.svc.cluster.local', 'A'));
    // The question's name is at 12: nope (5 bytes), default (8), svc (4), so cluster.local is at 29.
    // SOA: owner pointer 2, 10, mname "ns.dns" + pointer 9, rname "hostmaster" + pointer 13, 20.
    expect(out).toHaveLength(12 + 36 + 2 + 10 + 9 + 13 + 20);
    const soa = out.subarray(48);
    expect(hex(soa.subarray(0, 2))).toBe('c01d');
    expect(hex(soa.subarray(12, 12 + 22))).toBe(labels('ns.dns') + 'c01d' + labels('hostmaster') + 'c01d');
    expect(decode(out).authorities).toStrictEqual(decode(handleQuery(zone, query('nope.default.svc.cluster.local', 'A'), { transport: 'tcp' })).authorities);
  });

  it('an SRV target is written in full (RFC 2782), and the additional record for it points to the question', () => {
    const out = handleQuery(zone, query('_http._tcp.web.default.svc.cluster.local', 'SRV'));
    // Question at 12: _http (6), _tcp (5), then web.default.svc.cluster.local at 23 (31 bytes).
    // SRV: pointer 2, 10, priority weight port 6, target 31. A: pointer to 23, 10, 4.
    expect(out).toHaveLength(12 + 46 + (2 + 10 + 6 + 31) + (2 + 10 + 4));
    expect(hex(out.subarray(58 + 12 + 6, 58 + 12 + 6 + 31))).toBe(labels('web.default.svc.cluster.local') + '00');
    expect(hex(out.subarray(107, 109))).toBe('c017');
    const decoded = decode(out);
    expect(decoded.answers?.map((a) => (a.type === 'SRV' ? a.data.target : ''))).toStrictEqual(['web.default.svc.cluster.local']);
    expect(decoded.additionals?.map((a) => [a.name, a.type])).toStrictEqual([['web.default.svc.cluster.local', 'A']]);
  });

  it('a suffix is shared only in the same letter case; a later name may point into an SRV target', () => {
    const out = handleQuery(zone, query('_http._tcp.WEB.default.svc.cluster.local', 'SRV'));
    // The target, written in full at 58 + 2 + 10 + 6 = 76, is the first web.default... in lower
    // case: the additional record's owner points to it, not to the question's WEB.default...
    expect(out).toHaveLength(12 + 46 + (2 + 10 + 6 + 31) + (2 + 10 + 4));
    expect(hex(out.subarray(76, 107))).toBe(labels('web.default.svc.cluster.local') + '00');
    expect(hex(out.subarray(107, 109))).toBe('c04c');
    const decoded = decode(out);
    expect(decoded.questions?.map((q) => q.name)).toStrictEqual(['_http._tcp.WEB.default.svc.cluster.local']);
    expect(decoded.answers?.map((a) => [a.name, a.type === 'SRV' ? a.data.target : ''])).toStrictEqual([['_http._tcp.WEB.default.svc.cluster.local', 'web.default.svc.cluster.local']]);
    expect(decoded.additionals?.map((a) => [a.name, a.type])).toStrictEqual([['web.default.svc.cluster.local', 'A']]);
  });

  describe('a headless service with 300 endpoints', () => {
    const big300: Endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'many', namespace: 'default' },
      subsets: [{ addresses: Array.from({ length: 300 }, (_, i) => ({ ip: `10.244.${i >> 8}.${i & 0xff}` })), ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
    };
    const zone300 = zoneOf(services, [big300]);
    const name = 'many.default.svc.cluster.local';
    // Header 12; question: name 32, type and class 4; each A record: pointer 2, 10, address 4.
    const QUESTION = 32 + 4;
    const A_RECORD = 2 + 10 + 4;
    // The OPT record: root name 1, type 2, payload size 2, TTL 4, RDLENGTH 2.
    const OPT = 11;

    it('over TCP: all 300, each 16 bytes, 4.8 KB where dns-packet alone wrote 13.6 KB', () => {
      const request = query(name, 'A');
      const out = handleQuery(zone300, request, { transport: 'tcp' });
      expect(out).toHaveLength(12 + QUESTION + 300 * A_RECORD);
      const decoded = decode(out);
      expect(decoded.flag_tc).toBe(false);
      expect(decoded.answers?.map((a) => [a.name, a.type === 'A' ? a.data : ''])).toStrictEqual(big300.subsets?.[0]?.addresses?.map((a) => [name, a.ip]));
    });

    it('over UDP: as many as fit in 512 bytes (29), or in the EDNS size with the OPT record (73 in 1232)', () => {
      const fit = (size: number): number => Math.floor((size - 12 - QUESTION) / A_RECORD);
      expect(fit(512)).toBe(29);
      const plain = handleQuery(zone300, query(name, 'A'));
      expect(plain).toHaveLength(12 + QUESTION + 29 * A_RECORD);
      expect(decode(plain).flag_tc).toBe(true);
      expect(decode(plain).answers).toHaveLength(29);
      const opt = { type: 'OPT' as const, name: '.', udpPayloadSize: 1232, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] };
      const edns = handleQuery(zone300, query(name, 'A', { additionals: [opt] }));
      expect(Math.floor((1232 - 12 - QUESTION - OPT) / A_RECORD)).toBe(73);
      expect(edns).toHaveLength(12 + QUESTION + 73 * A_RECORD + OPT);
      expect(decode(edns).answers).toHaveLength(73);
      expect(decode(edns).additionals?.map((a) => (a.type === 'OPT' ? a.udpPayloadSize : 0))).toStrictEqual([1232]);
    });
  });
});

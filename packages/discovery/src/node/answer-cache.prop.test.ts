import type { Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import * as dnsPacket from 'dns-packet';
import { describe, expect, it } from 'vitest';
import { buildZone, type Zone } from '../dns/zone.js';
import { AnswerCache, answerCacheKey, cachedAnswerer } from './answer-cache.js';
import { handleQuery } from './wire.js';

const zoneOf = (services: Service[]): Zone => {
  const built = buildZone(services, []);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

const service = (name: string, clusterIP: string): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'default' },
  spec: { clusterIP, clusterIPs: [clusterIP], ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
});

const zone = zoneOf([service('web', '10.96.0.20'), service('api', '10.96.0.30'), service('db', 'None')]);

const NAMES = ['web.default.svc.cluster.local', 'WEB.default.svc.cluster.local', 'api.default.svc.cluster.local', 'nope.default.svc.cluster.local', 'cluster.local', 'example.com', '20.0.96.10.in-addr.arpa', '_http._tcp.web.default.svc.cluster.local'];
/** dns-packet encodes ANY (255) although its type declarations leave it out. */
type QuestionType = dnsPacket.RecordType | 'ANY';
const TYPES: QuestionType[] = ['A', 'AAAA', 'SRV', 'PTR', 'TXT', 'SOA', 'NS', 'ANY'];

/** An EDNS option as dig and resolvers send them: a cookie, padding, or one dns-packet decodes field by field (raw data, which dns-packet encodes as given; its declarations want the decoded fields). */
const optionArb: fc.Arbitrary<dnsPacket.PacketOpt> = fc.oneof(
  fc.uint8Array({ minLength: 8, maxLength: 8 }).map((data) => ({ code: 10, data: Buffer.from(data) })),
  fc.nat({ max: 8 }).map((n) => ({ code: 12, data: Buffer.alloc(n) })),
  fc.uint8Array({ maxLength: 3 }).map((data) => ({ code: 8, data: Buffer.from(data) })),
  fc.uint8Array({ maxLength: 3 }).map((data) => ({ code: 11, data: Buffer.from(data) })),
).map((option) => option as unknown as dnsPacket.PacketOpt);

interface Shape {
  readonly name: string;
  readonly type: QuestionType;
  readonly flags: number;
  /** The EDNS UDP payload size, or undefined for a request without OPT. */
  readonly size: number | undefined;
}

/** What the response depends on: the question, the flags and the EDNS size. */
const shapeArb: fc.Arbitrary<Shape> = fc.record({
  name: fc.oneof(fc.constantFrom(...NAMES), fc.stringMatching(/^[a-zA-Z0-9-]{1,8}(\.[a-zA-Z0-9-]{1,8}){0,3}$/)),
  type: fc.constantFrom(...TYPES),
  flags: fc.constantFrom(0, dnsPacket.RECURSION_DESIRED, dnsPacket.RECURSION_DESIRED | dnsPacket.CHECKING_DISABLED, 1 << 11, 1 << 15),
  size: fc.option(fc.constantFrom(0, 512, 1232, 4096), { nil: undefined }),
});

/** What it must not depend on: the ID, the DO bit and the EDNS options. */
const varianceArb = fc.record({ id: fc.nat({ max: 0xffff }), doBit: fc.boolean(), options: fc.array(optionArb, { maxLength: 2 }) });

function encode(shape: Shape, v: { id: number; doBit: boolean; options: dnsPacket.PacketOpt[] }): Uint8Array {
  const additionals: dnsPacket.Answer[] =
    shape.size === undefined ? [] : [{ type: 'OPT', name: '.', udpPayloadSize: shape.size, extendedRcode: 0, ednsVersion: 0, flags: v.doBit ? dnsPacket.DNSSEC_OK : 0, flag_do: v.doBit, options: v.options }];
  return new Uint8Array(dnsPacket.encode({ type: 'query', id: v.id, flags: shape.flags, questions: [{ name: shape.name, type: shape.type as dnsPacket.RecordType, class: 'IN' }], additionals }));
}

/** A response as hex text, so that two compare as one string; "no response" for none. */
const hex = (bytes: Uint8Array | undefined): string => (bytes === undefined ? 'no response' : Buffer.from(bytes).toString('hex'));

/** A few bytes overwritten (what a broken client or the network does), or none. */
const damageArb = fc.option(fc.tuple(fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 3 })), { nil: undefined });

function damaged(bytes: Uint8Array, damage: [number, Uint8Array] | undefined): Uint8Array {
  if (damage === undefined) return bytes;
  const [at, junk] = damage;
  const out = new Uint8Array(bytes);
  out.set(junk.subarray(0, Math.max(0, out.length - (at % out.length))), at % out.length);
  return out;
}

test.prop([fc.array(fc.tuple(shapeArb, fc.array(fc.tuple(varianceArb, damageArb), { minLength: 1, maxLength: 4 }), fc.constantFrom('udp' as const, 'tcp' as const)), { minLength: 1, maxLength: 20 })])(
  'INV-DNS-CACHE: every response of the cached answerer is byte for byte what handleQuery returns for the same request',
  (cases) => {
    const answerer = cachedAnswerer(zone, undefined);
    // Each shape asked several times with other IDs, DO bits and options, so that a response
    // cached for one request is checked against handleQuery's for the others.
    for (const [shape, variants, transport] of cases) {
      for (const [variance, damage] of variants) {
        const bytes = damaged(encode(shape, variance), damage);
        expect(hex(answerer.answer(bytes, transport))).toBe(hex(handleQuery(zone, bytes, { transport })));
      }
    }
  },
);

describe('cachedAnswerer', () => {
  const ask = (name: string, id = 1): Uint8Array => new Uint8Array(dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name, type: 'A', class: 'IN' }] }));
  const answered = (bytes: Uint8Array | undefined): Uint8Array => {
    if (bytes === undefined) throw new Error('a query got no response');
    return bytes;
  };
  const answersOf = (bytes: Uint8Array | undefined): unknown[] => (dnsPacket.decode(Buffer.from(answered(bytes))).answers ?? []).map((a) => (a.type === 'A' ? a.data : a.type));

  it('answers from the new zone after setZone, for a name it had cached', () => {
    const answerer = cachedAnswerer(zone, undefined);
    // The rcode is the low four bits of the flags' second byte: 3 is NXDOMAIN.
    expect((answered(answerer.answer(ask('new.default.svc.cluster.local'), 'udp'))[3] ?? 0) & 0xf).toBe(3);
    answerer.setZone(zoneOf([service('new', '10.96.0.99')]));
    expect(answersOf(answerer.answer(ask('new.default.svc.cluster.local', 2), 'udp'))).toStrictEqual(['10.96.0.99']);
  });

  it('asks the forward hook again each time: its answers are not cached', () => {
    let n = 0;
    const answerer = cachedAnswerer(zone, (q) => ({ rcode: 'NOERROR', authoritative: false, answer: [{ name: q.name, type: 'A', ttl: 30, class: 'IN', data: `192.0.2.${++n}` }], authority: [], additional: [] }));
    expect(answersOf(answerer.answer(ask('example.com'), 'udp'))).toStrictEqual(['192.0.2.1']);
    expect(answersOf(answerer.answer(ask('example.com'), 'udp'))).toStrictEqual(['192.0.2.2']);
  });

  it('keys a request by its shape: compression, trailing bytes and extra records are left to handleQuery', () => {
    const plain = ask('web.default.svc.cluster.local');
    expect(answerCacheKey(plain)).toBeDefined();
    expect(answerCacheKey(Uint8Array.from([...plain, 0]))).toBeUndefined();
    const pointer = Uint8Array.from(plain);
    pointer[12] = 0xc0;
    expect(answerCacheKey(pointer)).toBeUndefined();
    const twoQuestions = Uint8Array.from(plain);
    twoQuestions[5] = 2;
    expect(answerCacheKey(twoQuestions)).toBeUndefined();
    // The same question with another ID has the same key; with another EDNS size, another.
    expect(answerCacheKey(ask('web.default.svc.cluster.local', 9))).toBe(answerCacheKey(plain));
    const edns = (size: number): Uint8Array =>
      new Uint8Array(dnsPacket.encode({ type: 'query', id: 1, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }], additionals: [{ type: 'OPT', name: '.', udpPayloadSize: size, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }] }));
    expect(answerCacheKey(edns(1232))).not.toBe(answerCacheKey(edns(4096)));
  });

  it('starts over when full, so a flood of distinct names cannot grow it without bound', () => {
    const cache = new AnswerCache(2);
    cache.set('a', Uint8Array.of(1, 2, 3));
    cache.set('b', Uint8Array.of(1, 2, 3));
    cache.set('c', Uint8Array.of(1, 2, 3));
    expect(cache.size).toBe(1);
    expect(cache.get('a', Uint8Array.of(9, 9))).toBeUndefined();
    expect([...(cache.get('c', Uint8Array.of(9, 8)) ?? [])]).toStrictEqual([9, 8, 3]);
  });
});

// INV-DNS-FUZZ: random and hostile messages sent to a running DNS server on 127.0.0.1, over UDP
// and TCP, never crash it; it answers exactly the messages that have a whole header and QR
// clear (never a response, never a runt), each with a response of the same ID that a decoder
// reads; a well-formed query gets its answer; and afterwards a normal query is answered
// correctly. The hostile shapes: headers cut short, label lengths that are pointers' or run
// past the end, compression pointers that loop in the question, 65535 questions announced,
// QR set, every opcode, EDNS OPT records of odd sizes, odd option lengths and several OPTs,
// bytes overwritten in a valid query, and plain random bytes.
//
// Whether the server answered a message is known without waiting for a timeout: each message
// is followed on the same socket (or connection) by a query with another ID, and the server
// handles one socket's messages in order, so a reply to the first comes before the reply to
// the second. FC_NUM_RUNS sets the number of messages; a time limit bounds the whole run on a
// loaded machine.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { connect } from 'node:net';
import type { Endpoints, Service } from '@kubesvc/api-types';
import { fc } from '@fast-check/vitest';
import * as dnsPacket from 'dns-packet';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildZone, type Zone } from '../index.js';
import { startDnsServer, type DnsServer } from './dns-server.js';

const TIME_LIMIT_MS = 60_000;
/** How long one exchange may take before the test fails with what it saw. */
const EXCHANGE_MS = 10_000;

const zoneOf = (...args: Parameters<typeof buildZone>): Zone => {
  const built = buildZone(...args);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

const service = (name: string, clusterIP: string): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'default' },
  spec: { clusterIP, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
});
const headless: Endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'many', namespace: 'default' },
  subsets: [{ addresses: Array.from({ length: 100 }, (_, i) => ({ ip: `10.244.0.${i + 1}`, hostname: `pod-${i}` })), ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
};
const zone = zoneOf([service('web', '10.96.0.20'), service('many', 'None')], [headless]);

let server: DnsServer;
let udp: UdpSocket;
/** Replies to the UDP socket not yet taken by an exchange. */
const udpReplies: Buffer[] = [];
let onUdpReply: (() => void) | undefined;

beforeAll(async () => {
  server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
  udp = createSocket('udp4');
  udp.on('message', (msg) => {
    udpReplies.push(msg);
    onUdpReply?.();
  });
  await new Promise<void>((resolve) => udp.bind({ address: '127.0.0.1', port: 0 }, resolve));
});

afterAll(async () => {
  udp?.close();
  await server?.close();
});

const idOf = (bytes: Uint8Array): number => (bytes.length >= 2 ? ((bytes[0] ?? 0) << 8) | (bytes[1] ?? 0) : -1);

/** A normal query whose ID differs from the message before it. */
function sentinel(after: Uint8Array): Uint8Array {
  const id = idOf(after) === -1 ? 0x5151 : idOf(after) ^ 0x8000;
  return dnsPacket.encode({ type: 'query', id, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
}

/** Sends `message` then a sentinel over UDP; returns the replies that came before the sentinel's. */
async function udpExchange(message: Uint8Array): Promise<Buffer[]> {
  const last = sentinel(message);
  const lastId = idOf(last);
  udpReplies.length = 0;
  const done = new Promise<Buffer[]>((resolve, reject) => {
    const timer = setTimeout(() => {
      onUdpReply = undefined;
      reject(new Error(`no reply to the sentinel within ${EXCHANGE_MS} ms; replies: ${udpReplies.map((r) => r.toString('hex')).join(', ')}`));
    }, EXCHANGE_MS);
    onUdpReply = () => {
      const at = udpReplies.findIndex((r) => idOf(r) === lastId && (r[2] ?? 0) & 0x80);
      if (at === -1) return;
      clearTimeout(timer);
      onUdpReply = undefined;
      resolve(udpReplies.slice(0, at));
    };
  });
  udp.send(message, server.port, '127.0.0.1');
  udp.send(last, server.port, '127.0.0.1');
  return done;
}

/** The same over one new TCP connection, each message with its 2-byte length prefix. */
async function tcpExchange(message: Uint8Array): Promise<Buffer[]> {
  const last = sentinel(message);
  const lastId = idOf(last);
  const frame = (m: Uint8Array): Buffer => Buffer.concat([Buffer.from([m.length >> 8, m.length & 0xff]), m]);
  const socket = connect({ host: '127.0.0.1', port: server.port });
  const replies: Buffer[] = [];
  try {
    return await new Promise<Buffer[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply to the sentinel within ${EXCHANGE_MS} ms; replies: ${replies.map((r) => r.toString('hex')).join(', ')}`)), EXCHANGE_MS);
      let data = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        while (data.length >= 2 && data.length - 2 >= data.readUInt16BE(0)) {
          const reply = data.subarray(2, 2 + data.readUInt16BE(0));
          data = data.subarray(2 + reply.length);
          if (idOf(reply) === lastId && (reply[2] ?? 0) & 0x80) {
            clearTimeout(timer);
            resolve(replies);
            return;
          }
          replies.push(reply);
        }
      });
      socket.on('error', reject);
      socket.write(Buffer.concat([frame(message), frame(last)]));
    });
  } finally {
    socket.destroy();
  }
}

// Messages, each with what the server must do with it.
type Expect = 'answer' | 'formerr' | 'notimp' | 'any';
interface Case {
  readonly bytes: Uint8Array;
  readonly expect: Expect;
  /** For a well-formed query: the question the answer must echo. */
  readonly question?: { readonly name: string; readonly type: string };
}

const NAMES = ['web.default.svc.cluster.local', 'WEB.Default.svc.cluster.local', 'many.default.svc.cluster.local', '_http._tcp.many.default.svc.cluster.local', 'pod-3.many.default.svc.cluster.local', 'nope.default.svc.cluster.local', 'cluster.local', '20.0.96.10.in-addr.arpa', 'example.com', '.'];
const TYPES: dnsPacket.RecordType[] = ['A', 'AAAA', 'SRV', 'PTR', 'TXT', 'SOA', 'NS', 'CNAME', 'MX'];
const nameArb = fc.oneof(fc.constantFrom(...NAMES), fc.stringMatching(/^[a-z0-9-]{1,12}(\.[a-z0-9-]{1,12}){0,4}$/));
/** EDNS payload sizes, the odd ones included: below 512, exactly 512, the largest. */
const sizeArb = fc.constantFrom(0, 1, 511, 512, 513, 1232, 4096, 65535);
const optionArb = fc.oneof(
  fc.uint8Array({ minLength: 8, maxLength: 8 }).map((data) => ({ code: 10, data: Buffer.from(data) })),
  fc.nat({ max: 300 }).map((n) => ({ code: 12, data: Buffer.alloc(n) })),
) as fc.Arbitrary<unknown> as fc.Arbitrary<dnsPacket.PacketOpt>;

interface QueryParts {
  readonly id: number;
  readonly name: string;
  readonly type: dnsPacket.RecordType;
  /** RD, AD and CD as a client may set them. */
  readonly bits: number;
  readonly edns: { readonly size: number; readonly options: dnsPacket.PacketOpt[] } | undefined;
}

const queryArb: fc.Arbitrary<QueryParts> = fc.record({
  id: fc.nat({ max: 0xffff }),
  name: nameArb,
  type: fc.constantFrom(...TYPES),
  bits: fc.subarray([dnsPacket.RECURSION_DESIRED, dnsPacket.AUTHENTIC_DATA, dnsPacket.CHECKING_DISABLED]).map((bits) => bits.reduce((a, b) => a | b, 0)),
  edns: fc.option(fc.record({ size: sizeArb, options: fc.array(optionArb, { maxLength: 2 }) }), { nil: undefined }),
});

function encodeQuery(q: QueryParts, flags = q.bits): Uint8Array {
  const additionals: dnsPacket.Answer[] =
    q.edns === undefined ? [] : [{ type: 'OPT', name: '.', udpPayloadSize: q.edns.size, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: q.edns.options }];
  return new Uint8Array(dnsPacket.encode({ type: 'query', id: q.id, flags, questions: [{ name: q.name, type: q.type, class: 'IN' }], additionals }));
}

const header = (id: number, flags: number, qd: number, an = 0, ns = 0, ar = 0): number[] => [id >> 8, id & 0xff, flags >> 8, flags & 0xff, qd >> 8, qd & 0xff, an >> 8, an & 0xff, ns >> 8, ns & 0xff, ar >> 8, ar & 0xff];

const caseArb: fc.Arbitrary<Case> = fc.oneof(
  // A well-formed query: answered from the zone, its question echoed.
  { weight: 4, arbitrary: queryArb.map((q): Case => ({ bytes: encodeQuery(q), expect: 'answer', question: { name: q.name, type: q.type } })) },
  // A header cut short.
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 11 }).map((bytes): Case => ({ bytes, expect: 'any' })) },
  // QR set: a response, with any opcode and rcode.
  {
    weight: 2,
    arbitrary: fc.tuple(queryArb, fc.nat({ max: 15 }), fc.nat({ max: 15 })).map(([q, opcode, rcode]): Case => ({ bytes: encodeQuery(q, 0x8000 | (opcode << 11) | q.bits | rcode), expect: 'any' })),
  },
  // Every opcode other than QUERY.
  { weight: 2, arbitrary: fc.tuple(queryArb, fc.integer({ min: 1, max: 15 })).map(([q, opcode]): Case => ({ bytes: encodeQuery(q, (opcode << 11) | q.bits), expect: 'notimp' })) },
  // Other than one question announced, up to 65535.
  {
    weight: 1,
    arbitrary: fc.tuple(queryArb, fc.oneof(fc.constant(0), fc.integer({ min: 2, max: 0xffff }))).map(([q, qd]): Case => {
      const bytes = encodeQuery(q);
      bytes[4] = qd >> 8;
      bytes[5] = qd & 0xff;
      return { bytes, expect: 'formerr' };
    }),
  },
  // A bad label: a length with the top bits 01 or 10, or one that runs past the end.
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat({ max: 0xffff }), fc.oneof(fc.integer({ min: 0x40, max: 0xbf }), fc.integer({ min: 10, max: 63 })), fc.uint8Array({ maxLength: 8 })).map(
      ([id, length, rest]): Case => ({ bytes: Uint8Array.from([...header(id, 0x0100, 1), 3, 0x61, 0x62, 0x63, length, ...rest]), expect: 'formerr' }),
    ),
  },
  // Compression pointers in the question that point to themselves, forwards, or in a loop.
  {
    weight: 1,
    arbitrary: fc.tuple(fc.nat({ max: 0xffff }), fc.constantFrom([0xc0, 0x0c], [0xc0, 0x0e, 0xc0, 0x0c], [0x03, 0x61, 0x62, 0x63, 0xc0, 0x0c], [0xc0, 0x20], [0xff, 0xff])).map(
      ([id, name]): Case => ({ bytes: Uint8Array.from([...header(id, 0, 1), ...name, 0, 1, 0, 1]), expect: 'formerr' }),
    ),
  },
  // OPT records by hand: odd payload sizes, RDATA lengths that lie, option lengths past the
  // RDATA, two OPTs, an OPT with a name that is not the root.
  {
    weight: 2,
    arbitrary: fc
      .tuple(queryArb, sizeArb, fc.nat({ max: 0xffff }), fc.nat({ max: 0xffff }), fc.uint8Array({ maxLength: 12 }), fc.integer({ min: 1, max: 3 }), fc.boolean())
      .map(([q, size, rdLength, optionLength, data, count, rootName]): Case => {
        const question = encodeQuery({ ...q, edns: undefined });
        const opt = [...(rootName ? [0] : [1, 0x61, 0]), 0, 41, size >> 8, size & 0xff, 0, 0, 0, 0, rdLength >> 8, rdLength & 0xff, 0, 10, optionLength >> 8, optionLength & 0xff, ...data];
        const bytes = Uint8Array.from([...question, ...Array.from({ length: count }, () => opt).flat()]);
        bytes[10] = 0;
        bytes[11] = count;
        return { bytes, expect: count > 2 ? 'formerr' : 'any' };
      }),
  },
  // A valid query with a few bytes overwritten.
  {
    weight: 2,
    arbitrary: fc.tuple(queryArb, fc.nat(), fc.uint8Array({ minLength: 1, maxLength: 4 })).map(([q, at, junk]): Case => {
      const bytes = encodeQuery(q);
      bytes.set(junk.subarray(0, bytes.length - (at % bytes.length)), at % bytes.length);
      return { bytes, expect: 'any' };
    }),
  },
  // Random bytes.
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }).map((bytes): Case => ({ bytes, expect: 'any' })) },
);

const rcodeOf = (bytes: Uint8Array): number => (bytes[3] ?? 0) & 0xf;

function check(c: Case, transport: 'udp' | 'tcp', replies: Buffer[]): void {
  const what = `${transport} ${Buffer.from(c.bytes).toString('hex')}`;
  const answered = c.bytes.length >= 12 && ((c.bytes[2] ?? 0) & 0x80) === 0;
  if (!answered) {
    expect(replies.map((r) => r.toString('hex')), `no reply to ${what}`).toStrictEqual([]);
    return;
  }
  expect(replies, `one reply to ${what}`).toHaveLength(1);
  const reply = replies[0] ?? Buffer.alloc(0);
  expect(idOf(reply), what).toBe(idOf(c.bytes));
  expect((reply[2] ?? 0) & 0x80, `QR in the reply to ${what}`).toBe(0x80);
  const decoded = dnsPacket.decode(reply);
  if (c.expect === 'formerr') expect(rcodeOf(reply), what).toBe(1);
  if (c.expect === 'notimp') {
    expect(rcodeOf(reply), what).toBe(4);
    expect(((reply[2] ?? 0) >> 3) & 0xf, what).toBe(((c.bytes[2] ?? 0) >> 3) & 0xf);
  }
  if (c.expect === 'answer') {
    // NOERROR, NXDOMAIN, or REFUSED for a name outside the cluster's zones.
    expect([0, 3, 5], what).toContain(rcodeOf(reply));
    expect(decoded.questions?.map((q) => [q.name, q.type]), what).toStrictEqual([[c.question?.name, c.question?.type]]);
    const opt = decoded.additionals?.find((a) => a.type === 'OPT');
    const limit = transport === 'tcp' ? 65535 : Math.max(512, opt?.type === 'OPT' ? opt.udpPayloadSize : 0);
    expect(reply.length, what).toBeLessThanOrEqual(limit);
  }
}

// A plain `it`: @fast-check/vitest's `test` would run this whole body as a property, many times.
it('INV-DNS-FUZZ: hostile messages never crash the server; only whole queries with QR clear are answered, well-formed ones from the zone', { timeout: TIME_LIMIT_MS + 60_000 }, async () => {
  let sent = 0;
  // Past the deadline the remaining runs send nothing, so the test ends in bounded time.
  const deadline = Date.now() + TIME_LIMIT_MS;
  await fc.assert(
    fc.asyncProperty(caseArb, fc.constantFrom('udp' as const, 'tcp' as const), async (c, transport) => {
      if (Date.now() > deadline) return;
      const replies = transport === 'udp' ? await udpExchange(c.bytes) : await tcpExchange(c.bytes);
      sent++;
      check(c, transport, replies);
    }),
    { interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false, endOnFailure: true },
  );
  expect(sent).toBeGreaterThan(0);
  // The server still answers a normal query, over both transports.
  for (const exchange of [udpExchange, tcpExchange]) {
    const query = dnsPacket.encode({ type: 'query', id: 0x4242, flags: dnsPacket.RECURSION_DESIRED, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
    const replies = await exchange(query);
    expect(replies).toHaveLength(1);
    const decoded = dnsPacket.decode(replies[0] ?? Buffer.alloc(0));
    expect(decoded.id).toBe(0x4242);
    expect(rcodeOf(replies[0] ?? Buffer.alloc(0))).toBe(0);
    expect(decoded.answers?.map((a) => [a.name, a.type, a.type === 'A' ? a.data : ''])).toStrictEqual([['web.default.svc.cluster.local', 'A', '10.96.0.20']]);
  }
});

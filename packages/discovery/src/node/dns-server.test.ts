// End to end: the server on 127.0.0.1, asked by dig over UDP and TCP.
import { execFile, spawnSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import type { Endpoints, Service } from '@kubesvc/api-types';
import * as dnsPacket from 'dns-packet';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildZone, type Zone } from '../index.js';
import { startDnsServer, type DnsServer } from './dns-server.js';

/** The zone of valid options (buildZone fails only on options). */
const zoneOf = (...args: Parameters<typeof buildZone>): Zone => {
  const built = buildZone(...args);
  if (!built.ok) throw new Error(built.error.message);
  return built.value;
};

const DIG = '/usr/bin/dig';

// spawnSync is fine here: no server is running yet.
function hasDig(): boolean {
  const probe = spawnSync('dig', ['-v'], { encoding: 'utf8', timeout: 5000 });
  return probe.status === 0 || /DiG/.test(`${probe.stdout}${probe.stderr}`);
}

interface Dig {
  readonly out: string;
  readonly answers: string[];
}

/** Runs dig without blocking the event loop (the server answers from this process). */
async function dig(server: DnsServer, ...args: string[]): Promise<Dig> {
  const out = await new Promise<string>((resolve, reject) => {
    execFile('dig', [`@${server.host}`, '-p', String(server.port), '+time=2', '+tries=1', ...args], { encoding: 'utf8', timeout: 15_000 }, (err, stdout, stderr) => {
      // dig exits 9 when no server answers; its output says why, and the assertions show it.
      if (err !== null && typeof err.code !== 'number') reject(err);
      else resolve(`${stdout}${stderr}`);
    });
  });
  const section = /;; ANSWER SECTION:\n([\s\S]*?)\n\n/.exec(out)?.[1] ?? '';
  return { out, answers: section.split('\n').filter((l) => l !== '').map((l) => l.split(/\s+/).join(' ')) };
}

const service = (name: string, spec: Service['spec']): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec });

const services = [
  service('web', { clusterIP: '10.96.0.20', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }),
  service('big', { clusterIP: 'None', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }),
];
const big: Endpoints = {
  apiVersion: 'v1',
  kind: 'Endpoints',
  metadata: { name: 'big', namespace: 'default' },
  subsets: [{ addresses: Array.from({ length: 30 }, (_, i) => ({ ip: `10.244.0.${i + 1}`, hostname: `pod-${i + 1}` })), ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
};
const zone = zoneOf(services, [big]);

let server: DnsServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe('startDnsServer with dig', () => {
  beforeAll(() => {
    if (!hasDig()) throw new Error(`dig is not installed (expected at ${DIG}): install dnsutils (apt-get install -y dnsutils); CI's .ci/run does`);
  });

  it('answers A over UDP and TCP, and NXDOMAIN', async () => {
    server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
    expect(server.port).toBeGreaterThan(0);
    const udp = await dig(server, 'web.default.svc.cluster.local', 'A');
    expect(udp.out).toMatch(/status: NOERROR/);
    expect(udp.out).toMatch(/flags: qr aa rd;/);
    expect(udp.answers).toStrictEqual(['web.default.svc.cluster.local. 5 IN A 10.96.0.20']);
    const tcp = await dig(server, '+tcp', 'WEB.default.svc.cluster.local', 'A');
    expect(tcp.answers).toStrictEqual(['WEB.default.svc.cluster.local. 5 IN A 10.96.0.20']);
    const nx = await dig(server, 'nope.default.svc.cluster.local', 'A');
    expect(nx.out).toMatch(/status: NXDOMAIN/);
    expect(nx.out).toMatch(/cluster\.local\.\s+5\s+IN\s+SOA\s+ns\.dns\.cluster\.local\. hostmaster\.cluster\.local\. 1 7200 1800 86400 5/);
    expect((await dig(server, '-x', '10.96.0.20')).answers).toStrictEqual(['20.0.96.10.in-addr.arpa. 5 IN PTR web.default.svc.cluster.local.']);
  });

  it('an SRV answer too big for UDP is truncated, and dig retries over TCP for all of it', async () => {
    server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
    const srv = await dig(server, '+noedns', '_http._tcp.big.default.svc.cluster.local', 'SRV');
    expect(srv.out).toContain(';; Truncated, retrying in TCP mode.');
    expect(srv.answers).toHaveLength(30);
    expect(srv.answers[0]).toBe('_http._tcp.big.default.svc.cluster.local. 5 IN SRV 0 3 8080 pod-1.big.default.svc.cluster.local.');
    expect(srv.out).toMatch(/ADDITIONAL: 30/);
  });

  it('a 300-record answer: compressed, dig reads all 300 over TCP, and 29 fit in 512 bytes over UDP', async () => {
    const many: Endpoints = {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'big', namespace: 'default' },
      subsets: [{ addresses: Array.from({ length: 300 }, (_, i) => ({ ip: `10.244.${i >> 8}.${i & 0xff}` })), ports: [{ name: 'http', port: 8080, protocol: 'TCP' }] }],
    };
    server = await startDnsServer({ host: '127.0.0.1', port: 0, zone: zoneOf(services, [many]) });
    const name = 'big.default.svc.cluster.local';
    const ips = many.subsets?.[0]?.addresses?.map((a) => `${name}. 5 IN A ${a.ip}`) ?? [];
    const tcp = await dig(server, '+tcp', name, 'A');
    expect(tcp.out).toMatch(/ANSWER: 300,/);
    // Header 12, question 31 + 4, 300 records of a pointer, 10 bytes and an address; OPT 11.
    expect(tcp.out).toContain(`MSG SIZE  rcvd: ${12 + 35 + 300 * 16 + 11}`);
    expect(tcp.answers).toStrictEqual(ips);
    // Without EDNS and without retrying over TCP: as many 16-byte records as fit in 512 bytes.
    const udp = await dig(server, '+noedns', '+ignore', name, 'A');
    expect(udp.out).toMatch(/flags: qr aa tc rd; QUERY: 1, ANSWER: 29,/);
    expect(udp.answers).toStrictEqual(ips.slice(0, Math.floor((512 - 12 - 35) / 16)));
    expect(udp.answers).toHaveLength(29);
  });

  it('swaps the zone: the next query sees the new services', async () => {
    server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
    expect((await dig(server, 'api.default.svc.cluster.local', 'A')).out).toMatch(/status: NXDOMAIN/);
    server.setZone(zoneOf([...services, service('api', { clusterIP: '10.96.0.30', ports: [{ port: 443, protocol: 'TCP' }] })], [big]));
    expect((await dig(server, 'api.default.svc.cluster.local', 'A')).answers).toStrictEqual(['api.default.svc.cluster.local. 5 IN A 10.96.0.30']);
  });

  it('names outside the zone: REFUSED, or the forward hook’s answer', async () => {
    server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
    expect((await dig(server, 'example.com', 'A')).out).toMatch(/status: REFUSED/);
    await server.close();
    server = await startDnsServer({
      host: '127.0.0.1',
      port: 0,
      zone,
      forward: (q) => ({ rcode: 'NOERROR', authoritative: false, answer: [{ name: q.name, type: 'A', ttl: 30, class: 'IN', data: '192.0.2.1' }], authority: [], additional: [] }),
    });
    const out = await dig(server, 'example.com', 'A');
    expect(out.out).toMatch(/flags: qr rd;/);
    expect(out.answers).toStrictEqual(['example.com. 30 IN A 192.0.2.1']);
  });

  it('closes cleanly: the port is free again for UDP and TCP', async () => {
    const first = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
    const port = first.port;
    await first.close();
    server = await startDnsServer({ host: '127.0.0.1', port, zone });
    expect(server.port).toBe(port);
  });
});

describe('startDnsServer without dig', () => {
  it('answers several TCP messages on one connection, split across writes', async () => {
    server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
    const { connect } = await import('node:net');
    const frame = (id: number): Uint8Array => dnsPacket.streamEncode({ type: 'query', id, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
    const both = Buffer.concat([frame(1), frame(2)]);
    const port = server.port;
    const ids = await new Promise<number[]>((resolve, reject) => {
      const socket = connect({ host: '127.0.0.1', port });
      const timer = setTimeout(() => {
        socket.destroy();
        reject(new Error('timed out'));
      }, 5000);
      let data = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        const got: number[] = [];
        let offset = 0;
        while (data.length - offset >= 2) {
          const len = data.readUInt16BE(offset);
          if (data.length - offset - 2 < len) break;
          got.push(dnsPacket.decode(data.subarray(offset + 2, offset + 2 + len)).id ?? -1);
          offset += 2 + len;
        }
        if (got.length === 2) {
          clearTimeout(timer);
          socket.destroy();
          resolve(got);
        }
      });
      socket.on('error', reject);
      socket.write(both.subarray(0, 5));
      setTimeout(() => socket.write(both.subarray(5)), 20);
    });
    expect(ids).toStrictEqual([1, 2]);
  });

  it('answers FORMERR to a header with garbage after it over UDP', async () => {
    server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
    const replies = await udpExchange(server.port, [Buffer.from([0xbe, 0xef, 0x01, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0x3f, 1])], 0xbeef);
    expect(replies.map((r) => [...r])).toStrictEqual([[0xbe, 0xef, 0x81, 0x01, 0, 0, 0, 0, 0, 0, 0, 0]]);
  });

  it('drops a response (QR set) and a message shorter than a header over UDP: no reply to either, the next query is answered', async () => {
    server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
    const response = dnsPacket.encode({ type: 'response', id: 0xaaaa, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
    const notimpResponse = Buffer.from([0xaa, 0xab, 0xa8, 0, 0, 1, 0, 0, 0, 0, 0, 0]);
    const short = Buffer.from([0xbb, 0xbb, 0x01]);
    const next = dnsPacket.encode({ type: 'query', id: 0xcccc, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
    // Replies to one socket come back in the order the server handled the messages, so a reply
    // to the first three would arrive before the one to the last.
    const replies = await udpExchange(server.port, [response, notimpResponse, short, next], 0xcccc);
    expect(replies.map((r) => r.readUInt16BE(0))).toStrictEqual([0xcccc]);
  });

  it('drops a response (QR set) over TCP and answers the query after it on the same connection', async () => {
    server = await startDnsServer({ host: '127.0.0.1', port: 0, zone });
    const response = dnsPacket.streamEncode({ type: 'response', id: 0xaaaa, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
    const next = dnsPacket.streamEncode({ type: 'query', id: 0xcccc, questions: [{ name: 'web.default.svc.cluster.local', type: 'A' }] });
    const ids = await tcpExchange(server.port, Buffer.concat([response, next]), 0xcccc);
    expect(ids).toStrictEqual([0xcccc]);
  });
});

/**
 * Sends `messages` in order from one UDP socket and returns every reply up to and including
 * the one with ID `lastId`; fails after 10 s with the replies seen so far.
 */
async function udpExchange(port: number, messages: readonly Uint8Array[], lastId: number): Promise<Buffer[]> {
  const socket = createSocket('udp4');
  const replies: Buffer[] = [];
  try {
    return await new Promise<Buffer[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply with ID ${lastId} within 10 s; replies: ${replies.map((r) => r.toString('hex')).join(', ')}`)), 10_000);
      socket.on('message', (msg) => {
        replies.push(msg);
        if (msg.length >= 2 && msg.readUInt16BE(0) === lastId) {
          clearTimeout(timer);
          resolve(replies);
        }
      });
      socket.on('error', reject);
      for (const m of messages) socket.send(m, port, '127.0.0.1');
    });
  } finally {
    socket.close();
  }
}

/** Writes `bytes` on one TCP connection and returns the IDs of the replies up to `lastId`; 10 s at most. */
async function tcpExchange(port: number, bytes: Uint8Array, lastId: number): Promise<number[]> {
  const { connect } = await import('node:net');
  const socket = connect({ host: '127.0.0.1', port });
  const ids: number[] = [];
  try {
    return await new Promise<number[]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`no reply with ID ${lastId} within 10 s; IDs: ${ids.join(', ')}`)), 10_000);
      let data = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        data = Buffer.concat([data, chunk]);
        while (data.length >= 2 && data.length - 2 >= data.readUInt16BE(0)) {
          const length = data.readUInt16BE(0);
          ids.push(length >= 2 ? data.readUInt16BE(2) : -1);
          data = data.subarray(2 + length);
        }
        if (ids.includes(lastId)) {
          clearTimeout(timer);
          resolve(ids);
        }
      });
      socket.on('error', reject);
      socket.write(bytes);
    });
  } finally {
    socket.destroy();
  }
}

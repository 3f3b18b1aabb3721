// A DNS server for a Zone on UDP and TCP, on one port. Each message goes through the pure
// handleQuery; this file only moves bytes. A message handleQuery gives no response (one that
// is itself a response, or shorter than a header) is dropped without a reply. TCP messages carry a 2-byte length prefix
// (RFC 1035 §4.2.2), and one connection may carry several.
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { lookup, type LookupOneOptions } from 'node:dns';
import { createServer, isIP, type Server, type Socket } from 'node:net';
import type { ResolveOptions, Zone } from '../index.js';
import { cachedAnswerer } from './answer-cache.js';

export interface DnsServerOptions {
  /** The address to listen on, e.g. 127.0.0.1 or ::1. */
  readonly host: string;
  /** 0 picks a free port, the same one for UDP and TCP. */
  readonly port: number;
  readonly zone: Zone;
  /** Closes a TCP connection that has sent nothing for this long. Default 10 s. */
  readonly tcpIdleTimeoutMs?: number;
  /** resolve()'s forward hook, for names outside the served zones; without it they are REFUSED. */
  readonly forward?: ResolveOptions['forward'];
}

export interface DnsServer {
  readonly host: string;
  readonly port: number;
  /** The zone answers come from now. */
  zone(): Zone;
  /** Swaps the zone; every message is answered wholly from the old zone or wholly from the new one. */
  setZone(zone: Zone): void;
  /** Stops listening, ends open TCP connections and resolves when both sockets are closed. */
  close(): Promise<void>;
}

/** Attempts at finding a port free for both UDP and TCP when asked for port 0. */
const PORT_ATTEMPTS = 20;

/**
 * dgram's address lookup for each send: a reply goes to the address the query came from,
 * always an IP literal, so it is passed on at once; dns.lookup would check it the same way
 * and call back on the next tick, for every reply. Names (a host option of "localhost") still
 * go to dns.lookup.
 */
function lookupLiteral(address: string, options: LookupOneOptions | number, callback: (err: NodeJS.ErrnoException | null, address: string, family: number) => void): void {
  const literal = isIP(address);
  // Node 20's dgram passes the family as a number (lib/internal/dgram.js lookup4, lookup6).
  if (literal !== 0) callback(null, address, literal);
  else lookup(address, typeof options === 'number' ? { family: options } : options, callback);
}

function bindUdp(host: string, port: number): Promise<UdpSocket> {
  return new Promise((resolve, reject) => {
    const socket = createSocket({ type: host.includes(':') ? 'udp6' : 'udp4', lookup: lookupLiteral });
    const onError = (err: Error): void => {
      socket.close();
      reject(err);
    };
    socket.once('error', onError);
    socket.bind({ address: host, port, exclusive: true }, () => {
      socket.off('error', onError);
      resolve(socket);
    });
  });
}

function listenTcp(server: Server, host: string, port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error): void => {
      server.off('listening', onListening);
      reject(err);
    };
    const onListening = (): void => {
      server.off('error', onError);
      resolve();
    };
    server.once('error', onError);
    server.once('listening', onListening);
    server.listen({ host, port, exclusive: true });
  });
}

function closeUdp(socket: UdpSocket): Promise<void> {
  return new Promise((resolve) => socket.close(() => resolve()));
}

/**
 * Binds UDP first, then TCP on the same port. With port 0 the UDP port is the kernel's
 * choice, and another is tried if TCP finds it taken.
 */
async function bindBoth(tcp: Server, host: string, wanted: number): Promise<{ udpSocket: UdpSocket; port: number }> {
  for (let attempt = 1; ; attempt++) {
    const udpSocket = await bindUdp(host, wanted);
    const port = udpSocket.address().port;
    try {
      await listenTcp(tcp, host, port);
      return { udpSocket, port };
    } catch (err) {
      await closeUdp(udpSocket);
      // A fixed port that is taken is the caller's problem; port 0 tries another.
      if (wanted !== 0 || attempt >= PORT_ATTEMPTS) throw err;
    }
  }
}

/**
 * A 'data' listener that cuts a TCP stream into length-prefixed messages. Chunks are only
 * queued until the message they belong to is complete, then joined once, so a message that
 * trickles in over many chunks is not re-copied on each one.
 */
function tcpMessages(onMessage: (message: Uint8Array) => void): (chunk: Uint8Array) => void {
  let chunks: Uint8Array[] = [];
  let buffered = 0;
  // Bytes needed before anything can be cut: the length prefix, then the prefixed message.
  let needed = 2;
  return (chunk) => {
    chunks.push(chunk);
    buffered += chunk.length;
    if (buffered < needed) return;
    const bytes = chunks.length === 1 ? chunk : concat(chunks, buffered);
    let offset = 0;
    needed = 2;
    while (bytes.length - offset >= 2) {
      const length = ((bytes[offset] ?? 0) << 8) | (bytes[offset + 1] ?? 0);
      if (bytes.length - offset - 2 < length) {
        needed = 2 + length;
        break;
      }
      onMessage(bytes.subarray(offset + 2, offset + 2 + length));
      offset += 2 + length;
    }
    const rest = bytes.subarray(offset);
    chunks = rest.length === 0 ? [] : [rest];
    buffered = rest.length;
  };
}

function concat(chunks: readonly Uint8Array[], length: number): Uint8Array {
  const out = new Uint8Array(length);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/** Starts the server; resolves once both sockets listen. */
export async function startDnsServer(options: DnsServerOptions): Promise<DnsServer> {
  const answerer = cachedAnswerer(options.zone, options.forward);
  const connections = new Set<Socket>();
  const idleMs = options.tcpIdleTimeoutMs ?? 10_000;

  const tcp = createServer((conn) => {
    connections.add(conn);
    conn.setTimeout(idleMs, () => conn.destroy());
    conn.on(
      'data',
      tcpMessages((request) => {
        const response = answerer.answer(request, 'tcp');
        if (response === undefined) return;
        const framed = new Uint8Array(response.length + 2);
        framed[0] = response.length >> 8;
        framed[1] = response.length & 0xff;
        framed.set(response, 2);
        conn.write(framed);
      }),
    );
    conn.on('error', () => conn.destroy());
    conn.on('close', () => connections.delete(conn));
  });

  const { udpSocket, port } = await bindBoth(tcp, options.host, options.port);
  udpSocket.on('message', (message, remote) => {
    const response = answerer.answer(message, 'udp');
    if (response === undefined) return;
    udpSocket.send(response, remote.port, remote.address);
  });
  udpSocket.on('error', () => undefined);

  let closing: Promise<void> | undefined;
  return {
    host: options.host,
    port,
    zone: answerer.zone,
    setZone: answerer.setZone,
    close() {
      closing ??= Promise.all([
        closeUdp(udpSocket),
        new Promise<void>((resolve) => {
          tcp.close(() => resolve());
          for (const conn of connections) conn.destroy();
        }),
      ]).then(() => undefined);
      return closing;
    },
  };
}

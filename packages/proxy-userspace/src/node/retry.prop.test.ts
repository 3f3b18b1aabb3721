// INV-US-RETRY with real sockets on 127.0.0.1: with k of n backends down, k smaller than
// upstream's 4 attempts, every connection (one after another) reaches a live backend. Dead
// backends are free ports below the ephemeral range, so a dial is refused at once.
import { fc, test } from '@fast-check/vitest';
import { readFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { afterAll, beforeAll, expect } from 'vitest';
import { ENDPOINT_DIAL_TIMEOUTS_MS } from '../constants.js';
import { UserspaceProxier } from './proxier.js';

const HOST = '127.0.0.1';
const live: { server: Server; sockets: Set<Socket>; endpoint: string; id: string }[] = [];
const dead: string[] = [];

beforeAll(async () => {
  for (let i = 0; i < 6; i++) {
    const sockets = new Set<Socket>();
    const id = `L${i}`;
    const server = createServer((s) => {
      sockets.add(s);
      s.once('close', () => sockets.delete(s));
      s.on('error', () => undefined);
      s.end(id);
    });
    await new Promise<void>((r) => server.listen(0, HOST, r));
    live.push({ server, sockets, id, endpoint: `${HOST}:${(server.address() as AddressInfo).port}` });
  }
  dead.push(...(await deadEndpoints(3)));
});

/**
 * Endpoints nothing listens on, on ports just below the kernel's ephemeral range. A port
 * released from a `listen(0)` is in that range and can be handed to the next `listen(0)` of
 * any process (a parallel test's server, say), which then answers in place of a dead backend;
 * the kernel never hands out a port below the range, so these stay refused.
 */
async function deadEndpoints(n: number): Promise<string[]> {
  const range = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
  const low = Number(range[0]);
  const found: string[] = [];
  for (let port = (Number.isInteger(low) ? low : 32768) - 1; found.length < n && port > 20000; port--) {
    const server = createServer();
    const bound = await new Promise<boolean>((resolve) => {
      server.once('error', () => resolve(false));
      server.listen(port, HOST, () => resolve(true));
    });
    if (!bound) continue;
    await new Promise<void>((r) => server.close(() => r()));
    found.push(`${HOST}:${port}`);
  }
  if (found.length < n) throw new Error('no free ports below the ephemeral range for the dead backends');
  return found;
}

afterAll(async () => {
  for (const l of live) {
    for (const s of l.sockets) s.destroy();
    await new Promise<void>((r) => l.server.close(() => r()));
  }
});

function fetchId(port: number): Promise<string> {
  return new Promise((resolve) => {
    const s = connect({ host: HOST, port });
    let got = '';
    const timer = setTimeout(() => s.destroy(), 5000);
    s.on('data', (d: Buffer) => (got += d.toString()));
    s.on('error', () => undefined);
    s.on('close', () => {
      clearTimeout(timer);
      resolve(got);
    });
  });
}

const scenario = fc
  .record(
    {
      liveCount: fc.integer({ min: 1, max: 6 }),
      deadCount: fc.integer({ min: 0, max: ENDPOINT_DIAL_TIMEOUTS_MS.length - 1 }),
      seed: fc.integer(),
      affinity: fc.constantFrom('None' as const, 'ClientIP' as const),
      connections: fc.integer({ min: 1, max: 6 }),
    },
    { noNullPrototype: true },
  )
  .filter((s) => s.deadCount <= dead.length);

test.prop([scenario])(
  'INV-US-RETRY: with k of n backends down (k < 4 attempts), every connection reaches a live backend',
  async ({ liveCount, deadCount, seed, affinity, connections }) => {
    const up = live.slice(0, liveCount);
    const proxier = new UserspaceProxier({ seed });
    try {
      const { port } = await proxier.addService({
        servicePort: { namespace: 'ns', name: 'retry', port: '' },
        sessionAffinity: affinity,
        endpoints: [...up.map((l) => l.endpoint), ...dead.slice(0, deadCount)],
      });
      const ids = new Set(up.map((l) => l.id));
      for (let i = 0; i < connections; i++) expect(ids.has(await fetchId(port))).toBe(true);
      expect(proxier.counters({ namespace: 'ns', name: 'retry', port: '' })?.failures).toBe(0);
    } finally {
      await proxier.stop();
    }
  },
);

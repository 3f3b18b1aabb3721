// Connection deadlines against a real TLS server and the real kubectl (/usr/bin/kubectl): 2,000
// raw TCP connections that never start their TLS handshake and 100 clients that finish it but
// send their headers a byte at a time do not keep kubectl out, and the server closes every one
// of them once its deadline passes. The deadlines are the server's options, set to 20 s here
// (long enough that all are open while kubectl runs, short for a test). 2,100 connections are
// 4,200 descriptors in this one process; `ulimit -n` is far above that here.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect as tlsConnect } from 'node:tls';
import { afterEach, beforeAll, beforeEach, expect, it } from 'vitest';
import { openRegistry, type Registry } from '../registry/registry.js';
import { openMemoryStore, type Store, systemClock } from '@kubesvc/store';
import { generateServingCertificate, type ServingCertificate } from './serving-cert.js';
import { startApiServer, type ApiServer } from './server.js';

const KUBECTL = '/usr/bin/kubectl';
const TOKEN = 'deadline-test-token';
const IDLE_CONNECTIONS = 2_000;
const SLOW_HEADER_CLIENTS = 100;

let tls: ServingCertificate;
let dir: string;
let store: Store;
let registry: Registry;
let server: ApiServer;
const sockets: Socket[] = [];
const timers: NodeJS.Timeout[] = [];

beforeAll(async () => {
  tls = await generateServingCertificate();
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubesvc-deadlines-'));
  store = openMemoryStore();
  const opened = await openRegistry({ store, clock: systemClock, seed: 13, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } });
  server = await startApiServer({
    registry,
    token: TOKEN,
    tls,
    timeouts: { tlsHandshakeMs: 20_000, requestHeadersMs: 20_000, requestMs: 25_000, idleMs: 1_000, checkIntervalMs: 250 },
    logger: { log: () => undefined },
  });
});

afterEach(async () => {
  for (const t of timers.splice(0)) clearInterval(t);
  for (const s of sockets.splice(0)) s.destroy();
  await server.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});

function kubectl(args: readonly string[], kubeconfig: string): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(KUBECTL, [`--cache-dir=${join(dir, 'cache')}`, ...args], { env: { ...process.env, KUBECONFIG: kubeconfig, HOME: dir }, timeout: 60_000 }, (error, stdout, stderr) =>
      resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
  });
}

/** Polls `read` every 100 ms until `done` holds of its value, for at most `boundMs`; fails with the last value seen. */
async function pollUntil<T>(what: string, read: () => Promise<T> | T, done: (v: T) => boolean, boundMs: number): Promise<T> {
  const start = Date.now();
  let last = await read();
  while (!done(last)) {
    if (Date.now() - start > boundMs) throw new Error(`${what}: still ${JSON.stringify(last)} after ${boundMs} ms`);
    await new Promise((r) => setTimeout(r, 100));
    last = await read();
  }
  return last;
}

it('2,000 silent TCP connections and 100 slow-header clients neither keep kubectl out nor stay open past their deadlines', async () => {
  const port = server.port;
  const began = Date.now();
  let closedByServer = 0;
  const track = (s: Socket) => {
    sockets.push(s);
    s.on('error', () => undefined);
    s.once('close', () => closedByServer++);
  };
  // Opened in batches so that the listen backlog does not overflow.
  for (let opened = 0; opened < IDLE_CONNECTIONS; opened += 200) {
    await Promise.all(
      Array.from({ length: 200 }, () => {
        const s = connect(port, '127.0.0.1');
        track(s);
        return new Promise<void>((resolve, reject) => {
          s.once('connect', () => resolve());
          s.once('error', reject);
        });
      }),
    );
  }
  const header = `GET /api/v1/namespaces/default/services HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${TOKEN}\r\n\r\n`;
  await Promise.all(
    Array.from({ length: SLOW_HEADER_CLIENTS }, () => {
      const s = tlsConnect({ port, host: '127.0.0.1', ca: tls.cert, servername: 'localhost', rejectUnauthorized: false });
      track(s);
      return new Promise<void>((resolve, reject) => {
        s.once('secureConnect', () => {
          let at = 0;
          const t = setInterval(() => {
            if (s.destroyed || at >= header.length - 1) return;
            s.write(header[at++] ?? '');
          }, 200);
          timers.push(t);
          resolve();
        });
        s.once('error', reject);
      });
    }),
  );
  // All still open (the deadlines are 20 s), and the server counts each.
  expect(closedByServer, `opening took ${Date.now() - began} ms`).toBe(0);
  expect((await server.stats()).connections).toBeGreaterThanOrEqual(IDLE_CONNECTIONS + SLOW_HEADER_CLIENTS);

  const kubeconfig = join(dir, 'config');
  await writeFile(
    kubeconfig,
    `apiVersion: v1
kind: Config
clusters:
- name: kubesvc
  cluster:
    server: ${server.url}
    certificate-authority-data: ${Buffer.from(tls.cert).toString('base64')}
users:
- name: admin
  user:
    token: ${TOKEN}
contexts:
- name: kubesvc
  context: {cluster: kubesvc, user: admin}
current-context: kubesvc
`,
  );
  const got = await kubectl(['get', 'svc', '-o', 'name'], kubeconfig);
  expect(got.stderr).toBe('');
  expect(got.stdout).toBe('service/web\n');
  expect(closedByServer, 'kubectl answered while every slow connection was open').toBe(0);

  // Every silent or slow connection is closed by the server (the clients never close them).
  await pollUntil('client sockets closed by the server', () => closedByServer, (n) => n === IDLE_CONNECTIONS + SLOW_HEADER_CLIENTS, 60_000);
  await pollUntil('server connections', async () => (await server.stats()).connections, (n) => n === 0, 60_000);
  expect((await server.stats()).acceptErrors).toBe(0);
  // And the server still answers.
  const again = await kubectl(['get', 'svc', '-o', 'name'], kubeconfig);
  expect(again.stdout).toBe('service/web\n');
}, 180_000);

// Bench suite "proxy-userspace": the pure balancer's pick, and the node adapter on loopback —
// bulk throughput and new connections per second through the proxy, against a direct
// connection and (when /usr/sbin/haproxy or haproxy on PATH exists) against haproxy in TCP mode.
//
// How the loopback figures are measured: tinybench times functions, which fits a single
// connection but not a throughput. So the "loopback" task's setup runs the whole comparison,
// bounded in time (each figure samples for FIGURE_MS), in ROUNDS interleaved rounds (direct,
// proxy, haproxy, then again) so that every path sees the same load from whatever else runs on
// the machine; its metrics() reports the medians in MB/s and conn/s per path, the ratios to
// direct and to haproxy, and the load average; its timed fn is one connect-and-reply through
// the proxy. The load generator and the backend servers run in a worker thread (their own
// event loop and core), the proxy in the main thread, haproxy in its own process with one
// thread (nbthread 1: the proxy is one thread too), so that each path is
// client → [proxy] → server with the proxy on its own loop. Without haproxy installed the
// haproxy figures are left out with a line on the console. It also reports the CPU time each
// proxy spent per connection and per MB (the kernel's schedstat of the bench's main thread,
// where the proxy runs, and of haproxy's process): on a machine shared with other work the
// rates move with the load, the CPU time much less, so that is the figure to compare changes by.
// haproxy runs twice in each round: at its default buffer (tune.bufsize 16 KiB), and at the
// proxy's own read size (256 KiB, the userspace proxy's busy-connection reads), so that the bulk
// figure compares equal buffers too (`haproxyBig...`, `proxyToHaproxyBig...`).
// A last path in each round is Node's plainest relay (`nodeFloor...`): the smallest TCP relay
// Node offers, on the same main thread (net.createServer, one net.connect per connection, pipe()
// both ways), with no balancer, no affinity and no idle bookkeeping. It is a baseline, not a
// strict lower bound (the proxy skips the stream machinery pipe() goes through), but its CPU
// figures beside haproxy's show what two Node sockets per connection cost before any proxy work.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer, type AddressInfo } from 'node:net';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { createLoadBalancer, newService, nextEndpoint, setServicePortEndpoints, type LoadBalancer } from '@kubesvc/proxy-userspace';
import { UserspaceProxier } from '@kubesvc/proxy-userspace/node';
import type { BenchSuite } from './harness.js';
import { median } from './median.js';
import { findBinary, mainThreadCpuNs, schedstatNs, startPeer } from './peer-process.js';

const HOST = '127.0.0.1';
const FIGURE_MS = 1000;
const ROUNDS = 5;
/** haproxy runs for the rounds and is killed after this at the latest. */
const HAPROXY_LIMIT_MS = ROUNDS * 4 * 2 * (FIGURE_MS + 2000) + 30_000;
const BULK_MAX_BYTES = 1024 * 1024 * 1024;
const CONN_MAX = 5000;
const CONN_CONCURRENCY = 4;
/** The userspace proxy's read size on a busy connection (its tcp-connection.ts READ_SIZE). */
const PROXY_READ_BYTES = 256 * 1024;

/**
 * The worker: a source server (writes until the client goes), a one-byte server, and the load.
 * The bulk load is as light per MB as Node allows, so that the figure measures the proxies, not
 * the worker: the source writes 256 KiB at a time and the client reads into one reused 256 KiB
 * buffer (net.connect's `onread`) instead of a new Buffer per 64 KiB read. With 64 KiB writes
 * and 'data' events (until 2026-12-04) a direct connection moved about 1,900 MB/s, and both
 * proxies 0.90 to 0.93× of that: the bulk ratio measured this thread nearly as much as the proxies.
 */
const WORKER = `
const { parentPort } = require('node:worker_threads');
const net = require('node:net');
const chunk = Buffer.alloc(${PROXY_READ_BYTES}, 120);
const sink = Buffer.allocUnsafe(${PROXY_READ_BYTES});
const source = net.createServer((s) => {
  s.on('error', () => {});
  const pump = () => { while (!s.destroyed && s.write(chunk)) {} };
  s.on('drain', pump);
  pump();
});
const hello = net.createServer((s) => { s.on('error', () => {}); s.end('x'); });
function bulk(port, ms, max) {
  return new Promise((resolve) => {
    let bytes = 0; let start = 0; let done = false;
    const s = net.connect({ host: '${HOST}', port, onread: { buffer: sink, callback: (n) => { bytes += n; if (bytes >= max) finish(); } } });
    const finish = () => { if (done) return; done = true; clearTimeout(t); const el = performance.now() - start; s.destroy(); resolve({ bytes, ms: el }); };
    const t = setTimeout(finish, ms + 2000);
    s.on('connect', () => { start = performance.now(); setTimeout(finish, ms); });
    s.on('error', finish);
  });
}
function one(port) {
  return new Promise((resolve) => {
    const s = net.connect({ host: '${HOST}', port });
    let ok = false;
    s.on('data', () => { ok = true; });
    s.on('error', () => {});
    s.on('close', () => resolve(ok));
  });
}
async function conns(port, ms, max, concurrency) {
  const start = performance.now(); let n = 0; let failed = 0;
  const lane = async () => { while (n < max && performance.now() - start < ms) { n++; if (!(await one(port))) failed++; } };
  await Promise.all(Array.from({ length: concurrency }, lane));
  return { conns: n, failed, ms: performance.now() - start };
}
let listening = 0;
const ready = () => { if (++listening === 2) parentPort.postMessage({ source: source.address().port, hello: hello.address().port }); };
source.listen(0, '${HOST}', ready);
hello.listen(0, '${HOST}', ready);
parentPort.on('message', async (m) => {
  if (m.kind === 'bulk') parentPort.postMessage(await bulk(m.port, m.ms, m.max));
  else if (m.kind === 'conns') parentPort.postMessage(await conns(m.port, m.ms, m.max, m.concurrency));
  else if (m.kind === 'stop') { source.close(); hello.close(); parentPort.close(); }
});
`;

interface Ports {
  readonly bulk: number;
  readonly conn: number;
}

function ask<T>(worker: Worker, message: object): Promise<T> {
  return new Promise((resolve) => {
    worker.once('message', (m: T) => resolve(m));
    worker.postMessage(message);
  });
}

async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, HOST, r));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

async function waitListening(port: number, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const ok = await new Promise<boolean>((resolve) => {
      const s = connect({ host: HOST, port });
      s.on('connect', () => {
        s.destroy();
        resolve(true);
      });
      s.on('error', () => resolve(false));
    });
    if (ok) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return false;
}

async function startHaproxy(binary: string, backends: Ports, bufsize?: number): Promise<{ ports: Ports; cpuNs: () => number | undefined; stop: () => Promise<void> } | undefined> {
  const ports = { bulk: await freePort(), conn: await freePort() };
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-haproxy-'));
  const cfg = join(dir, 'haproxy.cfg');
  writeFileSync(
    cfg,
    [
      'global',
      '  maxconn 4096',
      '  nbthread 1',
      ...(bufsize === undefined ? [] : [`  tune.bufsize ${bufsize}`]),
      'defaults',
      '  mode tcp',
      '  timeout connect 2s',
      '  timeout client 30s',
      '  timeout server 30s',
      `listen bulk`,
      `  bind ${HOST}:${ports.bulk}`,
      `  server s1 ${HOST}:${backends.bulk}`,
      `listen conn`,
      `  bind ${HOST}:${ports.conn}`,
      `  server s1 ${HOST}:${backends.conn}`,
      '',
    ].join('\n'),
  );
  const peer = startPeer(binary, ['-db', '-f', cfg], HAPROXY_LIMIT_MS);
  const stop = async (): Promise<void> => {
    await peer.stop();
    rmSync(dir, { recursive: true, force: true });
  };
  if (!(await waitListening(ports.bulk, 3000)) || !(await waitListening(ports.conn, 3000))) {
    await stop();
    return undefined;
  }
  const pid = peer.child.pid;
  return { ports, cpuNs: () => (pid === undefined ? undefined : schedstatNs(pid)), stop };
}

interface Figures {
  readonly mbps: number;
  readonly connPerSec: number;
  /** CPU time of the proxy, µs per MB and per connection; NaN when not measured. */
  readonly cpuUsPerMB: number;
  readonly cpuUsPerConn: number;
}

/** `cpuNs` reads the CPU time of the proxy being measured (undefined: not measured). */
async function measure(worker: Worker, ports: Ports, cpuNs: () => number | undefined = () => undefined): Promise<Figures> {
  const cpu0 = cpuNs();
  const b = await ask<{ bytes: number; ms: number }>(worker, { kind: 'bulk', port: ports.bulk, ms: FIGURE_MS, max: BULK_MAX_BYTES });
  const cpu1 = cpuNs();
  const c = await ask<{ conns: number; failed: number; ms: number }>(worker, {
    kind: 'conns',
    port: ports.conn,
    ms: FIGURE_MS,
    max: CONN_MAX,
    concurrency: CONN_CONCURRENCY,
  });
  const cpu2 = cpuNs();
  if (c.failed > 0) throw new Error(`${c.failed} of ${c.conns} connections failed`);
  const mb = b.bytes / (1024 * 1024);
  const perUnit = (from: number | undefined, to: number | undefined, units: number): number =>
    from === undefined || to === undefined || units === 0 ? Number.NaN : (to - from) / 1000 / units;
  return {
    mbps: mb / (b.ms / 1000),
    connPerSec: c.conns / (c.ms / 1000),
    cpuUsPerMB: perUnit(cpu0, cpu1, mb),
    cpuUsPerConn: perUnit(cpu1, cpu2, c.conns),
  };
}

/** The median of each figure over the rounds (each on its own: a round's figures need not agree). */
function medianFigures(rounds: readonly Figures[]): Figures {
  return {
    mbps: median(rounds.map((r) => r.mbps)),
    connPerSec: median(rounds.map((r) => r.connPerSec)),
    cpuUsPerMB: median(rounds.map((r) => r.cpuUsPerMB)),
    cpuUsPerConn: median(rounds.map((r) => r.cpuUsPerConn)),
  };
}

/** The CPU figures that were measured, under their metric names. */
function cpuMetrics(prefix: string, f: Figures): Record<string, number> {
  const out: Record<string, number> = {};
  if (Number.isFinite(f.cpuUsPerMB)) out[`${prefix}CpuUsPerMB`] = f.cpuUsPerMB;
  if (Number.isFinite(f.cpuUsPerConn)) out[`${prefix}CpuUsPerConn`] = f.cpuUsPerConn;
  return out;
}

/** Node's plainest relay to `backends`, one listening port for each. */
async function startNodeFloor(backends: Ports): Promise<{ ports: Ports; stop: () => Promise<void> }> {
  const relay = (backend: number) =>
    createServer((client) => {
      const upstream = connect({ host: HOST, port: backend });
      client.on('error', () => upstream.destroy());
      upstream.on('error', () => client.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
  const servers = [relay(backends.bulk), relay(backends.conn)];
  const ports = await Promise.all(
    servers.map((server) => new Promise<number>((resolve) => server.listen(0, HOST, () => resolve((server.address() as AddressInfo).port)))),
  );
  return {
    ports: { bulk: ports[0] ?? 0, conn: ports[1] ?? 0 },
    stop: async () => {
      await Promise.all(servers.map((server) => new Promise<void>((resolve) => server.close(() => resolve()))));
    },
  };
}

function connectOnce(port: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: HOST, port });
    s.on('error', reject);
    s.on('close', () => resolve());
    s.resume();
  });
}

function loopbackTask(): BenchSuite['tasks'][number] {
  let worker: Worker | undefined;
  let proxier: UserspaceProxier | undefined;
  let proxied: Ports = { bulk: 0, conn: 0 };
  const metrics: Record<string, number> = {};
  return {
    name: 'loopback: connect+reply through the proxy',
    setup: async () => {
      worker = new Worker(WORKER, { eval: true });
      const backends = await new Promise<{ source: number; hello: number }>((r) => worker?.once('message', r));
      const direct: Ports = { bulk: backends.source, conn: backends.hello };
      proxier = new UserspaceProxier();
      const ns = { namespace: 'bench', name: 'loopback' };
      proxied = {
        bulk: (await proxier.addService({ servicePort: { ...ns, port: 'bulk' }, endpoints: [`${HOST}:${direct.bulk}`] })).port,
        conn: (await proxier.addService({ servicePort: { ...ns, port: 'conn' }, endpoints: [`${HOST}:${direct.conn}`] })).port,
      };
      const binary = findBinary('haproxy');
      const haproxy = binary === undefined ? undefined : await startHaproxy(binary, direct);
      const haproxyBig = haproxy === undefined || binary === undefined ? undefined : await startHaproxy(binary, direct, PROXY_READ_BYTES);
      if (haproxy === undefined) {
        console.log(binary === undefined ? 'proxy-userspace: haproxy not installed (apt-get install haproxy); no haproxy figures' : 'proxy-userspace: haproxy did not start; no haproxy figures');
      }
      const w = worker;
      const floor = await startNodeFloor(direct);
      const figures = { direct: [] as Figures[], proxy: [] as Figures[], haproxy: [] as Figures[], haproxyBig: [] as Figures[], floor: [] as Figures[] };
      const loadBefore = loadavg()[0] ?? 0;
      try {
        for (let round = 0; round < ROUNDS; round++) {
          figures.direct.push(await measure(w, direct));
          figures.proxy.push(await measure(w, proxied, mainThreadCpuNs));
          if (haproxy !== undefined) figures.haproxy.push(await measure(w, haproxy.ports, haproxy.cpuNs));
          if (haproxyBig !== undefined) figures.haproxyBig.push(await measure(w, haproxyBig.ports, haproxyBig.cpuNs));
          figures.floor.push(await measure(w, floor.ports, mainThreadCpuNs));
        }
      } finally {
        await haproxy?.stop();
        await haproxyBig?.stop();
        await floor.stop();
      }
      const d = medianFigures(figures.direct);
      const p = medianFigures(figures.proxy);
      Object.assign(metrics, {
        rounds: ROUNDS,
        directMBps: d.mbps,
        proxyMBps: p.mbps,
        proxyMBpsRatio: p.mbps / d.mbps,
        directConnPerSec: d.connPerSec,
        proxyConnPerSec: p.connPerSec,
        proxyConnRatio: p.connPerSec / d.connPerSec,
        ...cpuMetrics('proxy', p),
      });
      const f = medianFigures(figures.floor);
      Object.assign(metrics, { nodeFloorMBps: f.mbps, nodeFloorConnPerSec: f.connPerSec, ...cpuMetrics('nodeFloor', f) });
      if (haproxy !== undefined) {
        const h = medianFigures(figures.haproxy);
        Object.assign(metrics, {
          haproxyMBps: h.mbps,
          haproxyMBpsRatio: h.mbps / d.mbps,
          haproxyConnPerSec: h.connPerSec,
          haproxyConnRatio: h.connPerSec / d.connPerSec,
          proxyToHaproxyMBps: p.mbps / h.mbps,
          proxyToHaproxyConn: p.connPerSec / h.connPerSec,
          nodeFloorToHaproxyConn: f.connPerSec / h.connPerSec,
          ...cpuMetrics('haproxy', h),
        });
        if (figures.haproxyBig.length > 0) {
          const hb = medianFigures(figures.haproxyBig);
          Object.assign(metrics, {
            haproxyBigBufsize: PROXY_READ_BYTES,
            haproxyBigMBps: hb.mbps,
            haproxyBigConnPerSec: hb.connPerSec,
            proxyToHaproxyBigMBps: p.mbps / hb.mbps,
            proxyToHaproxyBigConn: p.connPerSec / hb.connPerSec,
            ...cpuMetrics('haproxyBig', hb),
          });
        }
        // Each round's own ratios: the proxy and haproxy of one round ran a second apart, under
        // much the same load, so these pairs spread less than the medians of either side.
        figures.haproxy.forEach((hr, i) => {
          const pr = figures.proxy[i];
          if (pr === undefined) return;
          metrics[`proxyToHaproxyMBpsRound${i + 1}`] = pr.mbps / hr.mbps;
          metrics[`proxyToHaproxyConnRound${i + 1}`] = pr.connPerSec / hr.connPerSec;
        });
      }
      Object.assign(metrics, { loadavgBefore: loadBefore, loadavgAfter: loadavg()[0] ?? 0 });
    },
    fn: () => connectOnce(proxied.conn),
    metrics: () => {
      // The harness has no teardown hook: metrics() is the last call of the task.
      const p = proxier;
      const w = worker;
      proxier = undefined;
      worker = undefined;
      void p?.stop();
      if (w !== undefined) {
        w.postMessage({ kind: 'stop' });
        void w.terminate();
      }
      return metrics;
    },
  };
}

export function proxyUserspaceSuite(): BenchSuite {
  const spn = { namespace: 'bench', name: 'svc', port: 'p' };
  const endpoints = Array.from({ length: 10 }, (_, i) => `10.0.0.${i + 1}:8080`);
  let rr: LoadBalancer = setServicePortEndpoints(createLoadBalancer({ seed: 1 }), spn, endpoints);
  let sticky: LoadBalancer = setServicePortEndpoints(newService(createLoadBalancer({ seed: 1 }), spn, 'ClientIP', 10800), spn, endpoints);
  const clients = Array.from({ length: 1000 }, (_, i) => `192.168.${i >> 8}.${i & 255}:40000`);
  let i = 0;
  return {
    name: 'proxy-userspace',
    description: 'userspace kube-proxy: balancer picks, and loopback throughput / conn rate vs direct and haproxy',
    tasks: [
      {
        name: 'nextEndpoint round robin, 10 endpoints',
        fn: () => {
          const r = nextEndpoint(rr, spn, '', false, 0);
          if (r.ok) rr = r.value.balancer;
        },
      },
      {
        name: 'nextEndpoint ClientIP, 1000 clients, 10 endpoints',
        fn: () => {
          const r = nextEndpoint(sticky, spn, clients[i++ % clients.length] ?? '', false, i);
          if (r.ok) sticky = r.value.balancer;
        },
      },
      loopbackTask(),
    ],
  };
}

// The DNS server side by side with Debian's dnsmasq: both serve the same A records on
// 127.0.0.1 (dnsmasq from a hosts file, --no-resolv --no-hosts so that it answers from that
// file alone), both are driven by Debian's dnsperf with the same query file for PEER_SECONDS,
// in interleaved rounds (ours, dnsmasq, ours, dnsmasq, ...) so that both see the same load from
// whatever else runs on the machine. Each side is one thread: dnsmasq is single-threaded, and
// the kubesvc server answers from this process's main thread while dnsperf runs. Besides the
// rates, each side's CPU time per answered query is reported (this process's main thread,
// dnsmasq's process, from /proc schedstat): it moves much less with the machine's load.
//
// A third side in each round measures Node's own floor: a UDP socket on this process's main
// thread that answers each query with its own bytes (the QR bit set, no answer records), through
// the same dgram calls the kubesvc server makes ('message', then send). No DNS server in Node
// can cost less per query than that, so `nodeFloorCpuUsPerQuery` against dnsmasq's says how
// much of the gap is the runtime's per-datagram cost and how much is ours.
//
// A fourth side runs that floor in two processes (`nodeFloorTwoWorkers...`): cluster workers
// sharing one bound socket, the way Node 20 (whose UDP sockets have no `reusePort`) can spread a
// UDP server over cores. On two cores dnsperf needs most of one, so this says whether a second
// server process helps there; its CPU time is both workers' processes.
//
// A missing dnsperf skips the comparison and a missing dnsmasq skips its half, each with one
// line on the console; neither is an error.
import cluster, { type Worker } from 'node:cluster';
import { createSocket } from 'node:dgram';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { loadavg, tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { Zone } from '@kubesvc/discovery';
import { startDnsServer } from '@kubesvc/discovery/node';
import { echoQueries } from './dns-echo.js';
import { findBinary, mainThreadCpuNs, schedstatNs, startPeer } from './peer-process.js';
import { median } from './median.js';

const HOST = '127.0.0.1';
/** Seconds of load per side and round, as the comparison asks. */
export const PEER_SECONDS = 10;
export const PEER_ROUNDS = 3;
/** How long a peer may take to start answering. */
const START_MS = 3000;

/** One name and the addresses its A query answers with. */
export interface ARecordSet {
  readonly name: string;
  readonly addresses: readonly string[];
}

export interface DnsperfRun {
  readonly qps: number;
  readonly sent: number;
  readonly completed: number;
  readonly lost: number;
  /** Percent of responses that were NOERROR. */
  readonly noerrorPercent: number;
}

/** The figures of dnsperf's summary, or undefined when it printed none. */
export function parseDnsperf(output: string): DnsperfRun | undefined {
  const num = (re: RegExp): number | undefined => {
    const m = re.exec(output);
    return m === null ? undefined : Number(m[1]);
  };
  const qps = num(/Queries per second:\s+([\d.]+)/);
  const sent = num(/Queries sent:\s+(\d+)/);
  const completed = num(/Queries completed:\s+(\d+)/);
  const lost = num(/Queries lost:\s+(\d+)/);
  if (qps === undefined || sent === undefined || completed === undefined || lost === undefined) return undefined;
  return { qps, sent, completed, lost, noerrorPercent: num(/NOERROR \d+ \(([\d.]+)%\)/) ?? 0 };
}

/** Free UDP port on the loopback (dnsmasq is told its port; there is a small race, retried). */
async function freeUdpPort(): Promise<number> {
  const s = createSocket('udp4');
  await new Promise<void>((r) => s.bind(0, HOST, () => r()));
  const port = s.address().port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** A DNS query for `name`, type A, class IN, with `id` and recursion desired. */
export function dnsQuery(name: string, id: number): Uint8Array {
  const labels = name.split('.').flatMap((l) => [l.length, ...Buffer.from(l)]);
  return Uint8Array.from([id >> 8, id & 0xff, 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0, ...labels, 0, 0, 1, 0, 1]);
}

/** True once a query for `name` is answered on HOST:port, polling up to START_MS. */
async function answers(port: number, name: string): Promise<boolean> {
  const query = dnsQuery(name, 0x1234);
  const until = Date.now() + START_MS;
  const socket = createSocket('udp4');
  try {
    while (Date.now() < until) {
      const got = await new Promise<boolean>((resolve) => {
        const t = setTimeout(() => {
          socket.removeAllListeners('message');
          resolve(false);
        }, 200);
        socket.once('message', () => {
          clearTimeout(t);
          resolve(true);
        });
        socket.send(query, port, HOST);
      });
      if (got) return true;
    }
    return false;
  } finally {
    socket.close();
  }
}

/** dnsperf against HOST:port for `seconds`, with its default 100 queries in flight. */
export async function dnsperf(binary: string, port: number, queryFile: string, seconds: number = PEER_SECONDS): Promise<DnsperfRun> {
  const peer = startPeer(binary, ['-s', HOST, '-p', String(port), '-d', queryFile, '-l', String(seconds)], (seconds + 20) * 1000);
  const code = await peer.exited;
  const run = parseDnsperf(peer.output());
  if (code !== 0 || run === undefined) throw new Error(`dnsperf exited ${code}: ${peer.output().slice(-400)}`);
  return run;
}

/** dnsperf with the server's CPU time read around it: µs per completed query, NaN where unknown. */
async function dnsperfWithCpu(binary: string, port: number, queryFile: string, cpuNs: () => number | undefined): Promise<DnsperfRun & { readonly cpuUsPerQuery: number }> {
  const before = cpuNs();
  const run = await dnsperf(binary, port, queryFile);
  const after = cpuNs();
  const cpuUsPerQuery = before === undefined || after === undefined || run.completed === 0 ? Number.NaN : (after - before) / 1000 / run.completed;
  return { ...run, cpuUsPerQuery };
}

async function withDnsmasq<T>(binary: string, hostsFile: string, probeName: string, use: (port: number, cpuNs: () => number | undefined) => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    const port = await freeUdpPort();
    const args = [
      '--keep-in-foreground',
      '--conf-file=/dev/null',
      '--no-resolv',
      '--no-hosts',
      `--addn-hosts=${hostsFile}`,
      `--listen-address=${HOST}`,
      '--bind-interfaces',
      `--port=${port}`,
      '--pid-file=',
      `--user=${userInfo().username}`,
      // The TTL of answers from the hosts file; the kubesvc server's default TTL is 5 s too.
      '--local-ttl=5',
    ];
    const peer = startPeer(binary, args, (PEER_SECONDS + 60) * 1000);
    try {
      const pid = peer.child.pid;
      if (await answers(port, probeName)) return await use(port, () => (pid === undefined ? undefined : schedstatNs(pid)));
      if (attempt >= 3) throw new Error(`dnsmasq did not answer on ${HOST}:${port}: ${peer.output().slice(-400)}`);
    } finally {
      await peer.stop();
    }
  }
}

/** The floor: a socket that echoes each query back as its own (empty) response (echoQueries). */
async function withEchoFloor<T>(use: (port: number) => Promise<T>): Promise<T> {
  const socket = createSocket('udp4');
  echoQueries(socket);
  await new Promise<void>((r) => socket.bind(0, HOST, () => r()));
  try {
    return await use(socket.address().port);
  } finally {
    await new Promise<void>((r) => socket.close(() => r()));
  }
}

/** Processes of the shared-socket floor. */
const ECHO_WORKERS = 2;

/** The floor in ECHO_WORKERS cluster workers sharing one socket; `cpuNs` sums their processes. */
export async function withSharedEchoFloor<T>(use: (port: number, cpuNs: () => number | undefined, pids: readonly number[]) => Promise<T>): Promise<T> {
  const port = await freeUdpPort();
  // The worker is TypeScript: it runs under tsx's loader, whatever this process was started with
  // (tsx for the bench, vitest for the test).
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx/esm')).href;
  cluster.setupPrimary({ exec: fileURLToPath(new URL('./dns-echo-worker.ts', import.meta.url)), execArgv: ['--import', tsx] });
  const workers: Worker[] = [];
  try {
    for (let i = 0; i < ECHO_WORKERS; i++) {
      const worker = cluster.fork({ KUBESVC_ECHO_PORT: String(port) });
      workers.push(worker);
      await new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`echo worker ${i + 1} did not bind ${HOST}:${port} within ${START_MS} ms`)), START_MS);
        worker.once('message', () => (clearTimeout(timer), resolve()));
        worker.once('exit', (code) => (clearTimeout(timer), reject(new Error(`echo worker ${i + 1} exited with ${code}`))));
      });
    }
    const cpuNs = () => {
      let sum = 0;
      for (const worker of workers) {
        const ns = worker.process.pid === undefined ? undefined : schedstatNs(worker.process.pid);
        if (ns === undefined) return undefined;
        sum += ns;
      }
      return sum;
    };
    return await use(
      port,
      cpuNs,
      workers.flatMap((worker) => (worker.process.pid === undefined ? [] : [worker.process.pid])),
    );
  } finally {
    await Promise.all(
      workers.map(
        (worker) =>
          new Promise<void>((resolve) => {
            if (worker.isDead()) return resolve();
            worker.once('exit', () => resolve());
            worker.process.kill('SIGKILL');
          }),
      ),
    );
  }
}

/**
 * Runs the comparison and returns its metrics: queries per second of each side (median of
 * the rounds, and each round), the ratio, lost queries, NOERROR share, and the load average
 * before and after. Returns {} with a console line when dnsperf is not installed.
 */
export async function compareWithDnsmasq(
  zone: Zone,
  records: readonly ARecordSet[],
  binaries: { readonly dnsperf: string | undefined; readonly dnsmasq: string | undefined } = { dnsperf: findBinary('dnsperf'), dnsmasq: findBinary('dnsmasq') },
): Promise<Record<string, number>> {
  const perf = binaries.dnsperf;
  if (perf === undefined) {
    console.log('discovery: dnsperf not installed (apt-get install dnsperf); no dnsmasq comparison');
    return {};
  }
  const dnsmasq = binaries.dnsmasq;
  if (dnsmasq === undefined) console.log('discovery: dnsmasq not installed (apt-get install dnsmasq-base); kubesvc row only');
  const first = records[0];
  if (first === undefined) throw new Error('no records to serve');
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-dnsperf-'));
  const server = await startDnsServer({ host: HOST, port: 0, zone });
  try {
    const hostsFile = join(dir, 'hosts');
    const queryFile = join(dir, 'queries');
    writeFileSync(hostsFile, records.flatMap((r) => r.addresses.map((a) => `${a} ${r.name}\n`)).join(''));
    writeFileSync(queryFile, records.map((r) => `${r.name} A\n`).join(''));
    const ours: (DnsperfRun & { readonly cpuUsPerQuery: number })[] = [];
    const theirs: (DnsperfRun & { readonly cpuUsPerQuery: number })[] = [];
    const floor: (DnsperfRun & { readonly cpuUsPerQuery: number })[] = [];
    const shared: (DnsperfRun & { readonly cpuUsPerQuery: number })[] = [];
    const loadBefore = loadavg()[0] ?? 0;
    for (let round = 0; round < PEER_ROUNDS; round++) {
      ours.push(await dnsperfWithCpu(perf, server.port, queryFile, mainThreadCpuNs));
      if (dnsmasq !== undefined) theirs.push(await withDnsmasq(dnsmasq, hostsFile, first.name, (port, cpuNs) => dnsperfWithCpu(perf, port, queryFile, cpuNs)));
      floor.push(await withEchoFloor((port) => dnsperfWithCpu(perf, port, queryFile, mainThreadCpuNs)));
      shared.push(await withSharedEchoFloor((port, cpuNs) => dnsperfWithCpu(perf, port, queryFile, cpuNs)));
    }
    const loadAfter = loadavg()[0] ?? 0;
    const oursQps = median(ours.map((r) => r.qps));
    const metrics: Record<string, number> = {
      rounds: PEER_ROUNDS,
      seconds: PEER_SECONDS,
      kubesvcQps: oursQps,
      kubesvcLost: ours.reduce((n, r) => n + r.lost, 0),
      kubesvcNoerrorPct: Math.min(...ours.map((r) => r.noerrorPercent)),
      loadavgBefore: loadBefore,
      loadavgAfter: loadAfter,
    };
    ours.forEach((r, i) => (metrics[`kubesvcQpsRound${i + 1}`] = r.qps));
    const oursCpu = median(ours.map((r) => r.cpuUsPerQuery));
    if (Number.isFinite(oursCpu)) metrics['kubesvcCpuUsPerQuery'] = oursCpu;
    metrics['nodeFloorQps'] = median(floor.map((r) => r.qps));
    const floorCpu = median(floor.map((r) => r.cpuUsPerQuery));
    if (Number.isFinite(floorCpu)) metrics['nodeFloorCpuUsPerQuery'] = floorCpu;
    metrics['nodeFloorTwoWorkersQps'] = median(shared.map((r) => r.qps));
    const sharedCpu = median(shared.map((r) => r.cpuUsPerQuery));
    if (Number.isFinite(sharedCpu)) metrics['nodeFloorTwoWorkersCpuUsPerQuery'] = sharedCpu;
    if (theirs.length > 0) {
      const theirQps = median(theirs.map((r) => r.qps));
      Object.assign(metrics, {
        dnsmasqQps: theirQps,
        dnsmasqLost: theirs.reduce((n, r) => n + r.lost, 0),
        dnsmasqNoerrorPct: Math.min(...theirs.map((r) => r.noerrorPercent)),
        ratioToDnsmasq: oursQps / theirQps,
      });
      theirs.forEach((r, i) => (metrics[`dnsmasqQpsRound${i + 1}`] = r.qps));
      const theirCpu = median(theirs.map((r) => r.cpuUsPerQuery));
      if (Number.isFinite(theirCpu)) metrics['dnsmasqCpuUsPerQuery'] = theirCpu;
      metrics['nodeFloorToDnsmasq'] = (metrics['nodeFloorQps'] ?? 0) / theirQps;
      metrics['nodeFloorTwoWorkersToDnsmasq'] = (metrics['nodeFloorTwoWorkersQps'] ?? 0) / theirQps;
    }
    return metrics;
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

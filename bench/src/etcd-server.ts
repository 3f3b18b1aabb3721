// A throwaway single-member etcd for the benchmarks: /usr/bin/etcd (Debian etcd-server) on
// free loopback ports with a fresh data directory, ready once GET /health says so. stop()
// sends SIGTERM and removes the directory when the process has exited; a bench that dies
// half-way still kills the member on exit.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface BenchEtcd {
  readonly endpoint: string;
  /** SIGTERM now; the data directory goes when the process has exited. */
  stop(): void;
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port from bind :0');
  return address.port;
}

export async function startBenchEtcd(): Promise<BenchEtcd> {
  const dataDir = mkdtempSync(join(tmpdir(), 'kubesvc-bench-etcd-'));
  const clientPort = await freePort();
  let peerPort = await freePort();
  while (peerPort === clientPort) peerPort = await freePort();
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    ...['--name', 'bench', '--data-dir', dataDir, '--log-level', 'warn', '--logger', 'zap'],
    ...['--listen-client-urls', client, '--advertise-client-urls', client],
    ...['--listen-peer-urls', peer, '--initial-advertise-peer-urls', peer, '--initial-cluster', `bench=${peer}`, '--initial-cluster-state', 'new'],
  ];
  const child = spawn('/usr/bin/etcd', args, { stdio: 'ignore' });
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);
  let exited = false;
  const gone = () => {
    if (exited) return;
    exited = true;
    process.removeListener('exit', killOnExit);
    rmSync(dataDir, { recursive: true, force: true });
  };
  child.once('exit', gone);
  child.once('error', gone);
  const stop = () => {
    if (!exited) child.kill('SIGTERM');
  };
  const deadline = Date.now() + 20_000;
  for (;;) {
    if (exited) throw new Error('etcd exited during start (is etcd-server installed?)');
    try {
      const body = (await (await fetch(`${client}/health`, { signal: AbortSignal.timeout(1000) })).json()) as { health?: string };
      if (body.health === 'true') return { endpoint: client, stop };
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      stop();
      throw new Error('etcd not healthy within 20 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

// A real single-member etcd (the Debian etcd-server binary) on free loopback ports with a fresh
// data directory, for the tests and the benchmarks (one launcher for both). startEtcd() waits
// until GET /health says {"health":"true"}; stop() sends SIGTERM and waits for the exit
// (restart() starts it again on the same data and ports, as a restarted member would);
// dispose() stops it and removes the data directory, on a failed start too. If the process that
// started it exits without dispose(), the member is killed with it.
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdtempSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const ETCD_BIN = '/usr/bin/etcd';

export interface EtcdFixture {
  /** The client URL, http://127.0.0.1:<port>. */
  readonly endpoint: string;
  readonly dataDir: string;
  /** SIGTERM, then waits for the process to exit. Does nothing when it is not running. */
  stop(): Promise<void>;
  /** Starts etcd again on the same data directory and ports, and waits until it is healthy. */
  restart(): Promise<void>;
  /** Stops etcd and removes its data directory. */
  dispose(): Promise<void>;
}

export interface EtcdFixtureOptions {
  /** How long start and restart may take before they fail. Default 20 s. */
  readonly startTimeoutMs?: number;
  /** The member's --name, and the data directory's prefix. Default `kubesvc-test`. */
  readonly name?: string;
  /**
   * Keep the data directory in memory (/dev/shm, a tmpfs, when the machine has one): etcd
   * still writes and fsyncs its WAL and bolt file as always, but an fsync costs no disk
   * flush, so a test's throughput no longer rides on what else writes to the disk (on a busy
   * CI machine a disk flush took most of a create's time). Survives etcd's restart, not the
   * machine's. Default false: the benchmarks measure etcd on disk, as a cluster runs it.
   */
  readonly inMemory?: boolean;
}

const SHM = '/dev/shm';

/** /dev/shm when it is a directory this process may write, else the temp folder. */
function memoryDir(): string {
  try {
    accessSync(SHM, constants.W_OK);
    return statSync(SHM).isDirectory() ? SHM : tmpdir();
  } catch {
    return tmpdir();
  }
}

/** A port the kernel picks for 127.0.0.1 (bind :0, read it, close). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no port from bind :0 on 127.0.0.1');
  return address.port;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Starts etcd and resolves once it reports healthy. */
export async function startEtcd(options: EtcdFixtureOptions = {}): Promise<EtcdFixture> {
  const startTimeoutMs = options.startTimeoutMs ?? 20_000;
  const name = options.name ?? 'kubesvc-test';
  const dataDir = mkdtempSync(join(options.inMemory === true ? memoryDir() : tmpdir(), `${name}-etcd-`));
  const clientPort = await freePort();
  let peerPort = await freePort();
  while (peerPort === clientPort) peerPort = await freePort();
  const client = `http://127.0.0.1:${clientPort}`;
  const peer = `http://127.0.0.1:${peerPort}`;
  const args = [
    '--name',
    name,
    '--data-dir',
    dataDir,
    '--listen-client-urls',
    client,
    '--advertise-client-urls',
    client,
    '--listen-peer-urls',
    peer,
    '--initial-advertise-peer-urls',
    peer,
    '--initial-cluster',
    `${name}=${peer}`,
    '--initial-cluster-state',
    'new',
    '--log-level',
    'warn',
    '--logger',
    'zap',
  ];

  let child: ChildProcess | undefined;
  let exited: Promise<void> = Promise.resolve();
  let stderrTail = '';
  // If the test process dies without teardown, the member must not outlive it.
  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  const launch = async (): Promise<void> => {
    stderrTail = '';
    const proc = spawn(ETCD_BIN, args, { stdio: ['ignore', 'ignore', 'pipe'] });
    child = proc;
    let hasExited = false;
    exited = new Promise<void>((resolve) => {
      proc.once('exit', () => {
        hasExited = true;
        resolve();
      });
    });
    proc.stderr?.on('data', (chunk: Buffer) => {
      stderrTail = (stderrTail + chunk.toString('utf8')).slice(-4000);
    });
    const spawnError = new Promise<Error>((resolve) => proc.once('error', resolve));
    const deadline = Date.now() + startTimeoutMs;
    for (;;) {
      const failed = await Promise.race([spawnError, sleep(0).then(() => undefined)]);
      if (failed !== undefined) throw new Error(`etcd: cannot run ${ETCD_BIN}: ${failed.message}`);
      if (hasExited) throw new Error(`etcd: etcd exited during start (code ${proc.exitCode}): ${stderrTail}`);
      try {
        const response = await fetch(`${client}/health`, { signal: AbortSignal.timeout(1000) });
        const body = (await response.json()) as { health?: string };
        if (body.health === 'true') return;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`etcd: not healthy within ${startTimeoutMs} ms: ${stderrTail}`);
      await sleep(20);
    }
  };

  const stop = async (): Promise<void> => {
    const proc = child;
    if (proc === undefined) return;
    if (proc.exitCode === null && proc.signalCode === null) {
      proc.kill('SIGTERM');
      const timer = setTimeout(() => proc.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    child = undefined;
  };

  const dispose = async (): Promise<void> => {
    try {
      await stop();
    } finally {
      process.removeListener('exit', killOnExit);
      rmSync(dataDir, { recursive: true, force: true });
    }
  };

  try {
    await launch();
  } catch (error) {
    await dispose();
    throw error;
  }

  return {
    endpoint: client,
    dataDir,
    stop,
    restart: async () => {
      await stop();
      await launch();
    },
    dispose,
  };
}

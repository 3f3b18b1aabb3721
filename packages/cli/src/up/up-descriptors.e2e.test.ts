// `kubesvc up` out of file descriptors, through the real bin under `prlimit --nofile`: raw TCP
// connections that send nothing fill its descriptor table, so accepts fail with EMFILE and its
// timers' writes could too. The process must live through it, keep listening, and answer the
// real kubectl again once the connections are gone (closed by the client here, or by the
// server's header deadline).
import { type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, expect, it } from 'vitest';
import { kubectl, startProcess, upArgs } from './up.fixtures.js';

const children = new Set<ChildProcess>();
const sockets = new Set<Socket>();
const dirs: string[] = [];

afterEach(() => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  for (const c of children) c.kill('SIGKILL');
  children.clear();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kubesvc-up-fds-'));
  dirs.push(d);
  return d;
}

/** The soft and hard descriptor limit of the child: small enough that 400 connections exhaust it, large enough to start. */
const NOFILE = 160;
const CONNECTIONS = 400;

/** Opens one raw TCP connection that never sends a byte; resolves once connected (or refused: the count is what matters). */
function idleConnection(port: number): Promise<void> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    sockets.add(socket);
    socket.on('error', () => resolve());
    socket.on('close', () => sockets.delete(socket));
    socket.once('connect', () => resolve());
    socket.setTimeout(10_000, () => resolve());
  });
}

it('lives through running out of descriptors, keeps listening, and answers kubectl once the connections are gone', async () => {
  const dataDir = tempDir();
  const cache = tempDir();
  const up = await startProcess(
    children,
    'prlimit',
    [`--nofile=${NOFILE}:${NOFILE}`, process.execPath, ...upArgs(dataDir, ['--proxy-mode', 'userspace'])],
    (out) => out.includes('Ctrl-C stops it'),
    'kubesvc up under prlimit',
  );
  const kubeconfig = join(dataDir, 'kubeconfig');
  const port = Number(/server: https:\/\/127\.0\.0\.1:(\d+)/.exec(readFileSync(kubeconfig, 'utf8'))?.[1]);
  expect(port).toBeGreaterThan(0);
  expect((await kubectl(kubeconfig, cache, 'get', '--raw', '/healthz')).trim()).toBe('ok');

  // More connections than the child has descriptors: some are accepted and held, the rest are
  // refused by the kernel's backlog or closed by libuv's EMFILE handling.
  for (let i = 0; i < CONNECTIONS; i += 50) await Promise.all(Array.from({ length: 50 }, () => idleConnection(port)));
  // The process's timers (proxy-ports.json every 500 ms, the controllers, the store) run while
  // its table is full; give them a few rounds, then check it is still there.
  // prlimit execs node in its own process, so the child's pid is kubesvc up's.
  const openDescriptors = (): number => readdirSync(`/proc/${up.child.pid ?? 0}/fd`).length;
  let most = 0;
  const until = Date.now() + 3_000;
  while (Date.now() < until && up.child.exitCode === null) {
    most = Math.max(most, openDescriptors());
    await new Promise((r) => setTimeout(r, 200));
  }
  expect(up.child.exitCode, `kubesvc up exited while out of descriptors; it printed:\n${up.stderr()}`).toBeNull();
  // The table was full (libuv keeps one descriptor in reserve for its EMFILE handling).
  expect(most, 'the most descriptors kubesvc up held while the connections were open').toBeGreaterThanOrEqual(NOFILE - 2);

  for (const s of sockets) s.destroy();
  sockets.clear();
  // Once descriptors are free it accepts again: poll with a generous bound, keep the last error.
  let answer = '';
  let last = '';
  for (let i = 0; i < 60 && answer !== 'ok'; i++) {
    try {
      answer = (await kubectl(kubeconfig, cache, 'get', '--raw', '/healthz')).trim();
    } catch (e) {
      last = e instanceof Error ? e.message : String(e);
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  expect(answer, `no /healthz answer after the connections closed; last error: ${last}\nstderr:\n${up.stderr()}`).toBe('ok');
  expect(await kubectl(kubeconfig, cache, 'get', 'svc', 'kubernetes', '-o', 'name')).toBe('service/kubernetes\n');
  expect(up.child.exitCode).toBeNull();
});

// A real `kubesvc up` for e2e tests: the bin in a child process on free ports (0), ready once
// it printed its summary, and the real kubectl against the kubeconfig it wrote. The caller
// registers cleanup: every child goes to `children`, to be killed in afterEach.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach } from 'vitest';
import { BIN, REPO_ROOT } from '../run-bin.fixtures.js';

const exec = promisify(execFile);

/**
 * A test file's child processes and temp dirs: after each test every child is killed (SIGKILL)
 * and every dir made with `tempDir()` removed, whether the test passed or not.
 */
export function e2eScope(prefix: string): { readonly children: Set<ChildProcess>; readonly tempDir: () => string } {
  const children = new Set<ChildProcess>();
  const dirs: string[] = [];
  beforeEach((context) => {
    testDeadline = Date.now() + context.task.timeout - UNTIL_MARGIN_MS;
    // A failed test shows the end of what each process it started printed: the server's own
    // account of a wait that did not converge.
    const started: ProcessLog[] = [];
    processLogs = started;
    context.onTestFailed(() => {
      for (const p of started) console.error(`--- ${p.what}: the last lines of its stderr, then of its stdout\n${lastLines(p.stderr(), 60)}\n---\n${lastLines(p.stdout(), 20)}`);
    });
  });
  afterEach(() => {
    testDeadline = undefined;
    processLogs = undefined;
    for (const c of children) c.kill('SIGKILL');
    children.clear();
    for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
  });
  const tempDir = (): string => {
    const d = mkdtempSync(join(tmpdir(), prefix));
    dirs.push(d);
    return d;
  };
  return { children, tempDir };
}

export interface RunningUp {
  readonly child: ChildProcess;
  readonly stdout: () => string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
}

/**
 * Spawns `file args`, collects its output, and resolves once `ready(stdout)` holds, or fails
 * with what it printed when it exits first or after 60 s. The child goes to `children`.
 */
export async function startProcess(
  children: Set<ChildProcess>,
  file: string,
  args: readonly string[],
  ready: (stdout: string) => boolean,
  what: string,
  env: NodeJS.ProcessEnv = process.env,
): Promise<RunningUp> {
  const child = spawn(file, [...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'], env });
  children.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  processLogs?.push({ what, stdout: () => out, stderr: () => err });
  const deadline = Date.now() + 60_000;
  while (!ready(out)) {
    if (child.exitCode !== null) throw new Error(`${what} exited ${child.exitCode}:\n${err}\n${out}`);
    if (Date.now() > deadline) throw new Error(`${what} was not ready within 60 s:\n${err}\n${out}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  return { child, stdout: () => out, stderr: () => err, exited };
}

/** The arguments that start `kubesvc up` on free ports (0) with a documentation advertise address. */
export function upArgs(dataDir: string, extra: readonly string[] = []): string[] {
  return [BIN, 'up', '--data-dir', dataDir, '--secure-port', '0', '--dns-port', '0', '--advertise-address', '192.0.2.10', ...extra];
}

/** Starts `kubesvc up` and resolves once it printed its summary (or fails with what it printed), within 60 s. */
export function startUp(children: Set<ChildProcess>, dataDir: string, extra: readonly string[] = []): Promise<RunningUp> {
  return startProcess(children, process.execPath, upArgs(dataDir, extra), (out) => out.includes('Ctrl-C stops it'), 'kubesvc up');
}

/** The real kubectl with its own cache dir and the given kubeconfig (never the user's). */
/** `kubectl ...args` with its own exit code, standard output and error, whatever the exit code. */
export async function kubectlRun(kubeconfig: string, cacheDir: string, ...args: string[]): Promise<{ readonly code: number; readonly stdout: string; readonly stderr: string }> {
  try {
    const r = await exec('/usr/bin/kubectl', ['--kubeconfig', kubeconfig, `--cache-dir=${cacheDir}`, ...args], { timeout: 60_000 });
    return { code: 0, stdout: r.stdout, stderr: r.stderr };
  } catch (e) {
    const x = e as { code?: number; stdout?: string; stderr?: string };
    return { code: typeof x.code === 'number' ? x.code : -1, stdout: x.stdout ?? '', stderr: x.stderr ?? '' };
  }
}

export async function kubectl(kubeconfig: string, cacheDir: string, ...args: string[]): Promise<string> {
  const { stdout } = await exec('/usr/bin/kubectl', ['--kubeconfig', kubeconfig, `--cache-dir=${cacheDir}`, ...args], { timeout: 30_000 });
  return stdout;
}

interface ProcessLog {
  readonly what: string;
  readonly stdout: () => string;
  readonly stderr: () => string;
}

/** The processes the running test started (in a file that called e2eScope). */
let processLogs: ProcessLog[] | undefined;

function lastLines(text: string, n: number): string {
  const lines = text.trimEnd().split('\n');
  return lines.slice(-n).join('\n');
}

/**
 * When the running test (of a file that called e2eScope) times out, less a margin: `until` gives
 * up by then, so a wait that does not converge fails with what it saw, not with the runner's
 * bare "Test timed out".
 */
let testDeadline: number | undefined;
const UNTIL_MARGIN_MS = 5_000;
const UNTIL_BOUND_MS = 120_000;

/**
 * Polls `read` every 250 ms until `done` holds of what it returned, for at most two minutes and
 * never past the running test's own timeout (bounds that only stop a stuck run on a loaded
 * machine); a read that throws (the object is not there yet) counts as not done. Fails with the
 * last value, or error, seen.
 */
export async function until<T>(what: string, read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  let last: { value: T } | { error: string } | undefined;
  const started = Date.now();
  const deadline = Math.min(started + UNTIL_BOUND_MS, testDeadline ?? Number.POSITIVE_INFINITY);
  for (let reads = 0; reads === 0 || Date.now() < deadline; reads++) {
    try {
      const value = await read();
      last = { value };
      if (done(value)) return value;
    } catch (error) {
      last = { error: error instanceof Error ? error.message : String(error) };
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${what}: still not there after ${((Date.now() - started) / 1000).toFixed(1)} s; last seen:\n${last === undefined ? 'nothing' : 'error' in last ? `error: ${last.error}` : JSON.stringify(last.value, null, 2)}`);
}

/** The ```sh block of the README section under `heading`, and the ```text block after it (what the script prints). */
export function readmeSection(readme: string, heading: string): { code: string; output: string } {
  const section = readme.slice(readme.indexOf(heading));
  return { code: /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '', output: /```text\n([\s\S]*?)```/.exec(section)?.[1] ?? '' };
}

/**
 * Runs a README's shell example with bash (`-u`, job control on) from the repository root, in
 * its own process group, killed with the group after `limitMs`. `started` gets the child at
 * once, for an afterAll that kills it when the test fails first.
 */
export function runScript(code: string, env: NodeJS.ProcessEnv, limitMs: number, started: (child: ChildProcess) => void = () => undefined): Promise<{ out: string; err: string; code: number | null }> {
  const child = spawn('bash', ['-u', '-c', `set -m\n${code}`], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  started(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, limitMs);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve({ out, err, code: c });
    });
  });
}

// Runs the real `kubesvc` bin (bin/kubesvc.mjs, as `npx kubesvc` does) as a child process and
// collects what it printed. Every run is bounded in time and killed if it overruns.
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const PACKAGE_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL('../../..', import.meta.url));
export const BIN = fileURLToPath(new URL('../bin/kubesvc.mjs', import.meta.url));
export const FIXTURES = fileURLToPath(new URL('./fixtures/', import.meta.url));

export interface BinRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface BinOptions {
  readonly stdin?: string | Uint8Array;
  readonly cwd?: string;
  readonly timeoutMs?: number;
  /** Variables added to (or, when undefined, removed from) this process's environment. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** `node bin/kubesvc.mjs ...args`, with stdin given or empty. */
export function runBin(args: readonly string[], options: BinOptions = {}): Promise<BinRun> {
  return runCommand(process.execPath, [BIN, ...args], options);
}

export function runCommand(file: string, args: readonly string[], options: BinOptions = {}): Promise<BinRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, [...args], { cwd: options.cwd ?? REPO_ROOT, stdio: ['pipe', 'pipe', 'pipe'], env: { ...process.env, KUBESVC_DEBUG: '', ...options.env } });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout.on('data', (chunk: Buffer) => out.push(chunk));
    child.stderr.on('data', (chunk: Buffer) => err.push(chunk));
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${file} ${args.join(' ')}: no exit within ${options.timeoutMs ?? 60_000} ms`));
    }, options.timeoutMs ?? 60_000);
    child.on('error', (error) => {
      clearTimeout(timer);
      reject(error);
    });
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      resolve({ code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8') });
    });
    // A child that exits before reading everything closes the pipe: that is its answer, not an error.
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.stdin ?? '');
  });
}

/** A stderr with a JavaScript stack trace in it (`    at fn (file:1:2)`). */
export function hasStackTrace(text: string): boolean {
  return /^\s+at .+(:\d+:\d+\)?|\(native\))$/m.test(text);
}

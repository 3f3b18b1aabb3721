// Test support: a whole control plane (SQLite store, controllers, simulated kubelet, HTTP API)
// on a free loopback port, a kubeconfig for it, and the real kubectl run against it with its own
// discovery cache. Everything it makes is removed by `close()`.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { kubeconfigYaml } from '@kubesvc/apiserver';

const run = promisify(execFile);

export const KUBECTL = '/usr/bin/kubectl';

export interface KubectlResult {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

export class Kubectl {
  readonly dir: string;
  readonly kubeconfig: string;
  private readonly watchers = new Set<ChildProcess>();

  /** `caPem`: the serving certificate's CA; kubectl sends a bearer token only over TLS. */
  constructor(server: string, token: string, caPem: string) {
    this.dir = mkdtempSync(join(tmpdir(), 'kubesvc-kubectl-'));
    this.kubeconfig = join(this.dir, 'kubeconfig');
    writeFileSync(this.kubeconfig, kubeconfigYaml(server, caPem, token), { mode: 0o600 });
  }

  private args(args: readonly string[]): string[] {
    return ['--kubeconfig', this.kubeconfig, `--cache-dir=${join(this.dir, 'cache')}`, ...args];
  }

  /** Runs kubectl to completion (at most 30 s) and returns its exit code and output. */
  async run(...args: string[]): Promise<KubectlResult> {
    try {
      const { stdout, stderr } = await run(KUBECTL, this.args(args), { timeout: 30_000, env: { PATH: process.env['PATH'] ?? '/usr/bin', HOME: this.dir } });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const err = e as { code?: number | string; stdout?: string; stderr?: string };
      return { code: typeof err.code === 'number' ? err.code : -1, stdout: err.stdout ?? '', stderr: err.stderr ?? String(e) };
    }
  }

  /** Writes `text` to a file in the temp dir and returns its path (for `apply -f`). */
  file(name: string, text: string): string {
    const path = join(this.dir, name);
    writeFileSync(path, text);
    return path;
  }

  /** Starts a long-running kubectl (a watch); its stdout lines are collected as they come. */
  watch(...args: string[]): { readonly lines: string[]; readonly stop: () => void; waitForLine: (re: RegExp, timeoutMs: number) => Promise<string> } {
    const child = spawn(KUBECTL, this.args(args), { env: { PATH: process.env['PATH'] ?? '/usr/bin', HOME: this.dir }, stdio: ['ignore', 'pipe', 'pipe'] });
    this.watchers.add(child);
    const lines: string[] = [];
    let partial = '';
    const waiters: { re: RegExp; resolve: (line: string) => void }[] = [];
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (chunk: string) => {
      partial += chunk;
      const parts = partial.split('\n');
      partial = parts.pop() ?? '';
      for (const line of parts) {
        lines.push(line);
        for (const w of [...waiters]) {
          if (w.re.test(line)) {
            waiters.splice(waiters.indexOf(w), 1);
            w.resolve(line);
          }
        }
      }
    });
    const stop = (): void => {
      child.kill('SIGTERM');
      this.watchers.delete(child);
    };
    const waitForLine = (re: RegExp, timeoutMs: number): Promise<string> => {
      const found = lines.find((l) => re.test(l));
      if (found !== undefined) return Promise.resolve(found);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no line matching ${re} within ${timeoutMs} ms; saw:\n${lines.join('\n')}`)), timeoutMs);
        waiters.push({
          re,
          resolve: (line) => {
            clearTimeout(timer);
            resolve(line);
          },
        });
      });
    };
    return { lines, stop, waitForLine };
  }

  close(): void {
    for (const w of this.watchers) w.kill('SIGKILL');
    this.watchers.clear();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** Polls `check` every `everyMs` until it returns a value, or fails after `timeoutMs`. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string, everyMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined) return value;
    } catch (e) {
      last = e;
    }
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last === undefined ? '' : `: ${String(last)}`}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** Splits kubectl's table output into rows of cells (columns are separated by 2+ spaces). */
export function tableRows(stdout: string): string[][] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => l.trim().split(/\s{2,}/));
}

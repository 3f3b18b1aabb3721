// Test support for several `kubesvc up` processes on one real etcd: each process is the real
// bin in a child process with its own data dir, bound to its own loopback address; an HTTPS
// client that trusts the process's certificate and sends its token. Every process started here
// is SIGKILLed by killAll() (the tests call it in afterAll/afterEach, on failure too).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BIN, REPO_ROOT } from '../run-bin.fixtures.js';

const processes = new Set<ChildProcess>();
const dirs: string[] = [];

export function tempDir(prefix = 'kubesvc-ha-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** SIGKILLs every process started here that is still running, and removes the temp dirs. */
export function killAll(): void {
  for (const p of processes) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
  processes.clear();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
}

export interface ApiReply {
  readonly status: number;
  readonly body: unknown;
}

export interface UpProcess {
  readonly child: ChildProcess;
  readonly dataDir: string;
  readonly url: string;
  readonly kubeconfig: string;
  readonly stderr: () => string;
  readonly exited: Promise<number | null>;
  /** One HTTPS request with this apiserver's token, trusting its certificate. */
  api(method: string, path: string, body?: unknown): Promise<ApiReply>;
}

/** Starts `kubesvc up ...args` with a new data dir and resolves once it printed its summary. */
export async function startUp(args: readonly string[], options: { readonly clients?: number } = {}): Promise<UpProcess> {
  const dataDir = tempDir();
  const child = spawn(process.execPath, [BIN, 'up', '--data-dir', dataDir, '--dns-port', '0', '--proxy-mode', 'none', ...args], {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  processes.add(child);
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err = (err + c).slice(-20_000)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + 90_000;
  while (!out.includes('Ctrl-C stops it')) {
    if (child.exitCode !== null) throw new Error(`kubesvc up exited ${child.exitCode}:\n${err}`);
    if (Date.now() > deadline) throw new Error(`kubesvc up did not start within 90 s:\n${err}\n${out}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  const url = /API server\s+(https:\/\/\S+)/.exec(out)?.[1] ?? '';
  const token = readFileSync(join(dataDir, 'token'), 'utf8').trim();
  const ca = readFileSync(join(dataDir, 'pki', 'apiserver.crt'), 'utf8');
  const agent = new Agent({ keepAlive: true, maxSockets: options.clients ?? 4, ca });
  const base = new URL(url);
  const api = (method: string, path: string, body?: unknown): Promise<ApiReply> =>
    new Promise((resolve, reject) => {
      const text = body === undefined ? undefined : JSON.stringify(body);
      const req = request(
        {
          agent,
          host: base.hostname,
          port: base.port,
          method,
          path,
          headers: { Authorization: `Bearer ${token}`, Accept: 'application/json', ...(text === undefined ? {} : { 'Content-Type': 'application/json' }) },
          timeout: 30_000,
        },
        (res) => {
          let data = '';
          res.setEncoding('utf8').on('data', (c: string) => (data += c));
          res.on('end', () => {
            let parsed: unknown = data;
            try {
              parsed = JSON.parse(data);
            } catch {
              // not JSON: kept as text, which the tests count as an unclean reply
            }
            resolve({ status: res.statusCode ?? 0, body: parsed });
          });
          res.on('error', reject);
        },
      );
      req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no reply within 30 s`)));
      req.on('error', reject);
      req.end(text);
    });
  child.once('exit', () => agent.destroy());
  return { child, dataDir, url, kubeconfig: join(dataDir, 'kubeconfig'), stderr: () => err, exited, api };
}

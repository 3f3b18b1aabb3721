// The processes a lab runs inside its pods: a backend server per backend pod, and load
// generators in client pods (agents/backend.mjs, agents/client.mjs, plain JavaScript so that
// `node` starts them without a loader). Each is started with `ip netns exec <pod> node ...`,
// which execs node in the same process, so the pid the lab holds is the agent's own and a
// kill reaches it. Every wait here is bounded.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { err, ok, type Result, type TaggedError } from '@kubesvc/api-types';
import { SEARCH_PATH } from './commands.js';

export const AGENTS_DIR = fileURLToPath(new URL('../agents/', import.meta.url));

/** One lab process, with its standard output split into lines. */
export class AgentProcess {
  readonly child: ChildProcess;
  readonly pid: number;
  readonly exited: Promise<number | null>;
  private readonly lines: string[] = [];
  private readonly waiters = new Set<() => void>();
  private stderrText = '';
  private done = false;

  constructor(namespace: string, agent: 'backend' | 'client' | 'netexec' | 'relay', spec: unknown) {
    const child = spawn('ip', ['netns', 'exec', namespace, process.execPath, `${AGENTS_DIR}${agent}.mjs`, JSON.stringify(spec)], {
      stdio: ['pipe', 'pipe', 'pipe'],
      env: { ...process.env, PATH: SEARCH_PATH },
    });
    if (child.pid === undefined) {
      // spawn reports the reason (ENOENT, ...) as an 'error' event; it is in the thrown message instead.
      child.on('error', () => undefined);
      throw new Error(`could not start the ${agent} agent in ${namespace} (is ip installed?)`);
    }
    this.child = child;
    this.pid = child.pid;
    let partial = '';
    child.stdout?.setEncoding('utf8');
    child.stdout?.on('data', (chunk: string) => {
      partial += chunk;
      let nl = partial.indexOf('\n');
      while (nl >= 0) {
        this.lines.push(partial.slice(0, nl));
        partial = partial.slice(nl + 1);
        nl = partial.indexOf('\n');
      }
      this.wake();
    });
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      if (this.stderrText.length < 10_000) this.stderrText += chunk;
    });
    // A write to an agent that already died must not crash the lab.
    child.stdin?.on('error', () => undefined);
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.done = true;
        this.wake();
        resolve(code ?? (signal === null ? null : -1));
      });
      child.on('error', () => {
        this.done = true;
        this.wake();
        resolve(null);
      });
    });
  }

  get stderr(): string {
    return this.stderrText;
  }

  get running(): boolean {
    return !this.done;
  }

  private wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** The first line (from the start) that `accept` takes; rejects on exit or after `timeoutMs`. */
  waitForLine<T>(accept: (line: string) => T | undefined, timeoutMs: number, what: string): Promise<T> {
    return new Promise((resolve, reject) => {
      let seen = 0;
      const check = (): void => {
        for (; seen < this.lines.length; seen++) {
          const value = accept(this.lines[seen] ?? '');
          if (value !== undefined) {
            finish();
            resolve(value);
            return;
          }
        }
        if (this.done) {
          finish();
          reject(new Error(`the agent (pid ${this.pid}) exited before ${what}: ${this.stderrText.trim()}`));
        }
      };
      const timer = setTimeout(() => {
        finish();
        reject(new Error(`no ${what} within ${timeoutMs} ms from pid ${this.pid}: ${this.stderrText.trim()}`));
      }, timeoutMs);
      const finish = (): void => {
        clearTimeout(timer);
        this.waiters.delete(check);
      };
      this.waiters.add(check);
      check();
    });
  }

  send(line: string): void {
    if (this.running && this.child.stdin?.writable === true) this.child.stdin.write(`${line}\n`);
  }

  /** SIGKILL, then wait (bounded) for the exit to be reaped. */
  async kill(timeoutMs = 5_000): Promise<boolean> {
    if (this.running) this.child.kill('SIGKILL');
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), timeoutMs);
    });
    const r = await Promise.race([this.exited, timeout]);
    clearTimeout(timer);
    return r !== 'timeout';
  }
}

/** How long a backend may take to print that it listens. */
const BACKEND_READY_TIMEOUT_MS = 15_000;

/**
 * A backend pod's server (agents/backend.mjs: TCP and UDP answering with its name), started in
 * the pod's namespace; `ready` resolves once both sockets listen.
 */
export function startBackendAgent(namespace: string, name: string, ports: { readonly tcpPort: number; readonly udpPort: number }): { readonly agent: AgentProcess; readonly ready: Promise<boolean> } {
  const agent = new AgentProcess(namespace, 'backend', { name, ...ports });
  return { agent, ready: agent.waitForLine((line) => (line === 'ready' ? true : undefined), BACKEND_READY_TIMEOUT_MS, `${name}'s ready line`) };
}

/** A connection that got no answer: `message` is the agent's error code (`ECONNREFUSED`, `timeout`, `missing`), `ms` how long it took. */
export interface ErrConnection extends TaggedError<'ErrConnection'> {
  readonly ms: number;
}

/** Who answered a connection (the backend's name) and the client address it saw. */
export interface ConnectionAnswer {
  readonly backend: string;
  readonly peer: string;
}

/** What a client connection ended with. */
export type ConnectionResult = Result<ConnectionAnswer, ErrConnection>;

export interface ClientSpec {
  readonly protocol: 'tcp' | 'udp';
  readonly host: string;
  readonly port: number;
  /** At most this many connections (TCP) or datagram exchanges (UDP). */
  readonly count: number;
  readonly concurrency?: number;
  /** Per connection. */
  readonly timeoutMs?: number;
  /** No connection starts after this long. */
  readonly deadlineMs?: number;
  /** Print a progress line every this many finished connections (0: never). */
  readonly progressEvery?: number;
}

export interface ClientReport {
  /** Connections started. */
  readonly launched: number;
  /** In launch order. */
  readonly results: readonly ConnectionResult[];
  /** Per backend name, the successful connections. */
  readonly counts: Readonly<Record<string, number>>;
  readonly failures: readonly ConnectionResult[];
  /** Label → connections launched when the mark arrived. */
  readonly marks: Readonly<Record<string, number>>;
  readonly elapsedMs: number;
}

export function parseResult(text: string | null | undefined): ConnectionResult {
  if (text === null || text === undefined) return err({ _tag: 'ErrConnection', message: 'missing', ms: 0 });
  if (text.startsWith('!')) {
    const [error = '', ms = '0'] = text.slice(1).split(' ');
    return err({ _tag: 'ErrConnection', message: error, ms: Number(ms) });
  }
  const [backend = '', peer = ''] = text.split(' ');
  return ok({ backend, peer });
}

/** Successful connections per backend among `results`. */
export function countByBackend(results: readonly ConnectionResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) if (r.ok) counts[r.value.backend] = (counts[r.value.backend] ?? 0) + 1;
  return counts;
}

interface DoneLine {
  readonly done: true;
  readonly launched: number;
  readonly results: ReadonlyArray<string | null>;
  readonly marks: Record<string, number>;
  readonly elapsedMs: number;
}

function parseJsonLine(line: string): unknown {
  if (!line.startsWith('{')) return undefined;
  try {
    return JSON.parse(line) as unknown;
  } catch {
    return undefined;
  }
}

/** A running load generator: mark moments, wait for progress, stop it, read its report. */
export class ClientRun {
  readonly report: Promise<ClientReport>;
  private readonly agent: AgentProcess;

  constructor(agent: AgentProcess, spec: Required<ClientSpec>) {
    this.agent = agent;
    // The agent stops launching at its deadline and each connection ends by its timeout; past
    // both (and a margin for a slow machine) it is killed.
    const limit = spec.deadlineMs + spec.timeoutMs + 10_000;
    this.report = agent
      .waitForLine((line) => {
        const value = parseJsonLine(line) as Partial<DoneLine> | undefined;
        return value?.done === true ? (value as DoneLine) : undefined;
      }, limit, 'a report')
      .then((done) => {
        const results = Array.from({ length: done.launched }, (_, i) => parseResult(done.results[i]));
        return {
          launched: done.launched,
          results,
          counts: countByBackend(results),
          failures: results.filter((r) => !r.ok),
          marks: done.marks,
          elapsedMs: done.elapsedMs,
        };
      })
      .finally(() => {
        void agent.kill();
      });
    // The report is awaited by the caller; this keeps an early failure from being unhandled.
    this.report.catch(() => undefined);
  }

  get pid(): number {
    return this.agent.pid;
  }

  /**
   * Records how many connections were launched when the agent reads the mark, and resolves with
   * that number once the agent has answered: every connection launched later starts after this
   * promise resolved.
   */
  mark(label: string, timeoutMs = 10_000): Promise<number> {
    this.agent.send(`mark ${label}`);
    return this.agent.waitForLine(
      (line) => {
        const value = parseJsonLine(line) as { mark?: string; launched?: number } | undefined;
        return value?.mark === label ? (value.launched ?? 0) : undefined;
      },
      timeoutMs,
      `the answer to mark ${label}`,
    );
  }

  /** Resolves once at least `finished` connections have finished. */
  progress(finished: number, timeoutMs = 20_000): Promise<number> {
    return this.agent.waitForLine(
      (line) => {
        const value = parseJsonLine(line) as { progress?: number; done?: boolean } | undefined;
        if (value?.done === true) return Number.POSITIVE_INFINITY;
        return value?.progress !== undefined && value.progress >= finished ? value.progress : undefined;
      },
      timeoutMs,
      `${finished} finished connections`,
    );
  }

  stop(): void {
    this.agent.send('stop');
  }
}

export function clientDefaults(spec: ClientSpec): Required<ClientSpec> {
  return {
    concurrency: 8,
    timeoutMs: 3_000,
    deadlineMs: 30_000,
    progressEvery: 0,
    ...spec,
  };
}

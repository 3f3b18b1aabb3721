// The peer programs the side-by-side suites compare against (dnsmasq, haproxy, dnsperf): where
// their binaries are, child processes that are killed however the bench ends, and the CPU time
// a process or thread has used (the figure that a machine shared with other work disturbs least).
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';

/** CPU time the kernel has charged to these threads, ns (Linux's /proc/<pid>/task/<tid>/schedstat); undefined where unreadable. */
export function schedstatNs(pid: number, tids?: readonly number[]): number | undefined {
  try {
    const threads = tids ?? readdirSync(`/proc/${pid}/task`).map(Number);
    return threads.reduce((sum, tid) => sum + Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]), 0);
  } catch {
    return undefined;
  }
}

/**
 * The bench's main thread (its tid is the pid), where the userspace proxy and the DNS server
 * run: without worker threads (the proxy suite's load generator) or V8's helper threads.
 */
export const mainThreadCpuNs = (): number | undefined => schedstatNs(process.pid, [process.pid]);

/**
 * The minor page faults of the bench's main thread so far (field 10 of Linux's
 * /proc/<pid>/task/<tid>/stat, counted after the command name, which may hold spaces); undefined
 * where unreadable. The harness's faults/op counts the whole process, a worker thread's load
 * generator included.
 */
export function mainThreadMinorFaults(): number | undefined {
  try {
    const stat = readFileSync(`/proc/${process.pid}/task/${process.pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After the name: state (field 3) ... minflt (field 10), so the eighth of these.
    const minflt = Number(fields[7]);
    return Number.isFinite(minflt) ? minflt : undefined;
  } catch {
    return undefined;
  }
}

/** The binary's path in the sbin folders or on PATH, or undefined when it is not installed. */
export function findBinary(name: string): string | undefined {
  const dirs = ['/usr/sbin', '/usr/local/sbin', '/usr/bin', ...(process.env['PATH'] ?? '').split(delimiter).filter((d) => d !== '')];
  return dirs.map((d) => join(d, name)).find((p) => existsSync(p));
}

export interface PeerProcess {
  readonly child: ChildProcess;
  /** Everything it wrote to stdout and stderr so far. */
  output(): string;
  /** Resolves with the exit code once it has exited (null when a signal ended it). */
  readonly exited: Promise<number | null>;
  /** SIGTERM, then SIGKILL after a second; resolves when it has exited. */
  stop(): Promise<void>;
}

/**
 * Spawns `binary`, killed by SIGKILL after `limitMs` (a bound on every run) and when this
 * process exits, so that a failed or interrupted bench leaves nothing behind.
 */
export function startPeer(binary: string, args: readonly string[], limitMs: number): PeerProcess {
  const child = spawn(binary, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  child.stdout?.setEncoding('utf8').on('data', (d: string) => (text += d));
  child.stderr?.setEncoding('utf8').on('data', (d: string) => (text += d));
  const kill = (): void => {
    child.kill('SIGKILL');
  };
  process.once('exit', kill);
  const limit = setTimeout(kill, limitMs);
  const exited = new Promise<number | null>((resolve) => {
    const done = (code: number | null): void => {
      clearTimeout(limit);
      process.removeListener('exit', kill);
      resolve(code);
    };
    if (child.exitCode !== null) done(child.exitCode);
    else child.once('close', done);
    child.once('error', () => done(null));
  });
  return {
    child,
    output: () => text,
    exited,
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const hard = setTimeout(kill, 1000);
        await exited;
        clearTimeout(hard);
      }
      await exited;
    },
  };
}

// The peer programs the side-by-side suites compare against (dnsmasq, haproxy, dnsperf): where
// their binaries are, and child processes that are killed however the bench ends.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

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

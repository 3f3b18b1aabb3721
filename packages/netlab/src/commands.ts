// Running the real tools (ip, iptables-restore, sysctl, ping) as child processes, each bounded
// in time. The lab only ever runs them with `ip netns exec <lab namespace>` or `ip -n <lab
// namespace>`, except `ip netns add/del/list` and the read-only `ip link` of the checks.
import { spawnSync } from 'node:child_process';

/** How long one command may take before it is killed. */
export const COMMAND_TIMEOUT_MS = 20_000;

/** sbin folders are not on every PATH (a non-login root shell, CI). */
export const SEARCH_PATH = `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin:/usr/bin:/bin`;

export interface CommandResult {
  readonly status: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

export class LabCommandError extends Error {
  readonly command: readonly string[];
  readonly result: CommandResult;
  constructor(command: readonly string[], result: CommandResult) {
    super(`\`${command.join(' ')}\` failed (exit ${String(result.status)}): ${result.stderr.trim() || result.stdout.trim()}`);
    this.name = 'LabCommandError';
    this.command = command;
    this.result = result;
  }
}

export interface RunOptions {
  /** The command's stdin: text, or bytes as they are. */
  readonly input?: string | Uint8Array;
  readonly timeoutMs?: number;
}

/** Runs a command to completion and returns what it printed, whatever its exit status. */
export function run(command: readonly string[], options: RunOptions = {}): CommandResult {
  const [file = '', ...args] = command;
  const r = spawnSync(file, args, {
    encoding: 'utf8',
    timeout: options.timeoutMs ?? COMMAND_TIMEOUT_MS,
    killSignal: 'SIGKILL',
    env: { ...process.env, PATH: SEARCH_PATH },
    ...(options.input === undefined ? { stdio: ['ignore', 'pipe', 'pipe'] } : { input: options.input }),
  });
  const spawnError = r.error === undefined ? '' : `${r.error.message}\n`;
  return { status: r.status, stdout: r.stdout ?? '', stderr: `${spawnError}${r.stderr ?? ''}` };
}

/** Runs a command and throws LabCommandError unless it exits 0. */
export function must(command: readonly string[], options: RunOptions = {}): string {
  const r = run(command, options);
  if (r.status !== 0) throw new LabCommandError(command, r);
  return r.stdout;
}

/** `command -v`: whether a tool is installed (sbin folders included). */
export function installed(tool: string): boolean {
  return run(['sh', '-c', `command -v '${tool.replace(/'/g, '')}'`]).status === 0;
}

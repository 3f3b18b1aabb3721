// A test-only ContainerRuntime on this host: exec runs the command as a plain child process
// (no namespace), attach runs `cat` as the container's main process, a container's log is the
// text the test gave for `<pod>/<container>`, and portForward connects to 127.0.0.1 at the port
// the test maps the pod's port to (an echo server it started).
import { spawn } from 'node:child_process';
import { connect } from 'node:net';
import { Readable } from 'node:stream';
import type { Pod } from '@kubesvc/api-types';
import type { ContainerProcess, ContainerRuntime, ExecRequest, ExitStatus, LogRequest, RuntimeResult } from '../container-runtime.js';

export interface HostRuntimeOptions {
  /** Each container's log, by `<pod>/<container>`. */
  readonly logs?: Readonly<Record<string, string>>;
  /** The local port a pod's port is forwarded to (undefined: nothing listens there). */
  readonly ports?: (pod: Pod, port: number) => number | undefined;
}

export interface HostRuntime extends ContainerRuntime {
  /** The processes started and not yet ended. */
  running(): number;
  /** Every exec request seen, in order. */
  readonly execs: ExecRequest[];
  /** Every log request seen, in order. */
  readonly logRequests: LogRequest[];
  /** The followed logs still open (not yet destroyed by the server). */
  openFollows(): number;
}

function run(argv: readonly string[], request: Omit<ExecRequest, 'command'>, live: Set<number>): ContainerProcess {
  const [file = 'true', ...args] = argv;
  const child = spawn(file, args, { stdio: [request.stdin ? 'pipe' : 'ignore', request.stdout ? 'pipe' : 'ignore', request.stderr ? 'pipe' : 'ignore'] });
  const pid = child.pid ?? -1;
  live.add(pid);
  const exited = new Promise<ExitStatus>((resolve) => {
    child.once('error', () => resolve({ exitCode: 126 }));
    child.once('close', (code, signal) => {
      live.delete(pid);
      resolve(signal !== null ? { signal } : { exitCode: code ?? 0 });
    });
  });
  return {
    ...(child.stdin === null ? {} : { stdin: child.stdin }),
    ...(child.stdout === null ? {} : { stdout: child.stdout }),
    ...(child.stderr === null ? {} : { stderr: child.stderr }),
    resize: () => undefined,
    exited,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

export function hostRuntime(options: HostRuntimeOptions = {}): HostRuntime {
  const live = new Set<number>();
  const execs: ExecRequest[] = [];
  const logRequests: LogRequest[] = [];
  let follows = 0;
  return {
    execs,
    logRequests,
    openFollows: () => follows,
    running: () => live.size,
    exec(_target, request) {
      execs.push(request);
      return Promise.resolve({ ok: true, value: run(request.command, request, live) });
    },
    attach(_target, request) {
      return Promise.resolve({ ok: true, value: run(['cat'], request, live) });
    },
    logs(target, request) {
      logRequests.push(request);
      const text = options.logs?.[`${target.pod.metadata.name ?? ''}/${target.container}`];
      if (text === undefined) return Promise.resolve({ ok: false, error: { _tag: 'ErrContainerRuntime', reason: 'ContainerNotFound', message: `no log for ${target.container}` } });
      let lines = text.split(/(?<=\n)/).filter((l) => l !== '');
      if (request.tailLines !== undefined) lines = request.tailLines === 0 ? [] : lines.slice(-request.tailLines);
      let out = lines.join('');
      if (request.limitBytes !== undefined) out = out.slice(0, request.limitBytes);
      const stream = Readable.from(out === '' ? [] : [Buffer.from(out)]);
      if (!request.follow) return Promise.resolve({ ok: true, value: stream });
      // A follow: the log, then nothing more until the client goes away.
      const follow = new Readable({ read: () => undefined });
      follows++;
      follow.once('close', () => follows--);
      follow.push(Buffer.from(out));
      return Promise.resolve({ ok: true, value: follow });
    },
    portForward(pod, port): Promise<RuntimeResult<import('node:stream').Duplex>> {
      const local = options.ports?.(pod, port);
      if (local === undefined) return Promise.resolve({ ok: false, error: { _tag: 'ErrContainerRuntime', reason: 'PortNotFound', message: `nothing listens on port ${port}` } });
      return new Promise((resolve) => {
        const socket = connect(local, '127.0.0.1');
        socket.once('connect', () => resolve({ ok: true, value: socket }));
        socket.once('error', (e) => resolve({ ok: false, error: { _tag: 'ErrContainerRuntime', reason: 'PortNotFound', message: e.message } }));
      });
    },
  };
}

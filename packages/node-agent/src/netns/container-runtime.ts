// The node side of exec, attach, logs and port-forward for the pods of `kubesvc up --dataplane
// netns` (@kubesvc/apiserver's ContainerRuntime, which the pods/exec, attach, log and
// portforward subresources call): a pod is a network namespace of the pod network, its
// "container" the netexec servers of its ports, whose log is the container's log file.
//
// - exec: the command run with `ip netns exec <pod netns>` (which also mounts the pod's
//   resolv.conf), with the environment the kubelet gives a container: the Services' variables
//   (pod-environment.ts), the container's literal `env` values, and HOSTNAME, the pod's name.
//   With a tty the command runs under util-linux `script`, which gives it a pseudo-terminal
//   (stdout then carries both streams, echo included); a resize is not passed on yet.
// - attach: the container's main process is its servers, which read nothing and print their
//   access log: attach streams the log from its end on (as `kubectl attach` shows what the
//   process prints from then on); stdin, when asked for, is read and dropped.
// - logs: the container's log file, each line `<RFC 3339 time> <text>` as the kubelet's CRI
//   log keeps its time, with timestamps, tail, since and limit applied, and follow.
// - portForward: a TCP connection to 127.0.0.1:<port> inside the pod's namespace, made by a
//   small relay child there (`node -e`) piping it to its stdio; a refused connection is
//   PortNotFound.
// upstream (v1.33): pkg/kubelet/kubelet_pods.go (GetContainerLogs: previous, the messages),
//   pkg/kubelet/kuberuntime/logs/logs.go (ReadLogs: tail, since, limitBytes, timestamps, follow),
//   pkg/kubelet/container/helpers.go and kubelet_pods.go (makeEnvironmentVariables: service
//   variables, then the container's env; HOSTNAME is the pod's hostname)
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { Duplex, PassThrough, Readable, Writable } from 'node:stream';
import type { Pod } from '@kubesvc/api-types';
import type { ContainerProcess, ContainerRuntime, ContainerTarget, ErrContainerRuntime, ExecRequest, ExitStatus, LogRequest, RuntimeResult } from '@kubesvc/apiserver';
import type { PodNetwork } from '@kubesvc/netlab';
import { podLogDir } from './pod-sandbox-spec.js';

const SEARCH_PATH = `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin:/usr/bin:/bin`;
/** How often a followed log is read again for new lines. */
const FOLLOW_POLL_MS = 200;

export interface NetnsContainerRuntimeOptions {
  readonly network: PodNetwork;
  /** Where the pods' logs are (`<dataDir>/pods/...`). */
  readonly dataDir: string;
  /** The Services' variables a pod's containers get (the node agent's podEnvironmentOf). */
  readonly environment: (pod: Pod) => readonly { readonly name: string; readonly value: string }[];
  /** Now, for sinceSeconds. Default Date.now. */
  readonly now?: () => number;
}

function fail(reason: ErrContainerRuntime['reason'], message: string): { readonly ok: false; readonly error: ErrContainerRuntime } {
  return { ok: false, error: { _tag: 'ErrContainerRuntime', reason, message } };
}

function containersOf(pod: Pod): readonly Record<string, unknown>[] {
  const list = (pod.spec as Record<string, unknown> | undefined)?.['containers'];
  return Array.isArray(list) ? list.filter((c): c is Record<string, unknown> => typeof c === 'object' && c !== null) : [];
}

/** The container's literal env values (valueFrom is not resolved here). */
function containerEnv(pod: Pod, container: string): { name: string; value: string }[] {
  const c = containersOf(pod).find((x) => x['name'] === container);
  const env = Array.isArray(c?.['env']) ? (c['env'] as unknown[]) : [];
  return env.flatMap((e) => {
    const v = e as { name?: unknown; value?: unknown };
    return typeof v.name === 'string' ? [{ name: v.name, value: typeof v.value === 'string' ? v.value : '' }] : [];
  });
}

/** One argument for `sh -c`, single-quoted. */
function shellQuote(arg: string): string {
  return `'${arg.replace(/'/g, `'\\''`)}'`;
}

function exitOf(code: number | null, signal: NodeJS.Signals | null): ExitStatus {
  return code === null ? { signal: signal ?? 'SIGKILL' } : { exitCode: code };
}

/** One log line: its time and its text. */
interface LogLine {
  readonly time: string;
  readonly text: string;
}

function parseLines(content: string): LogLine[] {
  return content
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => {
      const space = l.indexOf(' ');
      return space < 0 ? { time: '', text: l } : { time: l.slice(0, space), text: l.slice(space + 1) };
    });
}

export function netnsContainerRuntime(options: NetnsContainerRuntimeOptions): ContainerRuntime {
  const now = options.now ?? Date.now;

  /** The pod's namespace, when the network holds this very pod (same uid). */
  const sandboxOf = (pod: Pod): RuntimeResult<string> => {
    const key = `${pod.metadata.namespace ?? 'default'}/${pod.metadata.name ?? ''}`;
    const sandbox = options.network.pod(key);
    if (sandbox === undefined || (pod.metadata.uid !== undefined && sandbox.uid !== pod.metadata.uid)) {
      return fail('ContainerNotRunning', `pod ${JSON.stringify(pod.metadata.name ?? '')} has no running sandbox on node ${JSON.stringify(pod.spec?.nodeName ?? '')}`);
    }
    return { ok: true, value: sandbox.netns };
  };

  const checkContainer = (target: ContainerTarget): RuntimeResult<string> => {
    if (!containersOf(target.pod).some((c) => c['name'] === target.container)) return fail('ContainerNotFound', `container not found (${JSON.stringify(target.container)})`);
    return sandboxOf(target.pod);
  };

  const logFile = (target: ContainerTarget): string => join(podLogDir(options.dataDir, target.pod), `${target.container}.log`);

  const exec = (target: ContainerTarget, request: ExecRequest): Promise<RuntimeResult<ContainerProcess>> => {
    const netns = checkContainer(target);
    if (!netns.ok) return Promise.resolve(netns);
    const env: Record<string, string> = { PATH: SEARCH_PATH, HOSTNAME: target.pod.metadata.name ?? '' };
    for (const v of options.environment(target.pod)) env[v.name] = v.value;
    for (const v of containerEnv(target.pod, target.container)) env[v.name] = v.value;
    // `ip netns exec` execs the command in its own process: the pid is the command's.
    const argv = request.tty ? ['script', '--quiet', '--flush', '--return', '--command', request.command.map(shellQuote).join(' '), '/dev/null'] : [...request.command];
    const child = spawn('ip', ['netns', 'exec', netns.value, ...argv], {
      env,
      stdio: [request.stdin ? 'pipe' : 'ignore', request.stdout ? 'pipe' : 'ignore', request.stderr && !request.tty ? 'pipe' : 'ignore'],
    });
    child.stdin?.on('error', () => undefined);
    const exited = new Promise<ExitStatus>((resolve) => {
      child.on('error', () => resolve({ exitCode: 126 }));
      child.on('close', (code, signal) => resolve(exitOf(code, signal)));
    });
    const process: ContainerProcess = {
      ...(child.stdin === null ? {} : { stdin: child.stdin }),
      ...(child.stdout === null ? {} : { stdout: child.stdout }),
      ...(child.stderr === null ? {} : { stderr: child.stderr }),
      resize: () => undefined,
      exited,
      kill: () => {
        if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
      },
    };
    return Promise.resolve({ ok: true, value: process });
  };

  /** Streams the log file's lines from byte `from` on, until destroyed (or the file goes, with its pod). */
  const follow = (file: string, from: number, format: (line: LogLine) => string, limitBytes: number | undefined): Readable => {
    let offset = from;
    let sent = 0;
    let partial = '';
    const out = new PassThrough();
    const timer = setInterval(() => {
      if (!existsSync(file)) {
        clearInterval(timer);
        out.end();
        return;
      }
      const size = statSync(file).size;
      if (size <= offset) return;
      const chunk = readFileSync(file).subarray(offset, size).toString('utf8');
      offset = size;
      partial += chunk;
      const nl = partial.lastIndexOf('\n');
      if (nl < 0) return;
      let text = parseLines(partial.slice(0, nl + 1)).map(format).join('');
      partial = partial.slice(nl + 1);
      if (limitBytes !== undefined) text = text.slice(0, Math.max(0, limitBytes - sent));
      sent += Buffer.byteLength(text);
      if (text !== '') out.write(text);
      if (limitBytes !== undefined && sent >= limitBytes) {
        clearInterval(timer);
        out.end();
      }
    }, FOLLOW_POLL_MS);
    out.on('close', () => clearInterval(timer));
    return out;
  };

  const logs = (target: ContainerTarget, request: LogRequest): Promise<RuntimeResult<Readable>> => {
    if (!containersOf(target.pod).some((c) => c['name'] === target.container)) return Promise.resolve(fail('ContainerNotFound', `container not found (${JSON.stringify(target.container)})`));
    if (request.previous) return Promise.resolve(fail('ContainerNotFound', `previous terminated container ${JSON.stringify(target.container)} in pod ${JSON.stringify(target.pod.metadata.name ?? '')} not found`));
    const file = logFile(target);
    if (!existsSync(file)) return Promise.resolve(fail('ContainerNotRunning', `container ${JSON.stringify(target.container)} in pod ${JSON.stringify(target.pod.metadata.name ?? '')} is waiting to start: ContainerCreating`));
    const content = readFileSync(file);
    const complete = content.lastIndexOf(0x0a) + 1;
    const since = request.sinceTime !== undefined ? Date.parse(request.sinceTime) : request.sinceSeconds !== undefined ? now() - request.sinceSeconds * 1000 : undefined;
    let lines = parseLines(content.subarray(0, complete).toString('utf8'));
    if (since !== undefined && !Number.isNaN(since)) lines = lines.filter((l) => Date.parse(l.time) >= since);
    if (request.tailLines !== undefined) lines = request.tailLines <= 0 ? [] : lines.slice(-request.tailLines);
    const format = (l: LogLine): string => (request.timestamps ? `${l.time} ${l.text}\n` : `${l.text}\n`);
    let text = lines.map(format).join('');
    if (request.limitBytes !== undefined) text = Buffer.from(text).subarray(0, request.limitBytes).toString('utf8');
    if (!request.follow || (request.limitBytes !== undefined && Buffer.byteLength(text) >= request.limitBytes)) return Promise.resolve({ ok: true, value: Readable.from(text === '' ? [] : [text]) });
    const rest = follow(file, complete, format, request.limitBytes === undefined ? undefined : request.limitBytes - Buffer.byteLength(text));
    const out = new PassThrough();
    out.write(text);
    rest.pipe(out);
    out.on('close', () => rest.destroy());
    return Promise.resolve({ ok: true, value: out });
  };

  const attach = (target: ContainerTarget, request: Omit<ExecRequest, 'command'>): Promise<RuntimeResult<ContainerProcess>> => {
    const netns = checkContainer(target);
    if (!netns.ok) return Promise.resolve(netns);
    if (request.tty) return Promise.resolve(fail('Unavailable', 'a tty is not supported by the netns pods yet: attach without -t'));
    const file = logFile(target);
    const start = existsSync(file) ? statSync(file).size : 0;
    const stdout = request.stdout ? follow(file, start, (l) => `${l.text}\n`, undefined) : undefined;
    let finish: (status: ExitStatus) => void = () => undefined;
    const exited = new Promise<ExitStatus>((resolve) => {
      finish = resolve;
    });
    stdout?.on('end', () => finish({ exitCode: 0 }));
    const stdin = request.stdin ? new Writable({ write: (_chunk, _encoding, done) => done() }) : undefined;
    return Promise.resolve({
      ok: true,
      value: {
        ...(stdin === undefined ? {} : { stdin }),
        ...(stdout === undefined ? {} : { stdout }),
        resize: () => undefined,
        exited,
        kill: () => {
          stdout?.destroy();
          finish({ signal: 'SIGKILL' });
        },
      },
    });
  };

  const portForward = (pod: Pod, port: number): Promise<RuntimeResult<Duplex>> => {
    const netns = sandboxOf(pod);
    if (!netns.ok) return Promise.resolve(netns);
    if (!Number.isInteger(port) || port < 1 || port > 65535) return Promise.resolve(fail('PortNotFound', `invalid port ${port}`));
    // The child says on stderr whether it connected, then pipes the connection to its stdio.
    const script = `const s=require('net').connect({host:'127.0.0.1',port:${port}},()=>{process.stderr.write('connected\\n');process.stdin.pipe(s);s.pipe(process.stdout);});s.on('error',(e)=>{process.stderr.write('error '+e.code+'\\n');process.exit(2);});s.on('close',()=>process.exit(0));process.stdin.on('end',()=>s.end());`;
    const child = spawn('ip', ['netns', 'exec', netns.value, process.execPath, '-e', script], { stdio: ['pipe', 'pipe', 'pipe'], env: { PATH: SEARCH_PATH } });
    child.stdin.on('error', () => undefined);
    return new Promise((resolve) => {
      let said = '';
      const onData = (chunk: Buffer): void => {
        said += chunk.toString('utf8');
        if (!said.includes('\n')) return;
        child.stderr.off('data', onData);
        if (said.startsWith('connected')) {
          const duplex = Duplex.from({ readable: child.stdout, writable: child.stdin });
          duplex.on('close', () => child.kill('SIGKILL'));
          resolve({ ok: true, value: duplex });
        } else {
          child.kill('SIGKILL');
          resolve(fail('PortNotFound', `failed to connect to localhost:${port} inside namespace of pod ${JSON.stringify(pod.metadata.name ?? '')}: ${said.trim()}`));
        }
      };
      child.stderr.on('data', onData);
      child.on('error', (error) => resolve(fail('Unavailable', error.message)));
      child.on('close', () => {
        if (!said.includes('\n')) resolve(fail('Unavailable', `the port-forward relay in ${netns.value} ended: ${said.trim()}`));
      });
    });
  };

  // The kubelet's GetPortForward refuses a pod it runs no sandbox for before any port is named.
  // upstream (v1.33): pkg/kubelet/kubelet_pods.go (GetPortForward: `pod not found ("name_namespace")`)
  const podRunning = (pod: Pod): Promise<RuntimeResult<void>> =>
    Promise.resolve(sandboxOf(pod).ok ? { ok: true, value: undefined } : fail('ContainerNotRunning', `pod not found (${JSON.stringify(`${pod.metadata.name ?? ''}_${pod.metadata.namespace ?? 'default'}`)})`));

  return { exec, attach, logs, portForward, podRunning };
}

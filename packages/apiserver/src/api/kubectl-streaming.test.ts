// The real kubectl's logs, exec and attach against the API server, with a ContainerRuntime that
// runs each command as a plain child process on this host (host-runtime.fixtures.ts), and with
// the default filesContainerRuntime (no container runs: the kubelet's refusals).
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, connect, type Server } from 'node:net';
import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import type { Pod } from '@kubesvc/api-types';
import type { ContainerRuntime } from './container-runtime.js';
import { kubectlHarness } from './kubectl.fixtures.js';
import { filesContainerRuntime } from './streaming/files-runtime.js';
import { hostRuntime, type HostRuntime } from './streaming/host-runtime.fixtures.js';

const LOGS: Record<string, string> = { 'web/web': 'starting\nlistening on :80\n', 'two/a': 'from a\n', 'two/b': 'from b, 1\nfrom b, 2\n' };

// The pod's port 80 is a TCP echo server on 127.0.0.1 (one for the whole file).
let echo: Server;
let echoPort = 0;
beforeAll(async () => {
  echo = createServer((socket) => socket.pipe(socket));
  await new Promise<void>((resolve) => echo.listen(0, '127.0.0.1', resolve));
  echoPort = (echo.address() as { port: number }).port;
});
afterAll(async () => {
  await new Promise<void>((resolve) => echo.close(() => resolve()));
});
const newHost = (): HostRuntime => hostRuntime({ logs: LOGS, ports: (_pod, port) => (port === 80 ? echoPort : undefined) });

let host: HostRuntime = newHost();
let current: ContainerRuntime = host;
// The server's runtime: whichever the test chose, asked at each call.
const switching: ContainerRuntime = {
  exec: (t, r) => current.exec(t, r),
  attach: (t, r) => current.attach(t, r),
  logs: (t, r) => current.logs(t, r),
  portForward: (p, n) => current.portForward(p, n),
  podRunning: (p) => current.podRunning?.(p) ?? Promise.resolve({ ok: true, value: undefined }),
};
const harness = kubectlHarness('streaming', 17, { containerRuntime: () => switching });
const { kubectl, kubectlWithInput } = harness;

const spawned: ChildProcess[] = [];
afterEach(() => {
  for (const c of spawned.splice(0)) c.kill('SIGKILL');
  host = newHost();
  current = host;
});

/** Each phase's container state. */
const STATES: Record<string, object> = {
  Pending: { waiting: { reason: 'ContainerCreating' } },
  Running: { running: { startedAt: '2026-01-01T00:00:00Z' } },
  Succeeded: { terminated: { exitCode: 0, reason: 'Completed' } },
};

async function createPod(name: string, containers: readonly string[], options: { nodeName?: string; phase?: string; labels?: Record<string, string> } = {}): Promise<void> {
  const registry = harness.registry();
  const pod = {
    apiVersion: 'v1' as const,
    kind: 'Pod' as const,
    metadata: { name, namespace: 'default', ...(options.labels === undefined ? {} : { labels: options.labels }) },
    spec: { ...(options.nodeName === undefined ? {} : { nodeName: options.nodeName }), containers: containers.map((c) => ({ name: c, image: 'registry.k8s.io/pause:3.10' })) },
  };
  const created = await registry.create('pods', 'default', pod);
  if (!created.ok) throw new Error(created.error.message);
  const phase = options.phase ?? 'Running';
  const stored = created.value as Pod;
  const updated = await registry.updateStatus('pods', 'default', name, {
    ...stored,
    status: {
      phase,
      containerStatuses: containers.map((c) => ({ name: c, image: 'registry.k8s.io/pause:3.10', imageID: '', ready: phase === 'Running', restartCount: 0, state: STATES[phase] })),
    },
  } as Pod);
  if (!updated.ok) throw new Error(updated.error.message);
}

describe('kubectl exec over WebSocket', () => {
  it('kubectl exec pod -- echo hi prints hi and exits 0', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectl('exec', 'web', '--', 'echo', 'hi');
    expect(run, run.stderr).toMatchObject({ code: 0, stdout: 'hi\n' });
    expect(host.execs.map((e) => e.command)).toEqual([['echo', 'hi']]);
  });

  it("a command's exit code is kubectl's, with `command terminated with exit code 3`", async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectl('exec', 'web', '--', 'sh', '-c', 'exit 3');
    expect(run.code).toBe(3);
    expect(run.stderr).toContain('command terminated with exit code 3');
  });

  it('stdin reaches the command (exec -i) and its end ends the command', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectlWithInput('data\n', 'exec', '-i', 'web', '--', 'cat');
    expect(run, run.stderr).toMatchObject({ code: 0, stdout: 'data\n' });
  });

  it('a large output arrives whole (the process is paused while the client lags, not cut)', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectl('exec', 'web', '--', 'sh', '-c', 'head -c 3000000 /dev/zero | tr "\\0" a');
    expect(run.code, run.stderr).toBe(0);
    expect(run.stdout.length).toBe(3_000_000);
    expect(/^a+$/.test(run.stdout)).toBe(true);
  });

  it('stdout and stderr come back on their own streams', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectl('exec', 'web', '--', 'sh', '-c', 'echo out; echo err >&2');
    expect(run).toEqual({ code: 0, stdout: 'out\n', stderr: 'err\n' });
  });

  it('a pod that has completed is refused before any stream (kubectl: current phase is Succeeded)', async () => {
    await createPod('done', ['web'], { nodeName: 'node-a', phase: 'Succeeded' });
    const run = await kubectl('exec', 'done', '--', 'true');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: cannot exec into a container in a completed pod; current phase is Succeeded\n');
    expect(host.execs).toEqual([]);
  });

  it('a container the pod does not have is refused with upstream`s BadRequest', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectl('exec', 'web', '-c', 'nope', '--', 'true');
    expect(run).toEqual({ code: 1, stdout: '', stderr: 'Error from server (BadRequest): container nope is not valid for pod web\n' });
    expect(host.execs).toEqual([]);
  });

  it('a pod on no node is refused with upstream`s BadRequest', async () => {
    await createPod('pending', ['web'], { phase: 'Pending' });
    const run = await kubectl('exec', 'pending', '--', 'true');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('Error from server (BadRequest): pod pending does not have a host assigned\n');
  });

  it('with no container running (filesContainerRuntime) the kubelet`s refusal comes back', async () => {
    current = filesContainerRuntime;
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectl('exec', 'web', '--', 'true');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe('error: unable to upgrade connection: container not found ("web")\n');
  });

  it('kubectl attach -i reaches the main process (here cat) and its stdin', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectlWithInput('hello\n', 'attach', '-i', 'web', '-q');
    expect(run, run.stderr).toMatchObject({ code: 0, stdout: 'hello\n' });
    expect(host.running()).toBe(0);
  });
});

describe('kubectl logs', () => {
  it('prints the container`s log; --tail=1 its last line', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    expect(await kubectl('logs', 'web')).toMatchObject({ code: 0, stdout: 'starting\nlistening on :80\n' });
    expect(await kubectl('logs', 'web', '--tail=1')).toMatchObject({ code: 0, stdout: 'listening on :80\n' });
    expect(await kubectl('logs', 'web', '--limit-bytes=4')).toMatchObject({ code: 0, stdout: 'star' });
  });

  it('passes --timestamps, --since and --previous on to the node', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    await kubectl('logs', 'web', '--timestamps', '--since=1h', '--previous');
    expect(host.logRequests).toEqual([{ follow: false, previous: true, timestamps: true, sinceSeconds: 3600 }]);
  });

  it('logs -f streams until kubectl goes away, and then the node`s stream is closed', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const child = spawn('/usr/bin/kubectl', ['logs', '-f', 'web'], { env: { ...process.env, ...harness.env() }, stdio: ['ignore', 'pipe', 'pipe'] });
    spawned.push(child);
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
    for (let i = 0; i < 400 && out !== 'starting\nlistening on :80\n'; i++) await new Promise((r) => setTimeout(r, 50));
    expect(out).toBe('starting\nlistening on :80\n');
    expect(host.openFollows()).toBe(1);
    child.kill('SIGTERM');
    for (let i = 0; i < 400 && host.openFollows() !== 0; i++) await new Promise((r) => setTimeout(r, 50));
    expect(host.openFollows()).toBe(0);
  });

  it('-c picks a container; with none named, two containers are upstream`s BadRequest', async () => {
    await createPod('two', ['a', 'b'], { nodeName: 'node-a' });
    expect(await kubectl('logs', 'two', '-c', 'b')).toMatchObject({ code: 0, stdout: 'from b, 1\nfrom b, 2\n' });
    const raw = await kubectl('get', '--raw', '/api/v1/namespaces/default/pods/two/log');
    expect(raw.code).toBe(1);
    expect(raw.stderr).toBe('Error from server (BadRequest): a container name must be specified for pod two, choose one of: [a b]\n');
    const wrong = await kubectl('get', '--raw', '/api/v1/namespaces/default/pods/two/log?container=c');
    expect(wrong.stderr).toBe('Error from server (BadRequest): container c is not valid for pod two\n');
  });

  it('invalid options are a 422 PodLogOptions', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectl('get', '--raw', '/api/v1/namespaces/default/pods/web/log?tailLines=-1&limitBytes=0');
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(
      'The PodLogOptions "web" is invalid: \n* tailLines: Invalid value: -1: must be greater than or equal to 0\n* limitBytes: Invalid value: 0: must be greater than 0\n',
    );
  });

  it('a pod on no node has an empty log', async () => {
    await createPod('pending', ['web'], { phase: 'Pending' });
    expect(await kubectl('logs', 'pending')).toMatchObject({ code: 0, stdout: '' });
  });

  it('with no container running (filesContainerRuntime): the kubelet`s text as the log of a running container, its 400 for a waiting one', async () => {
    current = filesContainerRuntime;
    await createPod('web', ['web'], { nodeName: 'node-a' });
    expect(await kubectl('logs', 'web')).toMatchObject({ code: 0, stdout: 'unable to retrieve container logs for ://' });
    await createPod('pending', ['web'], { nodeName: 'node-a', phase: 'Pending' });
    const pending = await kubectl('logs', 'pending');
    expect(pending.code).toBe(1);
    expect(pending.stderr).toBe('Error from server (BadRequest): container "web" in pod "pending" is waiting to start: ContainerCreating\n');
  });
});

/** Starts `kubectl port-forward ...args` and resolves with the local port it prints once it listens. */
async function portForward(env: Record<string, string>, ...args: string[]): Promise<{ port: number; output: () => string }> {
  const child = spawn('/usr/bin/kubectl', ['port-forward', ...args], { env: { ...process.env, ...harness.env(), ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  spawned.push(child);
  let out = '';
  child.stdout.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr.setEncoding('utf8').on('data', (c: string) => (out += c));
  for (let i = 0; i < 400; i++) {
    const m = /Forwarding from 127\.0\.0\.1:(\d+) ->/.exec(out);
    if (m !== null) return { port: Number(m[1]), output: () => out };
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`kubectl port-forward did not listen; it printed:\n${out}`);
}

/** Sends `text` through 127.0.0.1:port, half-closes, and gives all that came back. */
function roundTrip(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let got = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => {
      got += c;
      if (got.length >= text.length) socket.end();
    });
    socket.once('connect', () => socket.write(text));
    socket.once('close', () => resolve(got));
    socket.once('error', reject);
  });
}

describe('kubectl port-forward', () => {
  // kubectl 1.30+ tunnels SPDY in a WebSocket; with the PortForwardWebsockets gate off it
  // upgrades to SPDY/3.1 directly (what it also falls back to when the WebSocket upgrade fails).
  for (const [how, env, tunnelled] of [
    ['SPDY tunnelled in a WebSocket', {}, true],
    ['plain SPDY/3.1', { KUBECTL_PORT_FORWARD_WEBSOCKETS: 'false' }, false],
  ] as const) {
    it(`pod/web :80 carries bytes both ways, over several connections (${how})`, async () => {
      await createPod('web', ['web'], { nodeName: 'node-a' });
      const { port, output } = await portForward(env, 'pod/web', ':80', '-v=4');
      expect(await roundTrip(port, 'ping\n'), output()).toBe('ping\n');
      const big = 'x'.repeat(4_000_000);
      expect(await roundTrip(port, big), output()).toBe(big);
      expect(await roundTrip(port, 'pong\n'), output()).toBe('pong\n');
      expect(output()).toContain('Handling connection for');
      expect(output()).not.toMatch(/error|Unhandled/i);
      // At -v=4 the tunnelling dialer says what it negotiated; the plain SPDY dialer says nothing.
      expect(output().includes('tunneling_dialer.go') && output().includes('negotiated protocol: portforward.k8s.io')).toBe(tunnelled);
    });
  }

  it('a port nothing listens on: the kubelet`s error on the error stream, and kubectl gives up', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const { port, output } = await portForward({}, 'pod/web', ':81');
    expect(await roundTrip(port, 'ping\n')).toBe('');
    let seen = '';
    for (let i = 0; i < 200 && !seen.includes('error forwarding port 81'); i++) {
      seen = output();
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(seen).toContain('error forwarding port 81 to pod ');
    expect(seen).toContain('nothing listens on port 81');
  });

  it('with no container running (filesContainerRuntime): the kubelet`s refusal before the upgrade', async () => {
    current = filesContainerRuntime;
    await createPod('web', ['web'], { nodeName: 'node-a' });
    const run = await kubectl('port-forward', 'pod/web', ':80');
    expect(run).toMatchObject({ code: 1, stderr: 'error: error upgrading connection: unable to upgrade connection: pod not found ("web_default")\n' });
  });

  it('svc/web: kubectl resolves the Service to a pod and its port to the target port', async () => {
    await createPod('web', ['web'], { nodeName: 'node-a', labels: { app: 'web' } });
    const created = await harness.registry().create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { selector: { app: 'web' }, ports: [{ port: 8080, targetPort: 80 }] } });
    if (!created.ok) throw new Error(created.error.message);
    const { port, output } = await portForward({}, 'svc/web', ':8080');
    expect(await roundTrip(port, 'through the service\n'), output()).toBe('through the service\n');
  });
});

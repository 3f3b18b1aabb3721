// The node side of exec, attach, logs and port-forward for a pod of the pod network, against a
// real namespace: exec with the kubelet's environment and the pod's resolv.conf, stdin, a tty
// and exit codes; the container log with tail, timestamps, limit and follow; port-forward to a server of
// the pod and PortNotFound where nothing listens. Needs root and iproute2, like every lab test.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Readable } from 'node:stream';
import type { Pod } from '@kubesvc/api-types';
import type { ContainerProcess, ContainerRuntime } from '@kubesvc/apiserver';
import { PodNetwork, podNetworkPrefix } from '@kubesvc/netlab';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { netnsContainerRuntime } from './container-runtime.js';
import { podLogDir } from './pod-sandbox-spec.js';

const POD: Pod = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web-0', namespace: 'default', uid: 'u-web-0' },
  spec: { nodeName: 'vm', containers: [{ name: 'web', ports: [{ containerPort: 80 }], env: [{ name: 'GREETING', value: 'hello' }] }] } as Pod['spec'],
  status: { podIP: '10.244.0.5' },
};

async function text(stream: Readable | undefined): Promise<string> {
  let out = '';
  for await (const chunk of stream ?? []) out += String(chunk);
  return out;
}

async function run(p: ContainerProcess, input?: string): Promise<{ out: string; err: string; status: unknown }> {
  if (input !== undefined) p.stdin?.end(input);
  const [out, err] = await Promise.all([text(p.stdout), text(p.stderr)]);
  return { out, err, status: await p.exited };
}

describe('netnsContainerRuntime on a pod of the pod network', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'netns-runtime-'));
  let network: PodNetwork | undefined;
  let runtime: ContainerRuntime | undefined;
  const rt = (): ContainerRuntime => {
    if (runtime === undefined) throw new Error('the pod network was not made (see the beforeAll error)');
    return runtime;
  };
  const target = { pod: POD, container: 'web' };

  beforeAll(async () => {
    network = await PodNetwork.create({ prefix: podNetworkPrefix(`runtime ${process.pid}`), nodes: [{ name: 'vm', podCIDR: '10.244.0.0/24' }], hostAddresses: ['192.0.2.10'] });
    const logDir = podLogDir(dataDir, POD);
    mkdirSync(logDir, { recursive: true });
    await network.addPod({
      namespace: 'default',
      name: 'web-0',
      uid: 'u-web-0',
      node: 'vm',
      ip: '10.244.0.5',
      resolvConf: 'search default.svc.cluster.local\nnameserver 10.96.0.10\n',
      containers: [{ name: 'web', log: join(logDir, 'web.log'), ports: [{ port: 80, protocol: 'TCP', http: true }] }],
    });
    runtime = netnsContainerRuntime({ network, dataDir, environment: () => [{ name: 'KUBERNETES_SERVICE_HOST', value: '10.96.0.1' }] });
  }, 60_000);

  afterAll(async () => {
    if (network !== undefined) expect(await network.teardownAndCheck()).toEqual({ namespaces: [], links: [], processes: [] });
    rmSync(dataDir, { recursive: true, force: true });
  });

  test('exec runs in the pod\'s namespace with the Services\' variables, the container\'s env, HOSTNAME and its resolv.conf', async () => {
    const started = await rt().exec(target, { command: ['sh', '-c', 'echo $KUBERNETES_SERVICE_HOST $GREETING $HOSTNAME; ip -o -4 addr show eth0 | grep -o "10\\.244\\.0\\.5/24"; cat /etc/resolv.conf; echo oops >&2; exit 3'], stdin: false, stdout: true, stderr: true, tty: false });
    if (!started.ok) throw new Error(started.error.message);
    expect(await run(started.value)).toEqual({ out: '10.96.0.1 hello web-0\n10.244.0.5/24\nsearch default.svc.cluster.local\nnameserver 10.96.0.10\n', err: 'oops\n', status: { exitCode: 3 } });
  });

  test('exec passes stdin; with a tty the command runs on a terminal; an unknown container is ContainerNotFound', async () => {
    const started = await rt().exec(target, { command: ['cat'], stdin: true, stdout: true, stderr: false, tty: false });
    if (!started.ok) throw new Error(started.error.message);
    expect(await run(started.value, 'through stdin\n')).toEqual({ out: 'through stdin\n', err: '', status: { exitCode: 0 } });
    const tty = await rt().exec(target, { command: ['sh', '-c', 'read x; echo "got $x"; tty >/dev/null && echo on a tty; exit 4'], stdin: true, stdout: true, stderr: true, tty: true });
    if (!tty.ok) throw new Error(tty.error.message);
    expect(tty.value.stderr).toBeUndefined();
    const onTty = await run(tty.value, "it's me\n");
    expect(onTty.status).toEqual({ exitCode: 4 });
    // A terminal echoes the input and ends lines with CR LF.
    expect(onTty.out.replace(/\r\n/g, '\n')).toBe("it's me\ngot it's me\non a tty\n");
    const missing = await rt().exec({ pod: POD, container: 'nope' }, { command: ['true'], stdin: false, stdout: true, stderr: false, tty: false });
    expect(missing.ok ? undefined : missing.error).toEqual({ _tag: 'ErrContainerRuntime', reason: 'ContainerNotFound', message: 'container not found ("nope")' });
  });

  test('port-forward reaches the pod\'s server on 127.0.0.1:80 there, and a port nothing listens on is PortNotFound', async () => {
    const forwarded = await rt().portForward(POD, 80);
    if (!forwarded.ok) throw new Error(forwarded.error.message);
    const duplex = forwarded.value;
    duplex.end('GET /hostname HTTP/1.0\r\n\r\n');
    const answer = await text(duplex);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer.endsWith('\r\n\r\nweb-0')).toBe(true);
    const refused = await rt().portForward(POD, 81);
    expect(refused.ok ? undefined : refused.error.reason).toBe('PortNotFound');
  });

  test('logs: the requests as lines, with timestamps, tail and limitBytes; follow carries a new request', async () => {
    const all = await rt().logs(target, { follow: false, previous: false, timestamps: false });
    if (!all.ok) throw new Error(all.error.message);
    const lines = (await text(all.value)).split('\n').filter((l) => l !== '');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toBe('listening on TCP 80 (HTTP)');
    expect(lines[1]).toMatch(/^GET \/hostname from 127\.0\.0\.1:\d+: 200$/);
    const stamped = await rt().logs(target, { follow: false, previous: false, timestamps: true, tailLines: 1 });
    if (!stamped.ok) throw new Error(stamped.error.message);
    expect(await text(stamped.value)).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z GET \/hostname from 127\.0\.0\.1:\d+: 200\n$/);
    const limited = await rt().logs(target, { follow: false, previous: false, timestamps: false, limitBytes: 9 });
    if (!limited.ok) throw new Error(limited.error.message);
    expect(await text(limited.value)).toBe('listening');
    const previous = await rt().logs(target, { follow: false, previous: true, timestamps: false });
    expect(previous.ok ? undefined : previous.error.reason).toBe('ContainerNotFound');

    const followed = await rt().logs(target, { follow: true, previous: false, timestamps: false, tailLines: 0 });
    if (!followed.ok) throw new Error(followed.error.message);
    const seen = new Promise<string>((resolve) => {
      let got = '';
      followed.value.on('data', (chunk: Buffer) => {
        got += chunk.toString('utf8');
        if (got.includes('/echo')) resolve(got);
      });
    });
    const forwarded = await rt().portForward(POD, 80);
    if (!forwarded.ok) throw new Error(forwarded.error.message);
    forwarded.value.end('GET /echo?msg=hi HTTP/1.0\r\n\r\n');
    expect((await text(forwarded.value)).endsWith('hi')).toBe(true);
    expect(await seen).toMatch(/^GET \/echo\?msg=hi from 127\.0\.0\.1:\d+: 200\n$/);
    followed.value.destroy();
  });
});

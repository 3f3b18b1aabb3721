// The remote-command protocol on the wire, with a WebSocket client speaking as client-go does:
// the channel bytes, v5's close signal, the error channel's Status, the protocol negotiation,
// the end of a process when its client goes away, and how the requests are recorded (CONNECT,
// 101 for an upgraded exec as upstream's response delegator records a hijack).
import { request } from 'node:http';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { openMemoryStore, type Store, systemClock } from '@kubesvc/store';
import { openRegistry, type Registry } from '../../registry/registry.js';
import { createApiServerMetrics, type ApiServerMetrics } from '../../metrics/apiserver-metrics.js';
import { startApiServer, type ApiServer } from '../server.js';
import { hostRuntime, type HostRuntime } from './host-runtime.fixtures.js';

const TOKEN = 'remote-command-token';
let store: Store;
let registry: Registry;
let server: ApiServer;
let runtime: HostRuntime;
let metrics: ApiServerMetrics;
const open: WebSocket[] = [];

beforeEach(async () => {
  store = openMemoryStore();
  const opened = await openRegistry({ store, clock: systemClock, seed: 5, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  const pod = { apiVersion: 'v1' as const, kind: 'Pod' as const, metadata: { name: 'web', namespace: 'default' }, spec: { nodeName: 'node-a', containers: [{ name: 'web', image: 'nginx' }] } };
  const created = await registry.create('pods', 'default', pod);
  if (!created.ok) throw new Error(created.error.message);
  runtime = hostRuntime({ logs: { 'web/web': 'one\ntwo\n' } });
  metrics = createApiServerMetrics();
  server = await startApiServer({ registry, token: TOKEN, containerRuntime: runtime, metrics });
});

afterEach(async () => {
  for (const ws of open.splice(0)) ws.terminate();
  await server.close();
  await store.close();
});

interface Session {
  readonly ws: WebSocket;
  /** Every message received, as [channel, bytes]. */
  readonly frames: [number, Buffer][];
  readonly closed: Promise<number>;
}

function execUrl(command: readonly string[], flags: string): string {
  const query = [...command.map((c) => `command=${encodeURIComponent(c)}`), flags].join('&');
  return `${server.url.replace(/^http/, 'ws')}/api/v1/namespaces/default/pods/web/exec?${query}`;
}

/** Opens the WebSocket; resolves once upgraded, or rejects with the refusal's status and body. */
function connect(url: string, protocols: readonly string[], token = TOKEN): Promise<Session> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, [...protocols], { headers: { Authorization: `Bearer ${token}` } });
    open.push(ws);
    const frames: [number, Buffer][] = [];
    const closed = new Promise<number>((r) => ws.once('close', (code) => r(code)));
    ws.on('message', (data: Buffer) => frames.push([data[0] ?? -1, data.subarray(1)]));
    ws.once('open', () => resolve({ ws, frames, closed }));
    ws.once('unexpected-response', (_req, res) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (body += c));
      res.on('end', () => reject(new Error(`${res.statusCode ?? 0} ${body}`)));
    });
    ws.once('error', (e) => reject(e));
  });
}

const text = (frames: [number, Buffer][], channel: number): string =>
  Buffer.concat(frames.filter(([c]) => c === channel).map(([, b]) => b)).toString('utf8');

async function poll<T>(what: string, read: () => T | Promise<T>, done: (v: T) => boolean): Promise<T> {
  let last: T | undefined;
  for (let i = 0; i < 400; i++) {
    last = await read();
    if (done(last)) return last;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`${what}: last seen ${JSON.stringify(last)}`);
}

describe('exec over WebSocket', () => {
  it('v5: stdin until the close signal, stdout and stderr on their channels, then the exit code as a NonZeroExitCode Status and a normal closure', async () => {
    const s = await connect(execUrl(['sh', '-c', 'cat; echo err >&2; exit 2'], 'stdin=true&stdout=true&stderr=true'), ['v5.channel.k8s.io', 'v4.channel.k8s.io']);
    expect(s.ws.protocol).toBe('v5.channel.k8s.io');
    s.ws.send(Buffer.concat([Buffer.of(0), Buffer.from('abc')]));
    s.ws.send(Buffer.of(255, 0));
    expect(await s.closed).toBe(1000);
    // The first message is the empty one on the lowest writable channel (stdout).
    expect(s.frames[0]).toEqual([1, Buffer.alloc(0)]);
    expect(text(s.frames, 1)).toBe('abc');
    expect(text(s.frames, 2)).toBe('err\n');
    expect(JSON.parse(text(s.frames, 3))).toEqual({
      metadata: {},
      status: 'Failure',
      message: 'command terminated with non-zero exit code: error executing command [sh -c cat; echo err >&2; exit 2], exit code 2',
      reason: 'NonZeroExitCode',
      details: { causes: [{ reason: 'ExitCode', message: '2' }] },
    });
  });

  it('v4 when the client offers only v4: a Success Status for exit code 0', async () => {
    const s = await connect(execUrl(['true'], 'stdout=true'), ['v4.channel.k8s.io']);
    expect(s.ws.protocol).toBe('v4.channel.k8s.io');
    expect(await s.closed).toBe(1000);
    expect(JSON.parse(text(s.frames, 3))).toEqual({ metadata: {}, status: 'Success' });
  });

  it('a client that offers no protocol this server speaks is refused before the upgrade', async () => {
    await expect(connect(execUrl(['true'], 'stdout=true'), ['channel.k8s.io'])).rejects.toThrow('400 requested protocol(s) are not supported: [channel.k8s.io]; supports [v5.channel.k8s.io v4.channel.k8s.io]');
    expect(runtime.execs).toEqual([]);
  });

  it('no stream asked for, or no command, is refused as the kubelet refuses it', async () => {
    await expect(connect(execUrl(['true'], 'tty=false'), ['v5.channel.k8s.io'])).rejects.toThrow('400 you must specify at least 1 of stdin, stdout, stderr');
    await expect(connect(execUrl([], 'stdout=true'), ['v5.channel.k8s.io'])).rejects.toThrow('400 you must specify at least 1 command');
  });

  it('a wrong token is a 401 before anything is looked up', async () => {
    await expect(connect(execUrl(['true'], 'stdout=true'), ['v5.channel.k8s.io'], 'wrong')).rejects.toThrow(/^401 .*"reason":"Unauthorized"/);
  });

  it('a handshake ws refuses (a WebSocket version it does not speak) ends the process it was for', async () => {
    const status = await new Promise<number>((resolve, reject) => {
      const req = request(execUrl(['sleep', '30'], 'stdout=true').replace(/^ws/, 'http'), {
        headers: {
          Authorization: `Bearer ${TOKEN}`,
          Connection: 'Upgrade',
          Upgrade: 'websocket',
          'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
          'Sec-WebSocket-Version': '7',
          'Sec-WebSocket-Protocol': 'v5.channel.k8s.io',
        },
      });
      req.once('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.once('upgrade', () => reject(new Error('upgraded')));
      req.once('error', reject);
      req.end();
    });
    expect(status).toBe(400);
    expect(runtime.execs.map((e) => e.command)).toEqual([['sleep', '30']]);
    await poll('no process left', () => runtime.running(), (n) => n === 0);
  });

  it('the process is killed when its client goes away', async () => {
    const s = await connect(execUrl(['sleep', '30'], 'stdout=true'), ['v5.channel.k8s.io']);
    await poll('the sleep running', () => runtime.running(), (n) => n === 1);
    s.ws.terminate();
    await poll('no process left', () => runtime.running(), (n) => n === 0);
  });
});

describe('routes and metrics', () => {
  const call = async (method: string, path: string): Promise<{ status: number; text: string }> => {
    const res = await fetch(`${server.url}${path}`, { method, headers: { Authorization: `Bearer ${TOKEN}` } });
    return { status: res.status, text: await res.text() };
  };

  it('log takes GET only, exec GET and POST; exec without an upgrade is refused', async () => {
    expect((await call('POST', '/api/v1/namespaces/default/pods/web/log')).status).toBe(405);
    expect((await call('PUT', '/api/v1/namespaces/default/pods/web/exec?command=true&stdout=1')).status).toBe(405);
    const plain = await call('POST', '/api/v1/namespaces/default/pods/web/exec?command=true&stdout=1');
    expect(plain.status).toBe(400);
    expect(JSON.parse(plain.text)).toMatchObject({ kind: 'Status', reason: 'BadRequest', code: 400, message: 'Upgrade request required' });
    expect(runtime.execs).toEqual([]);
    expect((await call('GET', '/api/v1/namespaces/default/pods/nope/log')).status).toBe(404);
  });

  it('an upgrade asked of any other path gets that path`s ordinary answer, and the connection closes', async () => {
    const url = `${server.url.replace(/^http/, 'ws')}/api/v1/namespaces/default/pods/web`;
    await expect(connect(url, ['v5.channel.k8s.io'])).rejects.toThrow(/^200 \{"apiVersion":"v1","kind":"Pod"/);
    await expect(connect(`${server.url.replace(/^http/, 'ws')}/api/v1/nothing`, ['v5.channel.k8s.io'])).rejects.toThrow(/^404 /);
  });

  it('records log and exec as CONNECT, an upgraded exec with code 101 once it closed', async () => {
    expect(await call('GET', '/api/v1/namespaces/default/pods/web/log')).toEqual({ status: 200, text: 'one\ntwo\n' });
    const s = await connect(execUrl(['true'], 'stdout=true'), ['v5.channel.k8s.io']);
    await s.closed;
    const exposition = async (): Promise<string> => (await metrics.exposition()).text;
    const line = (subresource: string, code: string) => new RegExp(`^apiserver_request_total\\{(?=[^}]*verb="CONNECT")(?=[^}]*subresource="${subresource}")(?=[^}]*code="${code}")(?=[^}]*resource="pods")[^}]*\\} 1$`, 'm');
    await poll('exec recorded', exposition, (t) => line('exec', '101').test(t));
    expect(await exposition()).toMatch(line('log', '200'));
  });
});

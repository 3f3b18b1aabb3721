// The acceptance path of `kubesvc up --proxy-mode userspace`: a Service without a selector,
// manual Endpoints naming a real HTTP server, and `curl 127.0.0.1:<proxy port>` answered by
// that server.
//
// Endpoints validation refuses loopback addresses (upstream's ValidateEndpoints does), so the
// HTTP server needs another address of this host. The test makes its own network namespace
// with lo up and a veth interface holding 10.244.1.10/32, and runs everything in it through
// `ip netns exec`: the real bin, the HTTP server bound to 10.244.1.10, the real kubectl and the
// real curl. CI runs as root, which `ip netns add` needs; without root the test fails saying so.
// The namespace, and every process in it, is removed after the test, on failure too.
// @needs-root: makes a network namespace (ip netns add) for the userspace proxy; testkit root-only.ts refuses a run without root that selects it.
import { execFile, spawnSync, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { leftovers, processRunning } from '@kubesvc/netlab';
import { afterEach, describe, expect, it } from 'vitest';
import { runBin } from '../run-bin.fixtures.js';
import { startProcess, upArgs, type RunningUp } from './up.fixtures.js';

const exec = promisify(execFile);
const PATH = `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin:/usr/bin:/bin`;
const PREFIX = 'kscli';
const POD_IP = '10.244.1.10';

const children = new Set<ChildProcess>();
const namespaces: string[] = [];
const dirs: string[] = [];

function ip(...args: string[]): string {
  const r = spawnSync('ip', args, { encoding: 'utf8', timeout: 20_000, env: { ...process.env, PATH } });
  if (r.status !== 0) throw new Error(`ip ${args.join(' ')} failed (exit ${String(r.status)}): ${r.stderr || r.error?.message || ''}`);
  return r.stdout;
}

/** A fresh namespace with lo up and POD_IP on an interface of its own. */
function makeNamespace(): string {
  if (typeof process.getuid === 'function' && process.getuid() !== 0) {
    throw new Error('this test creates a network namespace (ip netns add), which needs root: run it as root, as CI does');
  }
  const name = `${PREFIX}${randomBytes(4).toString('hex')}`;
  ip('netns', 'add', name);
  namespaces.push(name);
  ip('-n', name, 'link', 'set', 'lo', 'up');
  // A veth pair, both ends in the namespace (not every kernel has the dummy module).
  ip('-n', name, 'link', 'add', 'pod0', 'type', 'veth', 'peer', 'name', 'pod1');
  ip('-n', name, 'addr', 'add', `${POD_IP}/32`, 'dev', 'pod0');
  ip('-n', name, 'link', 'set', 'pod0', 'up');
  ip('-n', name, 'link', 'set', 'pod1', 'up');
  return name;
}

/** Every process still in the namespace is killed, then the namespace goes. */
function removeNamespace(name: string): void {
  const pids = spawnSync('ip', ['netns', 'pids', name], { encoding: 'utf8', env: { ...process.env, PATH } }).stdout ?? '';
  for (const pid of pids.split('\n').filter((p) => /^\d+$/.test(p))) {
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Gone already.
    }
  }
  spawnSync('ip', ['netns', 'del', name], { env: { ...process.env, PATH } });
}

afterEach(() => {
  for (const c of children) c.kill('SIGKILL');
  children.clear();
  for (const ns of namespaces.splice(0)) removeNamespace(ns);
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kubesvc-userspace-'));
  dirs.push(d);
  return d;
}

/** `ip netns exec NS ...command`, its output collected, until `ready(stdout)` holds (bounded). */
function startIn(ns: string, command: readonly string[], ready: (out: string) => boolean, what: string): Promise<RunningUp> {
  return startProcess(children, 'ip', ['netns', 'exec', ns, ...command], ready, what, { ...process.env, PATH });
}

async function inNamespace(ns: string, command: readonly string[]): Promise<string> {
  const { stdout } = await exec('ip', ['netns', 'exec', ns, ...command], { timeout: 30_000, env: { ...process.env, PATH } });
  return stdout;
}

/** The HTTP server of the "pod": answers every request with a line naming itself. */
const SERVER = `
const server = require('node:http').createServer((req, res) => res.end('hello from the pod at ${POD_IP}, ' + req.method + ' ' + req.url + '\\n'));
server.listen(0, '${POD_IP}', () => console.log('listening ' + server.address().port));
`;

interface ProxyPortRow {
  readonly servicePort: string;
  readonly listenPort: number;
  readonly host: string;
  readonly endpoints: readonly string[];
}

/** The row of default/echo:http in proxy-ports.json once `until` holds for it (bounded: 20 s). */
async function echoPort(dataDir: string, until: (row: ProxyPortRow) => boolean, what: string, up: RunningUp): Promise<ProxyPortRow> {
  const deadline = Date.now() + 20_000;
  for (;;) {
    let rows: ProxyPortRow[] = [];
    try {
      rows = JSON.parse(readFileSync(join(dataDir, 'proxy-ports.json'), 'utf8')) as ProxyPortRow[];
    } catch {
      // Not written yet, or caught mid-rename.
    }
    const row = rows.find((r) => r.servicePort === 'default/echo:http');
    if (row !== undefined && until(row)) return row;
    if (Date.now() > deadline) throw new Error(`no proxy port for default/echo:http ${what} within 20 s:\n${up.stderr()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('kubesvc up --proxy-mode userspace', () => {
  it("curl 127.0.0.1:<proxy port> gets the answer of the HTTP server a Service's manual Endpoints point at", async () => {
    const ns = makeNamespace();
    const dataDir = tempDir();
    const cache = tempDir();

    const server = await startIn(ns, [process.execPath, '-e', SERVER], (out) => /listening \d+\n/.test(out), 'the HTTP server');
    const serverPort = Number(/listening (\d+)/.exec(server.stdout())?.[1]);

    const up = await startIn(
      ns,
      [process.execPath, ...upArgs(dataDir, ['--proxy-mode', 'userspace'])],
      (out) => out.includes('Ctrl-C stops it'),
      'kubesvc up',
    );
    expect(up.stdout()).toContain(`kube-proxy       userspace: kubesvc proxy-ports --data-dir ${dataDir}`);

    // A Service without a selector: the endpoints controller leaves its Endpoints to the user,
    // and the EndpointSlice mirroring controller turns them into the slice the proxy reads.
    const kubeconfig = join(dataDir, 'kubeconfig');
    const manifest = join(cache, 'echo.json');
    writeFileSync(
      manifest,
      JSON.stringify({
        apiVersion: 'v1',
        kind: 'List',
        items: [
          { apiVersion: 'v1', kind: 'Service', metadata: { name: 'echo', namespace: 'default' }, spec: { ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: serverPort }] } },
          { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'echo', namespace: 'default' }, subsets: [{ addresses: [{ ip: POD_IP }], ports: [{ name: 'http', port: serverPort, protocol: 'TCP' }] }] },
        ],
      }),
    );
    const created = await inNamespace(ns, ['/usr/bin/kubectl', '--kubeconfig', kubeconfig, `--cache-dir=${cache}`, 'create', '-f', manifest]);
    expect(created).toBe('service/echo created\nendpoints/echo created\n');

    // The proxy opens its port for default/echo:http once the mirrored slice reaches the agent.
    // kubesvc up keeps the list in <data-dir>/proxy-ports.json (polled here, cheaply), which
    // kubesvc proxy-ports prints.
    const echo = await echoPort(dataDir, (r) => r.endpoints.length > 0, 'with endpoints', up);
    const listed = await runBin(['proxy-ports', '--data-dir', dataDir, '-o', 'json'], { timeoutMs: 30_000 });
    expect(listed.code).toBe(0);
    const row = (JSON.parse(listed.stdout) as { proxyPorts: ProxyPortRow[] }).proxyPorts.find((r) => r.servicePort === 'default/echo:http');
    if (row === undefined) throw new Error(`kubesvc proxy-ports has no default/echo:http:\n${listed.stdout}`);
    expect(row.listenPort).toBe(echo.listenPort);
    expect(row.host).toBe('127.0.0.1');
    expect(row.endpoints).toEqual([`${POD_IP}:${serverPort}`]);
    const table = await runBin(['proxy-ports', '--data-dir', dataDir], { timeoutMs: 30_000 });
    expect(table.stdout).toMatch(new RegExp(`^default/echo:http +TCP +10\\.\\d+\\.\\d+\\.\\d+:80 +127\\.0\\.0\\.1:${row.listenPort} +${POD_IP.replace(/\./g, '\\.')}:${serverPort}$`, 'm'));

    const answer = await inNamespace(ns, ['curl', '-sS', '--max-time', '10', `http://127.0.0.1:${row.listenPort}/through-the-proxy`]);
    expect(answer).toBe(`hello from the pod at ${POD_IP}, GET /through-the-proxy\n`);

    // The Endpoints gone, the proxy keeps the port but has nowhere to send a connection: curl
    // fails, as a client of kube-proxy's userspace mode sees its connection closed.
    await inNamespace(ns, ['/usr/bin/kubectl', '--kubeconfig', kubeconfig, `--cache-dir=${cache}`, 'delete', 'endpoints', 'echo']);
    await echoPort(dataDir, (r) => r.endpoints.length === 0, 'without endpoints after the Endpoints were deleted', up);
    const refused = spawnSync('ip', ['netns', 'exec', ns, 'curl', '-sS', '--max-time', '10', `http://127.0.0.1:${row.listenPort}/`], { encoding: 'utf8', env: { ...process.env, PATH } });
    expect(refused.status).not.toBe(0);

    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
    const upPid = up.child.pid ?? 0;
    server.child.kill('SIGKILL');
    await server.exited;
    removeNamespace(ns);
    namespaces.splice(namespaces.indexOf(ns), 1);
    expect(processRunning(upPid)).toBe(false);
    expect(leftovers(ns).namespaces).toEqual([]);
  }, 180_000);
});

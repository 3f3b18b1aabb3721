// Real kubectl against a tiny API server that answers discovery and serves printTable's Tables:
// what `kubectl get` prints is the proof that the Table is shaped as kubectl expects.
// The server below is test scaffolding (the product's API server lives elsewhere in api/).
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { printTable, printWatchEventTable, type PrintableObject, type TableResource } from './print-table.js';

const run = promisify(execFile);
const KUBECTL = '/usr/bin/kubectl';
const NOW = Date.parse('2025-06-01T12:00:00Z');
const at = (msAgo: number): string => new Date(NOW - msAgo).toISOString().replace(/\.\d{3}Z$/, 'Z');
const MIN = 60_000;

const OBJECTS: Readonly<Record<TableResource, readonly PrintableObject[]>> = {
  services: [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kubernetes', namespace: 'default', creationTimestamp: at(5 * MIN), labels: { component: 'apiserver', provider: 'kubernetes' } },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.1', clusterIPs: ['10.96.0.1'], ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', namespace: 'default', creationTimestamp: at(90_000) },
      spec: { type: 'NodePort', clusterIP: '10.96.0.20', clusterIPs: ['10.96.0.20'], ports: [{ port: 80, nodePort: 30080, protocol: 'TCP' }], selector: { app: 'web' } },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'kube-dns', namespace: 'kube-system', creationTimestamp: at(5 * MIN) },
      spec: { type: 'ClusterIP', clusterIP: '10.96.0.10', clusterIPs: ['10.96.0.10'], ports: [{ name: 'dns', port: 53, protocol: 'UDP' }, { name: 'dns-tcp', port: 53, protocol: 'TCP' }], selector: { 'k8s-app': 'kube-dns' } },
    },
  ],
  endpoints: [
    { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kubernetes', namespace: 'default', creationTimestamp: at(5 * MIN) }, subsets: [{ addresses: [{ ip: '192.168.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }] },
    {
      apiVersion: 'v1',
      kind: 'Endpoints',
      metadata: { name: 'web', namespace: 'default', creationTimestamp: at(90_000) },
      subsets: [{ addresses: [{ ip: '10.244.0.5' }, { ip: '10.244.0.6' }, { ip: '10.244.1.5' }, { ip: '10.244.1.6' }], ports: [{ port: 8080, protocol: 'TCP' }] }],
    },
  ],
  endpointslices: [],
  pods: [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-0', namespace: 'default', creationTimestamp: at(3 * MIN) },
      spec: { nodeName: 'node-1', containers: [{ name: 'app' }, { name: 'sidecar' }] },
      status: {
        phase: 'Running',
        podIP: '10.244.0.5',
        podIPs: [{ ip: '10.244.0.5' }],
        conditions: [{ type: 'Ready', status: 'False' }],
        containerStatuses: [
          { name: 'app', ready: true, restartCount: 2, state: { running: {} }, lastState: { terminated: { finishedAt: at(40_000) } } },
          { name: 'sidecar', ready: false, restartCount: 0, state: { waiting: { reason: 'CrashLoopBackOff' } } },
        ],
      },
    } as PrintableObject,
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'pending-0', namespace: 'default', creationTimestamp: at(12 * MIN) },
      spec: { containers: [{ name: 'app' }] },
      status: { phase: 'Pending' },
    } as PrintableObject,
  ],
  namespaces: ['default', 'kube-system'].map((name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name, creationTimestamp: at(26 * 60 * MIN) }, status: { phase: 'Active' } })) as PrintableObject[],
  nodes: [
    {
      apiVersion: 'v1',
      kind: 'Node',
      metadata: { name: 'node-1', creationTimestamp: at(9 * 24 * 60 * MIN), labels: { 'node-role.kubernetes.io/control-plane': '' } },
      spec: { unschedulable: true },
      status: { conditions: [{ type: 'Ready', status: 'True' }], addresses: [{ type: 'InternalIP', address: '172.18.0.2' }], nodeInfo: { kubeletVersion: 'v1.33.0' } },
    },
  ],
  events: [
    {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'web.1', namespace: 'default', creationTimestamp: at(10 * MIN) },
      involvedObject: { kind: 'Service', name: 'web', namespace: 'default' },
      reason: 'ClusterIPNotAllocated',
      message: 'Cluster IP 10.96.0.20 is not allocated; repairing',
      type: 'Warning',
      firstTimestamp: at(10 * MIN),
      lastTimestamp: at(2 * MIN),
      count: 3,
      source: { component: 'ipallocator-repair-controller' },
    },
  ],
  // kubectl against the real server prints these (api/kubectl.test.ts).
  servicecidrs: [],
  ipaddresses: [],
  deployments: [],
  replicasets: [],
};

const CORE: readonly (readonly [TableResource, string, string, boolean, string])[] = [
  ['services', 'service', 'Service', true, 'svc'],
  ['endpoints', 'endpoints', 'Endpoints', true, 'ep'],
  ['pods', 'pod', 'Pod', true, 'po'],
  ['namespaces', 'namespace', 'Namespace', false, 'ns'],
  ['nodes', 'node', 'Node', false, 'no'],
  ['events', 'event', 'Event', true, 'ev'],
];

function send(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { 'Content-Type': 'application/json' });
  res.end(JSON.stringify(body));
}

/** The discovery answers kubectl needs, then lists of the resources above, as Tables when asked. */
function handle(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://localhost');
  const path = url.pathname;
  if (path === '/version') return send(res, 200, { major: '1', minor: '33', gitVersion: 'v1.33.0-kubesvc-test' });
  if (path === '/api') return send(res, 200, { kind: 'APIVersions', versions: ['v1'] });
  if (path === '/apis') return send(res, 200, { kind: 'APIGroupList', apiVersion: 'v1', groups: [] });
  if (path === '/api/v1') {
    const verbs = ['get', 'list', 'watch'];
    return send(res, 200, {
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: CORE.map(([name, singularName, kind, namespaced, short]) => ({ name, singularName, namespaced, kind, verbs, shortNames: [short] })),
    });
  }
  const m = /^\/api\/v1\/(?:namespaces\/([^/]+)\/)?([a-z]+)$/.exec(path);
  const entry = CORE.find(([name]) => name === m?.[2]);
  if (m === null || entry === undefined) return send(res, 404, { kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'NotFound', code: 404, message: 'the server could not find the requested resource' });
  const namespace = m[1];
  if (url.searchParams.get('watch') === 'true' || url.searchParams.get('watch') === '1') return watch(entry[0], res);
  const objects = OBJECTS[entry[0]].filter((o) => namespace === undefined || o.metadata.namespace === namespace);
  if (!(req.headers.accept ?? '').includes('as=Table')) return send(res, 200, { kind: `${entry[2]}List`, apiVersion: 'v1', metadata: { resourceVersion: '7' }, items: objects });
  const includeObject = url.searchParams.get('includeObject');
  const table = printTable(entry[0], objects, {
    now: NOW,
    resourceVersion: '7',
    ...(includeObject === 'None' || includeObject === 'Metadata' || includeObject === 'Object' ? { includeObject } : {}),
  });
  return send(res, 200, table);
}

/** Namespaces that appear after the list, sent as watch events whose objects are one-row Tables. */
const WATCHED: readonly PrintableObject[] = ['shop', 'lab'].map((name, i) => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name, resourceVersion: String(8 + i), creationTimestamp: at(0) },
  status: { phase: 'Active' },
})) as PrintableObject[];

function watch(resource: TableResource, res: ServerResponse): void {
  res.writeHead(200, { 'Content-Type': 'application/json' });
  if (resource !== 'namespaces') return;
  // The apiserver sends the columns with the first event only.
  for (const [i, object] of WATCHED.entries()) {
    res.write(JSON.stringify({ type: 'ADDED', object: printWatchEventTable(resource, object, { now: NOW, noHeaders: i > 0 }) }) + '\n');
  }
  // The stream stays open, as a real watch does, until kubectl is stopped.
}

describe('kubectl get against printTable', () => {
  let server: Server | undefined;
  let dir: string | undefined;
  let kubeconfig = '';

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'kubesvc-table-'));
    const s = createServer(handle);
    server = s;
    await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
    const { port } = s.address() as AddressInfo;
    kubeconfig = join(dir, 'kubeconfig');
    await writeFile(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'clusters: [{name: test, cluster: {server: "http://127.0.0.1:' + String(port) + '"}}]',
        'users: [{name: test, user: {}}]',
        'contexts: [{name: test, context: {cluster: test, user: test, namespace: default}}]',
        'current-context: test',
        '',
      ].join('\n'),
    );
  });

  let child: ChildProcess | undefined;

  afterEach(async () => {
    child?.kill('SIGKILL');
    child = undefined;
    const s = server;
    server = undefined;
    s?.closeAllConnections();
    if (s !== undefined) await new Promise<void>((resolve) => s.close(() => resolve()));
    if (dir !== undefined) await rm(dir, { recursive: true, force: true });
    dir = undefined;
  });

  /** kubectl's output, each line cut into its cells (kubectl pads columns with 3+ spaces). */
  async function kubectl(...args: string[]): Promise<{ text: string; rows: string[][] }> {
    const cacheDir = await mkdtemp(join(dir ?? tmpdir(), 'cache-'));
    const { stdout } = await run(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, ...args], { env: { ...process.env, KUBECONFIG: kubeconfig }, timeout: 20_000 });
    const lines = stdout.split('\n').filter((l) => l !== '');
    return { text: stdout, rows: lines.map((l) => l.trimEnd().split(/ {3,}/)) };
  }

  it('get svc -A prints a NAMESPACE column from the row objects', async () => {
    const { text } = await kubectl('get', 'svc', '-A');
    expect(text).toBe(
      [
        'NAMESPACE     NAME         TYPE        CLUSTER-IP   EXTERNAL-IP   PORT(S)         AGE',
        'default       kubernetes   ClusterIP   10.96.0.1    <none>        443/TCP         5m',
        'default       web          NodePort    10.96.0.20   <none>        80:30080/TCP    90s',
        'kube-system   kube-dns     ClusterIP   10.96.0.10   <none>        53/UDP,53/TCP   5m',
        '',
      ].join('\n'),
    );
  });

  it('get svc -o wide adds SELECTOR', async () => {
    const { rows } = await kubectl('get', 'svc', '-o', 'wide');
    expect(rows).toEqual([
      ['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE', 'SELECTOR'],
      ['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP', '5m', '<none>'],
      ['web', 'NodePort', '10.96.0.20', '<none>', '80:30080/TCP', '90s', 'app=web'],
    ]);
  });

  it('get endpoints truncates after three', async () => {
    const { rows } = await kubectl('get', 'endpoints');
    expect(rows).toEqual([
      ['NAME', 'ENDPOINTS', 'AGE'],
      ['kubernetes', '192.168.0.2:6443', '5m'],
      ['web', '10.244.0.5:8080,10.244.0.6:8080,10.244.1.5:8080 + 1 more...', '90s'],
    ]);
  });

  it('get pods -o wide', async () => {
    const { rows } = await kubectl('get', 'pods', '-o', 'wide');
    expect(rows).toEqual([
      ['NAME', 'READY', 'STATUS', 'RESTARTS', 'AGE', 'IP', 'NODE', 'NOMINATED NODE', 'READINESS GATES'],
      ['web-0', '1/2', 'CrashLoopBackOff', '2 (40s ago)', '3m', '10.244.0.5', 'node-1', '<none>', '<none>'],
      ['pending-0', '0/1', 'Pending', '0', '12m', '<none>', '<none>', '<none>', '<none>'],
    ]);
  });

  it('get ns', async () => {
    const { rows } = await kubectl('get', 'ns');
    expect(rows).toEqual([
      ['NAME', 'STATUS', 'AGE'],
      ['default', 'Active', '26h'],
      ['kube-system', 'Active', '26h'],
    ]);
  });

  it('get nodes, and -o wide', async () => {
    expect((await kubectl('get', 'nodes')).rows).toEqual([
      ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION'],
      ['node-1', 'Ready,SchedulingDisabled', 'control-plane', '9d', 'v1.33.0'],
    ]);
    expect((await kubectl('get', 'nodes', '-o', 'wide')).rows).toEqual([
      ['NAME', 'STATUS', 'ROLES', 'AGE', 'VERSION', 'INTERNAL-IP', 'EXTERNAL-IP', 'OS-IMAGE', 'KERNEL-VERSION', 'CONTAINER-RUNTIME'],
      ['node-1', 'Ready,SchedulingDisabled', 'control-plane', '9d', 'v1.33.0', '172.18.0.2', '<none>', '<unknown>', '<unknown>', '<unknown>'],
    ]);
  });

  it('get events', async () => {
    const { rows } = await kubectl('get', 'events');
    expect(rows).toEqual([
      ['LAST SEEN', 'TYPE', 'REASON', 'OBJECT', 'MESSAGE'],
      ['2m', 'Warning', 'ClusterIPNotAllocated', 'service/web', 'Cluster IP 10.96.0.20 is not allocated; repairing'],
    ]);
  });

  it('get ns -w prints the list, then one row per watch event', async () => {
    const cacheDir = await mkdtemp(join(dir ?? tmpdir(), 'cache-'));
    const proc = spawn(KUBECTL, ['--kubeconfig', kubeconfig, '--cache-dir', cacheDir, 'get', 'ns', '-w'], { env: { ...process.env, KUBECONFIG: kubeconfig }, stdio: ['ignore', 'pipe', 'pipe'] });
    child = proc;
    let out = '';
    const lines = await new Promise<string[][]>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`kubectl -w printed only: ${out}`)), 20_000);
      proc.stdout?.on('data', (chunk: Buffer) => {
        out += chunk.toString();
        const got = out.split('\n').filter((l) => l !== '');
        if (got.length >= 5) {
          clearTimeout(timer);
          resolve(got.map((l) => l.trimEnd().split(/ {3,}/)));
        }
      });
      proc.on('exit', (code) => reject(new Error(`kubectl exited ${String(code)}: ${out}`)));
    });
    expect(lines).toEqual([
      ['NAME', 'STATUS', 'AGE'],
      ['default', 'Active', '26h'],
      ['kube-system', 'Active', '26h'],
      ['shop', 'Active', '0s'],
      ['lab', 'Active', '0s'],
    ]);
  });
});

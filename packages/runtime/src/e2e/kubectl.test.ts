// The acceptance sessions, with the real kubectl 1.33 (/usr/bin/kubectl) against a whole
// kubesvc control plane: SQLite store, bootstrap controller, endpoint controllers, the
// simulated kubelet and the HTTP API, started with --service-cluster-ip-range 10.96.0.0/12.
// Every expected line is what a real cluster prints for the same commands (the Services
// concept page's examples; kubectl's printers).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateServingCertificate, startApiServer, type ApiServer, printTable, silentLogger } from '@kubesvc/apiserver';
import { standardControllers } from '@kubesvc/controllers';
import { startControlPlane, type ControlPlane } from '../control-plane.js';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { type Store, systemClock } from '@kubesvc/store';
import { eventually, Kubectl, tableRows } from './kubectl.fixtures.js';

const ADVERTISE = '192.0.2.10';
const ENDPOINT_INTERVAL_MS = 500;
const AGE = /^\d+(s|m\d*s?)$/;

let dir: string;
let store: Store;
let plane: ControlPlane;
let api: ApiServer;
let kubectl: Kubectl;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'kubesvc-e2e-'));
  store = openSqliteStore({ path: join(dir, 'state.db') });
  const started = await startControlPlane({
    store,
    clock: systemClock,
    logger: silentLogger,
    seed: 7,
    serviceClusterIPRange: '10.96.0.0/12',
    advertiseAddress: ADVERTISE,
    securePort: 6443,
    endpointIntervalMs: ENDPOINT_INTERVAL_MS,
    controllers: standardControllers({ hostName: 'node-1', nodes: [{ name: 'node-1', podCIDR: '10.244.0.0/24', internalIP: '192.0.2.21' }], readyAfterMs: 100 }),
  });
  if (!started.ok) throw new Error(started.error.message);
  plane = started.value;
  const tls = await generateServingCertificate();
  api = await startApiServer({ registry: plane.registry, token: 'e2e-token', tls, ready: () => plane.isReady(), tables: printTable });
  await plane.whenReady();
  kubectl = new Kubectl(api.url, 'e2e-token', tls.cert);
}, 60_000);

afterAll(async () => {
  kubectl?.close();
  await api?.close();
  await plane?.stop();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function ok(...args: string[]): Promise<string> {
  const r = await kubectl.run(...args);
  if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
  return r.stdout;
}

describe('the classic sessions', () => {
  it('kubectl get svc kubernetes prints the Service at the first IP of the range', async () => {
    const rows = tableRows(await ok('get', 'svc', 'kubernetes', '-n', 'default'));
    expect(rows[0]).toEqual(['NAME', 'TYPE', 'CLUSTER-IP', 'EXTERNAL-IP', 'PORT(S)', 'AGE']);
    expect(rows[1]?.slice(0, 5)).toEqual(['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP']);
    expect(rows[1]?.[5]).toMatch(AGE);
    expect(rows).toHaveLength(2);
  });

  it('kubectl get endpoints kubernetes shows the advertise address on the secure port', async () => {
    const rows = tableRows(await ok('get', 'endpoints', 'kubernetes'));
    expect(rows[0]).toEqual(['NAME', 'ENDPOINTS', 'AGE']);
    expect(rows[1]?.slice(0, 2)).toEqual(['kubernetes', `${ADVERTISE}:6443`]);
  });

  it('kubectl get ns lists the four system namespaces as Active', async () => {
    const rows = tableRows(await ok('get', 'ns'));
    expect(rows[0]).toEqual(['NAME', 'STATUS', 'AGE']);
    expect(rows.slice(1).map((r) => r.slice(0, 2))).toEqual([
      ['default', 'Active'],
      ['kube-node-lease', 'Active'],
      ['kube-public', 'Active'],
      ['kube-system', 'Active'],
    ]);
  });

  it('kubectl delete svc kubernetes: it comes back at 10.96.0.1 within the endpoint interval, even after 50 other Services took IPs', async () => {
    const list = {
      apiVersion: 'v1',
      kind: 'List',
      items: Array.from({ length: 50 }, (_, i) => ({ apiVersion: 'v1', kind: 'Service', metadata: { name: `filler-${i}` }, spec: { ports: [{ port: 80 }] } })),
    };
    await ok('create', '-f', kubectl.file('fillers.json', JSON.stringify(list)));
    const deleted = await ok('delete', 'svc', 'kubernetes');
    expect(deleted.trim()).toBe('service "kubernetes" deleted');
    const back = await eventually(
      async () => {
        const r = await kubectl.run('get', 'svc', 'kubernetes', '--no-headers');
        return r.code === 0 ? tableRows(r.stdout)[0] : undefined;
      },
      ENDPOINT_INTERVAL_MS * 4 + 5_000,
      'the kubernetes Service to come back',
    );
    expect(back.slice(0, 5)).toEqual(['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP']);
    await ok('delete', '-f', kubectl.file('fillers.json', JSON.stringify(list)));
  });
});

const SERVICES_DOC = `apiVersion: v1
kind: Service
metadata:
  name: my-service
spec:
  selector:
    app.kubernetes.io/name: MyApp
  ports:
    - protocol: TCP
      port: 80
      targetPort: 9376
---
apiVersion: v1
kind: Service
metadata:
  name: no-selector
spec:
  ports:
    - name: http
      protocol: TCP
      port: 80
      targetPort: 9376
---
apiVersion: v1
kind: Endpoints
metadata:
  name: no-selector
subsets:
  - addresses:
      - ip: 1.2.3.4
    ports:
      - name: http
        port: 9376
        # Stated, because the apiserver defaults it (SetDefaults_Endpoints) and subsets have no
        # patch strategy: without it, every later apply finds the live list different and
        # reports "configured", on a real cluster too.
        protocol: TCP
---
apiVersion: v1
kind: Service
metadata:
  name: my-database
spec:
  type: ExternalName
  externalName: my.database.example.com
---
apiVersion: v1
kind: Service
metadata:
  name: multi-port
spec:
  selector:
    app.kubernetes.io/name: MyApp
  ports:
    - name: http
      protocol: TCP
      port: 80
      targetPort: 9376
    - name: https
      protocol: TCP
      port: 443
      targetPort: 9377
---
apiVersion: v1
kind: Service
metadata:
  name: my-nodeport
spec:
  type: NodePort
  selector:
    app.kubernetes.io/name: MyApp
  ports:
    - port: 80
      targetPort: 80
      nodePort: 30061
---
apiVersion: v1
kind: Service
metadata:
  name: my-lb
spec:
  type: LoadBalancer
  selector:
    app.kubernetes.io/name: MyApp
  ports:
    - name: http
      protocol: TCP
      port: 80
      targetPort: 49152
  externalIPs:
    - 198.51.100.32
`;

describe("the Services doc's examples, with kubectl apply -f", () => {
  it('creates them, prints them as a cluster does, and a second apply reports unchanged', async () => {
    const file = kubectl.file('services.yaml', SERVICES_DOC);
    const first = await ok('apply', '-f', file);
    expect(first.trim().split('\n')).toEqual([
      'service/my-service created',
      'service/no-selector created',
      'endpoints/no-selector created',
      'service/my-database created',
      'service/multi-port created',
      'service/my-nodeport created',
      'service/my-lb created',
    ]);
    const second = await ok('apply', '-f', file);
    expect(second.trim().split('\n')).toEqual([
      'service/my-service unchanged',
      'service/no-selector unchanged',
      'endpoints/no-selector unchanged',
      'service/my-database unchanged',
      'service/multi-port unchanged',
      'service/my-nodeport unchanged',
      'service/my-lb unchanged',
    ]);
    const rows = new Map(tableRows(await ok('get', 'svc', 'my-service', 'no-selector', 'my-database', 'multi-port', 'my-nodeport', 'my-lb', '--no-headers')).map((r) => [r[0], r]));
    const ip = /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/;
    expect(rows.get('my-service')?.[1]).toBe('ClusterIP');
    expect(rows.get('my-service')?.[2]).toMatch(ip);
    expect(rows.get('my-service')?.slice(3, 5)).toEqual(['<none>', '80/TCP']);
    expect(rows.get('my-database')?.slice(1, 5)).toEqual(['ExternalName', '<none>', 'my.database.example.com', '<none>']);
    expect(rows.get('multi-port')?.slice(3, 5)).toEqual(['<none>', '80/TCP,443/TCP']);
    expect(rows.get('my-nodeport')?.slice(3, 5)).toEqual(['<none>', '80:30061/TCP']);
    expect(rows.get('my-lb')?.[1]).toBe('LoadBalancer');
    expect(rows.get('my-lb')?.[3]).toBe('198.51.100.32');
    expect(rows.get('my-lb')?.[4]).toMatch(/^80:3\d{4}\/TCP$/);
  });

  it("mirrors the selector-less Service's hand-written Endpoints into an EndpointSlice", async () => {
    const rows = await eventually(
      async () => {
        const r = tableRows(await ok('get', 'endpointslices', '-l', 'kubernetes.io/service-name=no-selector', '--no-headers'));
        return r.length === 1 ? r : undefined;
      },
      10_000,
      'the mirrored EndpointSlice',
    );
    expect(rows[0]?.[0]).toMatch(/^no-selector-[a-z0-9]{5}$/);
    expect(rows[0]?.slice(1, 4)).toEqual(['IPv4', '9376', '1.2.3.4']);
    const managedBy = await ok('get', 'endpointslices', '-l', 'kubernetes.io/service-name=no-selector', '-o', "jsonpath={.items[0].metadata.labels['endpointslice\\.kubernetes\\.io/managed-by']}");
    expect(managedBy).toBe('endpointslicemirroring-controller.k8s.io');
  });

  it("a requested clusterIP or nodePort that is taken gets upstream's 422", async () => {
    const taken = `apiVersion: v1
kind: Service
metadata:
  name: wants-first-ip
spec:
  clusterIP: 10.96.0.1
  ports:
    - port: 80
`;
    const r1 = await kubectl.run('apply', '-f', kubectl.file('taken-ip.yaml', taken));
    expect(r1.code).toBe(1);
    expect(r1.stderr.trim()).toBe(
      'The Service "wants-first-ip" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated',
    );
    const takenPort = `apiVersion: v1
kind: Service
metadata:
  name: wants-30061
spec:
  type: NodePort
  ports:
    - port: 80
      nodePort: 30061
`;
    const r2 = await kubectl.run('apply', '-f', kubectl.file('taken-port.yaml', takenPort));
    expect(r2.code).toBe(1);
    expect(r2.stderr.trim()).toBe('The Service "wants-30061" is invalid: spec.ports[0].nodePort: Invalid value: 30061: provided port is already allocated');
  });
});

describe('pods to endpoints', () => {
  it('kubectl run ×3 + expose: Endpoints and one EndpointSlice list the three pod IPs; an unready pod moves to notReadyAddresses', async () => {
    for (const name of ['web-1', 'web-2', 'web-3']) {
      expect((await ok('run', name, '--image', 'nginx', '--labels', 'app=web')).trim()).toBe(`pod/${name} created`);
    }
    expect((await ok('expose', 'pod', 'web-1', '--port', '80', '--name', 'web', '--selector', 'app=web')).trim()).toBe('service/web exposed');
    const podIPs = await eventually(
      async () => {
        const ips = (await ok('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].status.podIP}')).split(' ').filter((s) => s !== '');
        return ips.length === 3 ? ips : undefined;
      },
      10_000,
      'three pod IPs',
    );
    for (const ip of podIPs) expect(ip).toMatch(/^10\.244\.0\.\d+$/);
    const wanted = [...podIPs].sort().map((ip) => `${ip}:80`);
    const endpoints = await eventually(
      async () => {
        const row = tableRows(await ok('get', 'endpoints', 'web', '--no-headers'))[0];
        const listed = (row?.[1] ?? '').split(',').sort();
        return listed.join() === wanted.join() ? row : undefined;
      },
      10_000,
      'the web Endpoints to list the three pods',
    );
    expect(endpoints?.[0]).toBe('web');
    // Both carry last-change-trigger-time: the Service's creation, or the readiness change of a
    // pod behind the write, whichever was earliest since the controller's last sync.
    const triggers = new Set([
      (await ok('get', 'svc', 'web', '-o', 'jsonpath={.metadata.creationTimestamp}')).trim(),
      ...(await ok('get', 'pods', '-l', 'app=web', '-o', 'jsonpath={.items[*].status.conditions[?(@.type=="Ready")].lastTransitionTime}')).split(' ').filter((t) => t !== ''),
    ]);
    const triggerPath = "jsonpath={.metadata.annotations['endpoints\\.kubernetes\\.io/last-change-trigger-time']}";
    expect(triggers).toContain((await ok('get', 'endpoints', 'web', '-o', triggerPath)).trim());
    expect(triggers).toContain((await ok('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', triggerPath.replace('{.metadata', '{.items[0].metadata'))).trim());

    const slices = tableRows(await ok('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '--no-headers'));
    expect(slices).toHaveLength(1);
    expect(slices[0]?.[0]).toMatch(/^web-[a-z0-9]{5}$/);
    expect(slices[0]?.slice(1, 3)).toEqual(['IPv4', '80']);
    expect(slices[0]?.[3]?.split(',').sort()).toEqual([...podIPs].sort());

    const web2 = (await ok('get', 'pod', 'web-2', '-o', 'jsonpath={.status.podIP}')).trim();
    const patched = await ok('patch', 'pod', 'web-2', '--subresource=status', '--type=strategic', '-p', '{"status":{"conditions":[{"type":"Ready","status":"False"}]}}');
    expect(patched.trim()).toBe('pod/web-2 patched');
    const notReady = await eventually(
      async () => {
        const ips = (await ok('get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].notReadyAddresses[*].ip}')).trim();
        return ips === web2 ? ips : undefined;
      },
      10_000,
      'web-2 in notReadyAddresses',
    );
    expect(notReady).toBe(web2);
    const ready = (await ok('get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].addresses[*].ip}')).trim().split(' ').sort();
    expect(ready).toEqual(podIPs.filter((ip) => ip !== web2).sort());
    const condition = await eventually(
      async () => {
        const v = (await ok('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', `jsonpath={.items[0].endpoints[?(@.addresses[0]=="${web2}")].conditions.ready}`)).trim();
        return v === 'false' ? v : undefined;
      },
      10_000,
      "web-2's slice condition to flip",
    );
    expect(condition).toBe('false');
  });

  it('kubectl describe svc web shows the Endpoints line and the Events section', async () => {
    const out = await ok('describe', 'svc', 'web');
    const lines = out.split('\n');
    expect(lines.find((l) => l.startsWith('Name:'))).toMatch(/^Name:\s+web$/);
    expect(lines.find((l) => l.startsWith('Selector:'))).toMatch(/^Selector:\s+app=web$/);
    expect(lines.find((l) => l.startsWith('Endpoints:'))).toMatch(/^Endpoints:\s+10\.244\.0\.\d+:80(,10\.244\.0\.\d+:80)*$/);
    // `Events:  <none>`, or the header of the events table.
    expect(lines.some((l) => /^Events:/.test(l))).toBe(true);
  });
});

describe('watch', () => {
  // How fast the line comes is the API bench's business (a shared machine makes any bound
  // here a coin toss); this checks that it comes, on the open watch, with the Table's columns.
  it('kubectl get svc -w prints an added Service on the open watch', async () => {
    const w = kubectl.watch('get', 'svc', '-w');
    try {
      await w.waitForLine(/^kubernetes\s/, 10_000);
      const watched = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'watched' }, spec: { ports: [{ port: 8080, targetPort: 80 }] } };
      await ok('create', '-f', kubectl.file('watched.json', JSON.stringify(watched)));
      const line = await w.waitForLine(/^watched\s/, 30_000);
      expect(line.split(/\s{2,}/).slice(0, 2)).toEqual(['watched', 'ClusterIP']);
    } finally {
      w.stop();
    }
  });
});

// kubectl's typed clients send protobuf bodies (application/vnd.kubernetes.protobuf), with
// `Accept: application/vnd.kubernetes.protobuf,application/json`; the answers are JSON.
describe('typed kubectl generators (protobuf bodies)', () => {
  const SERVICE_IP = /^10\.(9[6-9]|10[0-9]|11[01])\.\d+\.\d+$/;

  async function svcJson(name: string): Promise<{ metadata: { labels?: Record<string, string> }; spec: Record<string, unknown> }> {
    return JSON.parse(await ok('get', 'svc', name, '-n', 'shop', '-o', 'json')) as { metadata: { labels?: Record<string, string> }; spec: Record<string, unknown> };
  }

  it('kubectl create namespace shop', async () => {
    expect((await ok('create', 'namespace', 'shop')).trim()).toBe('namespace/shop created');
    const ns = JSON.parse(await ok('get', 'ns', 'shop', '-o', 'json')) as { metadata: { labels: Record<string, string> }; status: { phase: string } };
    expect(ns.status.phase).toBe('Active');
    expect(ns.metadata.labels['kubernetes.io/metadata.name']).toBe('shop');
  });

  it('kubectl create service clusterip web --tcp=80:8080: selector app=web, 80 -> 8080, a ClusterIP in the range', async () => {
    expect((await ok('create', 'service', 'clusterip', 'web', '--tcp=80:8080', '-n', 'shop')).trim()).toBe('service/web created');
    const svc = await svcJson('web');
    expect(svc.metadata.labels).toEqual({ app: 'web' });
    expect(svc.spec['selector']).toEqual({ app: 'web' });
    expect(svc.spec['type']).toBe('ClusterIP');
    expect(svc.spec['ports']).toEqual([{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }]);
    expect(svc.spec['clusterIP']).toMatch(SERVICE_IP);
  });

  it('kubectl create service nodeport --node-port=30080 keeps the requested port', async () => {
    expect((await ok('create', 'service', 'nodeport', 'web-np', '--tcp=80:8080', '--node-port=30080', '-n', 'shop')).trim()).toBe('service/web-np created');
    const svc = await svcJson('web-np');
    expect(svc.spec['type']).toBe('NodePort');
    expect(svc.spec['ports']).toEqual([{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }]);
    expect(svc.spec['clusterIP']).toMatch(SERVICE_IP);
  });

  it('kubectl create service loadbalancer with a named target port gets a NodePort allocated', async () => {
    expect((await ok('create', 'service', 'loadbalancer', 'web-lb', '--tcp=443:https', '-n', 'shop')).trim()).toBe('service/web-lb created');
    const svc = await svcJson('web-lb');
    expect(svc.spec['type']).toBe('LoadBalancer');
    const [port] = svc.spec['ports'] as { name: string; port: number; targetPort: unknown; nodePort: number }[];
    expect(port).toMatchObject({ name: '443-https', port: 443, targetPort: 'https' });
    expect(port?.nodePort).toBeGreaterThanOrEqual(30000);
    expect(port?.nodePort).toBeLessThanOrEqual(32767);
  });

  it('kubectl create service externalname: no ClusterIP, the external name in the table', async () => {
    expect((await ok('create', 'service', 'externalname', 'ext', '--external-name=example.com', '-n', 'shop')).trim()).toBe('service/ext created');
    const svc = await svcJson('ext');
    expect(svc.spec['type']).toBe('ExternalName');
    expect(svc.spec['externalName']).toBe('example.com');
    expect(svc.spec['clusterIP']).toBeUndefined();
    expect(tableRows(await ok('get', 'svc', 'ext', '-n', 'shop', '--no-headers'))[0]?.slice(1, 4)).toEqual(['ExternalName', '<none>', 'example.com']);
  });

  it("a taken --clusterip gets upstream's 422 text, and nothing is created", async () => {
    const r = await kubectl.run('create', 'service', 'clusterip', 'taken', '--clusterip=10.96.0.1', '--tcp=80', '-n', 'shop');
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe(
      'error: failed to create ClusterIP service: Service "taken" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated',
    );
    expect((await kubectl.run('get', 'svc', 'taken', '-n', 'shop')).code).toBe(1);
  });

  it('--dry-run=server is refused as the API refuses every dry run, and nothing is created', async () => {
    const r = await kubectl.run('create', 'service', 'clusterip', 'dry', '--tcp=80', '-n', 'shop', '--dry-run=server');
    expect(r.code).toBe(1);
    expect(r.stderr.trim()).toBe('error: failed to create ClusterIP service: dryRun is not supported by this server');
    expect((await kubectl.run('get', 'svc', 'dry', '-n', 'shop')).code).toBe(1);
  });

  it('kubectl debug node creates its debugging pod on the node, with the host filesystem mounted', async () => {
    const r = await kubectl.run('debug', 'node/node-1', '--image=busybox', '--profile=general');
    expect(r.code, r.stderr).toBe(0);
    const name = /^Creating debugging pod (node-debugger-node-1-[a-z0-9]{5}) with container debugger on node node-1\.$/.exec(r.stdout.trim())?.[1];
    expect(name).toBeDefined();
    const pod = JSON.parse(await ok('get', 'pod', name ?? '', '-o', 'json')) as { spec: Record<string, unknown> };
    expect(pod.spec).toMatchObject({ nodeName: 'node-1', hostNetwork: true, hostPID: true, volumes: [{ name: 'host-root', hostPath: { path: '/' } }] });
  });

  // Last: it deletes the pods on node-1 that the sessions above made.
  it('kubectl drain deletes pods with protobuf DeleteOptions bodies', async () => {
    const before = tableRows(await ok('get', 'pods', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name', '--field-selector', 'spec.nodeName=node-1')).map((r) => r[0]);
    expect(before.length).toBeGreaterThan(0);
    const r = await kubectl.run('drain', 'node-1', '--disable-eviction', '--force', '--grace-period=1', '--timeout=20s');
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.trim().split('\n');
    expect(lines[0]).toBe('node/node-1 cordoned');
    expect(lines.filter((l) => l.endsWith(' deleted')).sort()).toEqual(before.map((name) => `pod/${name} deleted`).sort());
    expect(lines.at(-1)).toBe('node/node-1 drained');
    expect((await ok('get', 'pods', '--no-headers', '--field-selector', 'spec.nodeName=node-1', '-A')).trim()).toBe('');
  });
});

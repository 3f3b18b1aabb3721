// Real kubectl (/usr/bin/kubectl, 1.33 through its version dispatcher) against the API server
// over TLS with a bearer token, each command with its own cache folder and a kubeconfig
// written into a temporary folder. No controllers run: the tests create what they need.
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openRegistry, type Registry } from '../registry/registry.js';
import { openMemoryStore, type Store, systemClock } from '@kubesvc/store';
import { generateServingCertificate, type ServingCertificate } from './serving-cert.js';
import { startApiServer, type ApiServer } from './server.js';

const KUBECTL = '/usr/bin/kubectl';
const TOKEN = 'kubectl-test-token';

let tls: ServingCertificate;
let dir: string;
let store: Store;
let registry: Registry;
let server: ApiServer;
const children: ChildProcess[] = [];
let watchesStarted = 0;

beforeAll(async () => {
  tls = await generateServingCertificate();
});

beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kubesvc-kubectl-'));
  watchesStarted = 0;
  const base = openMemoryStore();
  // The memory store, noting each watch opened (kubectl get -w lists, then watches).
  store = new Proxy(base, {
    get(target, prop) {
      if (prop === 'watch') {
        return (prefix: string, options?: Parameters<Store['watch']>[1]) => {
          watchesStarted++;
          return target.watch(prefix, options);
        };
      }
      const value: unknown = Reflect.get(target, prop);
      return typeof value === 'function' ? (value as (...a: unknown[]) => unknown).bind(target) : value;
    },
  });
  const opened = await openRegistry({ store, clock: systemClock, seed: 11, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  for (const name of ['default', 'other']) await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  server = await startApiServer({ registry, token: TOKEN, tls });
  await writeKubeconfig('config', TOKEN);
});

afterEach(async () => {
  for (const c of children.splice(0)) if (c.exitCode === null) c.kill('SIGKILL');
  await server.close();
  await store.close();
  await rm(dir, { recursive: true, force: true });
});


async function writeKubeconfig(name: string, token: string): Promise<string> {
  const path = join(dir, name);
  const ca = Buffer.from(tls.cert).toString('base64');
  await writeFile(
    path,
    `apiVersion: v1
kind: Config
clusters:
- name: kubesvc
  cluster:
    server: ${server.url}
    certificate-authority-data: ${ca}
users:
- name: admin
  user:
    token: ${token}
contexts:
- name: kubesvc
  context: {cluster: kubesvc, user: admin}
current-context: kubesvc
`,
  );
  return path;
}

interface Run {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

async function kubectl(args: readonly string[], options: { kubeconfig?: string; stdin?: string } = {}): Promise<Run> {
  const cache = await mkdtemp(join(dir, 'cache-'));
  return new Promise((resolve) => {
    const child = execFile(
      KUBECTL,
      [`--cache-dir=${cache}`, ...args],
      { env: { ...process.env, KUBECONFIG: options.kubeconfig ?? join(dir, 'config'), HOME: dir }, timeout: 20_000 },
      (error, stdout, stderr) => resolve({ code: error === null ? 0 : typeof error.code === 'number' ? error.code : 1, stdout, stderr }),
    );
    if (options.stdin !== undefined) child.stdin?.end(options.stdin);
  });
}

const SERVICE_YAML = `apiVersion: v1
kind: Service
metadata:
  name: web
  labels: {app: web, tier: fe}
spec:
  selector: {app: web}
  ports:
  - port: 80
    targetPort: 8080
`;

async function createFromYaml(yaml: string): Promise<Run> {
  const file = join(dir, `m-${Math.random().toString(36).slice(2)}.yaml`);
  await writeFile(file, yaml);
  return kubectl(['create', '-f', file]);
}

describe('kubectl', () => {
  it('creates from a file with server-side strict validation, and gets it back as YAML and JSON', async () => {
    const created = await createFromYaml(SERVICE_YAML);
    expect(created).toMatchObject({ code: 0, stdout: 'service/web created\n' });
    const yaml = await kubectl(['get', 'svc', 'web', '-o', 'yaml']);
    expect(yaml.stdout).toMatch(/^apiVersion: v1\nkind: Service\n/);
    expect(yaml.stdout).toContain('  name: web\n  namespace: default\n');
    const json = JSON.parse((await kubectl(['get', 'svc', 'web', '-o', 'json'])).stdout) as { spec: { clusterIP: string; ports: { targetPort: number }[] } };
    expect(json.spec.clusterIP).toMatch(/^10\.96\.0\.\d+$/);
    expect(json.spec.ports[0]?.targetPort).toBe(8080);
    const strict = await createFromYaml(SERVICE_YAML.replace('name: web', 'name: web2').replace('  selector:', '  bogus: 1\n  selector:'));
    expect(strict.code).toBe(1);
    expect(strict.stderr).toContain('Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.bogus"');
  });

  it('lists across namespaces, in one namespace, by label and by field', async () => {
    for (const [ns, name, tier] of [
      ['default', 'a', 'fe'],
      ['default', 'b', 'be'],
      ['other', 'c', 'fe'],
    ] as const) {
      const r = await registry.create('services', ns, { apiVersion: 'v1', kind: 'Service', metadata: { name, labels: { tier } }, spec: { ports: [{ port: 80 }] } });
      expect(r.ok).toBe(true);
    }
    const all = await kubectl(['get', 'svc', '-A', '-o', 'custom-columns=NS:.metadata.namespace,NAME:.metadata.name', '--no-headers']);
    expect(all.stdout.trim().split('\n').map((l) => l.trim().split(/\s+/).join('/'))).toEqual(['default/a', 'default/b', 'other/c']);
    const other = await kubectl(['get', 'services', '-n', 'other', '-o', 'name']);
    expect(other.stdout).toBe('service/c\n');
    const fe = await kubectl(['get', 'svc', '-A', '-l', 'tier=fe', '-o', 'name']);
    expect(fe.stdout).toBe('service/a\nservice/c\n');
    const notFe = await kubectl(['get', 'svc', '-l', 'tier notin (fe)', '-o', 'name']);
    expect(notFe.stdout).toBe('service/b\n');
    const byName = await kubectl(['get', 'svc', '-A', '--field-selector', 'metadata.name=c', '-o', 'name']);
    expect(byName.stdout).toBe('service/c\n');
    const badField = await kubectl(['get', 'svc', '--field-selector', 'spec.bogus=1']);
    expect(badField.stderr).toBe('Error from server (BadRequest): Unable to find "/v1, Resource=services" that match label selector "", field selector "spec.bogus=1": field label not supported: spec.bogus\n');
    const table = await kubectl(['get', 'svc', '-n', 'other']);
    expect(table.stdout).toMatch(/^NAME\s+AGE\nc\s+\d+s\n$/);
  });

  it('labels, annotates and merge-patches', async () => {
    await createFromYaml(SERVICE_YAML);
    expect((await kubectl(['label', 'svc', 'web', 'env=prod'])).stdout).toBe('service/web labeled\n');
    expect((await kubectl(['annotate', 'svc', 'web', 'note=hello'])).stdout).toBe('service/web annotated\n');
    expect((await kubectl(['patch', 'svc', 'web', '--type=merge', '-p', '{"spec":{"ports":[{"port":81}]}}'])).stdout).toBe('service/web patched\n');
    expect((await kubectl(['patch', 'svc', 'web', '--type=merge', '-p', '{"spec":{"ports":[{"port":81}]}}'])).stdout).toBe('service/web patched (no change)\n');
    const got = await registry.get('services', 'default', 'web');
    if (!got.ok || got.value.kind !== 'Service') throw new Error('missing');
    expect(got.value.metadata.labels).toEqual({ app: 'web', tier: 'fe', env: 'prod' });
    expect(got.value.metadata.annotations).toEqual({ note: 'hello' });
    expect(got.value.spec?.ports?.map((p) => p.port)).toEqual([81]);
  });

  it('deletes, printing what a real cluster prints, and returns', async () => {
    await createFromYaml(SERVICE_YAML);
    const del = await kubectl(['delete', 'svc', 'web']);
    expect(del).toMatchObject({ code: 0, stdout: 'service "web" deleted\n' });
    expect((await registry.get('services', 'default', 'web')).ok).toBe(false);
  });

  it('prints v1.33\'s deprecation warning for v1 Endpoints on stderr, for a list, a get that fails and a watch alike; EndpointSlices get none', async () => {
    const warning = 'Warning: v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice\n';
    const list = await kubectl(['get', 'endpoints', '-A']);
    expect(list.code).toBe(0);
    expect(list.stderr).toBe(`${warning}No resources found\n`);
    const missing = await kubectl(['get', 'ep', 'nope']);
    expect(missing.stderr).toBe(`${warning}Error from server (NotFound): endpoints "nope" not found\n`);
    const watched = await kubectl(['get', 'endpoints', '-w', '--request-timeout=2s']);
    expect(watched.stderr.startsWith(warning)).toBe(true);
    const slices = await kubectl(['get', 'endpointslices', '-A']);
    expect(slices).toMatchObject({ code: 0, stderr: 'No resources found\n' });
  });

  it('prints the server’s NotFound and 422 errors as kubectl does against a cluster', async () => {
    const missing = await kubectl(['get', 'svc', 'nope']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toBe('Error from server (NotFound): services "nope" not found\n');
    const invalid = await createFromYaml(SERVICE_YAML.replace('port: 80', 'port: 70000'));
    expect(invalid.code).toBe(1);
    expect(invalid.stderr).toBe('The Service "web" is invalid: spec.ports[0].port: Invalid value: 70000: must be between 1 and 65535, inclusive\n');
  });

  it('refuses a wrong token: kubectl reports it must be logged in', async () => {
    const wrong = await writeKubeconfig('wrong', 'not-the-token');
    const r = await kubectl(['get', 'svc'], { kubeconfig: wrong });
    expect(r.code).toBe(1);
    // What kubectl 1.33 prints against a cluster for a 401 during discovery.
    expect(r.stderr.trim().split('\n').at(-1)).toBe('error: You must be logged in to the server (the server has asked for the client to provide credentials)');
  });

  it('get -w prints a Service created after it started, from the watch', async () => {
    const cache = await mkdtemp(join(dir, 'cache-'));
    const child = spawn(KUBECTL, [`--cache-dir=${cache}`, 'get', 'svc', '-w'], { env: { ...process.env, KUBECONFIG: join(dir, 'config'), HOME: dir } });
    children.push(child);
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (d: string) => (out += d));
    // The watch is open once kubectl has listed (its list comes before the watch request).
    const deadline = Date.now() + 15_000;
    while (watchesStarted === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const createdAt = Date.now();
    const r = await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'fresh' }, spec: { ports: [{ port: 80 }] } });
    expect(r.ok).toBe(true);
    // A generous bound for a busy machine; a failure prints what kubectl had printed by then.
    while (!out.includes('fresh') && Date.now() - createdAt < 15_000) await new Promise((res) => setTimeout(res, 10));
    expect(out, `kubectl get svc -w printed:\n${out}`).toMatch(/fresh\s+\d+s/);
  });
});

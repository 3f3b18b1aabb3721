// `kubesvc env POD` and `kubesvc env --namespace NS` against a real `kubesvc up`: the objects
// are made with the real kubectl, and the variables are checked against kubelet's rules
// (upstream: pkg/kubelet/kubelet_pods.go getServiceEnvVarMap, pkg/kubelet/envvars/envvars.go):
// the Services of the pod's namespace and default/kubernetes; none but default/kubernetes
// when the pod's enableServiceLinks is false; no variables for a headless Service; names
// upper-cased with dashes as underscores; the Docker-link set for every port.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin } from '../run-bin.fixtures.js';
import { kubectl, startUp, type RunningUp } from '../up/up.fixtures.js';

const children = new Set<ChildProcess>();
const dirs: string[] = [];
let up: RunningUp | undefined;
let kubeconfig = '';
let apiURL = '';

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kubesvc-env-'));
  dirs.push(d);
  return d;
}

beforeAll(async () => {
  const dataDir = tempDir();
  const cache = tempDir();
  up = await startUp(children, dataDir, ['--proxy-mode', 'none']);
  kubeconfig = join(dataDir, 'kubeconfig');
  apiURL = /API server\s+(https:\/\/127\.0\.0\.1:\d+)/.exec(up.stdout())?.[1] ?? '';
  const container = [{ name: 'main', image: 'registry.k8s.io/pause:3.10' }];
  const objects = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'db', namespace: 'shop' }, spec: { clusterIP: '10.96.0.50', ports: [{ name: 'postgres', port: 5432 }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'peers', namespace: 'shop' }, spec: { clusterIP: 'None', selector: { app: 'peers' }, ports: [{ port: 7000 }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'other-api', namespace: 'default' }, spec: { clusterIP: '10.96.0.60', ports: [{ name: 'http', port: 80, protocol: 'TCP' }, { name: 'dns', port: 53, protocol: 'UDP' }] } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' }, spec: { containers: container } },
    { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'quiet', namespace: 'shop' }, spec: { enableServiceLinks: false, containers: container } },
  ];
  const file = join(cache, 'objects.json');
  writeFileSync(file, JSON.stringify({ apiVersion: 'v1', kind: 'List', items: objects }));
  await kubectl(kubeconfig, cache, 'create', '-f', file);
}, 120_000);

afterAll(async () => {
  if (up !== undefined && up.child.exitCode === null) {
    up.child.kill('SIGTERM');
    await up.exited;
  }
  for (const c of children) c.kill('SIGKILL');
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const KUBERNETES = [
  'KUBERNETES_SERVICE_HOST=10.96.0.1',
  'KUBERNETES_SERVICE_PORT=443',
  'KUBERNETES_SERVICE_PORT_HTTPS=443',
  'KUBERNETES_PORT=tcp://10.96.0.1:443',
  'KUBERNETES_PORT_443_TCP=tcp://10.96.0.1:443',
  'KUBERNETES_PORT_443_TCP_PROTO=tcp',
  'KUBERNETES_PORT_443_TCP_PORT=443',
  'KUBERNETES_PORT_443_TCP_ADDR=10.96.0.1',
];

function lines(stdout: string): string[] {
  return stdout.split('\n').filter((l) => l !== '').sort();
}

describe('kubesvc env, live', () => {
  it("a pod sees its namespace's Services and default/kubernetes, not a headless one nor another namespace's", async () => {
    const run = await runBin(['env', 'web', '-n', 'shop', '--kubeconfig', kubeconfig]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toEqual(
      [
        ...KUBERNETES,
        'DB_SERVICE_HOST=10.96.0.50',
        'DB_SERVICE_PORT=5432',
        'DB_SERVICE_PORT_POSTGRES=5432',
        'DB_PORT=tcp://10.96.0.50:5432',
        'DB_PORT_5432_TCP=tcp://10.96.0.50:5432',
        'DB_PORT_5432_TCP_PROTO=tcp',
        'DB_PORT_5432_TCP_PORT=5432',
        'DB_PORT_5432_TCP_ADDR=10.96.0.50',
      ].sort(),
    );
  });

  it('a pod with enableServiceLinks: false gets default/kubernetes only', async () => {
    const run = await runBin(['env', 'quiet', '-n', 'shop', '--kubeconfig', kubeconfig]);
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toEqual([...KUBERNETES].sort());
  });

  it('--namespace without a pod: a pod of that namespace; dashes become underscores, and the first port is the Docker link', async () => {
    // $KUBECONFIG is the default when --kubeconfig is not given.
    const run = await runBin(['env', '--namespace', 'default'], { env: { KUBECONFIG: kubeconfig } });
    expect(run.code).toBe(0);
    expect(lines(run.stdout)).toEqual(
      [
        ...KUBERNETES,
        'OTHER_API_SERVICE_HOST=10.96.0.60',
        'OTHER_API_SERVICE_PORT=80',
        'OTHER_API_SERVICE_PORT_HTTP=80',
        'OTHER_API_SERVICE_PORT_DNS=53',
        'OTHER_API_PORT=tcp://10.96.0.60:80',
        'OTHER_API_PORT_80_TCP=tcp://10.96.0.60:80',
        'OTHER_API_PORT_80_TCP_PROTO=tcp',
        'OTHER_API_PORT_80_TCP_PORT=80',
        'OTHER_API_PORT_80_TCP_ADDR=10.96.0.60',
        'OTHER_API_PORT_53_UDP=udp://10.96.0.60:53',
        'OTHER_API_PORT_53_UDP_PROTO=udp',
        'OTHER_API_PORT_53_UDP_PORT=53',
        'OTHER_API_PORT_53_UDP_ADDR=10.96.0.60',
      ].sort(),
    );
  });

  it('$KUBECONFIG with several files is merged as kubectl merges it; --context picks another; a missing path is skipped', async () => {
    const dir = tempDir();
    // The first file sets current-context and a context into shop on the cluster and user the
    // last file (kubesvc up's) defines.
    const extra = join(dir, 'extra.yaml');
    writeFileSync(extra, 'apiVersion: v1\nkind: Config\ncurrent-context: shop-ctx\ncontexts:\n- name: shop-ctx\n  context: {cluster: kubesvc, user: kubesvc, namespace: shop}\n');
    const KUBECONFIG = [join(dir, 'missing.yaml'), extra, kubeconfig].join(':');
    const merged = await runBin(['env', 'web'], { env: { KUBECONFIG } });
    const direct = await runBin(['env', 'web', '-n', 'shop', '--kubeconfig', kubeconfig]);
    expect(merged.stderr).toBe('');
    expect(merged.code).toBe(0);
    expect(merged.stdout).toContain('DB_SERVICE_HOST=10.96.0.50');
    expect(merged.stdout).toBe(direct.stdout);
    // kubesvc up's own context is in namespace default, where there is no pod web.
    const other = await runBin(['env', 'web', '--context', 'kubesvc'], { env: { KUBECONFIG } });
    expect(other).toMatchObject({ code: 1, stderr: 'error: Error from server (NotFound): pods "web" not found\n' });
    const bad = await runBin(['env', 'web', '--context', 'nope'], { env: { KUBECONFIG } });
    expect(bad.code).toBe(2);
    expect(bad.stderr).toBe(`error: context "nope" does not exist in ${extra}, ${kubeconfig}\n`);
  });

  it('a user whose credentials come from an exec plugin (client.authentication.k8s.io/v1) gets its token', async () => {
    const dir = tempDir();
    const token = /token: (\S+)/.exec(readFileSync(kubeconfig, 'utf8'))?.[1] ?? '';
    const plugin = join(dir, 'get-token');
    // It sees KUBERNETES_EXEC_INFO, as client-go sets it, and answers with an ExecCredential.
    writeFileSync(plugin, `#!/bin/sh\ncase "$KUBERNETES_EXEC_INFO" in *ExecCredential*) ;; *) exit 3 ;; esac\necho '{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","status":{"token":"${token}"}}'\n`, { mode: 0o755 });
    const withExec = join(dir, 'exec.yaml');
    writeFileSync(withExec, 'current-context: via-exec\ncontexts:\n- name: via-exec\n  context: {cluster: kubesvc, user: plugin, namespace: shop}\nusers:\n- name: plugin\n  user:\n    exec: {apiVersion: client.authentication.k8s.io/v1, command: ./get-token}\n');
    const run = await runBin(['env', 'web'], { env: { KUBECONFIG: `${withExec}:${kubeconfig}` } });
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('DB_SERVICE_HOST=10.96.0.50');
    writeFileSync(plugin, '#!/bin/sh\necho no >&2\nexit 1\n', { mode: 0o755 });
    const failing = await runBin(['env', 'web'], { env: { KUBECONFIG: `${withExec}:${kubeconfig}` } });
    expect(failing.code).toBe(1);
    expect(failing.stderr).toBe(`error: getting credentials: exec: executable ${plugin} failed: exit status 1: no\n`);
  });

  it("a pod that does not exist is the server's NotFound, exit 1", async () => {
    const run = await runBin(['env', 'ghost', '-n', 'shop', '--kubeconfig', kubeconfig]);
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe('error: Error from server (NotFound): pods "ghost" not found\n');
  });

  it('a control plane that is not running: says where it looked, exit 1', async () => {
    const running = up;
    if (running === undefined) throw new Error('kubesvc up did not start (see beforeAll)');
    running.child.kill('SIGTERM');
    expect(await running.exited).toBe(0);
    const run = await runBin(['env', 'web', '-n', 'shop', '--kubeconfig', kubeconfig]);
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`error: cannot reach the API server at ${apiURL}: connection refused; is \`kubesvc up\` running (and is this the kubeconfig it wrote)?\n`);
  });
});

// `kubesvc up --nodes 3 --node-zones a,b,c`: one kube-proxy per node, the first in-process, the
// others each on its own list and watch through the API, with rules under
// <data-dir>/nodes/<node>/. An `externalTrafficPolicy: Local` NodePort Service whose one pod is
// on node-2: node-2 sends the NodePort to its local endpoint, node-1 and node-3 drop it, in
// iptables mode (the README's example, run as written) and in nftables mode; `kubesvc status`
// lists the rules, and a SIGTERM or `kubesvc down` stops them all (the process exits 0, no
// watch failed). Userspace mode stays first-node-only and says so, as --proxy-mode none does.
import type { ChildProcess } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { PACKAGE_ROOT, runBin } from '../run-bin.fixtures.js';
import { e2eScope, kubectl as kubectlWith, readmeSection, runScript, startUp, until } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-up-node-proxies-');

let script: ChildProcess | undefined;
afterAll(() => {
  if (script?.pid !== undefined && script.exitCode === null) process.kill(-script.pid, 'SIGKILL');
});

const NODE_ARGS = ['--nodes', '3', '--node-zones', 'a,b,c', '--node-name', 'node'];

/** The pod on node-2 (zone b) and the externalTrafficPolicy: Local NodePort Service that selects it. */
const OBJECTS = {
  apiVersion: 'v1',
  kind: 'List',
  items: [
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-b', labels: { app: 'web' } },
      spec: { nodeSelector: { 'topology.kubernetes.io/zone': 'b' }, containers: [{ name: 'web', image: 'nginx' }] },
    },
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { type: 'NodePort', externalTrafficPolicy: 'Local', selector: { app: 'web' }, ports: [{ port: 80, targetPort: 8080, nodePort: 30080 }] },
    },
  ],
};

function readmeExample(): { code: string; output: string } {
  return readmeSection(readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8'), '### One kube-proxy per node');
}

describe('kubesvc up --nodes: one kube-proxy per node', () => {
  it('the README example (iptables): node-2 sends the NodePort of an externalTrafficPolicy: Local Service to its pod, node-1 and node-3 drop it', async () => {
    const { code, output } = readmeExample();
    expect(code).toContain('--nodes 3');
    expect(output).toContain('node-2:\n  -A KUBE-EXT-');
    const env = { ...process.env, D: join(tempDir(), 'demo') };
    const { out, err, code: exit } = await runScript(code, env, 200_000, (child) => (script = child));
    const log = existsSync(`${env.D}.log`) ? readFileSync(`${env.D}.log`, 'utf8') : '';
    expect(out, `${err}\n${log}`).toBe(output);
    expect(exit, err).toBe(0);
    // No kube-proxy's watch failed, on the way up or down.
    expect(log).not.toContain('backing off');
  }, 240_000);

  it('nftables mode: node-2 sends the NodePort to its local endpoint, node-1 and node-3 drop it; status lists every node\'s rules; SIGTERM stops them all', async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    const up = await startUp(children, dataDir, [...NODE_ARGS, '--proxy-mode', 'nftables']);
    expect(up.stderr()).toContain(`✓ 3 kube-proxies run (nftables): node-1 in-process, 2 through the API with rules in ${dataDir}/nodes/<node>/nftables/ (in 2 worker threads)\n`);
    expect(up.stdout()).toContain(`  kube-proxy       node-2: nftables rules in ${dataDir}/nodes/node-2/nftables/ruleset.nft\n`);
    const file = join(cache, 'web.json');
    writeFileSync(file, JSON.stringify(OBJECTS));
    await kubectlWith(join(dataDir, 'kubeconfig'), cache, 'create', '-f', file);

    const rules: Record<string, string> = {
      'node-1': join(dataDir, 'nftables', 'ruleset.nft'),
      'node-2': join(dataDir, 'nodes', 'node-2', 'nftables', 'ruleset.nft'),
      'node-3': join(dataDir, 'nodes', 'node-3', 'nftables', 'ruleset.nft'),
    };
    const tables = await until(
      'every node\'s ruleset with the endpoint of web',
      async () => Object.fromEntries(Object.entries(rules).map(([n, path]) => [n, readFileSync(path, 'utf8')])),
      (t) => Object.values(t).every((text) => text.includes('dnat to 10.244.1.2:8080')),
    );
    const local = 'add rule ip kube-proxy external-PFISGYVC-default/web/tcp/ goto local-PFISGYVC-default/web/tcp/';
    const drop = 'add element ip kube-proxy no-endpoint-nodeports { tcp . 30080 comment "default/web" : drop }';
    expect(tables['node-2']).toContain(`${local}\n`);
    expect(tables['node-2']).toContain('add rule ip kube-proxy local-PFISGYVC-default/web/tcp/ numgen random mod 1 vmap { 0 : goto endpoint-X665QFQS-default/web/tcp/__10.244.1.2/8080 }\n');
    expect(tables['node-2']).not.toContain(drop);
    for (const n of ['node-1', 'node-3']) {
      expect({ n, drop: tables[n]?.includes(drop), local: tables[n]?.includes('local-PFISGYVC') }).toEqual({ n, drop: true, local: false });
    }

    const status = await runBin(['status', '--data-dir', dataDir, '-o', 'json']);
    expect(status.code, status.stderr).toBe(0);
    const parsed = JSON.parse(status.stdout) as { status: { rules?: string; nodeRules?: unknown } };
    expect(parsed.status.rules).toBe(rules['node-1']);
    expect(parsed.status.nodeRules).toEqual([
      { node: 'node-2', rules: rules['node-2'] },
      { node: 'node-3', rules: rules['node-3'] },
    ]);

    // Every node's kube-proxy reports its syncs on the one /metrics, under its node's name.
    const metrics = await until(
      'a sync duration recorded for each node',
      async () => kubectlWith(join(dataDir, 'kubeconfig'), cache, 'get', '--raw', '/metrics'),
      (text) => ['node-1', 'node-2', 'node-3'].every((n) => new RegExp(`^kubeproxy_sync_proxy_rules_duration_seconds_count\\{node="${n}"\\} [1-9]`, 'm').test(text)),
    );
    expect(metrics).toMatch(/^kubeproxy_sync_proxy_rules_last_timestamp_seconds\{node="node-3"\} \d/m);

    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
    expect(up.stderr()).toContain('stopped\n');
    expect(up.stderr()).not.toContain('backing off');
  }, 240_000);

  it('userspace mode: one kube-proxy, for the first node, and the start-up line says why', async () => {
    const dataDir = tempDir();
    const up = await startUp(children, dataDir, ['--nodes', '2', '--node-name', 'node', '--proxy-mode', 'userspace']);
    expect(up.stderr()).toContain('✓ 1 kube-proxy runs, for node-1: userspace mode binds ports on this host, so node-2 has none\n');
    expect(existsSync(join(dataDir, 'nodes'))).toBe(false);
    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
  }, 120_000);

  it('--proxy-mode none: no kube-proxy on any node, and the start-up line says so', async () => {
    const dataDir = tempDir();
    const up = await startUp(children, dataDir, ['--nodes', '2', '--node-name', 'node', '--proxy-mode', 'none']);
    expect(up.stderr()).toContain('✓ No kube-proxy runs on the 2 nodes (--proxy-mode none)\n');
    expect(existsSync(join(dataDir, 'nodes'))).toBe(false);
    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
  }, 120_000);
});

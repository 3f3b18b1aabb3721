// `kubesvc up --proxy-mode nftables` through the real bin: the real kubectl creates a Service and
// its EndpointSlice, the node agent's nftables proxier syncs them into
// `<data-dir>/nftables/ruleset.nft`, and the real nft loads that file into an empty network
// namespace (`unshare -n`), which then lists the Service's chain. Needs root (CI runs as root),
// nftables and util-linux's unshare; without them the test fails saying so.
// @needs-root: loads the nftables ruleset into a throwaway network namespace (unshare -n nft -f); testkit root-only.ts refuses a run without root that selects it.
import { execFile } from 'node:child_process';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { kubectl, startUp, e2eScope } from './up.fixtures.js';

const exec = promisify(execFile);
const { children, tempDir } = e2eScope('kubesvc-up-nft-');
const SEARCH_PATH = `${process.env['PATH'] ?? ''}:/usr/sbin:/sbin`;

/** Polls `check` every 200 ms until it returns a value other than undefined, for at most 60 s; then fails with the last state seen. */
async function eventually<T>(what: string, check: () => T | undefined, state: () => string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within 60 s; last state:\n${state()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function readOr(path: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    return `(${String(error)})`;
  }
}

/** `script` run by sh in a fresh network namespace of its own. */
async function inThrowawayNetns(script: string): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await exec('unshare', ['-n', 'sh', '-c', script], { timeout: 60_000, env: { ...process.env, PATH: SEARCH_PATH } });
    return { code: 0, stdout, stderr };
  } catch (e) {
    const f = e as { code?: number | string; stdout?: string; stderr?: string; message?: string };
    return { code: typeof f.code === 'number' ? f.code : -1, stdout: f.stdout ?? '', stderr: `${f.stderr ?? ''}${typeof f.code === 'number' ? '' : (f.message ?? '')}` };
  }
}

describe('kubesvc up --proxy-mode nftables', () => {
  it("writes v1.33's table to <data-dir>/nftables/ruleset.nft as kubectl changes the Services, and nft -f loads it into an empty namespace", async () => {
    const probe = await inThrowawayNetns('nft list ruleset');
    if (probe.code !== 0) {
      throw new Error(`\`unshare -n nft list ruleset\` failed (${probe.code}): ${probe.stderr.trim()}. This test needs root, nftables and util-linux (apt-get install -y nftables util-linux); CI runs as root.`);
    }
    const dataDir = tempDir();
    const cache = tempDir();
    const up = await startUp(children, dataDir, ['--proxy-mode', 'nftables']);
    const dir = join(dataDir, 'nftables');
    const ruleset = join(dir, 'ruleset.nft');
    const lastSync = join(dir, 'last-sync.nft');
    expect(up.stderr()).toContain(`kube-proxy nftables (rules in ${dir})\n`);
    expect(up.stdout()).toContain(`  kube-proxy       nftables (v1.33) table in ${ruleset}, last sync in ${lastSync}\n`);
    // The first (full) sync: kubernetes.default, and cluster-ips-check dropping the unallocated
    // addresses of --service-cluster-ip-range (default 10.96.0.0/12).
    expect(readOr(ruleset)).toMatch(/^add element ip kube-proxy service-ips \{ 10\.96\.0\.1 \. tcp \. 443 : goto service-[A-Z0-9]{8}-default\/kubernetes\/tcp\/https \}$/m);
    expect(readOr(ruleset)).toContain('add rule ip kube-proxy cluster-ips-check ip daddr { 10.96.0.0/12 } drop comment "Drop traffic to unallocated ClusterIPs"');

    // A Service without a selector and its EndpointSlice, as kubectl creates them.
    const kubeconfig = join(dataDir, 'kubeconfig');
    const web = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80, targetPort: 8080 }] } };
    const slice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-1', labels: { 'kubernetes.io/service-name': 'web' } },
      addressType: 'IPv4',
      endpoints: [{ addresses: ['10.244.1.5'], conditions: { ready: true } }],
      ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
    };
    writeFileSync(join(cache, 'web.json'), JSON.stringify({ apiVersion: 'v1', kind: 'List', items: [web, slice] }));
    await kubectl(kubeconfig, cache, 'create', '-f', join(cache, 'web.json'));
    const ip = (await kubectl(kubeconfig, cache, 'get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).trim();
    expect(ip).toMatch(/^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);

    const serviceChain = await eventually(
      "web's service chain and its endpoint in ruleset.nft",
      () => {
        const text = readOr(ruleset);
        const chain = /^add chain ip kube-proxy (service-[A-Z0-9]{8}-default\/web\/tcp\/http)$/m.exec(text)?.[1];
        return chain !== undefined && text.includes(`add element ip kube-proxy service-ips { ${ip} . tcp . 80 : goto ${chain} }`) && /^add rule ip kube-proxy endpoint-[A-Z0-9]{8}-default\/web\/tcp\/http__10\.244\.1\.5\/8080 meta l4proto tcp dnat to 10\.244\.1\.5:8080$/m.test(text) ? chain : undefined;
      },
      () => `ruleset.nft:\n${readOr(ruleset)}\nlast-sync.nft:\n${readOr(lastSync)}\nkubesvc up's stderr:\n${up.stderr()}`,
    );
    // The partial sync that brought it: web's chains, not kubernetes'.
    expect(readOr(lastSync)).not.toContain('default/kubernetes/tcp/https');
    expect([statSync(dir).mode & 0o777, statSync(ruleset).mode & 0o777, statSync(lastSync).mode & 0o777].map((m) => m.toString(8))).toStrictEqual(['700', '644', '644']);

    // The real nft takes the whole file in an empty namespace and then holds web's chain and element.
    const loaded = await inThrowawayNetns(`nft -f '${ruleset}' && nft list table ip kube-proxy`);
    expect(loaded.stderr).toBe('');
    expect(loaded.code).toBe(0);
    expect(loaded.stdout).toContain(`chain ${serviceChain} {`);
    expect(loaded.stdout).toContain(`${ip} . tcp . 80 : goto ${serviceChain}`);

    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
  }, 180_000);
});

// `kubesvc up` as a newcomer runs it (`npm start` runs `kubesvc up`): the real bin in a child
// process, then the real kubectl with the kubeconfig it wrote, the real dig against its DNS,
// SIGTERM, and a restart on the same data dir. Ports are picked free (0) and read back from
// the summary it prints.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runBin } from '../run-bin.fixtures.js';
import { kubectl, startUp, e2eScope } from './up.fixtures.js';

const exec = promisify(execFile);
const { children, tempDir } = e2eScope('kubesvc-up-');

const up = (dataDir: string, extra: readonly string[] = []) => startUp(children, dataDir, extra);

describe('kubesvc up', () => {
  it('starts the control plane, kubectl and dig work with what it prints, SIGTERM stops it cleanly, and a restart keeps everything', async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    const first = await up(dataDir);
    const steps = first.stderr();
    for (const step of ['✓ Store opened', '✓ API listening on https://127.0.0.1:', '✓ First reconcile done', '✓ default/kubernetes at 10.96.0.1', '✓ Node agent started: DNS on 127.0.0.1:']) {
      expect(steps).toContain(step);
    }
    const summary = first.stdout();
    // v1.33's allocator: MultiCIDRServiceAllocator on, DisableAllocatorDualWrite off.
    expect(steps).toContain('✓ ClusterIPs: IPAddress objects (MultiCIDRServiceAllocator), dual write to the RangeAllocation on\n');
    expect(summary).toContain('  ClusterIPs       IPAddress objects (MultiCIDRServiceAllocator), dual write to the RangeAllocation on\n');
    const kubeconfig = join(dataDir, 'kubeconfig');
    expect(summary).toContain(`export KUBECONFIG=${kubeconfig}`);
    const dnsPort = /cluster DNS\s+127\.0\.0\.1:(\d+)/.exec(summary)?.[1];
    expect(dnsPort).toMatch(/^\d+$/);

    const svc = await kubectl(kubeconfig, cache, 'get', 'svc', 'kubernetes', '--no-headers');
    expect(svc.trim().split(/\s{2,}/).slice(0, 5)).toEqual(['kubernetes', 'ClusterIP', '10.96.0.1', '<none>', '443/TCP']);
    // --secure-port 0 picked a free port before the control plane started: the kubernetes
    // Endpoints carry it (a 0 there is refused, and the Endpoints would never be written).
    const apiPort = /API server\s+https:\/\/127\.0\.0\.1:(\d+)/.exec(summary)?.[1] ?? '';
    expect(apiPort).toMatch(/^\d+$/);
    const endpointsOf = () => kubectl(kubeconfig, cache, 'get', 'endpoints', 'kubernetes', '-o', 'jsonpath={.subsets[0].addresses[0].ip}:{.subsets[0].ports[0].port}').catch((e: Error) => e.message);
    let endpoints = await endpointsOf();
    for (let i = 0; i < 120 && endpoints !== `192.0.2.10:${apiPort}`; i++) {
      await new Promise((r) => setTimeout(r, 250));
      endpoints = await endpointsOf();
    }
    expect(endpoints).toBe(`192.0.2.10:${apiPort}`);
    expect(steps).not.toContain('unable to sync kubernetes service');
    const { stdout: answer } = await exec('dig', ['+short', '@127.0.0.1', '-p', dnsPort ?? '', 'kubernetes.default.svc.cluster.local'], { timeout: 10_000 });
    expect(answer.trim()).toBe('10.96.0.1');

    const web = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { selector: { app: 'web' }, ports: [{ port: 80 }] } };
    const file = join(cache, 'web.json');
    await import('node:fs').then((fs) => fs.writeFileSync(file, JSON.stringify(web)));
    await kubectl(kubeconfig, cache, 'create', '-f', file);
    const ip = (await kubectl(kubeconfig, cache, 'get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).trim();
    expect(ip).toMatch(/^10\.(9[6-9]|10\d|11[01])\.\d+\.\d+$/);

    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
    expect(first.stderr()).toContain('SIGTERM: stopping');
    expect(first.stderr()).toContain('stopped');

    const second = await up(dataDir);
    const again = (await kubectl(kubeconfig, tempDir(), 'get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).trim();
    expect(again).toBe(ip);
    const services = await kubectl(kubeconfig, tempDir(), 'get', 'svc', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name');
    expect(services.trim().split('\n').sort()).toEqual(['kubernetes', 'web']);
    second.child.kill('SIGINT');
    expect(await second.exited).toBe(0);
  }, 180_000);

  it("refuses a /30 service range with kube-apiserver's message and exit code 2", async () => {
    const r = await runBin(['up', '--data-dir', tempDir(), '--secure-port', '0', '--dns-port', '0', '--advertise-address', '192.0.2.10', '--service-cluster-ip-range', '10.96.0.0/30'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    // upstream: pkg/controlplane/apiserver/options (ServiceIPRange): a range of fewer than 8
    // addresses refuses to start; cmd/kube-apiserver/app/options (getServiceIPAndRanges) says
    // which range.
    expect(r.stderr.trim().split('\n').at(-1)).toBe(
      'error: error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses',
    );
    expect(r.stderr).toContain('✗ Starting the controllers');
  }, 90_000);

  it("refuses a service range that is not a CIDR with kube-apiserver's message and exit code 2", async () => {
    const r = await runBin(['up', '--data-dir', tempDir(), '--secure-port', '0', '--dns-port', '0', '--advertise-address', '192.0.2.10', '--service-cluster-ip-range', 'bad'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    // upstream: cmd/kube-apiserver/app/options/completion.go (getServiceIPAndRanges).
    expect(r.stderr.trim().split('\n').at(-1)).toBe('error: service-cluster-ip-range[0] is not a valid cidr');
    expect(r.stderr).toContain('✗ Starting the controllers');
  }, 90_000);

  it('says which address and flag when the API port is taken', async () => {
    const dataDir = tempDir();
    const first = await up(dataDir);
    const port = /API server\s+https:\/\/127\.0\.0\.1:(\d+)/.exec(first.stdout())?.[1] ?? '';
    const r = await runBin(['up', '--data-dir', tempDir(), '--secure-port', port, '--dns-port', '0', '--advertise-address', '192.0.2.10'], { timeoutMs: 60_000 });
    expect(r.code).toBe(2);
    expect(r.stderr).toContain(`error: 127.0.0.1:${port} is already in use: stop what listens there, or pick another port with --secure-port`);
    first.child.kill('SIGTERM');
    expect(await first.exited).toBe(0);
  }, 120_000);
});

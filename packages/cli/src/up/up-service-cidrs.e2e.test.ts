// Service IPs as Kubernetes v1.33 allocates them, with the real kubectl against `kubesvc up`:
// the default ServiceCIDR and the IPAddress of kubernetes.default; upstream's task "Extend
// Service IP Ranges" step by step (a full /29, the refused create, a second ServiceCIDR, the
// create that succeeds from it, its delete held back while IPs in it are used); an IPAddress
// deleted by hand under a live Service recreated by the repair loop with upstream's event; and a
// data dir written by the bitmap allocator migrated on restart, no IP lost and none doubled.
// upstream: https://kubernetes.io/docs/tasks/network/extend-service-ip-ranges/ (v1.33),
//           pkg/registry/core/service/ipallocator/controller/repairip.go,
//           pkg/controller/servicecidrs/servicecidrs_controller.go
import { execFile } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { startUp, e2eScope } from './up.fixtures.js';

const exec = promisify(execFile);
const { children, tempDir } = e2eScope('kubesvc-cidrs-');

interface Kubectl {
  (...args: string[]): Promise<{ code: number; stdout: string; stderr: string }>;
}

function kubectlFor(dataDir: string): Kubectl {
  const cache = tempDir();
  return async (...args) => {
    try {
      const { stdout, stderr } = await exec('/usr/bin/kubectl', ['--kubeconfig', join(dataDir, 'kubeconfig'), `--cache-dir=${cache}`, ...args], { timeout: 30_000 });
      return { code: 0, stdout, stderr };
    } catch (e) {
      const f = e as { code?: number; stdout?: string; stderr?: string };
      return { code: typeof f.code === 'number' ? f.code : -1, stdout: f.stdout ?? '', stderr: f.stderr ?? '' };
    }
  };
}

/** Polls `probe` until it returns a value (not undefined), up to 60 s; fails with the last state seen. */
async function eventually<T>(what: string, probe: () => Promise<{ value?: T; state: string }>): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const r = await probe();
    if (r.value !== undefined) return r.value;
    if (Date.now() > deadline) throw new Error(`${what}: not reached within 60 s; last state:\n${r.state}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

const rows = (text: string): string[][] =>
  text
    .trim()
    .split('\n')
    .map((l) => l.trim().split(/\s{2,}/));

describe('kubesvc up with ServiceCIDRs and IPAddresses (v1.33, INV-API-DEFAULT-SVCCIDR)', () => {
  it('extends a full /29 with a second ServiceCIDR, and holds that one back from deletion while IPs in it are used', async () => {
    const dataDir = tempDir();
    await startUp(children, dataDir, ['--service-cluster-ip-range', '10.96.0.0/29']);
    const kubectl = kubectlFor(dataDir);

    const cidrs = await kubectl('get', 'servicecidrs');
    expect(rows(cidrs.stdout).map((r) => r.slice(0, 2))).toEqual([
      ['NAME', 'CIDRS'],
      ['kubernetes', '10.96.0.0/29'],
    ]);
    const first = await kubectl('get', 'ipaddress', '10.96.0.1');
    expect(rows(first.stdout).map((r) => r.slice(0, 2))).toEqual([
      ['NAME', 'PARENTREF'],
      ['10.96.0.1', 'services/default/kubernetes'],
    ]);

    // .1 is kubernetes', .2 to .6 are left: five creates fill the range, the sixth is refused.
    for (let i = 1; i <= 5; i++) expect(await kubectl('create', 'service', 'clusterip', `test-svc-${i}`, '--tcp=80:80')).toMatchObject({ code: 0 });
    const refused = await kubectl('create', 'service', 'clusterip', 'test-svc-6', '--tcp=80:80');
    expect(refused.code).toBe(1);
    expect(refused.stderr).toBe('error: failed to create ClusterIP service: Internal error occurred: failed to allocate a serviceIP: range is full\n');

    const file = join(dataDir, 'newcidr1.yaml');
    writeFileSync(file, 'apiVersion: networking.k8s.io/v1\nkind: ServiceCIDR\nmetadata:\n  name: newcidr1\nspec:\n  cidrs:\n  - 10.96.0.0/24\n');
    expect(await kubectl('apply', '-f', file)).toMatchObject({ code: 0, stdout: 'servicecidr.networking.k8s.io/newcidr1 created\n' });
    // The ServiceCIDR controller puts its finalizer on it and sets it Ready.
    await eventually('newcidr1 Ready with its finalizer', async () => {
      const r = await kubectl('get', 'servicecidr', 'newcidr1', '-o', 'jsonpath={.metadata.finalizers} {.status.conditions[0].type}={.status.conditions[0].status}');
      return { value: r.stdout === '["networking.k8s.io/service-cidr-finalizer"] Ready=True' ? true : undefined, state: r.stdout + r.stderr };
    });
    expect(await kubectl('create', 'service', 'clusterip', 'test-svc-6', '--tcp=80:80')).toMatchObject({ code: 0 });
    const ip = (await kubectl('get', 'svc', 'test-svc-6', '-o', 'jsonpath={.spec.clusterIP}')).stdout;
    expect(ip).toMatch(/^10\.96\.0\.(\d+)$/);
    expect(Number(ip.split('.')[3])).toBeGreaterThan(7);
    expect(rows((await kubectl('get', 'ipaddress', ip)).stdout)[1]?.slice(0, 2)).toEqual([ip, 'services/default/test-svc-6']);

    // Deleting it while test-svc-6 holds an IP only it holds: Terminating, Ready=False, and kept.
    expect(await kubectl('delete', 'servicecidr', 'newcidr1', '--wait=false')).toMatchObject({ code: 0 });
    const terminating = await eventually('newcidr1 Terminating', async () => {
      const r = await kubectl('get', 'servicecidr', 'newcidr1', '-o', 'json');
      const object = r.code === 0 ? (JSON.parse(r.stdout) as { metadata: { deletionTimestamp?: string }; status?: { conditions?: { type: string; status: string; reason: string; message: string }[] } }) : undefined;
      const ready = object?.status?.conditions?.find((c) => c.type === 'Ready');
      return { value: object?.metadata.deletionTimestamp !== undefined && ready?.status === 'False' ? ready : undefined, state: r.stdout + r.stderr };
    });
    expect(terminating).toMatchObject({
      reason: 'Terminating',
      message: 'There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR',
    });
    // Once the Service goes, so does the ServiceCIDR.
    expect(await kubectl('delete', 'service', 'test-svc-6')).toMatchObject({ code: 0 });
    await eventually('newcidr1 gone', async () => {
      const r = await kubectl('get', 'servicecidr', 'newcidr1');
      return { value: r.code === 1 && r.stderr.includes('NotFound') ? true : undefined, state: r.stdout + r.stderr };
    });
    // And the range is the /29 again: full.
    expect((await kubectl('create', 'service', 'clusterip', 'test-svc-7', '--tcp=80:80')).stderr).toContain('range is full');
  }, 240_000);

  it('recreates an IPAddress deleted by hand under a live Service, with upstream event', async () => {
    const dataDir = tempDir();
    await startUp(children, dataDir, ['--repair-services-interval', '1s']);
    const kubectl = kubectlFor(dataDir);
    expect(await kubectl('create', 'service', 'clusterip', 'web', '--tcp=80:80')).toMatchObject({ code: 0 });
    const ip = (await kubectl('get', 'svc', 'web', '-o', 'jsonpath={.spec.clusterIP}')).stdout;
    expect(await kubectl('delete', 'ipaddress', ip)).toMatchObject({ code: 0, stdout: `ipaddress.networking.k8s.io "${ip}" deleted\n` });
    await eventually('the IPAddress back', async () => {
      const r = await kubectl('get', 'ipaddress', ip, '-o', 'jsonpath={.spec.parentRef.resource}/{.spec.parentRef.namespace}/{.spec.parentRef.name}');
      return { value: r.stdout === 'services/default/web' ? true : undefined, state: r.stdout + r.stderr };
    });
    const event = await eventually('the repair event', async () => {
      const r = await kubectl('get', 'events', '--field-selector', 'reason=ClusterIPNotAllocated', '-o', 'jsonpath={range .items[*]}{.type} {.reason} {.involvedObject.kind}/{.involvedObject.name}: {.message}{"\\n"}{end}');
      return { value: r.stdout.includes('web') ? r.stdout : undefined, state: r.stdout + r.stderr };
    });
    expect(event).toContain(`Warning ClusterIPNotAllocated Service/web: Cluster IP [IPv4]: ${ip} is not allocated; repairing\n`);
  }, 180_000);

  it('a data dir of the bitmap allocator, restarted with the IPAddress allocator, keeps every IP and hands none out twice', async () => {
    const dataDir = tempDir();
    const old = await startUp(children, dataDir, ['--feature-gates', 'MultiCIDRServiceAllocator=false']);
    let kubectl = kubectlFor(dataDir);
    for (let i = 1; i <= 4; i++) expect(await kubectl('create', 'service', 'clusterip', `old-${i}`, '--tcp=80:80')).toMatchObject({ code: 0 });
    // The bitmap allocator makes no IPAddress and no ServiceCIDR.
    expect((await kubectl('get', 'ipaddresses', '-o', 'name')).stdout).toBe('');
    const before = (await kubectl('get', 'svc', '-o', 'jsonpath={range .items[*]}{.metadata.name}={.spec.clusterIP}{"\\n"}{end}')).stdout.trim().split('\n').sort();
    old.child.kill('SIGTERM');
    expect(await old.exited).toBe(0);

    await startUp(children, dataDir);
    kubectl = kubectlFor(dataDir);
    // The repair loop gives every Service that held an IP its IPAddress.
    const ipAddresses = await eventually('an IPAddress for every Service', async () => {
      const r = await kubectl('get', 'ipaddresses', '-o', 'jsonpath={range .items[*]}{.spec.parentRef.name}={.metadata.name}{"\\n"}{end}');
      const got = r.stdout.trim().split('\n').filter((l) => l !== '').sort();
      return { value: got.length === before.length ? got : undefined, state: r.stdout + r.stderr };
    });
    expect(ipAddresses).toEqual(before);
    for (let i = 1; i <= 4; i++) expect(await kubectl('create', 'service', 'clusterip', `new-${i}`, '--tcp=80:80')).toMatchObject({ code: 0 });
    const after = (await kubectl('get', 'svc', '-o', 'jsonpath={range .items[*]}{.spec.clusterIP}{"\\n"}{end}')).stdout.trim().split('\n');
    expect(after).toHaveLength(before.length + 4);
    expect(new Set(after).size).toBe(after.length);
  }, 240_000);
});

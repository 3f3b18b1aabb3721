// `kubesvc dns` and `kubesvc env` through the real bin.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { FIXTURES, runBin } from '../run-bin.fixtures.js';

const CLUSTER = join(FIXTURES, 'cluster.yaml');

describe('kubesvc dns', () => {
  test('a Service name: its ClusterIP, TTL 5, as dig prints the answer section', async () => {
    const run = await runBin(['dns', '-f', CLUSTER, 'kubernetes.default.svc.cluster.local']);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain(';; ->>HEADER<<- opcode: QUERY, status: NOERROR\n');
    expect(run.stdout).toContain(';; ANSWER SECTION:\nkubernetes.default.svc.cluster.local. 5\tIN A\t10.96.0.1\n');
  });

  test('SRV of a headless Service: one record per endpoint, weight 100/2, the addresses in the additional section', async () => {
    const run = await runBin(['dns', '-f', CLUSTER, '_pg._tcp.db.shop.svc.cluster.local', 'srv']);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/_pg\._tcp\.db\.shop\.svc\.cluster\.local\. 5 IN SRV\t0 50 5432 db-0\.db\.shop\.svc\.cluster\.local\./);
    expect(run.stdout).toMatch(/db-1\.db\.shop\.svc\.cluster\.local\.\t5 IN\tA\t10\.244\.2\.9/);
  });

  test('-x: the PTR of a ClusterIP', async () => {
    const run = await runBin(['dns', '-f', CLUSTER, '-x', '10.96.0.10', '-o', 'json']);
    expect(run.code).toBe(0);
    const data = JSON.parse(run.stdout) as { question: { name: string; type: string }; answer: Array<{ data: string }> };
    expect(data.question).toEqual({ name: '10.0.96.10.in-addr.arpa', type: 'PTR' });
    expect(data.answer.map((a) => a.data)).toEqual(['kube-dns.kube-system.svc.cluster.local']);
  });

  test('a name that does not exist: NXDOMAIN with the SOA, exit code 1', async () => {
    const run = await runBin(['dns', '-f', CLUSTER, 'cache.shop.svc.cluster.local']);
    expect(run.code).toBe(1);
    expect(run.stdout).toContain('status: NXDOMAIN');
    expect(run.stdout).toContain('cluster.local.\t\t5\tIN\tSOA\tns.dns.cluster.local. hostmaster.cluster.local. 1 7200 1800 86400 5\n');
  });
});

describe('kubesvc env', () => {
  test("a pod in shop sees its namespace's Services and default/kubernetes, with the docker-link set", async () => {
    const run = await runBin(['env', '-f', CLUSTER, '--namespace', 'shop']);
    expect(run.code).toBe(0);
    const vars = run.stdout.trimEnd().split('\n');
    expect(vars).toContain('WEB_SERVICE_HOST=10.96.100.10');
    expect(vars).toContain('WEB_SERVICE_PORT_HTTP=80');
    expect(vars).toContain('WEB_PORT=tcp://10.96.100.10:80');
    expect(vars).toContain('WEB_PORT_80_TCP_PROTO=tcp');
    expect(vars).toContain('API_PORT_443_TCP_ADDR=10.96.0.20');
    // Headless db has no ClusterIP; kube-dns is in another namespace.
    expect(vars.filter((v) => v.startsWith('DB_') || v.startsWith('KUBE_DNS_'))).toEqual([]);
  });

  test('--no-service-links: only the eight kubernetes variables', async () => {
    const run = await runBin(['env', '-f', CLUSTER, '-n', 'shop', '--no-service-links', '-o', 'json']);
    const data = JSON.parse(run.stdout) as { env: Array<{ name: string }> };
    expect(data.env.map((v) => v.name)).toEqual([
      'KUBERNETES_SERVICE_HOST',
      'KUBERNETES_SERVICE_PORT',
      'KUBERNETES_SERVICE_PORT_HTTPS',
      'KUBERNETES_PORT',
      'KUBERNETES_PORT_443_TCP',
      'KUBERNETES_PORT_443_TCP_PROTO',
      'KUBERNETES_PORT_443_TCP_PORT',
      'KUBERNETES_PORT_443_TCP_ADDR',
    ]);
  });

  test("a pod of the dump: its spec.enableServiceLinks decides, and a pod not in the dump is exit 1", async () => {
    const pods = `
---
apiVersion: v1
kind: Pod
metadata: {name: quiet, namespace: shop}
spec: {enableServiceLinks: false, containers: [{name: main, image: pause}]}
---
apiVersion: v1
kind: Pod
metadata: {name: chatty, namespace: shop}
spec: {containers: [{name: main, image: pause}]}
`;
    const stdin = readFileSync(CLUSTER, 'utf8') + pods;
    const quiet = await runBin(['env', '-f', '-', '-n', 'shop', 'quiet'], { stdin });
    expect(quiet.code).toBe(0);
    expect(quiet.stdout.trimEnd().split('\n').every((v) => v.startsWith('KUBERNETES_'))).toBe(true);
    expect(quiet.stdout.trimEnd().split('\n')).toHaveLength(8);
    const chatty = await runBin(['env', '-f', '-', '-n', 'shop', 'chatty'], { stdin });
    expect(chatty.stdout.trimEnd().split('\n')).toContain('WEB_SERVICE_HOST=10.96.100.10');
    const ghost = await runBin(['env', '-f', '-', '-n', 'shop', 'ghost'], { stdin });
    expect(ghost.code).toBe(1);
    expect(ghost.stderr.trimEnd().split('\n').at(-1)).toBe('error: -: pod shop/ghost is not in the dump');
  });
});

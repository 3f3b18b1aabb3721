// `kubesvc doctor` without -f, against a real `kubesvc up`: the objects are made with the real
// kubectl, the endpoint controllers and the simulated kubelet of `up` make the pods Ready and
// write their Endpoints and EndpointSlices, and the doctor reads them back from the API server.
import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBin, type BinRun } from '../run-bin.fixtures.js';
import { kubectl, startUp, type RunningUp } from '../up/up.fixtures.js';

const children = new Set<ChildProcess>();
const dirs: string[] = [];
let up: RunningUp | undefined;
let kubeconfig = '';

function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kubesvc-doctor-'));
  dirs.push(d);
  return d;
}

beforeAll(async () => {
  const dataDir = tempDir();
  const cache = tempDir();
  up = await startUp(children, dataDir, ['--proxy-mode', 'none']);
  kubeconfig = join(dataDir, 'kubeconfig');
  const objects = [
    { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'shop' } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'shop' }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, targetPort: 'http' }] } },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: 'lonely', namespace: 'shop' }, spec: { selector: { app: 'web', tier: 'front' }, ports: [{ port: 80, targetPort: 8080 }] } },
    {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'web-1', namespace: 'shop', labels: { app: 'web' } },
      spec: { containers: [{ name: 'main', image: 'registry.k8s.io/pause:3.10', ports: [{ name: 'http', containerPort: 8080 }] }] },
    },
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

interface JsonFinding {
  readonly code: string;
  readonly severity: string;
  readonly service: string;
  readonly evidence: readonly string[];
}

/** Runs the doctor until `done` holds for its findings, within a generous bound; fails with the last run seen. */
async function doctorUntil(done: (findings: readonly JsonFinding[]) => boolean): Promise<{ run: BinRun; findings: JsonFinding[] }> {
  let last: BinRun | undefined;
  const deadline = Date.now() + 90_000;
  while (Date.now() < deadline) {
    last = await runBin(['doctor', '-n', 'shop', '--kubeconfig', kubeconfig, '-o', 'json']);
    if (last.stdout !== '') {
      const findings = (JSON.parse(last.stdout) as { findings: JsonFinding[] }).findings;
      if (done(findings)) return { run: last, findings };
    }
    await new Promise((r) => setTimeout(r, 1000));
  }
  throw new Error(`the doctor did not converge; last run: exit ${String(last?.code)}\n${last?.stderr ?? ''}\n${last?.stdout ?? ''}`);
}

describe('kubesvc doctor, live', () => {
  it('reads the Services, pods, Endpoints, EndpointSlices and Nodes of the running control plane', async () => {
    const { run, findings } = await doctorUntil((fs) => !fs.some((f) => f.service === 'shop/web'));
    expect(run.stderr).toBe('');
    // lonely selects no pod: an error, so exit 1; web, whose pod is Ready and declares its
    // named port, with the Endpoints and slices the controllers wrote, has nothing.
    expect(run.code).toBe(1);
    expect(findings.map((f) => `${f.service} ${f.severity} ${f.code}`)).toEqual(['shop/lonely error SelectorMatchesNoPod']);
    expect(findings[0]?.evidence).toContain('nearest: pod shop/web-1 matches 1 of 2 labels; differs: tier absent (selector: "front")');
  }, 120_000);

  it('without a kubeconfig there: a usage error', async () => {
    const run = await runBin(['doctor', '--kubeconfig', join(tempDir(), 'none')]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/no kubeconfig there/);
  });
});

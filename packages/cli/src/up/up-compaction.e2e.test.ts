// `kubesvc up --etcd-compaction-interval`: the store's history is compacted as kube-apiserver
// compacts etcd's, so a watch from a resourceVersion older than the last compaction gets
// upstream's 410 "too old resource version", and a bad value is a usage error. Real bin, real
// kubectl (its own cache dir), SQLite in a temp data dir.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../run-bin.fixtures.js';
import { kubectl, startUp, e2eScope } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-compaction-');

const SERVICE = `apiVersion: v1
kind: Service
metadata:
  name: first
spec:
  selector:
    app: first
  ports:
  - port: 80
`;

describe('kubesvc up --etcd-compaction-interval', () => {
  it('compacts the history: a watch from resourceVersion 1 gets 410 Gone once two intervals have passed', async () => {
    const dataDir = tempDir();
    const cacheDir = tempDir();
    await startUp(children, dataDir, ['--etcd-compaction-interval', '1s']);
    const kubeconfig = join(dataDir, 'kubeconfig');
    const file = join(tempDir(), 'svc.yaml');
    writeFileSync(file, SERVICE);
    expect(await kubectl(kubeconfig, cacheDir, 'apply', '-f', file)).toBe('service/first created\n');
    // The first round records the revision, the second compacts to it: within about 2 s, and
    // the loop allows 20 s for a loaded machine.
    const watchFromOne = '/api/v1/namespaces/default/services?watch=1&resourceVersion=1&timeoutSeconds=1';
    const deadline = Date.now() + 20_000;
    let answer = await kubectl(kubeconfig, cacheDir, 'get', '--raw', watchFromOne);
    while (!answer.includes('"code":410') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 500));
      answer = await kubectl(kubeconfig, cacheDir, 'get', '--raw', watchFromOne);
    }
    const event = JSON.parse(answer.trim().split('\n')[0] ?? '') as { type: string; object: { kind: string; reason: string; code: number; message: string } };
    expect(event.type).toBe('ERROR');
    expect(event.object).toMatchObject({ kind: 'Status', reason: 'Expired', code: 410 });
    expect(event.object.message).toMatch(/^too old resource version: 1 \(\d+\)$/);
    // The live state is whole.
    expect(await kubectl(kubeconfig, cacheDir, 'get', 'svc', 'first', '-o', 'jsonpath={.metadata.name}')).toBe('first');
  }, 90_000);

  it('refuses a value that is neither 0 nor a duration of at least a second, as a usage error', async () => {
    const run = await runBin(['up', '--data-dir', tempDir(), '--etcd-compaction-interval', '10ms']);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--etcd-compaction-interval must be 0 (off) or a duration of at least 1s, such as 5m0s, not "10ms"');
  });
});

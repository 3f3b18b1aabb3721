// Graceful pod deletion through `kubesvc up` with the real kubectl: the README's "Deleting a
// pod" session, its manifest read from the README. A deleted pod shows Terminating, its
// EndpointSlice endpoint turns ready false, serving true, terminating true and its Endpoints
// address goes, until the simulated kubelet deletes it at its deletionTimestamp; `kubectl
// delete` waits for that; --grace-period=0 --force deletes at once. Each line of output checked
// here is the README's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../run-bin.fixtures.js';
import { e2eScope, startUp, until, kubectlRun } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-up-graceful-');

function readmeSection(): string {
  const readme = readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('### Deleting a pod: graceful deletion');
  return readme.slice(start, readme.indexOf('\n### ', start + 1));
}

/** The table's rows, columns split on runs of spaces, without the AGE column (the last). */
function rowsWithoutAge(table: string): string[][] {
  return table
    .trim()
    .split('\n')
    .map((line) => line.split(/\s+/).slice(0, -1));
}

describe('kubesvc up: graceful pod deletion', () => {
  it("runs the README session: Terminating for the pod's grace period, the EndpointSlice's terminating endpoint, then gone; kubectl delete waits; --force deletes at once", async () => {
    const section = readmeSection();
    const manifest = /```yaml\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    // Long enough for a loaded machine to see the pod Terminating between polls.
    expect(manifest).toContain('terminationGracePeriodSeconds: 10');
    const transcript = /```console\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
    /** A command of the session and what it printed, which the README must show as they are. */
    const shown = (command: string, output: string) => expect(transcript).toContain(`$ kubectl ${command}\n${output}`);

    const dataDir = tempDir();
    const cache = tempDir();
    await startUp(children, dataDir);
    const kubeconfig = join(dataDir, 'kubeconfig');
    const run = (...args: string[]) => kubectlRun(kubeconfig, cache, ...args);
    const kubectl = async (...args: string[]) => {
      const r = await run(...args);
      if (r.code !== 0) throw new Error(`kubectl ${args.join(' ')} exited ${r.code}: ${r.stderr}`);
      return r.stdout;
    };
    const file = join(cache, 'graceful.yaml');
    writeFileSync(file, manifest);

    const applied = await kubectl('apply', '-f', file);
    shown('apply -f graceful.yaml', applied);
    const ready = await until(
      'web-0 and web-1 Running and Ready',
      async () => rowsWithoutAge(await kubectl('get', 'pods')),
      (rows) => rows.length === 3 && rows.slice(1).every((r) => r[1] === '1/1' && r[2] === 'Running'),
    );
    expect(ready.map((r) => r[0])).toEqual(['NAME', 'web-0', 'web-1']);
    const slice = ['get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'jsonpath={range .items[*].endpoints[*]}{.targetRef.name} {.conditions}{"\\n"}{end}'];
    await until(
      'both endpoints ready in the EndpointSlice',
      async () => (await kubectl(...slice)).trim().split('\n').sort(),
      (lines) => lines.length === 2 && lines.every((l) => l.endsWith('{"ready":true,"serving":true,"terminating":false}')),
    );

    const deleted = await kubectl('delete', 'pod', 'web-0', '--wait=false');
    expect(deleted).toBe('pod "web-0" deleted\n');
    shown('delete pod web-0 --wait=false', deleted);
    const marked = await kubectl('get', 'pod', 'web-0', '-o', 'custom-columns=DELETION:.metadata.deletionTimestamp,GRACE:.metadata.deletionGracePeriodSeconds', '--no-headers');
    expect(marked).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ {3}10\n$/);

    const terminating = await until(
      'web-0 Terminating, its endpoint serving and terminating, and gone from Endpoints',
      async () => ({
        pods: rowsWithoutAge(await kubectl('get', 'pods')),
        slice: (await kubectl(...slice)).trim().split('\n').sort(),
        endpoints: (await kubectl('get', 'endpoints', 'web', '-o', 'jsonpath={.subsets[*].addresses[*].targetRef.name}')).trim(),
      }),
      (s) => s.pods.some((r) => r[0] === 'web-0' && r[2] === 'Terminating') && s.slice.includes('web-0 {"ready":false,"serving":true,"terminating":true}') && s.endpoints === 'web-1',
    );
    expect(terminating.pods).toEqual([
      ['NAME', 'READY', 'STATUS', 'RESTARTS'],
      ['web-0', '1/1', 'Terminating', '0'],
      ['web-1', '1/1', 'Running', '0'],
    ]);
    expect(terminating.slice).toEqual(['web-0 {"ready":false,"serving":true,"terminating":true}', 'web-1 {"ready":true,"serving":true,"terminating":false}']);
    expect(section).toContain(`${terminating.slice.join('\n')}\n`);
    expect(section).toContain(`$ kubectl get endpoints web -o jsonpath='{.subsets[*].addresses[*].targetRef.name}'\nweb-1\n`);
    expect(section).toContain('web-0   1/1     Terminating   0');

    const gone = await until(
      'web-0 deleted by the kubelet, and out of the EndpointSlice',
      async () => ({ pods: rowsWithoutAge(await kubectl('get', 'pods')), slice: (await kubectl(...slice)).trim().split('\n') }),
      (s) => s.pods.length === 2 && s.slice.length === 1,
    );
    expect(gone).toEqual({ pods: [['NAME', 'READY', 'STATUS', 'RESTARTS'], ['web-1', '1/1', 'Running', '0']], slice: ['web-1 {"ready":true,"serving":true,"terminating":false}'] });
    expect((await run('get', 'pod', 'web-0')).stderr).toBe('Error from server (NotFound): pods "web-0" not found\n');

    // kubectl delete waits (--wait=true) until the kubelet has deleted the pod.
    const waited = await kubectl('delete', 'pod', 'web-1', '--grace-period=1');
    expect(waited).toBe('pod "web-1" deleted\n');
    shown('delete pod web-1 --grace-period=1    # returns once the pod is gone', waited);
    expect((await run('get', 'pod', 'web-1')).stderr).toBe('Error from server (NotFound): pods "web-1" not found\n');

    const created = await kubectl('run', 'web-2', '--image=nginx:1.27');
    shown('run web-2 --image=nginx:1.27', created);
    await until('web-2 on its node', async () => (await kubectl('get', 'pod', 'web-2', '-o', 'jsonpath={.spec.nodeName}')).trim(), (n) => n !== '');
    const forced = await run('delete', 'pod', 'web-2', '--grace-period=0', '--force');
    expect(forced.code).toBe(0);
    expect(forced.stdout).toBe('pod "web-2" force deleted\n');
    shown('delete pod web-2 --grace-period=0 --force', `${forced.stderr}${forced.stdout}`);
    const none = await run('get', 'pods');
    expect(none.stderr).toBe('No resources found in default namespace.\n');
    shown('get pods', none.stderr);
  }, 240_000);
});

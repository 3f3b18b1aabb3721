// The garbage collector through `kubesvc up` with the real kubectl: the README's "Owners and
// dependents" session. A pod owned by another (ownerReferences with its uid) goes after its
// owner with --cascade=background, before it with --cascade=foreground (kubectl's wait covers
// both), and stays, its reference taken off, with --cascade=orphan. Each line of output checked
// here is the README's.
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { PACKAGE_ROOT } from '../run-bin.fixtures.js';
import { e2eScope, startUp, until, kubectlRun } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-up-gc-');

function readmeTranscript(): string {
  const readme = readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf('### Owners and dependents: the garbage collector');
  const section = readme.slice(start, readme.indexOf('\n### ', start + 1));
  return /```console\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
}

function pod(name: string, ownerReferences?: object[]): object {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, ...(ownerReferences === undefined ? {} : { ownerReferences }) },
    spec: { terminationGracePeriodSeconds: 1, containers: [{ name: 'web', image: 'nginx:1.27' }] },
  };
}

describe('kubesvc up: the garbage collector', () => {
  it('runs the README session: --cascade=foreground deletes the child first, orphan keeps it without its reference, background deletes it after', async () => {
    const transcript = readmeTranscript();
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
    const create = async (object: object) => {
      const file = join(cache, 'object.json');
      writeFileSync(file, JSON.stringify(object));
      await kubectl('create', '-f', file);
    };
    /** parent, and child owned by it, both Running on the node. */
    const family = async () => {
      await create(pod('parent'));
      const uid = (await kubectl('get', 'pod', 'parent', '-o', 'jsonpath={.metadata.uid}')).trim();
      await create(pod('child', [{ apiVersion: 'v1', kind: 'Pod', name: 'parent', uid, blockOwnerDeletion: true }]));
      await until(
        'parent and child Running',
        async () => (await kubectl('get', 'pods', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name,PHASE:.status.phase')).trim(),
        (text) => text === 'child    Running\nparent   Running',
      );
    };
    const pods = async () => {
      const r = await run('get', 'pods', '--no-headers', '-o', 'custom-columns=NAME:.metadata.name');
      return r.stdout.trim();
    };

    await family();
    const foreground = await kubectl('delete', 'pod', 'parent', '--cascade=foreground');
    expect(foreground).toBe('pod "parent" deleted\n');
    shown('delete pod parent --cascade=foreground', foreground);
    // kubectl waited for the parent, which went only after its child.
    const none = await run('get', 'pods');
    expect(none.stderr).toBe('No resources found in default namespace.\n');
    shown('get pods', none.stderr);

    await family();
    const orphan = await kubectl('delete', 'pod', 'parent', '--cascade=orphan');
    expect(orphan).toBe('pod "parent" deleted\n');
    shown('delete pod parent --cascade=orphan', orphan);
    const orphaned = await kubectl('get', 'pods', '-o', 'custom-columns=NAME:.metadata.name,OWNERS:.metadata.ownerReferences');
    expect(orphaned).toBe('NAME    OWNERS\nchild   <none>\n');
    shown('get pods -o custom-columns=NAME:.metadata.name,OWNERS:.metadata.ownerReferences', orphaned);
    expect(await kubectl('delete', 'pod', 'child')).toBe('pod "child" deleted\n');

    await family();
    const background = await kubectl('delete', 'pod', 'parent');
    expect(background).toBe('pod "parent" deleted\n');
    shown('delete pod parent    # --cascade=background; the child goes after it', background);
    expect(await until('the child collected', pods, (text) => text === '')).toBe('');
  }, 240_000);
});

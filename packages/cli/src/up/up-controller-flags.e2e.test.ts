// kube-controller-manager's endpoint controller flags on `kubesvc up`: --max-endpoints-per-slice
// splits a Service's endpoints over slices of that size, and a value out of upstream's bounds
// is a usage error worded as kube-controller-manager words it. Real bin, real kubectl.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../run-bin.fixtures.js';
import { kubectl as kubectlWith, startUp, e2eScope } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-up-kcm-flags-');

describe('kubesvc up --max-endpoints-per-slice, --mirroring-max-endpoints-per-subset', () => {
  it('refuses values outside 1..1000 and values that are not integers, as kube-controller-manager does', async () => {
    const cases: ReadonlyArray<readonly [readonly string[], string]> = [
      [['--max-endpoints-per-slice', '0'], 'max-endpoints-per-slice must not be less than 1, but got 0'],
      [['--max-endpoints-per-slice', '1001'], 'max-endpoints-per-slice must not be more than 1000, but got 1001'],
      [['--max-endpoints-per-slice', 'ten'], 'invalid argument "ten" for "--max-endpoints-per-slice" flag: strconv.ParseInt: parsing "ten": invalid syntax'],
      [['--mirroring-max-endpoints-per-subset', '0'], 'mirroring-max-endpoints-per-subset must not be less than 1, but got 0'],
    ];
    for (const [flags, message] of cases) {
      const run = await runBin(['up', '--data-dir', tempDir(), ...flags]);
      expect({ code: run.code, stderr: run.stderr.includes(message) ? message : run.stderr }).toEqual({ code: 2, stderr: message });
    }
  });

  it('with --max-endpoints-per-slice 2, three pods behind a Service are two EndpointSlices of 2 and 1', async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    await startUp(children, dataDir, ['--max-endpoints-per-slice', '2']);
    const kubectl = (...args: string[]) => kubectlWith(join(dataDir, 'kubeconfig'), cache, ...args);
    for (const name of ['web-1', 'web-2', 'web-3']) await kubectl('run', name, '--image', 'nginx', '--labels', 'app=web');
    await kubectl('expose', 'pod', 'web-1', '--port', '80', '--name', 'web', '--selector', 'app=web');
    let sizes: number[] = [];
    for (let i = 0; i < 240; i++) {
      const list = JSON.parse(await kubectl('get', 'endpointslices', '-l', 'kubernetes.io/service-name=web', '-o', 'json')) as { items: { endpoints?: unknown[] | null }[] };
      sizes = list.items.map((slice) => slice.endpoints?.length ?? 0).sort();
      if (sizes.join() === '1,2') break;
      await new Promise((r) => setTimeout(r, 250));
    }
    expect(sizes, 'the endpoint counts of the web slices, last seen').toEqual([1, 2]);
  }, 120_000);
});

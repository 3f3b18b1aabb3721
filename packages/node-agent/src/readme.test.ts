// The README's examples, run as written: what each prints must be the README's output block.
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example of the node agent prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## The node agent/m);
  expect(expected).toContain('A: 10.96.0.10');
  expect(printed).toBe(expected);
});

it('the README example of an agent fed through the API prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Fed through the API/m);
  expect(expected).toContain('services: 1 list, 1 watch, 0 expired');
  expect(printed).toBe(expected);
});

it('the README example of kube-proxies in worker threads prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Kube-proxies in worker threads/m);
  expect(expected).toContain('node-3: worker 1');
  expect(printed).toBe(expected);
}, 60_000);

// The README's examples, run as written (testkit's runReadmeExample): what each prints must be
// the README's output block under it.
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url));
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the ServiceCIDR controller example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## The ServiceCIDR controller/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the topology hints example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Topology hints/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the deployments example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Deployments/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url));
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the README example of the iptables-save view prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## The iptables-save view/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the README example of configuration errors prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Configuration/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the README example of diagnostics prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^Input that cannot be programmed/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the README example of kube-proxy 1.8 prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## kube-proxy 1\.8/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the README example of a render cache shared by two nodes\' proxiers prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Several nodes' proxiers in one thread/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

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

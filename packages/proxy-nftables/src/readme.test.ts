import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url));
  expect(expected).toContain('numgen random mod 2 vmap');
  expect(printed).toBe(expected);
});

it('the README example for large clusters prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Large clusters/m);
  expect(expected).toContain('partial: partial');
  expect(printed).toBe(expected);
});

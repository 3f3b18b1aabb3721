import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url));
  expect(expected).toContain('numgen random mod 2 vmap');
  expect(printed).toBe(expected);
});

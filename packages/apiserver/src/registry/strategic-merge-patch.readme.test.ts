// The README's strategic merge patch example, run as written (testkit's runReadmeExample):
// what it prints must be the README's output block.
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README strategic merge patch example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^## Example: strategic merge patch/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

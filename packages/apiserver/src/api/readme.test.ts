// The README's API server example, run as written (testkit's runReadmeExample): what it prints
// must be the README's output block.
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README API server example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^## Example: the API server/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

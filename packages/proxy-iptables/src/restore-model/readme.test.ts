import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example of the table model prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^## The table model/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

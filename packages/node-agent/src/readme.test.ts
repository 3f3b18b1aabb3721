// The README's node agent example, run as written: what it prints must be the README's output block.
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example of the node agent prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## The node agent/m);
  expect(expected).toContain('A: 10.96.0.10');
  expect(printed).toBe(expected);
});

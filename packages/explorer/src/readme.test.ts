// The README's example, run as written: what it prints must be the README's output block.
import { runReadmeExample } from '@kubesvc/testkit';
import { beforeAll, expect, it } from 'vitest';
import { ensureUiBuilt } from './node/ui-build.js';

beforeAll(async () => {
  expect(await ensureUiBuilt()).toBe(true);
}, 120_000);

it('the README example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url));
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

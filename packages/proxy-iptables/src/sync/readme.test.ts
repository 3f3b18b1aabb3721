import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example of sync state and partial sync prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^## Sync state and partial sync/m);
  expect(expected).toContain('-X KUBE-SEP-');
  expect(printed).toBe(expected);
});

it('the README example of syncing from change events prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^## Syncing from change events/m);
  expect(expected).toContain('true true');
  expect(printed).toBe(expected);
});

it('the README example of the reused restore buffer prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^## The restore bytes, written into a reused buffer/m);
  expect(expected).toContain('written over by a later sync');
  expect(printed).toBe(expected);
});

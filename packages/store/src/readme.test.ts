// The README's examples, run as written (testkit's runReadmeExample): what it prints must be
// the README's output block.
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it("the README's first example prints what the README says", async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url));
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it("the README's file statistics example prints what the README says", async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Example: where a SQLite file's bytes are/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

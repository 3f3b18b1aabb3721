// The README's example, run as written (testkit's runReadmeExample): what it prints must be
// the README's output block.
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url));
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the README example of the IPAddress repair prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## IPAddress repair/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

it('the README example of ServiceCIDRs and IPAddresses prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Example: ServiceCIDRs/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

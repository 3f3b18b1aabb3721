// The README's DNS server example, run as written (testkit's runReadmeExample): it starts the
// server on 127.0.0.1, asks it over UDP before and after a zone swap, and closes it.
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example of the DNS server prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^## DNS server/m);
  expect(expected).toContain('10.96.0.42');
  expect(printed).toBe(expected);
});

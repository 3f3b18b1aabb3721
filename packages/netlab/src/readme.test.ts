// The README's example, run as written (it builds a real lab: root, like every lab test).
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example builds a lab, sends real packets and prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url));
  expect(expected).toContain('ECONNREFUSED');
  expect(printed).toBe(expected);
}, 60_000);

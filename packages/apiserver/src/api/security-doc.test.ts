// docs/security.md's example, run as written: hostile requests against a server on a memory
// store; what it prints must be the page's output block.
import { fileURLToPath } from 'node:url';
import { runMarkdownExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the security page example prints what the page says', async () => {
  const root = fileURLToPath(new URL('../../../..', import.meta.url));
  const { printed, expected } = await runMarkdownExample(`${root}docs/security.md`, `${root}packages`, /^## Example: a hostile request/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

// The README's two-node example ("Several nodes"), run as written (root, like every lab test).
import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README\'s two-node example answers on the node with the endpoint and times out on the other, as printed there', async () => {
  const { printed, expected } = await runReadmeExample(new URL('..', import.meta.url), /^## Several nodes/m);
  expect(expected).toContain('node-b (zone-b): traced drop, got timeout');
  expect(printed).toBe(expected);
}, 90_000);

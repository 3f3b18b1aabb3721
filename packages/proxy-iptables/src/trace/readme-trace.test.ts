import { runReadmeExample } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

it('the README example of tracing a packet prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^## Tracing a packet/m);
  expect(expected).toContain('3333333333/10000000000');
  expect(printed).toBe(expected);
});

it('the README example of a ping to a cluster IP prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^### Why does ping to a ClusterIP fail\?/m);
  expect(expected).toContain('icmp echo request');
  expect(printed).toBe(expected);
});

// The README's etcd example, run as written (testkit's runReadmeExample) against a new etcd
// started for it: what it prints must be the README's output block.
import { afterAll, beforeAll, expect, it } from 'vitest';
import { runReadmeExample, startEtcd, type EtcdFixture } from '@kubesvc/testkit';

let etcd: EtcdFixture;
const before = process.env['ETCD_ENDPOINT'];

beforeAll(async () => {
  etcd = await startEtcd();
  process.env['ETCD_ENDPOINT'] = etcd.endpoint;
}, 30_000);

afterAll(async () => {
  if (before === undefined) delete process.env['ETCD_ENDPOINT'];
  else process.env['ETCD_ENDPOINT'] = before;
  await etcd.dispose();
});

it('the README etcd example prints what the README says', async () => {
  const { printed, expected } = await runReadmeExample(new URL('../..', import.meta.url), /^## Example: the etcd store/m);
  expect(expected.length).toBeGreaterThan(0);
  expect(printed).toBe(expected);
});

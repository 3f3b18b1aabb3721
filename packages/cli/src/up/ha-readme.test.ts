// The README's "Several apiservers on one etcd" example, run as written by bash from the
// repository root against a new etcd (free ports, temp dirs): what it prints must be the
// README's output block. The script runs in its own process group, killed on failure too.
import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort, startEtcd, type EtcdFixture } from '@kubesvc/testkit';
import { killAll, tempDir } from './ha.fixtures.js';
import { PACKAGE_ROOT } from '../run-bin.fixtures.js';
import { readmeSection, runScript } from './up.fixtures.js';

let etcd: EtcdFixture | undefined;
let script: ChildProcess | undefined;

afterAll(async () => {
  if (script?.pid !== undefined && script.exitCode === null) process.kill(-script.pid, 'SIGKILL');
  killAll();
  await etcd?.dispose();
});

function example(): { code: string; output: string } {
  return readmeSection(readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8'), '### Several apiservers on one etcd');
}

it('the README example: three apiservers on one etcd list each other, share objects, and a SIGTERM removes one', async () => {
  const { code, output } = example();
  expect(code).toContain('--etcd-servers');
  etcd = await startEtcd({ name: 'kubesvc-readme' });
  const env = { ...process.env, ETCD: etcd.endpoint, PORT: String(await freePort()), D: tempDir('kubesvc-ha-readme-') };
  const { out, err, code: code_ } = await runScript(code, env, 150_000, (child) => (script = child));
  expect(out, err).toBe(output);
  expect(code_, err).toBe(0);
}, 180_000);

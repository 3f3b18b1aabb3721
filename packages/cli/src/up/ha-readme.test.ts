// The README's "Several apiservers on one etcd" example, run as written by bash from the
// repository root against a new etcd (free ports, temp dirs): what it prints must be the
// README's output block. The script runs in its own process group, killed on failure too.
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { freePort, startEtcd, type EtcdFixture } from '@kubesvc/testkit';
import { killAll, tempDir } from './ha.fixtures.js';
import { PACKAGE_ROOT, REPO_ROOT } from '../run-bin.fixtures.js';

let etcd: EtcdFixture | undefined;
let script: ChildProcess | undefined;

afterAll(async () => {
  if (script?.pid !== undefined && script.exitCode === null) process.kill(-script.pid, 'SIGKILL');
  killAll();
  await etcd?.dispose();
});

function example(): { code: string; output: string } {
  const readme = readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Several apiservers on one etcd'));
  const code = /```sh\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  const output = /```text\n([\s\S]*?)```/.exec(section)?.[1] ?? '';
  return { code, output };
}

it('the README example: three apiservers on one etcd list each other, share objects, and a SIGTERM removes one', async () => {
  const { code, output } = example();
  expect(code).toContain('--etcd-servers');
  etcd = await startEtcd({ name: 'kubesvc-readme' });
  const env = { ...process.env, ETCD: etcd.endpoint, PORT: String(await freePort()), D: tempDir('kubesvc-ha-readme-') };
  const child = spawn('bash', ['-u', '-c', `set -m\n${code}`], { cwd: REPO_ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  script = child;
  let out = '';
  let err = '';
  child.stdout?.setEncoding('utf8').on('data', (c: string) => (out += c));
  child.stderr?.setEncoding('utf8').on('data', (c: string) => (err += c));
  const code_ = await new Promise<number | null>((resolve) => {
    const timer = setTimeout(() => {
      if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
    }, 150_000);
    child.on('exit', (c) => {
      clearTimeout(timer);
      resolve(c);
    });
  });
  expect(out, err).toBe(output);
  expect(code_, err).toBe(0);
}, 180_000);

// `kubesvc status` and `kubesvc down` against a running `kubesvc up` (the real bin, SQLite in a
// temp data dir), and `kubesvc --version` / `kubesvc version`.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBin } from '../run-bin.fixtures.js';
import { startUp, e2eScope } from './up.fixtures.js';

const { children, tempDir } = e2eScope('kubesvc-lifecycle-');

describe('kubesvc status, down, version', () => {
  it('status names the running up, its pid and where it serves; down stops it as SIGTERM does; then status says it is not running', async () => {
    const dataDir = tempDir();
    const up = await startUp(children, dataDir);
    const pid = up.child.pid ?? 0;
    const status = await runBin(['status', '--data-dir', dataDir, '-o', 'json']);
    expect(status.code).toBe(0);
    const shown = (JSON.parse(status.stdout) as { status: { pid: number; dataDir: string; kubeconfig: string; apiURL: string; dns?: string; proxyMode: string } }).status;
    expect(shown).toMatchObject({ pid, kubeconfig: join(shown.dataDir, 'kubeconfig'), proxyMode: 'iptables' });
    expect(shown.apiURL).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const text = await runBin(['status', '--data-dir', dataDir]);
    expect(text.stdout).toMatch(new RegExp(`^kubesvc is running \\(pid ${pid}, since \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ\\)\\n`));

    const down = await runBin(['down', '--data-dir', dataDir]);
    expect(down).toMatchObject({ code: 0, stdout: `kubesvc (pid ${pid}, ${shown.dataDir}) stopped\n` });
    // It stopped as Ctrl-C stops it: the clean shutdown's last line, and exit 0.
    expect(await up.exited).toBe(0);
    expect(up.stderr()).toContain('SIGTERM: stopping');
    const after = await runBin(['status', '--data-dir', dataDir]);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain(`kubesvc is not running on ${shown.dataDir} (no `);
    // down again: nothing to stop is not an error.
    expect((await runBin(['down', '--data-dir', dataDir])).code).toBe(0);
  }, 120_000);

  it('a status file left by a crash names a pid that is gone: status says so, down signals nothing', async () => {
    const dataDir = tempDir();
    // A pid no process has (Linux pids stay below 2^22).
    writeFileSync(join(dataDir, 'up.json'), JSON.stringify({ pid: 4_194_303, apiURL: 'https://127.0.0.1:6443', startedAt: '2026-01-01T00:00:00Z', nodes: [] }));
    const status = await runBin(['status', '--data-dir', dataDir]);
    expect(status.code).toBe(1);
    expect(status.stderr).toContain('pid 4194303 of');
    expect(status.stderr).toContain('is gone (it did not stop cleanly)');
    const down = await runBin(['down', '--data-dir', dataDir]);
    expect(down.code).toBe(0);
    expect(down.stderr).toContain('is gone');
  });

  it('--version and version print the kubesvc version and the Kubernetes release it follows', async () => {
    const flag = await runBin(['--version']);
    expect(flag.code).toBe(0);
    expect(flag.stdout).toMatch(/^kubesvc v\d+\.\d+\.\d+ \(Kubernetes v1\.33 semantics, Node\.js v\d+\.\d+\.\d+\)\n$/);
    const json = await runBin(['version', '-o', 'json']);
    expect(JSON.parse(json.stdout)).toEqual({ kubesvcVersion: flag.stdout.split(' ')[1], kubernetesVersion: 'v1.33', nodeVersion: process.version });
  });
});

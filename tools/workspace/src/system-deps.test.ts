// tools/system-deps.sh, the step before `npm test` and in .ci/run: with the tools hidden (a PATH
// that holds only `id` and `apt-get`) it names every Debian package the tests need; `--check` only reports;
// without root and without password-less sudo it stops with the one command to run as root.
// @needs-root: runs the script as the user nobody (runuser); testkit root-only.ts refuses a run without root that selects it.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const SCRIPT = fileURLToPath(new URL('../../system-deps.sh', import.meta.url));
const bin = mkdtempSync(join(tmpdir(), 'system-deps-'));
// Readable by the unprivileged user the refusal is tried as.
chmodSync(bin, 0o755);
symlinkSync('/usr/bin/id', join(bin, 'id'));
// apt-get is there (it is never run here: the refusal comes first), sudo is not.
symlinkSync('/usr/bin/apt-get', join(bin, 'apt-get'));
afterAll(() => rmSync(bin, { recursive: true, force: true }));

// etcd is looked for at /usr/bin/etcd, and the DejaVu fonts as files, which PATH does not hide:
// each is listed only where it is absent.
const etcd = (): string[] => (spawnSync('test', ['-x', '/usr/bin/etcd']).status === 0 ? [] : ['etcd-server']);
const DEJAVU = ['/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf', '/usr/share/fonts/truetype/dejavu/DejaVuSansMono.ttf'];
const fonts = (): string[] => (DEJAVU.every((f) => spawnSync('test', ['-f', f]).status === 0) ? [] : ['fonts-dejavu-core']);
const HIDDEN = (): string => ['dnsutils', 'curl', 'iproute2', 'iputils-ping', 'iptables', 'nftables', ...etcd(), 'chromium', ...fonts(), 'util-linux', 'conntrack', 'python3', 'make', 'g++'].join(' ');

function run(args: readonly string[], asUser?: string): { status: number | null; stderr: string } {
  const command = asUser === undefined ? ['/bin/bash', SCRIPT, ...args] : ['/usr/sbin/runuser', '-u', asUser, '--', '/usr/bin/env', `PATH=${bin}`, '/bin/bash', SCRIPT, ...args];
  const [file = '', ...rest] = command;
  const r = spawnSync(file, rest, { encoding: 'utf8', env: { PATH: bin }, timeout: 30_000 });
  return { status: r.status, stderr: r.stderr };
}

describe('tools/system-deps.sh', () => {
  it('--check names every missing package and installs nothing', () => {
    const r = run(['--check']);
    expect(r).toEqual({ status: 1, stderr: `system-deps: missing Debian packages: ${HIDDEN()}\n` });
  });

  it('without root or password-less sudo, stops at once with the command to run as root', () => {
    // runuser needs root: CI runs the suite as root, as the lab tests need.
    const r = run([], 'nobody');
    expect(r.status).toBe(1);
    expect(r.stderr).toBe(`system-deps: the tests need Debian packages that are not installed; as root, run:\n  apt-get update && apt-get install -y --no-install-recommends ${HIDDEN()}\n`);
  });

  it('as root, runs apt-get itself; as a user with password-less sudo, through sudo (apt-get and sudo stubbed: nothing is installed)', () => {
    const stubs = mkdtempSync(join(tmpdir(), 'system-deps-stubs-'));
    try {
      chmodSync(stubs, 0o755);
      symlinkSync('/usr/bin/id', join(stubs, 'id'));
      // The stubs log their calls (the script sends apt-get's own output to /dev/null).
      const log = join(stubs, 'calls.log');
      writeFileSync(log, '', { mode: 0o666 });
      chmodSync(log, 0o666);
      writeFileSync(join(stubs, 'apt-get'), `#!/bin/bash\necho "apt-get $*" >> ${log}\n`, { mode: 0o755 });
      writeFileSync(join(stubs, 'sudo'), `#!/bin/bash\n[ "$1" = -n ] && exit 0\necho "sudo $*" >> ${log}\n`, { mode: 0o755 });
      const calls = (): string[] => readFileSync(log, 'utf8').trim().split('\n');
      const asRoot = spawnSync('/bin/bash', [SCRIPT], { encoding: 'utf8', env: { PATH: stubs } });
      expect(asRoot.status).toBe(0);
      expect(asRoot.stdout).toBe(`system-deps: installing Debian packages: ${HIDDEN()}\n`);
      expect(calls()).toEqual(['apt-get update -qq', `apt-get install -y -qq --no-install-recommends ${HIDDEN()}`]);
      writeFileSync(log, '');
      const asUser = spawnSync('/usr/sbin/runuser', ['-u', 'nobody', '--', '/usr/bin/env', `PATH=${stubs}`, '/bin/bash', SCRIPT], { encoding: 'utf8', env: { PATH: stubs } });
      expect(asUser.status).toBe(0);
      expect(calls()).toEqual(['sudo apt-get update -qq', `sudo apt-get install -y -qq --no-install-recommends ${HIDDEN()}`]);
    } finally {
      rmSync(stubs, { recursive: true, force: true });
    }
  });

  it('with everything installed (the machine running this suite), says nothing and succeeds', () => {
    const r = spawnSync('/bin/bash', [SCRIPT, '--check'], { encoding: 'utf8' });
    expect({ status: r.status, stderr: r.stderr }).toEqual({ status: 0, stderr: '' });
  });
});

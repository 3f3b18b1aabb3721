// What `kubesvc up` writes in its data dir, through the real bin: a file it cannot write from
// its timer (a folder where proxy-ports.json goes) does not end it, and every file and folder
// has its mode whatever the umask, a data dir or store file that had more being tightened.
import { execFile } from 'node:child_process';
import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { kubectl, startProcess, startUp, upArgs, type RunningUp, e2eScope } from './up.fixtures.js';

const exec = promisify(execFile);
const { children, tempDir } = e2eScope('kubesvc-up-files-');

/** Polls `check` every 200 ms until it returns a value other than undefined, for at most 60 s; then fails with the last state seen. */
async function eventually<T>(what: string, check: () => Promise<T | undefined> | T | undefined, state: () => string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const value = await check();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`${what}: not seen within 60 s; last state:\n${state()}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

const warnings = (up: RunningUp, text: string) => up.stderr().split('\n').filter((l) => l.startsWith('W ') && l.includes(text));

describe('kubesvc up: files in the data dir', () => {
  it('keeps running and answering when proxy-ports.json cannot be written (a folder stands there), logs it once per error, and writes it once it can', async () => {
    const dataDir = tempDir();
    const cache = tempDir();
    const portsFile = join(dataDir, 'proxy-ports.json');
    mkdirSync(portsFile, { recursive: true });
    const up = await startUp(children, dataDir, ['--proxy-mode', 'userspace']);
    const kubeconfig = join(dataDir, 'kubeconfig');
    const cannot = `proxy-ports: cannot write ${portsFile}: EISDIR`;
    // Logged on stderr before the summary on stdout; the two pipes may be read in either order.
    await eventually('the first write\'s warning', () => (warnings(up, cannot).length > 0 ? true : undefined), () => up.stderr());
    expect(warnings(up, cannot)).toHaveLength(1);

    // A Service changes the ports, so each tick tries to write again; it keeps failing.
    const web = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ name: 'http', port: 80 }] } };
    writeFileSync(join(cache, 'web.json'), JSON.stringify(web));
    await kubectl(kubeconfig, cache, 'create', '-f', join(cache, 'web.json'));
    expect((await kubectl(kubeconfig, cache, 'get', '--raw', '/healthz')).trim()).toBe('ok');
    expect(up.child.exitCode).toBeNull();
    expect(warnings(up, cannot)).toHaveLength(1);

    // The folder goes: the next tick writes the file, with web's port, and says so.
    rmSync(portsFile, { recursive: true });
    const ports = await eventually(
      'proxy-ports.json listing default/web:http',
      () => {
        try {
          const list = JSON.parse(readFileSync(portsFile, 'utf8')) as { servicePort: string }[];
          return list.some((p) => p.servicePort === 'default/web:http') ? list : undefined;
        } catch {
          return undefined;
        }
      },
      () => up.stderr(),
    );
    expect(ports.map((p) => p.servicePort).sort()).toStrictEqual(['default/kubernetes:https', 'default/web:http']);
    // The warning follows the write, on stderr: it may reach this process after the file does.
    const againText = `proxy-ports: wrote ${portsFile} again after `;
    await eventually('the warning that the file was written again', () => (warnings(up, againText).length > 0 ? true : undefined), () => up.stderr());
    const again = warnings(up, againText);
    expect(again).toHaveLength(1);
    // At least the failed write of the tick before the Service's; how many more depends on how
    // many ticks fell between the create and the folder's removal (one on a busy machine).
    expect(Number(/after (\d+) failed attempts?$/.exec(again[0] ?? '')?.[1])).toBeGreaterThanOrEqual(1);

    // A folder replaces the file while it runs, and the ports change: logged again (a new episode), still serving.
    rmSync(portsFile);
    mkdirSync(portsFile);
    await kubectl(kubeconfig, cache, 'delete', 'service', 'web');
    await eventually('a second EISDIR warning', () => (warnings(up, cannot).length === 2 ? true : undefined), () => up.stderr());
    expect((await kubectl(kubeconfig, cache, 'get', '--raw', '/healthz')).trim()).toBe('ok');
    expect(up.child.exitCode).toBeNull();
    expect(up.stderr()).not.toMatch(/^\s+at /m);

    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
  }, 180_000);

  it('with umask 000, gives every file its mode (0600 secrets and state, 0644 the rest, folders 0700) and tightens a 0755 data dir and a 0644 store file, saying so', async () => {
    const parent = tempDir();
    const cache = tempDir();
    const dataDir = join(parent, 'data');
    mkdirSync(dataDir);
    chmodSync(dataDir, 0o755);
    // An empty file is an empty SQLite database: the store an older kubesvc left, world-readable.
    const db = join(dataDir, 'state.db');
    writeFileSync(db, '');
    chmodSync(db, 0o644);
    const up = await startProcess(children, '/bin/sh', ['-c', 'umask 000 && exec "$0" "$@"', process.execPath, ...upArgs(dataDir)], (out) => out.includes('Ctrl-C stops it'), 'kubesvc up (umask 000)');
    expect(warnings(up, '')).toStrictEqual([`W the data dir ${dataDir} had mode 0755: tightened to 0700`, `W the store file ${db} had mode 0644: tightened to 0600`]);
    const kubeconfig = join(dataDir, 'kubeconfig');
    // A write, so the store has its WAL and the iptables files a second sync.
    const web = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } };
    writeFileSync(join(cache, 'web.json'), JSON.stringify(web));
    await kubectl(kubeconfig, cache, 'create', '-f', join(cache, 'web.json'));
    // The sync's three files are written one after another, each through a temporary file: wait
    // until all three have the Service and no write is in flight.
    const synced = (): true | undefined => {
      const dir = join(dataDir, 'iptables');
      const done = ['rules.txt', 'rules.save.txt', 'last-sync.txt'].every((f) => readFileSync(join(dir, f), 'utf8').includes('default/web'));
      return done && !readdirSync(dir).some((f) => f.endsWith('.tmp')) ? true : undefined;
    };
    await eventually('web in the rules files, none of them being written', synced, () => up.stderr());

    const expected: Record<string, number> = {
      '.': 0o700,
      kubeconfig: 0o600,
      token: 0o600,
      pki: 0o700,
      'pki/apiserver.key': 0o600,
      'pki/apiserver.crt': 0o644,
      'state.db': 0o600,
      'state.db-wal': 0o600,
      'state.db-shm': 0o600,
      iptables: 0o700,
      'iptables/rules.txt': 0o644,
      'iptables/rules.save.txt': 0o644,
      'iptables/last-sync.txt': 0o644,
      'proxy-ports.json': 0o644,
      // What kubesvc status and down read: private, as the kubeconfig beside it.
      'up.json': 0o600,
    };
    const seen: Record<string, string> = {};
    const walk = (dir: string): void => {
      seen[relative(dataDir, dir) || '.'] = (statSync(dir).mode & 0o777).toString(8);
      for (const entry of readdirSync(dir, { withFileTypes: true })) {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) walk(path);
        else seen[relative(dataDir, path)] = (statSync(path).mode & 0o777).toString(8);
      }
    };
    walk(dataDir);
    // Every file is one of the known ones (no temporary file left), each with its mode.
    const want = Object.fromEntries(Object.keys(seen).map((name) => [name, expected[name]?.toString(8) ?? 'not a file kubesvc up writes']));
    expect(seen).toStrictEqual(want);
    for (const name of ['.', 'kubeconfig', 'token', 'pki/apiserver.key', 'state.db', 'iptables/rules.txt', 'proxy-ports.json', 'up.json']) expect(Object.keys(seen)).toContain(name);
    // The Go kubeconfig loader reads it: the mode is not all that changed.
    const { stdout } = await exec('/usr/bin/kubectl', ['--kubeconfig', kubeconfig, `--cache-dir=${cache}`, 'get', 'svc', 'web', '-o', 'name'], { timeout: 30_000 });
    expect(stdout.trim()).toBe('service/web');

    up.child.kill('SIGTERM');
    expect(await up.exited).toBe(0);
  }, 180_000);
});

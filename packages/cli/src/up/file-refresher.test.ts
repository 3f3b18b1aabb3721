// The timer-driven writer of <data-dir>/proxy-ports.json: a failing write is counted, logged once
// per distinct error, tried again at the next tick, and never thrown; an unchanged content is
// not written again; and the atomic write leaves no temporary file behind when it fails.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeFileAtomicSync } from '@kubesvc/node-agent';
import { ensurePrivateDir, FILE_MODES } from './atomic-file.js';
import { fileRefresher } from './file-refresher.js';

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
function tempDir(): string {
  const d = mkdtempSync(join(tmpdir(), 'kubesvc-refresher-'));
  dirs.push(d);
  return d;
}

function errno(code: string, message: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`${code}: ${message}`), { code });
}

describe('fileRefresher', () => {
  it('survives failing writes: counts each, logs one line per distinct error, retries every tick, and says when the file is written again', () => {
    const logs: string[] = [];
    const writes: string[] = [];
    let content = 'a';
    // What the write does at each call: throw this error, or succeed (undefined).
    const script: (NodeJS.ErrnoException | undefined)[] = [
      errno('EMFILE', 'too many open files, open \'/d/.p.1.aa.tmp\''),
      errno('EMFILE', 'too many open files, open \'/d/.p.1.bb.tmp\''),
      errno('EMFILE', 'too many open files, open \'/d/.p.1.cc.tmp\''),
      errno('EISDIR', 'illegal operation on a directory, rename \'/d/.p.1.dd.tmp\' -> \'/d/p\''),
      errno('EISDIR', 'illegal operation on a directory, rename \'/d/.p.1.ee.tmp\' -> \'/d/p\''),
      undefined,
    ];
    const r = fileRefresher({
      path: '/d/p',
      what: 'proxy-ports',
      render: () => content,
      write: (_path, text) => {
        const next = script.shift();
        if (next !== undefined) throw next;
        writes.push(text);
      },
      logger: { log: (level, message) => logs.push(`${level} ${message}`) },
      intervalMs: 500,
    });
    for (let i = 0; i < 5; i++) expect(() => r.tick()).not.toThrow();
    expect(r.failures).toBe(5);
    expect(r.failing).toBe(5);
    expect(writes).toStrictEqual([]);
    expect(logs).toStrictEqual([
      "warning proxy-ports: cannot write /d/p: EMFILE: too many open files, open '/d/.p.1.aa.tmp' (tried again every 500 ms; logged again only when the error changes)",
      "warning proxy-ports: cannot write /d/p: EISDIR: illegal operation on a directory, rename '/d/.p.1.dd.tmp' -> '/d/p' (tried again every 500 ms; logged again only when the error changes)",
    ]);
    // The content did not change, but the last attempt failed: the next tick writes it.
    r.tick();
    expect(writes).toStrictEqual(['a']);
    expect(r.failing).toBe(0);
    expect(r.failures).toBe(5);
    expect(logs.at(-1)).toBe('warning proxy-ports: wrote /d/p again after 5 failed attempts');
    // Unchanged: no write. Changed: one write.
    r.tick();
    r.tick();
    expect(writes).toStrictEqual(['a']);
    content = 'b';
    r.tick();
    expect(writes).toStrictEqual(['a', 'b']);
    expect(logs).toHaveLength(3);
  });

  it('logs a failure that comes back after a success again, and survives a render that throws', () => {
    const logs: string[] = [];
    let fail = true;
    let n = 0;
    const r = fileRefresher({
      path: '/d/p',
      what: 'proxy-ports',
      render: () => {
        n++;
        if (n === 4) throw new Error('render broke');
        return String(n);
      },
      write: () => {
        if (fail) throw errno('ENOSPC', 'no space left on device, write');
      },
      logger: { log: (_level, message) => logs.push(message) },
      intervalMs: 500,
    });
    r.tick();
    fail = false;
    r.tick();
    fail = true;
    r.tick();
    r.tick();
    expect(r.failures).toBe(3);
    expect(logs.map((l) => l.replace(/ \(tried again.*/, ''))).toStrictEqual([
      'proxy-ports: cannot write /d/p: ENOSPC: no space left on device, write',
      'proxy-ports: wrote /d/p again after 1 failed attempt',
      'proxy-ports: cannot write /d/p: ENOSPC: no space left on device, write',
      'proxy-ports: cannot write /d/p: render broke',
    ]);
  });

  it('with the real atomic write: a folder where the file goes fails with EISDIR and leaves nothing behind; once it is gone the file is written', () => {
    const dir = tempDir();
    const path = join(dir, 'proxy-ports.json');
    mkdirSync(path);
    const logs: string[] = [];
    const r = fileRefresher({ path, what: 'proxy-ports', render: () => '[]\n', write: (p, t) => writeFileAtomicSync(p, t, FILE_MODES.public), logger: { log: (_l, m) => logs.push(m) }, intervalMs: 500 });
    r.tick();
    r.tick();
    expect(r.failures).toBe(2);
    expect(logs).toHaveLength(1);
    expect(logs[0]).toContain(`proxy-ports: cannot write ${path}: EISDIR`);
    expect(readdirSync(dir)).toStrictEqual(['proxy-ports.json']);
    rmSync(path, { recursive: true });
    r.tick();
    expect(readFileSync(path, 'utf8')).toBe('[]\n');
    expect(readdirSync(dir)).toStrictEqual(['proxy-ports.json']);
  });
});

describe('modes of what kubesvc up writes', () => {
  it('gives each file its mode and each folder 0700 with a umask of 000, and tightens a folder that had more', () => {
    const dir = tempDir();
    const old = process.umask(0);
    try {
      writeFileAtomicSync(join(dir, 'secret'), 's', FILE_MODES.secret);
      writeFileAtomicSync(join(dir, 'public'), 'p', FILE_MODES.public);
      expect(ensurePrivateDir(join(dir, 'made'))).toBeUndefined();
      mkdirSync(join(dir, 'open'), { mode: 0o755 });
      expect(statSync(join(dir, 'open')).mode & 0o777).toBe(0o755);
      expect(ensurePrivateDir(join(dir, 'open'))).toBe(0o755);
    } finally {
      process.umask(old);
    }
    const mode = (name: string) => (statSync(join(dir, name)).mode & 0o777).toString(8);
    expect([mode('secret'), mode('public'), mode('made'), mode('open')]).toStrictEqual(['600', '644', '700', '700']);
    // Rewriting a file gives it the mode again (a new file is renamed over it).
    writeFileAtomicSync(join(dir, 'public'), 'p2', FILE_MODES.secret);
    expect(mode('public')).toBe('600');
    expect(readdirSync(dir).sort()).toStrictEqual(['made', 'open', 'public', 'secret']);
  });
});

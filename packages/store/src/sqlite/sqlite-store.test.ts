// The SQLite backend against the store conformance suite: a fresh database file per test, the
// system clock and real time (lease tests use TTLs of 1-2 s), and reopen() on the same file.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { systemClock } from '../system-clock.js';
import { describeStoreConformance } from '../store.conformance.js';
import type { Store } from '../types.js';
import { sqliteFileStats } from './file-stats.js';
import { openSqliteStore } from './sqlite-store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describeStoreConformance(
  'sqlite',
  () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesvc-sqlite-'));
    const path = join(dir, 'store.db');
    let store: Store = openSqliteStore({ path, clock: systemClock });
    return Promise.resolve({
      get store() {
        return store;
      },
      elapse: sleep,
      reopen: async () => {
        await store.close();
        store = openSqliteStore({ path, clock: systemClock });
        return store;
      },
      dispose: async () => {
        await store.close();
        rmSync(dir, { recursive: true, force: true });
      },
    });
  },
  { durable: true },
);

describe('sqlite store: the file', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubesvc-sqlite-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('has the kine-shaped log table, in WAL mode', async () => {
    const path = join(dir, 'store.db');
    await openSqliteStore({ path }).close();
    const db = new Database(path, { readonly: true });
    try {
      const columns = db.prepare<[], { name: string }>("SELECT name FROM pragma_table_info('log') ORDER BY cid").all().map((c) => c.name);
      expect(columns).toEqual(['id', 'revision', 'name', 'created', 'deleted', 'create_revision', 'prev_revision', 'version', 'lease', 'value', 'old_value']);
      expect(db.pragma('journal_mode', { simple: true })).toBe('wal');
    } finally {
      db.close();
    }
  });

  it("keeps the indexes its queries read, and drops kine's two that none reads from a file made with them", async () => {
    const path = join(dir, 'store.db');
    const indexes = (): string[] => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare<[], { name: string }>("SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = 'log' AND sql IS NOT NULL ORDER BY name").all().map((r) => r.name);
      } finally {
        db.close();
      }
    };
    await openSqliteStore({ path }).close();
    expect(indexes()).toEqual(['log_lease_index', 'log_name_revision_uindex', 'log_revision_deleted_index']);
    const old = new Database(path);
    old.exec('CREATE UNIQUE INDEX log_name_prev_revision_uindex ON log (name, prev_revision); CREATE INDEX log_prev_revision_index ON log (prev_revision);');
    old.close();
    expect(indexes()).toHaveLength(5);
    const store = openSqliteStore({ path });
    await store.txn([], [{ kind: 'put', key: '/a', value: '1' }]);
    await store.close();
    expect(indexes()).toEqual(['log_lease_index', 'log_name_revision_uindex', 'log_revision_deleted_index']);
  });

  it('makes a new database file, and so its WAL, readable by its owner only (0600), even with a umask of 000', async () => {
    const path = join(dir, 'store.db');
    const old = process.umask(0);
    let store: Store;
    try {
      store = openSqliteStore({ path });
      await store.txn([], [{ kind: 'put', key: '/a', value: '1' }]);
    } finally {
      process.umask(old);
    }
    expect(existsSync(`${path}-wal`)).toBe(true);
    const modes = [path, `${path}-wal`, `${path}-shm`].filter((p) => existsSync(p)).map((p) => (statSync(p).mode & 0o777).toString(8));
    expect(modes).toStrictEqual(modes.map(() => '600'));
    await store.close();
  });

  it('stores a value of 64 KiB or more deflated, a BLOB far smaller than its text, and a smaller one as text', async () => {
    const path = join(dir, 'store.db');
    const big = `{"kind":"RangeAllocation","data":"${'A'.repeat(170_000)}gA=="}`;
    const store = openSqliteStore({ path });
    await store.txn([], [{ kind: 'put', key: '/big', value: big }]);
    await store.txn([], [{ kind: 'put', key: '/bytes', value: new TextEncoder().encode(big.replace('gA==', 'QA==')) }]);
    await store.txn([], [{ kind: 'put', key: '/small', value: 'x'.repeat(64 * 1024 - 1) }]);
    await store.close();
    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare<[], { name: string; type: string; bytes: number }>('SELECT name, typeof(value) AS type, length(value) AS bytes FROM log ORDER BY id').all();
      expect(rows.map((r) => [r.name, r.type])).toEqual([
        ['/big', 'blob'],
        ['/bytes', 'blob'],
        ['/small', 'text'],
      ]);
      for (const r of rows.slice(0, 2)) expect(r.bytes).toBeLessThan(big.length / 50);
    } finally {
      db.close();
    }
    const again = openSqliteStore({ path });
    expect((await again.get('/big')).kv?.value).toBe(big);
    expect((await again.get('/bytes')).kv?.value).toBe(big.replace('gA==', 'QA=='));
    await again.close();
  });

  it('opens a file of schema version 1 (every value text) and marks it version 2; refuses one a newer kubesvc wrote', async () => {
    const path = join(dir, 'store.db');
    const schemaVersion = (): number | undefined => {
      const db = new Database(path, { readonly: true });
      try {
        return db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'schema_version'").get()?.value;
      } finally {
        db.close();
      }
    };
    const setVersion = (version: number): void => {
      const db = new Database(path);
      db.prepare("UPDATE meta SET value = ? WHERE name = 'schema_version'").run(version);
      db.close();
    };
    const first = openSqliteStore({ path });
    await first.txn([], [{ kind: 'put', key: '/a', value: '1' }]);
    await first.close();
    expect(schemaVersion()).toBe(2);
    setVersion(1);
    const old = openSqliteStore({ path });
    expect((await old.get('/a')).kv?.value).toBe('1');
    await old.close();
    expect(schemaVersion()).toBe(2);
    setVersion(3);
    expect(() => openSqliteStore({ path })).toThrow(`sqlite store: ${path} has schema version 3, written by a newer kubesvc; this one reads versions up to 2`);
    expect(schemaVersion()).toBe(3);
  });

  it('one process serves one file: a second opener is refused while the first is open', async () => {
    const path = join(dir, 'store.db');
    const first = openSqliteStore({ path });
    await first.txn([], [{ kind: 'put', key: '/a', value: '1' }]);
    expect(() => openSqliteStore({ path })).toThrow(/is in use by another process \(one process serves one SQLite file\)/);
    await first.close();
    const second = openSqliteStore({ path });
    expect((await second.get('/a')).kv?.value).toBe('1');
    await second.close();
  });

  it('compaction deletes superseded rows and tombstones at or below the revision and keeps the rows in force', async () => {
    const path = join(dir, 'store.db');
    const store = openSqliteStore({ path });
    const put = (key: string, value: string) => store.txn([], [{ kind: 'put', key, value }]);
    await put('/a', '1'); // 1
    await put('/a', '2'); // 2
    await put('/b', '1'); // 3
    await store.txn([], [{ kind: 'delete', key: '/b' }]); // 4
    await put('/a', '3'); // 5
    await put('/c', '1'); // 6
    await store.compact(4);
    await store.close();
    const db = new Database(path, { readonly: true });
    try {
      const rows = db.prepare<[], { name: string; revision: number; deleted: number }>('SELECT name, revision, deleted FROM log ORDER BY id').all();
      // /a@2 is in force at 4 and is the prevKv of /a@5: kept. /a@1 and /b (put, then deleted at 4): gone.
      expect(rows).toEqual([
        { name: '/a', revision: 2, deleted: 0 },
        { name: '/a', revision: 5, deleted: 0 },
        { name: '/c', revision: 6, deleted: 0 },
      ]);
      expect(db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'compact_revision'").get()?.value).toBe(4);
    } finally {
      db.close();
    }
  });

  it('a large compaction deletes in batches with writes going on between them, and one cut short by a close is finished by the next', async () => {
    const path = join(dir, 'store.db');
    const store = openSqliteStore({ path });
    // 5,000 revisions of one key: a compaction to the last deletes 4,999 rows in 10 batches.
    for (let i = 1; i <= 5_000; i++) await store.txn([], [{ kind: 'put', key: '/k', value: String(i) }]);
    const order: string[] = [];
    const compacted = store.compact(5_000).then(() => order.push('compacted'));
    // The mark is set at once: a read below it fails before any row is gone.
    await expect(store.get('/k', { revision: 10 })).rejects.toMatchObject({ _tag: 'ErrCompacted' });
    await store.txn([], [{ kind: 'put', key: '/other', value: 'x' }]).then(() => order.push('write'));
    await compacted;
    expect(order).toEqual(['write', 'compacted']);
    // Cut short: a close right after the first batch leaves the rest for the next compaction.
    for (let i = 1; i <= 3_000; i++) await store.txn([], [{ kind: 'put', key: '/k', value: `b${i}` }]);
    const cut = store.compact(8_001);
    await store.close();
    await cut;
    const count = (p: string): { rows: number; finished: number; marked: number } => {
      const db = new Database(p, { readonly: true });
      try {
        return {
          rows: db.prepare<[], { n: number }>("SELECT COUNT(*) AS n FROM log WHERE name = '/k'").get()?.n ?? -1,
          finished: db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'compact_finished'").get()?.value ?? -1,
          marked: db.prepare<[], { value: number }>("SELECT value FROM meta WHERE name = 'compact_revision'").get()?.value ?? -1,
        };
      } finally {
        db.close();
      }
    };
    const after = count(path);
    expect(after.marked).toBe(8_001);
    expect(after.finished).toBeLessThan(8_001);
    expect(after.rows).toBeGreaterThan(1);
    const again = openSqliteStore({ path });
    await again.txn([], [{ kind: 'put', key: '/other', value: 'y' }]);
    await again.compact(8_002);
    expect((await again.get('/k')).kv?.value).toBe('b3000');
    await again.close();
    expect(count(path)).toEqual({ rows: 1, finished: 8_002, marked: 8_002 });
  });

  it('a compaction hands every freed page back to the file system and empties the WAL, and the WAL stays within its bound meanwhile', async () => {
    const path = join(dir, 'store.db');
    const walBytes = (): number => (existsSync(`${path}-wal`) ? statSync(`${path}-wal`).size : 0);
    // 200 keys of about 1 KB, each rewritten 10 times: 2,000 rows, of which a compaction to the
    // last revision keeps 200.
    const value = (i: number, generation: number): string => `${String(i).padStart(4, '0')}:${generation}:${'x'.repeat(1_000)}`;
    let store = openSqliteStore({ path });
    let largestWal = 0;
    for (let generation = 0; generation < 10; generation++) {
      for (let i = 0; i < 200; i++) await store.txn([], [{ kind: 'put', key: `/k/${i}`, value: value(i, generation) }]);
      largestWal = Math.max(largestWal, walBytes());
    }
    await store.close();
    const before = sqliteFileStats(path);
    expect(before).toMatchObject({ rowsInForce: 200, historyRows: 1_800, freePages: 0, revision: 2_000 });
    // 1,800 rows of 1 KB, three or four to a 4 KiB page: at least 450 pages of history.
    const historyPages = Math.floor(1_800 / 4);
    expect(before.pageCount).toBeGreaterThan(historyPages);

    store = openSqliteStore({ path });
    await store.txn([], [{ kind: 'put', key: '/other', value: 'x' }]);
    await store.compact(2_000);
    // The freed pages are out of the file while the store is still open, and the WAL is empty.
    const pageSize = before.pageSize;
    const openPages = statSync(path).size / pageSize;
    expect(walBytes()).toBe(0);
    expect(openPages).toBeLessThanOrEqual(before.pageCount - historyPages);
    await store.close();
    const after = sqliteFileStats(path);
    expect(after).toMatchObject({ rowsInForce: 201, historyRows: 0, freePages: 0, compactRevision: 2_000 });
    expect(after.pageCount).toBeLessThanOrEqual(before.pageCount - historyPages);
    // 1,000 pages of WAL before a checkpoint (4 MiB and the frames' headers), plus the commit
    // that crossed it: a few pages, never 5 MiB.
    expect(largestWal).toBeGreaterThan(0);
    expect(largestWal).toBeLessThan(5 * 1024 * 1024);
  });

  it('an acknowledged write survives the writer being killed with SIGKILL', async () => {
    const path = join(dir, 'store.db');
    const script = join(dir, 'writer.mts');
    const source = fileURLToPath(new URL('./sqlite-store.ts', import.meta.url));
    // The child writes keys one txn at a time and prints each revision once txn() resolved.
    writeFileSync(
      script,
      `import { openSqliteStore } from ${JSON.stringify(source)};
const store = openSqliteStore({ path: ${JSON.stringify(path)} });
for (let i = 0; i < 100000; i++) {
  const r = await store.txn([], [{ kind: 'put', key: '/k/' + String(i).padStart(6, '0'), value: 'v' + i }]);
  process.stdout.write(r.revision + '\\n');
}
`,
    );
    // One process (node with tsx's loader, not the tsx wrapper), so that SIGKILL hits the writer.
    const loader = new URL('../../../../node_modules/tsx/dist/loader.mjs', import.meta.url).href;
    const child = spawn(process.execPath, ['--import', loader, script], { stdio: ['ignore', 'pipe', 'inherit'] });
    let acked = 0;
    let buffered = '';
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    try {
      await new Promise<void>((resolve, reject) => {
        const deadline = setTimeout(() => reject(new Error(`writer acknowledged only ${acked} writes in 30 s`)), 30_000);
        child.stdout.on('data', (chunk: Buffer) => {
          buffered += chunk.toString('utf8');
          const lines = buffered.split('\n');
          buffered = lines.pop() ?? '';
          for (const line of lines) acked = Math.max(acked, Number(line));
          if (acked >= 200) {
            clearTimeout(deadline);
            child.kill('SIGKILL');
            resolve();
          }
        });
        child.once('exit', () => {
          clearTimeout(deadline);
          if (acked < 200) reject(new Error(`writer exited after ${acked} writes`));
        });
      });
    } finally {
      child.kill('SIGKILL');
      await exited;
    }
    const store = openSqliteStore({ path });
    try {
      const revision = await store.revision();
      expect(revision).toBeGreaterThanOrEqual(acked);
      const kvs = (await store.range('/k/')).kvs;
      expect(kvs.length).toBe(revision);
      expect(kvs.slice(0, acked).every((kv, i) => kv.key === `/k/${String(i).padStart(6, '0')}` && kv.modRevision === i + 1)).toBe(true);
      expect((await store.txn([], [{ kind: 'put', key: '/after', value: 'x' }])).revision).toBe(revision + 1);
    } finally {
      await store.close();
    }
  });
});

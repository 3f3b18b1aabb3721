// The SQLite backend keeps values in memory by row id (small ones in one budget, large ones
// such as the ClusterIP range objects in another): whatever the cache holds or has dropped, a
// read gives the stored value, at the current revision and at earlier ones, and after reopening.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Store } from '../types.js';
import { openSqliteStore } from './sqlite-store.js';

describe('sqlite store: values read through the value cache', () => {
  let dir: string;
  let path: string;
  let store: Store;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubesvc-sqlite-values-'));
    path = join(dir, 'store.db');
    store = openSqliteStore({ path });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('a large value rewritten many times comes back whole as prevKv, from get, and from range at each revision, also after reopening', async () => {
    // 200 KB each (over the small values' size), 12 of them: more than the large values' budget.
    const big = (i: number) => `${String(i).padStart(4, '0')}${'x'.repeat(200_000)}`;
    const revisions: number[] = [];
    for (let i = 0; i < 12; i++) {
      const r = await store.txn([], [{ kind: 'put', key: '/ranges/ips', value: big(i) }]);
      revisions.push(r.revision);
      const prev = r.results[0];
      expect(prev?.kind === 'put' ? prev.prevKv?.value.slice(0, 4) : undefined).toBe(i === 0 ? undefined : String(i - 1).padStart(4, '0'));
      expect(prev?.kind === 'put' ? prev.prevKv?.value.length : 0).toBe(i === 0 ? undefined : 200_004);
    }
    const check = async () => {
      expect((await store.get('/ranges/ips')).kv?.value).toBe(big(11));
      for (const [i, revision] of revisions.entries()) {
        const page = await store.range('/ranges/', { revision });
        expect(page.kvs.map((kv) => kv.value === big(i))).toEqual([true]);
      }
    };
    await check();
    await store.close();
    store = openSqliteStore({ path });
    await check();
  });

  it('small values: a list after many writes and after reopening gives each key its newest value', async () => {
    for (let round = 0; round < 3; round++) {
      await Promise.all(Array.from({ length: 50 }, (_, k) => store.txn([], [{ kind: 'put', key: `/s/${String(k).padStart(2, '0')}`, value: `v${round}-${k}` }])));
    }
    const expected = Array.from({ length: 50 }, (_, k) => `v2-${k}`);
    expect((await store.range('/s/')).kvs.map((kv) => kv.value)).toEqual(expected);
    await store.close();
    store = openSqliteStore({ path });
    expect((await store.range('/s/')).kvs.map((kv) => kv.value)).toEqual(expected);
  });
});

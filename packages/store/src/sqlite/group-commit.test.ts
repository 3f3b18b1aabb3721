// The SQLite backend's group commit: the txns asked for within one turn of the event loop run in
// one SQLite transaction; reads see the txns that have resolved, and the writes keep the order
// they were asked in.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ErrLeaseNotFound } from '../errors.js';
import type { Store, WatchEvent } from '../types.js';
import { openSqliteStore } from './sqlite-store.js';

describe('sqlite store: group commit', () => {
  let dir: string;
  let path: string;
  let store: Store;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'kubesvc-sqlite-group-'));
    path = join(dir, 'store.db');
    store = openSqliteStore({ path });
  });
  afterEach(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('txns asked for together get consecutive revisions in the order asked, a refused one fails alone, and all the others are in the file', async () => {
    const puts = ['a', 'b', 'c', 'd'].map((k) => store.txn([], [{ kind: 'put', key: `/k/${k}`, value: k }]));
    const refused = store.txn([], [{ kind: 'put', key: '/k/x', value: 'x', lease: '999' }]);
    const last = store.txn([{ key: '/k/a', target: 'createRevision', op: '=', value: 0 }], [{ kind: 'put', key: '/k/a', value: 'again' }], [{ kind: 'get', key: '/k/a' }]);
    const [a, b, c, d] = await Promise.all(puts);
    await expect(refused).rejects.toBeInstanceOf(ErrLeaseNotFound);
    const l = await last;
    expect([a?.revision, b?.revision, c?.revision, d?.revision]).toEqual([1, 2, 3, 4]);
    // The compare saw the put of /k/a asked for before it: the failure branch, at revision 4.
    expect(l.succeeded).toBe(false);
    expect(l.revision).toBe(4);
    expect(l.results[0]).toMatchObject({ kind: 'get', kv: { key: '/k/a', value: 'a', modRevision: 1 } });
    await store.close();
    store = openSqliteStore({ path });
    const all = await store.range('/k/');
    expect(all.kvs.map((kv) => [kv.key, kv.value, kv.modRevision])).toEqual([
      ['/k/a', 'a', 1],
      ['/k/b', 'b', 2],
      ['/k/c', 'c', 3],
      ['/k/d', 'd', 4],
    ]);
    expect(all.revision).toBe(4);
  });

  it('a read sees the txns that have resolved: one asked for and not yet resolved is not in it, as with a remote etcd', async () => {
    const put = store.txn([], [{ kind: 'put', key: '/k/a', value: '1' }]);
    const before = await store.get('/k/a');
    const watch = store.watch('/k/');
    const done = await put;
    const after = await store.get('/k/a');
    expect([before.kv, before.revision]).toEqual([undefined, 0]);
    expect([after.kv?.value, after.revision, done.revision]).toEqual(['1', 1, 1]);
    // The watch began before the put resolved, at revision 0: the put is its first event.
    const events: WatchEvent[] = [];
    for await (const e of watch) {
      events.push(e);
      break;
    }
    expect(events.map((e) => [e.type, e.kv.value, e.kv.modRevision])).toEqual([['put', '1', 1]]);
  });

  it('a lease call runs the txns asked for before it first, so writes keep the order they were asked in', async () => {
    const lease = await store.grant(60);
    const put = store.txn([], [{ kind: 'put', key: '/k/a', value: '1', lease: lease.id }]);
    await store.revoke(lease.id);
    // The put ran before the revoke: it resolved, and the revoke deleted its key.
    expect((await put).revision).toBe(1);
    expect((await store.get('/k/a')).kv).toBeUndefined();
    expect(await store.revision()).toBe(2);
  });

  it('a txn asked for right before close is committed', async () => {
    const put = store.txn([], [{ kind: 'put', key: '/k/a', value: '1' }]);
    await store.close();
    await expect(put).resolves.toMatchObject({ succeeded: true, revision: 1 });
    store = openSqliteStore({ path });
    expect((await store.get('/k/a')).kv?.value).toBe('1');
  });
});

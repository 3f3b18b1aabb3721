// The etcd store across an etcd restart: the member is stopped with SIGTERM while watches are
// open, stays down for a few seconds, and starts again on the same data directory. A watch
// must resume from the revision after the last one it delivered: every write before and after
// the restart comes exactly once, in revision order.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WatchReader } from '../store.conformance.js';
import type { Store, Watch } from '../types.js';
import { startEtcd, type EtcdFixture } from '@kubesvc/testkit';
import { openEtcdStore } from './etcd-store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('etcd store: an etcd restart under open watches', () => {
  let etcd: EtcdFixture;
  const stores: Store[] = [];
  const watches: Watch[] = [];

  const open = async (): Promise<Store> => {
    const store = await openEtcdStore({ endpoints: [etcd.endpoint] });
    stores.push(store);
    return store;
  };
  const reader = (store: Store, prefix: string, fromRevision?: number): WatchReader => {
    const w = store.watch(prefix, fromRevision === undefined ? {} : { fromRevision });
    watches.push(w);
    return new WatchReader(w, 15_000);
  };
  const put = (store: Store, key: string, value: string) => store.txn([], [{ kind: 'put', key, value }]);

  beforeEach(async () => {
    etcd = await startEtcd();
  }, 30_000);

  afterEach(async () => {
    for (const w of watches.splice(0)) w.close();
    for (const s of stores.splice(0)) await s.close();
    await etcd.dispose();
  });

  it('a watch resumes after the last delivered revision: no event is skipped or repeated', async () => {
    const store = await open();
    const live = reader(store, '/r/');
    // A second watch that replays history from the first write, so it is still catching up
    // on old revisions when it starts (etcd answers its create with the current revision).
    const first = (await put(store, '/r/0', 'before')).revision;
    for (let i = 1; i < 10; i++) await put(store, `/r/${i}`, 'before');
    await put(store, '/other/x', 'not under the prefix');
    const replay = reader(store, '/r/', first);
    // Half of the live watch's events are consumed before the stop, half after.
    expect((await live.take(5)).map((e) => e.kv.key)).toEqual(['/r/0', '/r/1', '/r/2', '/r/3', '/r/4']);

    await etcd.stop();
    await sleep(3000);
    await etcd.restart();

    // Written through a new client at once, while the old watches are still reconnecting.
    const writer = await open();
    const after: number[] = [];
    for (let i = 10; i < 20; i++) after.push((await put(writer, `/r/${i}`, 'after')).revision);
    await writer.txn([], [{ kind: 'delete', key: '/r/3' }]);
    // The first store's unary calls work again too.
    after.push((await put(store, '/r/20', 'after')).revision);

    const expected = [
      ...Array.from({ length: 10 }, (_, i) => `put /r/${i}=before`),
      ...Array.from({ length: 10 }, (_, i) => `put /r/${i + 10}=after`),
      'delete /r/3=',
      'put /r/20=after',
    ];
    const summary = (e: { type: string; kv: { key: string; value: string } }) => `${e.type} ${e.kv.key}=${e.kv.value}`;
    const liveRest = await live.take(expected.length - 5);
    expect(liveRest.map(summary)).toEqual(expected.slice(5));
    const replayed = await replay.take(expected.length);
    expect(replayed.map(summary)).toEqual(expected);
    // Revisions strictly increasing (the other prefix's write is the gap after the tenth).
    const revisions = replayed.map((e) => e.kv.modRevision);
    expect(revisions).toEqual([...revisions].sort((a, b) => a - b));
    expect(new Set(revisions).size).toBe(revisions.length);
    expect(revisions.slice(10, 20)).toEqual(after.slice(0, 10));
    expect(revisions.at(-1)).toBe(after.at(-1));
    expect(await live.peek(300)).toBe('quiet');
    expect(await replay.peek(300)).toBe('quiet');
  }, 60_000);

  it('a write and a watch made while etcd is down complete once it is back', async () => {
    const store = await open();
    const base = (await put(store, '/d/a', '1')).revision;
    await etcd.stop();
    const pending = put(store, '/d/b', '2');
    const w = reader(store, '/d/', base);
    await sleep(1500);
    await etcd.restart();
    const written = await pending;
    expect(written.revision).toBe(base + 1);
    expect((await w.take(2)).map((e) => `${e.kv.key}@${e.kv.modRevision}`)).toEqual([`/d/a@${base}`, `/d/b@${base + 1}`]);
  }, 60_000);
});

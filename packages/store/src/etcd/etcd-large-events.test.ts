// Watch responses larger than gRPC's default 4 MiB receive limit. etcd sends a watcher that is
// catching up (a watch from an old revision, or a slow consumer etcd moved to its unsynced
// group) up to 1,000 revisions in one WatchResponse, each event with its previous value when
// prev_kv is asked for. kubesvc rewrites /registry/ranges/serviceips (175 KB for a /12) on every
// allocation, so a few dozen of those events exceed 4 MiB. etcd's Go client, which
// kube-apiserver uses, accepts any size (clientv3 sets MaxCallRecvMsgSize to math.MaxInt32 by
// default; upstream: client/v3/options.go defaultMaxCallRecvMsgSize), so a watch must too:
// with the default limit the stream broke, reconnected from the same revision, got the same
// response and broke again, and the watch never delivered another event.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startEtcd, type EtcdFixture } from '@kubesvc/testkit';
import { WatchReader } from '../store.conformance.js';
import type { Store, Watch } from '../types.js';
import { openEtcdStore } from './etcd-store.js';

describe('etcd store: watch responses over 4 MiB', () => {
  let etcd: EtcdFixture;
  let store: Store | undefined;
  let watch: Watch | undefined;

  beforeEach(async () => {
    etcd = await startEtcd();
  }, 30_000);

  afterEach(async () => {
    watch?.close();
    await store?.close();
    await etcd.dispose();
  });

  it('a watch replaying 40 writes of 200 KB (about 16 MB with previous values) delivers every event', async () => {
    store = await openEtcdStore({ endpoints: [etcd.endpoint] });
    const values = Array.from({ length: 40 }, (_, i) => `${String(i).padStart(4, '0')}${'x'.repeat(200_000)}`);
    const first = (await store.txn([], [{ kind: 'put', key: '/ranges/big', value: values[0] ?? '' }])).revision;
    for (const value of values.slice(1)) await store.txn([], [{ kind: 'put', key: '/ranges/big', value }]);
    watch = store.watch('/ranges/', { fromRevision: first });
    const events = await new WatchReader(watch, 20_000).take(values.length);
    expect(events.map((e) => e.kv.modRevision)).toEqual(values.map((_, i) => first + i));
    expect(events.map((e) => e.kv.value.slice(0, 4))).toEqual(values.map((v) => v.slice(0, 4)));
  }, 60_000);
});

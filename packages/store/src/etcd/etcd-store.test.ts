// The etcd backend against the store conformance suite, on a real etcd 3.4 (/usr/bin/etcd)
// started once for the file. Each test opens its own store; teardown revokes every lease and
// deletes every key through a separate client, so that nothing of one test (a lease still
// running, a key on it) writes a revision during the next. Lease tests run in real time, with
// the TTLs etcd grants (its minimum is about 2 s). reopen() restarts the etcd process on the
// same data directory, as a durable backend's restart.
import { Etcd3 } from 'etcd3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { describeStoreConformance, WatchReader } from '../store.conformance.js';
import type { Store } from '../types.js';
import { startEtcd, type EtcdFixture } from '@kubesvc/testkit';
import { openEtcdStore, prefixEnd } from './etcd-store.js';

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

let etcd: EtcdFixture;

beforeAll(async () => {
  etcd = await startEtcd();
}, 30_000);

afterAll(async () => {
  await etcd.dispose();
});

/** Revokes every lease and deletes every key, through a client of its own. */
async function wipe(endpoint: string): Promise<void> {
  const admin = new Etcd3({ hosts: endpoint });
  try {
    const { leases } = await admin.leaseClient.leaseLeases();
    for (const lease of leases) {
      try {
        await admin.leaseClient.leaseRevoke({ ID: lease.ID });
      } catch {
        // expired meanwhile
      }
    }
    await admin.kv.deleteRange({ key: Buffer.from([0]), range_end: Buffer.from([0]) });
  } finally {
    admin.close();
  }
}

describeStoreConformance(
  'etcd',
  async () => {
    let store: Store = await openEtcdStore({ endpoints: [etcd.endpoint] });
    return {
      get store() {
        return store;
      },
      elapse: sleep,
      reopen: async () => {
        await store.close();
        await etcd.restart();
        store = await openEtcdStore({ endpoints: [etcd.endpoint] });
        return store;
      },
      dispose: async () => {
        await store.close();
        await wipe(etcd.endpoint);
      },
    };
  },
  { durable: true },
);

describe('etcd store: prefix ranges', () => {
  it('the range end of a prefix is the prefix with its last byte below 0xff raised by one', () => {
    expect(prefixEnd(Buffer.from('/registry/services/')).toString()).toBe('/registry/services0');
    expect([...prefixEnd(Buffer.from([0x61, 0xff, 0xff]))]).toEqual([0x62]);
    // Empty, or all 0xff: to the end of the keyspace, which etcd writes as a single zero byte.
    expect([...prefixEnd(Buffer.alloc(0))]).toEqual([0]);
    expect([...prefixEnd(Buffer.from([0xff]))]).toEqual([0]);
  });
});

describe('etcd store: a watch without fromRevision', () => {
  it('starts after the compacted revision when another client compacted past what this store saw', async () => {
    const idle = await openEtcdStore({ endpoints: [etcd.endpoint] });
    const busy = await openEtcdStore({ endpoints: [etcd.endpoint] });
    try {
      for (let i = 0; i < 5; i++) await busy.txn([], [{ kind: 'put', key: `/live/k${i}`, value: String(i) }]);
      const compacted = await busy.revision();
      await busy.compact(compacted);
      // idle's last seen revision is below the compaction: etcd refuses a watch from there.
      const w = new WatchReader(idle.watch('/live/'), 5000);
      const after = await busy.txn([], [{ kind: 'put', key: '/live/after', value: 'x' }]);
      expect(after.revision).toBe(compacted + 1);
      const [event] = await w.take(1);
      expect(event && `${event.type} ${event.kv.key}@${event.kv.modRevision}`).toBe(`put /live/after@${compacted + 1}`);
      expect(await w.peek(200)).toBe('quiet');
      w.watch.close();
    } finally {
      await idle.close();
      await busy.close();
      await wipe(etcd.endpoint);
    }
  });
});

describe('etcd store: values are decoded when read', () => {
  it("a watch event's value and previous value, and a txn's previous value, read as the strings written, also through a spread and JSON", async () => {
    const store = await openEtcdStore({ endpoints: [etcd.endpoint] });
    try {
      const before = `{"n":"één","big":"${'x'.repeat(200_000)}"}`;
      const after = '{"n":"twee ✓"}';
      await store.txn([], [{ kind: 'put', key: '/lazy/k', value: before }]);
      const w = new WatchReader(store.watch('/lazy/'), 5000);
      const put = await store.txn([], [{ kind: 'put', key: '/lazy/k', value: after }]);
      const [event] = await w.take(1);
      w.watch.close();
      if (event === undefined || event.prevKv === undefined) throw new Error(`no event with its previous value: ${JSON.stringify(event)}`);
      // Read through a spread and through JSON first, as a consumer that copies events would.
      expect({ ...event.kv }.value).toBe(after);
      expect((JSON.parse(JSON.stringify(event.prevKv)) as { value: string }).value).toBe(before);
      expect(Object.keys(event.kv)).toContain('value');
      expect(event.kv.value).toBe(after);
      expect(event.prevKv.value).toBe(before);
      expect(put.results[0]).toMatchObject({ kind: 'put' });
      const read = await store.get('/lazy/k');
      expect(read.kv?.value).toBe(after);
    } finally {
      await store.close();
      await wipe(etcd.endpoint);
    }
  });
});

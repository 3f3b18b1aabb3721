// The memory backend against the store conformance suite, on a virtual clock.
import { describe, expect, it } from 'vitest';
import { virtualClock } from '../virtual-clock.js';
import { ErrCompacted } from '../errors.js';
import { describeStoreConformance } from '../store.conformance.js';
import { openMemoryStore } from './memory-store.js';

describeStoreConformance('memory', () => {
  const clock = virtualClock(1_700_000_000_000);
  const store = openMemoryStore({ clock });
  return Promise.resolve({
    store,
    elapse: (ms: number) => {
      clock.advance(ms);
      return Promise.resolve();
    },
    dispose: () => store.close(),
  });
});

describe('memory store: beyond the shared suite', () => {
  it('a watch from exactly the compacted revision fails too: the history at or below it is gone', async () => {
    const store = openMemoryStore({ clock: virtualClock(0) });
    await store.txn([], [{ kind: 'put', key: '/a', value: '1' }]);
    await store.txn([], [{ kind: 'put', key: '/a', value: '2' }]);
    await store.compact(2);
    const iterator = store.watch('/', { fromRevision: 2 })[Symbol.asyncIterator]();
    await expect(iterator.next()).rejects.toBeInstanceOf(ErrCompacted);
    const fromThree = store.watch('/', { fromRevision: 3 });
    await store.txn([], [{ kind: 'put', key: '/a', value: '3' }]);
    const next = await fromThree[Symbol.asyncIterator]().next();
    expect(next.value?.kv.modRevision).toBe(3);
    await store.close();
  });

  it('a lease TTL must be a whole number of seconds, at least 1', async () => {
    const store = openMemoryStore({ clock: virtualClock(0) });
    await expect(store.grant(0)).rejects.toBeInstanceOf(RangeError);
    await expect(store.grant(1.5)).rejects.toBeInstanceOf(RangeError);
    await store.close();
  });

  it('expiry fires on the injected clock only: real time passing does nothing', async () => {
    const clock = virtualClock(0);
    const store = openMemoryStore({ clock });
    const lease = await store.grant(1);
    await store.txn([], [{ kind: 'put', key: '/a', value: '1', lease: lease.id }]);
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    expect((await store.get('/a')).kv?.value).toBe('1');
    clock.advance(999);
    expect((await store.get('/a')).kv?.value).toBe('1');
    clock.advance(1);
    expect((await store.get('/a')).kv).toBeUndefined();
    await store.close();
    expect(clock.pendingTimers()).toBe(0);
  });
});

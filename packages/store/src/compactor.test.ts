// The compactor against upstream's protocol (staging/src/k8s.io/apiserver/pkg/storage/etcd3/
// compact.go and its compact_test.go): no compaction on the first round, compaction to the
// revision seen one round earlier, compact_rev_key's version as the shared compact time, and
// one winner per round among several apiservers.
import { describe, expect, it } from 'vitest';
import { ErrCompacted } from './errors.js';
import { openMemoryStore } from './memory/memory-store.js';
import type { Store } from './types.js';
import { virtualClock } from './virtual-clock.js';
import { COMPACT_REV_KEY, compactRound, startCompactor, type CompactorLogger } from './compactor.js';

const put = (store: Store, key: string, value: string) => store.txn([], [{ kind: 'put', key, value }]);

/** Lets the promise chains a fired timer started run to the end. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}

/** A logger that keeps what the compactor said, as `level: message` lines. */
function recordingLogger(): CompactorLogger & { readonly lines: string[] } {
  const lines: string[] = [];
  return { lines, log: (level, message) => void lines.push(`${level}: ${message}`) };
}

const said = (logger: ReturnType<typeof recordingLogger>) => logger.lines;

describe('compactRound', () => {
  it('records the revision on the first round without compacting, then compacts to it on the next', async () => {
    const store = openMemoryStore();
    await put(store, '/registry/services/specs/default/a', 'v1');
    await put(store, '/registry/services/specs/default/a', 'v2');
    const first = await compactRound(store, { time: 0, revision: 0 });
    expect(first.compacted).toBeUndefined();
    // The CAS put compact_rev_key (revision 3), holding the revision it was given (0).
    expect(first.state).toEqual({ time: 1, revision: 3 });
    expect((await store.get(COMPACT_REV_KEY)).kv).toMatchObject({ value: '0', version: 1 });
    // Nothing was forgotten: revision 1 is still readable.
    expect((await store.get('/registry/services/specs/default/a', { revision: 1 })).kv?.value).toBe('v1');

    await put(store, '/registry/services/specs/default/a', 'v3');
    const second = await compactRound(store, first.state);
    expect(second.compacted).toBe(3);
    expect(second.state).toEqual({ time: 2, revision: 5 });
    expect((await store.get(COMPACT_REV_KEY)).kv).toMatchObject({ value: '3', version: 2 });
    await expect(store.get('/registry/services/specs/default/a', { revision: 2 })).rejects.toBeInstanceOf(ErrCompacted);
    // The revision compacted to, and later ones, still read.
    expect((await store.get('/registry/services/specs/default/a', { revision: 3 })).kv?.value).toBe('v2');
    expect((await store.get('/registry/services/specs/default/a')).kv?.value).toBe('v3');
  });

  it('a loser of the CAS adopts the stored compact time and the current revision, and compacts nothing', async () => {
    const store = openMemoryStore();
    await put(store, '/registry/a', '1');
    const winner = await compactRound(store, { time: 0, revision: 0 });
    expect(winner.state.time).toBe(1);
    // A second apiserver started at the same moment still believes the time is 0.
    const loser = await compactRound(store, { time: 0, revision: 0 });
    expect(loser.compacted).toBeUndefined();
    expect(loser.state).toEqual({ time: 1, revision: await store.revision() });
    // Next round: whoever comes first wins, once; the other loses again.
    await put(store, '/registry/a', '2');
    const a = await compactRound(store, loser.state);
    const b = await compactRound(store, winner.state);
    expect([a.compacted !== undefined, b.compacted !== undefined]).toEqual([true, false]);
    expect(b.state.time).toBe(2);
  });
});

describe('startCompactor', () => {
  it('compacts once per interval, the first time two intervals after start, and stops', async () => {
    const clock = virtualClock(1_000_000);
    const store = openMemoryStore({ clock });
    const logger = recordingLogger();
    const compacted: number[] = [];
    const compactor = startCompactor({ store, clock, intervalMs: 60_000, logger, onCompacted: (r) => compacted.push(r) });
    for (let i = 0; i < 5; i++) await put(store, '/registry/k', String(i));
    clock.advance(60_000);
    await settle();
    expect(compacted).toEqual([]);
    // The first round saw revision 5 and wrote compact_rev_key at 6.
    await put(store, '/registry/k', 'x');
    clock.advance(60_000);
    await settle();
    expect(compacted).toEqual([6]);
    expect(said(logger)).toContain('info: compactor: compacted the store to revision 6');
    compactor.stop();
    clock.advance(600_000);
    await settle();
    expect(compacted).toEqual([6]);
    expect(clock.pendingTimers()).toBe(0);
  });

  it('with two apiservers on one store, one compaction per interval, and the survivor takes over when the other stops', async () => {
    const clock = virtualClock(0);
    const store = openMemoryStore({ clock });
    const byA: number[] = [];
    const byB: number[] = [];
    const a = startCompactor({ store, clock, intervalMs: 300_000, logger: recordingLogger(), onCompacted: (r) => byA.push(r) });
    clock.advance(100_000);
    const b = startCompactor({ store, clock, intervalMs: 300_000, logger: recordingLogger(), onCompacted: (r) => byB.push(r) });
    // Time moves in steps of 100 s, so that each round finishes before the next one is due.
    const steps = async (n: number) => {
      for (let i = 0; i < n; i++) {
        clock.advance(100_000);
        await settle();
      }
    };
    for (let round = 0; round < 6; round++) {
      await put(store, '/registry/k', String(round));
      await steps(3);
    }
    // A wins every round from its second; B always finds the time moved on.
    expect(byA.length).toBe(5);
    expect(byB).toEqual([]);
    a.stop();
    for (let round = 0; round < 3; round++) {
      await put(store, '/registry/k', `after-${String(round)}`);
      await steps(3);
    }
    // B's next CAS succeeds (its time is current now that A is gone), and it compacts from then on.
    expect(byB.length).toBeGreaterThanOrEqual(2);
    b.stop();
  });

  it('logs a failed round as a warning and tries again next interval', async () => {
    const clock = virtualClock(0);
    const store = openMemoryStore({ clock });
    const logger = recordingLogger();
    await put(store, '/registry/k', '1');
    // Another client compacted further than this compactor will ask for.
    const compactor = startCompactor({ store, clock, intervalMs: 1_000, logger });
    clock.advance(1_000);
    await settle();
    await store.compact(await store.revision());
    clock.advance(1_000);
    await settle();
    expect(said(logger).some((l) => l.startsWith('warning: compactor: compaction to revision 2 failed:'))).toBe(true);
    clock.advance(1_000);
    await settle();
    expect(said(logger).some((l) => l.startsWith('info: compactor: compacted the store to revision'))).toBe(true);
    compactor.stop();
  });
});

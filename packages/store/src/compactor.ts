// The store compactor: kube-apiserver's periodic compaction of the storage history.
// upstream: staging/src/k8s.io/apiserver/pkg/storage/etcd3/compact.go (compactor, compact)
//
// Every write keeps the value it replaced until a compaction forgets it, so without one the
// history only grows: each allocation rewrites the ClusterIP range object (175 KB for a /12),
// and the SQLite file grew by that much per batch of creates. kube-apiserver compacts every
// `--etcd-compaction-interval` (default 5 minutes), and so does this, with upstream's protocol
// for several apiservers on one store:
// - the key `compact_rev_key` holds the last compacted revision; its `version` is the
//   "compact time", a logical clock shared through the store;
// - each round, an apiserver puts the revision it saw one interval ago if the key's version
//   still equals its own compact time (a CAS). The winner compacts to that revision; a loser
//   adopts the stored compact time and tries again next round. So one apiserver compacts per
//   interval, and if it dies another takes over within two intervals.
// - the first round only records the current revision: nothing is compacted at start-up.
// The history kept is therefore between one and two intervals long, which is what a watch
// (kubectl get -w, an informer) can resume within; older resourceVersions get 410 Gone.
import type { Clock } from './clock.js';
import type { Store } from './types.js';

/** The key upstream's compactor keeps its state under (outside /registry/, so no informer sees it). */
export const COMPACT_REV_KEY = 'compact_rev_key';
/** kube-apiserver's --etcd-compaction-interval default. */
export const DEFAULT_COMPACTION_INTERVAL_MS = 5 * 60_000;

/** What one apiserver's compactor remembers between rounds. */
export interface CompactorState {
  /** The compact time (the version of compact_rev_key) this apiserver last saw. */
  readonly time: number;
  /** The store revision seen at the last round: the next round compacts to it. */
  readonly revision: number;
}

export interface CompactRoundResult {
  readonly state: CompactorState;
  /** The revision this round compacted to, when it did. */
  readonly compacted?: number;
  /** The compaction's failure, when this apiserver won the CAS but the store refused to compact. */
  readonly error?: unknown;
}

/** One round of upstream's compact(): the CAS on compact_rev_key, then the compaction if this apiserver won. */
export async function compactRound(store: Store, state: CompactorState): Promise<CompactRoundResult> {
  const result = await store.txn(
    [{ key: COMPACT_REV_KEY, target: 'version', op: '=', value: state.time }],
    [{ kind: 'put', key: COMPACT_REV_KEY, value: String(state.revision) }],
    [{ kind: 'get', key: COMPACT_REV_KEY }],
  );
  const currentRevision = result.revision;
  if (!result.succeeded) {
    const got = result.results[0];
    const time = got?.kind === 'get' && got.kv !== undefined ? got.kv.version : state.time;
    return { state: { time, revision: currentRevision } };
  }
  const next: CompactorState = { time: state.time + 1, revision: currentRevision };
  // upstream: "We don't compact on bootstrap."
  if (state.revision === 0) return { state: next };
  // As upstream, the new compact time and revision are kept even when the compaction fails (a
  // revision another client compacted past, say): the next round compacts a newer revision.
  try {
    await store.compact(state.revision);
  } catch (error) {
    return { state: next, error };
  }
  return { state: next, compacted: state.revision };
}

/**
 * Where the compactor says what kube-apiserver's would log: a failed round as a warning, a
 * compaction as info. The runtime's Logger is one; the store declares only what it calls.
 */
export interface CompactorLogger {
  log(level: 'warning' | 'info', message: string): void;
}

export interface CompactorOptions {
  readonly store: Store;
  readonly clock: Clock;
  /** Milliseconds between rounds; the first round runs one interval after start. */
  readonly intervalMs: number;
  readonly logger: CompactorLogger;
  /** Called after each round that compacted, with the revision (for tests and metrics). */
  readonly onCompacted?: (revision: number) => void;
}

export interface Compactor {
  /** Stops the timer; a round in flight finishes. */
  stop(): void;
}

/** Runs compactRound every interval on the clock until stopped. A failed round is logged and retried next interval, as upstream does. */
export function startCompactor(options: CompactorOptions): Compactor {
  const { store, clock, intervalMs, logger } = options;
  let state: CompactorState = { time: 0, revision: 0 };
  let stopped = false;
  let cancel: (() => void) | undefined;
  const schedule = () => {
    if (stopped) return;
    cancel = clock.setTimer(clock.now() + intervalMs, () => {
      void round();
    });
  };
  const round = async () => {
    if (stopped) return;
    try {
      const done = await compactRound(store, state);
      if (done.error !== undefined) {
        const e = done.error;
        if (!stopped) logger.log('warning', `compactor: compaction to revision ${String(state.revision)} failed: ${e instanceof Error ? e.message : String(e)}`);
      }
      state = done.state;
      if (done.compacted !== undefined) {
        logger.log('info', `compactor: compacted the store to revision ${done.compacted}`);
        options.onCompacted?.(done.compacted);
      }
    } catch (e) {
      // The CAS itself failed (a closed store at shutdown, a lost connection): upstream logs
      // and keeps its state for the next round.
      if (!stopped) logger.log('warning', `compactor: round failed: ${e instanceof Error ? e.message : String(e)}`);
    }
    schedule();
  };
  schedule();
  return {
    stop() {
      stopped = true;
      cancel?.();
    },
  };
}

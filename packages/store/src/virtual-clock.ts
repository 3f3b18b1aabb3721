// A clock that moves only when told to. Tests and properties inject it wherever the shell needs
// time (lease expiry, repair intervals, controller ticks), so that a run is deterministic and
// an hour of leases takes microseconds.
import type { CancelTimer, Clock } from './clock.js';

export interface VirtualClock extends Clock {
  /**
   * Moves time forward by `ms`, firing every timer that falls due, in time order (timers due
   * at the same moment fire in the order they were set). A timer set by a firing timer fires
   * too if it falls due before the end. During a callback, now() is the timer's due time.
   */
  advance(ms: number): void;
  /** Moves time to `at` (no-op if `at` is not later than now), firing due timers as advance does. */
  advanceTo(at: number): void;
  /** How many timers are set and not yet fired or cancelled. */
  pendingTimers(): number;
}

interface Timer {
  readonly at: number;
  readonly seq: number;
  readonly fn: () => void;
  live: boolean;
}

/** A virtual clock starting at `start` milliseconds since the epoch. */
export function virtualClock(start = 0): VirtualClock {
  let now = start;
  let seq = 0;
  // A small binary heap ordered by (at, seq).
  const heap: Timer[] = [];
  let live = 0;

  const before = (a: Timer, b: Timer) => a.at < b.at || (a.at === b.at && a.seq < b.seq);
  const swap = (i: number, j: number) => {
    const t = heap[i] as Timer;
    heap[i] = heap[j] as Timer;
    heap[j] = t;
  };
  const push = (t: Timer) => {
    heap.push(t);
    let i = heap.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!before(heap[i] as Timer, heap[parent] as Timer)) break;
      swap(i, parent);
      i = parent;
    }
  };
  const pop = (): Timer | undefined => {
    const top = heap[0];
    const last = heap.pop();
    if (heap.length > 0 && last !== undefined) {
      heap[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < heap.length && before(heap[l] as Timer, heap[m] as Timer)) m = l;
        if (r < heap.length && before(heap[r] as Timer, heap[m] as Timer)) m = r;
        if (m === i) break;
        swap(i, m);
        i = m;
      }
    }
    return top;
  };

  const advanceTo = (at: number) => {
    if (!Number.isFinite(at)) throw new RangeError(`virtual clock: cannot advance to ${at}`);
    for (;;) {
      const next = heap[0];
      if (next === undefined || next.at > at) break;
      pop();
      if (!next.live) continue;
      next.live = false;
      live--;
      if (next.at > now) now = next.at;
      next.fn();
    }
    if (at > now) now = at;
  };

  return {
    now: () => now,
    setTimer(at: number, fn: () => void): CancelTimer {
      const timer: Timer = { at, seq: seq++, fn, live: true };
      push(timer);
      live++;
      return () => {
        if (!timer.live) return;
        timer.live = false;
        live--;
      };
    },
    advance(ms: number) {
      if (ms < 0) throw new RangeError(`virtual clock: cannot go back ${-ms} ms`);
      advanceTo(now + ms);
    },
    advanceTo,
    pendingTimers: () => live,
  };
}

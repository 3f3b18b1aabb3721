// The runner's schedule on a virtual clock, against upstream's BoundedFrequencyRunner: a burst
// of runs back to back, then one per minInterval, requests coalesced, at least one run per
// maxInterval, and retryAfter.
import { describe, expect, it } from 'vitest';
import { virtualClock } from '@kubesvc/store';
import { BoundedRunner } from './bounded-runner.js';

function runner(burst = 2) {
  const clock = virtualClock(1_000_000);
  const runs: number[] = [];
  const r = new BoundedRunner(clock, () => runs.push(clock.now() - 1_000_000), { minIntervalMs: 1000, maxIntervalMs: 60_000, burst });
  return { clock, runs, r };
}

describe('BoundedRunner', () => {
  it('never runs inside the request; requests of one turn make one run', () => {
    const { clock, runs, r } = runner();
    r.run();
    r.run();
    r.run();
    expect(runs).toStrictEqual([]);
    clock.advance(0);
    expect(runs).toStrictEqual([0]);
  });

  it('allows `burst` runs back to back, then one per minInterval (upstream: a token bucket, burst 2 for iptables)', () => {
    const { clock, runs, r } = runner(2);
    for (let i = 0; i < 5; i++) {
      r.run();
      clock.advance(0);
    }
    // Two tokens: runs at 0 and 0; the third request waits for a token, due at 1000.
    expect(runs).toStrictEqual([0, 0]);
    clock.advance(999);
    expect(runs).toStrictEqual([0, 0]);
    clock.advance(1);
    expect(runs).toStrictEqual([0, 0, 1000]);
    r.run();
    clock.advance(500);
    expect(runs).toStrictEqual([0, 0, 1000]);
    clock.advance(500);
    expect(runs).toStrictEqual([0, 0, 1000, 2000]);
    // Idle for a while refills the bucket to `burst`, no more.
    clock.advance(10_000);
    for (let i = 0; i < 3; i++) {
      r.run();
      clock.advance(0);
    }
    expect(runs).toStrictEqual([0, 0, 1000, 2000, 12_000, 12_000]);
    r.stop();
  });

  it('runs at least once per maxInterval, and retryAfter puts a run off without losing an earlier one', () => {
    const { clock, runs, r } = runner(1);
    clock.advance(60_000);
    expect(runs).toStrictEqual([60_000]);
    r.retryAfter(30_000);
    clock.advance(29_999);
    expect(runs).toStrictEqual([60_000]);
    r.run(); // due at once: the token is back
    clock.advance(0);
    expect(runs).toStrictEqual([60_000, 89_999]);
    r.stop();
    expect(clock.pendingTimers()).toBe(0);
    r.run();
    clock.advance(120_000);
    expect(runs).toStrictEqual([60_000, 89_999]);
  });
});

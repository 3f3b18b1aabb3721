import { describe, expect, it } from 'vitest';
import { TokenBucket } from './token-bucket.js';

describe('TokenBucket', () => {
  it('reserve borrows from the future as golang.org/x/time/rate does (10 per second, burst 2)', () => {
    const bucket = new TokenBucket({ tokens: 10, perMs: 1000, burst: 2 });
    // Starts full: two tokens now, then each further one 100 ms later than the one before.
    expect([0, 0, 0, 0].map((t) => bucket.reserve(t))).toEqual([0, 0, 100, 200]);
    // At 250 ms the debt of 2 tokens has shrunk by 2.5 to +0.5: the next one waits 50 ms.
    expect(bucket.reserve(250)).toBe(50);
    // A long quiet spell refills only up to the burst.
    expect([10_000, 10_000, 10_000].map((t) => bucket.reserve(t))).toEqual([0, 0, 100]);
  });

  it('the first reserve without a start time starts the clock and adds nothing', () => {
    const bucket = new TokenBucket({ tokens: 1, perMs: 1000, burst: 1 });
    expect(bucket.reserve(5_000)).toBe(0);
    expect(bucket.reserve(5_000)).toBe(1000);
  });

  it('delayUntilToken waits for a whole token and takes nothing (one per 256 ms, burst 2)', () => {
    // A power-of-two interval keeps the fractions exact, so the waits are whole milliseconds.
    const bucket = new TokenBucket({ tokens: 1, perMs: 256, burst: 2, now: 0 });
    expect(bucket.delayUntilToken(0)).toBe(0);
    bucket.take();
    bucket.take();
    expect(bucket.delayUntilToken(0)).toBe(256);
    expect(bucket.delayUntilToken(0)).toBe(256);
    expect(bucket.delayUntilToken(64)).toBe(192);
    expect(bucket.delayUntilToken(256)).toBe(0);
    bucket.take();
    expect(bucket.delayUntilToken(320)).toBe(192);
  });

  it('a rate over 0 ms is no limit: the bucket is always full', () => {
    const bucket = new TokenBucket({ tokens: 1, perMs: 0, burst: 3, now: 0 });
    for (let i = 0; i < 10; i++) {
      expect(bucket.delayUntilToken(0)).toBe(0);
      bucket.take();
    }
    expect(bucket.reserve(0)).toBe(0);
  });
});

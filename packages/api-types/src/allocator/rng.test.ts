import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { nextInt, seededRng } from './rng.js';

function draws(seed: number, bound: number, n: number): number[] {
  const out: number[] = [];
  let rng = seededRng(seed);
  for (let i = 0; i < n; i++) {
    const [v, next] = nextInt(rng, bound);
    out.push(v);
    rng = next;
  }
  return out;
}

describe('seeded generator', () => {
  it('gives the same sequence for the same seed and another for another seed', () => {
    expect(draws(1, 1000, 50)).toEqual(draws(1, 1000, 50));
    expect(draws(1, 1000, 50)).not.toEqual(draws(2, 1000, 50));
  });
  it('is a value: drawing does not change the generator it was given', () => {
    const rng = seededRng(9);
    const [a] = nextInt(rng, 100);
    const [b] = nextInt(rng, 100);
    expect(a).toBe(b);
    expect(rng).toEqual({ state: 9 });
  });
  it('spreads values over the bound', () => {
    const counts = new Array<number>(10).fill(0);
    for (const v of draws(123, 10, 10_000)) counts[v] = (counts[v] ?? 0) + 1;
    for (const c of counts) expect(c).toBeGreaterThan(850);
  });
  it('refuses a bound outside [1, 2^32] and a seed that is not a safe integer', () => {
    expect(() => nextInt(seededRng(1), 0)).toThrow(RangeError);
    expect(() => nextInt(seededRng(1), 2 ** 32 + 1)).toThrow(RangeError);
    expect(() => seededRng(0.5)).toThrow(RangeError);
  });
});

test.prop([fc.integer(), fc.integer({ min: 1, max: 2 ** 32 })])('every draw is an integer in [0, bound)', (seed, bound) => {
  for (const v of draws(seed, bound, 5)) {
    expect(Number.isInteger(v)).toBe(true);
    expect(v).toBeGreaterThanOrEqual(0);
    expect(v).toBeLessThan(bound);
  }
});

describe('bounds', () => {
  it('takes bound 1 (always 0) and bound 2^32, and names a refused value', () => {
    expect(draws(5, 1, 20)).toEqual(new Array<number>(20).fill(0));
    for (const v of draws(5, 2 ** 32, 20)) expect(v >= 0 && v < 2 ** 32 && Number.isInteger(v)).toBe(true);
    expect(() => nextInt(seededRng(1), 0)).toThrow(/got 0/);
    expect(() => seededRng(0.5)).toThrow(/0\.5/);
  });
});

// The chi-square upper tail against closed forms (even degrees of freedom: e^{-x/2} Σ (x/2)^k/k!)
// and against the 5 %, 1 % and 0.1 % critical values of the published tables.
import { describe, expect, test } from 'vitest';
import { chiSquareSurvival, chiSquareTest, logGamma, upperGammaRegularized } from './chi-square.js';

/** P(χ²(2m) ≥ x) = e^{-x/2} Σ_{k<m} (x/2)^k / k!. */
function evenSurvival(x: number, df: number): number {
  let term = 1;
  let sum = 1;
  for (let k = 1; k < df / 2; k++) {
    term *= x / 2 / k;
    sum += term;
  }
  return Math.exp(-x / 2) * sum;
}

describe('chiSquareSurvival', () => {
  test.each([2, 4, 6, 10, 20])('matches the closed form for %i degrees of freedom, on both sides of the series/continued-fraction switch', (df) => {
    for (const x of [0.01, 0.5, 1, 2, df - 1, df + 1, df + 2.5, 2 * df, 13.8155, 40, 90]) {
      const expected = evenSurvival(x, df);
      expect(Math.abs(chiSquareSurvival(x, df) - expected)).toBeLessThan(1e-12 + 1e-9 * expected);
    }
  });

  // Critical values: P(χ²(df) ≥ x) = p.
  test.each([
    [1, 3.841458820694124, 0.05],
    [1, 6.634896601021214, 0.01],
    [1, 10.827566170662733, 0.001],
    [2, 13.815510557964274, 0.001],
    [3, 7.814727903251178, 0.05],
    [4, 18.46682695290317, 0.001],
    [5, 11.070497693516351, 0.05],
    [10, 18.307038053275146, 0.05],
    [10, 29.58829844507442, 0.001],
  ])('χ²(%i) ≥ %f has probability %f', (df, x, p) => {
    expect(chiSquareSurvival(x, df)).toBeCloseTo(p, 9);
  });

  test('is 1 at 0, decreasing, and refuses a non-integer or zero df', () => {
    expect(chiSquareSurvival(0, 3)).toBe(1);
    expect(chiSquareSurvival(1, 3)).toBeGreaterThan(chiSquareSurvival(2, 3));
    expect(() => chiSquareSurvival(1, 0)).toThrow(RangeError);
    expect(() => chiSquareSurvival(1, 1.5)).toThrow(RangeError);
    expect(() => upperGammaRegularized(0, 1)).toThrow(RangeError);
  });
});

test('logGamma at integers and halves', () => {
  expect(logGamma(5)).toBeCloseTo(Math.log(24), 12);
  expect(logGamma(1)).toBeCloseTo(0, 12);
  expect(logGamma(0.5)).toBeCloseTo(Math.log(Math.sqrt(Math.PI)), 12);
  expect(logGamma(10.5)).toBeCloseTo(Math.log(1133278.38894878), 9);
});

describe('chiSquareTest', () => {
  test('a worked example: 10, 20, 30 against thirds gives 10 with 2 df, p = e^-5', () => {
    const r = chiSquareTest({ a: 10, b: 20, c: 30 }, { a: 1 / 3, b: 1 / 3, c: 1 / 3 });
    expect(r.statistic).toBeCloseTo(10, 12);
    expect(r.degreesOfFreedom).toBe(2);
    expect(r.pValue).toBeCloseTo(Math.exp(-5), 12);
    expect(r.categories).toEqual(['a', 'b', 'c']);
    expect(r.expected).toEqual([20, 20, 20].map((e) => expect.closeTo(e, 9)));
  });

  test('a predicted category never observed counts with its full expectation', () => {
    const r = chiSquareTest({ a: 30 }, { a: 0.5, b: 0.5 });
    expect(r.statistic).toBeCloseTo(30, 12);
    expect(r.degreesOfFreedom).toBe(1);
  });

  test('a category observed but predicted impossible fails the test outright', () => {
    const r = chiSquareTest({ a: 99, x: 1 }, { a: 1 });
    expect(r.statistic).toBe(Infinity);
    expect(r.pValue).toBe(0);
  });
});

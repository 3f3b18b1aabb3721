// Pearson's chi-square goodness-of-fit test: do observed counts fit predicted shares?
// The p-value is the chi-square distribution's upper tail, the regularized upper incomplete
// gamma function Q(df/2, x/2), computed here by its power series (x < a + 1) or its continued
// fraction (otherwise), the two classic expansions (Abramowitz & Stegun 6.5.29 and 6.5.31).
// Why not a library: the one well-kept package for it, @stdlib/stats-base-dists-chisquare-cdf,
// brings 211 packages (24 MB) for this one function (docs/architecture.md).

export interface ChiSquareResult {
  /** Σ (observed − expected)² / expected over the categories. */
  readonly statistic: number;
  /** Categories − 1. */
  readonly degreesOfFreedom: number;
  /** P(X ≥ statistic) for X ~ χ²(degreesOfFreedom): large means the counts fit. */
  readonly pValue: number;
  /** The expected count of each category, in the order of `categories`. */
  readonly expected: readonly number[];
  readonly categories: readonly string[];
}

const EPSILON = 1e-15;
const MAX_ITERATIONS = 10_000;

/** ln Γ(z) for z > 0 (Lanczos, g = 7, n = 9), accurate to about 15 digits. */
export function logGamma(z: number): number {
  if (z < 0.5) return Math.log(Math.PI / Math.sin(Math.PI * z)) - logGamma(1 - z);
  const c = [
    0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905,
    -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7,
  ];
  const x = z - 1;
  let sum = c[0] ?? 1;
  for (let i = 1; i < c.length; i++) sum += (c[i] ?? 0) / (x + i);
  const t = x + 7.5;
  return 0.5 * Math.log(2 * Math.PI) + (x + 0.5) * Math.log(t) - t + Math.log(sum);
}

/** The regularized upper incomplete gamma function Q(a, x) = Γ(a, x) / Γ(a), a > 0, x ≥ 0. */
export function upperGammaRegularized(a: number, x: number): number {
  if (!(a > 0) || !(x >= 0)) throw new RangeError(`Q(a, x) needs a > 0 and x >= 0, got a=${a}, x=${x}`);
  if (x === 0) return 1;
  if (x === Infinity) return 0;
  const logPrefix = a * Math.log(x) - x - logGamma(a);
  if (x < a + 1) {
    // P(a, x) = e^{-x} x^a / Γ(a+1) · Σ x^n / ((a+1)…(a+n)); Q = 1 − P.
    let term = 1 / a;
    let sum = term;
    for (let n = 1; n < MAX_ITERATIONS; n++) {
      term *= x / (a + n);
      sum += term;
      if (Math.abs(term) < Math.abs(sum) * EPSILON) break;
    }
    return Math.max(0, 1 - sum * Math.exp(logPrefix));
  }
  // Q(a, x) = e^{-x} x^a / Γ(a) · 1/(x+1−a− 1·(1−a)/(x+3−a− 2·(2−a)/(x+5−a− …))), by Lentz's method.
  const tiny = 1e-300;
  let b = x + 1 - a;
  let c = 1 / tiny;
  let d = 1 / b;
  let h = d;
  for (let n = 1; n < MAX_ITERATIONS; n++) {
    const an = -n * (n - a);
    b += 2;
    d = an * d + b;
    if (Math.abs(d) < tiny) d = tiny;
    c = b + an / c;
    if (Math.abs(c) < tiny) c = tiny;
    d = 1 / d;
    const delta = d * c;
    h *= delta;
    if (Math.abs(delta - 1) < EPSILON) break;
  }
  return Math.min(1, Math.exp(logPrefix) * h);
}

/** P(X ≥ x) for X ~ χ²(df). */
export function chiSquareSurvival(x: number, degreesOfFreedom: number): number {
  if (!Number.isInteger(degreesOfFreedom) || degreesOfFreedom < 1) throw new RangeError(`degrees of freedom must be a positive integer, got ${degreesOfFreedom}`);
  if (x <= 0) return 1;
  return upperGammaRegularized(degreesOfFreedom / 2, x / 2);
}

/**
 * Tests observed counts against predicted shares (which should sum to 1). A category
 * observed but predicted at share 0 makes the statistic infinite (p = 0): the kernel did
 * something the prediction says is impossible.
 */
export function chiSquareTest(observed: Readonly<Record<string, number>>, predicted: Readonly<Record<string, number>>): ChiSquareResult {
  const categories = [...new Set([...Object.keys(predicted), ...Object.keys(observed)])].sort();
  const total = categories.reduce((sum, c) => sum + (observed[c] ?? 0), 0);
  let statistic = 0;
  const expected: number[] = [];
  for (const c of categories) {
    const e = (predicted[c] ?? 0) * total;
    const o = observed[c] ?? 0;
    expected.push(e);
    if (e === 0) {
      if (o > 0) statistic = Infinity;
      continue;
    }
    statistic += ((o - e) * (o - e)) / e;
  }
  const degreesOfFreedom = Math.max(1, categories.filter((c) => (predicted[c] ?? 0) > 0).length - 1);
  const pValue = statistic === Infinity ? 0 : chiSquareSurvival(statistic, degreesOfFreedom);
  return { statistic, degreesOfFreedom, pValue, expected, categories };
}

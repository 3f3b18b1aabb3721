// INV-IPT-UNIFORM, by example and over every n ≤ 10,000.
//
// Figures (all n ≤ 10,000 endpoints; P_i the traced probability of endpoint i):
// - written %0.10f probabilities, exact decimal arithmetic: max |P_i − 1/n| = 5·10^-11 exactly,
//   at n = 2048, i = 0 (1/2048 = 0.00048828125 is a tie; Go prints 0.0004882812); next worst
//   4.99898e-11 (n = 4881). Worst relative error |n·P_i − 1| = 4.93252e-7 (n = 9969, i = 7).
//   Proven bound (uniformity.fixtures.ts): |n·P_i − 1| ≤ exp(a·(n + H_{n−1})) − 1 with a = 5e-11,
//   which is ≤ 5.0049e-7 for every n ≤ 10,000 (5.0049e-11 absolute at n = 10,000).
// - the kernel (stored = lround(p·2^31), match with stored/2^31): max |P_i − 1/n| =
//   2.8172715952e-10, at n = 1119, i = 0 (stored 1919109 for 0.0008936550); worst relative
//   2.55847e-6 (n = 10000, i = 57). Proven bound, with a = 2.81727e-10: ≤ 2.8201e-6 relative
//   for every n ≤ 10,000 (2.8201e-10 absolute at n = 10,000).
// The all-n figures come from a double-precision scan of the exact per-step errors (good to
// ≈ 1e-18, far below the gaps between the figures); the exact traces below confirm them.
import { describe, expect, it } from 'vitest';
import { goFormatFixed, probabilityText } from '../probability.js';
import { compareRational as compare, parseDecimalRational as parseDecimal, type Rational, RATIONAL_ONE as ONE, RATIONAL_ZERO as ZERO, rationalDistance as distance, rationalToFixed as toFixed, reduceRational as reduce } from '@kubesvc/proxy';
import { tracePacket } from './trace-packet.js';
import { analyticBound, POD, scanDeviations, SERVICE_IP, serviceWithEndpoints, worstStep } from './uniformity.fixtures.js';

const N = 10_000;
const HALF_ULP = reduce(1n, 20_000_000_000n); // 5·10^-11

interface Distribution {
  readonly endpoints: string[];
  readonly written: Rational[];
  readonly kernel: Rational[];
  /** Σ P_i = 1 exactly, in each arithmetic. */
  readonly sumsToOne: { readonly written: boolean; readonly kernel: boolean };
  /** Every P_i within 5·10^-11 (written) and 2.8173e-10 (kernel) of 1/n, compared exactly. */
  readonly withinBounds: { readonly written: boolean; readonly kernel: boolean };
  /** max |P_i − 1/n| and where, exactly (only for n ≤ 400: the subtractions get large), and for the first endpoint. */
  readonly worstWritten: Rational;
  readonly worstWrittenAt: number;
}

function bitLength(x: bigint): number {
  const hex = x.toString(16);
  return (hex.length - 1) * 4 + Math.floor(Math.log2(Number.parseInt(hex.charAt(0), 16))) + 1;
}

/**
 * An exact sum of fractions whose denominators are 2^a·5^b, kept over 2^A·5^B with the largest
 * exponents seen: each addition multiplies by a small power only, since the tracer's outcomes
 * come with growing denominators (a generic rational sum would redo large gcds every time).
 */
class DecimalSum {
  numerator = 0n;
  twos = 0;
  fives = 0;

  add(r: Rational): void {
    const twos = bitLength(r.denominator & -r.denominator) - 1;
    // The odd part is 5^b: its bit length floor(b·log2 5) + 1 fixes b.
    const fives = Math.ceil((bitLength(r.denominator >> BigInt(twos)) - 1) / Math.log2(5));
    const A = Math.max(this.twos, twos);
    const B = Math.max(this.fives, fives);
    const lift = (a: number, b: number): bigint => (1n << BigInt(A - a)) * 5n ** BigInt(B - b);
    this.numerator = this.numerator * lift(this.twos, this.fives) + r.numerator * lift(twos, fives);
    [this.twos, this.fives] = [A, B];
  }

  isOne(): boolean {
    return this.numerator === (1n << BigInt(this.twos)) * 5n ** BigInt(this.fives);
  }
}

const KERNEL_WORST = parseDecimal('2.8173e-10') ?? ONE;

/** Traces a pod → ClusterIP packet; keeps only what the checks need (the exact numbers are large). */
function traced(n: number, keep: (i: number) => boolean, format: 'modern' | 'old' = 'modern'): Distribution {
  const { ruleset } = serviceWithEndpoints(n, 0, format);
  const out = { endpoints: [] as string[], written: [] as Rational[], kernel: [] as Rational[] };
  const sumWritten = new DecimalSum();
  const sumKernel = new DecimalSum();
  const ideal = reduce(1n, BigInt(n));
  // |p − 1/n| ≤ bound, by cross-multiplication: one large-by-small product per side.
  const within = (p: Rational, bound: Rational): boolean => {
    const scaled = p.numerator * BigInt(n) * bound.denominator;
    const slack = bound.numerator * BigInt(n) * p.denominator;
    const centre = bound.denominator * p.denominator;
    return scaled <= centre + slack && scaled >= centre - slack;
  };
  let withinWritten = true;
  let withinKernel = true;
  let worstWritten = ZERO;
  let worstWrittenAt = -1;
  let i = 0;
  const result = tracePacket(
    ruleset,
    { source: POD, destination: SERVICE_IP, protocol: 'tcp', destinationPort: 80, entry: 'pod' },
    {
      localAddresses: ['192.168.0.2'],
      onOutcome: (o) => {
        out.endpoints.push(o.dnat ?? o.kind);
        sumWritten.add(o.probability.written);
        sumKernel.add(o.probability.kernel);
        withinWritten &&= within(o.probability.written, HALF_ULP);
        withinKernel &&= within(o.probability.kernel, KERNEL_WORST);
        if (n <= 400 || i === 0) {
          const w = distance(o.probability.written, ideal);
          if (compare(w, worstWritten) > 0) [worstWritten, worstWrittenAt] = [w, i];
        }
        if (keep(i)) {
          out.written.push(o.probability.written);
          out.kernel.push(o.probability.kernel);
        }
        i++;
      },
    },
  );
  if (!result.ok) throw new Error(result.error.message);
  return {
    ...out,
    sumsToOne: { written: sumWritten.isOne(), kernel: sumKernel.isOne() },
    withinBounds: { written: withinWritten, kernel: withinKernel },
    worstWritten,
    worstWrittenAt,
  };
}

const r = (n: bigint, d: bigint): Rational => reduce(n, d);
describe('INV-IPT-UNIFORM examples', () => {
  it('INV-IPT-UNIFORM: n = 1: the single rule takes everything', () => {
    const d = traced(1, () => true);
    expect(d.endpoints).toEqual(['10.180.0.0:8080']);
    expect(d.written).toEqual([ONE]);
    expect(d.kernel).toEqual([ONE]);
  });

  it('INV-IPT-UNIFORM: n = 2: 0.5000000000 is exact, both halves are 1/2 in both arithmetics', () => {
    const d = traced(2, () => true);
    expect(d.endpoints).toEqual(['10.180.0.0:8080', '10.180.0.1:8080']);
    expect(d.written).toEqual([r(1n, 2n), r(1n, 2n)]);
    expect(d.kernel).toEqual([r(1n, 2n), r(1n, 2n)]);
  });

  it('INV-IPT-UNIFORM: n = 3: 3333333333/10^10, then (1 − that)·1/2 twice; the kernel draws 715827883/2^31 first', () => {
    const d = traced(3, () => true);
    // By hand: p3 = 0.3333333333, p2 = 0.5; the rest 6666666667/10^10 splits in halves.
    expect(d.written).toEqual([r(3333333333n, 10n ** 10n), r(6666666667n, 2n * 10n ** 10n), r(6666666667n, 2n * 10n ** 10n)]);
    // lround(0.3333333333 · 2^31) = lround(715827882.6) = 715827883; 2^31 − that = 1431655765.
    expect(d.kernel).toEqual([r(715827883n, 2n ** 31n), r(1431655765n, 2n ** 32n), r(1431655765n, 2n ** 32n)]);
    expect(d.sumsToOne).toEqual({ written: true, kernel: true });
    expect(d.worstWritten).toEqual(r(1n, 3n * 10n ** 10n));
  });

  for (const n of [319, 320, 2048]) {
    it(`INV-IPT-UNIFORM: n = ${n}: every endpoint once, sums exactly 1, error ≤ 5·10^-11 written and ≤ 2.8173e-10 kernel`, () => {
      const d = traced(n, () => false);
      expect(new Set(d.endpoints).size).toBe(n);
      expect(d.sumsToOne).toEqual({ written: true, kernel: true });
      expect(d.withinBounds).toEqual({ written: true, kernel: true });
      if (n === 2048) {
        // The stated worst case is reached: 1/2048 = 0.00048828125 is printed 0.0004882812.
        expect(d.worstWritten).toEqual(HALF_ULP);
        expect(d.worstWrittenAt).toBe(0);
      }
    });
  }

  it('INV-IPT-UNIFORM: n = 10,000 (traced exactly): sums exactly 1; worst written error 5·10^-11 bound holds; kernel worst relative error 2.55847e-6 at endpoint 57', () => {
    const d = traced(N, (i) => i === 57);
    expect(d.endpoints.length).toBe(N);
    expect(new Set(d.endpoints).size).toBe(N);
    expect(d.sumsToOne).toEqual({ written: true, kernel: true });
    expect(d.withinBounds).toEqual({ written: true, kernel: true });
    // The scan's worst relative kernel error, confirmed exactly: |10000·P_57 − 1|.
    const p57 = d.kernel[0] ?? ZERO;
    const relative = distance({ numerator: p57.numerator * 10_000n, denominator: p57.denominator }, ONE);
    expect(toFixed(relative, 16)).toBe('0.0000025584737202');
  }, 60_000);
});

describe('INV-IPT-UNIFORM over every n ≤ 10,000', () => {
  it('INV-IPT-UNIFORM: the per-step errors: |p_k − 1/k| ≤ 5·10^-11 written (reached at k = 2048) and ≤ 2.8173e-10 in the kernel (k = 1119)', () => {
    const written = worstStep(N, 'written');
    expect(written).toEqual({ k: 2048, numerator: 1024n, denominator: 2048n * 10n ** 10n });
    const kernel = worstStep(N, 'kernel');
    expect(kernel.k).toBe(1119);
    expect(toFixed(reduce(kernel.numerator, kernel.denominator), 20)).toBe('0.00000000028172715952');
  });

  it('INV-IPT-UNIFORM: the proven relative bounds for n ≤ 10,000 are 5.0049e-7 (written) and 2.8201e-6 (kernel); absolute 5.0049e-11 and 2.8201e-10 at n = 10,000', () => {
    expect(analyticBound(N, 5e-11)).toBeLessThan(5.0049e-11);
    expect(analyticBound(N, 2.8172715952398525e-10)).toBeLessThan(2.8201e-10);
    // n·bound(n) = exp(a·(n + H_{n−1})) − 1 grows with n, so the relative figure at 10,000
    // covers every smaller n; the absolute bound(n) is largest at n = 2 (≈ a·(1 + 1/2)) but
    // there only the last rule's own error counts: the exact per-n figures are in the scan.
    expect(5000 * analyticBound(5000, 5e-11)).toBeLessThan(N * analyticBound(N, 5e-11));
    expect(N * analyticBound(N, 5e-11)).toBeLessThan(5.0049e-7);
    expect(N * analyticBound(N, 2.8172715952398525e-10)).toBeLessThan(2.8201e-6);
  });

  it('INV-IPT-UNIFORM: scanning every n ≤ 10,000: written worst 5e-11 at (2048, 0), kernel worst 2.8172715952e-10 at (1119, 0), both within the proven bounds', () => {
    const written = scanDeviations(N, 'written');
    expect(written.worstAbsolute.n).toBe(2048);
    expect(written.worstAbsolute.i).toBe(0);
    expect(written.worstAbsolute.value).toBeCloseTo(5e-11, 20);
    // The gap to the runner-up (≈1e-14) dwarfs the scan's rounding (≈1e-18).
    expect(written.runnerUpAbsolute).toBeLessThan(5e-11 - 1e-15);
    expect(written.worstRelative.n).toBe(9969);
    expect(written.worstRelative.value).toBeCloseTo(4.932521109852529e-7, 15);
    expect(written.worstRelative.value).toBeLessThan(5.0049e-7);

    const kernel = scanDeviations(N, 'kernel');
    expect([kernel.worstAbsolute.n, kernel.worstAbsolute.i]).toEqual([1119, 0]);
    expect(kernel.worstAbsolute.value).toBeCloseTo(2.8172715952398525e-10, 20);
    expect(kernel.worstAbsolute.value).toBeLessThan(2.8201e-10);
    expect([kernel.worstRelative.n, kernel.worstRelative.i]).toEqual([10_000, 57]);
    expect(kernel.worstRelative.value).toBeCloseTo(2.5584737202082017e-6, 15);
    expect(kernel.worstRelative.value).toBeLessThan(2.8201e-6);
  }, 30_000);
});

describe('the old %0.5f format', () => {
  it('INV-IPT-UNIFORM: %0.5f repeats from 319 endpoints on: 319 and 320 both print 0.00313, and no smaller n shares its text', () => {
    expect(probabilityText(319, 'old')).toBe('0.00313');
    expect(probabilityText(320, 'old')).toBe('0.00313');
    // 1/320 = 0.003125 is a decimal tie, but the double nearest 1/320 is slightly above it.
    expect(goFormatFixed(1 / 320, 20)).toBe('0.00312500000000000017');
    const texts = Array.from({ length: 319 }, (_, i) => probabilityText(i + 1, 'old'));
    expect(new Set(texts).size).toBe(319);
    // With the modern format all of 1..10,000 stay distinct.
    const modern = new Set(Array.from({ length: N }, (_, i) => probabilityText(i + 1, 'modern')));
    expect(modern.size).toBe(N);
  });

  it('INV-IPT-UNIFORM: with %0.5f a 320-endpoint service is off by 5·10^-6 on its first endpoint (0.00313 against 1/320), 100,000 times the modern worst', () => {
    const d = traced(320, (i) => i === 0, 'old');
    expect(d.written[0]).toEqual(r(313n, 100_000n));
    expect(distance(d.written[0] ?? ZERO, r(1n, 320n))).toEqual(r(1n, 200_000n));
    expect(d.sumsToOne.written).toBe(true);
  });
});

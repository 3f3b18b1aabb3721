// Exact probabilities. Every probability the tracer meets is a product of statistic-match
// factors whose denominators are powers of ten (the written `--probability` text) or 2^31 (the
// kernel's fixed point), so every denominator is 2^a·5^b. Reducing such a fraction only needs
// the common factors 2 and 5 stripped, which stays linear in the size of the numbers: a
// 10,000-endpoint chain gives numerators of 330,000 bits, where a Euclidean gcd per outcome
// would be far too slow.

/** A non-negative fraction in lowest terms (denominator ≥ 1). */
export interface Rational {
  readonly numerator: bigint;
  readonly denominator: bigint;
}

export const ZERO: Rational = { numerator: 0n, denominator: 1n };
export const ONE: Rational = { numerator: 1n, denominator: 1n };

/** The number of trailing zero bits of x > 0. */
function trailingZeros(x: bigint): number {
  const lowest = x & -x;
  // lowest is a power of two; its hex text has one leading digit and then zeros.
  const hex = lowest.toString(16);
  const lead = hex.charCodeAt(0) - 48; // '1', '2', '4' or '8'
  return (hex.length - 1) * 4 + (lead === 1 ? 0 : lead === 2 ? 1 : lead === 4 ? 2 : 3);
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a < 0n ? -a : a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

const SMALL = 1n << 128n;

/** The exponent of 5 in x > 0: O(log v) divisions, by 5, 5^2, 5^4, ... and back down. */
function fives(x: bigint): number {
  if (x % 5n !== 0n) return 0;
  let rest = x;
  let v = 0;
  const powers: bigint[] = [5n];
  for (;;) {
    const p = powers[powers.length - 1] ?? 5n;
    if (rest % p !== 0n) break;
    rest /= p;
    v += 2 ** (powers.length - 1);
    powers.push(p * p);
  }
  for (let j = powers.length - 2; j >= 0; j--) {
    const p = powers[j] ?? 5n;
    if (rest % p === 0n) {
      rest /= p;
      v += 2 ** j;
    }
  }
  return v;
}

/** [a, b] when x = 2^a·5^b, else undefined. */
function twosAndFives(x: bigint): readonly [number, number] | undefined {
  const a = trailingZeros(x);
  const odd = x >> BigInt(a);
  const b = fives(odd);
  return odd === 5n ** BigInt(b) ? [a, b] : undefined;
}

/**
 * numerator/denominator in lowest terms. Fast when the denominator is 2^a·5^b times a small
 * factor (every fraction the tracer builds, and 1/n); below 2^128 a plain gcd is used.
 */
export function reduce(numerator: bigint, denominator: bigint): Rational {
  if (denominator <= 0n || numerator < 0n) throw new RangeError('reduce needs numerator >= 0 and denominator > 0');
  if (numerator === 0n) return ZERO;
  if (numerator < SMALL && denominator < SMALL) {
    const g = gcd(numerator, denominator);
    return { numerator: numerator / g, denominator: denominator / g };
  }
  let n = numerator;
  let d = denominator;
  const twos = Math.min(trailingZeros(n), trailingZeros(d));
  if (twos > 0) {
    n >>= BigInt(twos);
    d >>= BigInt(twos);
  }
  const dTwos = trailingZeros(d);
  const dFives = fives(d >> BigInt(dTwos));
  const common = Math.min(fives(n), dFives);
  if (common > 0) {
    const p = 5n ** BigInt(common);
    n /= p;
    d /= p;
  }
  // What is left of the denominator besides 2s and 5s (1 for the tracer's own fractions, or a
  // small factor such as the n of 1/n): one big remainder, then a gcd of small numbers.
  const other = (d >> BigInt(dTwos)) / 5n ** BigInt(dFives - common);
  if (other > 1n) {
    const g = gcd(other, n % other);
    if (g > 1n) {
      n /= g;
      d /= g;
    }
  }
  return { numerator: n, denominator: d };
}

export function add(a: Rational, b: Rational): Rational {
  if (a.denominator === b.denominator) return reduce(a.numerator + b.numerator, a.denominator);
  // Over the least common multiple when both denominators are 2^a·5^b: the product would
  // double the size of the numbers at every addition.
  const fa = a.denominator < SMALL ? undefined : twosAndFives(a.denominator);
  const fb = fa === undefined ? undefined : twosAndFives(b.denominator);
  if (fa !== undefined && fb !== undefined) {
    const lcm = (1n << BigInt(Math.max(fa[0], fb[0]))) * 5n ** BigInt(Math.max(fa[1], fb[1]));
    return reduce(a.numerator * (lcm / a.denominator) + b.numerator * (lcm / b.denominator), lcm);
  }
  return reduce(a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator);
}

export function compare(a: Rational, b: Rational): -1 | 0 | 1 {
  const left = a.numerator * b.denominator;
  const right = b.numerator * a.denominator;
  return left < right ? -1 : left > right ? 1 : 0;
}

/** |a − b|. */
export function distance(a: Rational, b: Rational): Rational {
  const diff = a.numerator * b.denominator - b.numerator * a.denominator;
  return reduce(diff < 0n ? -diff : diff, a.denominator * b.denominator);
}

export function equals(a: Rational, b: Rational): boolean {
  return a.numerator === b.numerator && a.denominator === b.denominator;
}

/**
 * The fraction rounded to `digits` places (half to even), as text: `0.3333333333`.
 * For people; the exact value is the fraction.
 */
export function toFixed(r: Rational, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const scaled = r.numerator * scale;
  let q = scaled / r.denominator;
  const twice = (scaled % r.denominator) * 2n;
  if (twice > r.denominator || (twice === r.denominator && q % 2n === 1n)) q += 1n;
  const text = q.toString().padStart(digits + 1, '0');
  return digits === 0 ? text : `${text.slice(0, text.length - digits)}.${text.slice(text.length - digits)}`;
}

/** `n/d`, or `n` when d is 1. */
export function formatRational(r: Rational): string {
  return r.denominator === 1n ? r.numerator.toString() : `${r.numerator}/${r.denominator}`;
}

const DECIMAL = /^\+?([0-9]*)(?:\.([0-9]*))?(?:[eE]([+-]?[0-9]+))?$/;

/** The exact value of a decimal text such as `0.3333333333` or `1e-5`; undefined if it is not one. */
export function parseDecimal(text: string): Rational | undefined {
  const m = DECIMAL.exec(text);
  if (m === null) return undefined;
  const whole = m[1] ?? '';
  const fraction = m[2] ?? '';
  if (whole === '' && fraction === '') return undefined;
  const exponent = Number(m[3] ?? '0') - fraction.length;
  if (!Number.isSafeInteger(exponent) || Math.abs(exponent) > 10_000) return undefined;
  const digits = BigInt(`${whole}${fraction}` === '' ? '0' : `${whole}${fraction}`);
  return exponent >= 0 ? reduce(digits * 10n ** BigInt(exponent), 1n) : reduce(digits, 10n ** BigInt(-exponent));
}

/**
 * A probability built as a product of small factors (the statistic branches of a run), kept
 * in lowest terms at every step with the exponents of 2 and 5 in its numerator and
 * denominator counted: multiplying by a factor then costs one big-by-small multiplication and
 * at most a shift and a small division, never a gcd of large numbers.
 */
export interface Weight {
  readonly numerator: bigint;
  readonly denominator: bigint;
  readonly numeratorTwos: number;
  readonly numeratorFives: number;
  readonly denominatorTwos: number;
  readonly denominatorFives: number;
}

export const UNIT: Weight = { numerator: 1n, denominator: 1n, numeratorTwos: 0, numeratorFives: 0, denominatorTwos: 0, denominatorFives: 0 };

function smallValuation(x: bigint, p: bigint): number {
  let v = 0;
  for (let y = x; y % p === 0n; y /= p) v++;
  return v;
}

/** w · f, for a factor f in lowest terms whose denominator is 2^a·5^b (a decimal or a /2^31). */
export function scaleWeight(w: Weight, f: Rational): Weight {
  if (f.numerator === 0n || w.numerator === 0n) return { ...UNIT, numerator: 0n };
  let numerator = w.numerator * f.numerator;
  let denominator = w.denominator * f.denominator;
  let numeratorTwos = w.numeratorTwos + smallValuation(f.numerator, 2n);
  let numeratorFives = w.numeratorFives + smallValuation(f.numerator, 5n);
  let denominatorTwos = w.denominatorTwos + smallValuation(f.denominator, 2n);
  let denominatorFives = w.denominatorFives + smallValuation(f.denominator, 5n);
  const twos = Math.min(numeratorTwos, denominatorTwos);
  if (twos > 0) {
    numerator >>= BigInt(twos);
    denominator >>= BigInt(twos);
    numeratorTwos -= twos;
    denominatorTwos -= twos;
  }
  const common = Math.min(numeratorFives, denominatorFives);
  if (common > 0) {
    const p = 5n ** BigInt(common);
    numerator /= p;
    denominator /= p;
    numeratorFives -= common;
    denominatorFives -= common;
  }
  return { numerator, denominator, numeratorTwos, numeratorFives, denominatorTwos, denominatorFives };
}

export function weightValue(w: Weight): Rational {
  return { numerator: w.numerator, denominator: w.denominator };
}

// The tracer's exact fractions against a naive BigInt oracle written here: Euclid's gcd for
// lowest terms, cross-multiplication for sums, order and distance, round half to even by
// comparing the two candidates' errors, and a character-by-character reader of decimal text.
// The generators reach both ways reduce() works: below 2^128 (a plain gcd) and above it,
// where the tracer's denominators are 2^a·5^b times a small factor and numerators share 2s
// and 5s with them; plus large fractions with arbitrary common factors.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import {
  add,
  compare,
  distance,
  equals,
  formatRational,
  ONE,
  parseDecimal,
  reduce,
  scaleWeight,
  toFixed,
  UNIT,
  weightValue,
  ZERO,
  type Rational,
  type Weight,
} from './rational.js';

// ---- the oracle ---------------------------------------------------------------------------

function naiveGcd(a: bigint, b: bigint): bigint {
  let x = a;
  let y = b;
  while (y !== 0n) [x, y] = [y, x % y];
  return x;
}

/** n/d in lowest terms; 0 is 0/1. */
function lowest(n: bigint, d: bigint): Rational {
  if (n === 0n) return { numerator: 0n, denominator: 1n };
  const g = naiveGcd(n, d);
  return { numerator: n / g, denominator: d / g };
}

/** The exponent of the prime p in x > 0. */
function valuation(x: bigint, p: bigint): number {
  let v = 0;
  let rest = x;
  while (rest % p === 0n) {
    rest /= p;
    v += 1;
  }
  return v;
}

/** Half to even: the nearer of ⌊x·10^k⌋ and the next integer, the even one on a tie. */
function naiveToFixed(r: Rational, digits: number): string {
  const scale = 10n ** BigInt(digits);
  const target = r.numerator * scale;
  const below = target / r.denominator;
  const errBelow = target - below * r.denominator;
  const errAbove = (below + 1n) * r.denominator - target;
  const q = errBelow < errAbove ? below : errAbove < errBelow ? below + 1n : below % 2n === 0n ? below : below + 1n;
  if (digits === 0) return q.toString();
  return `${q / scale}.${(q % scale).toString().padStart(digits, '0')}`;
}

function isDigit(c: string): boolean {
  return c.length === 1 && c >= '0' && c <= '9';
}

/** [+]digits[.digits][(e|E)[+|-]digits], at least one digit before the exponent, scale within ±10000. */
function naiveParse(text: string): Rational | undefined {
  let i = 0;
  const at = (): string => text.charAt(i);
  const digits = (): string => {
    const start = i;
    while (isDigit(at())) i += 1;
    return text.slice(start, i);
  };
  if (at() === '+') i += 1;
  const whole = digits();
  let fraction = '';
  if (at() === '.') {
    i += 1;
    fraction = digits();
  }
  let exponent = 0n;
  if (at() === 'e' || at() === 'E') {
    i += 1;
    const negative = at() === '-';
    if (at() === '-' || at() === '+') i += 1;
    const e = digits();
    if (e === '') return undefined;
    exponent = negative ? -BigInt(e) : BigInt(e);
  }
  if (i !== text.length || whole.length + fraction.length === 0) return undefined;
  const scale = exponent - BigInt(fraction.length);
  if (scale > 10_000n || scale < -10_000n) return undefined;
  const mantissa = BigInt(whole + fraction);
  return scale >= 0n ? lowest(mantissa * 10n ** scale, 1n) : lowest(mantissa, 10n ** -scale);
}

// ---- generators ---------------------------------------------------------------------------

const SMALL = 1n << 128n;
const pow2 = (e: number): bigint => 1n << BigInt(e);
const pow5 = (e: number): bigint => 5n ** BigInt(e);

/** Both below 2^128, often with a common factor. */
const smallPair = fc.oneof(
  fc.tuple(fc.bigInt({ min: 0n, max: 1000n }), fc.bigInt({ min: 1n, max: 1000n })),
  fc
    .tuple(fc.bigInt({ min: 0n, max: 1n << 62n }), fc.bigInt({ min: 1n, max: 1n << 62n }), fc.bigInt({ min: 1n, max: 1n << 62n }))
    .map(([n, d, g]): [bigint, bigint] => [n * g, d * g]),
  fc.tuple(fc.bigInt({ min: 0n, max: SMALL - 1n }), fc.bigInt({ min: 1n, max: SMALL - 1n })),
);

/**
 * A denominator 2^a·5^b·k of at least 2^128 (k small, often 1, as for the tracer's own
 * fractions), and a numerator m·2^c·5^e·j sharing 2s, 5s and sometimes k's factors with it.
 */
const tracerPair = fc
  .record({
    a: fc.integer({ min: 0, max: 300 }),
    b: fc.integer({ min: 0, max: 130 }),
    k: fc.oneof(fc.constant(1n), fc.bigInt({ min: 1n, max: 60n })),
    m: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 1000n }), fc.bigInt({ min: 1n, max: 1n << 300n })),
    c: fc.integer({ min: 0, max: 300 }),
    e: fc.integer({ min: 0, max: 130 }),
    j: fc.bigInt({ min: 1n, max: 60n }),
    shareK: fc.boolean(),
  })
  .map(({ a, b, k, m, c, e, j, shareK }): [bigint, bigint] => {
    let d = pow2(a) * pow5(b) * k;
    if (d < SMALL) d <<= 128n;
    return [m * pow2(c) * pow5(e) * (shareK ? j * k : j), d];
  });

/** Large fractions with arbitrary factors, often a common one. */
const otherPair = fc
  .tuple(fc.bigInt({ min: 0n, max: 1n << 400n }), fc.bigInt({ min: SMALL, max: 1n << 400n }), fc.oneof(fc.constant(1n), fc.bigInt({ min: 2n, max: 1n << 80n })))
  .map(([n, d, g]): [bigint, bigint] => [n * g, d * g]);

const pair = fc.oneof(smallPair, tracerPair, otherPair);
const rational = pair.map(([n, d]) => lowest(n, d));

/** 2^a·5^b ≥ 2^128 as a denominator (the tracer's own fractions), or a small decimal one. */
const decimalRational = fc
  .tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 130 }), fc.bigInt({ min: 0n, max: 1n << 400n }), fc.boolean())
  .map(([a, b, m, big]) => {
    const d = pow2(a) * pow5(b);
    return lowest(m, big && d < SMALL ? d << 128n : d);
  });

const anyRational = fc.oneof(rational, decimalRational);

// ---- reduce -------------------------------------------------------------------------------

describe('INV-IPT-RATIONAL: reduce', () => {
  test.prop([pair])('INV-IPT-RATIONAL: reduce gives the fraction in lowest terms, as a gcd does', ([n, d]) => {
    expect(reduce(n, d)).toEqual(lowest(n, d));
  });

  it('reduces hand-computed examples on both sides of 2^128', () => {
    expect(reduce(6n, 4n)).toEqual({ numerator: 3n, denominator: 2n });
    expect(reduce(0n, 7n)).toEqual({ numerator: 0n, denominator: 1n });
    expect(reduce(5n, 1n)).toEqual({ numerator: 5n, denominator: 1n });
    // 3·2^130 / (5·2^131) = 3/10.
    expect(reduce(3n * (1n << 130n), 5n * (1n << 131n))).toEqual({ numerator: 3n, denominator: 10n });
    // 10^50 / 10^52 = 1/100.
    expect(reduce(10n ** 50n, 10n ** 52n)).toEqual({ numerator: 1n, denominator: 100n });
    // 7·10^40 / (21·2^140) = 2^40·5^40 / (3·2^140) = 5^40 / (3·2^100).
    expect(reduce(7n * 10n ** 40n, 21n * (1n << 140n))).toEqual({ numerator: 5n ** 40n, denominator: 3n * (1n << 100n) });
    // 0 over a large denominator is 0/1.
    expect(reduce(0n, 1n << 200n)).toEqual({ numerator: 0n, denominator: 1n });
    // 6·5^60 / (9·2^130·5^61) = 2/(3·2^130·5) = 1/(3·2^129·5).
    expect(reduce(6n * 5n ** 60n, 9n * (1n << 130n) * 5n ** 61n)).toEqual({ numerator: 1n, denominator: 15n * (1n << 129n) });
  });

  it('refuses a negative numerator and a denominator below 1', () => {
    const message = /reduce needs numerator >= 0 and denominator > 0/;
    expect(() => reduce(1n, 0n)).toThrow(RangeError);
    expect(() => reduce(1n, 0n)).toThrow(message);
    expect(() => reduce(0n, 0n)).toThrow(message);
    expect(() => reduce(1n, -3n)).toThrow(message);
    expect(() => reduce(-1n, 3n)).toThrow(message);
    expect(() => reduce(-(1n << 200n), 1n << 200n)).toThrow(message);
  });

  it('ZERO is 0/1 and ONE is 1/1', () => {
    expect(ZERO).toEqual({ numerator: 0n, denominator: 1n });
    expect(ONE).toEqual({ numerator: 1n, denominator: 1n });
  });
});

// ---- add, compare, distance, equals -------------------------------------------------------

/** Two fractions over the same 2^a·5^b denominator (numerators prime to 10 stay in lowest terms). */
const sameDenominator = fc
  .tuple(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 130 }), fc.bigInt({ min: 0n, max: 1n << 300n }), fc.bigInt({ min: 0n, max: 1n << 300n }))
  .map(([a, b, x, y]): [Rational, Rational] => {
    const d = pow2(a) * pow5(b) * (1n << 128n);
    return [lowest(10n * x + 1n, d), lowest(10n * y + 3n, d)];
  });

const twoRationals = fc.oneof(
  fc.tuple(anyRational, anyRational),
  fc.tuple(decimalRational, decimalRational),
  sameDenominator,
  anyRational.map((r): [Rational, Rational] => [r, { ...r }]),
);

describe('INV-IPT-RATIONAL: arithmetic', () => {
  test.prop([twoRationals])('INV-IPT-RATIONAL: add is the cross-multiplied sum in lowest terms', ([a, b]) => {
    const expected = lowest(a.numerator * b.denominator + b.numerator * a.denominator, a.denominator * b.denominator);
    expect(add(a, b)).toEqual(expected);
    expect(add(b, a)).toEqual(expected);
  });

  test.prop([twoRationals])('INV-IPT-RATIONAL: compare gives the sign of the cross-multiplied difference', ([a, b]) => {
    const diff = a.numerator * b.denominator - b.numerator * a.denominator;
    const sign = diff < 0n ? -1 : diff > 0n ? 1 : 0;
    expect(compare(a, b)).toBe(sign);
    expect(compare(b, a)).toBe(sign === 0 ? 0 : -sign);
    expect(compare(a, a)).toBe(0);
  });

  test.prop([twoRationals])('INV-IPT-RATIONAL: distance is |a − b| in lowest terms, zero only for equal values', ([a, b]) => {
    const diff = a.numerator * b.denominator - b.numerator * a.denominator;
    const expected = lowest(diff < 0n ? -diff : diff, a.denominator * b.denominator);
    expect(distance(a, b)).toEqual(expected);
    expect(distance(b, a)).toEqual(expected);
    expect(distance(a, a)).toEqual({ numerator: 0n, denominator: 1n });
  });

  test.prop([twoRationals])('INV-IPT-RATIONAL: equals holds exactly for equal values (fractions in lowest terms)', ([a, b]) => {
    const same = a.numerator * b.denominator === b.numerator * a.denominator;
    expect(equals(a, b)).toBe(same);
    expect(equals(a, { ...a })).toBe(true);
    // The same numerator over another denominator, and the converse, are other values.
    expect(equals(a, { numerator: a.numerator, denominator: a.denominator + 1n })).toBe(false);
    expect(equals(a, { numerator: a.numerator + 1n, denominator: a.denominator })).toBe(false);
  });

  it('hand-computed sums, orders and distances', () => {
    const third = { numerator: 1n, denominator: 3n };
    const sixth = { numerator: 1n, denominator: 6n };
    const half = { numerator: 1n, denominator: 2n };
    expect(add(third, sixth)).toEqual(half);
    expect(add(half, half)).toEqual(ONE);
    expect(add(ZERO, third)).toEqual(third);
    // 1/2^130 + 1/5^60 = (5^60 + 2^130) / (2^130·5^60): the numerator is odd and prime to 5.
    const a = { numerator: 1n, denominator: 1n << 130n };
    const b = { numerator: 1n, denominator: 5n ** 60n };
    expect(add(a, b)).toEqual({ numerator: 5n ** 60n + (1n << 130n), denominator: (1n << 130n) * 5n ** 60n });
    // 3/2^130 + 1/2^130 = 4/2^130 = 1/2^128.
    expect(add({ numerator: 3n, denominator: 1n << 130n }, a)).toEqual({ numerator: 1n, denominator: 1n << 128n });
    // 1/(2^129·5) + 1/(2^128·25) = (5 + 2)/(2^129·25) = 7/(2^129·25).
    expect(add({ numerator: 1n, denominator: 5n << 129n }, { numerator: 1n, denominator: 25n << 128n })).toEqual({ numerator: 7n, denominator: 25n << 129n });
    // Denominators with other factors: 1/(3·2^128) + 1/(7·2^128) = 10/(21·2^128) = 5/(21·2^127).
    expect(add({ numerator: 1n, denominator: 3n << 128n }, { numerator: 1n, denominator: 7n << 128n })).toEqual({ numerator: 5n, denominator: 21n << 127n });
    expect(compare(third, half)).toBe(-1);
    expect(compare(half, third)).toBe(1);
    expect(compare(half, { numerator: 1n, denominator: 2n })).toBe(0);
    expect(distance(third, half)).toEqual(sixth);
    expect(distance(half, third)).toEqual(sixth);
    expect(equals(half, { numerator: 1n, denominator: 2n })).toBe(true);
    expect(equals(half, third)).toBe(false);
    expect(equals(half, { numerator: 2n, denominator: 2n })).toBe(false);
  });
});

// ---- toFixed, formatRational --------------------------------------------------------------

/** (2q+1) / (2·10^k) lies exactly halfway between q and q+1 units of the k-th place. */
const tie = fc
  .tuple(fc.bigInt({ min: 0n, max: 10n ** 14n }), fc.integer({ min: 0, max: 12 }))
  .map(([q, k]): [Rational, number] => [lowest(2n * q + 1n, 2n * 10n ** BigInt(k)), k]);

describe('INV-IPT-RATIONAL: toFixed and formatRational', () => {
  test.prop([fc.oneof(fc.tuple(anyRational, fc.integer({ min: 0, max: 14 })), tie)])(
    'INV-IPT-RATIONAL: toFixed rounds to the nearer value at that place, ties to even',
    ([r, digits]) => {
      expect(toFixed(r, digits)).toBe(naiveToFixed(r, digits));
    },
  );

  it('hand-rounded examples', () => {
    expect(toFixed({ numerator: 1n, denominator: 3n }, 10)).toBe('0.3333333333');
    expect(toFixed({ numerator: 2n, denominator: 3n }, 10)).toBe('0.6666666667');
    // 0.125 → 0.12 and 0.375 → 0.38: ties go to the even last digit.
    expect(toFixed({ numerator: 1n, denominator: 8n }, 2)).toBe('0.12');
    expect(toFixed({ numerator: 3n, denominator: 8n }, 2)).toBe('0.38');
    expect(toFixed({ numerator: 5n, denominator: 2n }, 0)).toBe('2');
    expect(toFixed({ numerator: 7n, denominator: 2n }, 0)).toBe('4');
    expect(toFixed({ numerator: 1n, denominator: 2n }, 0)).toBe('0');
    expect(toFixed({ numerator: 123n, denominator: 10n }, 0)).toBe('12');
    expect(toFixed(ONE, 0)).toBe('1');
    expect(toFixed(ZERO, 3)).toBe('0.000');
    expect(toFixed({ numerator: 1n, denominator: 100n }, 2)).toBe('0.01');
    expect(toFixed({ numerator: 1n, denominator: 1000n }, 2)).toBe('0.00');
    expect(toFixed({ numerator: 2001n, denominator: 1000n }, 2)).toBe('2.00');
    expect(toFixed({ numerator: 29n, denominator: 3n }, 1)).toBe('9.7');
    expect(toFixed({ numerator: 1n, denominator: 1n << 200n }, 10)).toBe('0.0000000000');
  });

  it('formatRational writes n, or n/d when d is not 1', () => {
    expect(formatRational({ numerator: 3n, denominator: 1n })).toBe('3');
    expect(formatRational(ZERO)).toBe('0');
    expect(formatRational({ numerator: 3n, denominator: 2n })).toBe('3/2');
    expect(formatRational({ numerator: 1n, denominator: 10n ** 30n })).toBe(`1/1${'0'.repeat(30)}`);
  });
});

// ---- parseDecimal -------------------------------------------------------------------------

const digitString = (maxLength: number): fc.Arbitrary<string> => fc.string({ unit: fc.constantFrom(...'0123456789'), maxLength });

/** Decimal-shaped text: optional '+', whole and fraction parts (either may be empty), an exponent near or past ±10000. */
const decimalText = fc
  .record({
    plus: fc.boolean(),
    whole: digitString(25),
    dot: fc.boolean(),
    fraction: digitString(25),
    exponent: fc.option(
      fc.record({
        letter: fc.constantFrom('e', 'E'),
        sign: fc.constantFrom('', '+', '-'),
        value: fc.oneof(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 9_970, max: 10_030 }), fc.integer({ min: 0, max: 99_999 })),
        zeros: fc.constantFrom('', '0', '000'),
      }),
    ),
  })
  .map(({ plus, whole, dot, fraction, exponent }) => {
    const e = exponent === null ? '' : `${exponent.letter}${exponent.sign}${exponent.zeros}${exponent.value}`;
    return `${plus ? '+' : ''}${whole}${dot ? `.${fraction}` : ''}${e}`;
  });

/** Short strings of the characters a decimal is made of, and some it is not. */
const nearDecimalText = fc.string({ unit: fc.constantFrom(...'0159.eE+-x '), maxLength: 12 });

describe('INV-IPT-RATIONAL: parseDecimal', () => {
  test.prop([fc.oneof(decimalText, nearDecimalText, fc.string({ maxLength: 8 }))])(
    'INV-IPT-RATIONAL: parseDecimal gives the exact value of a decimal text, undefined for anything else or a scale past ±10000',
    (text) => {
      expect(parseDecimal(text)).toEqual(naiveParse(text));
    },
  );

  it('hand-computed values', () => {
    expect(parseDecimal('0.3333333333')).toEqual({ numerator: 3333333333n, denominator: 10n ** 10n });
    expect(parseDecimal('1e-5')).toEqual({ numerator: 1n, denominator: 100000n });
    expect(parseDecimal('+2.50')).toEqual({ numerator: 5n, denominator: 2n });
    expect(parseDecimal('.5')).toEqual({ numerator: 1n, denominator: 2n });
    expect(parseDecimal('5.')).toEqual({ numerator: 5n, denominator: 1n });
    expect(parseDecimal('1E3')).toEqual({ numerator: 1000n, denominator: 1n });
    expect(parseDecimal('12e+2')).toEqual({ numerator: 1200n, denominator: 1n });
    expect(parseDecimal('2.5e-1')).toEqual({ numerator: 1n, denominator: 4n });
    expect(parseDecimal('0')).toEqual({ numerator: 0n, denominator: 1n });
    expect(parseDecimal('0.0e0')).toEqual({ numerator: 0n, denominator: 1n });
    expect(parseDecimal('007')).toEqual({ numerator: 7n, denominator: 1n });
    expect(parseDecimal('2.8173e-10')).toEqual({ numerator: 28173n, denominator: 10n ** 14n });
  });

  it('the scale limit of ±10000 counts the fraction digits', () => {
    expect(parseDecimal('1e10000')).toEqual({ numerator: 10n ** 10000n, denominator: 1n });
    expect(parseDecimal('1e-10000')).toEqual({ numerator: 1n, denominator: 10n ** 10000n });
    expect(parseDecimal('1e10001')).toBeUndefined();
    expect(parseDecimal('1e-10001')).toBeUndefined();
    expect(parseDecimal('0.1e-10000')).toBeUndefined();
    // 1.5e10001 is 15·10^10000.
    expect(parseDecimal('1.5e10001')).toEqual({ numerator: 15n * 10n ** 10000n, denominator: 1n });
    expect(parseDecimal('1e20000')).toBeUndefined();
    expect(parseDecimal('1e99999999999999999999')).toBeUndefined();
    expect(parseDecimal('1e-99999999999999999999')).toBeUndefined();
    expect(parseDecimal(`1e${'9'.repeat(400)}`)).toBeUndefined();
  });

  it('refuses text that is not a decimal', () => {
    for (const text of ['', '+', '.', '+.', 'e5', '.e5', '-1', '- 1', ' 1', '1 ', '1.2.3', '1e', '1e+', '1e-', '++1', '1e5.0', 'abc', '0x10', '1,5', 'Infinity', 'NaN', '1\n', '１']) {
      expect(parseDecimal(text)).toBeUndefined();
    }
  });
});

// ---- scaleWeight, weightValue -------------------------------------------------------------

/**
 * A factor in lowest terms over 2^a·5^b: a written --probability decimal, the kernel's m/2^31,
 * zero, or one whose numerator carries 2s and 5s (above 1 at times).
 */
const factor = fc.oneof(
  { weight: 3, arbitrary: fc.tuple(fc.integer({ min: 0, max: 40 }), fc.bigInt({ min: 0n, max: 1n << 140n })).map(([k, m]) => lowest(m % (10n ** BigInt(k) + 1n), 10n ** BigInt(k))) },
  { weight: 2, arbitrary: fc.bigInt({ min: 0n, max: 1n << 31n }).map((m) => lowest(m, 1n << 31n)) },
  {
    weight: 3,
    arbitrary: fc
      .record({ a: fc.integer({ min: 0, max: 40 }), b: fc.integer({ min: 0, max: 20 }), x: fc.integer({ min: 0, max: 40 }), y: fc.integer({ min: 0, max: 20 }), t: fc.bigInt({ min: 1n, max: 1000n }) })
      .map(({ a, b, x, y, t }) => lowest(pow2(x) * pow5(y) * t, pow2(a) * pow5(b))),
  },
  { weight: 1, arbitrary: fc.constant(ZERO) },
);

function expectedWeight(factors: readonly Rational[]): Weight {
  if (factors.some((f) => f.numerator === 0n)) return { numerator: 0n, denominator: 1n, numeratorTwos: 0, numeratorFives: 0, denominatorTwos: 0, denominatorFives: 0 };
  const product = lowest(
    factors.reduce((acc, f) => acc * f.numerator, 1n),
    factors.reduce((acc, f) => acc * f.denominator, 1n),
  );
  return {
    numerator: product.numerator,
    denominator: product.denominator,
    numeratorTwos: valuation(product.numerator, 2n),
    numeratorFives: valuation(product.numerator, 5n),
    denominatorTwos: valuation(product.denominator, 2n),
    denominatorFives: valuation(product.denominator, 5n),
  };
}

describe('INV-IPT-RATIONAL: scaleWeight', () => {
  test.prop([fc.array(factor, { maxLength: 12 })])(
    'INV-IPT-RATIONAL: scaleWeight keeps the product of its factors in lowest terms, with the exponents of 2 and 5 of its numerator and denominator',
    (factors) => {
      let w = UNIT;
      for (let i = 0; i < factors.length; i++) {
        w = scaleWeight(w, factors[i] ?? ONE);
        const expected = expectedWeight(factors.slice(0, i + 1));
        expect(w).toEqual(expected);
        expect(weightValue(w)).toEqual({ numerator: expected.numerator, denominator: expected.denominator });
      }
    },
  );

  it('hand-computed products', () => {
    expect(UNIT).toEqual({ numerator: 1n, denominator: 1n, numeratorTwos: 0, numeratorFives: 0, denominatorTwos: 0, denominatorFives: 0 });
    const half = scaleWeight(UNIT, { numerator: 1n, denominator: 2n });
    expect(half).toEqual({ numerator: 1n, denominator: 2n, numeratorTwos: 0, numeratorFives: 0, denominatorTwos: 1, denominatorFives: 0 });
    // 1/2 · 2/5 = 1/5.
    const fifth = scaleWeight(half, { numerator: 2n, denominator: 5n });
    expect(fifth).toEqual({ numerator: 1n, denominator: 5n, numeratorTwos: 0, numeratorFives: 0, denominatorTwos: 0, denominatorFives: 1 });
    // 1/5 · 5/8 = 1/8.
    expect(scaleWeight(fifth, { numerator: 5n, denominator: 8n })).toEqual({ numerator: 1n, denominator: 8n, numeratorTwos: 0, numeratorFives: 0, denominatorTwos: 3, denominatorFives: 0 });
    // 1/5 · 50/1 = 10.
    expect(scaleWeight(fifth, { numerator: 50n, denominator: 1n })).toEqual({ numerator: 10n, denominator: 1n, numeratorTwos: 1, numeratorFives: 1, denominatorTwos: 0, denominatorFives: 0 });
    // 3/10 · 7/20 = 21/200.
    const w = scaleWeight(scaleWeight(UNIT, { numerator: 3n, denominator: 10n }), { numerator: 7n, denominator: 20n });
    expect(w).toEqual({ numerator: 21n, denominator: 200n, numeratorTwos: 0, numeratorFives: 0, denominatorTwos: 3, denominatorFives: 2 });
    expect(weightValue(w)).toEqual({ numerator: 21n, denominator: 200n });
    // A zero factor, then any factor: exactly zero with no 2s or 5s counted.
    const zero = { numerator: 0n, denominator: 1n, numeratorTwos: 0, numeratorFives: 0, denominatorTwos: 0, denominatorFives: 0 };
    expect(scaleWeight(w, ZERO)).toEqual(zero);
    expect(scaleWeight(scaleWeight(w, ZERO), { numerator: 3n, denominator: 40n })).toEqual(zero);
    expect(scaleWeight(zero, { numerator: 2n, denominator: 5n })).toEqual(zero);
  });
});

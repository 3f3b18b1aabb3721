// Edges of the probability formatting that the mutation run found untested: numbers of 2^52
// and above (where the float is a whole number times a power of two, not a fraction), the
// refusal of what Go's %f is never asked to print here, and savedProbability on text that
// libxt_statistic refuses.
// upstream: Go strconv/ftoa.go (FormatFloat 'f'); iptables extensions/libxt_statistic.c
// (statistic_parse: "--probability must be between 0 and 1").
import { describe, expect, test } from 'vitest';
import { goFormatFixed } from './probability.js';
import { STATISTIC_SCALE, formatSavedProbability, savedProbability } from './save/probability.js';

describe('goFormatFixed above 2^52', () => {
  test('whole numbers print exactly, as strconv.FormatFloat(x, \'f\', p, 64) does', () => {
    expect(goFormatFixed(2 ** 52, 0)).toBe('4503599627370496');
    expect(goFormatFixed(2 ** 53, 2)).toBe('9007199254740992.00');
    expect(goFormatFixed(2 ** 60, 1)).toBe('1152921504606846976.0');
    // 1e20 is a double exactly (2^20 * 5^20); %f prints every digit.
    expect(goFormatFixed(1e20, 3)).toBe('100000000000000000000.000');
  });

  test('a negative, infinite or NaN x is refused, naming the value', () => {
    expect(() => goFormatFixed(-0.5, 10)).toThrow(new RangeError('goFormatFixed needs a finite x >= 0, got -0.5'));
    expect(() => goFormatFixed(Number.POSITIVE_INFINITY, 10)).toThrow(new RangeError('goFormatFixed needs a finite x >= 0, got Infinity'));
    expect(() => goFormatFixed(Number.NaN, 10)).toThrow(new RangeError('goFormatFixed needs a finite x >= 0, got NaN'));
  });
});

describe('savedProbability of refused text', () => {
  test('is undefined, not an exception: iptables-restore refuses the rule', () => {
    for (const bad of ['1.5', '-0.1', 'abc', '', 'nan']) expect(savedProbability(bad)).toBeUndefined();
    expect(savedProbability('1')).toBe('1.00000000000');
    expect(savedProbability('0')).toBe('0.00000000000');
  });

  test('formatSavedProbability names the value it refuses', () => {
    expect(() => formatSavedProbability(STATISTIC_SCALE + 1)).toThrow(new RangeError(`statistic probability out of range: ${STATISTIC_SCALE + 1}`));
    expect(() => formatSavedProbability(-1)).toThrow(new RangeError('statistic probability out of range: -1'));
  });
});

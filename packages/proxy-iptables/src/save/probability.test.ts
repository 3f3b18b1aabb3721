import { describe, expect, test } from 'vitest';
import { STATISTIC_SCALE, formatSavedProbability, kernelProbability, savedProbability } from './probability.js';

describe('the statistic probability as iptables-save prints it', () => {
  // The two numbers, and the reference's table (§8.3); every value was also read
  // back from iptables-nft-save and iptables-legacy-save (fixtures/probabilities.v4.*).
  test.each([
    ['0.33333', '0.33332999982'],
    ['0.3333333333', '0.33333333349'],
    ['0.5000000000', '0.50000000000'],
    ['0.2500000000', '0.25000000000'],
    ['0.2000000000', '0.20000000019'],
    ['0.1666666667', '0.16666666651'],
    ['0.1428571429', '0.14285714272'],
    ['0.1000000000', '0.10000000009'],
    ['0.0100000000', '0.00999999978'],
    ['0.50000', '0.50000000000'],
    ['0.20000', '0.20000000019'],
    ['0.16667', '0.16667000018'],
    ['0.14286', '0.14286000002'],
    ['0.10000', '0.10000000009'],
    ['0.01000', '0.00999999978'],
    ['0.0000100000', '0.00001000008'],
    ['0.0000099999', '0.00001000008'],
    ['1', '1.00000000000'],
    ['0', '0.00000000000'],
    ['0.9999999999', '1.00000000000'],
    ['1e-3', '0.00100000016'],
  ])('%s is printed %s', (written, printed) => {
    expect(savedProbability(written)).toBe(printed);
  });

  test('the kernel holds lround(p * 2^31): halves round away from zero', () => {
    expect(kernelProbability('0.5')).toBe(0x4000_0000);
    expect(kernelProbability('0.3333333333')).toBe(715_827_883);
    expect(kernelProbability('0.33333')).toBe(715_820_724);
    // 2^-32 is exactly half a step: lround gives 1.
    expect(kernelProbability('0.00000000023283064365386962890625')).toBe(1);
    expect(kernelProbability('0.0000000002328306')).toBe(0);
    expect(kernelProbability('1')).toBe(STATISTIC_SCALE);
  });

  test('%.11f rounds exact decimal ties to even, as glibc does (toFixed would not)', () => {
    expect(formatSavedProbability(1 << 19)).toBe('0.00024414062');
    expect((2 ** 19 / 2 ** 31).toFixed(11)).toBe('0.00024414063');
    expect(formatSavedProbability(3 << 19)).toBe('0.00073242188');
    expect(formatSavedProbability(1)).toBe('0.00000000047');
  });

  test('text libxt_statistic refuses has no kernel value', () => {
    for (const bad of ['1.5', '-0.1', 'abc', '', '0x1p-1', 'nan', 'inf', '1/3']) {
      expect(kernelProbability(bad)).toBeUndefined();
    }
  });

  test('the printed value reads back to the same kernel value', () => {
    for (let fixed = 0; fixed <= STATISTIC_SCALE; fixed += 104_729) {
      expect(kernelProbability(formatSavedProbability(fixed))).toBe(fixed);
    }
  });

  test('a value outside the u32 range is a programmer error', () => {
    expect(() => formatSavedProbability(STATISTIC_SCALE + 1)).toThrow(RangeError);
    expect(() => formatSavedProbability(0.5)).toThrow(RangeError);
  });
});

// --probability text. upstream: pkg/proxy/iptables/proxier_test.go TestComputeProbability.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { goFormatFixed, probabilityText } from './probability.js';

describe('probabilityText', () => {
  it('reproduces upstream TestComputeProbability', () => {
    const expected: [number, string][] = [
      [1, '1.0000000000'],
      [2, '0.5000000000'],
      [10, '0.1000000000'],
      [100, '0.0100000000'],
      [1000, '0.0010000000'],
      [10000, '0.0001000000'],
      [100000, '0.0000100000'],
      [100001, '0.0000099999'],
    ];
    for (const [n, text] of expected) expect(probabilityText(n, 'modern')).toBe(text);
  });

  it('gives the reference §8.3 table, modern and old', () => {
    const table: [number, string, string][] = [
      [2, '0.5000000000', '0.50000'],
      [3, '0.3333333333', '0.33333'],
      [4, '0.2500000000', '0.25000'],
      [5, '0.2000000000', '0.20000'],
      [6, '0.1666666667', '0.16667'],
      [7, '0.1428571429', '0.14286'],
      [10, '0.1000000000', '0.10000'],
      [100, '0.0100000000', '0.01000'],
    ];
    for (const [n, modern, old] of table) {
      expect(probabilityText(n, 'modern')).toBe(modern);
      expect(probabilityText(n, 'old')).toBe(old);
    }
  });

  it("rounds exact ties half to even, as Go's %f does (toFixed would round up)", () => {
    // 1/2048 = 0.00048828125 exactly; 1/64 = 0.015625 exactly.
    expect(probabilityText(2048, 'modern')).toBe('0.0004882812');
    expect(probabilityText(64, 'old')).toBe('0.01562');
    expect(probabilityText(32, 'old')).toBe('0.03125');
    expect(goFormatFixed(2.5, 0)).toBe('2');
    expect(goFormatFixed(3.5, 0)).toBe('4');
    expect(goFormatFixed(0.125, 2)).toBe('0.12');
  });

  it('strictly increases as n falls from 100000 to 2, as upstream checks', () => {
    let previous = 0;
    for (let n = 100000; n > 1; n--) {
      const value = Number(probabilityText(n, 'modern'));
      expect(value > previous).toBe(true);
      previous = value;
    }
  });

  test.prop([fc.double({ min: 0, max: 1e6, noNaN: true }), fc.integer({ min: 0, max: 12 })])(
    'agrees with toFixed except on exact binary ties',
    (x, digits) => {
      const ours = goFormatFixed(x, digits);
      const theirs = x.toFixed(digits);
      if (ours !== theirs) {
        // Only a tie can differ: then the exact value sits half-way, and we rounded to even.
        const scaled = x * 10 ** digits;
        expect(Math.abs(scaled - Math.trunc(scaled) - 0.5)).toBeLessThan(1e-6);
      }
    },
  );
});

import { describe, expect, it } from 'vitest';
import { NUM_REPAIRS_BEFORE_LEAK_CLEANUP, leakCountersFromMap, leakCountersToMap, leakHoldoff } from './leaks.js';

describe('leakHoldoff', () => {
  it('keeps a new leak for two runs and frees it on the third', () => {
    expect(NUM_REPAIRS_BEFORE_LEAK_CLEANUP).toBe(3);
    const counters = new Map<string, number>();
    expect(leakHoldoff(counters, '10.0.0.5')).toBe(true);
    expect(counters.get('10.0.0.5')).toBe(1);
    expect(leakHoldoff(counters, '10.0.0.5')).toBe(true);
    expect(counters.get('10.0.0.5')).toBe(0);
    expect(leakHoldoff(counters, '10.0.0.5')).toBe(false);
    expect(counters.get('10.0.0.5')).toBe(0);
  });
  it('round-trips counters through plain objects', () => {
    const map = leakCountersToMap({ a: 1, b: 0 });
    expect(leakCountersFromMap(map)).toEqual({ a: 1, b: 0 });
    expect(leakCountersToMap(undefined).size).toBe(0);
  });
});

describe('leakCountersToMap', () => {
  it('drops counters that are not integers (stored data read back)', () => {
    expect([...leakCountersToMap({ a: 2, b: 1.5, c: Number.NaN, d: '1' as unknown as number })]).toEqual([['a', 2]]);
  });
});

// Durations as Go's time.ParseDuration reads them (the examples of its documentation).
import { describe, expect, it } from 'vitest';
import { parseGoDuration } from './duration.js';

describe('parseGoDuration', () => {
  it('reads the units and compound forms Go accepts', () => {
    expect(parseGoDuration('300ms')).toBe(300);
    expect(parseGoDuration('1.5h')).toBe(5_400_000);
    expect(parseGoDuration('2h45m')).toBe(9_900_000);
    expect(parseGoDuration('1m30s')).toBe(90_000);
    expect(parseGoDuration('3s')).toBe(3000);
    expect(parseGoDuration('.5s')).toBe(500);
    expect(parseGoDuration('1500us')).toBe(1.5);
    expect(parseGoDuration('0')).toBe(0);
  });

  it('refuses what Go refuses: no unit, an unknown unit, empty, spaces, a bare number other than 0', () => {
    for (const bad of ['', '3', '3 s', '3sec', 's', '1d', '-', '1m 30s']) expect(parseGoDuration(bad), bad).toBeUndefined();
  });
});

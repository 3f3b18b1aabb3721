// The expected strings are upstream's HumanDuration boundary facts
// (staging/src/k8s.io/apimachinery/pkg/util/duration/duration_test.go), in milliseconds.
import { describe, expect, it } from 'vitest';
import { humanDuration, translateTimestampSince } from './human-duration.js';

const S = 1000;
const M = 60 * S;
const H = 60 * M;
const D = 24 * H;
const Y = 365 * D;

describe('humanDuration', () => {
  it.each([
    [-2 * S, '<invalid>'],
    [-2 * S + 1, '0s'],
    [0, '0s'],
    [S - 1, '0s'],
    [S, '1s'],
    [70 * S, '70s'],
    [2 * M - 1, '119s'],
    [2 * M, '2m'],
    [2 * M + S, '2m1s'],
    [190 * S, '3m10s'],
    [10 * M - 1, '9m59s'],
    [10 * M, '10m'],
    [10 * M + S, '10m'],
    [70 * M, '70m'],
    [3 * H - 1, '179m'],
    [3 * H, '3h'],
    [3 * H + M, '3h1m'],
    [8 * H - 1, '7h59m'],
    [8 * H, '8h'],
    [8 * H + 59 * M, '8h'],
    [47 * H, '47h'],
    [2 * D - 1, '47h'],
    [2 * D, '2d'],
    [49 * H, '2d1h'],
    [8 * D - 1, '7d23h'],
    [8 * D, '8d'],
    [8 * D + 23 * H, '8d'],
    [367 * D, '367d'],
    [2 * Y - 1, '729d'],
    [2 * Y, '2y'],
    [2 * Y + 24 * H - 1, '2y'],
    [2 * Y + 24 * H, '2y1d'],
    [2 * Y + 25 * H, '2y1d'],
    [7 * Y, '7y'],
    [8 * Y - 1, '7y364d'],
    [8 * Y, '8y'],
    [8 * Y + 364 * D, '8y'],
    [9 * Y, '9y'],
  ])('%i ms is %s', (ms, want) => {
    expect(humanDuration(ms)).toBe(want);
  });
});

describe('translateTimestampSince', () => {
  const now = Date.parse('2025-01-01T00:05:00Z');

  it('measures from the timestamp to now', () => {
    expect(translateTimestampSince('2025-01-01T00:00:00Z', now)).toBe('5m');
    expect(translateTimestampSince('2024-12-31T23:59:15Z', now)).toBe('5m45s');
  });

  it('prints <unknown> for a missing, null or zero timestamp, as metav1.Time.IsZero', () => {
    expect(translateTimestampSince(undefined, now)).toBe('<unknown>');
    expect(translateTimestampSince(null, now)).toBe('<unknown>');
    expect(translateTimestampSince('', now)).toBe('<unknown>');
    expect(translateTimestampSince('0001-01-01T00:00:00Z', now)).toBe('<unknown>');
  });

  it('treats a timestamp up to two seconds ahead as now, and one further ahead as invalid', () => {
    expect(translateTimestampSince('2025-01-01T00:05:01Z', now)).toBe('0s');
    expect(translateTimestampSince('2025-01-01T00:05:02Z', now)).toBe('<invalid>');
  });
});

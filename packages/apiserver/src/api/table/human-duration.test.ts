// translateTimestampSince, upstream's pkg/printers/internalversion/printers.go; humanDuration's
// boundary cases are api-types' (src/human-duration.test.ts), where the one copy lives.
import { describe, expect, it } from 'vitest';
import { translateTimestampSince } from './human-duration.js';

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

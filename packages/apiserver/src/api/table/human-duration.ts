// The AGE-style durations of every printer: api-types' humanDuration (duration.HumanDuration, about
// 2-3 significant figures: "45s", "5m3s", "3h12m", "6d2h", "2y40d"), and translateTimestampSince,
// which turns a metav1.Time into one, or "<unknown>" for the zero time.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go (HumanDuration),
//           pkg/printers/internalversion/printers.go (translateTimestampSince)

import { humanDuration } from '@kubesvc/api-types';

export { humanDuration };

/** Go's zero time.Time as metav1.Time marshals it, which IsZero also reports as zero. */
const GO_ZERO_TIME = Date.parse('0001-01-01T00:00:00Z');

/** Milliseconds since the epoch of a metav1.Time, or undefined for a zero or unreadable one. */
export function parseTimestamp(timestamp: string | null | undefined): number | undefined {
  if (timestamp === undefined || timestamp === null || timestamp === '') return undefined;
  const t = Date.parse(timestamp);
  if (Number.isNaN(t) || t === GO_ZERO_TIME) return undefined;
  return t;
}

/** translateTimestampSince: the age of `timestamp` at `now`, or "<unknown>" for the zero time. */
export function translateTimestampSince(timestamp: string | null | undefined, now: number): string {
  const t = parseTimestamp(timestamp);
  return t === undefined ? '<unknown>' : humanDuration(now - t);
}

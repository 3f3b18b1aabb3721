// The AGE-style durations of every printer: duration.HumanDuration, about 2-3 significant
// figures ("45s", "5m3s", "3h12m", "6d2h", "2y40d"), and translateTimestampSince, which turns a
// metav1.Time into one, or "<unknown>" for the zero time.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go (HumanDuration),
//           pkg/printers/internalversion/printers.go (translateTimestampSince)

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/**
 * HumanDuration of `ms` milliseconds. Go truncates every division toward zero (its float to
 * int conversion and its integer division), so this does too: 119.9s is still "119s".
 */
export function humanDuration(ms: number): string {
  // Up to two seconds in the future counts as now, to tolerate clock skew between machines.
  const seconds = Math.trunc(ms / SECOND);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 60 * 2) return `${seconds}s`;
  const minutes = Math.trunc(ms / MINUTE);
  if (minutes < 10) {
    const s = seconds % 60;
    return s === 0 ? `${minutes}m` : `${minutes}m${s}s`;
  }
  if (minutes < 60 * 3) return `${minutes}m`;
  const hours = Math.trunc(ms / HOUR);
  if (hours < 8) {
    const m = minutes % 60;
    return m === 0 ? `${hours}h` : `${hours}h${m}m`;
  }
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8) {
    const h = hours % 24;
    const days = Math.trunc(hours / 24);
    return h === 0 ? `${days}d` : `${days}d${h}h`;
  }
  if (hours < 24 * 365 * 2) return `${Math.trunc(hours / 24)}d`;
  const years = Math.trunc(hours / 24 / 365);
  if (hours < 24 * 365 * 8) {
    const dy = Math.trunc(hours / 24) % 365;
    return dy === 0 ? `${years}y` : `${years}y${dy}d`;
  }
  return `${years}y`;
}

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

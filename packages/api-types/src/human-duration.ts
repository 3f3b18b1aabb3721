// The AGE-style duration of every printer and of the explorer page: about 2-3 significant
// figures ("45s", "5m3s", "3h12m", "6d2h", "2y40d"). Pure: the caller passes the elapsed time.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/duration/duration.go (HumanDuration)

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

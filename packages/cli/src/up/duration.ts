// Go's time.ParseDuration for the flags that take a duration (`500ms`, `3s`, `1m30s`), as
// kube-apiserver's duration flags are written. Units ns, us (µs), ms, s, m, h; a decimal
// fraction is allowed per segment. No sign: every duration flag here is positive.
// upstream: Go src/time/format.go (ParseDuration)

const UNIT_MS: Readonly<Record<string, number>> = { ns: 1e-6, us: 1e-3, 'µs': 1e-3, 'μs': 1e-3, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** Milliseconds, or undefined when `text` is not a Go duration. `0` alone is allowed, as in Go. */
export function parseGoDuration(text: string): number | undefined {
  if (text === '0') return 0;
  const segment = /(\d+(?:\.\d*)?|\.\d+)(ns|us|µs|μs|ms|s|m|h)/y;
  let at = 0;
  let total = 0;
  while (at < text.length) {
    segment.lastIndex = at;
    const m = segment.exec(text);
    if (m === null) return undefined;
    total += Number(m[1]) * (UNIT_MS[m[2] ?? ''] ?? Number.NaN);
    at = segment.lastIndex;
  }
  return at === 0 || !Number.isFinite(total) ? undefined : total;
}

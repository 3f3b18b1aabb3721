// The arithmetic and drawing behind the "scale" suite, apart from the run: reading a histogram out
// of the Prometheus text format that /metrics serves, the quantile of a histogram's buckets as
// Prometheus' histogram_quantile computes it, the difference of two cumulative readings (one
// phase's or one interval's observations), and a hand-written SVG line chart.

/** One cumulative bucket: observations at or below `le` (Infinity for the +Inf bucket). */
export interface Bucket {
  readonly le: number;
  readonly count: number;
}

/** A histogram summed over every label set that matched: buckets by `le`, ascending, with its sum. */
export interface HistogramReading {
  readonly buckets: readonly Bucket[];
  readonly sum: number;
  readonly count: number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

function parseValue(text: string): number {
  if (text === '+Inf') return Infinity;
  if (text === '-Inf') return -Infinity;
  return Number(text);
}

/**
 * Reads histogram `name` from the text exposition format, adding up the series whose labels
 * `keep` accepts (default: all of them), bucket by bucket, as `sum by (le)` would.
 */
export function readHistogram(text: string, name: string, keep: (labels: Readonly<Record<string, string>>) => boolean = () => true): HistogramReading {
  const byLe = new Map<number, number>();
  let sum = 0;
  let count = 0;
  for (const line of text.split('\n')) {
    if (line.startsWith('#') || !line.startsWith(name)) continue;
    const m = SAMPLE.exec(line);
    if (m === null) continue;
    const [, metric, labelText = '', valueText = ''] = m;
    const labels: Record<string, string> = {};
    for (const l of labelText.matchAll(LABEL)) labels[l[1] ?? ''] = l[2] ?? '';
    const value = parseValue(valueText);
    if (metric === `${name}_bucket`) {
      const { le, ...rest } = labels;
      if (le === undefined || !keep(rest)) continue;
      const bound = parseValue(le);
      byLe.set(bound, (byLe.get(bound) ?? 0) + value);
    } else if (metric === `${name}_sum` && keep(labels)) {
      sum += value;
    } else if (metric === `${name}_count` && keep(labels)) {
      count += value;
    }
  }
  const buckets = [...byLe].map(([le, c]) => ({ le, count: c })).sort((a, b) => a.le - b.le);
  return { buckets, sum, count };
}

/** The observations between two readings of one histogram (`later` minus `earlier`, bucket by bucket). */
export function histogramDelta(later: HistogramReading, earlier: HistogramReading): HistogramReading {
  const before = new Map(earlier.buckets.map((b) => [b.le, b.count]));
  return {
    buckets: later.buckets.map((b) => ({ le: b.le, count: b.count - (before.get(b.le) ?? 0) })),
    sum: later.sum - earlier.sum,
    count: later.count - earlier.count,
  };
}

/**
 * The q-quantile of cumulative buckets, interpolated linearly inside the bucket the rank falls
 * in, as Prometheus' histogram_quantile does: NaN without observations or without a +Inf bucket
 * last; the largest finite bound when the rank falls in the +Inf bucket; the first bound when it
 * falls in a first bucket whose bound is 0 or less; a first bucket's lower edge is 0.
 * upstream: prometheus/promql/quantile.go (bucketQuantile)
 */
export function histogramQuantile(q: number, buckets: readonly Bucket[]): number {
  if (Number.isNaN(q)) return NaN;
  if (q < 0) return -Infinity;
  if (q > 1) return Infinity;
  const sorted = [...buckets].sort((a, b) => a.le - b.le);
  const last = sorted[sorted.length - 1];
  if (sorted.length < 2 || last === undefined || last.le !== Infinity) return NaN;
  // Counts that went down (a scrape between updates of two series) are taken as flat, as Prometheus does.
  let high = 0;
  const counts = sorted.map((b) => (high = Math.max(high, b.count)));
  const observations = counts[counts.length - 1] ?? 0;
  if (observations === 0) return NaN;
  let rank = q * observations;
  let b = counts.findIndex((c, i) => i < counts.length - 1 && c >= rank);
  if (b < 0) b = counts.length - 1;
  if (b === counts.length - 1) return sorted[sorted.length - 2]?.le ?? NaN;
  const end = sorted[b]?.le ?? NaN;
  if (b === 0 && end <= 0) return end;
  let start = 0;
  let count = counts[b] ?? 0;
  if (b > 0) {
    start = sorted[b - 1]?.le ?? 0;
    count -= counts[b - 1] ?? 0;
    rank -= counts[b - 1] ?? 0;
  }
  return start + (end - start) * (rank / count);
}

/** One line of a chart: its name, colour and points (x, y); a NaN y leaves a gap. */
export interface ChartSeries {
  readonly name: string;
  readonly color: string;
  readonly points: readonly (readonly [number, number])[];
}

export interface ChartOptions {
  readonly title: string;
  readonly xLabel: string;
  readonly yLabel: string;
  /** Vertical markers, e.g. where a phase begins. */
  readonly markers?: readonly { readonly x: number; readonly label: string }[];
  readonly width?: number;
  readonly height?: number;
}

const escapeXml = (text: string): string => text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const fmt = (n: number): string => (Math.round(n * 10) / 10).toString();

/** A tick step of 1, 2 or 5 times a power of ten giving about `target` ticks over `span`. */
function tickStep(span: number, target: number): number {
  if (!(span > 0)) return 1;
  const raw = span / target;
  const power = 10 ** Math.floor(Math.log10(raw));
  const m = raw / power;
  return (m <= 1 ? 1 : m <= 2 ? 2 : m <= 5 ? 5 : 10) * power;
}

/** A line chart as a standalone SVG document: axes with ticks, one polyline per run of finite points, a legend. */
export function lineChartSvg(series: readonly ChartSeries[], options: ChartOptions): string {
  const width = options.width ?? 800;
  const height = options.height ?? 400;
  const left = 60;
  const right = 140;
  const top = 30;
  const bottom = 45;
  const finite = series.flatMap((s) => s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)));
  const xs = [...finite.map(([x]) => x), ...(options.markers ?? []).map((m) => m.x)];
  const xMin = xs.length === 0 ? 0 : Math.min(...xs);
  const xMax = xs.length === 0 ? 1 : Math.max(...xs, xMin + 1);
  const yMax = Math.max(...finite.map(([, y]) => y), 0) || 1;
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const sx = (x: number) => left + ((x - xMin) / (xMax - xMin)) * plotW;
  const sy = (y: number) => top + plotH - (y / yMax) * plotH;
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect x="0" y="0" width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="18" text-anchor="middle" font-size="14">${escapeXml(options.title)}</text>`,
    `<line x1="${left}" y1="${top + plotH}" x2="${left + plotW}" y2="${top + plotH}" stroke="black"/>`,
    `<line x1="${left}" y1="${top}" x2="${left}" y2="${top + plotH}" stroke="black"/>`,
  ];
  const yStep = tickStep(yMax, 5);
  for (let y = 0; y <= yMax + 1e-9; y += yStep) {
    out.push(`<line x1="${left - 4}" y1="${fmt(sy(y))}" x2="${left + plotW}" y2="${fmt(sy(y))}" stroke="#ddd"/>`);
    out.push(`<text x="${left - 6}" y="${fmt(sy(y) + 4)}" text-anchor="end">${fmt(y)}</text>`);
  }
  const xStep = tickStep(xMax - xMin, 8);
  for (let x = Math.ceil(xMin / xStep) * xStep; x <= xMax + 1e-9; x += xStep) {
    out.push(`<text x="${fmt(sx(x))}" y="${top + plotH + 16}" text-anchor="middle">${fmt(x)}</text>`);
  }
  out.push(`<text x="${left + plotW / 2}" y="${height - 8}" text-anchor="middle">${escapeXml(options.xLabel)}</text>`);
  out.push(`<text x="14" y="${top + plotH / 2}" text-anchor="middle" transform="rotate(-90 14 ${top + plotH / 2})">${escapeXml(options.yLabel)}</text>`);
  for (const m of options.markers ?? []) {
    out.push(`<line x1="${fmt(sx(m.x))}" y1="${top}" x2="${fmt(sx(m.x))}" y2="${top + plotH}" stroke="#888" stroke-dasharray="4 3"/>`);
    out.push(`<text x="${fmt(sx(m.x) + 3)}" y="${top + 12}" fill="#555">${escapeXml(m.label)}</text>`);
  }
  for (const [i, s] of series.entries()) {
    // A gap (no observations in an interval) ends one polyline and starts the next.
    const runs: (readonly [number, number])[][] = [[]];
    for (const p of s.points) {
      if (Number.isFinite(p[0]) && Number.isFinite(p[1])) runs[runs.length - 1]?.push(p);
      else if ((runs[runs.length - 1]?.length ?? 0) > 0) runs.push([]);
    }
    for (const run of runs.filter((r) => r.length > 0)) {
      out.push(`<polyline fill="none" stroke="${escapeXml(s.color)}" stroke-width="1.5" points="${run.map(([x, y]) => `${fmt(sx(x))},${fmt(sy(y))}`).join(' ')}"/>`);
    }
    const ly = top + 10 + i * 18;
    out.push(`<line x1="${left + plotW + 12}" y1="${ly}" x2="${left + plotW + 32}" y2="${ly}" stroke="${escapeXml(s.color)}" stroke-width="2"/>`);
    out.push(`<text x="${left + plotW + 36}" y="${ly + 4}">${escapeXml(s.name)}</text>`);
  }
  out.push('</svg>');
  return `${out.join('\n')}\n`;
}

/** The values of gauge `name` by the value of its label `by` (series without it are skipped). */
export function readGauge(text: string, name: string, by: string): Map<string, number> {
  const out = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = SAMPLE.exec(line);
    if (m === null) continue;
    for (const l of (m[2] ?? '').matchAll(LABEL)) if (l[1] === by) out.set(l[2] ?? '', parseValue(m[3] ?? ''));
  }
  return out;
}

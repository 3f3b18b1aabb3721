import { describe, expect, it } from 'vitest';
import { histogramDelta, histogramQuantile, lineChartSvg, readGauge, readHistogram, type Bucket } from './scale-report.js';
import { scaleSizeFromEnv, SCALE_DEFAULTS } from './scale.js';

const b = (pairs: readonly (readonly [number, number])[]): Bucket[] => pairs.map(([le, count]) => ({ le, count }));

describe('histogramQuantile (as Prometheus histogram_quantile)', () => {
  // Each expected value worked by hand from the buckets: rank = q × total; the bucket the rank
  // falls in; its lower bound + width × (rank − count below) / (count inside).
  const cases: readonly { name: string; q: number; buckets: Bucket[]; want: number }[] = [
    // rank 10 falls in (0.5, 1] with 10 below it... none below: 0.5 + 0.5 × 10/10
    { name: 'p50 at the top of a bucket', q: 0.5, buckets: b([[0.25, 0], [0.5, 0], [1, 10], [2, 20], [Infinity, 20]]), want: 1 },
    // rank 18 falls in (1, 2]: 1 + 1 × (18 − 10)/10
    { name: 'p90 inside a bucket', q: 0.9, buckets: b([[0.25, 0], [0.5, 0], [1, 10], [2, 20], [Infinity, 20]]), want: 1.8 },
    // rank 2 of 8 falls in the first bucket (0, 1]: its lower edge is 0: 0 + 1 × 2/4
    { name: 'first bucket interpolates from 0', q: 0.25, buckets: b([[1, 4], [2, 8], [Infinity, 8]]), want: 0.5 },
    // rank 9 of 10 lies past the last finite bound: that bound
    { name: 'rank in the +Inf bucket gives the largest finite bound', q: 0.9, buckets: b([[1, 5], [Infinity, 10]]), want: 1 },
    // a first bucket at le=0 holding the rank: its bound, 0
    { name: 'first bucket with bound 0', q: 0.25, buckets: b([[0, 4], [1, 8], [Infinity, 8]]), want: 0 },
    // rank 99 of 100 in (5, 6]: 5 + 1 × (99 − 90)/10
    { name: 'p99 in kube-proxy buckets', q: 0.99, buckets: b([[0, 0], [0.25, 10], [0.5, 30], [1, 60], [5, 90], [6, 100], [Infinity, 100]]), want: 5.9 },
    // buckets given out of order are sorted by bound first: same as the p90 case
    { name: 'unsorted buckets', q: 0.9, buckets: b([[Infinity, 20], [2, 20], [1, 10], [0.5, 0]]), want: 1.8 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(histogramQuantile(c.q, c.buckets)).toBeCloseTo(c.want, 10);
    });
  }

  it('is NaN without observations or without a +Inf bucket, and ±Inf outside [0, 1]', () => {
    expect(histogramQuantile(0.5, b([[1, 0], [Infinity, 0]]))).toBeNaN();
    expect(histogramQuantile(0.5, b([[1, 3], [2, 4]]))).toBeNaN();
    expect(histogramQuantile(-0.1, b([[1, 3], [Infinity, 4]]))).toBe(-Infinity);
    expect(histogramQuantile(1.1, b([[1, 3], [Infinity, 4]]))).toBe(Infinity);
  });
});

const TEXT = `# HELP kubeproxy_network_programming_duration_seconds In Cluster Network Programming Latency in seconds
# TYPE kubeproxy_network_programming_duration_seconds histogram
kubeproxy_network_programming_duration_seconds_bucket{le="0",node="node-1"} 0
kubeproxy_network_programming_duration_seconds_bucket{le="1",node="node-1"} 3
kubeproxy_network_programming_duration_seconds_bucket{le="+Inf",node="node-1"} 4
kubeproxy_network_programming_duration_seconds_sum{node="node-1"} 3.5
kubeproxy_network_programming_duration_seconds_count{node="node-1"} 4
kubeproxy_network_programming_duration_seconds_bucket{le="0",node="node-2"} 1
kubeproxy_network_programming_duration_seconds_bucket{le="1",node="node-2"} 2
kubeproxy_network_programming_duration_seconds_bucket{le="+Inf",node="node-2"} 6
kubeproxy_network_programming_duration_seconds_sum{node="node-2"} 10
kubeproxy_network_programming_duration_seconds_count{node="node-2"} 6
# TYPE kubeproxy_sync_proxy_rules_last_timestamp_seconds gauge
kubeproxy_sync_proxy_rules_last_timestamp_seconds{node="node-1"} 1700000000.5
kubeproxy_sync_proxy_rules_last_timestamp_seconds{node="node-2"} 1700000001
`;

describe('readHistogram and histogramDelta', () => {
  it('adds the series up bucket by bucket, as sum by (le)', () => {
    expect(readHistogram(TEXT, 'kubeproxy_network_programming_duration_seconds')).toEqual({
      buckets: b([[0, 1], [1, 5], [Infinity, 10]]),
      sum: 13.5,
      count: 10,
    });
  });

  it('keeps only the series the filter accepts', () => {
    const one = readHistogram(TEXT, 'kubeproxy_network_programming_duration_seconds', (l) => l.node === 'node-2');
    expect(one).toEqual({ buckets: b([[0, 1], [1, 2], [Infinity, 6]]), sum: 10, count: 6 });
  });

  it('a delta is the observations between two readings', () => {
    const earlier = { buckets: b([[0, 1], [1, 2], [Infinity, 6]]), sum: 10, count: 6 };
    const later = { buckets: b([[0, 1], [1, 5], [Infinity, 10]]), sum: 13.5, count: 10 };
    expect(histogramDelta(later, earlier)).toEqual({ buckets: b([[0, 0], [1, 3], [Infinity, 4]]), sum: 3.5, count: 4 });
  });

  it('reads a gauge by label', () => {
    expect([...readGauge(TEXT, 'kubeproxy_sync_proxy_rules_last_timestamp_seconds', 'node')]).toEqual([
      ['node-1', 1700000000.5],
      ['node-2', 1700000001],
    ]);
  });
});

/** The element names of a document, checked for balance: throws on a closing tag that does not match. */
function balancedTags(svg: string): string[] {
  const stack: string[] = [];
  const names: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-zA-Z]+)([^>]*?)(\/?)>/g)) {
    const [, closing, name = '', , selfClosing] = m;
    if (closing === '/') {
      const open = stack.pop();
      if (open !== name) throw new Error(`</${name}> closes <${open ?? 'nothing'}>`);
    } else {
      names.push(name);
      if (selfClosing !== '/') stack.push(name);
    }
  }
  if (stack.length > 0) throw new Error(`unclosed: ${stack.join(', ')}`);
  return names;
}

describe('lineChartSvg', () => {
  const series = [
    { name: 'p50', color: '#1f77b4', points: [[0, 1], [5, 2], [10, 1.5]] as const },
    { name: 'p99 <tail> & more', color: '#d62728', points: [[0, 2], [5, NaN], [10, 4], [15, 3]] as const },
  ];
  const svg = lineChartSvg(series, { title: 'latency "over" time', xLabel: 's', yLabel: 'seconds', markers: [{ x: 5, label: 'churn' }] });

  it('is one balanced svg element with the SVG namespace', () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(svg.trimEnd().endsWith('</svg>')).toBe(true);
    expect(balancedTags(svg)[0]).toBe('svg');
  });

  it('draws each run of finite points as a polyline, splitting at a gap', () => {
    const polylines = [...svg.matchAll(/<polyline [^>]*points="([^"]*)"/g)].map((m) => (m[1] ?? '').split(' ').length);
    // p50: one run of 3; p99: [0,2] alone, then [10,4],[15,3] after the NaN
    expect(polylines).toEqual([3, 1, 2]);
  });

  it('places points on the scale: x from the least to the greatest, y from 0 to the greatest', () => {
    const first = /<polyline [^>]*points="([^"]*)"/.exec(svg)?.[1]?.split(' ') ?? [];
    // Width 800 − 60 left − 140 right = 600 over x 0..15; height 400 − 30 top − 45 bottom = 325 over y 0..4.
    expect(first).toEqual(['60,273.8', '260,192.5', '460,233.1']);
  });

  it('escapes text and names every series in the legend', () => {
    expect(svg).toContain('p99 &lt;tail&gt; &amp; more');
    expect(svg).toContain('latency &quot;over&quot; time');
    expect(svg).toContain('>p50</text>');
    expect(svg).toContain('>churn</text>');
  });
});

describe('scaleSizeFromEnv', () => {
  it('takes the defaults (the targets) where unset, the environment where set', () => {
    expect(scaleSizeFromEnv({})).toEqual(SCALE_DEFAULTS);
    expect(SCALE_DEFAULTS).toMatchObject({ nodes: 100, services: 10_000, endpoints: 10, rate: 20 });
    expect(scaleSizeFromEnv({ SCALE_NODES: '10', SCALE_SERVICES: '1000' })).toMatchObject({ nodes: 10, services: 1000, endpoints: 10 });
  });

  it('refuses a size that is not a number above 0', () => {
    expect(() => scaleSizeFromEnv({ SCALE_NODES: '0' })).toThrow(/SCALE_NODES/);
    expect(() => scaleSizeFromEnv({ SCALE_RATE: 'fast' })).toThrow(/SCALE_RATE/);
  });
});

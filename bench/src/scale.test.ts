// The scale suite end to end at a tiny size (SQLite): the run loads, churns and settles, reads
// network programming latency from the shared /metrics, and writes its JSON and chart.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runScale, writeScaleFiles, type ScaleResult } from './scale.js';

describe('scale run, 2 nodes × 20 Services × 3 endpoints on SQLite', () => {
  const out = mkdtempSync(join(tmpdir(), 'kubesvc-scale-test-'));
  const lines: string[] = [];
  let stop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await stop?.();
    rmSync(out, { recursive: true, force: true });
  });

  it('loads, churns and settles, with latency observed in both phases, and writes its JSON and chart', async () => {
    const size = { nodes: 2, services: 20, endpoints: 3, rate: 10, churnSeconds: 3, phaseLimitSeconds: 120, sampleSeconds: 1, heapLimitMiB: 3072 };
    const { result, run } = await runScale('sqlite', size, (line) => lines.push(line));
    stop = () => run.stop();
    if (!result.settled.load || !result.settled.churn) console.error('last lines', lines.slice(-10));
    expect(result.settled).toEqual({ load: true, churn: true });
    expect(result.figures.servicesLoaded).toBe(20);
    const { load, churn } = result.phases;
    // Each of the 20 slices' trigger times is observed once per node at least.
    expect(load?.npCount).toBeGreaterThanOrEqual(20 * 2);
    expect(churn?.npCount).toBeGreaterThan(0);
    expect(churn?.npP50).toBeGreaterThanOrEqual(0);
    expect(churn?.npP99).toBeGreaterThanOrEqual(churn?.npP50 ?? Infinity);
    expect(churn?.writes).toBeGreaterThan(0);
    expect(load?.watchEventsPerSecond).toBeGreaterThan(0);

    const svg = writeScaleFiles(result, out);
    const files = readdirSync(out).sort();
    expect(files).toHaveLength(2);
    expect(files.map((f) => f.replace(/-\d{4}-.*\./, '-DATE.'))).toEqual(['scale-sqlite-DATE.json', 'scale-sqlite-DATE.svg']);
    const json = JSON.parse(readFileSync(svg.replace(/\.svg$/, '.json'), 'utf8')) as ScaleResult;
    expect(json.size).toEqual(size);
    expect(json.series.length).toBeGreaterThan(0);
    expect(readFileSync(svg, 'utf8')).toContain('2 nodes × 20 Services × 3 endpoints');
  }, 600_000);
});

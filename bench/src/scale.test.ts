// The scale suite end to end at a tiny size (SQLite): the run loads, churns and settles, reads
// network programming latency from the shared /metrics, and writes its JSON and chart.
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runScale, scaleAgentsFromEnv, writeScaleFiles, type ScaleResult } from './scale.js';

describe('scaleAgentsFromEnv', () => {
  it('reads SCALE_NODE_WORKERS (at most one per node) and SCALE_TABLES_FILES_SECONDS, refusing what is not a whole number', () => {
    expect(scaleAgentsFromEnv(10, { SCALE_NODE_WORKERS: '3', SCALE_TABLES_FILES_SECONDS: '0', SCALE_SHARE_OBJECTS: '0' })).toStrictEqual({ workers: 3, tablesFilesSeconds: 0, shareObjects: false });
    expect(scaleAgentsFromEnv(2, { SCALE_NODE_WORKERS: '8' })).toStrictEqual({ workers: 2, tablesFilesSeconds: Infinity, shareObjects: true });
    expect(scaleAgentsFromEnv(10, { SCALE_NODE_WORKERS: '0' }).workers).toBe(0);
    expect(() => scaleAgentsFromEnv(10, { SCALE_NODE_WORKERS: '1.5' })).toThrow('SCALE_NODE_WORKERS must be a whole number of 0 or more, got "1.5"');
    expect(() => scaleAgentsFromEnv(10, { SCALE_TABLES_FILES_SECONDS: '-1' })).toThrow('SCALE_TABLES_FILES_SECONDS must be a whole number of 0 or more, got "-1"');
  });
});

describe.each([
  { workers: 2, label: 'kube-proxies in 2 worker threads' },
  { workers: 0, label: 'kube-proxies on the main thread' },
])('scale run, 2 nodes × 20 Services × 3 endpoints on SQLite, $label', ({ workers }) => {
  const out = mkdtempSync(join(tmpdir(), 'kubesvc-scale-test-'));
  const lines: string[] = [];
  let stop: (() => Promise<void>) | undefined;
  afterAll(async () => {
    await stop?.();
    rmSync(out, { recursive: true, force: true });
  });

  it('loads, churns and settles, with latency observed in both phases, and writes its JSON and chart', async () => {
    const size = { nodes: 2, services: 20, endpoints: 3, rate: 10, churnSeconds: 3, phaseLimitSeconds: 120, sampleSeconds: 1, heapLimitMiB: 3072 };
    const { result, run } = await runScale('sqlite', size, (line) => lines.push(line), { workers, tablesFilesSeconds: 60 });
    stop = () => run.stop();
    if (!result.settled.load || !result.settled.churn) console.error('last lines', lines.slice(-10));
    expect(result.settled).toEqual({ load: true, churn: true });
    // Every write of the bench landed (a refused or timed-out one is counted, and would show here).
    expect(result.figures.failedWrites).toBe(0);
    expect(result.figures.servicesLoaded).toBe(20);
    expect(result.figures.nodeWorkers).toBe(workers);
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

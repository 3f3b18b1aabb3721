// kube-proxy's metrics as the sync loop records them, on a virtual clock: the network
// programming latency is the clock's time at the sync that applied minus the slice's
// last-change-trigger-time, a slice without one (or with one from before the proxier started)
// observes nothing, a failed sync observes only its duration, and the buckets are upstream's.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { EndpointSlice } from '@kubesvc/api-types';
import type { CacheChange } from '@kubesvc/controllers';
import { silentLogger } from '@kubesvc/apiserver';
import { virtualClock, type VirtualClock } from '@kubesvc/store';
import { Registry } from 'prom-client';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { endpointSlice } from './node-agent.fixtures.js';
import { parseRFC3339Nano } from './network-programming.js';
import { createProxyMetrics } from './proxy-metrics.js';
import { ProxySyncLoop, type SyncStep } from './proxy-sync-loop.js';

const T0 = Date.UTC(2026, 0, 1);

let dir: string;
let registry: Registry;
let clock: VirtualClock;
let loops: ProxySyncLoop[];

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'proxy-metrics-'));
  registry = new Registry();
  clock = virtualClock(T0);
  loops = [];
});

afterEach(async () => {
  for (const loop of loops) await loop.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** A loop whose syncs apply (or fail while `failing`), and the clock's time at each sync. */
function startLoop(node = 'node-1'): { loop: ProxySyncLoop; syncedAt: number[]; setFailing(f: boolean): void } {
  const metrics = createProxyMetricsOnce().forNode(node);
  const syncedAt: number[] = [];
  let failing = false;
  const loop = new ProxySyncLoop({ clock, logger: silentLogger, name: 'iptables', dir: join(dir, node), metrics }, (): SyncStep => {
    syncedAt.push(clock.now());
    return failing ? { ok: false, error: 'restore failed' } : { ok: true, full: true, files: [] };
  });
  loops.push(loop);
  loop.start();
  return { loop, syncedAt, setFailing: (f) => (failing = f) };
}

let proxyMetrics: ReturnType<typeof createProxyMetrics> | undefined;
function createProxyMetricsOnce(): ReturnType<typeof createProxyMetrics> {
  proxyMetrics ??= createProxyMetrics(registry);
  return proxyMetrics;
}
afterEach(() => {
  proxyMetrics = undefined;
});

function slice(triggerTime?: string, name = 'web-1'): EndpointSlice {
  const s = endpointSlice('web', ['10.244.0.5'], [{ name: 'http', port: 8080, protocol: 'TCP' }], { name });
  return triggerTime === undefined ? s : { ...s, metadata: { ...s.metadata, annotations: { 'endpoints.kubernetes.io/last-change-trigger-time': triggerTime } } };
}

function changed(object: EndpointSlice, type: CacheChange['type'] = 'ADDED'): CacheChange {
  return { resource: 'endpointslices', type, object, ...(type === 'MODIFIED' || type === 'DELETED' ? { old: object } : {}) };
}

/** The sample `name` (e.g. a histogram's `_count`) with these labels, from the registry's own view. */
async function value(metric: string, name: string, labels: Record<string, string | number>): Promise<number | undefined> {
  const m = registry.getSingleMetric(metric);
  if (m === undefined) throw new Error(`no metric ${metric}`);
  const got = await m.get();
  const hit = (got.values as readonly { value: number; labels: Record<string, string | number>; metricName?: string }[]).find((v) => (v.metricName ?? metric) === name && Object.entries(labels).every(([k, want]) => v.labels[k] === want));
  return hit?.value;
}

/** Lets the runner's pending sync run (min sync period 1 s). */
function settle(): void {
  clock.advance(1_000);
}

describe('kubeproxy_network_programming_duration_seconds', () => {
  it('observes the clock at the sync that applied minus the trigger time', async () => {
    const { loop, syncedAt } = startLoop();
    clock.advance(5_000);
    // Written by the EndpointSlice controller 1.75 s after the proxier started.
    loop.onChange(changed(slice('2026-01-01T00:00:01.75Z')));
    settle();
    expect(syncedAt).toHaveLength(2);
    const at = syncedAt[1] ?? 0;
    const name = 'kubeproxy_network_programming_duration_seconds';
    expect(await value(name, `${name}_count`, { node: 'node-1' })).toBe(1);
    expect(await value(name, `${name}_sum`, { node: 'node-1' })).toBeCloseTo((at - (T0 + 1_750)) / 1000, 9);
  });

  it('observes nothing for a slice without the annotation, or with one that does not parse', async () => {
    const { loop, syncedAt } = startLoop();
    clock.advance(5_000);
    loop.onChange(changed(slice()));
    loop.onChange(changed(slice('yesterday', 'web-2')));
    settle();
    expect(syncedAt).toHaveLength(2);
    const name = 'kubeproxy_network_programming_duration_seconds';
    expect(await value(name, `${name}_count`, { node: 'node-1' })).toBeUndefined();
    // The syncs themselves were timed.
    const sync = 'kubeproxy_sync_proxy_rules_duration_seconds';
    expect(await value(sync, `${sync}_count`, { node: 'node-1' })).toBe(2);
  });

  it('skips a trigger time at or before the tracker started, as after a restart', async () => {
    const { loop } = startLoop();
    clock.advance(5_000);
    loop.onChange(changed(slice('2025-12-31T23:00:00Z')));
    loop.onChange(changed(slice('2026-01-01T00:00:00Z', 'web-2')));
    settle();
    const name = 'kubeproxy_network_programming_duration_seconds';
    expect(await value(name, `${name}_count`, { node: 'node-1' })).toBeUndefined();
  });

  it("forgets a Service's trigger times when one of its slices is deleted", async () => {
    const { loop } = startLoop();
    clock.advance(5_000);
    loop.onChange(changed(slice('2026-01-01T00:00:02Z')));
    loop.onChange(changed(slice('2026-01-01T00:00:03Z', 'web-2'), 'DELETED'));
    settle();
    const name = 'kubeproxy_network_programming_duration_seconds';
    expect(await value(name, `${name}_count`, { node: 'node-1' })).toBeUndefined();
  });

  it('observes nothing for a sync that failed, and drops its trigger times', async () => {
    const { loop, syncedAt, setFailing } = startLoop();
    clock.advance(5_000);
    setFailing(true);
    loop.onChange(changed(slice('2026-01-01T00:00:02Z')));
    settle();
    expect(syncedAt).toHaveLength(2);
    const name = 'kubeproxy_network_programming_duration_seconds';
    expect(await value(name, `${name}_count`, { node: 'node-1' })).toBeUndefined();
    const sync = 'kubeproxy_sync_proxy_rules_duration_seconds';
    expect(await value(sync, `${sync}_count`, { node: 'node-1' })).toBe(2);
    // The retry (after the 30 s sync period) applies, with nothing left to observe.
    setFailing(false);
    clock.advance(30_000);
    expect(syncedAt).toHaveLength(3);
    expect(await value(name, `${name}_count`, { node: 'node-1' })).toBeUndefined();
  });

  it('keeps each node apart under its own label', async () => {
    const a = startLoop('node-a');
    const b = startLoop('node-b');
    clock.advance(5_000);
    a.loop.onChange(changed(slice('2026-01-01T00:00:01Z')));
    a.loop.onChange(changed(slice('2026-01-01T00:00:02Z', 'web-2')));
    b.loop.onChange(changed(slice('2026-01-01T00:00:03Z')));
    settle();
    const name = 'kubeproxy_network_programming_duration_seconds';
    expect(await value(name, `${name}_count`, { node: 'node-a' })).toBe(2);
    expect(await value(name, `${name}_count`, { node: 'node-b' })).toBe(1);
  });
});

describe('kubeproxy_sync_proxy_rules_last_timestamp_seconds', () => {
  it('is the clock at the last sync that applied, in seconds', async () => {
    const { loop, syncedAt, setFailing } = startLoop();
    const name = 'kubeproxy_sync_proxy_rules_last_timestamp_seconds';
    expect(await value(name, name, { node: 'node-1' })).toBe(T0 / 1000);
    clock.advance(5_000);
    setFailing(true);
    loop.onChange(changed(slice()));
    settle();
    expect(syncedAt).toHaveLength(2);
    expect(await value(name, name, { node: 'node-1' })).toBe(T0 / 1000);
  });
});

describe('buckets', () => {
  it("are upstream's", async () => {
    const { loop } = startLoop();
    clock.advance(5_000);
    loop.onChange(changed(slice('2026-01-01T00:00:01Z')));
    settle();
    const text = await registry.metrics();
    const les = (name: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}_bucket{`))
        .map((l) => /le="([^"]+)"/.exec(l)?.[1]);
    // upstream (v1.33): pkg/proxy/metrics/metrics.go SyncProxyRulesLatency, ExponentialBuckets(0.001, 2, 15)
    expect(les('kubeproxy_sync_proxy_rules_duration_seconds')).toEqual(['0.001', '0.002', '0.004', '0.008', '0.016', '0.032', '0.064', '0.128', '0.256', '0.512', '1.024', '2.048', '4.096', '8.192', '16.384', '+Inf']);
    // upstream (v1.33): NetworkProgrammingLatency, MergeBuckets (a leading 0) of 0.25 s steps to
    // 0.5 s, 1 s steps to 59 s, 5 s steps to 115 s, 30 s steps to 5 min.
    expect(les('kubeproxy_network_programming_duration_seconds')).toEqual([
      '0', '0.25', '0.5',
      '1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12', '13', '14', '15', '16', '17', '18', '19', '20',
      '21', '22', '23', '24', '25', '26', '27', '28', '29', '30', '31', '32', '33', '34', '35', '36', '37', '38', '39', '40',
      '41', '42', '43', '44', '45', '46', '47', '48', '49', '50', '51', '52', '53', '54', '55', '56', '57', '58', '59',
      '60', '65', '70', '75', '80', '85', '90', '95', '100', '105', '110', '115',
      '120', '150', '180', '210', '240', '270', '300',
      '+Inf',
    ]);
  });
});

describe('parseRFC3339Nano', () => {
  const cases: readonly { text: string; ms: number | undefined }[] = [
    { text: '2026-01-01T00:00:01Z', ms: T0 + 1_000 },
    { text: '2026-01-01T00:00:01.75Z', ms: T0 + 1_750 },
    { text: '2026-01-01T00:00:01.000000001Z', ms: T0 + 1_000.000001 },
    { text: '2026-01-01T02:00:01+02:00', ms: T0 + 1_000 },
    { text: '2025-12-31T23:30:00-00:30', ms: T0 },
    { text: '2026-02-30T00:00:00Z', ms: undefined },
    { text: '2026-01-01 00:00:00Z', ms: undefined },
    { text: '2026-01-01T00:00:00', ms: undefined },
    { text: 'yesterday', ms: undefined },
  ];
  it.each(cases)('$text', ({ text, ms }) => {
    const got = parseRFC3339Nano(text);
    if (ms === undefined) expect(got).toBeUndefined();
    else expect(got).toBeCloseTo(ms, 6);
  });
});

// /metrics on a real server over a real socket: behind the token, in Prometheus' text format,
// and carrying what the requests and the store calls recorded.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { openRegistry, type Registry } from '../registry/registry.js';
import { startApiServer, type ApiServer } from '../api/server.js';
import { createApiServerMetrics, type ApiServerMetrics } from './apiserver-metrics.js';
import { instrumentStore } from './instrumented-store.js';

const TOKEN = 'metrics-token';

let store: Store;
let registry: Registry;
let metrics: ApiServerMetrics;
let server: ApiServer | undefined;

beforeEach(async () => {
  store = openMemoryStore();
  metrics = createApiServerMetrics({ store });
  const opened = await openRegistry({ store: instrumentStore(store, metrics), clock: virtualClock(Date.UTC(2025, 0, 1)), seed: 7, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await store.close();
});

async function call(method: string, path: string, init: { body?: string; token?: string | null; contentType?: string } = {}): Promise<{ status: number; contentType: string; text: string }> {
  if (server === undefined) server = await startApiServer({ registry, token: TOKEN, metrics });
  const headers: Record<string, string> = {};
  if (init.token !== null) headers['Authorization'] = `Bearer ${init.token ?? TOKEN}`;
  if (init.body !== undefined) headers['Content-Type'] = init.contentType ?? 'application/json';
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) });
  return { status: res.status, contentType: res.headers.get('content-type') ?? '', text: await res.text() };
}

/** The value of the one sample of `name` whose labels include `labels` (undefined: none; several: the test's mistake). */
function sample(text: string, name: string, labels: Record<string, string>): number | undefined {
  const found: number[] = [];
  for (const line of text.split('\n')) {
    const m = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (m === null || m[1] !== name) continue;
    const have = new Map([...(m[2] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)].map((l) => [l[1], l[2]]));
    if (Object.entries(labels).every(([k, v]) => have.get(k) === v)) found.push(Number(m[3]));
  }
  if (found.length > 1) throw new Error(`${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
  return found[0];
}

const service = (name: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] } });

describe('/metrics', () => {
  it('answers 401 with a Status with a wrong token, and 403 for system:anonymous without one', async () => {
    const wrong = await call('GET', '/metrics', { token: 'not-the-token' });
    expect(wrong.status).toBe(401);
    expect(JSON.parse(wrong.text)).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Failure', reason: 'Unauthorized', code: 401 });
    const anonymous = await call('GET', '/metrics', { token: null });
    expect(anonymous.status).toBe(403);
    expect(JSON.parse(anonymous.text)).toMatchObject({ kind: 'Status', message: 'forbidden: User "system:anonymous" cannot get path "/metrics"', reason: 'Forbidden', code: 403 });
  });

  it('answers 200 in the Prometheus text format 0.0.4 with the token', async () => {
    const res = await call('GET', '/metrics');
    expect(res.status).toBe(200);
    expect(res.contentType).toBe('text/plain; version=0.0.4; charset=utf-8');
    expect(res.text).toContain('# TYPE apiserver_request_duration_seconds histogram');
    expect(res.text).toContain('# TYPE apiserver_request_total counter');
    expect(res.text).toContain('# TYPE etcd_request_duration_seconds histogram');
    expect(res.text).toContain('# TYPE apiserver_storage_objects gauge');
  });

  it('is not served by a server without metrics', async () => {
    server = await startApiServer({ registry, token: TOKEN });
    const res = await call('GET', '/metrics');
    expect(res.status).toBe(404);
  });

  it('counts and times a create with verb POST, scope resource and its code', async () => {
    const created = await call('POST', '/api/v1/namespaces/default/services', { body: service('web') });
    expect(created.status).toBe(201);
    const { text } = await call('GET', '/metrics');
    const labels = { verb: 'POST', dry_run: '', group: '', version: 'v1', resource: 'services', subresource: '', scope: 'resource', component: 'apiserver' };
    expect(sample(text, 'apiserver_request_total', { ...labels, code: '201' })).toBe(1);
    expect(sample(text, 'apiserver_request_duration_seconds_count', labels)).toBe(1);
    // Every observation falls in the +Inf bucket.
    expect(sample(text, 'apiserver_request_duration_seconds_bucket', { ...labels, le: '+Inf' })).toBe(1);
  });

  it('tells LIST, WATCH and GET apart, and records a failure with its code', async () => {
    expect((await call('GET', '/api/v1/namespaces/default/services')).status).toBe(200);
    expect((await call('GET', '/api/v1/services')).status).toBe(200);
    expect((await call('GET', '/api/v1/namespaces/default/services/missing')).status).toBe(404);
    expect((await call('GET', '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices?watch=true&timeoutSeconds=1')).status).toBe(200);
    const { text } = await call('GET', '/metrics');
    const common = { dry_run: '', component: 'apiserver' };
    expect(sample(text, 'apiserver_request_total', { ...common, verb: 'LIST', resource: 'services', scope: 'namespace', code: '200' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...common, verb: 'LIST', resource: 'services', scope: 'cluster', code: '200' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...common, verb: 'GET', resource: 'services', scope: 'resource', code: '404' })).toBe(1);
    expect(sample(text, 'apiserver_request_total', { ...common, verb: 'WATCH', group: 'discovery.k8s.io', version: 'v1', resource: 'endpointslices', scope: 'namespace', code: '200' })).toBe(1);
  });

  it('does not record a request refused before routing (401, 403, 404 of an unknown path)', async () => {
    expect((await call('GET', '/api/v1/namespaces/default/services', { token: 'wrong' })).status).toBe(401);
    expect((await call('GET', '/api/v1/namespaces/default/services', { token: null })).status).toBe(403);
    expect((await call('GET', '/api/v1/nothing')).status).toBe(404);
    const { text } = await call('GET', '/metrics');
    expect(text).not.toMatch(/^apiserver_request_total\{/m);
  });

  it("has upstream's buckets on apiserver_request_duration_seconds and etcd_request_duration_seconds", async () => {
    await call('POST', '/api/v1/namespaces/default/services', { body: service('web') });
    const { text } = await call('GET', '/metrics');
    // upstream (v1.33): endpoints/metrics/metrics.go requestLatencies, storage/etcd3/metrics/metrics.go etcdRequestLatency
    const upstream = ['0.005', '0.025', '0.05', '0.1', '0.2', '0.4', '0.6', '0.8', '1', '1.25', '1.5', '2', '3', '4', '5', '6', '8', '10', '15', '20', '30', '45', '60', '+Inf'];
    const les = (name: string, labels: string) =>
      text
        .split('\n')
        .filter((l) => l.startsWith(`${name}_bucket{`) && l.includes(labels))
        .map((l) => /le="([^"]+)"/.exec(l)?.[1]);
    expect(les('apiserver_request_duration_seconds', 'verb="POST"')).toEqual(upstream);
    expect(les('etcd_request_duration_seconds', 'operation="create",group="",resource="services"')).toEqual(upstream);
  });

  it('times the store calls by operation, group and resource', async () => {
    await call('POST', '/api/v1/namespaces/default/services', { body: service('web') });
    await call('GET', '/api/v1/namespaces/default/services/web');
    await call('DELETE', '/api/v1/namespaces/default/services/web');
    const { text } = await call('GET', '/metrics');
    for (const operation of ['create', 'get', 'delete']) {
      expect(sample(text, 'etcd_request_duration_seconds_count', { operation, group: '', resource: 'services' }), operation).toBeGreaterThanOrEqual(1);
    }
    // The ClusterIP's allocation is a compare-and-swap of the range's RangeAllocation.
    expect(sample(text, 'etcd_request_duration_seconds_count', { operation: 'update', group: '', resource: 'serviceipallocations' })).toBeGreaterThanOrEqual(1);
  });

  it('counts the stored objects of each resource at each read', async () => {
    const before = (await call('GET', '/metrics')).text;
    expect(sample(before, 'apiserver_storage_objects', { resource: 'services' })).toBe(0);
    await call('POST', '/api/v1/namespaces/default/services', { body: service('a') });
    await call('POST', '/api/v1/namespaces/default/services', { body: service('b') });
    const { text } = await call('GET', '/metrics');
    expect(sample(text, 'apiserver_storage_objects', { resource: 'services' })).toBe(2);
    expect(sample(text, 'apiserver_storage_objects', { resource: 'namespaces' })).toBe(1);
    expect(sample(text, 'apiserver_storage_objects', { resource: 'endpointslices.discovery.k8s.io' })).toBe(0);
    expect(sample(text, 'apiserver_storage_objects', { resource: 'deployments.apps' })).toBe(0);
  });
});

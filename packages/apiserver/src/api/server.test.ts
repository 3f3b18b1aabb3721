// The HTTP API against kube-apiserver's answers: authentication, discovery, routing errors,
// the verbs, the /status subresource, selectors, pagination, patch types and Table output.
// Each test talks to a real server on 127.0.0.1 over a real socket.
import { connect } from 'node:net';
import type { KubeObject } from '@kubesvc/api-types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRegistry, type Registry } from '../registry/registry.js';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { startApiServer, type ApiServer, type ApiServerOptions } from './server.js';

const TOKEN = 'test-token';

let store: Store;
let registry: Registry;
let server: ApiServer;
let ready = true;

async function start(extra: Partial<ApiServerOptions> = {}): Promise<void> {
  server = await startApiServer({ registry, token: TOKEN, ready: () => ready, ...extra });
}

beforeEach(async () => {
  ready = true;
  store = openMemoryStore();
  const opened = await openRegistry({ store, clock: virtualClock(Date.UTC(2025, 0, 1)), seed: 7, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
});

afterEach(async () => {
  await server?.close();
  await store.close();
});

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

async function call(method: string, path: string, init: { body?: string; headers?: Record<string, string>; token?: string | null } = {}): Promise<Answer> {
  const headers: Record<string, string> = { ...init.headers };
  if (init.token !== null) headers['Authorization'] = `Bearer ${init.token ?? TOKEN}`;
  if (init.body !== undefined && headers['Content-Type'] === undefined) headers['Content-Type'] = 'application/json';
  const res = await fetch(`${server.url}${path}`, { method, headers, ...(init.body === undefined ? {} : { body: init.body }) });
  const text = await res.text();
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(text) as Record<string, unknown>;
  } catch {
    // not JSON (healthz)
  }
  return { status: res.status, headers: res.headers, text, json };
}

const svc = (name: string, labels: Record<string, string> = {}, spec: Record<string, unknown> = {}) =>
  JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name, labels }, spec: { ports: [{ port: 80 }], ...spec } });

describe('authentication and health', () => {
  beforeEach(() => start());

  it('answers 401 Unauthorized with a wrong token, as kube-apiserver', async () => {
    const r = await call('GET', '/api/v1/namespaces/default/services', { token: 'wrong' });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'Unauthorized', reason: 'Unauthorized', code: 401 });
    expect((await call('GET', '/api/v1/namespaces/default/services')).status).toBe(200);
  });

  // What a kube-apiserver with its defaults (anonymous requests on, RBAC) answers system:anonymous.
  // A namespace's own path names it as the namespace too, as upstream's RequestInfo reads it
  // (the message `namespaces "default" is forbidden: ... in the namespace "default"`).
  it.each([
    ['GET', '/', { message: 'forbidden: User "system:anonymous" cannot get path "/"', details: {} }],
    ['GET', '/api', { message: 'forbidden: User "system:anonymous" cannot get path "/api"', details: {} }],
    ['POST', '/metrics', { message: 'forbidden: User "system:anonymous" cannot post path "/metrics"', details: {} }],
    [
      'GET',
      '/api/v1/namespaces/default/services',
      { message: 'services is forbidden: User "system:anonymous" cannot list resource "services" in API group "" in the namespace "default"', details: { kind: 'services' } },
    ],
    [
      'GET',
      '/api/v1/services?watch=true',
      { message: 'services is forbidden: User "system:anonymous" cannot watch resource "services" in API group "" at the cluster scope', details: { kind: 'services' } },
    ],
    [
      'GET',
      '/api/v1/namespaces/kube-system/services?fieldSelector=metadata.name%3Dkube-dns',
      { message: 'services "kube-dns" is forbidden: User "system:anonymous" cannot list resource "services" in API group "" in the namespace "kube-system"', details: { name: 'kube-dns', kind: 'services' } },
    ],
    [
      'DELETE',
      '/api/v1/namespaces/default',
      { message: 'namespaces "default" is forbidden: User "system:anonymous" cannot delete resource "namespaces" in API group "" in the namespace "default"', details: { name: 'default', kind: 'namespaces' } },
    ],
    [
      'DELETE',
      '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices',
      {
        message: 'endpointslices.discovery.k8s.io is forbidden: User "system:anonymous" cannot deletecollection resource "endpointslices" in API group "discovery.k8s.io" in the namespace "default"',
        details: { group: 'discovery.k8s.io', kind: 'endpointslices' },
      },
    ],
    [
      'POST',
      '/api/v1/namespaces/default/pods/web/exec?command=true',
      { message: 'pods "web" is forbidden: User "system:anonymous" cannot create resource "pods/exec" in API group "" in the namespace "default"', details: { name: 'web', kind: 'pods' } },
    ],
    [
      'PUT',
      '/api/v1/namespaces/shop/status',
      { message: 'namespaces "shop" is forbidden: User "system:anonymous" cannot update resource "namespaces/status" in API group "" in the namespace "shop"', details: { name: 'shop', kind: 'namespaces' } },
    ],
  ])('answers %s %s without a token with 403 Forbidden for system:anonymous, as kube-apiserver with RBAC', async (method, path, expected) => {
    const r = await call(method, path, { token: null });
    expect(r.status).toBe(403);
    expect(r.json).toEqual({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', reason: 'Forbidden', code: 403, ...expected });
  });

  it('serves /version, /healthz and /livez without a token, and /readyz only while ready', async () => {
    const v = await call('GET', '/version', { token: null });
    expect(v.status).toBe(200);
    expect(v.json).toMatchObject({ major: '1', minor: '33', gitVersion: 'v1.33.0-kubesvc.0' });
    expect((await call('GET', '/healthz', { token: null })).text).toBe('ok');
    expect((await call('GET', '/livez', { token: null })).text).toBe('ok');
    expect(await call('GET', '/readyz', { token: null })).toMatchObject({ status: 200, text: 'ok' });
    ready = false;
    const notReady = await call('GET', '/readyz', { token: null });
    expect(notReady.status).toBe(500);
    expect(notReady.text).toContain('readyz check failed');
  });
});

describe('discovery', () => {
  beforeEach(() => start());

  it('lists the core resources with short names, categories and status subresources', async () => {
    const r = await call('GET', '/api/v1');
    expect(r.json['groupVersion']).toBe('v1');
    const resources = r.json['resources'] as Record<string, unknown>[];
    const byName = new Map(resources.map((x) => [x['name'], x]));
    expect(byName.get('services')).toMatchObject({ singularName: 'service', namespaced: true, kind: 'Service', shortNames: ['svc'], categories: ['all'] });
    expect(byName.get('pods')).toMatchObject({ shortNames: ['po'], categories: ['all'] });
    expect(byName.get('endpoints')).toMatchObject({ singularName: 'endpoints', shortNames: ['ep'] });
    expect(byName.get('namespaces')).toMatchObject({ namespaced: false, shortNames: ['ns'] });
    expect(byName.get('events')).toMatchObject({ shortNames: ['ev'] });
    expect(byName.get('services/status')).toMatchObject({ kind: 'Service', verbs: ['get', 'patch', 'update'] });
    expect(byName.get('pods/status')).toMatchObject({ kind: 'Pod', verbs: ['get', 'patch', 'update'] });
    expect(byName.has('endpointslices')).toBe(false);
    expect((await call('GET', '/api')).json).toMatchObject({ kind: 'APIVersions', versions: ['v1'] });
  });

  it('serves the discovery.k8s.io group', async () => {
    const groups = await call('GET', '/apis');
    // apps, then networking.k8s.io, then discovery.k8s.io: the aggregator's group priorities (17800, 17200, 16200).
    expect(groups.json).toEqual({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        { name: 'apps', versions: [{ groupVersion: 'apps/v1', version: 'v1' }], preferredVersion: { groupVersion: 'apps/v1', version: 'v1' } },
        { name: 'networking.k8s.io', versions: [{ groupVersion: 'networking.k8s.io/v1', version: 'v1' }], preferredVersion: { groupVersion: 'networking.k8s.io/v1', version: 'v1' } },
        { name: 'discovery.k8s.io', versions: [{ groupVersion: 'discovery.k8s.io/v1', version: 'v1' }], preferredVersion: { groupVersion: 'discovery.k8s.io/v1', version: 'v1' } },
      ],
    });
    expect((await call('GET', '/apis/discovery.k8s.io')).json).toMatchObject({ kind: 'APIGroup', name: 'discovery.k8s.io' });
    const list = await call('GET', '/apis/discovery.k8s.io/v1');
    const resources = list.json['resources'] as Record<string, unknown>[];
    expect(resources.map((x) => x['name'])).toEqual(['endpointslices']);
    expect(resources[0]).not.toHaveProperty('shortNames');
  });

  it('serves the apps group: deployments and replicasets, namespaced, with scale (autoscaling/v1) and status subresources', async () => {
    const list = await call('GET', '/apis/apps/v1');
    const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    const sub = ['get', 'patch', 'update'];
    expect(list.json['resources']).toEqual([
      { name: 'deployments', singularName: 'deployment', namespaced: true, kind: 'Deployment', verbs, shortNames: ['deploy'], categories: ['all'] },
      { name: 'deployments/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: sub },
      { name: 'deployments/status', singularName: '', namespaced: true, kind: 'Deployment', verbs: sub },
      { name: 'replicasets', singularName: 'replicaset', namespaced: true, kind: 'ReplicaSet', verbs, shortNames: ['rs'], categories: ['all'] },
      { name: 'replicasets/scale', singularName: '', namespaced: true, group: 'autoscaling', version: 'v1', kind: 'Scale', verbs: sub },
      { name: 'replicasets/status', singularName: '', namespaced: true, kind: 'ReplicaSet', verbs: sub },
    ]);
  });

  it('serves the networking.k8s.io group: servicecidrs with its status, ipaddresses, both cluster-scoped with no short names', async () => {
    expect((await call('GET', '/apis/networking.k8s.io')).json).toMatchObject({ kind: 'APIGroup', name: 'networking.k8s.io', preferredVersion: { version: 'v1' } });
    const list = await call('GET', '/apis/networking.k8s.io/v1');
    expect(list.json['groupVersion']).toBe('networking.k8s.io/v1');
    const verbs = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];
    expect(list.json['resources']).toEqual([
      { name: 'ipaddresses', singularName: 'ipaddress', namespaced: false, kind: 'IPAddress', verbs },
      { name: 'servicecidrs', singularName: 'servicecidr', namespaced: false, kind: 'ServiceCIDR', verbs },
      { name: 'servicecidrs/status', singularName: '', namespaced: false, kind: 'ServiceCIDR', verbs: ['get', 'patch', 'update'] },
    ]);
  });

  it('lists and gets servicecidrs and ipaddresses over HTTP, with a metadata.name field selector', async () => {
    const body = { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs: ['10.100.0.0/16'] } };
    const created = await call('POST', '/apis/networking.k8s.io/v1/servicecidrs', { body: JSON.stringify(body) });
    expect(created.status).toBe(201);
    const got = await call('GET', '/apis/networking.k8s.io/v1/servicecidrs/extra');
    expect(got.json).toMatchObject({ kind: 'ServiceCIDR', apiVersion: 'networking.k8s.io/v1', metadata: { name: 'extra' }, spec: { cidrs: ['10.100.0.0/16'] } });
    const selected = await call('GET', '/apis/networking.k8s.io/v1/servicecidrs?fieldSelector=metadata.name%3Dextra');
    expect((selected.json['items'] as { metadata: { name: string } }[]).map((i) => i.metadata.name)).toEqual(['extra']);
    const none = await call('GET', '/apis/networking.k8s.io/v1/servicecidrs?fieldSelector=metadata.name%3Dother');
    expect(none.json['items']).toEqual([]);
    const refused = await call('GET', '/apis/networking.k8s.io/v1/ipaddresses?fieldSelector=spec.parentRef.name%3Dweb');
    expect(refused.status).toBe(400);
    expect(refused.json['message']).toBe('"spec.parentRef.name" is not a known field selector: only "metadata.name", "metadata.namespace"');
  });

  it('PUT servicecidrs/{name}/status writes the status and keeps the spec; ipaddresses has no /status', async () => {
    const body = { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs: ['10.100.0.0/16'] } };
    const created = await call('POST', '/apis/networking.k8s.io/v1/servicecidrs', { body: JSON.stringify(body) });
    const ready = { type: 'Ready', status: 'True', lastTransitionTime: '2025-01-02T00:00:00Z', reason: '', message: '' };
    const update = { ...created.json, spec: { cidrs: ['10.200.0.0/16'] }, status: { conditions: [ready] } };
    const put = await call('PUT', '/apis/networking.k8s.io/v1/servicecidrs/extra/status', { body: JSON.stringify(update) });
    expect(put.status).toBe(200);
    expect(put.json).toMatchObject({ spec: { cidrs: ['10.100.0.0/16'] }, status: { conditions: [ready] } });
    const ip = { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name: '10.96.0.50' }, spec: { parentRef: { group: '', resource: 'services', namespace: 'default', name: 'web' } } };
    const ipCreated = await call('POST', '/apis/networking.k8s.io/v1/ipaddresses', { body: JSON.stringify(ip) });
    expect(ipCreated.status).toBe(201);
    expect((await call('PUT', '/apis/networking.k8s.io/v1/ipaddresses/10.96.0.50/status', { body: JSON.stringify(ipCreated.json) })).status).toBe(404);
  });

  it('serves an empty OpenAPI v2 and a v3 whose PATCH operations take fieldValidation', async () => {
    const v2 = await call('GET', '/openapi/v2');
    expect(v2.status).toBe(200);
    expect(v2.headers.get('content-type')).toBe('application/octet-stream');
    expect(v2.text).toBe('');
    const index = (await call('GET', '/openapi/v3')).json['paths'] as Record<string, { serverRelativeURL: string }>;
    const url = index['api/v1']?.serverRelativeURL ?? '';
    expect(url).toMatch(/^\/openapi\/v3\/api\/v1\?hash=[0-9A-F]+$/);
    const doc = (await call('GET', url)).json as { paths: Record<string, { patch?: { parameters: { name: string; in: string }[]; 'x-kubernetes-group-version-kind': unknown } }> };
    const patch = doc.paths['/api/v1/namespaces/{namespace}/services/{name}']?.patch;
    expect(patch?.['x-kubernetes-group-version-kind']).toEqual({ group: '', version: 'v1', kind: 'Service' });
    expect(patch?.parameters).toContainEqual(expect.objectContaining({ name: 'fieldValidation', in: 'query' }));
  });
});

describe('routing errors', () => {
  beforeEach(() => start());

  it('answers 404 with the mux Status for paths no route serves', async () => {
    const expected = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };
    for (const path of ['/nope', '/api/v2', '/api/v1/widgets', '/api/v1/services/web', '/api/v1/namespaces/default/endpointslices', '/apis/discovery.k8s.io/v1/services', '/api/v1/namespaces/default/endpoints/x/status']) {
      const r = await call('GET', path);
      expect(r.status, path).toBe(404);
      expect(r.json, path).toEqual(expected);
    }
  });

  it('answers 405 for a method the path does not take', async () => {
    for (const [method, path] of [
      ['POST', '/api/v1/services'],
      ['PUT', '/api/v1/namespaces/default/services'],
      ['DELETE', '/api/v1/namespaces/default/services/web/status'],
      ['POST', '/api/v1/namespaces/default/services/web'],
    ] as const) {
      const r = await call(method, path, { body: '{}' });
      expect(r.status, `${method} ${path}`).toBe(405);
      expect(r.json['reason']).toBe('MethodNotAllowed');
    }
  });

  it('answers 413 past 3 MiB and 400 for a body that is not JSON', async () => {
    const big = await call('POST', '/api/v1/namespaces/default/services', { body: 'x'.repeat(3 * 1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expect(big.json['message']).toBe('Request entity too large: limit is 3145728');
    const bad = await call('POST', '/api/v1/namespaces/default/services', { body: '{"kind":' });
    expect(bad.status).toBe(400);
    expect(bad.json['message']).toBe('the object provided is unrecognized (must be of type Service): couldn\'t get version/kind; json parse error: unexpected end of JSON input ({"kind":)');
    expect(await store.revision()).toBeGreaterThan(0);
  });

  it('answers a request Node cannot parse with a 400 Status too (found by INV-API-FUZZ)', async () => {
    const port = server.port;
    const raw = await new Promise<string>((resolve, reject) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('GET /api/v1 HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\ngarbage after close\r\n\r\n'));
      let data = '';
      socket.setEncoding('utf8');
      socket.on('data', (d: string) => (data += d));
      socket.on('end', () => resolve(data));
      socket.on('error', reject);
    });
    const statuses = raw.match(/^HTTP\/1\.1 \d+/gm) ?? [];
    expect(statuses).toContain('HTTP/1.1 400');
    expect(raw).toContain('{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"the request could not be parsed","reason":"BadRequest","code":400}');
  });

  it('treats a field named like an Object.prototype member as unknown, not as a 500 (found by INV-API-FUZZ)', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'x' }, spec: { toString: 0, ports: [{ port: 80 }] } });
    const strict = await call('POST', '/api/v1/namespaces/default/services?fieldValidation=Strict', { body });
    expect(strict.status).toBe(400);
    expect(strict.json['message']).toBe('Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.toString"');
    const ns = await call('PUT', '/api/v1/namespaces/default', { body: '{"spec":{"toString":0}}' });
    expect(ns.status).toBeLessThan(500);
  });
});

describe('verbs', () => {
  beforeEach(() => start());

  it('creates with 201, gets, and answers NotFound with the registry Status', async () => {
    const created = await call('POST', '/api/v1/namespaces/default/services', { body: svc('web') });
    expect(created.status).toBe(201);
    expect((created.json['spec'] as { clusterIP: string }).clusterIP).toMatch(/^10\.96\.0\./);
    expect((await call('GET', '/api/v1/namespaces/default/services/web')).json['metadata']).toMatchObject({ name: 'web', namespace: 'default' });
    const missing = await call('GET', '/api/v1/namespaces/default/services/nope');
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ reason: 'NotFound', message: 'services "nope" not found', details: { name: 'nope', kind: 'services' } });
  });

  it('drops an unknown field with a 299 warning by default and refuses it under Strict', async () => {
    const body = JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }], foo: 1 } });
    const warned = await call('POST', '/api/v1/namespaces/default/services', { body });
    expect(warned.status).toBe(201);
    expect(warned.headers.get('warning')).toBe('299 - "unknown field \\"spec.foo\\""');
    const strict = await call('POST', '/api/v1/namespaces/default/services?fieldValidation=Strict', { body: body.replace('"web"', '"web2"') });
    expect(strict.status).toBe(400);
    expect(strict.json['message']).toBe('Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.foo"');
    const wrong = await call('POST', '/api/v1/namespaces/default/services?fieldValidation=Loud', { body });
    expect(wrong.status).toBe(422);
    expect(wrong.json['message']).toBe('CreateOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "Loud": supported values: "", "Ignore", "Strict", "Warn"');
  });

  it('refuses dryRun rather than writing, and an unknown dryRun value as upstream', async () => {
    const before = await store.revision();
    const dry = await call('POST', '/api/v1/namespaces/default/services?dryRun=All', { body: svc('web') });
    expect(dry.status).toBe(400);
    const bad = await call('POST', '/api/v1/namespaces/default/services?dryRun=Some', { body: svc('web') });
    expect(bad.status).toBe(422);
    expect(bad.json['message']).toBe('CreateOptions.meta.k8s.io "" is invalid: dryRun: Unsupported value: []string{"Some"}: supported values: "All"');
    expect(await store.revision()).toBe(before);
  });

  it('deletes a Service returning it, and Endpoints returning a Status Success', async () => {
    await call('POST', '/api/v1/namespaces/default/services', { body: svc('web') });
    const del = await call('DELETE', '/api/v1/namespaces/default/services/web', { body: '{"kind":"DeleteOptions","apiVersion":"v1","propagationPolicy":"Background"}' });
    expect(del.status).toBe(200);
    expect(del.json).toMatchObject({ kind: 'Service', metadata: { name: 'web' } });
    await call('POST', '/api/v1/namespaces/default/endpoints', { body: JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ep' } }) });
    const epDel = await call('DELETE', '/api/v1/namespaces/default/endpoints/ep?gracePeriodSeconds=0');
    expect(epDel.json).toMatchObject({ kind: 'Status', apiVersion: 'v1', status: 'Success', details: { name: 'ep', kind: 'endpoints' } });
    expect((epDel.json['details'] as { uid: string }).uid).toMatch(/^[0-9a-f-]{36}$/);
    const bad = await call('DELETE', '/api/v1/namespaces/default/endpoints/ep?propagationPolicy=Sometimes');
    expect(bad.status).toBe(422);
    expect(bad.json['message']).toBe('DeleteOptions.meta.k8s.io "" is invalid: propagationPolicy: Unsupported value: "Sometimes": supported values: "Foreground", "Background", "Orphan", "nil"');
  });

  it('deletes a collection by label selector and leaves the rest', async () => {
    for (const [name, tier] of [['a', 'fe'], ['b', 'be'], ['c', 'fe']] as const) await call('POST', '/api/v1/namespaces/default/services', { body: svc(name, { tier }) });
    const del = await call('DELETE', '/api/v1/namespaces/default/services?labelSelector=tier%3Dfe');
    expect(del.status).toBe(200);
    expect((del.json['items'] as KubeObject[]).map((o) => o.metadata?.name)).toEqual(['a', 'c']);
    const left = await call('GET', '/api/v1/namespaces/default/services');
    expect((left.json['items'] as KubeObject[]).map((o) => o.metadata?.name)).toEqual(['b']);
  });

  it('pages a selected list: limit counts matching objects, continue resumes after them', async () => {
    for (let i = 0; i < 7; i++) await call('POST', '/api/v1/namespaces/default/services', { body: svc(`s${i}`, { even: String(i % 2 === 0) }) });
    const first = await call('GET', '/api/v1/services?labelSelector=even%3Dtrue&limit=2');
    expect((first.json['items'] as KubeObject[]).map((o) => o.metadata?.name)).toEqual(['s0', 's2']);
    const cont = (first.json['metadata'] as { continue: string }).continue;
    expect(cont).toBeTruthy();
    const second = await call('GET', `/api/v1/services?labelSelector=even%3Dtrue&limit=2&continue=${cont}`);
    expect((second.json['items'] as KubeObject[]).map((o) => o.metadata?.name)).toEqual(['s4', 's6']);
    const names = await call('GET', '/api/v1/namespaces/default/services?fieldSelector=metadata.name%3Ds3');
    expect((names.json['items'] as KubeObject[]).map((o) => o.metadata?.name)).toEqual(['s3']);
    const bad = await call('GET', '/api/v1/services?labelSelector=even%20in%20(x');
    expect(bad.status).toBe(400);
    expect(bad.json['message']).toBe("unable to parse requirement: found '', expected: ',' or ')'");
  });

  it('a PUT that creates an Endpoints object answers 201 Created, a PUT that updates it 200, as upstream', async () => {
    // upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/update.go answers
    // StatusCreated when the storage reports wasCreated (Endpoints allow create on update).
    const body = (ip: string) => JSON.stringify({ apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'db' }, subsets: [{ addresses: [{ ip }], ports: [{ port: 5432 }] }] });
    const created = await call('PUT', '/api/v1/namespaces/default/endpoints/db', { body: body('10.244.0.5') });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ kind: 'Endpoints', metadata: { name: 'db', namespace: 'default' } });
    const updated = await call('PUT', '/api/v1/namespaces/default/endpoints/db', { body: body('10.244.0.6') });
    expect(updated.status).toBe(200);
    expect(updated.json['subsets']).toEqual([{ addresses: [{ ip: '10.244.0.6' }], ports: [{ port: 5432, protocol: 'TCP' }] }]);
    // A kind without create on update: 404 for a missing object.
    expect((await call('PUT', '/api/v1/namespaces/default/services/none', { body: svc('none') })).status).toBe(404);
  });

  it('passes the patch type to the registry and answers 415 for one it lacks', async () => {
    await call('POST', '/api/v1/namespaces/default/services', { body: svc('web') });
    const merged = await call('PATCH', '/api/v1/namespaces/default/services/web', { body: '{"metadata":{"labels":{"a":"b"}}}', headers: { 'Content-Type': 'application/merge-patch+json; charset=utf-8' } });
    expect(merged.status).toBe(200);
    expect(merged.json['metadata']).toMatchObject({ labels: { a: 'b' } });
    const json = await call('PATCH', '/api/v1/namespaces/default/services/web', { body: '[{"op":"add","path":"/metadata/labels/c","value":"d"}]', headers: { 'Content-Type': 'application/json-patch+json' } });
    expect(json.json['metadata']).toMatchObject({ labels: { a: 'b', c: 'd' } });
    const apply = await call('PATCH', '/api/v1/namespaces/default/services/web?fieldManager=me', { body: 'apiVersion: v1', headers: { 'Content-Type': 'application/apply-patch+yaml' } });
    expect(apply.status).toBe(415);
    expect(apply.json['reason']).toBe('UnsupportedMediaType');
    expect(apply.json['message']).toMatch(/^the body of the request was in an unknown format - accepted media types include: application\/json-patch\+json, application\/merge-patch\+json/);
  });
});

describe('the status subresource', () => {
  beforeEach(() => start());

  it('Service: an update keeps the stored status, a status update keeps the stored spec', async () => {
    await call('POST', '/api/v1/namespaces/default/services', { body: svc('lb', {}, { type: 'LoadBalancer' }) });
    const ingress = { loadBalancer: { ingress: [{ ip: '192.0.2.10' }] } };
    const current = (await call('GET', '/api/v1/namespaces/default/services/lb')).json;
    const viaMain = await call('PUT', '/api/v1/namespaces/default/services/lb', { body: JSON.stringify({ ...current, status: ingress }) });
    expect(viaMain.status).toBe(200);
    expect(viaMain.json['status']).toEqual({ loadBalancer: {} });
    const spec = viaMain.json['spec'] as { ports: unknown[] };
    const viaStatus = await call('PUT', '/api/v1/namespaces/default/services/lb/status', {
      body: JSON.stringify({ ...viaMain.json, spec: { ...spec, ports: [{ port: 81 }] }, status: ingress }),
    });
    expect(viaStatus.status, viaStatus.text).toBe(200);
    // v1 defaulting gives an ingress IP the ipMode VIP (SetDefaults_Service).
    const defaulted = { loadBalancer: { ingress: [{ ip: '192.0.2.10', ipMode: 'VIP' }] } };
    expect(viaStatus.json['status']).toEqual(defaulted);
    expect(viaStatus.json['spec']).toEqual(spec);
    const got = await call('GET', '/api/v1/namespaces/default/services/lb/status');
    expect(got.json['status']).toEqual(defaulted);
  });

  it('Pod: phase and IP go through /status only (PUT and merge PATCH)', async () => {
    const pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'x' }] } };
    const created = await call('POST', '/api/v1/namespaces/default/pods', { body: JSON.stringify(pod) });
    expect(created.status).toBe(201);
    expect(created.json['status']).toEqual({ phase: 'Pending' });
    const main = await call('PATCH', '/api/v1/namespaces/default/pods/p', { body: '{"status":{"phase":"Running"}}', headers: { 'Content-Type': 'application/merge-patch+json' } });
    expect(main.json['status']).toEqual({ phase: 'Pending' });
    const status = await call('PATCH', '/api/v1/namespaces/default/pods/p/status', {
      body: '{"spec":{"nodeName":"n2"},"status":{"phase":"Running","podIP":"10.244.1.5"}}',
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(status.status).toBe(200);
    expect(status.json['status']).toEqual({ phase: 'Running', podIP: '10.244.1.5' });
    expect((status.json['spec'] as { nodeName: string }).nodeName).toBe('n1');
    const running = await call('GET', '/api/v1/pods?fieldSelector=status.phase%3DRunning,spec.nodeName%3Dn1');
    expect((running.json['items'] as KubeObject[]).map((o) => o.metadata?.name)).toEqual(['p']);
  });
});

describe('Table output', () => {
  it('answers a Table only when Accept asks for one and the printer gives one', async () => {
    const seen: string[] = [];
    await start({
      tables: (resource, objects, ctx) => {
        seen.push(resource);
        if (resource !== 'services') return undefined;
        return {
          kind: 'Table',
          apiVersion: 'meta.k8s.io/v1',
          metadata: { ...(ctx.resourceVersion === undefined ? {} : { resourceVersion: ctx.resourceVersion }) },
          columnDefinitions: [{ name: 'Name', type: 'string', format: 'name', description: '', priority: 0 }],
          rows: objects.map((o) => ({ cells: [o.metadata?.name ?? ''], object: { kind: 'PartialObjectMetadata', apiVersion: 'meta.k8s.io/v1', metadata: o.metadata } })),
        };
      },
    });
    await call('POST', '/api/v1/namespaces/default/services', { body: svc('web') });
    const accept = 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
    const table = await call('GET', '/api/v1/namespaces/default/services', { headers: { Accept: accept } });
    expect(table.json).toMatchObject({ kind: 'Table', rows: [{ cells: ['web'] }] });
    expect(table.headers.get('content-type')).toBe('application/json;as=Table;v=v1;g=meta.k8s.io');
    expect((await call('GET', '/api/v1/namespaces/default/services')).json['kind']).toBe('ServiceList');
    expect((await call('GET', '/api/v1/namespaces/default/services/web', { headers: { Accept: accept } })).json).toMatchObject({ kind: 'Table', rows: [{ cells: ['web'] }] });
    const endpoints = await call('GET', '/api/v1/namespaces/default/endpoints', { headers: { Accept: accept } });
    expect(endpoints.json['kind']).toBe('EndpointsList');
    expect(seen).toContain('endpoints');
  });
});

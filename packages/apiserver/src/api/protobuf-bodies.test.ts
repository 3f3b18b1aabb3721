// Protobuf request bodies over HTTP: the bodies kubectl's typed clients send (captured from
// kubectl 1.33) create objects through the same path as JSON, the Accept header is negotiated
// as the apiserver does (JSON whenever the client takes it, 406 when it takes only protobuf),
// and the media types a resource does not decode get a 415 naming the ones it does.
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { PROTOBUF_MEDIA_TYPE } from '../registry/protobuf/envelope.js';
import { DEBUG_POD_HEX, DRAIN_DELETE_OPTIONS_HEX, KUBECTL_CAPTURES, PROTOC_FIXTURES } from '../registry/protobuf/protobuf.fixtures.js';
import { openRegistry, type Registry } from '../registry/registry.js';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { startApiServer, type ApiServer } from './server.js';

const TOKEN = 'test-token';
// What client-go's typed clients send (captured from kubectl 1.33).
const CLIENT_GO_ACCEPT = 'application/vnd.kubernetes.protobuf,application/json';

let store: Store;
let registry: Registry;
let server: ApiServer;

beforeEach(async () => {
  store = openMemoryStore();
  const opened = await openRegistry({ store, clock: virtualClock(Date.UTC(2025, 0, 1)), seed: 7, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  server = await startApiServer({ registry, token: TOKEN });
});

afterEach(async () => {
  await server.close();
  await store.close();
});

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly json: Record<string, unknown>;
}

async function call(method: string, path: string, body: Uint8Array | string | undefined, headers: Record<string, string>): Promise<Answer> {
  const res = await fetch(`${server.url}${path}`, { method, headers: { Authorization: `Bearer ${TOKEN}`, ...headers }, ...(body === undefined ? {} : { body }) });
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

const hexBytes = (hex: string): Uint8Array => new Uint8Array(Buffer.from(hex, 'hex'));

function postProtobuf(path: string, hex: string, accept = CLIENT_GO_ACCEPT): Promise<Answer> {
  return call('POST', path, hexBytes(hex), { 'Content-Type': PROTOBUF_MEDIA_TYPE, Accept: accept });
}

const SERVICES = '/api/v1/namespaces/default/services';

describe('creating from protobuf', () => {
  it("kubectl create service clusterip's body creates the Service, answered in JSON, defaulted and allocated as a JSON body is", async () => {
    const r = await postProtobuf(`${SERVICES}?fieldManager=kubectl-create&fieldValidation=Strict`, KUBECTL_CAPTURES.clusterip.hex);
    expect(r.status).toBe(201);
    expect(r.headers.get('content-type')).toBe('application/json');
    expect(r.headers.get('warning')).toBeNull();
    const spec = r.json['spec'] as Record<string, unknown>;
    expect(spec).toMatchObject({
      ports: [{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080 }],
      selector: { app: 'web' },
      type: 'ClusterIP',
      sessionAffinity: 'None',
      ipFamilies: ['IPv4'],
      ipFamilyPolicy: 'SingleStack',
      internalTrafficPolicy: 'Cluster',
    });
    expect(spec['clusterIP']).toMatch(/^10\.96\.0\.\d+$/);
    expect(spec['clusterIPs']).toEqual([spec['clusterIP']]);
    const stored = await registry.get('services', 'default', 'web');
    expect(stored.ok && stored.value.metadata?.labels).toEqual({ app: 'web' });
  });

  it('the nodeport body keeps its requested nodePort; the namespace body creates a cluster-scoped Namespace', async () => {
    const np = await postProtobuf(SERVICES, KUBECTL_CAPTURES.nodeport.hex);
    expect(np.status).toBe(201);
    expect((np.json['spec'] as { ports: unknown[] }).ports).toEqual([{ name: '80-8080', protocol: 'TCP', port: 80, targetPort: 8080, nodePort: 30080 }]);
    const ns = await postProtobuf('/api/v1/namespaces', KUBECTL_CAPTURES.namespace.hex);
    expect(ns.status).toBe(201);
    expect(ns.json).toMatchObject({ kind: 'Namespace', metadata: { name: 'team-a' }, status: { phase: 'Active' } });
  });

  it('an update may be protobuf too: PUT of an Endpoints body', async () => {
    const created = await registry.create('endpoints', 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'db' } });
    if (!created.ok) throw new Error(created.error.message);
    const rv = (created.value as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? '';
    // Without a resourceVersion the update is unconditional, as a JSON body's is.
    const unconditional = await call('PUT', '/api/v1/namespaces/default/endpoints/db', hexBytes(PROTOC_FIXTURES.endpoints.hex), { 'Content-Type': PROTOBUF_MEDIA_TYPE });
    expect(unconditional.status, JSON.stringify(unconditional.json)).toBe(200);
    const rv2 = (unconditional.json['metadata'] as { resourceVersion?: string }).resourceVersion ?? '';
    expect(Number(rv2)).toBeGreaterThan(Number(rv));
    await expectConditional(rv2);
  });

  it('a protobuf update carries its resourceVersion: a stale one is a conflict', async () => {
    const created = await registry.create('endpoints', 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'db' } });
    if (!created.ok) throw new Error(created.error.message);
    const rv = (created.value as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? '';
    await expectConditional(rv);
    const again = await call('PUT', '/api/v1/namespaces/default/endpoints/db', protobufWithResourceVersion(rv), { 'Content-Type': PROTOBUF_MEDIA_TYPE });
    expect(again.status).toBe(409);
  });

  /** The fixture's Endpoints with a second metadata message appended, which merges into the first: metadata {resourceVersion: rv}. */
  function protobufWithResourceVersion(rv: string): Uint8Array {
    // The envelope is rebuilt around the longer raw.
    const envelope = Buffer.from(PROTOC_FIXTURES.endpoints.hex, 'hex');
    const typeMetaEnd = 4 + 2 + (envelope[5] ?? 0);
    const raw = Buffer.concat([envelope.subarray(typeMetaEnd + 2), Buffer.from([0x0a, rv.length + 2, 0x32, rv.length]), Buffer.from(rv)]);
    expect(envelope[typeMetaEnd + 1]).toBe(raw.length - rv.length - 4);
    return new Uint8Array(Buffer.concat([envelope.subarray(0, typeMetaEnd), Buffer.from([0x12, (raw.length & 0x7f) | 0x80, raw.length >> 7]), raw]));
  }

  /** A PUT of the fixture with resourceVersion `rv` (the stored one) updates the object to the fixture's subsets. */
  async function expectConditional(rv: string): Promise<void> {
    const r = await call('PUT', '/api/v1/namespaces/default/endpoints/db', protobufWithResourceVersion(rv), { 'Content-Type': PROTOBUF_MEDIA_TYPE });
    expect(r.status, JSON.stringify(r.json)).toBe(200);
    expect(r.json['subsets']).toEqual([
      {
        addresses: [{ ip: '10.244.0.5', nodeName: 'node-1', targetRef: { kind: 'Pod', namespace: 'default', name: 'db-0', uid: 'u-1' } }],
        notReadyAddresses: [{ ip: '10.244.0.6', hostname: 'db-1' }],
        ports: [{ name: 'pg', port: 5432, protocol: 'TCP', appProtocol: 'postgresql' }],
      },
    ]);
  }

  it("kubectl debug node's Pod body creates the Pod with its containers and volumes kept, defaulted as a JSON Pod is", async () => {
    const r = await postProtobuf('/api/v1/namespaces/default/pods', DEBUG_POD_HEX);
    expect(r.status).toBe(201);
    expect(r.json['spec']).toMatchObject({
      volumes: [{ name: 'host-root', hostPath: { path: '/' } }],
      containers: [{ name: 'debugger', image: 'busybox', volumeMounts: [{ name: 'host-root', mountPath: '/host' }] }],
      nodeName: 'node-1',
      hostNetwork: true,
      dnsPolicy: 'ClusterFirst',
      enableServiceLinks: true,
    });
  });

  it('a malformed body is a 400 before anything is written; dryRun is refused as for JSON', async () => {
    const cut = KUBECTL_CAPTURES.clusterip.hex.slice(0, 40);
    const bad = await postProtobuf(SERVICES, cut);
    expect(bad.status).toBe(400);
    expect(bad.json).toMatchObject({ reason: 'BadRequest', message: `the object provided is unrecognized (must be of type Service): unexpected EOF (${cut})` });
    const dry = await postProtobuf(`${SERVICES}?dryRun=All`, KUBECTL_CAPTURES.clusterip.hex);
    expect(dry.status).toBe(400);
    expect(dry.json['message']).toBe('dryRun is not supported by this server');
    expect((await registry.get('services', 'default', 'web')).ok).toBe(false);
  });
});

describe('media types', () => {
  it('a YAML body is a 415 naming JSON and protobuf', async () => {
    const r = await call('POST', SERVICES, 'apiVersion: v1\nkind: Service\n', { 'Content-Type': 'application/yaml' });
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'the body of the request was in an unknown format - accepted media types include: application/json, application/vnd.kubernetes.protobuf',
      reason: 'UnsupportedMediaType',
      code: 415,
    });
  });

  it('an Accept of protobuf alone is a 406 naming JSON, before the body is read or the object looked up', async () => {
    const expected = {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'only the following media types are accepted: application/json',
      reason: 'NotAcceptable',
      code: 406,
    };
    const created = await postProtobuf(SERVICES, KUBECTL_CAPTURES.clusterip.hex, PROTOBUF_MEDIA_TYPE);
    expect(created.status).toBe(406);
    expect(created.json).toEqual(expected);
    expect((await registry.get('services', 'default', 'web')).ok).toBe(false);
    const missing = await call('GET', `${SERVICES}/missing`, undefined, { Accept: PROTOBUF_MEDIA_TYPE });
    expect(missing.json).toEqual(expected);
    expect((await call('GET', SERVICES, undefined, { Accept: 'application/yaml' })).status).toBe(406);
    expect((await call('GET', `${SERVICES}?watch=true&timeoutSeconds=1`, undefined, { Accept: 'application/json;stream=other' })).status).toBe(406);
  });

  it('JSON anywhere in the Accept list, or a wildcard, is answered in JSON', async () => {
    for (const accept of [CLIENT_GO_ACCEPT, 'application/yaml, */*', 'application/*', 'application/json;as=Table;v=v1;g=meta.k8s.io,application/json']) {
      const r = await call('GET', SERVICES, undefined, { Accept: accept });
      expect(r.status, accept).toBe(200);
      expect(r.json['kind'], accept).toBe('ServiceList');
    }
  });
});

describe('deleting with a protobuf DeleteOptions body', () => {
  it("kubectl drain's body (gracePeriodSeconds 5) deletes the object", async () => {
    expect((await postProtobuf(SERVICES, KUBECTL_CAPTURES.clusterip.hex)).status).toBe(201);
    const r = await call('DELETE', `${SERVICES}/web`, hexBytes(DRAIN_DELETE_OPTIONS_HEX), { 'Content-Type': PROTOBUF_MEDIA_TYPE, Accept: CLIENT_GO_ACCEPT });
    expect(r.status).toBe(200);
    expect((await registry.get('services', 'default', 'web')).ok).toBe(false);
  });

  it('a body that is not a DeleteOptions is a 500 with no reason, as a plain Go error reaches the client', async () => {
    expect((await postProtobuf(SERVICES, KUBECTL_CAPTURES.clusterip.hex)).status).toBe(201);
    const r = await call('DELETE', `${SERVICES}/web`, hexBytes(KUBECTL_CAPTURES.namespace.hex), { 'Content-Type': PROTOBUF_MEDIA_TYPE });
    expect(r.status).toBe(500);
    expect(r.json).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'no kind "Namespace" is registered for version "v1" in scheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27"',
      code: 500,
    });
    expect((await registry.get('services', 'default', 'web')).ok).toBe(true);
  });
});

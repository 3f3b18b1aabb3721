// INV-API-FUZZ: generated and mutated requests (methods, paths, query parameters, content
// types, bodies, tokens) sent to a real server on 127.0.0.1 never get a 5xx, and never crash
// it; every answer of 400 or more is a Status whose code is the HTTP status; and a refused
// request leaves every stored key and value as it was. About 10,000 requests in all, whatever
// FC_NUM_RUNS is (each run sends 10,000 / numRuns of them), within a time limit.
import { request } from 'node:http';
import { fc } from '@fast-check/vitest';
import { apiBodyArb, apiContentTypeArb, apiQueryArb } from '@kubesvc/testkit';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openRegistry, type Registry } from '../registry/registry.js';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { startApiServer, type ApiServer } from './server.js';

const TOKEN = 'fuzz-token';
const TOTAL_REQUESTS = 10_000;
// On a quiet machine the 10,000 take about 30 s; a loaded one stops at the time limit.
const TIME_LIMIT_MS = 100_000;

let store: Store;
let registry: Registry;
let server: ApiServer;

beforeAll(async () => {
  store = openMemoryStore();
  const opened = await openRegistry({ store, clock: virtualClock(Date.UTC(2025, 0, 1)), seed: 5, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  await registry.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { app: 'web' } }, spec: { ports: [{ port: 80 }] } });
  server = await startApiServer({ registry, token: TOKEN });
});

afterAll(async () => {
  await server?.close();
  await store?.close();
});

const RESOURCES = ['services', 'endpoints', 'pods', 'events', 'namespaces', 'endpointslices', 'nodes', 'widgets', ''];
const segment = fc.oneof(fc.constantFrom('api', 'apis', 'v1', 'namespaces', 'default', 'kube-system', 'web', 'status', 'finalize', 'discovery.k8s.io', '..', '%2F', '%', ...RESOURCES), fc.string({ maxLength: 12 }));
const validPath = fc.constantFrom(
  '/api/v1/namespaces/default/services',
  '/api/v1/namespaces/default/services/web',
  '/api/v1/namespaces/default/services/web/status',
  '/api/v1/namespaces/default/pods/p',
  '/api/v1/namespaces/default/pods/p/status',
  '/api/v1/namespaces/default/endpoints',
  '/api/v1/namespaces/nope/services',
  '/api/v1/services',
  '/api/v1/namespaces',
  '/api/v1/namespaces/default',
  '/apis/discovery.k8s.io/v1/namespaces/default/endpointslices',
  '/api/v1/namespaces/default/events',
);
const pathArb = fc.oneof(
  { weight: 3, arbitrary: validPath },
  { weight: 2, arbitrary: fc.array(segment, { maxLength: 7 }).map((s) => `/${s.join('/')}`) },
  { weight: 1, arbitrary: fc.tuple(validPath, fc.string({ maxLength: 8 })).map(([p, s]) => `${p}${encodeURI(s)}`) },
);
interface FuzzRequest {
  readonly method: string;
  readonly path: string;
  readonly contentType: string;
  readonly body: string;
  readonly token: 'right' | 'none' | 'wrong';
}

const requestArb: fc.Arbitrary<FuzzRequest> = fc.record({
  method: fc.constantFrom('GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'),
  path: fc.tuple(pathArb, apiQueryArb).map(([p, q]) => p + q),
  contentType: apiContentTypeArb,
  body: apiBodyArb,
  token: fc.constantFrom('right', 'right', 'right', 'none', 'wrong'),
});

/** One request on its own connection (node:http, no pooling), bounded by a 10 s timeout. */
function send(method: string, url: string, headers: Record<string, string>, body: string | undefined): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    // Node's client frames no body for DELETE or OPTIONS unless told its length; the bytes would
    // then follow a complete request as a second, unparseable one.
    const framed = body === undefined ? headers : { ...headers, 'Content-Length': String(Buffer.byteLength(body)) };
    const req = request(url, { method, headers: framed, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within 10 s: ${method} ${url}`)));
    req.on('error', reject);
    req.end(body);
  });
}

async function snapshot(): Promise<string> {
  const { kvs } = await store.range('/');
  return JSON.stringify(kvs.map((kv) => [kv.key, kv.value]));
}

// A plain `it`: @fast-check/vitest's `test` would run this whole body as a property, many times.
it('INV-API-FUZZ: garbage requests get < 500 with a Status, never a crash, and a refused one changes nothing stored', { timeout: TIME_LIMIT_MS + 60_000 }, async () => {
  const numRuns = fc.readConfigureGlobal().numRuns ?? 100;
  const batch = Math.max(1, Math.ceil(TOTAL_REQUESTS / numRuns));
  let sent = 0;
  let stored = await snapshot();
  // Past the deadline the remaining runs send nothing, so the test ends in bounded time.
  const deadline = Date.now() + TIME_LIMIT_MS;
  await fc.assert(
    fc.asyncProperty(fc.array(requestArb, { minLength: batch, maxLength: batch }), async (requests) => {
      for (const r of requests) {
        if (Date.now() > deadline) return;
        const before = stored;
        const headers: Record<string, string> = {};
        if (r.token !== 'none') headers['Authorization'] = `Bearer ${r.token === 'right' ? TOKEN : 'nope'}`;
        if (r.contentType !== '') headers['Content-Type'] = r.contentType;
        const hasBody = r.method !== 'GET' && r.method !== 'HEAD';
        const { status, text } = await send(r.method, `${server.url}${r.path}`, headers, hasBody ? r.body : undefined);
        const res = { status };
        sent++;
        expect(res.status, `${r.method} ${r.path}: ${text}`).toBeLessThan(500);
        if (res.status >= 400 && r.method !== 'HEAD') {
          const status = JSON.parse(text) as { kind?: string; code?: number };
          expect(status.kind).toBe('Status');
          expect(status.code).toBe(res.status);
        }
        stored = await snapshot();
        if (res.status >= 400) expect(stored, `${r.method} ${r.path} ${r.body}`).toBe(before);
      }
    }),
    { interruptAfterTimeLimit: TIME_LIMIT_MS, markInterruptAsFailure: false, endOnFailure: true },
  );
  expect(sent).toBeGreaterThan(0);
  if (sent < TOTAL_REQUESTS) console.info(`INV-API-FUZZ: ${sent} of ${TOTAL_REQUESTS} requests within the time limit`);
  // The server still answers.
  expect((await fetch(`${server.url}/healthz`)).status).toBe(200);
});

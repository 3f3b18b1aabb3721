// The handler behind a real HTTP server (startExplorerServer on 127.0.0.1, port 0), asked with
// fetch: the page's files without the token, the data only with it, the model pushed again as a
// server-sent event after a change, and the trace's query passed through.
import { afterEach, beforeAll, expect, it } from 'vitest';
import type { ExplorerModel, TraceRequest } from '../explorer-model.js';
import { createExplorerHandler, type ExplorerSource } from './explorer-handler.js';
import { startExplorerServer, type ExplorerServer } from './explorer-server.js';
import { ensureUiBuilt } from './ui-build.js';

const TOKEN = 'a-token';
const servers: ExplorerServer[] = [];

beforeAll(async () => {
  expect(await ensureUiBuilt()).toBe(true);
}, 120_000);

afterEach(async () => {
  for (const s of servers.splice(0)) await s.close();
});

function modelOf(generation: number): ExplorerModel {
  return {
    mode: 'live',
    source: 'test',
    generation,
    servicesTable: { columns: [], rows: [] },
    services: [],
    rules: { nodes: [], edges: [] },
    allocation: { ranges: [], repairEvents: [], fromStoredSnapshot: false },
  };
}

async function serve(): Promise<{ server: ExplorerServer; change: () => void; traced: TraceRequest[] }> {
  let generation = 1;
  const listeners = new Set<() => void>();
  const traced: TraceRequest[] = [];
  const source: ExplorerSource = {
    model: () => modelOf(generation),
    subscribe: (l) => {
      listeners.add(l);
      return () => listeners.delete(l);
    },
    trace: (request) => {
      traced.push(request);
      return { ok: false, error: { _tag: 'ErrExplorerTrace', message: 'none' } };
    },
  };
  const server = await startExplorerServer({ handler: createExplorerHandler({ source, coalesceMs: 10 }), token: TOKEN, port: 0 });
  servers.push(server);
  return {
    server,
    change: () => {
      generation++;
      for (const l of listeners) l();
    },
    traced,
  };
}

const auth = { Authorization: `Bearer ${TOKEN}` };

it('serves index.html and the hashed assets it names without the token, and nothing outside the bundle', async () => {
  const { server } = await serve();
  const page = await fetch(`${server.url}/ui/`);
  expect(page.status).toBe(200);
  const html = await page.text();
  const script = /src="\.\/(assets\/[^"]+\.js)"/.exec(html)?.[1];
  expect(script).toBeDefined();
  const js = await fetch(`${server.url}/ui/${script ?? ''}`);
  expect(js.status).toBe(200);
  expect(js.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
  expect((await fetch(`${server.url}/ui/../package.json`)).status).toBe(404);
  expect((await fetch(`${server.url}/ui/assets/%2e%2e/%2e%2e/package.json`)).status).toBe(404);
  expect((await fetch(`${server.url}/`, { redirect: 'manual' })).headers.get('location')).toBe('/ui/');
});

it('answers the data paths only with the bearer token, and refuses writes', async () => {
  const { server } = await serve();
  expect((await fetch(`${server.url}/ui/api/model`)).status).toBe(401);
  expect((await fetch(`${server.url}/ui/api/model`, { headers: { Authorization: 'Bearer wrong-token' } })).status).toBe(401);
  const model = (await (await fetch(`${server.url}/ui/api/model`, { headers: auth })).json()) as ExplorerModel;
  expect(model.generation).toBe(1);
  expect((await fetch(`${server.url}/ui/api/model`, { method: 'POST', headers: auth })).status).toBe(405);
});

it('streams the model, and again after a change', async () => {
  const { server, change } = await serve();
  const controller = new AbortController();
  const res = await fetch(`${server.url}/ui/api/events`, { headers: auth, signal: controller.signal });
  expect(res.headers.get('content-type')).toBe('text/event-stream');
  const reader = (res.body as ReadableStream<Uint8Array>).getReader();
  const decoder = new TextDecoder();
  const next = async (): Promise<string> => decoder.decode((await reader.read()).value, { stream: true });
  let text = '';
  const generations = (): number[] => [...text.matchAll(/^data: (.*)$/gm)].map((m) => (JSON.parse(m[1] ?? '{}') as ExplorerModel).generation);
  while (generations().length < 1) text += await next();
  change();
  while (generations().length < 2) text += await next();
  expect(generations()).toEqual([1, 2]);
  expect(text).toMatch(/^event: model$/m);
  controller.abort();
});

it('passes the trace form to the source, and refuses an unknown protocol', async () => {
  const { server, traced } = await serve();
  const ok = await fetch(`${server.url}/ui/api/trace?source=10.244.0.2&destination=10.96.0.1%3A443&protocol=udp`, { headers: auth });
  expect(ok.status).toBe(400);
  expect(traced).toEqual([{ source: '10.244.0.2', destination: '10.96.0.1:443', protocol: 'udp' }]);
  const bad = await fetch(`${server.url}/ui/api/trace?destination=10.96.0.1&protocol=gre`, { headers: auth });
  expect(bad.status).toBe(400);
  expect(await bad.json()).toEqual({ ok: false, error: { _tag: 'ErrExplorerTrace', message: 'protocol "gre": one of tcp, udp, sctp, icmp' } });
  expect(traced).toHaveLength(1);
});

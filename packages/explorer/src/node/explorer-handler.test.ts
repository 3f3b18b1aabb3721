// The handler behind a real HTTP server (startExplorerServer on 127.0.0.1, port 0), asked with
// fetch: the page's files without the token, the data only with it, the model pushed again as a
// server-sent event after a change, the trace's query passed through, and `node=NAME` and the
// node matrix handed to the source (404 for a Node it does not have, or when it has none).
import { err, ok } from '@kubesvc/api-types';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ExplorerModel, NodeMatrixRequest, TraceRequest } from '../explorer-model.js';
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

describe('as a Node of the source', () => {
  /** A source with Nodes `a` and `b`: its model as a Node names the Node in `source`. */
  async function serveNodes(): Promise<{ server: ExplorerServer; matrices: NodeMatrixRequest[]; traced: TraceRequest[] }> {
    const matrices: NodeMatrixRequest[] = [];
    const traced: TraceRequest[] = [];
    const unknown = (node: string) => err({ _tag: 'ErrExplorerNode' as const, message: `node ${JSON.stringify(node)}: no such Node (its Nodes: a, b)` });
    const source: ExplorerSource = {
      model: () => modelOf(1),
      subscribe: () => () => undefined,
      trace: (request) => {
        traced.push(request);
        return request.node === 'x' ? unknown(request.node) : ok([]);
      },
      modelAsNode: (node) => (node === 'a' || node === 'b' ? ok({ ...modelOf(1), node }) : unknown(node)),
      matrix: (request) => {
        matrices.push(request);
        return ok([{ node: 'a', zone: 'z', destination: '10.96.0.1:80', outcomes: [] }]);
      },
    };
    const server = await startExplorerServer({ handler: createExplorerHandler({ source, coalesceMs: 10 }), token: TOKEN, port: 0 });
    servers.push(server);
    return { server, matrices, traced };
  }

  const get = async (server: ExplorerServer, path: string): Promise<{ status: number; body: unknown }> => {
    const res = await fetch(`${server.url}/ui/api/${path}`, { headers: auth });
    return { status: res.status, body: await res.json() };
  };

  it('node=NAME asks the source for the model as that Node; node= is the model without one', async () => {
    const { server } = await serveNodes();
    expect(((await get(server, 'model?node=b')).body as ExplorerModel).node).toBe('b');
    expect(await get(server, 'model?node=')).toEqual({ status: 200, body: modelOf(1) });
    expect(await get(server, 'model?node=x')).toEqual({ status: 404, body: { ok: false, error: { _tag: 'ErrExplorerNode', message: 'node "x": no such Node (its Nodes: a, b)' } } });
  });

  it('streams the model as the Node, and refuses an unknown Node before the stream opens', async () => {
    const { server } = await serveNodes();
    const controller = new AbortController();
    const res = await fetch(`${server.url}/ui/api/events?node=a`, { headers: auth, signal: controller.signal });
    expect(res.headers.get('content-type')).toBe('text/event-stream');
    const reader = (res.body as ReadableStream<Uint8Array>).getReader();
    const decoder = new TextDecoder();
    let text = '';
    while (!/^data: .*\n\n/m.test(text)) text += decoder.decode((await reader.read()).value, { stream: true });
    expect((JSON.parse(/^data: (.*)$/m.exec(text)?.[1] ?? '{}') as ExplorerModel).node).toBe('a');
    controller.abort();
    expect((await get(server, 'events?node=x')).status).toBe(404);
  });

  it("passes node=NAME into the trace, and answers the source's unknown Node with a 404", async () => {
    const { server, traced } = await serveNodes();
    expect((await get(server, 'trace?destination=10.96.0.1%3A80&node=b')).status).toBe(200);
    expect((await get(server, 'trace?destination=10.96.0.1%3A80&node=x')).status).toBe(404);
    expect((await get(server, 'trace?destination=10.96.0.1%3A80&node=')).status).toBe(200);
    expect(traced).toEqual([
      { source: '', destination: '10.96.0.1:80', protocol: 'tcp', node: 'b' },
      { source: '', destination: '10.96.0.1:80', protocol: 'tcp', node: 'x' },
      { source: '', destination: '10.96.0.1:80', protocol: 'tcp' },
    ]);
  });

  it('passes the matrix query to the source, and refuses an unknown protocol', async () => {
    const { server, matrices } = await serveNodes();
    expect((await get(server, 'matrix?destination=%3A30080&protocol=udp&nodePort=true&source=203.0.113.9')).status).toBe(200);
    expect((await get(server, 'matrix?destination=10.96.0.1%3A80')).status).toBe(200);
    expect((await get(server, 'matrix?destination=10.96.0.1%3A80&protocol=gre')).status).toBe(400);
    expect(matrices).toEqual([
      { source: '203.0.113.9', destination: ':30080', protocol: 'udp', nodePort: true },
      { source: '', destination: '10.96.0.1:80', protocol: 'tcp', nodePort: false },
    ]);
  });

  it('a source without Nodes answers node=NAME and the matrix with a 404 saying it has none', async () => {
    const { server } = await serve();
    expect(await get(server, 'model?node=a')).toEqual({ status: 404, body: { ok: false, error: { _tag: 'ErrExplorerNode', message: 'node "a": this source has no Nodes' } } });
    expect(await get(server, 'events?node=a')).toEqual({ status: 404, body: { ok: false, error: { _tag: 'ErrExplorerNode', message: 'node "a": this source has no Nodes' } } });
    expect(await get(server, 'matrix?destination=10.96.0.1%3A80')).toEqual({
      status: 404,
      body: { ok: false, error: { _tag: 'ErrExplorerNode', message: 'the node matrix: this source has no Nodes' } },
    });
  });
});

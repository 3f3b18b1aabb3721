// /ui/api/replay behind a real HTTP server (127.0.0.1, port 0) with a fake source: the query is
// checked (NAMESPACE/POD, IP:PORT, tcp only, count 1..200, default 20) before the source sees
// it, the source's answer and its refusal pass through, and a source without replay says so
// with a 404.
import { err, ok } from '@kubesvc/api-types';
import { afterEach, beforeAll, expect, it } from 'vitest';
import type { ExplorerModel, ReplayRequest } from '../explorer-model.js';
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

const model: ExplorerModel = {
  mode: 'live',
  source: 'test',
  generation: 1,
  servicesTable: { columns: [], rows: [] },
  services: [],
  rules: { nodes: [], edges: [] },
  allocation: { ranges: [], repairEvents: [], fromStoredSnapshot: false },
};

async function serve(withReplay: boolean): Promise<{ server: ExplorerServer; asked: ReplayRequest[] }> {
  const asked: ReplayRequest[] = [];
  const source: ExplorerSource = {
    model: () => model,
    subscribe: () => () => undefined,
    trace: () => ok([]),
    ...(withReplay
      ? {
          replay: (request: ReplayRequest) => {
            asked.push(request);
            if (request.from === 'default/gone') return err({ _tag: 'ErrExplorerReplay' as const, message: 'pod "default/gone" is not a running network namespace' });
            return ok({ from: request.from, destination: request.destination, count: request.count, answers: [{ pod: 'web-a', count: request.count - 1 }], failures: 1, failureReasons: ['curl exit 28'] });
          },
        }
      : {}),
  };
  const server = await startExplorerServer({ handler: createExplorerHandler({ source }), token: TOKEN, port: 0 });
  servers.push(server);
  return { server, asked };
}

const get = async (server: ExplorerServer, query: string): Promise<{ status: number; body: unknown }> => {
  const res = await fetch(`${server.url}/ui/api/replay?${query}`, { headers: { Authorization: `Bearer ${TOKEN}` } });
  return { status: res.status, body: await res.json() };
};

it('hands a good query to the source (count 20 when absent) and answers its counts', async () => {
  const { server, asked } = await serve(true);
  expect(await get(server, 'from=default%2Fclient&destination=10.96.0.10%3A80')).toEqual({
    status: 200,
    body: { ok: true, value: { from: 'default/client', destination: '10.96.0.10:80', count: 20, answers: [{ pod: 'web-a', count: 19 }], failures: 1, failureReasons: ['curl exit 28'] } },
  });
  expect((await get(server, 'from=ns1%2Fc&destination=web.ns1%3A8080&protocol=tcp&count=200')).status).toBe(200);
  expect((await get(server, 'from=ns1%2Fc&destination=%5Bfd00%3A%3A1%5D%3A80&count=1')).status).toBe(200);
  expect(asked).toEqual([
    { from: 'default/client', destination: '10.96.0.10:80', protocol: 'tcp', count: 20 },
    { from: 'ns1/c', destination: 'web.ns1:8080', protocol: 'tcp', count: 200 },
    { from: 'ns1/c', destination: '[fd00::1]:80', protocol: 'tcp', count: 1 },
  ]);
});

it('refuses a bad query with a 400 before the source sees it: the pod, the destination, udp, the count', async () => {
  const { server, asked } = await serve(true);
  const refusals: [string, string][] = [
    ['from=client&destination=10.96.0.10%3A80', 'from "client": NAMESPACE/POD'],
    ['from=default%2Fclient&destination=10.96.0.10', 'destination "10.96.0.10": IP:PORT'],
    ['from=default%2Fclient&destination=10.96.0.10%3A70000', 'destination "10.96.0.10:70000": IP:PORT'],
    ['from=default%2Fclient&destination=10.96.0.10%3A53&protocol=udp', 'protocol "udp": a replay sends HTTP requests over tcp only'],
    ['from=default%2Fclient&destination=10.96.0.10%3A80&count=0', 'count "0": 1 to 200'],
    ['from=default%2Fclient&destination=10.96.0.10%3A80&count=201', 'count "201": 1 to 200'],
    ['from=default%2Fclient&destination=10.96.0.10%3A80&count=2.5', 'count "2.5": 1 to 200'],
  ];
  for (const [query, message] of refusals) {
    expect(await get(server, query)).toEqual({ status: 400, body: { ok: false, error: { _tag: 'ErrExplorerReplay', message } } });
  }
  expect(asked).toEqual([]);
});

it("passes the source's refusal as a 400", async () => {
  const { server } = await serve(true);
  expect(await get(server, 'from=default%2Fgone&destination=10.96.0.10%3A80')).toEqual({
    status: 400,
    body: { ok: false, error: { _tag: 'ErrExplorerReplay', message: 'pod "default/gone" is not a running network namespace' } },
  });
});

it('a source without replay answers 404: not available', async () => {
  const { server } = await serve(false);
  expect(await get(server, 'from=default%2Fclient&destination=10.96.0.10%3A80')).toEqual({
    status: 404,
    body: { ok: false, error: { _tag: 'ErrExplorerUnavailable', message: 'replay: this source runs no pod network (kubesvc up --dataplane netns sends real requests)' } },
  });
});

// Handlers mounted beside the API (the explorer's /ui/): their public paths answer without the
// token, every other path below the prefix needs it, the prefix without its slash redirects,
// paths outside the prefix still reach the API, and close() reaches the extension first.
import { afterEach, beforeEach, expect, it } from 'vitest';
import { openRegistry, type Registry } from '../registry/registry.js';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { startApiServer, type ApiServer, type ApiServerExtension } from './server.js';

const TOKEN = 'test-token';
let store: Store;
let registry: Registry;
let server: ApiServer | undefined;

beforeEach(async () => {
  store = openMemoryStore();
  const opened = await openRegistry({ store, clock: virtualClock(Date.UTC(2025, 0, 1)), seed: 7, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await store.close();
});

function extension(log: string[]): ApiServerExtension {
  return {
    prefix: '/ui/',
    isPublic: (path) => !path.startsWith('/ui/api/'),
    handle: async (req, res, url) => {
      log.push(`${req.method ?? ''} ${url.pathname}`);
      res.writeHead(200, { 'Content-Type': 'text/plain' });
      res.end(`handled ${url.pathname}`);
    },
    close: () => log.push('close'),
  };
}

it('serves public paths without the token, the rest only with it, and leaves the API to the API', async () => {
  const log: string[] = [];
  server = await startApiServer({ registry, token: TOKEN, extensions: [extension(log)] });
  const get = (path: string, token?: string) => fetch(`${server?.url ?? ''}${path}`, { redirect: 'manual', headers: token === undefined ? {} : { Authorization: `Bearer ${token}` } });

  const page = await get('/ui/');
  expect([page.status, await page.text()]).toEqual([200, 'handled /ui/']);
  const redirect = await get('/ui');
  expect([redirect.status, redirect.headers.get('location')]).toEqual([301, '/ui/']);
  const refused = await get('/ui/api/model');
  expect(refused.status).toBe(403);
  expect(((await refused.json()) as { message: string }).message).toBe('forbidden: User "system:anonymous" cannot get path "/ui/api/model"');
  expect((await get('/ui/api/model', 'wrong')).status).toBe(401);
  expect((await get('/ui/api/model', TOKEN)).status).toBe(200);
  expect((await get('/api/v1/namespaces')).status).toBe(403);
  expect((await get('/api/v1/namespaces', TOKEN)).status).toBe(200);
  expect(log).toEqual(['GET /ui/', 'GET /ui/api/model']);

  await server.close();
  server = undefined;
  expect(log).toEqual(['GET /ui/', 'GET /ui/api/model', 'close']);
});

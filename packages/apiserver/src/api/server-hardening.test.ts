// Hostile requests against a real server on 127.0.0.1: dot segments in the path, a body over
// the limit written by a raw client, the bearer scheme's case, a watch's timeoutSeconds of zero
// or below. Each request goes out as written (node:http and net, not fetch, whose URL parser
// would resolve the dot segments before they left).
import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRegistry, type Registry } from '../registry/registry.js';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { startApiServer, type ApiServer, type ApiServerOptions } from './server.js';

const TOKEN = 'hardening-token';

let store: Store;
let registry: Registry;
let server: ApiServer | undefined;

beforeEach(async () => {
  store = openMemoryStore();
  const opened = await openRegistry({ store, clock: virtualClock(Date.UTC(2025, 0, 1)), seed: 3, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  for (const name of ['default', 'victim']) await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  for (const name of ['a', 'b']) {
    await registry.create('services', 'victim', { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }] } });
  }
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  await store.close();
});

async function start(extra: Partial<ApiServerOptions> = {}): Promise<ApiServer> {
  server = await startApiServer({ registry, token: TOKEN, logger: { log: () => undefined }, ...extra });
  return server;
}

interface Answer {
  readonly status: number;
  readonly text: string;
  readonly json: Record<string, unknown>;
}

/** One request with the path exactly as given, on its own connection, bounded by 10 s. */
function send(method: string, path: string, init: { headers?: Record<string, string>; body?: string } = {}): Promise<Answer> {
  const url = new URL(server?.url ?? '');
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { Authorization: `Bearer ${TOKEN}`, ...init.headers };
    if (init.body !== undefined) headers['Content-Length'] = String(Buffer.byteLength(init.body));
    const req = request({ host: url.hostname, port: url.port, method, path, headers, agent: false, timeout: 10_000 }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let json: Record<string, unknown> = {};
        try {
          json = JSON.parse(text) as Record<string, unknown>;
        } catch {
          // not JSON
        }
        resolve({ status: res.statusCode ?? 0, text, json });
      });
    });
    req.on('timeout', () => req.destroy(new Error(`no answer to ${method} ${path} within 10 s`)));
    req.on('error', reject);
    req.end(init.body);
  });
}

async function serviceNames(namespace: string): Promise<string[]> {
  const listed = await registry.list('services', namespace);
  if (!listed.ok) throw new Error(listed.error.message);
  return listed.value.items.map((s) => s.metadata?.name ?? '').sort();
}

async function namespaceExists(name: string): Promise<boolean> {
  return (await registry.get('namespaces', '', name)).ok;
}

const badRequest = (message: string) => ({ kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'BadRequest', code: 400 });
const notFound = { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: 'the server could not find the requested resource', reason: 'NotFound', details: {}, code: 404 };

describe('dot segments are routed as written, never resolved', () => {
  beforeEach(async () => {
    await start();
  });

  it('a name of .. (written %2e%2e) is a BadRequest and deletes nothing, not the namespace above it', async () => {
    for (const written of ['%2e%2e', '%2E%2E', '.%2e', '..']) {
      const r = await send('DELETE', `/api/v1/namespaces/victim/services/${written}`);
      expect(r.status, written).toBe(400);
      expect(r.json, written).toEqual(badRequest(`Name parameter invalid: "..": may not be '..'`));
    }
    expect(await namespaceExists('victim')).toBe(true);
    expect(await serviceNames('victim')).toEqual(['a', 'b']);
  });

  it('a name of . is a BadRequest for every verb on an item', async () => {
    for (const method of ['GET', 'DELETE', 'PUT', 'PATCH']) {
      const body = method === 'PUT' ? JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: '.' }, spec: { ports: [{ port: 80 }] } }) : method === 'PATCH' ? '{}' : undefined;
      const contentType = method === 'PATCH' ? 'application/merge-patch+json' : 'application/json';
      const r = await send(method, '/api/v1/namespaces/victim/services/%2e', { headers: { 'Content-Type': contentType }, ...(body === undefined ? {} : { body }) });
      expect(r.json, method).toEqual(badRequest(`Name parameter invalid: ".": may not be '.'`));
    }
    const ns = await send('DELETE', '/api/v1/namespaces/%2e%2e');
    expect(ns.json).toEqual(badRequest(`Name parameter invalid: "..": may not be '..'`));
    expect(await serviceNames('victim')).toEqual(['a', 'b']);
  });

  it('a trailing .. after a name is an unknown subresource (404), not the collection', async () => {
    for (const path of ['/api/v1/namespaces/victim/services/a/..', '/api/v1/namespaces/victim/services/a/%2e%2e', '/api/v1/namespaces/victim/services/a/.']) {
      const r = await send('DELETE', path);
      expect(r.status, path).toBe(404);
      expect(r.json, path).toEqual(notFound);
    }
    expect(await serviceNames('victim')).toEqual(['a', 'b']);
    expect(await namespaceExists('victim')).toBe(true);
  });

  it('a name holding % is refused; an encoded slash splits the path as Go decodes it, so it names no item', async () => {
    const percent = await send('GET', '/api/v1/namespaces/victim/services/a%25b');
    expect(percent.json).toEqual(badRequest(`Name parameter invalid: "a%b": may not contain '%'`));
    const slash = await send('DELETE', '/api/v1/namespaces/victim/services/x%2F..');
    expect(slash.json).toEqual(notFound);
    expect(await serviceNames('victim')).toEqual(['a', 'b']);
  });

  it('a namespace of .. names no namespace: a deletecollection there removes nothing anywhere', async () => {
    const r = await send('DELETE', '/api/v1/namespaces/victim/../services');
    // The namespace segment is `victim`, the resource `..`: no such resource.
    expect(r.json).toEqual(notFound);
    const dotdot = await send('DELETE', '/api/v1/namespaces/%2e%2e/services');
    expect(dotdot.status).toBe(200);
    expect(await serviceNames('victim')).toEqual(['a', 'b']);
    expect(await namespaceExists('victim')).toBe(true);
  });

  it('a malformed percent escape is a 400 Status', async () => {
    const r = await send('GET', '/api/v1/namespaces/victim/services/a%zz');
    expect(r.json).toEqual(badRequest('malformed request URL'));
  });
});

describe('a collection delete on namespaces', () => {
  it('is 405 before the body or the options are read, and every namespace stays', async () => {
    await start();
    const refused = await send('DELETE', '/api/v1/namespaces?dryRun=All', { headers: { 'Content-Type': 'application/json' }, body: '{not json' });
    expect(refused.status).toBe(405);
    expect(refused.json).toMatchObject({ kind: 'Status', reason: 'MethodNotAllowed', code: 405 });
    expect(await namespaceExists('default')).toBe(true);
    expect(await namespaceExists('victim')).toBe(true);
  });

  it('is 405 even when the Accept header asks for what the server cannot write: no route, so no negotiation', async () => {
    await start();
    for (const [method, path] of [
      ['DELETE', '/api/v1/namespaces'],
      ['POST', '/api/v1/services'],
      ['DELETE', '/api/v1/namespaces/victim/services/a/status'],
    ] as const) {
      const r = await send(method, path, { headers: { Accept: 'text/html' } });
      expect([method, path, r.status, r.json['reason']]).toEqual([method, path, 405, 'MethodNotAllowed']);
    }
    // A routed method still negotiates first.
    const listed = await send('GET', '/api/v1/namespaces', { headers: { Accept: 'text/html' } });
    expect(listed.status).toBe(406);
  });
});

describe('the bearer scheme', () => {
  beforeEach(async () => {
    await start();
  });

  it('is matched in any case, as upstream lower-cases it; an unknown token is 401, and no token (empty, another scheme) is system:anonymous, 403', async () => {
    for (const scheme of ['bearer', 'BEARER', 'Bearer', 'bEaReR']) {
      const r = await send('GET', '/api/v1/namespaces/victim/services', { headers: { Authorization: `${scheme} ${TOKEN}` } });
      expect(r.status, scheme).toBe(200);
    }
    // upstream splits at single spaces: a second space leaves an empty token (none offered); a third part is ignored.
    expect((await send('GET', '/api/v1/namespaces/victim/services', { headers: { Authorization: `Bearer  ${TOKEN}` } })).status).toBe(403);
    expect((await send('GET', '/api/v1/namespaces/victim/services', { headers: { Authorization: `Bearer ${TOKEN} extra` } })).status).toBe(200);
    expect((await send('GET', '/api/v1/namespaces/victim/services', { headers: { Authorization: `Bearer ${TOKEN}x` } })).status).toBe(401);
    expect((await send('GET', '/api/v1/namespaces/victim/services', { headers: { Authorization: `Basic ${TOKEN}` } })).status).toBe(403);
    expect((await send('GET', '/api/v1/namespaces/victim/services', { headers: { Authorization: 'bearer' } })).status).toBe(403);
  });
});

/** Opens a watch and resolves with its status and body once the server ends the stream (or rejects after `boundMs`). */
function watchUntilEnd(path: string, boundMs: number): Promise<{ status: number; text: string }> {
  const url = new URL(server?.url ?? '');
  return new Promise((resolve, reject) => {
    const req = request({ host: url.hostname, port: url.port, method: 'GET', path, headers: { Authorization: `Bearer ${TOKEN}` }, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') });
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`the watch ${path} was still open after ${boundMs} ms`));
    }, boundMs);
    req.on('error', (e) => {
      clearTimeout(timer);
      reject(e);
    });
    req.end();
  });
}

describe('a watch always ends', () => {
  it('a negative timeoutSeconds ends the stream at once (upstream: a timer of negative length), after the headers', async () => {
    await start();
    const r = await watchUntilEnd('/api/v1/namespaces/victim/services?watch=true&timeoutSeconds=-5', 20_000);
    expect(r.status).toBe(200);
    expect(r.text).toBe('');
  });

  it('timeoutSeconds=0 or none runs for the minimum request timeout stretched by up to 2x, then ends', async () => {
    await start({ minRequestTimeoutSeconds: 1 });
    for (const query of ['watch=true&timeoutSeconds=0', 'watch=true']) {
      const r = await watchUntilEnd(`/api/v1/namespaces/victim/services?${query}`, 20_000);
      expect(r.status, query).toBe(200);
      // The current objects first, as ADDED, then the end.
      expect(r.text.trim().split('\n').map((l) => (JSON.parse(l) as { type: string; object: { metadata: { name: string } } }).object.metadata.name), query).toEqual(['a', 'b']);
    }
  });
});

/** An HTTP/1.1 chunked body's data. */
function dechunk(raw: string): string {
  let out = '';
  let at = 0;
  for (;;) {
    const eol = raw.indexOf('\r\n', at);
    const size = parseInt(raw.slice(at, eol), 16);
    if (!(size > 0)) return out;
    out += raw.slice(eol + 2, eol + 2 + size);
    at = eol + 2 + size + 2;
  }
}

describe('a body over the limit', () => {
  it('a raw client that writes 4 MiB reads the 413 Status, not a reset', async () => {
    await start();
    const url = new URL(server?.url ?? '');
    const size = 4 * 1024 * 1024;
    for (const declared of [true, false]) {
      // As curl does: the whole body is written (each write waited for) before the answer is
      // read. A server that closes while the client still writes makes the client's kernel
      // answer with a reset, which drops the answer unread.
      const socket = connect(Number(url.port), url.hostname);
      socket.pause();
      const closed = new Promise<void>((resolve) => socket.once('close', () => resolve()));
      const chunks: Buffer[] = [];
      socket.on('data', (c: Buffer) => chunks.push(c));
      let failure: Error | undefined;
      socket.on('error', (e) => {
        failure = e;
      });
      const write = (data: string | Buffer) => new Promise<void>((resolve) => socket.write(data, () => resolve()));
      const timer = setTimeout(() => socket.destroy(new Error('no answer within 20 s')), 20_000);
      try {
        const framing = declared ? `Content-Length: ${size}` : 'Transfer-Encoding: chunked';
        await write(`POST /api/v1/namespaces/victim/services HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${TOKEN}\r\nContent-Type: application/json\r\n${framing}\r\n\r\n`);
        const block = Buffer.alloc(64 * 1024, 0x20);
        for (let sent = 0; sent < size && failure === undefined && !socket.destroyed; sent += block.length) {
          await write(declared ? block : Buffer.concat([Buffer.from(`${block.length.toString(16)}\r\n`), block, Buffer.from('\r\n')]));
        }
        if (failure === undefined && !socket.destroyed) await write(declared ? '' : '0\r\n\r\n');
        socket.resume();
        await closed;
      } finally {
        clearTimeout(timer);
        socket.destroy();
      }
      const answer = Buffer.concat(chunks).toString('utf8');
      expect(failure?.message, `declared=${declared}; read: ${JSON.stringify(answer.slice(0, 120))}`).toBeUndefined();
      expect(answer, `declared=${declared}`).toMatch(/^HTTP\/1\.1 413 /);
      const head = answer.slice(0, answer.indexOf('\r\n\r\n'));
      const raw = answer.slice(head.length + 4);
      const body = /\r\ntransfer-encoding: chunked/i.test(head) ? dechunk(raw) : raw;
      expect(JSON.parse(body), `declared=${declared}`).toEqual({
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Failure',
        message: 'Request entity too large: limit is 3145728',
        reason: 'RequestEntityTooLarge',
        code: 413,
      });
    }
    expect(await serviceNames('victim')).toEqual(['a', 'b']);
  });
});

describe('deeply nested bodies', () => {
  /** A Service whose unknown field spec.x nests so that the whole body is `depth` levels deep. */
  const deepService = (name: string, depth: number) =>
    `{"apiVersion":"v1","kind":"Service","metadata":{"name":"${name}"},"spec":{"ports":[{"port":80}],"x":${'['.repeat(depth - 2)}${']'.repeat(depth - 2)}}}`;

  beforeEach(async () => {
    await start();
  });

  it('up to 10,000 levels decode as upstream: the unknown field is dropped with a warning, or refused under Strict', async () => {
    for (const depth of [1_900, 10_000]) {
      const created = await send('POST', '/api/v1/namespaces/victim/services', { headers: { 'Content-Type': 'application/json' }, body: deepService(`deep-${depth}`, depth) });
      expect(created.status, `depth ${depth}`).toBe(201);
      const got = await registry.get('services', 'victim', `deep-${depth}`);
      expect(got.ok && (got.value as { spec?: Record<string, unknown> }).spec?.['x']).toBe(undefined);
      const replaced = await send('PUT', `/api/v1/namespaces/victim/services/deep-${depth}`, { headers: { 'Content-Type': 'application/json' }, body: deepService(`deep-${depth}`, depth) });
      expect(replaced.status, `depth ${depth}`).toBe(200);
      const strict = await send('POST', '/api/v1/namespaces/victim/services?fieldValidation=Strict', { headers: { 'Content-Type': 'application/json' }, body: deepService('strict', depth) });
      expect(strict.json, `depth ${depth}`).toEqual(badRequest('Service in version "v1" cannot be handled as a Service: strict decoding error: unknown field "spec.x"'));
    }
  });

  it('10,001 levels is Go’s syntax error in a 400, for a create and an update', async () => {
    const message = `the object provided is unrecognized (must be of type Service): couldn't get version/kind; json parse error: invalid character '[' exceeded max depth ({"apiVersion":"v1","kind":"Ser ...)`;
    const created = await send('POST', '/api/v1/namespaces/victim/services', { headers: { 'Content-Type': 'application/json' }, body: deepService('deeper', 10_001) });
    expect(created.json).toEqual(badRequest(message));
    const replaced = await send('PUT', '/api/v1/namespaces/victim/services/a', { headers: { 'Content-Type': 'application/json' }, body: deepService('a', 100_000) });
    expect(replaced.json).toEqual(badRequest(message));
    expect(await serviceNames('victim')).toEqual(['a', 'b']);
  });

  it('a syntax error before the limit is reported first, as Go’s scanner meets it first', async () => {
    const body = `{"apiVersion":"v1","kind":"Service","metadata":{"name":"x"},"spec":{"x":[1 2${'['.repeat(20_000)}}}`;
    const r = await send('POST', '/api/v1/namespaces/victim/services', { headers: { 'Content-Type': 'application/json' }, body });
    expect(r.json).toEqual(badRequest(`the object provided is unrecognized (must be of type Service): couldn't get version/kind; json parse error: invalid character '2' after array element ({"apiVersion":"v1","kind":"Ser ...)`));
  });
});

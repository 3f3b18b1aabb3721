// Watch streams over HTTP against the watch cache's semantics: initial ADDED events, a start
// strictly after a given resourceVersion, 410 Expired for a compacted one, selector
// transitions as ADDED/DELETED, bookmarks, timeoutSeconds, and no store watch left open after
// a client disconnects or the server closes.
import { request, type IncomingMessage } from 'node:http';
import type { Service, ServiceCIDR } from '@kubesvc/api-types';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openRegistry, type Registry } from '../registry/registry.js';
import { openMemoryStore, type Store, virtualClock, type Watch } from '@kubesvc/store';
import { startApiServer, type ApiServer } from './server.js';

const TOKEN = 't';

/** The memory store, counting the watches it has open. */
function countingStore(inner: Store): Store & { readonly open: () => number } {
  let open = 0;
  return {
    backend: inner.backend,
    get: (k, o) => inner.get(k, o),
    range: (p, o) => inner.range(p, o),
    txn: (c, s, f) => inner.txn(c, s, f),
    grant: (t) => inner.grant(t),
    keepAlive: (id) => inner.keepAlive(id),
    revoke: (id) => inner.revoke(id),
    compact: (r) => inner.compact(r),
    revision: () => inner.revision(),
    close: () => inner.close(),
    open: () => open,
    watch(prefix, options): Watch {
      const w = inner.watch(prefix, options);
      open++;
      let closed = false;
      const done = () => {
        if (!closed) {
          closed = true;
          open--;
        }
      };
      return {
        close: () => {
          done();
          w.close();
        },
        [Symbol.asyncIterator]: () => {
          const it = w[Symbol.asyncIterator]();
          return {
            next: async () => {
              try {
                const r = await it.next();
                if (r.done === true) done();
                return r;
              } catch (e) {
                done();
                throw e;
              }
            },
            return: async () => {
              done();
              return (await it.return?.()) ?? { value: undefined, done: true };
            },
          };
        },
      };
    },
  };
}

let store: ReturnType<typeof countingStore>;
let registry: Registry;
let server: ApiServer | undefined;
const streams: IncomingMessage[] = [];

beforeEach(async () => {
  store = countingStore(openMemoryStore());
  const opened = await openRegistry({ store, clock: virtualClock(Date.UTC(2025, 0, 1)), seed: 3, serviceClusterIPRanges: ['10.96.0.0/24'] });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  server = await startApiServer({ registry, token: TOKEN, bookmarkIntervalMs: 50 });
});

afterEach(async () => {
  for (const s of streams.splice(0)) s.destroy();
  await server?.close();
  await store.close();
});

interface Event {
  readonly type: string;
  readonly object: { kind?: string; code?: number; message?: string; reason?: string; metadata?: { name?: string; resourceVersion?: string; labels?: Record<string, string> } };
}

/** Opens a watch; `next()` resolves with the next event, `ended` when the server ends the stream. */
function openWatch(path: string): Promise<{ next: () => Promise<Event>; ended: Promise<void>; response: IncomingMessage }> {
  const base = server?.url ?? '';
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { headers: { Authorization: `Bearer ${TOKEN}` } }, (res) => {
      streams.push(res);
      const queue: Event[] = [];
      const waiters: ((e: Event) => void)[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl);
          buffer = buffer.slice(nl + 1);
          const event = JSON.parse(line) as Event;
          const w = waiters.shift();
          if (w) w(event);
          else queue.push(event);
        }
      });
      const ended = new Promise<void>((r) => res.on('end', () => r()));
      resolve({
        response: res,
        ended,
        next: () =>
          new Promise<Event>((r, rej) => {
            const e = queue.shift();
            if (e) return r(e);
            const timer = setTimeout(() => rej(new Error('no event within 3 s')), 3000);
            waiters.push((ev) => {
              clearTimeout(timer);
              r(ev);
            });
          }),
      });
    });
    req.on('error', reject);
    req.end();
  });
}

const svc = (name: string, labels: Record<string, string> = {}): Service => ({ apiVersion: 'v1', kind: 'Service', metadata: { name, labels }, spec: { ports: [{ port: 80 }] } });

async function waitFor(cond: () => boolean): Promise<void> {
  const deadline = Date.now() + 3000;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error('condition not reached within 3 s');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('watch', () => {
  it('without a resourceVersion sends the current objects as ADDED, then changes', async () => {
    await registry.create('services', 'default', svc('a'));
    await registry.create('services', 'default', svc('b'));
    const w = await openWatch('/api/v1/namespaces/default/services?watch=true');
    expect(w.response.headers['content-type']).toBe('application/json');
    expect([await w.next(), await w.next()].map((e) => [e.type, e.object.metadata?.name])).toEqual([
      ['ADDED', 'a'],
      ['ADDED', 'b'],
    ]);
    const patched = await registry.patch('services', 'default', 'a', 'application/merge-patch+json', '{"metadata":{"labels":{"x":"y"}}}');
    expect(patched.ok).toBe(true);
    const modified = await w.next();
    expect([modified.type, modified.object.metadata?.name, modified.object.metadata?.labels]).toEqual(['MODIFIED', 'a', { x: 'y' }]);
    const before = await store.revision();
    await registry.delete('services', 'default', 'b');
    const deleted = await w.next();
    expect([deleted.type, deleted.object.metadata?.name]).toEqual(['DELETED', 'b']);
    // The deleted object carries the delete's revision (the next one; releasing the IP comes after).
    expect(Number(deleted.object.metadata?.resourceVersion)).toBe(before + 1);
  });

  it('resourceVersion=0 also starts with the current state', async () => {
    await registry.create('services', 'default', svc('a'));
    const w = await openWatch('/api/v1/services?watch=1&resourceVersion=0');
    expect((await w.next()).type).toBe('ADDED');
  });

  it('from a resourceVersion sends only the changes strictly after it', async () => {
    const a = await registry.create('services', 'default', svc('a'));
    if (!a.ok) throw new Error(a.error.message);
    await registry.create('services', 'default', svc('b'));
    const w = await openWatch(`/api/v1/namespaces/default/services?watch=true&resourceVersion=${a.value.metadata.resourceVersion}`);
    const e = await w.next();
    expect([e.type, e.object.metadata?.name]).toEqual(['ADDED', 'b']);
  });

  it('from a compacted resourceVersion sends one ERROR with 410 Expired and ends', async () => {
    const a = await registry.create('services', 'default', svc('a'));
    if (!a.ok) throw new Error(a.error.message);
    await registry.create('services', 'default', svc('b'));
    const rev = await store.revision();
    await store.compact(rev);
    const from = Number(a.value.metadata.resourceVersion) - 1;
    const w = await openWatch(`/api/v1/namespaces/default/services?watch=true&resourceVersion=${from}`);
    const e = await w.next();
    expect(e).toEqual({
      type: 'ERROR',
      object: { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message: `too old resource version: ${from} (${rev})`, reason: 'Expired', code: 410 },
    });
    await w.ended;
    await waitFor(() => store.open() === 0);
  });

  it('with a selector, an object that starts matching is ADDED and one that stops is DELETED', async () => {
    await registry.create('services', 'default', svc('a', { tier: 'fe' }));
    await registry.create('services', 'default', svc('b', { tier: 'be' }));
    const w = await openWatch('/api/v1/namespaces/default/services?watch=true&labelSelector=tier%3Dfe');
    expect([(await w.next()).object.metadata?.name]).toEqual(['a']);
    await registry.patch('services', 'default', 'b', 'application/merge-patch+json', '{"metadata":{"labels":{"tier":"fe"}}}');
    const added = await w.next();
    expect([added.type, added.object.metadata?.name]).toEqual(['ADDED', 'b']);
    const moved = await registry.patch('services', 'default', 'a', 'application/merge-patch+json', '{"metadata":{"labels":{"tier":"be"}}}');
    if (!moved.ok) throw new Error(moved.error.message);
    const gone = await w.next();
    // The last matching state, with the event's resourceVersion (cache_watcher.go).
    expect([gone.type, gone.object.metadata?.name, gone.object.metadata?.labels, gone.object.metadata?.resourceVersion]).toEqual(['DELETED', 'a', { tier: 'fe' }, moved.value.metadata?.resourceVersion]);
    // A change that matches neither before nor after is not sent: the next event is c's.
    await registry.patch('services', 'default', 'a', 'application/merge-patch+json', '{"metadata":{"labels":{"other":"1"}}}');
    await registry.create('services', 'default', svc('c', { tier: 'fe' }));
    expect((await w.next()).object.metadata?.name).toBe('c');
  });

  it('sends BOOKMARKs naming the revision delivered up to when asked', async () => {
    await registry.create('services', 'default', svc('a'));
    const w = await openWatch('/api/v1/namespaces/default/services?watch=true&allowWatchBookmarks=true');
    expect((await w.next()).type).toBe('ADDED');
    const rev = await store.revision();
    const b = await w.next();
    expect(b).toEqual({ type: 'BOOKMARK', object: { kind: 'Service', apiVersion: 'v1', metadata: { resourceVersion: String(rev) } } });
  });

  it('ends after timeoutSeconds and closes its store watch', async () => {
    const started = Date.now();
    const w = await openWatch('/api/v1/namespaces/default/services?watch=true&timeoutSeconds=1');
    await w.ended;
    expect(Date.now() - started).toBeGreaterThanOrEqual(900);
    await waitFor(() => store.open() === 0);
  });

  it('closes its store watch when the client goes away', async () => {
    const w = await openWatch('/api/v1/namespaces/default/services?watch=true');
    await waitFor(() => store.open() === 1);
    w.response.destroy();
    await waitFor(() => store.open() === 0);
  });

  it('ends every stream and store watch when the server closes', async () => {
    const w1 = await openWatch('/api/v1/namespaces/default/services?watch=true');
    const w2 = await openWatch('/api/v1/services?watch=true&labelSelector=a%3Db');
    await waitFor(() => store.open() === 2);
    await server?.close();
    server = undefined;
    await Promise.all([w1.ended, w2.ended]);
    expect(store.open()).toBe(0);
  });

  it('refuses a bad selector before the stream opens', async () => {
    const res = await fetch(`${server?.url ?? ''}/api/v1/services?watch=true&fieldSelector=spec.foo%3D1`, { headers: { Authorization: `Bearer ${TOKEN}` } });
    expect(res.status).toBe(400);
    expect(((await res.json()) as { message: string }).message).toBe('field label not supported: spec.foo');
    expect(store.open()).toBe(0);
  });
});

describe('watch of a networking.k8s.io/v1 resource', () => {
  it('watches servicecidrs cluster-wide: ADDED, MODIFIED by /status, DELETED', async () => {
    const cidr: ServiceCIDR = { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs: ['10.100.0.0/16'] } };
    const created = await registry.create<ServiceCIDR>('servicecidrs', '', cidr);
    if (!created.ok) throw new Error(created.error.message);
    const w = await openWatch('/apis/networking.k8s.io/v1/servicecidrs?watch=true');
    // The default ServiceCIDR the apiserver made at its start, then the new one, in key order.
    const initial = [await w.next(), await w.next()];
    expect(initial.map((e) => [e.type, e.object.kind, e.object.metadata?.name])).toEqual([
      ['ADDED', 'ServiceCIDR', 'extra'],
      ['ADDED', 'ServiceCIDR', 'kubernetes'],
    ]);
    const ready = { type: 'Ready', status: 'True', lastTransitionTime: '2025-01-02T00:00:00Z', reason: '', message: '' };
    const status = await registry.updateStatus('servicecidrs', '', 'extra', { ...created.value, status: { conditions: [ready] } });
    expect(status.ok).toBe(true);
    const modified = await w.next();
    expect([modified.type, (modified.object as { status?: unknown }).status]).toEqual(['MODIFIED', { conditions: [ready] }]);
    await registry.delete('servicecidrs', '', 'extra');
    const deleted = await w.next();
    expect([deleted.type, deleted.object.metadata?.name]).toEqual(['DELETED', 'extra']);
  });
});

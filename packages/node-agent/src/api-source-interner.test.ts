// Sources sharing an ObjectInterner: each lists and watches on its own (the server sees every
// watch), and where two hold the same object at the same resourceVersion they hold one object.
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject, Service } from '@kubesvc/api-types';
import { openRegistry, startApiServer, type ApiServer } from '@kubesvc/apiserver';
import { openMemoryStore, systemClock, type Store } from '@kubesvc/store';
import { createObjectInterner, startApiSource, type ApiSource } from './api-source.js';
import { must, poll, service } from './node-agent.fixtures.js';

const TOKEN = 'interner-token';
const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

const svc = (name: string, rv: string, port = 80): KubeObject => ({ ...service(name, { ports: [{ port }] }), metadata: { name, namespace: 'default', resourceVersion: rv } }) as KubeObject;

describe('createObjectInterner', () => {
  it('keeps one object per resource, key and resourceVersion; a newer version replaces it, an older one is handed back unshared, forget drops it', () => {
    const i = createObjectInterner();
    const a5 = svc('a', '5');
    expect(i.intern('services', 'default/a', a5)).toBe(a5);
    expect(i.intern('services', 'default/a', svc('a', '5'))).toBe(a5);
    const older = svc('a', '4');
    expect(i.intern('services', 'default/a', older)).toBe(older);
    expect(i.intern('services', 'default/a', svc('a', '5'))).toBe(a5);
    const a7 = svc('a', '7', 81);
    expect(i.intern('services', 'default/a', a7)).toBe(a7);
    expect(i.intern('services', 'default/a', svc('a', '7', 81))).toBe(a7);
    // Another resource with the same key is its own entry.
    const slice = { ...svc('a', '7'), kind: 'EndpointSlice' } as KubeObject;
    expect(i.intern('endpointslices', 'default/a', slice)).toBe(slice);
    expect(i.size).toBe(2);
    i.forget('services', 'default/a');
    expect(i.size).toBe(1);
    const again = svc('a', '7', 81);
    expect(i.intern('services', 'default/a', again)).toBe(again);
  });
});

describe('API sources sharing an interner', () => {
  it('three sources, one interner: each lists and watches itself, and all three hold the same object for each listed and each changed Service', async () => {
    const store: Store = openMemoryStore({ clock: systemClock });
    cleanups.push(() => store.close());
    const opened = await openRegistry({ store, clock: systemClock, seed: 3, serviceClusterIPRanges: ['10.96.0.0/24'] });
    if (!opened.ok) throw new Error(opened.error.message);
    const registry = opened.value;
    await must(registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
    await must(registry.create('services', 'default', service('listed', { ports: [{ port: 80 }] })));
    const server: ApiServer = await startApiServer({ registry, token: TOKEN, host: '127.0.0.1', port: 0 });
    cleanups.push(() => server.close());
    const interner = createObjectInterner();
    const sources: ApiSource[] = [];
    for (let k = 0; k < 3; k++) {
      const s = await startApiSource({ server: server.url, token: TOKEN, resources: ['services', 'endpointslices'], watchTimeoutSeconds: 0, interner });
      sources.push(s);
      cleanups.push(() => s.stop());
    }
    const [a, b, c] = sources.map((s) => s.get<Service>('services', 'default', 'listed'));
    expect(a).toBeDefined();
    expect(b).toBe(a);
    expect(c).toBe(a);
    // Each source lists for itself.
    expect(sources.map((s) => s.stats('services').lists)).toStrictEqual([1, 1, 1]);

    const created = await must(registry.create('services', 'default', service('watched', { ports: [{ port: 80 }] })));
    const seen = await poll(async () => {
      const got = sources.map((s) => s.get<Service>('services', 'default', 'watched'));
      return got.every((o) => o?.metadata?.resourceVersion === created.metadata.resourceVersion) ? got : undefined;
    }, 10_000);
    expect(seen).toBeDefined();
    expect(seen?.[1]).toBe(seen?.[0]);
    expect(seen?.[2]).toBe(seen?.[0]);
    // Every source received the event on its own watch.
    expect(sources.map((s) => s.stats('services').events)).toStrictEqual([1, 1, 1]);

    await must(registry.delete('services', 'default', 'watched'));
    const gone = await poll(async () => (sources.every((s) => s.get('services', 'default', 'watched') === undefined) ? true : undefined), 10_000);
    expect(gone).toBe(true);
    // The deleted Service is no longer held; the listed one still is (and the kubernetes Service is not there: no bootstrap).
    expect(interner.size).toBe(1);
  });
});

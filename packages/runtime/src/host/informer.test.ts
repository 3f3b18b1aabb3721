// The informer over real stores: a list at one revision, then every change in revision order,
// and a relist that reports the difference after a compaction cuts its watch.
// The allocator does not matter here: these Services take their ClusterIPs from the bitmap.
import { BITMAP_CLUSTER_IP_ALLOCATION } from '@kubesvc/api-types';
import type { Service } from '@kubesvc/api-types';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRegistry, type Registry } from '@kubesvc/apiserver';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { startInformer, type Informer } from './informer.js';
import type { CacheChange } from '@kubesvc/controllers';
import { cleanups, must, T0 } from '../runtime.fixtures.js';



function svc(name: string): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], selector: { app: name } } };
}

const backends: [string, () => Store][] = [
  ['memory', () => openMemoryStore({ clock: virtualClock(T0) })],
  [
    'sqlite',
    () => {
      const dir = mkdtempSync(join(tmpdir(), 'kubesvc-informer-'));
      cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
      return openSqliteStore({ path: join(dir, 'state.db'), clock: virtualClock(T0) });
    },
  ],
];

describe.each(backends)('informer on the %s store', (_name, open) => {
  async function setup(): Promise<{ store: Store; registry: Registry }> {
    const store = open();
    cleanups.push(() => store.close());
    const registry = must(createRegistry({ store, clock: virtualClock(T0), seed: 1, serviceClusterIPRanges: ['10.96.0.0/24'], clusterIPAllocation: BITMAP_CLUSTER_IP_ALLOCATION }));
    for (const name of ['default', 'other']) must(await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
    return { store, registry };
  }

  async function inform(store: Store, onRelist?: (e: unknown) => void): Promise<Informer> {
    const informer = await startInformer({ store, resources: ['services', 'namespaces', 'endpoints'], ...(onRelist === undefined ? {} : { onRelist }) });
    cleanups.push(() => informer.stop());
    return informer;
  }

  it('starts with what was stored, lists in key order by namespace, and reports later writes in order', async () => {
    const { store, registry } = await setup();
    must(await registry.create('services', 'other', svc('b')));
    must(await registry.create('services', 'default', svc('z')));
    const a = must(await registry.create('services', 'default', svc('a')));
    const informer = await inform(store);
    expect(informer.list('services').map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`)).toEqual(['default/a', 'default/z', 'other/b']);
    expect(informer.list('services', 'default').map((s) => s.metadata?.name)).toEqual(['a', 'z']);
    expect(informer.list('namespaces').map((s) => s.metadata?.name)).toEqual(['default', 'other']);

    const seen: string[] = [];
    informer.onChange((c: CacheChange) => seen.push(`${c.type} ${c.resource} ${c.object.metadata?.name} rv=${c.object.metadata?.resourceVersion}`));
    const created = must(await registry.create('services', 'default', svc('m')));
    const updated = must(await registry.patch('services', 'default', 'm', 'application/merge-patch+json', '{"metadata":{"labels":{"x":"y"}}}'));
    must(await registry.delete('services', 'default', 'a'));
    await informer.waitFor(Number(updated.metadata?.resourceVersion) + 1);
    expect(seen).toEqual([
      `ADDED services m rv=${created.metadata?.resourceVersion}`,
      `MODIFIED services m rv=${updated.metadata?.resourceVersion}`,
      // The delete event carries no object: the informer hands back the last one it held.
      `DELETED services a rv=${a.metadata?.resourceVersion}`,
    ]);
    expect(informer.get<Service>('services', 'default', 'm')?.metadata?.labels).toEqual({ x: 'y' });
    expect(informer.get('services', 'default', 'a')).toBeUndefined();
    expect(informer.list('services', 'default').map((s) => s.metadata?.name)).toEqual(['m', 'z']);
  });

  it('keeps list order and the label index right as objects come, change their labels and go', async () => {
    const { store, registry } = await setup();
    must(await registry.create('services', 'default', { ...svc('k'), metadata: { name: 'k', labels: { tier: 'web' } } }));
    const informer = await inform(store);
    const byLabel = (ns: string | undefined, value: string) => (informer.listByLabel?.<Service>('services', ns, 'tier', value) ?? []).map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`);
    const filtered = (ns: string | undefined, value: string) =>
      informer
        .list<Service>('services', ns)
        .filter((s) => s.metadata?.labels?.['tier'] === value)
        .map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`);
    expect(byLabel(undefined, 'web')).toEqual(['default/k']);
    // Writes after the index and the key order were built.
    must(await registry.create('services', 'other', { ...svc('c'), metadata: { name: 'c', labels: { tier: 'web' } } }));
    must(await registry.create('services', 'default', { ...svc('b'), metadata: { name: 'b', labels: { tier: 'web' } } }));
    must(await registry.create('services', 'default', { ...svc('q'), metadata: { name: 'q', labels: { tier: 'db' } } }));
    must(await registry.patch('services', 'default', 'k', 'application/merge-patch+json', '{"metadata":{"labels":{"tier":"db"}}}'));
    must(await registry.delete('services', 'default', 'q'));
    await informer.waitFor(await store.revision());
    expect(informer.list('services').map((s) => `${s.metadata?.namespace}/${s.metadata?.name}`)).toEqual(['default/b', 'default/k', 'other/c']);
    expect(byLabel(undefined, 'web')).toEqual(['default/b', 'other/c']);
    expect(byLabel('default', 'web')).toEqual(['default/b']);
    expect(byLabel(undefined, 'db')).toEqual(['default/k']);
    for (const ns of [undefined, 'default', 'other']) for (const v of ['web', 'db', 'none']) expect(byLabel(ns, v)).toEqual(filtered(ns, v));
  });

  it('waitFor resolves once the cache holds a write, and at once for a revision it already has', async () => {
    const { store, registry } = await setup();
    const informer = await inform(store);
    const created = must(await registry.create('services', 'default', svc('w')));
    await informer.waitFor(Number(created.metadata?.resourceVersion));
    expect(informer.get('services', 'default', 'w')?.metadata?.resourceVersion).toBe(created.metadata?.resourceVersion);
    expect(informer.revision).toBeGreaterThanOrEqual(Number(created.metadata?.resourceVersion));
    await expect(informer.waitFor(1)).resolves.toBeUndefined();
  });

  it('when its watch fails (compacted history), it lists again and reports exactly the difference', async () => {
    const { store, registry } = await setup();
    must(await registry.create('services', 'default', svc('keep')));
    must(await registry.create('services', 'default', svc('gone')));
    // The store as the informer sees it: the first watch is opened at revision 1, which the
    // real store has compacted away, so the real store fails it with ErrCompacted.
    let watches = 0;
    const flaky: Store = Object.assign(Object.create(store) as Store, {
      watch: (prefix: string, options?: { fromRevision?: number }) => (watches++ === 0 ? store.watch(prefix, { fromRevision: 1 }) : store.watch(prefix, options)),
    });
    await store.compact(await store.revision());
    const relisted: unknown[] = [];
    const informer = await startInformer({ store: flaky, resources: ['services'], onRelist: (e) => relisted.push(e) });
    cleanups.push(() => informer.stop());
    const seen: string[] = [];
    informer.onChange((c) => seen.push(`${c.type} ${c.object.metadata?.name}`));
    must(await registry.delete('services', 'default', 'gone'));
    const added = must(await registry.create('services', 'default', svc('new')));
    await informer.waitFor(Number(added.metadata?.resourceVersion));
    expect(watches).toBe(2);
    expect(relisted.map((e) => (e as Error).name)).toEqual(['ErrCompacted']);
    expect(seen.sort()).toEqual(['ADDED new', 'DELETED gone']);
    expect(informer.list('services', 'default').map((s) => s.metadata?.name)).toEqual(['keep', 'new']);
  });
});

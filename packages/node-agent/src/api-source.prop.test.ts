// INV-APISOURCE-LIST: after any sequence of Service and EndpointSlice writes through a real API
// server, with the server ending every watch after 100..200 ms and the store's history compacted
// at arbitrary points (so a watch opened again may find its resourceVersion gone, 410, and list
// again), the source's cache of each resource equals a fresh LIST, object for object and
// resourceVersion for resourceVersion; and the changes it reported, replayed from its first
// list, give that same cache.
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, expect } from 'vitest';
import type { KubeObject } from '@kubesvc/api-types';
import { openRegistry, startApiServer, type ApiServer, type Registry, type ResourceName } from '@kubesvc/apiserver';
import type { CacheChange } from '@kubesvc/controllers';
import { openMemoryStore, systemClock, type Store } from '@kubesvc/store';
import { startApiSource } from './api-source.js';
import { endpointSlice, must, poll, service } from './node-agent.fixtures.js';

const TOKEN = 't';
const RESOURCES: readonly ResourceName[] = ['services', 'endpointslices'];
const NAMES = ['a', 'b', 'c'] as const;

type Command =
  | { readonly op: 'put-service'; readonly name: string; readonly label: number }
  | { readonly op: 'delete-service'; readonly name: string }
  | { readonly op: 'put-slice'; readonly name: string; readonly ip: number }
  | { readonly op: 'delete-slice'; readonly name: string }
  | { readonly op: 'compact' }
  | { readonly op: 'pause'; readonly ms: number };

const nameArb = fc.constantFrom(...NAMES);
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ op: fc.constant('put-service' as const), name: nameArb, label: fc.integer({ min: 0, max: 3 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete-service' as const), name: nameArb }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('put-slice' as const), name: nameArb, ip: fc.integer({ min: 1, max: 9 }) }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('delete-slice' as const), name: nameArb }) },
  { weight: 1, arbitrary: fc.constant({ op: 'compact' as const }) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('pause' as const), ms: fc.constantFrom(0, 20, 150) }) },
);

let store: Store;
let registry: Registry;
let server: ApiServer;
let compacted = 0;

beforeAll(async () => {
  store = openMemoryStore({ clock: systemClock });
  const opened = await openRegistry({ store, clock: systemClock, seed: 9, serviceClusterIPRanges: ['10.96.0.0/24'], serviceNodePortRange: '30000-32767' });
  if (!opened.ok) throw new Error(opened.error.message);
  registry = opened.value;
  await must(registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
  server = await startApiServer({ registry, token: TOKEN, bookmarkIntervalMs: 50, minRequestTimeoutSeconds: 0.1 });
});

afterAll(async () => {
  await server.close();
  await store.close();
});

async function run(c: Command): Promise<void> {
  switch (c.op) {
    case 'put-service': {
      const old = await registry.get('services', 'default', c.name);
      const labels = { v: String(c.label) };
      if (old.ok) await must(registry.update('services', 'default', c.name, { ...old.value, metadata: { ...old.value.metadata, labels } }));
      else await must(registry.create('services', 'default', { ...service(c.name, { ports: [{ port: 80, protocol: 'TCP' }] }), metadata: { name: c.name, namespace: 'default', labels } }));
      return;
    }
    case 'delete-service':
      await registry.delete('services', 'default', c.name);
      return;
    case 'put-slice': {
      const slice = endpointSlice(c.name, [`10.244.0.${c.ip}`], [{ port: 8080, protocol: 'TCP' }], { name: c.name });
      const old = await registry.get('endpointslices', 'default', c.name);
      if (old.ok) await must(registry.update('endpointslices', 'default', c.name, { ...slice, metadata: { ...slice.metadata, resourceVersion: old.value.metadata?.resourceVersion } }));
      else await must(registry.create('endpointslices', 'default', slice));
      return;
    }
    case 'delete-slice':
      await registry.delete('endpointslices', 'default', c.name);
      return;
    case 'compact': {
      // A second compaction at the same revision is refused, as etcd's is.
      const revision = await store.revision();
      if (revision > compacted) await store.compact(revision);
      compacted = revision;
      return;
    }
    case 'pause':
      await new Promise((r) => setTimeout(r, c.ms));
      return;
  }
}

function versions(objects: readonly KubeObject[]): string[] {
  return objects.map((o) => `${o.metadata?.namespace ?? ''}/${o.metadata?.name ?? ''}@${o.metadata?.resourceVersion ?? ''}`);
}

/** Replays changes over a starting cache: key → resourceVersion. */
function replay(start: readonly string[], changes: readonly CacheChange[], resource: ResourceName): string[] {
  const cache = new Map(start.map((v) => [v.slice(0, v.lastIndexOf('@')), v] as const));
  for (const c of changes) {
    if (c.resource !== resource) continue;
    const [v] = versions([c.object]);
    const key = (v ?? '').slice(0, (v ?? '').lastIndexOf('@'));
    if (c.type === 'DELETED') cache.delete(key);
    else cache.set(key, v ?? '');
  }
  return [...cache.keys()].sort().map((k) => cache.get(k) ?? '');
}

test.prop([fc.array(commandArb, { minLength: 1, maxLength: 20 })])(
  'INV-APISOURCE-LIST: after any writes, watch ends and compactions, the cache of each resource equals a fresh LIST, and so do its reported changes replayed',
  async (commands) => {
    const source = await startApiSource({ server: server.url, token: TOKEN, resources: RESOURCES, watchTimeoutSeconds: 0, backoff: { initialMs: 5, maxMs: 20 } });
    try {
      const first = new Map(RESOURCES.map((r) => [r, versions(source.list(r))] as const));
      const changes: CacheChange[] = [];
      source.onChange((c) => changes.push(c));
      for (const c of commands) await run(c);
      let last: Record<string, { cache: string[]; list: string[] }> = {};
      const done = await poll(async () => {
        last = {};
        for (const r of RESOURCES) last[r] = { cache: versions(source.list(r)), list: versions((await must(registry.list(r))).items) };
        return Object.values(last).every((x) => JSON.stringify(x.cache) === JSON.stringify(x.list)) ? true : undefined;
      }, 20_000);
      if (done === undefined) console.error('last state', JSON.stringify(last), RESOURCES.map((r) => JSON.stringify(source.stats(r))));
      for (const r of RESOURCES) {
        expect({ r, cache: last[r]?.cache }).toEqual({ r, cache: last[r]?.list });
        expect({ r, replayed: replay(first.get(r) ?? [], changes, r) }).toEqual({ r, replayed: last[r]?.list });
      }
    } finally {
      await source.stop();
    }
  },
);

// The API-fed source against a real API server on 127.0.0.1: the first LIST, the changes a
// WATCH brings, a watch the server ends (its --min-request-timeout) resumed from the last
// resourceVersion without a relist or a lost event, a 410 Expired that lists again and reports
// the deletions it reveals, HTTPS with the server's own certificate as the CA, and a stop that
// leaves no watch open.
import { afterEach, describe, expect, it } from 'vitest';
import type { KubeObject, Service } from '@kubesvc/api-types';
import { generateServingCertificate, openRegistry, startApiServer, type ApiServer, type Registry, type ResourceName } from '@kubesvc/apiserver';
import type { CacheChange } from '@kubesvc/controllers';
import { openMemoryStore, systemClock, type Store } from '@kubesvc/store';
import { startApiSource, type ApiSource } from './api-source.js';
import { must, poll, service } from './node-agent.fixtures.js';

const TOKEN = 'test-token';
const RESOURCES: readonly ResourceName[] = ['services', 'endpointslices'];

interface Harness {
  readonly store: Store;
  readonly registry: Registry;
  server: ApiServer;
  readonly sources: ApiSource[];
}

const open: Harness[] = [];

afterEach(async () => {
  for (const h of open.splice(0)) {
    for (const s of h.sources) await s.stop();
    await h.server.close();
    await h.store.close();
  }
});

async function harness(serverOptions: { minRequestTimeoutSeconds?: number; tls?: { cert: string; key: string } } = {}): Promise<Harness> {
  const store = openMemoryStore({ clock: systemClock });
  const opened = await openRegistry({ store, clock: systemClock, seed: 5, serviceClusterIPRanges: ['10.96.0.0/24'], serviceNodePortRange: '30000-32767' });
  if (!opened.ok) throw new Error(opened.error.message);
  const registry = opened.value;
  await must(registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
  const server = await startApiServer({ registry, token: TOKEN, bookmarkIntervalMs: 50, ...serverOptions });
  const h: Harness = { store, registry, server, sources: [] };
  open.push(h);
  return h;
}

async function source(h: Harness, extra: { ca?: string; logger?: { log: (level: string, line: string) => void } } = {}): Promise<ApiSource> {
  const s = await startApiSource({ server: h.server.url, token: TOKEN, resources: RESOURCES, watchTimeoutSeconds: 0, backoff: { initialMs: 10, maxMs: 50 }, ...extra });
  h.sources.push(s);
  return s;
}

function clusterIP(name: string): Service {
  return service(name, { ports: [{ port: 80, protocol: 'TCP' }] });
}

/** name → resourceVersion of each object, in the order given. */
function versions(objects: readonly KubeObject[]): [string, string][] {
  return objects.map((o) => {
    const m = (o as { metadata?: { namespace?: string; name?: string; resourceVersion?: string } }).metadata;
    return [`${m?.namespace ?? ''}/${m?.name ?? ''}`, m?.resourceVersion ?? ''];
  });
}

/** Polls until the source's cache of `resource` is the server's LIST; the last difference if not. */
async function converged(h: Harness, s: ApiSource, resource: ResourceName): Promise<{ cache: [string, string][]; list: [string, string][] }> {
  let last = { cache: [] as [string, string][], list: [] as [string, string][] };
  const done = await poll(async () => {
    last = { cache: versions(s.list(resource)), list: versions((await must(h.registry.list(resource))).items) };
    return JSON.stringify(last.cache) === JSON.stringify(last.list) ? true : undefined;
  }, 20_000);
  if (done === undefined) console.error('not converged', JSON.stringify(last));
  return last;
}

function record(s: ApiSource): CacheChange[] {
  const changes: CacheChange[] = [];
  s.onChange((c) => changes.push(c));
  return changes;
}

function names(changes: readonly CacheChange[]): string[] {
  return changes.map((c) => `${c.type} ${c.object.metadata?.name ?? ''}${c.old === undefined ? '' : ` (old ${c.old.metadata?.resourceVersion ?? ''})`}`);
}

describe('the API source', () => {
  it('starts with what the first LIST holds, the objects whole (kind and apiVersion), and get finds them', async () => {
    const h = await harness();
    const web = await must(h.registry.create('services', 'default', clusterIP('web')));
    await must(h.registry.create('services', 'default', clusterIP('db')));
    const s = await source(h);
    expect(versions(s.list('services'))).toEqual(versions((await must(h.registry.list('services'))).items));
    expect(s.list('services').map((o) => o.metadata?.name)).toEqual(['db', 'web']);
    const got = s.get<Service>('services', 'default', 'web');
    expect(got?.kind).toBe('Service');
    expect(got?.apiVersion).toBe('v1');
    expect(got?.spec?.clusterIP).toBe(web.spec?.clusterIP);
    expect(s.get('services', 'other', 'web')).toBeUndefined();
    expect(s.list('endpointslices')).toEqual([]);
    expect(s.stats('services').lists).toBe(1);
    // Each resource was listed at its own revision; the source's is the lower.
    const rvs = [Number(s.stats('services').resourceVersion), Number(s.stats('endpointslices').resourceVersion)];
    expect(rvs.every((rv) => rv > 0)).toBe(true);
    expect(s.revision).toBe(Math.min(...rvs));
    expect(() => s.list('pods')).toThrow(/does not watch pods/);
  });

  it('applies ADDED, MODIFIED and DELETED as the watch brings them, with the old object on MODIFIED and DELETED', async () => {
    const h = await harness();
    const s = await source(h);
    const changes = record(s);
    const created = await must(h.registry.create('services', 'default', clusterIP('web')));
    const updated = await must(h.registry.update('services', 'default', 'web', { ...created, metadata: { ...created.metadata, labels: { tier: 'front' } } }));
    await must(h.registry.delete('services', 'default', 'web'));
    const seen = await poll(async () => (changes.length >= 3 ? changes : undefined), 20_000);
    if (seen === undefined) console.error('changes seen', names(changes));
    expect(names(changes)).toEqual(['ADDED web', `MODIFIED web (old ${created.metadata?.resourceVersion ?? ''})`, `DELETED web (old ${updated.metadata?.resourceVersion ?? ''})`]);
    expect(s.list('services')).toEqual([]);
    // The three events were counted as received (bookmarks may add to them).
    expect(s.stats('services').events).toBeGreaterThanOrEqual(3);
    // The resourceVersion moved past the delete (its event or a later bookmark).
    expect(Number(s.stats('services').resourceVersion)).toBeGreaterThan(Number(updated.metadata?.resourceVersion));
    // No slice was written: the source's revision is the slices' list revision, the lower.
    expect(s.revision).toBe(Number(s.stats('endpointslices').resourceVersion));
    expect(s.revision).toBeLessThan(Number(s.stats('services').resourceVersion));
  });

  it('resumes a watch the server ends from its last resourceVersion: no relist, no event lost or repeated', async () => {
    const h = await harness({ minRequestTimeoutSeconds: 0.1 });
    const s = await source(h);
    const changes = record(s);
    const count = 30;
    for (let i = 0; i < count; i++) {
      const svc = await must(h.registry.create('services', 'default', clusterIP(`s${i}`)));
      await must(h.registry.update('services', 'default', `s${i}`, { ...svc, metadata: { ...svc.metadata, labels: { n: String(i) } } }));
      if (i % 3 === 0) await must(h.registry.delete('services', 'default', `s${i}`));
      await new Promise((r) => setTimeout(r, 15));
    }
    // Several watches ended by the server (each 100..200 ms) while the writes went on.
    const watched = await poll(async () => (s.stats('services').watches >= 4 ? true : undefined), 20_000);
    expect(watched, `watches ${JSON.stringify(s.stats('services'))}`).toBe(true);
    const final = await converged(h, s, 'services');
    expect(final.cache).toEqual(final.list);
    expect(s.stats('services').lists).toBe(1);
    expect(s.stats('services').expired).toBe(0);
    for (let i = 0; i < count; i++) {
      const mine = changes.filter((c) => c.object.metadata?.name === `s${i}`).map((c) => c.type);
      expect({ name: `s${i}`, mine }).toEqual({ name: `s${i}`, mine: i % 3 === 0 ? ['ADDED', 'MODIFIED', 'DELETED'] : ['ADDED', 'MODIFIED'] });
    }
  });

  it('lists again on 410 Expired and reports what the relist reveals: the deletions, additions and changes', async () => {
    const h = await harness();
    const s = await source(h);
    const keep = await must(h.registry.create('services', 'default', clusterIP('keep')));
    const gone = await must(h.registry.create('services', 'default', clusterIP('gone')));
    const same = await must(h.registry.create('services', 'default', clusterIP('same')));
    expect((await converged(h, s, 'services')).cache.map(([k]) => k)).toEqual(['default/gone', 'default/keep', 'default/same']);
    const changes = record(s);

    // The API goes away; meanwhile one Service is deleted, one added, one changed, and the
    // history is compacted, so the watch the source opens again finds its resourceVersion gone.
    const port = Number(new URL(h.server.url).port);
    await h.server.close();
    await must(h.registry.delete('services', 'default', 'gone'));
    await must(h.registry.create('services', 'default', clusterIP('new')));
    const changed = await must(h.registry.update('services', 'default', 'keep', { ...keep, metadata: { ...keep.metadata, labels: { v: '2' } } }));
    await h.store.compact(await h.store.revision());
    h.server = await startApiServer({ registry: h.registry, token: TOKEN, bookmarkIntervalMs: 50, port });

    const final = await converged(h, s, 'services');
    expect(final.cache).toEqual(final.list);
    expect(s.stats('services').expired).toBeGreaterThanOrEqual(1);
    expect(s.stats('services').lists).toBeGreaterThanOrEqual(2);
    expect(names(changes).sort()).toEqual(['ADDED new', `DELETED gone (old ${gone.metadata?.resourceVersion ?? ''})`, `MODIFIED keep (old ${keep.metadata?.resourceVersion ?? ''})`]);
    expect(s.get<Service>('services', 'default', 'keep')?.metadata?.resourceVersion).toBe(changed.metadata?.resourceVersion);
    // The unchanged one is not reported, and keeps its object.
    expect(changes.some((c) => c.object.metadata?.name === 'same')).toBe(false);
    expect(s.get<Service>('services', 'default', 'same')?.metadata?.resourceVersion).toBe(same.metadata?.resourceVersion);
  });

  it('backs off while the API is down and watches again from its resourceVersion when it is back: the writes meanwhile arrive as events, with no relist', async () => {
    const h = await harness();
    const lines: string[] = [];
    const s = await source(h, { logger: { log: (level, line) => lines.push(`${level} ${line}`) } });
    await must(h.registry.create('services', 'default', clusterIP('before')));
    await converged(h, s, 'services');
    const changes = record(s);
    const port = Number(new URL(h.server.url).port);
    await h.server.close();
    // Long enough for several refused connections and backoffs (10 ms doubling to 50 ms).
    await new Promise((r) => setTimeout(r, 300));
    await must(h.registry.delete('services', 'default', 'before'));
    await must(h.registry.create('services', 'default', clusterIP('during')));
    h.server = await startApiServer({ registry: h.registry, token: TOKEN, bookmarkIntervalMs: 50, port });
    const final = await converged(h, s, 'services');
    expect(final.cache.map(([k]) => k)).toEqual(['default/during']);
    expect(names(changes).map((n) => n.replace(/ \(old .*\)$/, ''))).toEqual(['DELETED before', 'ADDED during']);
    expect(s.stats('services').lists).toBe(1);
    expect(s.stats('services').expired).toBe(0);
    expect(s.stats('services').watches).toBeGreaterThanOrEqual(2);
    expect(lines.some((l) => l.startsWith('warning watch failed, backing off resource="services" reason="connect ECONNREFUSED'))).toBe(true);
  });

  it('speaks HTTPS, trusting the server certificate given as its CA', async () => {
    const made = await generateServingCertificate({ ips: ['127.0.0.1'], dnsNames: ['localhost'] });
    const h = await harness({ tls: { cert: made.cert, key: made.key } });
    expect(h.server.url.startsWith('https:')).toBe(true);
    await must(h.registry.create('services', 'default', clusterIP('web')));
    const s = await source(h, { ca: made.cert });
    expect(s.list('services').map((o) => o.metadata?.name)).toEqual(['web']);
    await must(h.registry.create('services', 'default', clusterIP('db')));
    const final = await converged(h, s, 'services');
    expect(final.cache.map(([k]) => k)).toEqual(['default/db', 'default/web']);
  });

  it('refuses to start when the first LIST is refused (a wrong token)', async () => {
    const h = await harness();
    await expect(startApiSource({ server: h.server.url, token: 'wrong', resources: RESOURCES })).rejects.toThrow(/Unauthorized|401/);
  });

  it('stops: its connections to the server close, and no change is reported after', async () => {
    const h = await harness();
    const s = await source(h);
    const changes = record(s);
    // One watch per resource holds a connection.
    const watching = await poll(async () => ((await h.server.stats()).connections >= RESOURCES.length ? true : undefined), 20_000);
    expect(watching, JSON.stringify(await h.server.stats())).toBe(true);
    await s.stop();
    let last = await h.server.stats();
    const closed = await poll(async () => ((last = await h.server.stats()).connections === 0 ? true : undefined), 20_000);
    expect(closed, `connections after stop: ${JSON.stringify(last)}`).toBe(true);
    await must(h.registry.create('services', 'default', clusterIP('late')));
    await new Promise((r) => setTimeout(r, 200));
    expect(changes).toEqual([]);
    expect(s.list('services')).toEqual([]);
  });
});

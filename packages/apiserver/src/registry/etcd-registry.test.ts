// The registry on the etcd store, on a real etcd: Services created with ClusterIP and NodePort
// allocation, the resourceVersion as etcd's modRevision, a stale update refused, a list's
// continue token that compaction outdated answered with 410 Expired, and two registries on
// one etcd creating Services at once without handing out an address twice, with each ClusterIP
// allocator (the bitmap, the IPAddress objects with the dual write, the IPAddress objects alone).
import {
  BITMAP_CLUSTER_IP_ALLOCATION,
  DEFAULT_CLUSTER_IP_ALLOCATION,
  type ClusterIPAllocation,
  type IPAddress,
  type Service,
} from '@kubesvc/api-types';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry, type Registry } from './registry.js';
import { must, sortedRangeIPs, svc } from './registry.fixtures.js';
import { type Store, systemClock } from '@kubesvc/store';
import { startEtcd, type EtcdFixture } from '@kubesvc/testkit';
import { openEtcdStore } from '@kubesvc/store/etcd';

let etcd: EtcdFixture;

beforeAll(async () => {
  etcd = await startEtcd();
}, 30_000);

afterAll(async () => {
  await etcd.dispose();
});

const stores: Store[] = [];

afterEach(async () => {
  // Each test works in its own namespace; the stores (clients) are closed here.
  for (const s of stores.splice(0)) await s.close();
});


/** A registry on the shared etcd, started as an apiserver starts (ranges, default ServiceCIDR). Default: v1.33's allocator. */
async function registryOn(seed: number, clusterIPAllocation: ClusterIPAllocation = DEFAULT_CLUSTER_IP_ALLOCATION): Promise<{ registry: Registry; store: Store }> {
  const store = await openEtcdStore({ endpoints: [etcd.endpoint] });
  stores.push(store);
  const registry = must(
    createRegistry({ store, clock: systemClock, seed, serviceClusterIPRanges: ['10.96.0.0/24'], serviceNodePortRange: '30000-30999', clusterIPAllocation }),
  );
  await registry.initRanges();
  return { registry, store };
}

/** The names of the IPAddress objects, sorted as sortedRangeIPs sorts. */
async function sortedIPAddresses(registry: Registry): Promise<string[]> {
  return must(await registry.list<IPAddress>('ipaddresses')).items.map((a) => a.metadata.name ?? '').sort();
}

async function namespace(registry: Registry, name: string): Promise<void> {
  must(await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name } }));
}


describe('registry on etcd', () => {
  it('creates Services with a ClusterIP and a NodePort from the ranges; the resourceVersion is etcd\'s modRevision', async () => {
    const { registry, store } = await registryOn(7);
    await namespace(registry, 'alloc');
    const created: Service[] = [];
    for (const name of ['a', 'b', 'c']) created.push(must(await registry.create('services', 'alloc', svc(name))));
    const np = must(await registry.create('services', 'alloc', svc('np', { type: 'NodePort', clusterIP: '10.96.0.200', ports: [{ port: 80, nodePort: 30080 }] })));
    expect(np.spec?.clusterIPs).toEqual(['10.96.0.200']);
    expect(np.spec?.ports?.[0]?.nodePort).toBe(30080);
    const ips = [...created, np].map((s) => s.spec?.clusterIP ?? '');
    for (const ip of ips) expect(ip).toMatch(/^10\.96\.0\.\d+$/);
    expect(new Set(ips).size).toBe(4);
    // Each is an IPAddress object, and (the dual write) a bit of the RangeAllocation.
    expect(await sortedIPAddresses(registry)).toEqual([...ips].sort());
    expect(await sortedRangeIPs(store)).toEqual([...ips].sort());
    const { kv } = await store.get('/registry/services/specs/alloc/a');
    expect(created[0]?.metadata.resourceVersion).toBe(String(kv?.modRevision));
    expect(must(await registry.get<Service>('services', 'alloc', 'a'))).toEqual(created[0]);
    // An address already taken is refused as upstream refuses it.
    const taken = await registry.create('services', 'alloc', svc('dup', { clusterIP: '10.96.0.200' }));
    expect(taken.ok || [taken.error.code, taken.error.message]).toEqual([
      422,
      'Service "dup" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.200"}: failed to allocate IP 10.96.0.200: provided IP is already allocated',
    ]);
    // Deleting gives the address back.
    must(await registry.delete('services', 'alloc', 'np'));
    expect(await sortedRangeIPs(store)).toEqual(ips.slice(0, 3).sort());
    expect(await sortedIPAddresses(registry)).toEqual(ips.slice(0, 3).sort());
    for (const name of ['a', 'b', 'c']) must(await registry.delete('services', 'alloc', name));
  });

  it('an update with a stale resourceVersion is a 409 Conflict', async () => {
    const { registry } = await registryOn(8);
    await namespace(registry, 'upd');
    const v1 = must(await registry.create('services', 'upd', svc('web')));
    const v2 = must(await registry.update<Service>('services', 'upd', 'web', { ...v1, metadata: { ...v1.metadata, labels: { v: '2' } } }));
    expect(Number(v2.metadata.resourceVersion)).toBeGreaterThan(Number(v1.metadata.resourceVersion));
    const stale = await registry.update<Service>('services', 'upd', 'web', { ...v1, metadata: { ...v1.metadata, labels: { v: 'stale' } } });
    expect(stale.ok || [stale.error.code, stale.error.message]).toEqual([
      409,
      'Operation cannot be fulfilled on services "web": the object has been modified; please apply your changes to the latest version and try again',
    ]);
  });

  it('a list continue token from before a compaction is answered with 410 Expired; a new list works', async () => {
    const { registry, store } = await registryOn(9);
    await namespace(registry, 'pages');
    for (const name of ['a', 'b', 'c', 'd', 'e']) must(await registry.create('services', 'pages', svc(name)));
    const first = must(await registry.list<Service>('services', 'pages', { limit: 2 }));
    const token = first.metadata.continue ?? '';
    expect(token).not.toBe('');
    // The token still works before the compaction.
    expect(must(await registry.list<Service>('services', 'pages', { limit: 2, continue: token })).items.map((s) => s.metadata.name)).toEqual(['c', 'd']);
    must(await registry.create('services', 'pages', svc('f')));
    await store.compact(await store.revision());
    // The store itself refuses the old revision with etcd's error...
    await expect(store.range('/registry/services/specs/pages/', { revision: Number(first.metadata.resourceVersion) })).rejects.toMatchObject({
      _tag: 'ErrCompacted',
      message: 'etcdserver: mvcc: required revision has been compacted',
    });
    // ...which the registry answers as kube-apiserver does (storage/etcd3/store.go, GetList:
    // a continue at a compacted revision is NewResourceExpired(inconsistentContinue)).
    const expired = await registry.list<Service>('services', 'pages', { limit: 2, continue: token });
    expect(expired.ok).toBe(false);
    if (expired.ok) return;
    expect(expired.error.code).toBe(410);
    expect(expired.error.status).toMatchObject({ kind: 'Status', status: 'Failure', reason: 'Expired', code: 410 });
    expect(expired.error.message).toMatch(/^The provided continue parameter is too old to display a consistent list result\./);
    const fresh = must(await registry.list<Service>('services', 'pages'));
    expect(fresh.items.map((s) => s.metadata.name)).toEqual(['a', 'b', 'c', 'd', 'e', 'f']);
  });

  const allocators: readonly (readonly [string, ClusterIPAllocation])[] = [
    ['the bitmap', BITMAP_CLUSTER_IP_ALLOCATION],
    ['IPAddress objects with the dual write', DEFAULT_CLUSTER_IP_ALLOCATION],
    ['IPAddress objects alone', { allocator: 'ipaddress', dualWrite: false }],
  ];
  it.each(allocators)('INV-API-CLUSTERIP-UNIQUE: two registries on one etcd creating 50 Services each at the same time never hand out one ClusterIP twice: %s', async (_, allocation) => {
    // The same seed, so both draw the same addresses and their writes collide.
    const a = await registryOn(42, allocation);
    const b = await registryOn(42, allocation);
    const ns = `race-${allocation.allocator}-${String(allocation.dualWrite)}`;
    await namespace(a.registry, ns);
    const createAll = async (registry: Registry, tag: string): Promise<Service[]> => {
      const out: Service[] = [];
      for (let i = 0; i < 50; i++) out.push(must(await registry.create('services', ns, svc(`${tag}-${i}`))));
      return out;
    };
    const [fromA, fromB] = await Promise.all([createAll(a.registry, 'a'), createAll(b.registry, 'b')]);
    const ips = [...fromA, ...fromB].map((s) => s.spec?.clusterIP ?? '');
    expect(new Set(ips).size).toBe(100);
    // What the allocator keeps holds exactly the addresses of the Services.
    const listed = must(await a.registry.list<Service>('services')).items.map((s) => s.spec?.clusterIP ?? '');
    for (const ip of ips) expect(listed).toContain(ip);
    if (allocation.allocator === 'bitmap' || allocation.dualWrite) expect(await sortedRangeIPs(a.store)).toEqual([...listed].sort());
    if (allocation.allocator === 'ipaddress') expect(await sortedIPAddresses(a.registry)).toEqual([...listed].sort());
    // The next allocator starts from an empty range: the addresses are given back.
    for (const s of [...fromA, ...fromB]) must(await a.registry.delete('services', ns, s.metadata.name ?? ''));
  }, 90_000);
});

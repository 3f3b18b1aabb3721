// The registry with the IPAddress allocator (MultiCIDRServiceAllocator, Kubernetes v1.33): the
// default ServiceCIDR made at start, a ClusterIP taken as an IPAddress naming its Service and
// given back on delete, the dual write into the RangeAllocation, a full range extended by a
// second ServiceCIDR, a ServiceCIDR being deleted not allocated from, and an IP freed by another
// writer found again.
// upstream: pkg/registry/core/service/ipallocator/cidrallocator.go, ipallocator.go (v1.33)
import { describe, expect, it } from 'vitest';
import type { IPAddress, Service, ServiceCIDR } from '@kubesvc/api-types';
import { memoryRegistry, must, sortedRangeIPs, svc } from './registry.fixtures.js';
import type { Registry } from './registry.js';

const WITH_DUAL_WRITE = { allocator: 'ipaddress', dualWrite: true } as const;
const ALONE = { allocator: 'ipaddress', dualWrite: false } as const;

async function ipAddresses(registry: Registry): Promise<IPAddress[]> {
  return [...must(await registry.list<IPAddress>('ipaddresses')).items];
}

async function names(registry: Registry): Promise<string[]> {
  return (await ipAddresses(registry)).map((a) => a.metadata.name ?? '').sort();
}

function extra(name: string, cidr: string): ServiceCIDR {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name }, spec: { cidrs: [cidr] } };
}

describe('the IPAddress allocator (INV-API-DEFAULT-SVCCIDR)', () => {
  it('starts with the default ServiceCIDR made from the flag, Ready', async () => {
    const { registry } = await memoryRegistry({ clusterIPAllocation: WITH_DUAL_WRITE, start: Date.UTC(2026, 0, 1) });
    const cidr = must(await registry.get<ServiceCIDR>('servicecidrs', '', 'kubernetes'));
    expect(cidr.spec?.cidrs).toEqual(['10.96.0.0/24']);
    expect(cidr.status?.conditions).toEqual([
      { type: 'Ready', status: 'True', lastTransitionTime: '2026-01-01T00:00:00Z', reason: '', message: 'Kubernetes default Service CIDR is ready' },
    ]);
  });

  it('takes a ClusterIP as an IPAddress whose parentRef is the Service, mirrors it into the RangeAllocation, and gives both back on delete', async () => {
    const { registry, store } = await memoryRegistry({ clusterIPAllocation: WITH_DUAL_WRITE });
    const web = must(await registry.create<Service>('services', 'default', svc('web')));
    const given = must(await registry.create<Service>('services', 'default', svc('dns', { clusterIP: '10.96.0.10' })));
    const ip = web.spec?.clusterIP ?? '';
    expect(ip).toMatch(/^10\.96\.0\.\d+$/);
    expect(given.spec?.clusterIPs).toEqual(['10.96.0.10']);
    const stored = must(await registry.get<IPAddress>('ipaddresses', '', ip));
    expect(stored.metadata.labels).toEqual({ 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' });
    // The core group is '', which the JSON leaves out (omitempty).
    expect(stored.spec?.parentRef).toEqual({ resource: 'services', namespace: 'default', name: 'web' });
    expect(stored.metadata.uid).toMatch(/^[0-9a-f-]{36}$/);
    expect(await names(registry)).toEqual([ip, '10.96.0.10'].sort());
    expect(await sortedRangeIPs(store)).toEqual([ip, '10.96.0.10'].sort());

    // The same IP again: the object exists, so upstream's ErrAllocated.
    const dup = await registry.create('services', 'default', svc('dup', { clusterIP: '10.96.0.10' }));
    expect(dup.ok || [dup.error.code, dup.error.message]).toEqual([
      422,
      'Service "dup" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
    ]);

    must(await registry.delete('services', 'default', 'web'));
    expect(await names(registry)).toEqual(['10.96.0.10']);
    expect(await sortedRangeIPs(store)).toEqual(['10.96.0.10']);
  });

  it('the cached range view compares the range objects only: the IPAddresses it created are not kept in it', async () => {
    const { registry } = await memoryRegistry({ clusterIPAllocation: WITH_DUAL_WRITE });
    for (let i = 0; i < 40; i++) must(await registry.create<Service>('services', 'default', svc(`s${i}`)));
    // White-box: the view is private. Its revisions map is copied on every range write, so when
    // it also took the key of every IPAddress written, each create copied all of the earlier ones.
    const view = (registry as unknown as { core: { rangeCache?: { revisions: ReadonlyMap<string, number> } } }).core.rangeCache;
    expect([...(view?.revisions.keys() ?? [])].sort()).toEqual(['/registry/ranges/serviceips', '/registry/ranges/servicenodeports']);
  });

  it('without the dual write keeps no RangeAllocation of IPs', async () => {
    const { registry, store } = await memoryRegistry({ clusterIPAllocation: ALONE });
    const web = must(await registry.create<Service>('services', 'default', svc('web')));
    expect(await names(registry)).toEqual([web.spec?.clusterIP]);
    expect((await store.get('/registry/ranges/serviceips')).kv).toBeUndefined();
  });

  it('a full range is extended by a second ServiceCIDR; an IP outside every ServiceCIDR is refused', async () => {
    // A /29 holds 6 addresses (.1 to .6).
    const { registry, store } = await memoryRegistry({ clusterIPAllocation: WITH_DUAL_WRITE, serviceClusterIPRanges: ['10.96.0.0/29'] });
    for (let i = 0; i < 6; i++) must(await registry.create('services', 'default', svc(`s${i}`)));
    const full = await registry.create('services', 'default', svc('next'));
    expect(full.ok || [full.error.code, full.error.message]).toEqual([500, 'Internal error occurred: failed to allocate a serviceIP: range is full']);
    const outside = await registry.create('services', 'default', svc('outside', { clusterIP: '10.96.1.5' }));
    expect(outside.ok || outside.error.message).toBe(
      'Service "outside" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.1.5"}: failed to allocate IP 10.96.1.5: the provided network does not match the current range',
    );

    must(await registry.create('servicecidrs', '', extra('newcidr1', '10.96.1.0/24')));
    const next = must(await registry.create<Service>('services', 'default', svc('next')));
    expect(next.spec?.clusterIP).toMatch(/^10\.96\.1\.\d+$/);
    expect(must(await registry.create<Service>('services', 'default', svc('outside', { clusterIP: '10.96.1.5' }))).spec?.clusterIP).toBe('10.96.1.5');
    expect(await names(registry)).toHaveLength(8);
    // The dual write mirrors only what the flag's CIDR holds.
    expect(await sortedRangeIPs(store)).toHaveLength(6);
  });

  it('a ServiceCIDR being deleted is not allocated from', async () => {
    const { registry, store } = await memoryRegistry({ clusterIPAllocation: WITH_DUAL_WRITE, serviceClusterIPRanges: ['10.96.0.0/29'] });
    must(await registry.create('servicecidrs', '', extra('going', '10.96.1.0/24')));
    // What the apiserver stores once a delete found a finalizer on it.
    const { kv } = await store.get('/registry/servicecidrs/going');
    const going = JSON.parse(kv?.value ?? '{}') as ServiceCIDR;
    await store.txn([], [{ kind: 'put', key: '/registry/servicecidrs/going', value: JSON.stringify({ ...going, metadata: { ...going.metadata, deletionTimestamp: '2026-01-01T00:00:00Z', finalizers: ['networking.k8s.io/service-cidr-finalizer'] } }) }]);
    const refused = await registry.create('services', 'default', svc('in-going', { clusterIP: '10.96.1.5' }));
    expect(refused.ok || refused.error.message).toContain('failed to allocate IP 10.96.1.5: the provided network does not match the current range');
    for (let i = 0; i < 6; i++) expect(must(await registry.create<Service>('services', 'default', svc(`s${i}`))).spec?.clusterIP).toMatch(/^10\.96\.0\.[1-6]$/);
    const full = await registry.create('services', 'default', svc('next'));
    expect(full.ok || full.error.message).toBe('Internal error occurred: failed to allocate a serviceIP: range is full');
  });

  it('an IP another writer freed is found again, though the registry had cached it as taken', async () => {
    const { registry, store } = await memoryRegistry({ clusterIPAllocation: ALONE, serviceClusterIPRanges: ['10.96.0.0/29'] });
    const held: string[] = [];
    for (let i = 0; i < 6; i++) held.push(must(await registry.create<Service>('services', 'default', svc(`s${i}`))).spec?.clusterIP ?? '');
    // Another apiserver's release: the IPAddress goes, behind this registry's back.
    const freed = held[3] ?? '';
    await store.txn([], [{ kind: 'delete', key: `/registry/ipaddresses/${freed}` }]);
    const next = must(await registry.create<Service>('services', 'default', svc('next')));
    expect(next.spec?.clusterIP).toBe(freed);
    expect(must(await registry.get<IPAddress>('ipaddresses', '', freed)).spec?.parentRef?.name).toBe('next');
  });
});

describe('finalizers on ServiceCIDRs and IPAddresses', () => {
  it('a delete marks one with a finalizer, a second delete keeps the first time, and the update that removes the last finalizer deletes it', async () => {
    const { registry } = await memoryRegistry({ clusterIPAllocation: ALONE, start: Date.UTC(2026, 0, 1) });
    const kept = { ...extra('kept', '10.97.0.0/24'), metadata: { name: 'kept', finalizers: ['networking.k8s.io/service-cidr-finalizer'] } };
    must(await registry.create('servicecidrs', '', kept));
    const first = must(await registry.delete<ServiceCIDR>('servicecidrs', '', 'kept'));
    expect(first.deleted).toBe(false);
    expect(first.object.metadata).toMatchObject({ deletionTimestamp: '2026-01-01T00:00:00Z', deletionGracePeriodSeconds: 0 });
    const again = must(await registry.delete<ServiceCIDR>('servicecidrs', '', 'kept'));
    expect(again.object.metadata.deletionTimestamp).toBe('2026-01-01T00:00:00Z');
    const marked = must(await registry.get<ServiceCIDR>('servicecidrs', '', 'kept'));
    must(await registry.update('servicecidrs', '', 'kept', { ...marked, metadata: { ...marked.metadata, finalizers: [] } }));
    const gone = await registry.get('servicecidrs', '', 'kept');
    expect(gone.ok || gone.error.code).toBe(404);
    // Without a finalizer a delete removes it at once.
    must(await registry.create('servicecidrs', '', extra('plain', '10.98.0.0/24')));
    expect(must(await registry.delete('servicecidrs', '', 'plain')).deleted).toBe(true);
  });
});

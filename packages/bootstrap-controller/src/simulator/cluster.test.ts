// The simulator's cluster: Services get their IPs and ports from the real allocators, the
// RangeAllocations follow, and failures carry upstream's Status messages.
import { formatIP, parseCIDR, seededRng, type Service } from '@kubesvc/api-types';
import { allocatedIPs, ipAllocatorFromSnapshot } from '@kubesvc/ipallocator';
import { describe, expect, it } from 'vitest';
import { applyWrite, createNamespace, createService, deleteObject, newCluster, observe, type Cluster, type ClusterResult } from './cluster.js';

function fresh(): Cluster {
  const cidr = parseCIDR('10.96.0.0/24');
  if (!cidr.ok) throw new Error(cidr.error.message);
  const c = createNamespace(newCluster(cidr.value.cidr, { base: 30000, size: 2768 }, seededRng(7)), { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  return ok(c);
}

function ok(r: ClusterResult): Cluster {
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

function svc(name: string, clusterIP?: string): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name, namespace: 'default' }, spec: { ports: [{ port: 80 }], ...(clusterIP ? { clusterIP } : {}) } };
}

function held(c: Cluster): string[] {
  const stored = c.ranges.serviceIPs;
  if (stored === undefined) return [];
  const r = ipAllocatorFromSnapshot(stored);
  if (!r.ok) throw new Error(r.error.message);
  return allocatedIPs(r.value).map(formatIP);
}

describe('cluster', () => {
  it('allocates explicit and dynamic ClusterIPs in the stored RangeAllocation, and a delete gives them back', () => {
    let c = ok(createService(fresh(), svc('a', '10.96.0.1')));
    c = ok(createService(c, svc('b')));
    const b = c.services.get('default/b')?.spec?.clusterIP ?? '';
    // The dynamic band of a /24 starts after the first 16 addresses.
    expect(Number(b.split('.')[3])).toBeGreaterThan(16);
    expect(held(c)).toEqual(['10.96.0.1', b].sort((x, y) => Number(x.split('.')[3]) - Number(y.split('.')[3])));
    c = ok(deleteObject(c, 'Service', 'default', 'a'));
    expect(held(c)).toEqual([b]);
  });

  it('an IP already allocated and a name already used fail with upstream messages, and nothing is kept', () => {
    const c = ok(createService(fresh(), svc('a', '10.96.0.1')));
    const taken = createService(c, svc('b', '10.96.0.1'));
    expect(taken).toEqual({
      ok: false,
      error: { _tag: 'Invalid', message: 'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated' },
    });
    const clash = createService(c, svc('a'));
    expect(clash).toEqual({ ok: false, error: { _tag: 'AlreadyExists', message: 'services "a" already exists' } });
    expect(held(c)).toEqual(['10.96.0.1']);
  });

  it('creating in a missing namespace is NotFound; deleting a namespace deletes and frees its Services', () => {
    const c = ok(createService(fresh(), svc('a', '10.96.0.5')));
    const gone = ok(deleteObject(c, 'Namespace', '', 'default'));
    expect(gone.services.size).toBe(0);
    expect(held(gone)).toEqual([]);
    expect(createService(gone, svc('a'))).toEqual({ ok: false, error: { _tag: 'NotFound', message: 'namespaces "default" not found' } });
  });

  it('updates check the resourceVersion; range writes check theirs', () => {
    const c = ok(createService(fresh(), svc('a', '10.96.0.5')));
    const ep = { apiVersion: 'v1' as const, kind: 'Endpoints' as const, metadata: { name: 'kubernetes', namespace: 'default' }, subsets: [] };
    const created = ok(applyWrite(c, { kind: 'create', object: ep }, 0));
    expect(applyWrite(created, { kind: 'update', object: ep, resourceVersion: '1' }, 0)).toEqual({
      ok: false,
      error: {
        _tag: 'Conflict',
        message: 'Operation cannot be fulfilled on endpoints "kubernetes": the object has been modified; please apply your changes to the latest version and try again',
      },
    });
    const stored = c.ranges.serviceIPs;
    if (stored === undefined) throw new Error('no range');
    expect(applyWrite(c, { kind: 'write-range', range: 'serviceIPs', allocation: stored, resourceVersion: '1' }, 0)).toEqual({
      ok: false,
      error: { _tag: 'Conflict', message: 'Operation cannot be fulfilled on serviceipallocations "": the provided resource version does not match' },
    });
  });

  it('a range write without a resourceVersion over a stored range is a Conflict, and one with a resourceVersion over nothing creates it (allocator/storage CreateOrUpdate)', () => {
    const c = ok(createService(fresh(), svc('a', '10.96.0.5')));
    const stored = c.ranges.serviceIPs;
    if (stored === undefined) throw new Error('no range');
    // upstream: GuaranteedUpdate with ignoreNotFound, then NewConflict(resource, "", ...).
    expect(applyWrite(c, { kind: 'write-range', range: 'serviceIPs', allocation: stored, resourceVersion: undefined }, 0)).toEqual({
      ok: false,
      error: { _tag: 'Conflict', message: 'Operation cannot be fulfilled on serviceipallocations "": another caller has already initialized the resource' },
    });
    expect(c.ranges.secondaryServiceIPs).toBeUndefined();
    const created = applyWrite(c, { kind: 'write-range', range: 'secondaryServiceIPs', allocation: { ...stored, range: 'fd00::/120' }, resourceVersion: '3' }, 0);
    expect(created.ok && created.value.ranges.secondaryServiceIPs?.range).toBe('fd00::/120');
  });

  it('a lease is seen until it expires, and deleting an expired one is NotFound', () => {
    const c = ok(applyWrite(fresh(), { kind: 'put-lease', lease: { ip: '10.0.0.1', expiresAt: 15_000 }, ttlMs: 15_000 }, 0));
    expect([...observe(c, 14_999).leases.keys()]).toEqual(['10.0.0.1']);
    expect([...observe(c, 15_000).leases.keys()]).toEqual([]);
    expect(applyWrite(c, { kind: 'delete-lease', ip: '10.0.0.1' }, 15_000)).toMatchObject({ ok: false, error: { _tag: 'NotFound' } });
  });
});

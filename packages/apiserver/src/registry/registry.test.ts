// The registry against the memory store on a virtual clock: what a create, update, patch or
// delete stores and allocates, with upstream's answers for what it refuses.
import type { Endpoints, EndpointSlice, Namespace, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import type { Store } from '@kubesvc/store';
import { memoryRegistry, must, rangeIPs, rangePorts, svc } from './registry.fixtures.js';
import { NAME_ALPHABET } from './names.js';
import type { Registry } from './registry.js';
import type { RegistryOptions } from './types.js';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);

async function setup(options: Partial<RegistryOptions> = {}): Promise<{ registry: Registry; store: Store }> {
  return memoryRegistry({ start: T0, seed: 42, ...options });
}

describe('create', () => {
  it('gives a Service a ClusterIP from the range, records it in /registry/ranges/serviceips, and sets metadata as the apiserver does', async () => {
    const { registry, store } = await setup();
    const created = must(await registry.create('services', 'default', svc('web')));
    const ip = created.spec?.clusterIP ?? '';
    expect(ip).toMatch(/^10\.96\.0\.\d+$/);
    expect(created.spec?.clusterIPs).toEqual([ip]);
    expect(created.spec?.ipFamilies).toEqual(['IPv4']);
    expect(created.spec?.ipFamilyPolicy).toBe('SingleStack');
    expect(created.spec?.type).toBe('ClusterIP');
    expect(created.status).toEqual({ loadBalancer: {} });
    expect(created.metadata.namespace).toBe('default');
    expect(created.metadata.creationTimestamp).toBe('2025-01-02T03:04:05Z');
    expect(created.metadata.uid).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(created.metadata.generation).toBeUndefined();
    expect(await rangeIPs(store)).toEqual([ip]);
    // resourceVersion is the key's modRevision, and is not inside the stored value.
    const { kv } = await store.get('/registry/services/specs/default/web');
    expect(created.metadata.resourceVersion).toBe(String(kv?.modRevision));
    expect(JSON.parse(kv?.value ?? '{}').metadata.resourceVersion).toBeUndefined();
    const got = must(await registry.get<Service>('services', 'default', 'web'));
    expect(got).toEqual(created);
  });

  it('takes a requested clusterIP and nodePort, and refuses them when taken with upstream field errors', async () => {
    const { registry, store } = await setup();
    const a = must(await registry.create('services', 'default', svc('a', { type: 'NodePort', clusterIP: '10.96.0.10', ports: [{ port: 80, nodePort: 30005 }] })));
    expect(a.spec?.clusterIPs).toEqual(['10.96.0.10']);
    expect(a.spec?.ports?.[0]?.nodePort).toBe(30005);
    const before = await store.revision();
    const ipTaken = await registry.create('services', 'default', svc('b', { clusterIP: '10.96.0.10' }));
    expect(ipTaken.ok).toBe(false);
    if (!ipTaken.ok) {
      expect(ipTaken.error.status.code).toBe(422);
      expect(ipTaken.error.message).toBe(
        'Service "b" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.10"}: failed to allocate IP 10.96.0.10: provided IP is already allocated',
      );
    }
    const portTaken = await registry.create('services', 'default', svc('c', { type: 'NodePort', ports: [{ port: 80, nodePort: 30005 }] }));
    expect(portTaken.ok || portTaken.error.message).toBe('Service "c" is invalid: spec.ports[0].nodePort: Invalid value: 30005: provided port is already allocated');
    const portOut = await registry.create('services', 'default', svc('d', { type: 'NodePort', ports: [{ port: 80, nodePort: 31000 }] }));
    expect(portOut.ok || portOut.error.message).toBe(
      'Service "d" is invalid: spec.ports[0].nodePort: Invalid value: 31000: provided port is not in the valid range. The range of valid ports is 30000-30100',
    );
    const ipOut = await registry.create('services', 'default', svc('e', { clusterIP: '10.97.0.1' }));
    expect(ipOut.ok || ipOut.error.message).toBe(
      'Service "e" is invalid: spec.clusterIPs: Invalid value: []string{"10.97.0.1"}: failed to allocate IP 10.97.0.1: the provided IP (10.97.0.1) is not in the valid range. The range of valid IPs is 10.96.0.0/24',
    );
    // Nothing was written by the refused creates: not the object, not the ranges.
    expect(await store.revision()).toBe(before);
    expect(await rangeIPs(store)).toEqual(['10.96.0.10']);
    expect(await rangePorts(store)).toEqual([30005]);
  });

  it('gives the allocation back when the write fails (the name exists)', async () => {
    const { registry, store } = await setup();
    const first = must(await registry.create('services', 'default', svc('web')));
    const dup = await registry.create('services', 'default', svc('web', { type: 'NodePort' }));
    expect(dup.ok || dup.error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'services "web" already exists',
      reason: 'AlreadyExists',
      details: { name: 'web', kind: 'services' },
      code: 409,
    });
    expect(await rangeIPs(store)).toEqual([first.spec?.clusterIP]);
    expect(await rangePorts(store)).toEqual([]);
  });

  it('refuses a create that carries a resourceVersion as the etcd3 store does: a bare 500 Status, the allocation given back', async () => {
    const { registry, store } = await setup();
    const before = await rangeIPs(store);
    const r = await registry.create('services', 'default', { ...svc('web', { type: 'NodePort' }), metadata: { name: 'web', resourceVersion: '5' } });
    // upstream: staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go Create returns a plain
    // error, which responsewriters' ErrorToAPIStatus sends as 500 with no reason and no details.
    expect(r.ok || r.error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'resourceVersion should not be set on objects to be created',
      code: 500,
    });
    expect(await rangeIPs(store)).toEqual(before);
    expect(await rangePorts(store)).toEqual([]);
    // Only a resourceVersion that parses as a non-zero uint64 is refused (ObjectResourceVersion).
    must(await registry.create('services', 'default', { ...svc('zero'), metadata: { name: 'zero', resourceVersion: '0' } }));
    must(await registry.create('services', 'default', { ...svc('negative'), metadata: { name: 'negative', resourceVersion: '-1' } }));
  });

  it('refuses an object in a missing namespace with 404 namespaces "x" not found', async () => {
    const { registry, store } = await setup();
    const before = await store.revision();
    const r = await registry.create('services', 'nope', svc('web'));
    expect(r.ok || r.error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'namespaces "nope" not found',
      reason: 'NotFound',
      details: { name: 'nope', kind: 'namespaces' },
      code: 404,
    });
    expect(await store.revision()).toBe(before);
  });

  it('generateName appends 5 characters of the upstream alphabet', async () => {
    const { registry } = await setup();
    const a = must(await registry.create<Service>('services', 'default', { ...svc(''), metadata: { generateName: 'web-' } }));
    const name = a.metadata.name ?? '';
    expect(name).toMatch(new RegExp(`^web-[${NAME_ALPHABET}]{5}$`));
    const b = must(await registry.create<Service>('services', 'default', { ...svc(''), metadata: { generateName: 'web-' } }));
    expect(b.metadata.name).not.toBe(name);
  });

  it('dual-stack follows ipFamilyPolicy', async () => {
    const { registry } = await setup({ serviceClusterIPRanges: ['10.96.0.0/24', 'fd00::/120'] });
    const single = must(await registry.create('services', 'default', svc('single')));
    expect(single.spec?.ipFamilies).toEqual(['IPv4']);
    const prefer = must(await registry.create('services', 'default', svc('prefer', { ipFamilyPolicy: 'PreferDualStack' })));
    expect(prefer.spec?.ipFamilies).toEqual(['IPv4', 'IPv6']);
    expect(prefer.spec?.clusterIPs?.[1]).toMatch(/^fd00::/);
    const v6 = must(await registry.create('services', 'default', svc('v6', { ipFamilies: ['IPv6'] })));
    expect(v6.spec?.clusterIP).toMatch(/^fd00::/);
  });

  it('refuses RequireDualStack on a single-stack cluster with upstream text', async () => {
    const { registry } = await setup();
    const r = await registry.create('services', 'default', svc('x', { ipFamilyPolicy: 'RequireDualStack' }));
    expect(r.ok || r.error.message).toBe('Service "x" is invalid: spec.ipFamilyPolicy: Invalid value: "RequireDualStack": this cluster is not configured for dual-stack services');
  });

  it('stores EndpointSlices with generation 1 and Pods as Pending', async () => {
    const { registry } = await setup();
    const slice: EndpointSlice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc' }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.5'] }], ports: [{ port: 80 }] };
    const s = must(await registry.create('endpointslices', 'default', slice));
    expect(s.metadata.generation).toBe(1);
    expect(s.ports).toEqual([{ port: 80, name: '', protocol: 'TCP' }]);
    const s2 = must(await registry.update('endpointslices', 'default', 'web-abc', { ...s, endpoints: [{ addresses: ['10.1.0.6'] }] }));
    expect(s2.metadata.generation).toBe(2);
    const pod: Pod = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };
    const p = must(await registry.create('pods', 'default', pod));
    expect(p.status).toEqual({ phase: 'Pending' });
    expect(p.spec?.['containers']).toEqual([{ name: 'c', image: 'nginx' }]);
  });
});

describe('update', () => {
  it('a stale resourceVersion is 409 Conflict with upstream text, and nothing is written', async () => {
    const { registry, store } = await setup();
    const v1 = must(await registry.create('services', 'default', svc('web')));
    must(await registry.update('services', 'default', 'web', { ...v1, metadata: { ...v1.metadata, labels: { a: 'b' } } }));
    const before = await store.revision();
    const stale = await registry.update('services', 'default', 'web', { ...v1, metadata: { ...v1.metadata, labels: { a: 'c' } } });
    expect(stale.ok || stale.error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: 'Operation cannot be fulfilled on services "web": the object has been modified; please apply your changes to the latest version and try again',
      reason: 'Conflict',
      details: { name: 'web', kind: 'services' },
      code: 409,
    });
    expect(await store.revision()).toBe(before);
  });

  it('a uid in the body is a precondition: another object\'s uid is a Conflict with the storage error text, before the resourceVersion check', async () => {
    const { registry, store } = await setup();
    const v1 = must(await registry.create('services', 'default', svc('web')));
    const before = await store.revision();
    // upstream: the PUT's DefaultUpdatedObjectInfo.Preconditions carry the body's uid;
    // etcd3 GuaranteedUpdate checks them (storage.Preconditions.Check, NewInvalidObjError) and
    // InterpretUpdateError makes the StorageError a Conflict.
    const r = await registry.update('services', 'default', 'web', { ...v1, metadata: { ...v1.metadata, uid: 'other', resourceVersion: '1' } });
    expect(r.ok || r.error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Operation cannot be fulfilled on services "web": StorageError: invalid object, Code: 4, Key: /registry/services/specs/default/web, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: other, UID in object meta: ${v1.metadata.uid ?? ''}`,
      reason: 'Conflict',
      details: { name: 'web', kind: 'services' },
      code: 409,
    });
    // An Endpoints update (create on update) of a missing object with a uid: the stored uid is empty.
    const ep = await registry.update('endpoints', 'default', 'gone', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'gone', uid: 'u-1' } });
    expect(ep.ok || ep.error.message).toBe(
      'Operation cannot be fulfilled on endpoints "gone": StorageError: invalid object, Code: 4, Key: /registry/services/endpoints/default/gone, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: u-1, UID in object meta: ',
    );
    expect(await store.revision()).toBe(before);
    // The matching uid is no obstacle.
    must(await registry.update('services', 'default', 'web', { ...v1, metadata: { ...v1.metadata, labels: { a: 'b' } } }));
  });

  it('an update without a resourceVersion is unconditional: it is given the stored one, for Endpoints as for Services', async () => {
    // upstream: every served kind's strategy allows unconditional updates, and store.Update
    // sets the stored resourceVersion before validation (doUnconditionalUpdate); `kubectl
    // replace -f` of a manifest without one relies on it.
    const { registry } = await setup();
    const empty: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'db' } };
    const v1 = must(await registry.create('endpoints', 'default', empty));
    const v2 = must(await registry.update('endpoints', 'default', 'db', { ...empty, subsets: [{ addresses: [{ ip: '10.244.0.5' }], ports: [{ port: 5432 }] }] }));
    expect(v2.subsets).toEqual([{ addresses: [{ ip: '10.244.0.5' }], ports: [{ port: 5432, protocol: 'TCP' }] }]);
    expect(Number(v2.metadata.resourceVersion)).toBeGreaterThan(Number(v1.metadata.resourceVersion));
    expect(v2.metadata.uid).toBe(v1.metadata.uid);
    // A stale resourceVersion is still a conflict.
    const stale = await registry.update('endpoints', 'default', 'db', { ...v2, metadata: { ...v2.metadata, resourceVersion: v1.metadata.resourceVersion } });
    expect(stale.ok || stale.error.code).toBe(409);
  });

  it('refuses a change of clusterIP with the immutable-field text', async () => {
    const { registry } = await setup();
    const v1 = must(await registry.create('services', 'default', svc('web', { clusterIP: '10.96.0.50' })));
    const r = await registry.update('services', 'default', 'web', { ...v1, spec: { ...v1.spec, clusterIP: '10.96.0.51', clusterIPs: ['10.96.0.51'] } });
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe(422);
      expect(r.error.message).toContain('spec.clusterIPs[0]: Invalid value: []string{"10.96.0.51"}: may not change once set');
    }
  });

  it('ClusterIP -> NodePort allocates a node port; NodePort -> ClusterIP releases it; -> ExternalName releases the IP', async () => {
    const { registry, store } = await setup();
    const v1 = must(await registry.create('services', 'default', svc('web')));
    const v2 = must(await registry.update('services', 'default', 'web', { ...v1, spec: { ...v1.spec, type: 'NodePort' } }));
    const port = v2.spec?.ports?.[0]?.nodePort ?? 0;
    expect(port).toBeGreaterThanOrEqual(30000);
    expect(await rangePorts(store)).toEqual([port]);
    const v3 = must(await registry.update<Service>('services', 'default', 'web', { ...v2, spec: { ...v2.spec, type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] } }));
    expect(v3.spec?.ports?.[0]?.nodePort).toBeUndefined();
    expect(await rangePorts(store)).toEqual([]);
    expect(await rangeIPs(store)).toEqual([v1.spec?.clusterIP]);
    const v4 = must(
      await registry.update<Service>('services', 'default', 'web', { ...v3, spec: { type: 'ExternalName', externalName: 'example.com', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] } }),
    );
    expect(v4.spec?.clusterIP).toBeUndefined();
    expect(await rangeIPs(store)).toEqual([]);
  });

  it('an EndpointSlice generation moves only when the defaulted object changes (Semantic.DeepEqual), not on defaults or key order', async () => {
    const { registry } = await setup();
    // upstream: pkg/registry/discovery/endpointslice/strategy.go PrepareForUpdate runs on the
    // decoded, defaulted object and compares with apiequality.Semantic.DeepEqual.
    const sent: EndpointSlice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc', labels: { a: '1', b: '2' } }, addressType: 'IPv4', endpoints: [{ addresses: ['10.1.0.5'] }], ports: [{ port: 80 }] };
    const s = must(await registry.create('endpointslices', 'default', sent));
    expect(s.metadata.generation).toBe(1);
    // The client sends its manifest again (no defaults), labels in another order.
    const again = must(await registry.update('endpointslices', 'default', 'web-abc', { ...sent, metadata: { ...sent.metadata, labels: { b: '2', a: '1' }, resourceVersion: s.metadata.resourceVersion ?? '' } }));
    expect(again.metadata.generation).toBe(1);
    const moved = must(await registry.update('endpointslices', 'default', 'web-abc', { ...again, ports: [{ port: 81 }] }));
    expect(moved.metadata.generation).toBe(2);
    const relabelled = must(await registry.update('endpointslices', 'default', 'web-abc', { ...moved, metadata: { ...moved.metadata, labels: { a: '1' } } }));
    expect(relabelled.metadata.generation).toBe(3);
  });

  it('a Namespace update keeps the stored spec.finalizers and status (namespace PrepareForUpdate)', async () => {
    const { registry } = await setup();
    const ns = must(await registry.create<Namespace>('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
    expect(ns.spec?.finalizers).toEqual(['kubernetes']);
    // upstream: pkg/registry/core/namespace/strategy.go PrepareForUpdate copies both from the old object.
    const { spec: _spec, status: _status, ...bare } = ns;
    const updated = must(await registry.update<Namespace>('namespaces', '', 'team', { ...bare, metadata: { ...ns.metadata, labels: { x: 'y' } } }));
    expect(updated.spec?.finalizers).toEqual(['kubernetes']);
    expect(updated.status).toEqual({ phase: 'Active' });
  });

  it('an update that changes nothing writes nothing', async () => {
    const { registry, store } = await setup();
    const v1 = must(await registry.create('services', 'default', svc('web')));
    const before = await store.revision();
    const same = must(await registry.update('services', 'default', 'web', v1));
    expect(same.metadata.resourceVersion).toBe(v1.metadata.resourceVersion);
    expect(await store.revision()).toBe(before);
  });

  it('Endpoints may be created by an update (AllowCreateOnUpdate), Services may not', async () => {
    const { registry } = await setup();
    const ep = await registry.update('endpoints', 'default', 'web', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' }, subsets: [] });
    expect(ep.ok).toBe(true);
    const s = await registry.update('services', 'default', 'nope', svc('nope'));
    expect(s.ok || s.error.message).toBe('services "nope" not found');
  });
});

describe('patch', () => {
  it('applies a JSON merge patch and a JSON patch', async () => {
    const { registry } = await setup();
    must(await registry.create('services', 'default', svc('web')));
    const merged = must(await registry.patch<Service>('services', 'default', 'web', 'application/merge-patch+json', '{"metadata":{"labels":{"tier":"front"}}}'));
    expect(merged.metadata.labels).toEqual({ tier: 'front' });
    const patched = must(
      await registry.patch<Service>('services', 'default', 'web', 'application/json-patch+json', '[{"op":"replace","path":"/spec/type","value":"NodePort"}]'),
    );
    expect(patched.spec?.ports?.[0]?.nodePort).toBeGreaterThanOrEqual(30000);
    const failed = await registry.patch('services', 'default', 'web', 'application/json-patch+json', '[{"op":"test","path":"/spec/type","value":"ClusterIP"}]');
    expect(failed.ok || [failed.error.code, failed.error.message]).toEqual([422, 'the server rejected our request due to an error in our request']);
    const unknown = await registry.patch('services', 'default', 'web', 'application/apply-patch+yaml', '{}');
    expect(unknown.ok || unknown.error.code).toBe(415);
  });
});

describe('delete', () => {
  it('releases the Service IP and ports, and deletes its Endpoints', async () => {
    const { registry, store } = await setup();
    must(await registry.create('services', 'default', svc('web', { type: 'NodePort' })));
    must(await registry.create('endpoints', 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' } }));
    const d = must(await registry.delete('services', 'default', 'web'));
    expect(d.deleted).toBe(true);
    expect(await rangeIPs(store)).toEqual([]);
    expect(await rangePorts(store)).toEqual([]);
    const ep = await registry.get('endpoints', 'default', 'web');
    expect(ep.ok || ep.error.message).toBe('endpoints "web" not found');
  });

  it('refuses a delete whose preconditions do not match with rest.BeforeDelete\'s Conflict (the kind as resource), and keeps the object', async () => {
    const { registry, store } = await setup();
    const s = must(await registry.create('services', 'default', svc('web')));
    const before = await store.revision();
    const uid = await registry.delete('services', 'default', 'web', { preconditions: { uid: 'not-the-uid' } });
    // upstream: staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go BeforeDelete
    expect(uid.ok || uid.error.status).toEqual({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: `Operation cannot be fulfilled on Service "web": the UID in the precondition (not-the-uid) does not match the UID in record (${s.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
      reason: 'Conflict',
      details: { name: 'web', kind: 'Service' },
      code: 409,
    });
    const rv = await registry.delete('services', 'default', 'web', { preconditions: { resourceVersion: '1' } });
    expect(rv.ok || rv.error.message).toBe(
      `Operation cannot be fulfilled on Service "web": the ResourceVersion in the precondition (1) does not match the ResourceVersion in record (${s.metadata.resourceVersion ?? ''}). The object might have been modified`,
    );
    const slice: EndpointSlice = { apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: { name: 'web-abc' }, addressType: 'IPv4', endpoints: [] };
    must(await registry.create('endpointslices', 'default', slice));
    const sliceRV = await registry.delete('endpointslices', 'default', 'web-abc', { preconditions: { uid: 'x' } });
    expect(sliceRV.ok || [sliceRV.error.message.split(':')[0], sliceRV.error.status.details]).toEqual([
      'Operation cannot be fulfilled on EndpointSlice.discovery.k8s.io "web-abc"',
      { name: 'web-abc', group: 'discovery.k8s.io', kind: 'EndpointSlice' },
    ]);
    expect(await store.revision()).toBe(before + 1);
    expect((await registry.get('services', 'default', 'web')).ok).toBe(true);
  });

  it('refuses a namespace delete whose preconditions do not match with the namespace storage\'s own text', async () => {
    const { registry } = await setup();
    const ns = must(await registry.create<Namespace>('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
    // upstream: pkg/registry/core/namespace/storage/storage.go Delete
    const uid = await registry.delete('namespaces', '', 'team', { preconditions: { uid: 'x' } });
    expect(uid.ok || [uid.error.message, uid.error.status.details]).toEqual([
      `Operation cannot be fulfilled on namespaces "team": Precondition failed: UID in precondition: x, UID in object meta: ${ns.metadata.uid ?? ''}`,
      { name: 'team', kind: 'namespaces' },
    ]);
    const rv = await registry.delete('namespaces', '', 'team', { preconditions: { resourceVersion: '1' } });
    expect(rv.ok || rv.error.message).toBe(
      `Operation cannot be fulfilled on namespaces "team": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: ${ns.metadata.resourceVersion ?? ''}`,
    );
  });

  it('a namespace becomes Terminating, refuses new content, and the controller step empties and removes it', async () => {
    const { registry, store } = await setup();
    must(await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
    must(await registry.create('services', 'team', svc('web')));
    must(await registry.create('pods', 'team', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: {} }));
    const d = must(await registry.delete<Namespace>('namespaces', '', 'team'));
    expect(d.deleted).toBe(false);
    expect(d.object.status?.phase).toBe('Terminating');
    expect(d.object.metadata.deletionTimestamp).toBe('2025-01-02T03:04:05Z');
    const again = await registry.delete('namespaces', '', 'team');
    // upstream: pkg/registry/core/namespace/storage/storage.go Delete (finalizers left)
    expect(again.ok || [again.error.code, again.error.message]).toEqual([
      409,
      'Operation cannot be fulfilled on namespaces "team": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
    ]);
    const refused = await registry.create('services', 'team', svc('late'));
    expect(refused.ok || refused.error.message).toBe('services "late" is forbidden: unable to create new content in namespace team because it is being terminated');
    const f = must(await registry.finalizeNamespace('team'));
    expect(f).toEqual({ deletedObjects: 2, remainingObjects: 0, namespaceDeleted: true });
    expect((await registry.get('namespaces', '', 'team')).ok).toBe(false);
    expect(await rangeIPs(store)).toEqual([]);
  });
});

describe('list', () => {
  it('pages with limit and continue at one revision', async () => {
    const { registry } = await setup();
    for (const n of ['a', 'b', 'c']) must(await registry.create('services', 'default', svc(n)));
    const first = must(await registry.list<Service>('services', 'default', { limit: 2 }));
    expect(first.kind).toBe('ServiceList');
    expect(first.items.map((s) => s.metadata.name)).toEqual(['a', 'b']);
    // upstream storage.EncodeContinue: unpadded base64url of the token, whose start key is
    // relative to the list's key prefix (staging/src/k8s.io/apiserver/pkg/storage/continue.go).
    expect(JSON.parse(Buffer.from(first.metadata.continue ?? '', 'base64url').toString('utf8'))).toEqual({ v: 'meta.k8s.io/v1', rv: Number(first.metadata.resourceVersion), start: 'b\u0000' });
    const wide = must(await registry.list<Service>('services', undefined, { limit: 1 }));
    expect(JSON.parse(Buffer.from(wide.metadata.continue ?? '', 'base64url').toString('utf8'))).toMatchObject({ start: 'default/a\u0000' });
    const climbing = Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv: 1, start: '../../namespaces/x' })).toString('base64url');
    const refused = await registry.list('services', 'default', { continue: climbing });
    expect(refused.ok || [refused.error.code, refused.error.message]).toEqual([400, 'invalid continue token']);
    must(await registry.create('services', 'default', svc('aa')));
    const rest = must(await registry.list<Service>('services', 'default', { limit: 2, continue: first.metadata.continue ?? '' }));
    expect(rest.items.map((s) => s.metadata.name)).toEqual(['c']);
    expect(rest.metadata.continue).toBeUndefined();
    const all = must(await registry.list<Service>('services'));
    expect(all.items.map((s) => s.metadata.name)).toEqual(['a', 'aa', 'b', 'c']);
  });
});

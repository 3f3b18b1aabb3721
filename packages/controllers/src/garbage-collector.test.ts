// The garbage collector over the cluster model: background deletion of objects whose owners
// are gone, references to gone owners dropped while another owner stays, owner kinds the
// cluster does not serve left alone, orphaning, and foreground deletion down a chain.
import type { EndpointSlice, KubeObject, OwnerReference, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { garbageCollector } from './garbage-collector.js';
import { NOW } from './objects.fixtures.js';

function pod(name: string, owners: readonly OwnerReference[] = [], meta: Record<string, unknown> = {}): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', ...(owners.length > 0 ? { ownerReferences: [...owners] } : {}), ...meta },
    spec: { containers: [{ name: 'c', image: 'nginx' }] },
  } as Pod;
}

function ownedBy(owner: KubeObject, blockOwnerDeletion?: boolean): OwnerReference {
  return {
    apiVersion: owner.apiVersion,
    kind: owner.kind,
    name: owner.metadata.name ?? '',
    uid: owner.metadata.uid ?? '',
    ...(blockOwnerDeletion === undefined ? {} : { blockOwnerDeletion }),
  };
}

function setup(): { model: ClusterModel; loop: ControllerLoop } {
  const model = new ClusterModel();
  const loop = new ControllerLoop(model, [garbageCollector()], NOW);
  loop.start();
  return { model, loop };
}

const names = (model: ClusterModel): string[] => model.list<Pod>('pods').map((p) => p.metadata.name ?? '');
const getPod = (model: ClusterModel, name: string): Pod | undefined => model.get<Pod>('pods', 'default', name);

/** An owner marked for deletion with `finalizer`, as the apiserver leaves it for the collector. */
function marked(object: KubeObject, finalizer: string): KubeObject {
  return { ...object, metadata: { ...object.metadata, deletionTimestamp: '2025-01-02T03:04:05Z', deletionGracePeriodSeconds: 0, finalizers: [finalizer] } } as KubeObject;
}

describe('garbage collector', () => {
  it('deletes in the background an object whose only owner is deleted, with its uid and resourceVersion as preconditions', () => {
    const { model, loop } = setup();
    const parent = loop.put('pods', pod('parent')).object;
    loop.put('pods', pod('child', [ownedBy(parent)]));
    loop.put('pods', pod('bystander'));
    expect(loop.run().writes).toBe(0);
    const child = getPod(model, 'child') as Pod;
    loop.remove('pods', 'default', 'parent');
    const actions = garbageCollector().reconcile('pods/default/child', model, NOW);
    expect(actions).toEqual([
      { kind: 'delete', resource: 'pods', namespace: 'default', name: 'child', uid: child.metadata.uid, resourceVersion: child.metadata.resourceVersion, propagationPolicy: 'Background' },
    ]);
    loop.run();
    expect(names(model)).toEqual(['bystander']);
    expect(model.invalidWrites).toEqual([]);
  });

  it('treats an owner of the same name with another uid as gone (deleted and made again)', () => {
    const { model, loop } = setup();
    const parent = loop.put('pods', pod('parent')).object;
    loop.remove('pods', 'default', 'parent');
    loop.put('pods', pod('parent'));
    loop.put('pods', pod('child', [ownedBy(parent)]));
    loop.run();
    expect(names(model)).toEqual(['parent']);
  });

  it('keeps an object that still has an owner, dropping its references to gone owners', () => {
    const { model, loop } = setup();
    const a = loop.put('pods', pod('a')).object;
    const b = loop.put('pods', pod('b')).object;
    loop.put('pods', pod('child', [ownedBy(a), ownedBy(b)]));
    loop.remove('pods', 'default', 'a');
    loop.run();
    expect(getPod(model, 'child')?.metadata.ownerReferences).toEqual([ownedBy(b)]);
  });

  it('leaves alone an object owned by a kind the cluster does not serve, and a cluster-scoped object naming a namespaced owner', () => {
    const { model, loop } = setup();
    loop.put('pods', pod('child', [{ apiVersion: 'batch/v1', kind: 'Job', name: 'job', uid: 'job-uid' }]));
    const owner = loop.put('pods', pod('owner')).object;
    loop.put('nodes', { apiVersion: 'v1', kind: 'Node', metadata: { name: 'n1', ownerReferences: [{ ...ownedBy(owner), uid: 'not-there' }] } });
    expect(loop.run().writes).toBe(0);
    expect(names(model)).toEqual(['child', 'owner']);
    expect(model.get('nodes', '', 'n1')).toBeDefined();
  });

  it("deletes a Service's EndpointSlices with it (their controller reference)", () => {
    const { model, loop } = setup();
    const svc: Service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default' }, spec: { ports: [{ port: 80 }] } };
    const service = loop.put('services', svc).object;
    const slice: EndpointSlice = {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { name: 'web-abcde', namespace: 'default', ownerReferences: [{ ...ownedBy(service, true), controller: true }] },
      addressType: 'IPv4',
      endpoints: [],
    };
    loop.put('endpointslices', slice);
    loop.remove('services', 'default', 'web');
    loop.run();
    expect(model.list('endpointslices')).toEqual([]);
  });

  it('orphans: takes the owner reference off every dependent, then the orphan finalizer off the owner, which then goes', () => {
    const { model, loop } = setup();
    const parent = loop.put('pods', pod('parent')).object;
    const other = loop.put('pods', pod('other')).object;
    loop.put('pods', pod('child', [ownedBy(parent)]));
    loop.put('pods', pod('shared', [ownedBy(parent), ownedBy(other)]));
    loop.put('pods', marked(getPod(model, 'parent') as Pod, 'orphan'));
    loop.run();
    expect(model.invalidWrites).toEqual([]);
    expect(names(model)).toEqual(['child', 'other', 'shared']);
    expect(getPod(model, 'child')?.metadata.ownerReferences).toBeUndefined();
    expect(getPod(model, 'shared')?.metadata.ownerReferences).toEqual([ownedBy(other)]);
  });

  it('foreground: deletes the dependents first, down a chain (a dependent with dependents of its own goes in the foreground too), then the owner', () => {
    const { model, loop } = setup();
    const top = loop.put('pods', pod('top')).object;
    const mid = loop.put('pods', pod('mid', [ownedBy(top, true)])).object;
    loop.put('pods', pod('leaf', [ownedBy(mid, true)]));
    loop.put('pods', pod('loose', [ownedBy(top, false)]));
    loop.put('pods', pod('bystander'));
    const gc = garbageCollector();
    loop.put('pods', marked(getPod(model, 'top') as Pod, 'foregroundDeletion'));
    // The blocking dependent with dependents of its own is deleted in the foreground.
    expect(gc.reconcile('pods/default/top', model, NOW)).toEqual([expect.objectContaining({ kind: 'delete', name: 'mid', propagationPolicy: 'Foreground' })]);
    loop.run();
    expect(model.invalidWrites).toEqual([]);
    expect(names(model)).toEqual(['bystander']);
  });

  it('foreground: an owner whose dependents do not block it loses its finalizer at once', () => {
    const { model, loop } = setup();
    const top = loop.put('pods', pod('top')).object;
    loop.put('pods', pod('kept-by-other', [ownedBy(top, false), ownedBy(loop.put('pods', pod('other')).object)]));
    const gc = garbageCollector();
    loop.put('pods', marked(getPod(model, 'top') as Pod, 'foregroundDeletion'));
    const actions = gc.reconcile('pods/default/top', model, NOW);
    expect(actions).toHaveLength(1);
    expect(actions[0]).toMatchObject({ kind: 'update', resource: 'pods', object: { metadata: { name: 'top' } } });
    loop.run();
    expect(names(model)).toEqual(['kept-by-other', 'other']);
    // Its reference to the owner that was waiting for it is dropped; the other owner stays.
    expect(getPod(model, 'kept-by-other')?.metadata.ownerReferences?.map((r) => r.name)).toEqual(['other']);
  });
});

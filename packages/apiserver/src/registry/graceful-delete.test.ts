// Graceful deletion of pods through the registry on a virtual clock: the grace period from the
// pod's spec or the request, shortened but never lengthened by a second delete, nothing to wait
// for on a pod never scheduled or already finished, the force delete, and the kubelet's final
// delete with a grace period of 0 and a UID precondition. Then the finalizers a propagation
// policy sets for the garbage collector, and finalizers on every kind of the generic store.
// upstream (v1.33): pkg/registry/core/pod/strategy.go (CheckGracefulDelete),
//           staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go (BeforeDelete),
//           staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Delete,
//           deletionFinalizersForGarbageCollection, markAsDeleting, ShouldDeleteDuringUpdate)
import type { Pod, Service } from '@kubesvc/api-types';
import { virtualClock, type Store, type VirtualClock } from '@kubesvc/store';
import { describe, expect, it } from 'vitest';
import { memoryRegistry, must, rangeIPs, svc } from './registry.fixtures.js';
import type { Registry } from './registry.js';

const T0 = Date.UTC(2025, 0, 2, 3, 4, 5, 678);
const KEY = '/registry/pods/default/web';

interface Setup {
  readonly registry: Registry;
  readonly store: Store;
  readonly clock: VirtualClock;
}

async function setup(): Promise<Setup> {
  const clock = virtualClock(T0);
  const { registry, store } = await memoryRegistry({ clock, seed: 42 });
  return { registry, store, clock };
}

/** A pod named web, on node n1 unless `spec` says otherwise. */
function pod(spec: Record<string, unknown> = {}, meta: Record<string, unknown> = {}): Pod {
  return { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', ...meta }, spec: { nodeName: 'n1', containers: [{ name: 'c', image: 'nginx' }], ...spec } };
}

async function stored(registry: Registry): Promise<Pod | undefined> {
  const r = await registry.get<Pod>('pods', 'default', 'web');
  return r.ok ? r.value : undefined;
}

describe('graceful pod deletion', () => {
  it("takes the pod's terminationGracePeriodSeconds: the pod stays with deletionTimestamp now + grace and deletionGracePeriodSeconds", async () => {
    const { registry } = await setup();
    must(await registry.create('pods', 'default', pod({ terminationGracePeriodSeconds: 3 })));
    const d = must(await registry.delete<Pod>('pods', 'default', 'web', {}));
    expect(d.deleted).toBe(false);
    expect(d.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:08Z', deletionGracePeriodSeconds: 3 });
    expect((await stored(registry))?.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:08Z', deletionGracePeriodSeconds: 3 });
  });

  it('defaults the grace period to 30 s, the defaulted terminationGracePeriodSeconds', async () => {
    const { registry } = await setup();
    must(await registry.create('pods', 'default', pod()));
    const d = must(await registry.delete<Pod>('pods', 'default', 'web', {}));
    expect(d.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:35Z', deletionGracePeriodSeconds: 30 });
  });

  it("takes the request's gracePeriodSeconds over the spec's; a negative one counts as 1", async () => {
    const { registry } = await setup();
    must(await registry.create('pods', 'default', pod({ terminationGracePeriodSeconds: 3 })));
    const d = must(await registry.delete<Pod>('pods', 'default', 'web', { gracePeriodSeconds: 10 }));
    expect(d.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:15Z', deletionGracePeriodSeconds: 10 });
    must(await registry.create('pods', 'default', { ...pod(), metadata: { name: 'neg' } }));
    const n = must(await registry.delete<Pod>('pods', 'default', 'neg', { gracePeriodSeconds: -5 }));
    expect(n.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:06Z', deletionGracePeriodSeconds: 1 });
  });

  it('a second delete shortens the grace period from the first deletion, never lengthens it, and without a grace period changes nothing', async () => {
    const { registry, store, clock } = await setup();
    must(await registry.create('pods', 'default', pod()));
    must(await registry.delete('pods', 'default', 'web', {}));
    clock.advance(5000);
    const before = await store.revision();
    const longer = must(await registry.delete<Pod>('pods', 'default', 'web', { gracePeriodSeconds: 60 }));
    expect(longer.deleted).toBe(false);
    expect(longer.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:35Z', deletionGracePeriodSeconds: 30 });
    const same = must(await registry.delete<Pod>('pods', 'default', 'web', {}));
    expect(same.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:35Z', deletionGracePeriodSeconds: 30 });
    expect(await store.revision()).toBe(before);
    // 30 s after the first request became 10 s after it: the deletion moves 20 s earlier.
    const shorter = must(await registry.delete<Pod>('pods', 'default', 'web', { gracePeriodSeconds: 10 }));
    expect(shorter.deleted).toBe(false);
    expect(shorter.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:15Z', deletionGracePeriodSeconds: 10 });
    expect((await stored(registry))?.metadata.deletionGracePeriodSeconds).toBe(10);
  });

  it('deletes a pod on no node at once, and one that has Succeeded or Failed', async () => {
    const { registry } = await setup();
    must(await registry.create('pods', 'default', pod({ nodeName: undefined, terminationGracePeriodSeconds: 30 })));
    const unscheduled = must(await registry.delete('pods', 'default', 'web', {}));
    expect(unscheduled.deleted).toBe(true);
    expect(await stored(registry)).toBeUndefined();
    for (const phase of ['Succeeded', 'Failed'] as const) {
      const p = must(await registry.create('pods', 'default', pod()));
      must(await registry.updateStatus('pods', 'default', 'web', { ...p, status: { phase } }));
      const done = must(await registry.delete('pods', 'default', 'web', {}));
      expect(done.deleted, phase).toBe(true);
      expect(await stored(registry), phase).toBeUndefined();
    }
  });

  it('a grace period of 0 (kubectl --force --grace-period=0) marks the pod and then deletes it, two writes as upstream makes them', async () => {
    const { registry, store } = await setup();
    must(await registry.create('pods', 'default', pod()));
    const before = await store.revision();
    const d = must(await registry.delete<Pod>('pods', 'default', 'web', { gracePeriodSeconds: 0 }));
    expect(d.deleted).toBe(true);
    expect(d.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:05Z', deletionGracePeriodSeconds: 0 });
    expect(await stored(registry)).toBeUndefined();
    expect(await store.revision()).toBe(before + 2);
    const marked = (await store.get(KEY, { revision: before + 1 })).kv;
    expect(JSON.parse(marked?.value ?? '{}').metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:05Z', deletionGracePeriodSeconds: 0 });
  });

  it("deletes without options at once, as the registry's own callers ask", async () => {
    const { registry } = await setup();
    must(await registry.create('pods', 'default', pod()));
    expect(must(await registry.delete('pods', 'default', 'web')).deleted).toBe(true);
  });

  it("the kubelet's final delete (grace 0, the pod's UID as precondition) ends a graceful deletion; another UID is refused", async () => {
    const { registry } = await setup();
    const p = must(await registry.create('pods', 'default', pod({ terminationGracePeriodSeconds: 3 })));
    must(await registry.delete('pods', 'default', 'web', {}));
    const wrong = await registry.delete('pods', 'default', 'web', { gracePeriodSeconds: 0, preconditions: { uid: 'not-the-uid' } });
    expect(wrong.ok || [wrong.error.status.code, wrong.error.message]).toEqual([
      409,
      `Operation cannot be fulfilled on Pod "web": the UID in the precondition (not-the-uid) does not match the UID in record (${p.metadata.uid ?? ''}). The object might have been deleted and then recreated`,
    ]);
    const d = must(await registry.delete<Pod>('pods', 'default', 'web', { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid ?? '' } }));
    expect(d.deleted).toBe(true);
    // Shortened to 0: the deletion comes 3 s earlier, at the first request's time.
    expect(d.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:05Z', deletionGracePeriodSeconds: 0 });
    expect(await stored(registry)).toBeUndefined();
  });

  it('a status update during the grace period keeps deletionTimestamp and deletionGracePeriodSeconds, and the pod', async () => {
    const { registry } = await setup();
    must(await registry.create('pods', 'default', pod()));
    const marked = must(await registry.delete<Pod>('pods', 'default', 'web', {})).object;
    const { deletionTimestamp: _d, deletionGracePeriodSeconds: _g, ...meta } = marked.metadata;
    const updated = must(await registry.updateStatus<Pod>('pods', 'default', 'web', { ...marked, metadata: meta, status: { phase: 'Running' } }));
    expect(updated.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:35Z', deletionGracePeriodSeconds: 30 });
    expect((await stored(registry))?.status?.phase).toBe('Running');
  });

  it('a finalizer keeps the pod after its grace period; taking the last one off then deletes it', async () => {
    const { registry } = await setup();
    must(await registry.create('pods', 'default', pod({}, { finalizers: ['example.com/hold'] })));
    must(await registry.delete('pods', 'default', 'web', {}));
    const forced = must(await registry.delete<Pod>('pods', 'default', 'web', { gracePeriodSeconds: 0 }));
    expect(forced.deleted).toBe(false);
    expect(forced.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:05Z', deletionGracePeriodSeconds: 0, finalizers: ['example.com/hold'] });
    const held = await stored(registry);
    expect(held?.metadata.deletionGracePeriodSeconds).toBe(0);
    must(await registry.update('pods', 'default', 'web', { ...held, metadata: { ...held?.metadata, finalizers: [] } } as Pod));
    expect(await stored(registry)).toBeUndefined();
  });

  it('a finalizer on a pod in its grace period: taking it off leaves the pod to the kubelet', async () => {
    const { registry } = await setup();
    must(await registry.create('pods', 'default', pod({}, { finalizers: ['example.com/hold'] })));
    const marked = must(await registry.delete<Pod>('pods', 'default', 'web', {})).object;
    must(await registry.update('pods', 'default', 'web', { ...marked, metadata: { ...marked.metadata, finalizers: [] } }));
    expect((await stored(registry))?.metadata).toMatchObject({ deletionGracePeriodSeconds: 30 });
  });
});

describe('the garbage collector finalizers a propagation policy sets', () => {
  it("Orphan keeps a Service, marked with the orphan finalizer and its ClusterIP still held; taking the finalizer off deletes it, its Endpoints with it, and gives the IP back", async () => {
    const { registry, store } = await setup();
    const created = must(await registry.create('services', 'default', svc('web')));
    must(await registry.create('endpoints', 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'web' } }));
    const d = must(await registry.delete<Service>('services', 'default', 'web', { propagationPolicy: 'Orphan' }));
    expect(d.deleted).toBe(false);
    expect(d.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:05Z', deletionGracePeriodSeconds: 0, finalizers: ['orphan'] });
    expect(await rangeIPs(store)).toEqual([created.spec?.clusterIP]);
    const held = must(await registry.get<Service>('services', 'default', 'web'));
    must(await registry.update('services', 'default', 'web', { ...held, metadata: { ...held.metadata, finalizers: [] } }));
    expect((await registry.get('services', 'default', 'web')).ok).toBe(false);
    expect((await registry.get('endpoints', 'default', 'web')).ok).toBe(false);
    expect(await rangeIPs(store)).toEqual([]);
  });

  it('Foreground marks a pod on no node with foregroundDeletion instead of deleting it; Background takes a GC finalizer off and deletes at once', async () => {
    const { registry } = await setup();
    must(await registry.create('pods', 'default', pod({ nodeName: undefined })));
    const fg = must(await registry.delete<Pod>('pods', 'default', 'web', { propagationPolicy: 'Foreground' }));
    expect(fg.deleted).toBe(false);
    expect(fg.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:05Z', deletionGracePeriodSeconds: 0, finalizers: ['foregroundDeletion'] });
    must(await registry.create('pods', 'default', { ...pod({ nodeName: undefined }), metadata: { name: 'held', finalizers: ['orphan'] } }));
    const bg = must(await registry.delete('pods', 'default', 'held', { propagationPolicy: 'Background' }));
    expect(bg.deleted).toBe(true);
  });

  it('a graceful delete with Orphan sets the finalizer with the deletionTimestamp; the kubelet\'s final delete then leaves the pod to the garbage collector', async () => {
    const { registry } = await setup();
    const p = must(await registry.create('pods', 'default', pod({ terminationGracePeriodSeconds: 3 })));
    const d = must(await registry.delete<Pod>('pods', 'default', 'web', { propagationPolicy: 'Orphan' }));
    expect(d.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:08Z', deletionGracePeriodSeconds: 3, finalizers: ['orphan'] });
    const last = must(await registry.delete<Pod>('pods', 'default', 'web', { gracePeriodSeconds: 0, preconditions: { uid: p.metadata.uid ?? '' } }));
    expect(last.deleted).toBe(false);
    expect((await stored(registry))?.metadata).toMatchObject({ deletionGracePeriodSeconds: 0, finalizers: ['orphan'] });
  });

  it('every kind of the generic store honours finalizers: an Endpoints with one is marked, not deleted', async () => {
    const { registry } = await setup();
    must(await registry.create('endpoints', 'default', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'kept', finalizers: ['example.com/hold'] } }));
    const d = must(await registry.delete('endpoints', 'default', 'kept', {}));
    expect(d.deleted).toBe(false);
    expect(d.object.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:05Z', deletionGracePeriodSeconds: 0 });
  });
});

describe('a Terminating namespace and finalizers', () => {
  it('waits for an object its finalizers keep: the namespace goes at the step after the last finalizer is taken off', async () => {
    const { registry } = await setup();
    must(await registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
    must(await registry.create('pods', 'team', { ...pod(), metadata: { name: 'held', finalizers: ['example.com/hold'] } }));
    must(await registry.create('pods', 'team', { ...pod(), metadata: { name: 'free' } }));
    must(await registry.delete('namespaces', '', 'team', {}));
    expect(must(await registry.finalizeNamespace('team'))).toEqual({ deletedObjects: 1, remainingObjects: 1, namespaceDeleted: false });
    const held = must(await registry.get<Pod>('pods', 'team', 'held'));
    expect(held.metadata).toMatchObject({ deletionTimestamp: '2025-01-02T03:04:05Z', deletionGracePeriodSeconds: 0 });
    expect((await registry.get('namespaces', '', 'team')).ok).toBe(true);
    must(await registry.update('pods', 'team', 'held', { ...held, metadata: { ...held.metadata, finalizers: [] } }));
    expect(must(await registry.finalizeNamespace('team'))).toEqual({ deletedObjects: 0, remainingObjects: 0, namespaceDeleted: true });
  });
});

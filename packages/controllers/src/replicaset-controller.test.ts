// The ReplicaSet controller with the simulated kubelet over the cluster model: pods made from
// the template and owned by the ReplicaSet, the status once they run, scale down and up, the
// release of a pod whose labels stop matching, and minReadySeconds.
import type { Pod, ReplicaSet } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { NOW } from './objects.fixtures.js';
import { replicaSetController } from './replicaset-controller.js';
import { simulatedKubelet } from './simulated-kubelet.js';

function rs(replicas: number, minReadySeconds = 0): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'web-abc', namespace: 'default', generation: 1 },
    spec: { replicas, minReadySeconds, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web', tier: 'fe' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }], restartPolicy: 'Always' } } },
  };
}

function setup(replicas: number, minReadySeconds = 0): { loop: ControllerLoop; model: ClusterModel } {
  const model = new ClusterModel();
  const loop = new ControllerLoop(model, [replicaSetController(), simulatedKubelet({ hostName: 'node-1' })], NOW);
  loop.start();
  loop.put('replicasets', rs(replicas, minReadySeconds));
  return { loop, model };
}

const pods = (model: ClusterModel): Pod[] => [...model.list<Pod>('pods', 'default')];

/**
 * Runs the loop until nothing is left to do within two minutes of model time: a deleted pod is
 * Terminating for its grace period (30 s) before the kubelet removes it, as on a cluster.
 */
function settle(loop: ControllerLoop): void {
  loop.run({ until: loop.now + 120_000 });
}
const current = (model: ClusterModel): ReplicaSet => model.get<ReplicaSet>('replicasets', 'default', 'web-abc') ?? rs(0);

describe('replicaset controller', () => {
  it('creates spec.replicas pods named <rs>-<suffix>, controlled by the ReplicaSet, and counts them in the status', () => {
    const { loop, model } = setup(3);
    loop.run();
    expect(model.invalidWrites).toEqual([]);
    const owned = pods(model);
    expect(owned.length).toBe(3);
    const owner = current(model);
    for (const p of owned) {
      expect(p.metadata.name).toMatch(/^web-abc-/);
      expect(p.metadata.labels).toEqual({ app: 'web', tier: 'fe' });
      expect(p.metadata.ownerReferences).toEqual([{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'web-abc', uid: owner.metadata.uid, controller: true, blockOwnerDeletion: true }]);
      expect(p.status?.phase).toBe('Running');
    }
    expect(owner.status).toEqual({ replicas: 3, fullyLabeledReplicas: 3, readyReplicas: 3, availableReplicas: 3, observedGeneration: 1 });
  });

  it('scales down to one pod and up again', () => {
    const { loop, model } = setup(3);
    settle(loop);
    loop.put('replicasets', { ...current(model), spec: { ...current(model).spec, replicas: 1 }, metadata: { ...current(model).metadata, generation: 2 } });
    settle(loop);
    expect(pods(model).length).toBe(1);
    expect(current(model).status).toMatchObject({ replicas: 1, readyReplicas: 1, observedGeneration: 2 });
    loop.put('replicasets', { ...current(model), spec: { ...current(model).spec, replicas: 4 } });
    settle(loop);
    expect(pods(model).length).toBe(4);
  });

  it('releases a pod whose labels stop matching, and replaces it', () => {
    const { loop, model } = setup(2);
    loop.run();
    const [first] = pods(model);
    if (first === undefined) throw new Error('no pod');
    loop.put('pods', { ...first, metadata: { ...first.metadata, labels: { app: 'other' } } });
    loop.run();
    const all = pods(model);
    expect(all.length).toBe(3);
    expect(all.find((p) => p.metadata.name === first.metadata.name)?.metadata.ownerReferences).toBeUndefined();
    expect(all.filter((p) => p.metadata.ownerReferences !== undefined).length).toBe(2);
  });

  it('adopts an orphan its selector matches instead of creating a pod', () => {
    const model = new ClusterModel();
    const loop = new ControllerLoop(model, [replicaSetController()], NOW);
    loop.start();
    loop.put('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'orphan', namespace: 'default', labels: { app: 'web' } }, spec: {} });
    loop.put('replicasets', rs(1));
    loop.run();
    const all = pods(model);
    expect(all.map((p) => p.metadata.name)).toEqual(['orphan']);
    expect(all[0]?.metadata.ownerReferences?.[0]?.uid).toBe(current(model).metadata.uid);
  });

  it('with minReadySeconds, counts a ready pod available only once it has been ready that long', () => {
    const { loop, model } = setup(1, 30);
    loop.run();
    expect(current(model).status).toMatchObject({ replicas: 1, readyReplicas: 1 });
    expect(current(model).status?.availableReplicas).toBeUndefined();
    loop.run({ until: NOW + 31_000 });
    expect(current(model).status?.availableReplicas).toBe(1);
  });
});

// The garbage collector's background deletion of apps/v1 dependents, with the deployment and
// ReplicaSet controllers and the simulated kubelet over the cluster model.
import { defaultObject, type Deployment, type Pod } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { garbageCollector } from './garbage-collector.js';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { deploymentController } from './deployment-controller.js';
import { NOW } from './objects.fixtures.js';
import { replicaSetController } from './replicaset-controller.js';
import { simulatedKubelet } from './simulated-kubelet.js';

const deployment: Deployment = defaultObject({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'default', generation: 1 },
  spec: { replicas: 2, selector: { matchLabels: { app: 'web' } }, template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image: 'nginx' }] } } },
});

function setup(): { loop: ControllerLoop; model: ClusterModel } {
  const model = new ClusterModel();
  const loop = new ControllerLoop(model, [deploymentController(), replicaSetController(), garbageCollector(), simulatedKubelet({ hostName: 'node-1' })], NOW);
  loop.start();
  loop.put('deployments', deployment);
  loop.run();
  return { loop, model };
}

describe('garbage collector (apps/v1 owners)', () => {
  it('deleting a Deployment deletes its ReplicaSet, then the ReplicaSet\'s pods (gracefully)', () => {
    const { loop, model } = setup();
    expect(model.list('replicasets').length).toBe(1);
    expect(model.list('pods').length).toBe(2);
    loop.remove('deployments', 'default', 'web');
    // The pods go gracefully: Terminating for their 30 s, then removed by the kubelet.
    loop.run({ until: loop.now + 120_000 });
    expect(model.list('replicasets')).toEqual([]);
    expect(model.list('pods')).toEqual([]);
  });

  it('keeps a pod with an owner of another kind, an orphan, and the dependents of a live owner', () => {
    const { loop, model } = setup();
    loop.put('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'job-pod', namespace: 'default', ownerReferences: [{ apiVersion: 'batch/v1', kind: 'Job', name: 'gone', uid: 'u1', controller: true }] }, spec: {} });
    loop.put('pods', { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'bare', namespace: 'default' }, spec: {} });
    loop.run();
    expect(model.list<Pod>('pods').map((p) => p.metadata.name).filter((n) => n === 'job-pod' || n === 'bare')).toEqual(['bare', 'job-pod']);
    expect(model.list('pods').length).toBe(4);
  });

  it('an owner reference naming a uid that is not the live owner\'s counts as gone', () => {
    const { loop, model } = setup();
    loop.put('pods', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'stale', namespace: 'default', labels: { other: 'x' }, ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: model.list('replicasets')[0]?.metadata.name ?? '', uid: 'old-uid', controller: true }] },
      spec: {},
    });
    loop.run();
    expect(model.get('pods', 'default', 'stale')).toBeUndefined();
  });
});

// The deployment controller with the ReplicaSet controller and the simulated kubelet over the
// cluster model: a first rollout, scaling, a rolling update within maxSurge/maxUnavailable,
// Recreate, and the conditions with upstream's reasons.
import { defaultObject, type Deployment, type Pod, type ReplicaSet } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { deploymentController, syncDeployment } from './deployment-controller.js';
import { computeHash } from './deployment-util.js';
import { NOW } from './objects.fixtures.js';
import { replicaSetController } from './replicaset-controller.js';
import { simulatedKubelet } from './simulated-kubelet.js';

function deployment(replicas: number, image = 'nginx', strategy: Deployment['spec'] extends infer S ? (S extends { strategy?: infer T } ? T : never) : never = { type: 'RollingUpdate', rollingUpdate: { maxSurge: '25%', maxUnavailable: '25%' } }): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'default', generation: 1 },
    spec: {
      replicas,
      selector: { matchLabels: { app: 'web' } },
      template: { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'nginx', image }], restartPolicy: 'Always' } },
      strategy,
      revisionHistoryLimit: 10,
      progressDeadlineSeconds: 600,
    },
  };
}

function setup(d: Deployment): { loop: ControllerLoop; model: ClusterModel } {
  const model = new ClusterModel();
  const loop = new ControllerLoop(model, [deploymentController(), replicaSetController(), simulatedKubelet({ hostName: 'node-1' })], NOW);
  loop.start();
  // As the apiserver stores it: defaulted, so the template the controller hashes is the stored one.
  loop.put('deployments', defaultObject(d));
  return { loop, model };
}

const get = (model: ClusterModel): Deployment => model.get<Deployment>('deployments', 'default', 'web') ?? deployment(0);
const rss = (model: ClusterModel): ReplicaSet[] => [...model.list<ReplicaSet>('replicasets', 'default')];
const pods = (model: ClusterModel): Pod[] => [...model.list<Pod>('pods', 'default')];

/**
 * Runs the loop until nothing is left to do within two minutes of model time: a deleted pod is
 * Terminating for its grace period (30 s) before the kubelet removes it, as on a cluster.
 */
function settle(loop: ControllerLoop): void {
  loop.run({ until: loop.now + 120_000 });
}

function update(loop: ControllerLoop, model: ClusterModel, change: (d: Deployment) => Deployment): void {
  const d = get(model);
  const next = change(d);
  loop.put('deployments', { ...next, metadata: { ...next.metadata, generation: (d.metadata.generation ?? 0) + 1 } });
}

describe('deployment controller', () => {
  it('rolls out a first ReplicaSet named <deployment>-<hash> and reports the Deployment complete', () => {
    const { loop, model } = setup(deployment(3));
    loop.run();
    expect(model.invalidWrites).toEqual([]);
    const d = get(model);
    const hash = computeHash(d.spec?.template);
    const [rs] = rss(model);
    expect(rs?.metadata.name).toBe(`web-${hash}`);
    expect(rs?.metadata.labels).toEqual({ app: 'web', 'pod-template-hash': hash });
    expect(rs?.spec?.selector).toEqual({ matchLabels: { app: 'web', 'pod-template-hash': hash } });
    expect(rs?.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1', 'deployment.kubernetes.io/desired-replicas': '3', 'deployment.kubernetes.io/max-replicas': '4' });
    expect(rs?.metadata.ownerReferences?.[0]).toMatchObject({ kind: 'Deployment', name: 'web', uid: d.metadata.uid, controller: true, blockOwnerDeletion: true });
    expect(pods(model).length).toBe(3);
    expect(pods(model).every((p) => p.metadata.labels?.['pod-template-hash'] === hash && p.status?.phase === 'Running')).toBe(true);
    expect(d.metadata.annotations).toEqual({ 'deployment.kubernetes.io/revision': '1' });
    const { conditions, ...counts } = d.status ?? {};
    expect(counts).toEqual({ observedGeneration: 1, replicas: 3, updatedReplicas: 3, readyReplicas: 3, availableReplicas: 3 });
    expect(conditions?.map((c) => [c.type, c.status, c.reason, c.message])).toEqual([
      ['Available', 'True', 'MinimumReplicasAvailable', 'Deployment has minimum availability.'],
      ['Progressing', 'True', 'NewReplicaSetAvailable', `ReplicaSet "web-${hash}" has successfully progressed.`],
    ]);
  });

  it('scales the one ReplicaSet up and down with the Deployment', () => {
    const { loop, model } = setup(deployment(3));
    settle(loop);
    update(loop, model, (d) => ({ ...d, spec: { ...d.spec, replicas: 5 } }));
    settle(loop);
    expect(rss(model).map((rs) => rs.spec?.replicas)).toEqual([5]);
    expect(pods(model).length).toBe(5);
    expect(get(model).status?.availableReplicas).toBe(5);
    update(loop, model, (d) => ({ ...d, spec: { ...d.spec, replicas: 2 } }));
    settle(loop);
    expect(pods(model).length).toBe(2);
    expect(rss(model)[0]?.metadata.annotations?.['deployment.kubernetes.io/desired-replicas']).toBe('2');
  });

  it('a new image rolls out through a second ReplicaSet within maxSurge and maxUnavailable, keeping the old one at 0', () => {
    const { loop, model } = setup(deployment(4));
    settle(loop);
    const oldName = rss(model)[0]?.metadata.name;
    update(loop, model, (d) => ({ ...d, spec: { ...d.spec, template: { ...d.spec?.template, spec: { containers: [{ name: 'nginx', image: 'nginx:1.27' }], restartPolicy: 'Always' } } } }));
    const from = model.changes.length;
    settle(loop);
    // Replaying every write of the rollout: no state ever wants more than replicas+maxSurge (5)
    // pods, nor has fewer than replicas-maxUnavailable (3) available.
    const seen = new Map<string, ReplicaSet>();
    let maxWanted = 0;
    let minAvailable = Infinity;
    const before = model.changes.slice(0, from).filter((c) => c.resource === 'replicasets');
    for (const c of before) seen.set(c.object.metadata.name ?? '', c.object as ReplicaSet);
    for (const c of model.changes.slice(from)) {
      if (c.resource !== 'replicasets') continue;
      if (c.type === 'DELETED') seen.delete(c.object.metadata.name ?? '');
      else seen.set(c.object.metadata.name ?? '', c.object as ReplicaSet);
      const all = [...seen.values()];
      maxWanted = Math.max(maxWanted, all.reduce((n, rs) => n + (rs.spec?.replicas ?? 0), 0));
      minAvailable = Math.min(minAvailable, all.reduce((n, rs) => n + (rs.status?.availableReplicas ?? 0), 0));
    }
    expect(maxWanted).toBeLessThanOrEqual(5);
    expect(minAvailable).toBeGreaterThanOrEqual(3);
    const byName = new Map(rss(model).map((rs) => [rs.metadata.name, rs]));
    expect(byName.get(oldName)?.spec?.replicas).toBe(0);
    const fresh = rss(model).find((rs) => rs.metadata.name !== oldName);
    expect(fresh?.spec?.replicas).toBe(4);
    expect(fresh?.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    expect(get(model).metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    expect(pods(model).map((p) => (p.spec?.['containers'] as { image: string }[])[0]?.image)).toEqual(['nginx:1.27', 'nginx:1.27', 'nginx:1.27', 'nginx:1.27']);
    expect(get(model).status?.conditions?.find((c) => c.type === 'Progressing')?.reason).toBe('NewReplicaSetAvailable');
  });

  it('Recreate scales the old ReplicaSet to 0 before the new one gets pods', () => {
    const { loop, model } = setup(deployment(2, 'nginx', { type: 'Recreate' }));
    settle(loop);
    update(loop, model, (d) => ({ ...d, spec: { ...d.spec, template: { ...d.spec?.template, spec: { containers: [{ name: 'nginx', image: 'nginx:2' }], restartPolicy: 'Always' } } } }));
    settle(loop);
    const [a, b] = rss(model);
    expect([a?.spec?.replicas, b?.spec?.replicas].sort()).toEqual([0, 2]);
    expect(pods(model).map((p) => (p.spec?.['containers'] as { image: string }[])[0]?.image)).toEqual(['nginx:2', 'nginx:2']);
  });

  it('with no pod ever ready, the Deployment is not Available and times out after progressDeadlineSeconds', () => {
    const model = new ClusterModel();
    // No kubelet: pods stay Pending.
    const loop = new ControllerLoop(model, [deploymentController(), replicaSetController()], NOW);
    loop.start();
    const d = deployment(2);
    loop.put('deployments', { ...d, spec: { ...d.spec, progressDeadlineSeconds: 30 } });
    loop.run();
    expect(get(model).status?.conditions?.find((c) => c.type === 'Available')).toMatchObject({ status: 'False', reason: 'MinimumReplicasUnavailable' });
    loop.run({ until: NOW + 40_000 });
    expect(get(model).status?.conditions?.find((c) => c.type === 'Progressing')).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
  });

  it('never scales an old ReplicaSet up when its status still counts more available pods than it wants', () => {
    const model = new ClusterModel();
    const d = defaultObject(deployment(5, 'nginx:2'));
    model.put('deployments', d);
    const stored = get(model);
    const hash = computeHash(stored.spec?.template);
    const owner = [{ apiVersion: 'apps/v1', kind: 'Deployment', name: 'web', uid: stored.metadata.uid ?? '', controller: true }];
    const rsOf = (name: string, image: string, replicas: number, available: number, hashLabel: string): ReplicaSet => ({
      apiVersion: 'apps/v1',
      kind: 'ReplicaSet',
      metadata: { name, namespace: 'default', labels: { app: 'web', 'pod-template-hash': hashLabel }, ownerReferences: owner, annotations: { 'deployment.kubernetes.io/desired-replicas': '5', 'deployment.kubernetes.io/max-replicas': '7' } },
      spec: { replicas, selector: { matchLabels: { app: 'web', 'pod-template-hash': hashLabel } }, template: { ...defaultObject(deployment(5, image)).spec?.template, metadata: { labels: { app: 'web', 'pod-template-hash': hashLabel } } } },
      status: { replicas: available, availableReplicas: available, readyReplicas: available },
    });
    model.put('replicasets', rsOf(`web-${hash}`, 'nginx:2', 5, 4, hash));
    model.put('replicasets', rsOf('web-old', 'nginx', 1, 2, 'old'));
    const writes = syncDeployment(get(model), model, NOW).filter((a) => a.kind === 'update' && a.resource === 'replicasets');
    expect(writes).toEqual([]);
  });
});

// Upstream's ReplicaSet controller vectors, transcribed as tables.
// upstream (v1.33): pkg/controller/replicaset/replica_set_test.go (TestGetPodsToDelete,
//           TestSyncReplicaSetDoesNothing, TestSyncReplicaSetDeletes, TestSyncReplicaSetCreates,
//           TestDoNotAdoptOrCreateIfBeingDeleted, TestGetReplicaSetsWithSameController),
//           pkg/controller/controller_utils_test.go (TestSortingActivePodsWithRanks: the order's rules)
import type { Pod, ReplicaSet } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel } from './cluster-model.fixtures.js';
import { deletesBefore, podsToDelete } from './controller-utils.js';
import { syncReplicaSet } from './replicaset-controller.js';

const NOW = Date.UTC(2025, 0, 2, 3, 4, 5);

function rsPod(name: string, phase: 'Pending' | 'Running', nodeName: string, ready?: boolean): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', uid: `uid-${name}`, labels: { name: 'foo' } },
    spec: nodeName === '' ? {} : { nodeName },
    status: { phase, ...(ready === undefined ? {} : { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }] }) },
  };
}

const unscheduledPending = rsPod('unscheduled-pending-pod', 'Pending', '');
const scheduledPending = rsPod('scheduled-pending-pod', 'Pending', 'fake-node');
const runningNotReady = rsPod('scheduled-running-not-ready-pod', 'Running', 'fake-node', false);
const readyOnNode1 = rsPod('scheduled-running-ready-pod-on-node-1', 'Running', 'fake-node-1', true);
const readyOnNode2 = rsPod('scheduled-running-ready-pod-on-node-2', 'Running', 'fake-node-2', true);

describe('getPodsToDelete (upstream TestGetPodsToDelete)', () => {
  const cases: { name: string; pods: Pod[]; related?: Pod[]; diff: number; want: Pod[] }[] = [
    { name: 'len(pods) = 0 (i.e., diff = 0 too)', pods: [], diff: 0, want: [] },
    { name: 'diff = len(pods)', pods: [runningNotReady, readyOnNode1], diff: 2, want: [runningNotReady, readyOnNode1] },
    { name: 'diff < len(pods)', pods: [readyOnNode1, runningNotReady], diff: 1, want: [runningNotReady] },
    {
      name: 'various pod phases and conditions, diff = len(pods)',
      pods: [readyOnNode1, readyOnNode1, readyOnNode2, runningNotReady, scheduledPending, unscheduledPending],
      diff: 6,
      want: [readyOnNode1, readyOnNode1, readyOnNode2, runningNotReady, scheduledPending, unscheduledPending],
    },
    {
      name: 'various pod phases and conditions, diff = len(pods), relatedPods empty',
      pods: [readyOnNode1, readyOnNode1, readyOnNode2, runningNotReady, scheduledPending, unscheduledPending],
      related: [],
      diff: 6,
      want: [readyOnNode1, readyOnNode1, readyOnNode2, runningNotReady, scheduledPending, unscheduledPending],
    },
    { name: 'scheduled vs unscheduled, diff < len(pods)', pods: [scheduledPending, unscheduledPending], diff: 1, want: [unscheduledPending] },
    { name: 'ready vs not-ready, diff < len(pods)', pods: [readyOnNode1, runningNotReady, runningNotReady], diff: 2, want: [runningNotReady, runningNotReady] },
    {
      name: 'ready and colocated with another ready pod vs not colocated, diff < len(pods)',
      pods: [readyOnNode1, readyOnNode2],
      related: [readyOnNode1, readyOnNode2, readyOnNode2],
      diff: 1,
      want: [readyOnNode2],
    },
    { name: 'pending vs running, diff < len(pods)', pods: [scheduledPending, runningNotReady], diff: 1, want: [scheduledPending] },
    {
      name: 'various pod phases and conditions, diff < len(pods)',
      pods: [readyOnNode1, readyOnNode2, runningNotReady, scheduledPending, unscheduledPending],
      diff: 3,
      want: [unscheduledPending, scheduledPending, runningNotReady],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(podsToDelete(c.pods, c.related ?? c.pods, c.diff, NOW).map((p) => p.metadata.name)).toEqual(c.want.map((p) => p.metadata.name));
    });
  }
});

describe('ActivePodsWithRanks.Less (upstream TestSortingActivePodsWithRanks rules)', () => {
  const at = (msAgo: number): string => new Date(NOW - msAgo).toISOString();
  const ready = (name: string, readySince: string, created: string, extra: Partial<Pod['metadata']> = {}, restarts = 0): Pod => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, uid: name, creationTimestamp: created, ...extra },
    spec: { nodeName: 'n' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True', lastTransitionTime: readySince }], containerStatuses: [{ restartCount: restarts }] } as Pod['status'],
  });
  const cases: { name: string; a: Pod; b: Pod; rankA?: number; rankB?: number; want: boolean }[] = [
    { name: 'lower pod-deletion-cost before higher', a: ready('a', at(1000), at(5000), { annotations: { 'controller.kubernetes.io/pod-deletion-cost': '-5' } }), b: ready('b', at(1000), at(5000)), want: true },
    { name: 'doubled up before not doubled up', a: ready('a', at(1000), at(5000)), b: ready('b', at(1000), at(5000)), rankA: 2, rankB: 1, want: true },
    { name: 'ready for less time (another log2 bucket) first', a: ready('a', at(1000), at(9_000_000)), b: ready('b', at(4_000_000), at(9_000_000)), want: true },
    { name: 'ready times in one log2 bucket: the lower uid first', a: ready('b', at(1000), at(5000)), b: ready('a', at(1050), at(5000)), want: false },
    { name: 'more restarts first', a: ready('a', at(1000), at(5000), {}, 3), b: ready('b', at(1000), at(5000), {}, 1), want: true },
    { name: 'newer (another log2 bucket) first', a: ready('a', at(1000), at(10_000)), b: ready('b', at(1000), at(9_000_000)), want: true },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(deletesBefore({ pod: c.a, rank: c.rankA ?? 0 }, { pod: c.b, rank: c.rankB ?? 0 }, NOW)).toBe(c.want);
    });
  }
});

function replicaSet(replicas: number, extra: Partial<ReplicaSet['metadata']> = {}): ReplicaSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'ReplicaSet',
    metadata: { name: 'foobar', namespace: 'default', uid: 'rs-uid', generation: 1, resourceVersion: '18', ...extra },
    spec: { replicas, selector: { matchLabels: { foo: 'bar' } }, template: { metadata: { labels: { foo: 'bar', name: 'foo' } }, spec: { containers: [{ name: 'c', image: 'foo/bar' }] } } },
    status: {},
  };
}

function ownedPods(count: number, owner = 'rs-uid'): Pod[] {
  return Array.from({ length: count }, (_, i) => ({
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `pod${i}`,
      namespace: 'default',
      labels: { foo: 'bar' },
      ...(owner === '' ? {} : { ownerReferences: [{ apiVersion: 'apps/v1', kind: 'ReplicaSet', name: 'foobar', uid: owner, controller: true }] }),
    },
    spec: { nodeName: 'n' },
    status: { phase: 'Running', conditions: [{ type: 'Ready', status: 'True' }] },
  }));
}

describe('syncReplicaSet (upstream TestSyncReplicaSet*)', () => {
  const cases: { name: string; rs: ReplicaSet; pods: Pod[]; creates: number; deletes: number; patches: number }[] = [
    { name: 'TestSyncReplicaSetDoesNothing: 2 running pods, 2 replicas', rs: replicaSet(2), pods: ownedPods(2), creates: 0, deletes: 0, patches: 0 },
    { name: 'TestSyncReplicaSetDeletes: 2 replicas, 3 pods', rs: replicaSet(2), pods: ownedPods(3), creates: 0, deletes: 1, patches: 0 },
    { name: 'TestSyncReplicaSetCreates: 2 replicas, no pods', rs: replicaSet(2), pods: [], creates: 2, deletes: 0, patches: 0 },
    { name: 'adopts matching orphans (TestPatchPodFails: two patches)', rs: replicaSet(2), pods: ownedPods(2, ''), creates: 0, deletes: 0, patches: 2 },
    { name: 'TestDoNotAdoptOrCreateIfBeingDeleted', rs: replicaSet(2, { deletionTimestamp: new Date(NOW).toISOString() }), pods: ownedPods(1, ''), creates: 0, deletes: 0, patches: 0 },
    { name: 'ignores pods another controller owns', rs: replicaSet(1), pods: ownedPods(2, 'other-uid'), creates: 1, deletes: 0, patches: 0 },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const cache = new ClusterModel();
      for (const p of c.pods) cache.put('pods', p);
      const actions = syncReplicaSet(c.rs, cache, NOW);
      expect(actions.filter((a) => a.kind === 'create').length).toBe(c.creates);
      expect(actions.filter((a) => a.kind === 'delete').length).toBe(c.deletes);
      expect(actions.filter((a) => a.kind === 'update' && a.resource === 'pods').length).toBe(c.patches);
    });
  }
});

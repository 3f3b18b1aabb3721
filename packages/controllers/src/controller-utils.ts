// What the ReplicaSet and Deployment controllers share with upstream's controller_utils: the
// controller reference, which pods count as active, a pod's availability, the pod a template
// makes, and the order in which surplus pods are deleted.
// upstream (v1.33): pkg/controller/controller_utils.go (FilterActivePods, IsPodActive,
//           GetPodFromTemplate, getPodsPrefix, ActivePodsWithRanks.Less, logarithmicRankDiff,
//           afterOrZero, podReadyTime, maxContainerRestarts, getDeletionCostFromPodAnnotations),
//           pkg/api/v1/pod/util.go (IsPodAvailable), staging/src/k8s.io/apimachinery/pkg/apis/
//           meta/v1/controller_ref.go (NewControllerRef, GetControllerOf)
import { isPodReady, type KubeObject, type OwnerReference, type Pod, type PodTemplateSpec } from '@kubesvc/api-types';

/** The annotation whose int32 value orders pods for deletion (PodDeletionCost, on by default). */
export const POD_DELETION_COST = 'controller.kubernetes.io/pod-deletion-cost';

/** metav1.NewControllerRef: controller and blockOwnerDeletion true. */
export function newControllerRef(owner: KubeObject, apiVersion: string, kind: string): OwnerReference {
  return { apiVersion, kind, name: owner.metadata.name ?? '', uid: owner.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
}

/** metav1.GetControllerOf: the owner reference with controller true, if any. */
export function controllerOf(object: KubeObject): OwnerReference | undefined {
  return (object.metadata.ownerReferences ?? []).find((ref) => ref.controller === true);
}

/** Whether `object` is controlled by `owner` (its controller reference names the owner's uid). */
export function isControlledBy(object: KubeObject, owner: KubeObject): boolean {
  const ref = controllerOf(object);
  return ref !== undefined && ref.uid === owner.metadata.uid;
}

/** IsPodActive: not Succeeded, not Failed, not being deleted. */
export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && (pod.metadata.deletionTimestamp ?? null) === null;
}

function parseTime(text: string | null | undefined): number | undefined {
  if (text === null || text === undefined || text === '') return undefined;
  const t = Date.parse(text);
  return Number.isNaN(t) ? undefined : t;
}

function readyCondition(pod: Pod): { readonly status: string; readonly since: number | undefined } | undefined {
  const c = pod.status?.conditions?.find((x) => x.type === 'Ready');
  return c === undefined ? undefined : { status: c.status, since: parseTime(c.lastTransitionTime) };
}

/**
 * IsPodAvailable: ready, and ready for more than minReadySeconds (strictly: a pod ready exactly
 * minReadySeconds ago is not yet available).
 */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const ready = readyCondition(pod);
  if (ready?.status !== 'True') return false;
  if (minReadySeconds === 0) return true;
  return ready.since !== undefined && ready.since + minReadySeconds * 1000 < now;
}

/** When an available-but-not-yet pod becomes available, in ms; undefined when it never will by waiting. */
export function availableAt(pod: Pod, minReadySeconds: number): number | undefined {
  const ready = readyCondition(pod);
  if (ready?.status !== 'True' || ready.since === undefined) return undefined;
  return ready.since + minReadySeconds * 1000 + 1;
}

/**
 * GetPodFromTemplate: a pod named `<owner>-<random>` by the server, with the template's labels,
 * annotations, finalizers and spec, controlled by `controllerRef`.
 */
export function podFromTemplate(template: PodTemplateSpec | undefined, ownerName: string, namespace: string, controllerRef: OwnerReference): Pod {
  const meta = template?.metadata ?? {};
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      generateName: `${ownerName}-`,
      namespace,
      ...(meta.labels === undefined ? {} : { labels: { ...meta.labels } }),
      ...(meta.annotations === undefined ? {} : { annotations: { ...meta.annotations } }),
      ...(meta.finalizers === undefined ? {} : { finalizers: [...meta.finalizers] }),
      ownerReferences: [controllerRef],
    },
    spec: structuredClone(template?.spec ?? {}),
  };
}

const PHASE_ORDINAL: Readonly<Record<string, number>> = { Pending: 0, Unknown: 1, Running: 2 };

function deletionCost(pod: Pod): number {
  const text = pod.metadata.annotations?.[POD_DELETION_COST];
  if (text === undefined || !/^[+-]?\d+$/.test(text)) return 0;
  const n = Number(text);
  return n >= -2147483648 && n <= 2147483647 ? n : 0;
}

function maxContainerRestarts(pod: Pod): number {
  const statuses = (pod.status as { containerStatuses?: readonly { restartCount?: number }[] } | undefined)?.containerStatuses ?? [];
  return statuses.reduce((max, s) => Math.max(max, s.restartCount ?? 0), 0);
}

/** logarithmicRankDiff: the difference of the log2 buckets of two ages (in Go nanoseconds). */
function logarithmicRankDiff(t1: number, t2: number, now: number): number {
  const rank = (t: number): number => {
    const d = (now - t) * 1e6;
    return d > 0 ? Math.floor(Math.log2(d)) : -1;
  };
  return rank(t1) - rank(t2);
}

/** afterOrZero: a zero time first, then the later time. */
function afterOrZero(t1: number | undefined, t2: number | undefined): boolean {
  if (t1 === undefined || t2 === undefined) return t1 === undefined;
  return t1 > t2;
}

export interface RankedPod {
  readonly pod: Pod;
  /** How many related pods share its node (getPodsRankedByRelatedPodsOnSameNode). */
  readonly rank: number;
}

/**
 * ActivePodsWithRanks.Less with LogarithmicScaleDown on: whether pod `a` is deleted before `b`.
 * 1. unscheduled first; 2. Pending, Unknown, Running; 3. not ready first; 4. lower
 * pod-deletion-cost; 5. more related pods on its node; 6. ready for less time (log2 buckets,
 * uid to break a tie); 7. more container restarts; 8. newer (log2 buckets, uid to break a tie).
 */
export function deletesBefore(a: RankedPod, b: RankedPod, now: number): boolean {
  const pa = a.pod;
  const pb = b.pod;
  const nodeA = pa.spec?.nodeName ?? '';
  const nodeB = pb.spec?.nodeName ?? '';
  if (nodeA !== nodeB && (nodeA === '' || nodeB === '')) return nodeA === '';
  const phaseA = PHASE_ORDINAL[pa.status?.phase ?? ''] ?? 0;
  const phaseB = PHASE_ORDINAL[pb.status?.phase ?? ''] ?? 0;
  if (phaseA !== phaseB) return phaseA < phaseB;
  if (isPodReady(pa) !== isPodReady(pb)) return !isPodReady(pa);
  const costA = deletionCost(pa);
  const costB = deletionCost(pb);
  if (costA !== costB) return costA < costB;
  if (a.rank !== b.rank) return a.rank > b.rank;
  if (isPodReady(pa) && isPodReady(pb)) {
    const ra = readyCondition(pa)?.since;
    const rb = readyCondition(pb)?.since;
    if (ra !== rb) {
      if (ra === undefined || rb === undefined) return afterOrZero(ra, rb);
      const diff = logarithmicRankDiff(ra, rb, now);
      if (diff === 0) return (pa.metadata.uid ?? '') < (pb.metadata.uid ?? '');
      return diff < 0;
    }
  }
  const restartsA = maxContainerRestarts(pa);
  const restartsB = maxContainerRestarts(pb);
  if (restartsA !== restartsB) return restartsA > restartsB;
  const ca = parseTime(pa.metadata.creationTimestamp);
  const cb = parseTime(pb.metadata.creationTimestamp);
  if (ca !== cb) {
    if (ca === undefined || cb === undefined) return afterOrZero(ca, cb);
    const diff = logarithmicRankDiff(ca, cb, now);
    if (diff === 0) return (pa.metadata.uid ?? '') < (pb.metadata.uid ?? '');
    return diff < 0;
  }
  return false;
}

/**
 * getPodsToDelete: the `count` pods to delete first. Each pod's rank is the number of `related`
 * pods (those of every ReplicaSet of the same owner) on its node. The sort is stable, with the
 * input order (key order) for pods the comparison cannot tell apart (docs/deviations.md).
 */
export function podsToDelete(pods: readonly Pod[], related: readonly Pod[], count: number, now: number): Pod[] {
  if (count >= pods.length) return [...pods];
  const onNode = new Map<string, number>();
  for (const p of related) {
    const node = p.spec?.nodeName ?? '';
    onNode.set(node, (onNode.get(node) ?? 0) + 1);
  }
  const ranked: RankedPod[] = pods.map((pod) => ({ pod, rank: onNode.get(pod.spec?.nodeName ?? '') ?? 0 }));
  ranked.sort((a, b) => (deletesBefore(a, b, now) ? -1 : deletesBefore(b, a, now) ? 1 : 0));
  return ranked.slice(0, count).map((r) => r.pod);
}

// The ReplicaSet controller: keeps spec.replicas active pods for each ReplicaSet, made from its
// template, adopting orphans its selector matches and releasing the pods it controls that the
// selector no longer matches; surplus pods are deleted in upstream's order; the status counts
// what it saw (replicas, fullyLabeledReplicas, readyReplicas, availableReplicas with
// minReadySeconds) at the ReplicaSet's generation.
// upstream (v1.33): pkg/controller/replicaset/replica_set.go (syncReplicaSet, manageReplicas,
//           getPodsToDelete, getIndirectlyRelatedPods, getPodReplicaSets, claimPods,
//           burstReplicas), replica_set_utils.go (calculateStatus, updateReplicaSetStatus),
//           pkg/controller/controller_ref_manager.go (ClaimPods: adopt, release)
//
// Upstream's expectations (not acting again before its own creates and deletes are seen) are
// the host's: a key is held until the informer has caught up with its writes.
import { isPodReady, labelSelectorMatches, type AppsCondition, type Pod, type ReplicaSet, type ReplicaSetStatus } from '@kubesvc/api-types';
import { semanticEqual } from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';
import { availableAt, controllerOf, isControlledBy, isPodActive, isPodAvailable, newControllerRef, podFromTemplate, podsToDelete } from './controller-utils.js';
import { namespacedKey, splitKey } from './keys.js';

export const REPLICASET_CONTROLLER_NAME = 'replicaset-controller';

/** The most pods created or deleted in one sync. upstream: BurstReplicas */
export const BURST_REPLICAS = 500;

const APPS_V1 = 'apps/v1';

function matchesTemplateLabels(rs: ReplicaSet, pod: Pod): boolean {
  const labels = rs.spec?.template?.metadata?.labels ?? {};
  return Object.entries(labels).every(([k, v]) => pod.metadata.labels?.[k] === v);
}

/** calculateStatus: the counts over the ReplicaSet's active pods, ReplicaFailure conditions kept. */
export function replicaSetStatus(rs: ReplicaSet, pods: readonly Pod[], now: number): ReplicaSetStatus {
  const minReady = rs.spec?.minReadySeconds ?? 0;
  let fullyLabeled = 0;
  let ready = 0;
  let available = 0;
  for (const pod of pods) {
    if (matchesTemplateLabels(rs, pod)) fullyLabeled++;
    if (isPodReady(pod)) {
      ready++;
      if (isPodAvailable(pod, minReady, now)) available++;
    }
  }
  const conditions: AppsCondition[] | undefined = rs.status?.conditions;
  return {
    replicas: pods.length,
    ...(fullyLabeled > 0 ? { fullyLabeledReplicas: fullyLabeled } : {}),
    ...(ready > 0 ? { readyReplicas: ready } : {}),
    ...(available > 0 ? { availableReplicas: available } : {}),
    ...(rs.metadata.generation === undefined ? {} : { observedGeneration: rs.metadata.generation }),
    ...(conditions === undefined || conditions.length === 0 ? {} : { conditions }),
  };
}

/** The ReplicaSets of the same controlling owner (getReplicaSetsWithSameController), or the one alone. */
function relatedReplicaSets(rs: ReplicaSet, cache: CacheView): ReplicaSet[] {
  const owner = controllerOf(rs);
  if (owner === undefined) return [rs];
  return cache.list<ReplicaSet>('replicasets', rs.metadata.namespace ?? '').filter((other) => controllerOf(other)?.uid === owner.uid);
}

/** The writes of one ReplicaSet's sync. */
export function syncReplicaSet(rs: ReplicaSet, cache: CacheView, now: number): ReconcileAction[] {
  const namespace = rs.metadata.namespace ?? '';
  const actions: ReconcileAction[] = [];
  const selector = rs.spec?.selector;
  const deleting = (rs.metadata.deletionTimestamp ?? null) !== null;
  const namespacePods = cache.list<Pod>('pods', namespace);
  // claimPods over the active pods: keep what it controls and still selects, release what it
  // controls and no longer selects, adopt orphans it selects (not while it is being deleted).
  const owned: Pod[] = [];
  for (const pod of namespacePods) {
    if (!isPodActive(pod)) continue;
    const ref = controllerOf(pod);
    const selected = labelSelectorMatches(selector, pod.metadata.labels);
    if (ref !== undefined) {
      if (ref.uid !== rs.metadata.uid) continue;
      if (selected) owned.push(pod);
      else if (!deleting) {
        const ownerReferences = (pod.metadata.ownerReferences ?? []).filter((r) => r.uid !== rs.metadata.uid);
        const { ownerReferences: _o, ...meta } = pod.metadata;
        actions.push({ kind: 'update', resource: 'pods', namespace, object: { ...pod, metadata: { ...meta, ...(ownerReferences.length > 0 ? { ownerReferences } : {}) } } });
      }
      continue;
    }
    if (!selected || deleting) continue;
    const adopted: Pod = { ...pod, metadata: { ...pod.metadata, ownerReferences: [...(pod.metadata.ownerReferences ?? []), newControllerRef(rs, APPS_V1, 'ReplicaSet')] } };
    actions.push({ kind: 'update', resource: 'pods', namespace, object: adopted });
    owned.push(adopted);
  }
  const wanted = rs.spec?.replicas ?? 1;
  if (!deleting) {
    const diff = owned.length - wanted;
    if (diff < 0) {
      const count = Math.min(-diff, BURST_REPLICAS);
      const ref = newControllerRef(rs, APPS_V1, 'ReplicaSet');
      for (let i = 0; i < count; i++) actions.push({ kind: 'create', resource: 'pods', namespace, object: podFromTemplate(rs.spec?.template, rs.metadata.name ?? '', namespace, ref) });
    } else if (diff > 0) {
      const relatedUIDs = new Set(relatedReplicaSets(rs, cache).map((r) => r.metadata.uid));
      const related = namespacePods.filter((p) => relatedUIDs.has(controllerOf(p)?.uid));
      for (const pod of podsToDelete(owned, related, Math.min(diff, BURST_REPLICAS), now)) {
        const rv = pod.metadata.resourceVersion;
        actions.push({ kind: 'delete', resource: 'pods', namespace, name: pod.metadata.name ?? '', ...(rv === undefined ? {} : { resourceVersion: rv }) });
      }
    }
  }
  const status = replicaSetStatus(rs, owned, now);
  if (!semanticEqual(status, rs.status ?? {})) {
    actions.push({ kind: 'update', resource: 'replicasets', namespace, subresource: 'status', object: { ...rs, status } });
  }
  // Pods ready but not yet available for minReadySeconds: look again when the first one is.
  const minReady = rs.spec?.minReadySeconds ?? 0;
  if (minReady > 0 && (status.readyReplicas ?? 0) === wanted && (status.availableReplicas ?? 0) !== wanted) {
    const next = owned.map((p) => availableAt(p, minReady)).filter((t): t is number => t !== undefined && t > now);
    const at = next.length === 0 ? now + minReady * 1000 : Math.min(...next);
    actions.push({ kind: 'requeue-after', key: namespacedKey(namespace, rs.metadata.name ?? ''), afterMs: at - now });
  }
  return actions;
}

/** getPodReplicaSets: the ReplicaSets in the pod's namespace whose selector matches its labels. */
function replicaSetsSelecting(pod: Pod, cache: CacheView): string[] {
  const namespace = pod.metadata.namespace ?? '';
  return cache
    .list<ReplicaSet>('replicasets', namespace)
    .filter((rs) => labelSelectorMatches(rs.spec?.selector, pod.metadata.labels))
    .map((rs) => namespacedKey(namespace, rs.metadata.name ?? ''));
}

function podKeys(pod: Pod, cache: CacheView): string[] {
  const ref = controllerOf(pod);
  if (ref === undefined) return replicaSetsSelecting(pod, cache);
  if (ref.kind !== 'ReplicaSet' || ref.apiVersion.split('/')[0] !== 'apps') return [];
  const rs = cache.get<ReplicaSet>('replicasets', pod.metadata.namespace ?? '', ref.name);
  return rs !== undefined && isControlledBy(pod, rs) ? [namespacedKey(pod.metadata.namespace ?? '', ref.name)] : [];
}

function keysFor(change: CacheChange, cache: CacheView): string[] {
  const { object } = change;
  if (change.resource === 'replicasets') return [namespacedKey(object.metadata.namespace ?? '', object.metadata.name ?? '')];
  if (change.resource !== 'pods' || object.kind !== 'Pod') return [];
  const keys = new Set(podKeys(object, cache));
  if (change.old?.kind === 'Pod') for (const k of podKeys(change.old, cache)) keys.add(k);
  return [...keys];
}

/** The ReplicaSet controller as a keyed controller (keys are ReplicaSet keys). */
export function replicaSetController(): KeyedController {
  return {
    name: REPLICASET_CONTROLLER_NAME,
    watches: ['replicasets', 'pods'],
    keysFor,
    reconcile(key, cache, now) {
      const { namespace, name } = splitKey(key);
      const rs = cache.get<ReplicaSet>('replicasets', namespace, name);
      return rs === undefined ? [] : syncReplicaSet(rs, cache, now);
    },
  };
}

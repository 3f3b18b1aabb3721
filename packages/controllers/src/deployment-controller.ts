// The deployment controller: for each Deployment, a ReplicaSet per pod template (named
// `<deployment>-<pod-template-hash>`, selector and labels carrying the hash), scaled as the
// strategy says: RollingUpdate within maxSurge and maxUnavailable, Recreate all old pods gone
// first; proportional scaling when the Deployment is scaled mid-rollout; revision annotations;
// old ReplicaSets beyond revisionHistoryLimit deleted; the status and the Available and
// Progressing conditions with upstream's reasons.
// upstream (v1.33): pkg/controller/deployment/deployment_controller.go (syncDeployment,
//           getReplicaSetsForDeployment, the event handlers), sync.go (sync, getNewReplicaSet,
//           scale, scaleReplicaSet, cleanupDeployment, calculateStatus, isScalingEvent),
//           rolling.go (rolloutRolling, reconcileNewReplicaSet, reconcileOldReplicaSets,
//           cleanupUnhealthyReplicas, scaleDownOldReplicaSetsForRollingUpdate), recreate.go
//           (rolloutRecreate, oldPodsRunning), progress.go (syncRolloutStatus,
//           requeueStuckDeployment)
//
// A sync here writes each object at most once: the ReplicaSets it changes, then the
// Deployment's status (with its revision annotation, which upstream also writes through
// UpdateStatus). Where upstream writes the same object twice in one sync and loses the second
// write to a conflict, this writes the merged result once. Creating the new ReplicaSet ends a
// sync; the next one (on its ADDED) carries on. Rollback (spec.rollbackTo) is not modelled.
import { isEmptyLabelSelector, labelSelectorMatches, type Deployment, type DeploymentStatus, type Pod, type ReplicaSet } from '@kubesvc/api-types';
import { semanticEqual } from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';
import { controllerOf, newControllerRef } from './controller-utils.js';
import {
  DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY,
  DESIRED_REPLICAS_ANNOTATION,
  REASONS,
  REVISION_ANNOTATION,
  activeReplicaSets,
  byCreation,
  computeHash,
  conditionOf,
  deploymentComplete,
  deploymentProgressing,
  deploymentTimedOut,
  desiredOf,
  findActiveOrLatest,
  findNewReplicaSet,
  hasProgressDeadline,
  isRollingUpdate,
  isSaturated,
  maxRevision,
  maxSurge,
  maxUnavailable,
  newCondition,
  newRSNewReplicas,
  proportion,
  removeCondition,
  replicasOf,
  revisionOf,
  setCondition,
  setNewReplicaSetAnnotations,
  setReplicasAnnotations,
  sumAvailable,
  sumReady,
  sumSpecReplicas,
  sumStatusReplicas,
} from './deployment-util.js';
import { namespacedKey, splitKey } from './keys.js';

export const DEPLOYMENT_CONTROLLER_NAME = 'deployment-controller';
const APPS_V1 = 'apps/v1';
/** A failed sync's first retry: the default controller rate limiter's base delay. */
const RETRY_MS = 5;

function rfc3339(ms: number): string {
  return new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** One sync's view: the ReplicaSets as this sync leaves them, which it changed, and what else it asked for. */
class Sync {
  readonly rss = new Map<string, ReplicaSet>();
  readonly changed = new Set<string>();
  readonly actions: ReconcileAction[] = [];
  annotations: Record<string, string>;
  status: DeploymentStatus;

  constructor(
    readonly d: Deployment,
    owned: readonly ReplicaSet[],
    readonly now: number,
  ) {
    for (const rs of owned) this.rss.set(rs.metadata.name ?? '', rs);
    this.annotations = { ...d.metadata.annotations };
    this.status = d.status ?? {};
  }

  get namespace(): string {
    return this.d.metadata.namespace ?? '';
  }

  get(rs: ReplicaSet): ReplicaSet {
    return this.rss.get(rs.metadata.name ?? '') ?? rs;
  }

  put(rs: ReplicaSet): void {
    this.rss.set(rs.metadata.name ?? '', rs);
    this.changed.add(rs.metadata.name ?? '');
  }

  event(reason: string, message: string, type: 'Normal' | 'Warning' = 'Normal'): void {
    const d = this.d;
    this.actions.push({
      kind: 'event',
      event: {
        recorder: 'core/v1',
        reportingController: DEPLOYMENT_CONTROLLER_NAME,
        regarding: { resource: 'deployments', apiVersion: APPS_V1, kind: 'Deployment', namespace: this.namespace, name: d.metadata.name ?? '' },
        type,
        reason,
        message,
      },
    });
  }

  /** scaleReplicaSet: size and replica annotations, with the ScalingReplicaSet event on a size change. */
  scale(target: ReplicaSet, size: number, operation?: 'up' | 'down'): boolean {
    const rs = this.get(target);
    const annotations = { ...rs.metadata.annotations };
    const annotationsChanged = setReplicasAnnotations(annotations, desiredOf(this.d), desiredOf(this.d) + maxSurge(this.d));
    const sizeChanged = replicasOf(rs) !== size;
    if (!sizeChanged && !annotationsChanged) return false;
    this.put({ ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...rs.spec, replicas: size } });
    if (sizeChanged) {
      const op = operation ?? (replicasOf(rs) < size ? 'up' : 'down');
      this.event('ScalingReplicaSet', `Scaled ${op} replica set ${rs.metadata.name ?? ''} from ${replicasOf(rs)} to ${size}`);
    }
    return sizeChanged;
  }

  current(): ReplicaSet[] {
    return [...this.rss.values()];
  }

  /** The writes: changed ReplicaSets (preconditioned on the version read), then the Deployment's status. */
  finish(): ReconcileAction[] {
    const out: ReconcileAction[] = [];
    for (const name of [...this.changed].sort()) {
      const rs = this.rss.get(name);
      if (rs !== undefined) out.push({ kind: 'update', resource: 'replicasets', namespace: this.namespace, object: rs });
    }
    for (const a of this.actions) if (a.kind === 'delete') out.push(a);
    const annotationsChanged = !semanticEqual(this.annotations, { ...this.d.metadata.annotations });
    if (annotationsChanged || !semanticEqual(this.status, this.d.status ?? {})) {
      const metadata = { ...this.d.metadata, ...(Object.keys(this.annotations).length > 0 ? { annotations: this.annotations } : {}) };
      out.push({ kind: 'update', resource: 'deployments', namespace: this.namespace, subresource: 'status', object: { ...this.d, metadata, status: this.status } });
    }
    for (const a of this.actions) if (a.kind !== 'delete') out.push(a);
    return out;
  }
}

/** The Deployment's ReplicaSets after claiming (adopting orphans it selects, releasing those it no longer selects). */
function claimReplicaSets(d: Deployment, cache: CacheView, actions: ReconcileAction[]): ReplicaSet[] {
  const namespace = d.metadata.namespace ?? '';
  const deleting = (d.metadata.deletionTimestamp ?? null) !== null;
  const owned: ReplicaSet[] = [];
  for (const rs of cache.list<ReplicaSet>('replicasets', namespace)) {
    const ref = controllerOf(rs);
    const selected = labelSelectorMatches(d.spec?.selector, rs.metadata.labels);
    if (ref !== undefined) {
      if (ref.uid !== d.metadata.uid) continue;
      if (selected) owned.push(rs);
      else if (!deleting) {
        const refs = (rs.metadata.ownerReferences ?? []).filter((r) => r.uid !== d.metadata.uid);
        const { ownerReferences: _o, ...meta } = rs.metadata;
        actions.push({ kind: 'update', resource: 'replicasets', namespace, object: { ...rs, metadata: { ...meta, ...(refs.length > 0 ? { ownerReferences: refs } : {}) } } });
      }
      continue;
    }
    if (!selected || deleting || (rs.metadata.deletionTimestamp ?? null) !== null) continue;
    const adopted: ReplicaSet = { ...rs, metadata: { ...rs.metadata, ownerReferences: [...(rs.metadata.ownerReferences ?? []), newControllerRef(d, APPS_V1, 'Deployment')] } };
    actions.push({ kind: 'update', resource: 'replicasets', namespace, object: adopted });
    owned.push(adopted);
  }
  return owned;
}

/** The new ReplicaSet getNewReplicaSet would create: template, labels and selector carrying the hash. */
export function newReplicaSetFor(d: Deployment, oldRSs: readonly ReplicaSet[]): ReplicaSet {
  const hash = computeHash(d.spec?.template, d.status?.collisionCount);
  const template = d.spec?.template ?? {};
  const labels = { ...template.metadata?.labels, [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash };
  const selector = d.spec?.selector ?? {};
  const rs: ReplicaSet = {
    apiVersion: APPS_V1,
    kind: 'ReplicaSet',
    metadata: { name: `${d.metadata.name ?? ''}-${hash}`, namespace: d.metadata.namespace ?? '', labels, ownerReferences: [newControllerRef(d, APPS_V1, 'Deployment')] },
    spec: {
      replicas: 0,
      minReadySeconds: d.spec?.minReadySeconds ?? 0,
      selector: { ...selector, matchLabels: { ...selector.matchLabels, [DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY]: hash } },
      template: { ...template, metadata: { ...template.metadata, labels } },
    },
  };
  const replicas = newRSNewReplicas(d, [...oldRSs, rs], rs);
  const annotations: Record<string, string> = {};
  setNewReplicaSetAnnotations(d, annotations, maxRevision(oldRSs) + 1, false);
  return { ...rs, metadata: { ...rs.metadata, annotations }, spec: { ...rs.spec, replicas } };
}

/**
 * getNewReplicaSet for an existing new ReplicaSet: its annotations and minReadySeconds brought
 * up to date, the Deployment's revision set from it, and FoundNewReplicaSet when no Progressing
 * condition exists yet.
 */
function syncExistingNewRS(s: Sync, newRS: ReplicaSet, oldRSs: readonly ReplicaSet[]): ReplicaSet {
  const annotations = { ...newRS.metadata.annotations };
  const annotationsChanged = setNewReplicaSetAnnotations(s.d, annotations, maxRevision(oldRSs) + 1, true);
  const minReady = s.d.spec?.minReadySeconds ?? 0;
  if (annotationsChanged || (newRS.spec?.minReadySeconds ?? 0) !== minReady) {
    s.put({ ...newRS, metadata: { ...newRS.metadata, annotations }, spec: { ...newRS.spec, minReadySeconds: minReady } });
    return s.get(newRS);
  }
  const revision = annotations[REVISION_ANNOTATION];
  if (revision !== undefined && s.annotations[REVISION_ANNOTATION] !== revision) s.annotations = { ...s.annotations, [REVISION_ANNOTATION]: revision };
  if (hasProgressDeadline(s.d) && conditionOf(s.status, 'Progressing') === undefined) {
    s.status = setCondition(s.status, newCondition('Progressing', 'True', REASONS.foundNewRS, `Found new replica set "${newRS.metadata.name ?? ''}"`, rfc3339(s.now)));
  }
  return newRS;
}

/** calculateStatus: the counts over the ReplicaSets, and the Available condition. */
function calculateStatus(s: Sync, newRS: ReplicaSet | undefined): DeploymentStatus {
  const all = s.current();
  const available = sumAvailable(all);
  const unavailable = Math.max(0, sumSpecReplicas(all) - available);
  let status: DeploymentStatus = {
    ...(s.d.metadata.generation === undefined ? {} : { observedGeneration: s.d.metadata.generation }),
    replicas: sumStatusReplicas(all),
    updatedReplicas: newRS === undefined ? 0 : (s.get(newRS).status?.replicas ?? 0),
    readyReplicas: sumReady(all),
    availableReplicas: available,
    unavailableReplicas: unavailable,
    ...(s.status.conditions === undefined ? {} : { conditions: s.status.conditions }),
    ...(s.d.status?.collisionCount === undefined ? {} : { collisionCount: s.d.status.collisionCount }),
  };
  const now = rfc3339(s.now);
  status =
    available >= desiredOf(s.d) - maxUnavailable(s.d)
      ? setCondition(status, newCondition('Available', 'True', REASONS.minimumReplicasAvailable, 'Deployment has minimum availability.', now))
      : setCondition(status, newCondition('Available', 'False', REASONS.minimumReplicasUnavailable, 'Deployment does not have minimum availability.', now));
  // Go's omitempty: zero counts are not written.
  const out: Record<string, unknown> = { ...status };
  for (const k of ['replicas', 'updatedReplicas', 'readyReplicas', 'availableReplicas', 'unavailableReplicas']) if (out[k] === 0) delete out[k];
  return out as DeploymentStatus;
}

/** syncRolloutStatus: calculateStatus and the Progressing condition; a requeue for the progress deadline. */
function syncRolloutStatus(s: Sync, newRS: ReplicaSet | undefined): void {
  let status = calculateStatus(s, newRS);
  if (!hasProgressDeadline(s.d)) status = removeCondition(status, 'Progressing');
  const current = conditionOf(s.status, 'Progressing');
  const complete = (status.replicas ?? 0) === (status.updatedReplicas ?? 0) && current?.reason === REASONS.newRSAvailable;
  const now = rfc3339(s.now);
  const name = newRS?.metadata.name;
  if (hasProgressDeadline(s.d) && !complete) {
    if (deploymentComplete(s.d, status)) {
      const msg = name === undefined ? `Deployment "${s.d.metadata.name ?? ''}" has successfully progressed.` : `ReplicaSet "${name}" has successfully progressed.`;
      status = setCondition(status, newCondition('Progressing', 'True', REASONS.newRSAvailable, msg, now));
    } else if (deploymentProgressing(s.d, status)) {
      const msg = name === undefined ? `Deployment "${s.d.metadata.name ?? ''}" is progressing.` : `ReplicaSet "${name}" is progressing.`;
      let condition = newCondition('Progressing', 'True', REASONS.replicaSetUpdated, msg, now);
      if (current !== undefined) {
        if (current.status === 'True') condition = { ...condition, lastTransitionTime: current.lastTransitionTime ?? null };
        status = removeCondition(status, 'Progressing');
      }
      status = setCondition(status, condition);
    } else if (deploymentTimedOut(s.d, status, s.now)) {
      const msg = name === undefined ? `Deployment "${s.d.metadata.name ?? ''}" has timed out progressing.` : `ReplicaSet "${name}" has timed out progressing.`;
      status = setCondition(status, newCondition('Progressing', 'False', REASONS.timedOut, msg, now));
    }
  }
  s.status = status;
  // requeueStuckDeployment: look again when the progress deadline passes.
  const cond = conditionOf(status, 'Progressing');
  if (hasProgressDeadline(s.d) && cond !== undefined && !deploymentComplete(s.d, status) && cond.reason !== REASONS.timedOut) {
    const from = Date.parse(cond.lastUpdateTime ?? '');
    if (!Number.isNaN(from)) {
      const after = from + (s.d.spec?.progressDeadlineSeconds ?? 0) * 1000 - s.now;
      s.actions.push({ kind: 'requeue-after', key: namespacedKey(s.namespace, s.d.metadata.name ?? ''), afterMs: Math.max(after, 0) + 1000 });
    }
  }
}

/** scale: the Deployment's replica count spread over its ReplicaSets (proportionally mid-rollout). */
function scale(s: Sync, newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): void {
  const d = s.d;
  const activeOrLatest = findActiveOrLatest(newRS === undefined ? undefined : s.get(newRS), oldRSs.map((rs) => s.get(rs)));
  if (activeOrLatest !== undefined) {
    if (replicasOf(activeOrLatest) !== desiredOf(d)) s.scale(activeOrLatest, desiredOf(d));
    return;
  }
  if (isSaturated(d, newRS === undefined ? undefined : s.get(newRS))) {
    for (const old of activeReplicaSets(oldRSs.map((rs) => s.get(rs)))) s.scale(old, 0);
    return;
  }
  if (!isRollingUpdate(d)) return;
  const all = activeReplicaSets([...oldRSs, ...(newRS === undefined ? [] : [newRS])].map((rs) => s.get(rs)));
  const allowed = desiredOf(d) > 0 ? desiredOf(d) + maxSurge(d) : 0;
  const toAdd = allowed - sumSpecReplicas(all);
  // ReplicaSetsBySizeNewer (scaling up) or BySizeOlder (down): larger first, then newer or older first.
  const newerFirst = toAdd > 0;
  all.sort((a, b) => replicasOf(b) - replicasOf(a) || (newerFirst ? byCreation(b, a) : byCreation(a, b)));
  let added = 0;
  const sizes = new Map<string, number>();
  for (const rs of all) {
    const p = toAdd !== 0 ? proportion(rs, d, toAdd, added) : 0;
    sizes.set(rs.metadata.name ?? '', replicasOf(rs) + p);
    added += p;
  }
  all.forEach((rs, i) => {
    let size = sizes.get(rs.metadata.name ?? '') ?? 0;
    if (i === 0 && toAdd !== 0) size = Math.max(0, size + toAdd - added);
    s.scale(rs, size, toAdd > 0 ? 'up' : toAdd < 0 ? 'down' : undefined);
  });
}

/** cleanupDeployment: old ReplicaSets beyond revisionHistoryLimit, lowest revision first, once they are empty. */
function cleanup(s: Sync, oldRSs: readonly ReplicaSet[]): void {
  const limit = s.d.spec?.revisionHistoryLimit;
  if (limit === undefined) return;
  const cleanable = oldRSs.map((rs) => s.get(rs)).filter((rs) => (rs.metadata.deletionTimestamp ?? null) === null);
  const diff = cleanable.length - limit;
  if (diff <= 0) return;
  cleanable.sort((a, b) => revisionOf(a) - revisionOf(b) || byCreation(a, b));
  for (const rs of cleanable.slice(0, diff)) {
    if ((rs.status?.replicas ?? 0) !== 0 || replicasOf(rs) !== 0 || (rs.metadata.generation ?? 0) > (rs.status?.observedGeneration ?? 0)) continue;
    const rv = rs.metadata.resourceVersion;
    s.actions.push({ kind: 'delete', resource: 'replicasets', namespace: s.namespace, name: rs.metadata.name ?? '', ...(rv === undefined ? {} : { resourceVersion: rv }) });
  }
}

/** rolloutRolling after the new ReplicaSet exists; 'retry' where upstream's sync fails. */
function rolloutRolling(s: Sync, newRS: ReplicaSet, oldRSs: readonly ReplicaSet[]): 'retry' | undefined {
  const d = s.d;
  const all = (): ReplicaSet[] => s.current();
  // reconcileNewReplicaSet
  const cur = s.get(newRS);
  if (replicasOf(cur) !== desiredOf(d)) {
    const size = replicasOf(cur) > desiredOf(d) ? desiredOf(d) : newRSNewReplicas(d, all(), cur);
    if (s.scale(cur, size)) {
      syncRolloutStatus(s, newRS);
      return undefined;
    }
  }
  // reconcileOldReplicaSets
  const olds = activeReplicaSets(oldRSs.map((rs) => s.get(rs)));
  if (sumSpecReplicas(olds) > 0) {
    const minAvailable = desiredOf(d) - maxUnavailable(d);
    const newNow = s.get(newRS);
    const maxScaledDown = sumSpecReplicas(all()) - minAvailable - (replicasOf(newNow) - (newNow.status?.availableReplicas ?? 0));
    if (maxScaledDown > 0) {
      let cleaned = 0;
      for (const target of [...olds].sort(byCreation)) {
        if (cleaned >= maxScaledDown) break;
        const rs = s.get(target);
        const avail = rs.status?.availableReplicas ?? 0;
        if (replicasOf(rs) === 0 || replicasOf(rs) === avail) continue;
        const count = Math.min(maxScaledDown - cleaned, replicasOf(rs) - avail);
        // More available than wanted (its status predates a scale-down): upstream refuses to
        // "scale down" upwards and retries the sync with backoff; nothing is written.
        if (count < 0) return 'retry';
        s.scale(rs, replicasOf(rs) - count);
        cleaned += count;
      }
      let scaledDown = 0;
      const available = sumAvailable(all());
      if (available > minAvailable) {
        const total = available - minAvailable;
        for (const target of [...olds].sort(byCreation)) {
          if (scaledDown >= total) break;
          const rs = s.get(target);
          if (replicasOf(rs) === 0) continue;
          const count = Math.min(replicasOf(rs), total - scaledDown);
          s.scale(rs, replicasOf(rs) - count);
          scaledDown += count;
        }
      }
      if (cleaned + scaledDown > 0) {
        syncRolloutStatus(s, newRS);
        return undefined;
      }
    }
  }
  if (deploymentComplete(d, d.status ?? {})) cleanup(s, oldRSs);
  syncRolloutStatus(s, newRS);
  return undefined;
}

/** oldPodsRunning: old ReplicaSets still report pods, or a pod of theirs is not finished. */
function oldPodsRunning(s: Sync, newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[], cache: CacheView): boolean {
  if (oldRSs.some((rs) => (s.get(rs).status?.replicas ?? 0) > 0)) return true;
  const oldUIDs = new Set(oldRSs.map((rs) => rs.metadata.uid));
  return cache.list<Pod>('pods', s.namespace).some((p) => {
    const uid = controllerOf(p)?.uid;
    if (uid === undefined || !oldUIDs.has(uid) || uid === newRS?.metadata.uid) return false;
    return p.status?.phase !== 'Failed' && p.status?.phase !== 'Succeeded';
  });
}

/** The writes of one Deployment's sync. */
export function syncDeployment(d: Deployment, cache: CacheView, now: number): ReconcileAction[] {
  const claimActions: ReconcileAction[] = [];
  if (isEmptyLabelSelector(d.spec?.selector)) {
    // An empty selector would select every pod: upstream records SelectingAll and only observes the generation.
    const s = new Sync(d, [], now);
    s.event('SelectingAll', 'This deployment is selecting all pods. A non-empty selector is required.', 'Warning');
    if ((d.status?.observedGeneration ?? 0) < (d.metadata.generation ?? 0)) s.status = { ...s.status, observedGeneration: d.metadata.generation ?? 0 };
    return s.finish();
  }
  const owned = claimReplicaSets(d, cache, claimActions);
  if (claimActions.length > 0) return claimActions;
  const s = new Sync(d, owned, now);
  const newFound = findNewReplicaSet(d, owned);
  const oldRSs = owned.filter((rs) => rs.metadata.uid !== newFound?.metadata.uid);
  const deleting = (d.metadata.deletionTimestamp ?? null) !== null;
  let newRS = newFound === undefined ? undefined : syncExistingNewRS(s, newFound, oldRSs);
  const recreate = d.spec?.strategy?.type === 'Recreate';
  if (deleting) {
    calculateStatusOnly(s, newRS);
    return s.finish();
  }
  // checkPausedConditions
  if (hasProgressDeadline(d)) {
    const cond = conditionOf(s.status, 'Progressing');
    const paused = d.spec?.paused === true;
    if (paused && cond?.reason !== REASONS.timedOut && cond?.reason !== REASONS.paused) {
      s.status = setCondition(s.status, newCondition('Progressing', 'Unknown', REASONS.paused, 'Deployment is paused', rfc3339(now)));
    } else if (!paused && cond?.reason === REASONS.paused) {
      s.status = setCondition(s.status, newCondition('Progressing', 'Unknown', REASONS.resumed, 'Deployment is resumed', rfc3339(now)));
    }
  }
  const scalingEvent = activeReplicaSets([...oldRSs, ...(newRS === undefined ? [] : [newRS])]).some((rs) => {
    const desired = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
    return desired !== undefined && desired !== String(desiredOf(d));
  });
  if (d.spec?.paused === true || scalingEvent) {
    scale(s, newRS, oldRSs);
    if (d.spec?.paused === true) cleanup(s, oldRSs);
    calculateStatusOnly(s, newRS);
    return s.finish();
  }
  if (recreate) {
    const activeOld = activeReplicaSets(oldRSs.map((rs) => s.get(rs)));
    if (activeOld.length > 0) {
      for (const rs of activeOld) s.scale(rs, 0);
      syncRolloutStatus(s, newRS);
      return s.finish();
    }
    if (oldPodsRunning(s, newRS, oldRSs, cache)) {
      syncRolloutStatus(s, newRS);
      return s.finish();
    }
  }
  if (newRS === undefined) return createNewReplicaSet(s, oldRSs, cache);
  newRS = s.get(newRS);
  if (recreate) {
    s.scale(newRS, desiredOf(d));
    if (deploymentComplete(d, d.status ?? {})) cleanup(s, oldRSs);
    syncRolloutStatus(s, newRS);
  } else if (rolloutRolling(s, newRS, oldRSs) === 'retry') {
    return [{ kind: 'requeue-after', key: namespacedKey(d.metadata.namespace ?? '', d.metadata.name ?? ''), afterMs: RETRY_MS }];
  }
  return s.finish();
}

/** syncDeploymentStatus: calculateStatus alone, written when it changed. */
function calculateStatusOnly(s: Sync, newRS: ReplicaSet | undefined): void {
  s.status = calculateStatus(s, newRS);
}

/**
 * getNewReplicaSet with createIfNotExisted: the new ReplicaSet, the Deployment's revision and
 * the NewReplicaSetCreated condition. A ReplicaSet of that name with another template is a
 * hash collision: the collision count goes up and the next sync tries another name.
 */
function createNewReplicaSet(s: Sync, oldRSs: readonly ReplicaSet[], cache: CacheView): ReconcileAction[] {
  const d = s.d;
  const rs = newReplicaSetFor(d, oldRSs);
  const name = rs.metadata.name ?? '';
  const existing = cache.get<ReplicaSet>('replicasets', s.namespace, name);
  if (existing !== undefined) {
    if (controllerOf(existing)?.uid === d.metadata.uid && equalTemplates(existing, d)) return [];
    s.status = { ...s.status, collisionCount: (d.status?.collisionCount ?? 0) + 1 };
    return s.finish();
  }
  const revision = rs.metadata.annotations?.[REVISION_ANNOTATION];
  if (revision !== undefined) s.annotations = { ...s.annotations, [REVISION_ANNOTATION]: revision };
  if (hasProgressDeadline(d)) s.status = setCondition(s.status, newCondition('Progressing', 'True', REASONS.newReplicaSetCreated, `Created new replica set "${name}"`, rfc3339(s.now)));
  const create: ReconcileAction = { kind: 'create', resource: 'replicasets', namespace: s.namespace, object: rs };
  if (replicasOf(rs) > 0) s.event('ScalingReplicaSet', `Scaled up replica set ${name} from 0 to ${replicasOf(rs)}`);
  return [create, ...s.finish()];
}

function equalTemplates(rs: ReplicaSet, d: Deployment): boolean {
  return findNewReplicaSet(d, [rs]) !== undefined;
}

function deploymentKeysForReplicaSet(rs: ReplicaSet, cache: CacheView): string[] {
  const namespace = rs.metadata.namespace ?? '';
  const ref = controllerOf(rs);
  if (ref !== undefined) {
    if (ref.kind !== 'Deployment') return [];
    const d = cache.get<Deployment>('deployments', namespace, ref.name);
    return d !== undefined && d.metadata.uid === ref.uid ? [namespacedKey(namespace, ref.name)] : [];
  }
  return cache
    .list<Deployment>('deployments', namespace)
    .filter((d) => !isEmptyLabelSelector(d.spec?.selector) && labelSelectorMatches(d.spec?.selector, rs.metadata.labels))
    .map((d) => namespacedKey(namespace, d.metadata.name ?? ''));
}

function keysFor(change: CacheChange, cache: CacheView): string[] {
  const { object } = change;
  switch (change.resource) {
    case 'deployments':
      return [namespacedKey(object.metadata.namespace ?? '', object.metadata.name ?? '')];
    case 'replicasets': {
      if (object.kind !== 'ReplicaSet') return [];
      const keys = new Set(deploymentKeysForReplicaSet(object, cache));
      if (change.old?.kind === 'ReplicaSet') for (const k of deploymentKeysForReplicaSet(change.old, cache)) keys.add(k);
      return [...keys];
    }
    case 'pods': {
      // deletePod: a Recreate Deployment waits for its old pods to go.
      if (change.type !== 'DELETED' || object.kind !== 'Pod') return [];
      const ref = controllerOf(object);
      if (ref?.kind !== 'ReplicaSet') return [];
      const rs = cache.get<ReplicaSet>('replicasets', object.metadata.namespace ?? '', ref.name);
      if (rs === undefined) return [];
      const keys = deploymentKeysForReplicaSet(rs, cache);
      return keys.filter((k) => {
        const { namespace, name } = splitKey(k);
        return cache.get<Deployment>('deployments', namespace, name)?.spec?.strategy?.type === 'Recreate';
      });
    }
    default:
      return [];
  }
}

/** The deployment controller as a keyed controller (keys are Deployment keys). */
export function deploymentController(): KeyedController {
  return {
    name: DEPLOYMENT_CONTROLLER_NAME,
    watches: ['deployments', 'replicasets', 'pods'],
    keysFor,
    reconcile(key, cache, now) {
      const { namespace, name } = splitKey(key);
      const d = cache.get<Deployment>('deployments', namespace, name);
      return d === undefined ? [] : syncDeployment(d, cache, now);
    },
  };
}

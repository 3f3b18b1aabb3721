// The deployment controller's helpers, as upstream's deployment util: the pod-template-hash and
// the ReplicaSet name it gives, the rolling-update fenceposts, the revision and replica-count
// annotations, the conditions and their reasons, and the counts summed over ReplicaSets.
// upstream (v1.33): pkg/controller/deployment/util/deployment_util.go (ComputeHash via
//           pkg/controller/controller_utils.go, MaxRevision, SetNewReplicaSetAnnotations,
//           copyDeploymentAnnotationsToReplicaSet, SetReplicasAnnotations,
//           ReplicasAnnotationsNeedUpdate, MaxUnavailable, MaxSurge, ResolveFenceposts,
//           NewRSNewReplicas, IsSaturated, FindActiveOrLatest, FindNewReplicaSet, EqualIgnoreHash,
//           DeploymentComplete, DeploymentProgressing, DeploymentTimedOut, GetProportion,
//           getReplicaSetFraction, NewDeploymentCondition, SetDeploymentCondition),
//           staging/src/k8s.io/apimachinery/pkg/util/intstr/intstr.go
//           (GetScaledValueFromIntOrPercent), staging/src/k8s.io/apimachinery/pkg/util/rand/
//           rand.go (SafeEncodeString)
import { semanticEqual, type AppsCondition, type Deployment, type DeploymentStatus, type PodTemplateSpec, type ReplicaSet } from '@kubesvc/api-types';

export const DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY = 'pod-template-hash';
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
const LAST_APPLIED = 'kubectl.kubernetes.io/last-applied-configuration';
const DEPRECATED_ROLLBACK_TO = 'deprecated.deployment.rollback.to';

// Condition reasons. upstream: deployment_util.go
export const REASONS = {
  replicaSetUpdated: 'ReplicaSetUpdated',
  failedRSCreate: 'ReplicaSetCreateError',
  newReplicaSetCreated: 'NewReplicaSetCreated',
  foundNewRS: 'FoundNewReplicaSet',
  newRSAvailable: 'NewReplicaSetAvailable',
  timedOut: 'ProgressDeadlineExceeded',
  paused: 'DeploymentPaused',
  resumed: 'DeploymentResumed',
  minimumReplicasAvailable: 'MinimumReplicasAvailable',
  minimumReplicasUnavailable: 'MinimumReplicasUnavailable',
} as const;

/** The characters SafeEncodeString maps to: no vowels, no digits or letters that read alike. */
const ALPHANUMS = 'bcdfghjklmnpqrstvwxz2456789';

/** rand.SafeEncodeString. */
export function safeEncodeString(s: string): string {
  let out = '';
  for (let i = 0; i < s.length; i++) out += ALPHANUMS[s.charCodeAt(i) % ALPHANUMS.length] ?? '';
  return out;
}

/** FNV-1a, 32 bits, over bytes. */
export function fnv32a(bytes: Uint8Array, seed = 0x811c9dc5): number {
  let h = seed >>> 0;
  for (const b of bytes) {
    h ^= b;
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

function canonicalJSON(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJSON).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value as Record<string, unknown>).filter(([, v]) => v !== undefined);
    entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJSON(v)}`).join(',')}}`;
  }
  return JSON.stringify(value) ?? 'null';
}

/**
 * controller.ComputeHash: FNV-32a over the template, then the collision count's four bytes
 * (little-endian) when there is one, printed in decimal and safe-encoded. Upstream hashes the
 * Go struct as spew prints it; this hashes the template's canonical JSON (docs/deviations.md),
 * so the names differ from a real cluster's while keeping their form and stability.
 */
export function computeHash(template: PodTemplateSpec | undefined, collisionCount?: number): string {
  const enc = new TextEncoder();
  let bytes = enc.encode(canonicalJSON(template ?? {}));
  if (collisionCount !== undefined) {
    const extra = new Uint8Array(4);
    new DataView(extra.buffer).setUint32(0, collisionCount >>> 0, true);
    const joined = new Uint8Array(bytes.length + 4);
    joined.set(bytes);
    joined.set(extra, bytes.length);
    bytes = joined;
  }
  return safeEncodeString(String(fnv32a(bytes)));
}

export function replicasOf(rs: ReplicaSet): number {
  return rs.spec?.replicas ?? 1;
}

export function desiredOf(d: Deployment): number {
  return d.spec?.replicas ?? 1;
}

/** intstr.GetScaledValueFromIntOrPercent. */
export function scaledValue(value: number | string | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const m = /^(-?\d+)%$/.exec(value);
  if (m === null) return 0;
  const pct = Number(m[1]);
  return roundUp ? Math.ceil((pct * total) / 100) : Math.floor((pct * total) / 100);
}

export function isRollingUpdate(d: Deployment): boolean {
  return d.spec?.strategy?.type === 'RollingUpdate';
}

/** ResolveFenceposts: maxSurge rounded up, maxUnavailable down; both zero makes maxUnavailable 1. */
export function resolveFenceposts(d: Deployment): { readonly surge: number; readonly unavailable: number } {
  const rolling = d.spec?.strategy?.rollingUpdate;
  const desired = desiredOf(d);
  const surge = scaledValue(rolling?.maxSurge, desired, true);
  let unavailable = scaledValue(rolling?.maxUnavailable, desired, false);
  if (surge === 0 && unavailable === 0) unavailable = 1;
  return { surge, unavailable };
}

export function maxSurge(d: Deployment): number {
  return isRollingUpdate(d) ? resolveFenceposts(d).surge : 0;
}

export function maxUnavailable(d: Deployment): number {
  if (!isRollingUpdate(d) || desiredOf(d) === 0) return 0;
  return Math.min(resolveFenceposts(d).unavailable, desiredOf(d));
}

export function revisionOf(rs: ReplicaSet): number {
  const text = rs.metadata.annotations?.[REVISION_ANNOTATION] ?? '';
  return /^\d+$/.test(text) ? Number(text) : 0;
}

/** MaxRevision over ReplicaSets. */
export function maxRevision(rss: readonly ReplicaSet[]): number {
  return rss.reduce((max, rs) => Math.max(max, revisionOf(rs)), 0);
}

const SKIP_COPY = new Set([LAST_APPLIED, REVISION_ANNOTATION, REVISION_HISTORY_ANNOTATION, DESIRED_REPLICAS_ANNOTATION, MAX_REPLICAS_ANNOTATION, DEPRECATED_ROLLBACK_TO]);

/** SetReplicasAnnotations: desired-replicas and max-replicas; whether anything changed. */
export function setReplicasAnnotations(annotations: Record<string, string>, desired: number, max: number): boolean {
  let changed = false;
  if (annotations[DESIRED_REPLICAS_ANNOTATION] !== String(desired)) {
    annotations[DESIRED_REPLICAS_ANNOTATION] = String(desired);
    changed = true;
  }
  if (annotations[MAX_REPLICAS_ANNOTATION] !== String(max)) {
    annotations[MAX_REPLICAS_ANNOTATION] = String(max);
    changed = true;
  }
  return changed;
}

/**
 * SetNewReplicaSetAnnotations: the Deployment's own annotations copied, the revision raised to
 * `newRevision` (keeping the old one in revision-history when it changes), and, for a
 * ReplicaSet about to be created, the replica annotations. Returns whether anything changed.
 */
export function setNewReplicaSetAnnotations(d: Deployment, annotations: Record<string, string>, newRevision: number, exists: boolean): boolean {
  let changed = false;
  for (const [k, v] of Object.entries(d.metadata.annotations ?? {})) {
    if (SKIP_COPY.has(k) || annotations[k] === v) continue;
    annotations[k] = v;
    changed = true;
  }
  const had = Object.hasOwn(annotations, REVISION_ANNOTATION);
  const oldText = annotations[REVISION_ANNOTATION] ?? '';
  if (oldText !== '' && !/^\d+$/.test(oldText)) return false;
  const oldRevision = oldText === '' ? 0 : Number(oldText);
  if (oldRevision < newRevision) {
    annotations[REVISION_ANNOTATION] = String(newRevision);
    changed = true;
    if (had) {
      const history = annotations[REVISION_HISTORY_ANNOTATION] ?? '';
      annotations[REVISION_HISTORY_ANNOTATION] = history === '' ? oldText : `${history},${oldText}`;
    }
  }
  if (!exists && setReplicasAnnotations(annotations, desiredOf(d), desiredOf(d) + maxSurge(d))) changed = true;
  return changed;
}

/** EqualIgnoreHash: templates equal once the pod-template-hash label is left out of both. */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  const strip = (t: PodTemplateSpec | undefined): unknown => {
    const labels = { ...t?.metadata?.labels };
    delete labels[DEFAULT_DEPLOYMENT_UNIQUE_LABEL_KEY];
    const metadata = { ...t?.metadata, labels: Object.keys(labels).length === 0 ? undefined : labels };
    return { ...t, metadata };
  };
  return semanticEqual(strip(a), strip(b));
}

function creationOf(rs: ReplicaSet): number {
  const t = Date.parse(rs.metadata.creationTimestamp ?? '');
  return Number.isNaN(t) ? 0 : t;
}

/** ReplicaSetsByCreationTimestamp: oldest first, then by name. */
export function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  const d = creationOf(a) - creationOf(b);
  if (d !== 0) return d;
  const na = a.metadata.name ?? '';
  const nb = b.metadata.name ?? '';
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/** FindNewReplicaSet: the oldest ReplicaSet whose template is the Deployment's (hash aside). */
export function findNewReplicaSet(d: Deployment, rss: readonly ReplicaSet[]): ReplicaSet | undefined {
  return [...rss].sort(byCreation).find((rs) => equalIgnoreHash(rs.spec?.template, d.spec?.template));
}

/** FilterActiveReplicaSets: those with replicas in their spec. */
export function activeReplicaSets(rss: readonly (ReplicaSet | undefined)[]): ReplicaSet[] {
  return rss.filter((rs): rs is ReplicaSet => rs !== undefined && replicasOf(rs) > 0);
}

export const sumSpecReplicas = (rss: readonly (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + (rs === undefined ? 0 : replicasOf(rs)), 0);
export const sumStatusReplicas = (rss: readonly (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + (rs?.status?.replicas ?? 0), 0);
export const sumReady = (rss: readonly (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + (rs?.status?.readyReplicas ?? 0), 0);
export const sumAvailable = (rss: readonly (ReplicaSet | undefined)[]): number => rss.reduce((n, rs) => n + (rs?.status?.availableReplicas ?? 0), 0);

/** FindActiveOrLatest: the one active ReplicaSet, or the newest when none is active; undefined for several. */
export function findActiveOrLatest(newRS: ReplicaSet | undefined, oldRSs: readonly ReplicaSet[]): ReplicaSet | undefined {
  if (newRS === undefined && oldRSs.length === 0) return undefined;
  const sorted = [...oldRSs].sort(byCreation).reverse();
  const all = newRS === undefined ? sorted : [newRS, ...sorted];
  const active = activeReplicaSets(all);
  if (active.length === 0) return newRS ?? sorted[0];
  return active.length === 1 ? active[0] : undefined;
}

/** IsSaturated: the new ReplicaSet wants, has been told and has available all the replicas. */
export function isSaturated(d: Deployment, rs: ReplicaSet | undefined): boolean {
  if (rs === undefined) return false;
  const desired = rs.metadata.annotations?.[DESIRED_REPLICAS_ANNOTATION];
  return desired === String(desiredOf(d)) && replicasOf(rs) === desiredOf(d) && (rs.status?.availableReplicas ?? 0) === desiredOf(d);
}

/** NewRSNewReplicas: how big the new ReplicaSet may be now. */
export function newRSNewReplicas(d: Deployment, allRSs: readonly (ReplicaSet | undefined)[], newRS: ReplicaSet): number {
  if (!isRollingUpdate(d)) return desiredOf(d);
  const surge = scaledValue(d.spec?.strategy?.rollingUpdate?.maxSurge, desiredOf(d), true);
  const current = sumSpecReplicas(allRSs);
  const maxTotal = desiredOf(d) + surge;
  if (current >= maxTotal) return replicasOf(newRS);
  return replicasOf(newRS) + Math.min(maxTotal - current, desiredOf(d) - replicasOf(newRS));
}

/** getReplicaSetFraction and GetProportion: a ReplicaSet's share of a proportional scale. */
export function proportion(rs: ReplicaSet, d: Deployment, toAdd: number, added: number): number {
  if (replicasOf(rs) === 0 || toAdd === 0 || toAdd === added) return 0;
  let fraction: number;
  if (desiredOf(d) === 0) fraction = -replicasOf(rs);
  else {
    const maxNow = desiredOf(d) + maxSurge(d);
    const annotated = Number(rs.metadata.annotations?.[MAX_REPLICAS_ANNOTATION] ?? 'x');
    const before = Number.isInteger(annotated) && annotated !== 0 ? annotated : (d.status?.replicas ?? 0);
    // integer.RoundToInt32: math.Round, half away from zero.
    const size = (replicasOf(rs) * maxNow) / before;
    fraction = Math.sign(size) * Math.round(Math.abs(size)) - replicasOf(rs);
  }
  const allowed = toAdd - added;
  return toAdd > 0 ? Math.min(fraction, allowed) : Math.max(fraction, allowed);
}

export function conditionOf(status: DeploymentStatus | undefined, type: string): AppsCondition | undefined {
  return status?.conditions?.find((c) => c.type === type);
}

export function newCondition(type: string, status: 'True' | 'False' | 'Unknown', reason: string, message: string, now: string): AppsCondition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

/** SetDeploymentCondition: replaces the condition of that type unless status and reason are the same; keeps the transition time when the status is. */
export function setCondition(status: DeploymentStatus, condition: AppsCondition): DeploymentStatus {
  const current = conditionOf(status, condition.type);
  if (current !== undefined && current.status === condition.status && current.reason === condition.reason) return status;
  const next = current !== undefined && current.status === condition.status ? { ...condition, lastTransitionTime: current.lastTransitionTime ?? null } : condition;
  return { ...status, conditions: [...(status.conditions ?? []).filter((c) => c.type !== condition.type), next] };
}

export function removeCondition(status: DeploymentStatus, type: string): DeploymentStatus {
  if (status.conditions === undefined) return status;
  const conditions = status.conditions.filter((c) => c.type !== type);
  const { conditions: _c, ...rest } = status;
  return conditions.length === 0 ? rest : { ...rest, conditions };
}

export function hasProgressDeadline(d: Deployment): boolean {
  const s = d.spec?.progressDeadlineSeconds;
  return s !== undefined && s !== 2147483647;
}

/** DeploymentComplete. */
export function deploymentComplete(d: Deployment, status: DeploymentStatus): boolean {
  const n = desiredOf(d);
  return (status.updatedReplicas ?? 0) === n && (status.replicas ?? 0) === n && (status.availableReplicas ?? 0) === n && (status.observedGeneration ?? 0) >= (d.metadata.generation ?? 0);
}

/** DeploymentProgressing: more updated, fewer old, more ready or more available pods than before. */
export function deploymentProgressing(d: Deployment, status: DeploymentStatus): boolean {
  const old = d.status ?? {};
  const oldOld = (old.replicas ?? 0) - (old.updatedReplicas ?? 0);
  const newOld = (status.replicas ?? 0) - (status.updatedReplicas ?? 0);
  return (status.updatedReplicas ?? 0) > (old.updatedReplicas ?? 0) || newOld < oldOld || (status.readyReplicas ?? 0) > (old.readyReplicas ?? 0) || (status.availableReplicas ?? 0) > (old.availableReplicas ?? 0);
}

/** DeploymentTimedOut: the Progressing condition last updated more than progressDeadlineSeconds ago. */
export function deploymentTimedOut(d: Deployment, status: DeploymentStatus, now: number): boolean {
  if (!hasProgressDeadline(d)) return false;
  const c = conditionOf(status, 'Progressing');
  if (c === undefined || c.reason === REASONS.newRSAvailable) return false;
  if (c.reason === REASONS.timedOut) return true;
  const from = Date.parse(c.lastUpdateTime ?? '');
  return !Number.isNaN(from) && from + (d.spec?.progressDeadlineSeconds ?? 0) * 1000 < now;
}

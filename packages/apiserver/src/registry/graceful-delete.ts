// Graceful deletion, the part of a delete that decides before anything is written: whether the
// object is given a deletionTimestamp in the future and stays (a pod the kubelet has to stop),
// has its pending deletion brought forward, is already on its way (a delete asking for no
// shorter grace period changes nothing), or goes through the kind's ordinary delete.
// upstream (v1.33): staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go (BeforeDelete),
//           staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Delete,
//           updateForGracefulDeletionAndFinalizers, markAsDeleting)
import type { KubeObject, ObjectMeta } from '@kubesvc/api-types';
import { metaOf, withMeta } from './common.js';
import { formatTimestamp } from './names.js';
import type { RestStrategy } from './strategy.js';

export type GracefulStep =
  /** No graceful deletion (the kind has none, or the grace period already ran out): the kind's ordinary delete. */
  | { readonly kind: 'ordinary' }
  /** Already being deleted and no shorter grace period asked for: answer with the object as stored. */
  | { readonly kind: 'pending' }
  /** Write `object` (its deletionTimestamp and deletionGracePeriodSeconds set); delete it after when `grace` is 0. */
  | { readonly kind: 'graceful'; readonly object: KubeObject; readonly grace: number };

/** Go's time.Parse of a metav1.Time, in ms; NaN when it does not parse. */
function parseTimestamp(text: string): number {
  return Date.parse(text);
}

/**
 * BeforeDelete for one stored object, at `nowMs`, with the grace period the request asked for
 * (`requested`, absent when it named none). Pure.
 */
export function gracefulDeleteStep(strategy: RestStrategy, object: KubeObject, requested: number | undefined, nowMs: number): GracefulStep {
  const check = strategy.checkGracefulDelete;
  if (check === undefined) return { kind: 'ordinary' };
  // A negative grace period, asked for or stored, counts as 1 s.
  const asked = requested !== undefined && requested < 0 ? 1 : requested;
  const meta = metaOf(object);
  const storedGrace = meta.deletionGracePeriodSeconds ?? null;
  const current = storedGrace !== null && storedGrace < 0 ? 1 : storedGrace;
  if (meta.deletionTimestamp) {
    // Being deleted with its grace period spent (or none recorded): it goes now.
    if (current === null || current === 0) return { kind: 'ordinary' };
    // Only a shorter grace period moves the deletion: it comes that much earlier.
    if (asked === undefined || asked >= current) return { kind: 'pending' };
    const at = parseTimestamp(meta.deletionTimestamp) - current * 1000 + asked * 1000;
    const next: ObjectMeta = { ...meta, deletionTimestamp: formatTimestamp(at), deletionGracePeriodSeconds: asked };
    return { kind: 'graceful', object: withMeta(object, next), grace: asked };
  }
  const grace = check(object, asked);
  const next: ObjectMeta = { ...meta, deletionTimestamp: formatTimestamp(nowMs + grace * 1000), deletionGracePeriodSeconds: grace };
  // The first deletionTimestamp changes what controllers of the object do: a set generation moves.
  if (meta.generation !== undefined && meta.generation > 0) next.generation = meta.generation + 1;
  return { kind: 'graceful', object: withMeta(object, next), grace };
}

/** metav1.FinalizerOrphanDependents and metav1.FinalizerDeleteDependents: the garbage collector's. */
export const FINALIZER_ORPHAN = 'orphan';
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

/**
 * deletionFinalizersForGarbageCollection: the finalizers a delete with `policy` leaves on the
 * object, or undefined when they do not change. Orphan asks the garbage collector to orphan the
 * dependents first, Foreground to delete them first, Background neither; without a policy the
 * object keeps whichever of the two it has (every kind here deletes dependents by default).
 */
export function finalizersForGarbageCollection(object: KubeObject, policy: 'Orphan' | 'Background' | 'Foreground' | undefined): readonly string[] | undefined {
  if (policy === undefined) return undefined;
  const current = metaOf(object).finalizers ?? [];
  const next = current.filter((f) => f !== FINALIZER_ORPHAN && f !== FINALIZER_FOREGROUND);
  if (policy === 'Orphan') next.push(FINALIZER_ORPHAN);
  if (policy === 'Foreground') next.push(FINALIZER_FOREGROUND);
  const same = new Set(current).size === new Set(next).size && next.every((f) => current.includes(f));
  return same ? undefined : next;
}

/** The object with these finalizers (none: the field goes). */
export function withFinalizers(object: KubeObject, finalizers: readonly string[]): KubeObject {
  const { finalizers: _f, ...meta } = metaOf(object);
  return withMeta(object, finalizers.length === 0 ? meta : { ...meta, finalizers: [...finalizers] });
}

/**
 * markAsDeleting: an object with finalizers whose delete is not graceful keeps existing, marked
 * with a deletionTimestamp no later than now and a grace period of 0, until the last finalizer
 * is taken off.
 */
export function markAsDeleting(object: KubeObject, nowMs: number): KubeObject {
  const meta = metaOf(object);
  const next: ObjectMeta = { ...meta, deletionGracePeriodSeconds: 0 };
  if (!meta.deletionTimestamp && meta.generation !== undefined && meta.generation > 0) next.generation = meta.generation + 1;
  const now = formatTimestamp(nowMs);
  if (!meta.deletionTimestamp || parseTimestamp(meta.deletionTimestamp) > parseTimestamp(now)) next.deletionTimestamp = now;
  return withMeta(object, next);
}

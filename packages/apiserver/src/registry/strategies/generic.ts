// The strategy parts most kinds share: api-types' defaulting and validation through the
// pure adapters, no preparation, and the generic store's delete of an object with finalizers.
import type { KubeObject } from '@kubesvc/api-types';
import { validateObjectCreate, validateObjectUpdate, type ValidationResult } from '../pure-adapters.js';
import type { DeleteDecision } from '../strategy.js';

export function validateGeneric(object: KubeObject): ValidationResult<KubeObject> {
  return validateObjectCreate(object);
}

export function validateUpdateGeneric(object: KubeObject, old: KubeObject): ValidationResult<KubeObject> {
  return validateObjectUpdate(object, old);
}

export function unchanged(object: KubeObject): KubeObject {
  return object;
}

/**
 * The generic store's Delete for an object with finalizers: it is not deleted but marked, its
 * deletionTimestamp set (once; a second delete keeps the first time) and
 * deletionGracePeriodSeconds 0, and it goes when an update leaves it with no finalizer
 * (persistUpdate, for strategies with `deleteWhenFinalized`). Without finalizers it goes at once.
 * upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Delete,
 *           updateForGracefulDeletionAndFinalizers, markAsDeleting, shouldDeleteDuringUpdate)
 */
export function deleteUnlessFinalizers(object: KubeObject, now: string): DeleteDecision {
  const meta = object.metadata;
  if ((meta.finalizers ?? []).length === 0) return { action: 'delete' };
  if (meta.deletionTimestamp) return { action: 'update', object };
  return { action: 'update', object: { ...object, metadata: { ...meta, deletionTimestamp: now, deletionGracePeriodSeconds: 0 } } };
}

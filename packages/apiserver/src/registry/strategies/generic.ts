// The strategy parts most kinds share: api-types' defaulting and validation through the
// pure adapters, and no preparation.
import type { KubeObject } from '@kubesvc/api-types';
import { validateObjectCreate, validateObjectUpdate, type ValidationResult } from '../pure-adapters.js';

export function validateGeneric(object: KubeObject): ValidationResult<KubeObject> {
  return validateObjectCreate(object);
}

export function validateUpdateGeneric(object: KubeObject, old: KubeObject): ValidationResult<KubeObject> {
  return validateObjectUpdate(object, old);
}

export function unchanged(object: KubeObject): KubeObject {
  return object;
}

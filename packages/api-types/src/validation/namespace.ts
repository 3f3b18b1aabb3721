// Namespace validation on create, update and status update.
// upstream (v1.32): pkg/apis/core/validation/validation.go
//   ValidateNamespace, validateFinalizerName, validateKubeFinalizerName, ValidateNamespaceUpdate,
//   ValidateNamespaceStatusUpdate
// upstream (v1.32): staging/src/k8s.io/apimachinery/pkg/api/validation/objectmeta.go
//   ValidateFinalizerName
import type { Namespace } from '../objects/namespace.js';
import { fieldPath } from './field-path.js';
import { invalid, type FieldError } from './field-errors.js';
import { isQualifiedName, validateNamespaceName } from './names.js';
import { STANDARD_FINALIZERS, validateObjectMeta, validateObjectMetaUpdate } from './object-meta.js';

const META = fieldPath('metadata');

/**
 * ValidateNamespace. spec.finalizers errors sit on `spec.finalizers` itself, without an
 * index, as upstream reports them.
 */
export function validateNamespace(namespace: Namespace): FieldError[] {
  const errs = validateObjectMeta(namespace.metadata, { namespaced: false, validateName: validateNamespaceName }, META);
  const path = fieldPath('spec', 'finalizers');
  for (const finalizer of namespace.spec?.finalizers ?? []) {
    for (const msg of isQualifiedName(finalizer)) errs.push(invalid(path, finalizer, msg));
    if (!finalizer.includes('/') && !STANDARD_FINALIZERS.has(finalizer)) {
      errs.push(invalid(path, finalizer, 'name is neither a standard finalizer name nor is it fully qualified'));
    }
  }
  return errs;
}

/** ValidateNamespaceUpdate: only the metadata rules; spec and status have their own subresources. */
export function validateNamespaceUpdate(namespace: Namespace, oldNamespace: Namespace): FieldError[] {
  return validateObjectMetaUpdate(namespace.metadata, oldNamespace.metadata, META);
}

/**
 * ValidateNamespaceStatusUpdate: the phase follows deletionTimestamp. The path really is
 * `status.Phase`, capitalised, in upstream.
 */
export function validateNamespaceStatusUpdate(namespace: Namespace, oldNamespace: Namespace): FieldError[] {
  const errs = validateObjectMetaUpdate(namespace.metadata, oldNamespace.metadata, META);
  const phase = namespace.status?.phase ?? '';
  const path = fieldPath('status', 'Phase');
  const deleting = namespace.metadata.deletionTimestamp !== undefined && namespace.metadata.deletionTimestamp !== null;
  if (!deleting) {
    if (phase !== 'Active') errs.push(invalid(path, phase, "may only be 'Active' if `deletionTimestamp` is empty"));
  } else if (phase !== 'Terminating') {
    errs.push(invalid(path, phase, "may only be 'Terminating' if `deletionTimestamp` is not empty"));
  }
  return errs;
}

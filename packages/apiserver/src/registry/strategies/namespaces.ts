// Namespaces: the `kubernetes` finalizer and phase Active on create; an update keeps the
// stored finalizers and status; a delete makes the namespace Terminating first, refuses
// while finalizers remain, and deletes it once they are gone. NamespaceLifecycle admission
// refuses to delete the immortal namespaces.
// upstream: pkg/registry/core/namespace/strategy.go (PrepareForCreate, PrepareForUpdate),
//           pkg/registry/core/namespace/storage/storage.go (Delete),
//           staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go
import type { KubeObject, Namespace } from '@kubesvc/api-types';
import { conflictError, forbiddenError } from '../errors.js';
import type { RestStrategy } from '../strategy.js';
import { unchanged, validateGeneric, validateUpdateGeneric } from './generic.js';

/**
 * The namespaces NamespaceLifecycle admission never lets be deleted.
 * upstream: staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go
 *           (Register: metav1.NamespaceDefault, NamespaceSystem, NamespacePublic)
 */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

const GR = { group: '', resource: 'namespaces' } as const;

export const namespaceStrategy: RestStrategy = {
  prepareForCreate(object: KubeObject): KubeObject {
    if (object.kind !== 'Namespace') return unchanged(object);
    const finalizers = object.spec?.finalizers ?? [];
    return { ...object, spec: { ...object.spec, finalizers: finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'] }, status: { phase: 'Active' } };
  },
  validate: validateGeneric,
  prepareForUpdate(object: KubeObject, old: KubeObject): KubeObject {
    if (object.kind !== 'Namespace' || old.kind !== 'Namespace') return object;
    const out: Namespace = { ...object, spec: { ...object.spec, ...(old.spec?.finalizers ? { finalizers: old.spec.finalizers } : {}) } };
    return old.status === undefined ? out : { ...out, status: old.status };
  },
  validateUpdate: validateUpdateGeneric,
  admitDelete(name: string) {
    return IMMORTAL_NAMESPACES.has(name) ? forbiddenError(GR, name, 'this namespace may not be deleted') : undefined;
  },
  decideDelete(object: KubeObject, now: string) {
    if (object.kind !== 'Namespace') return { action: 'delete' };
    const ns: Namespace = object;
    if (!ns.metadata.deletionTimestamp) {
      const terminating: Namespace = { ...ns, metadata: { ...ns.metadata, deletionTimestamp: now }, status: { ...ns.status, phase: 'Terminating' } };
      return { action: 'update', object: terminating };
    }
    if ((ns.spec?.finalizers ?? []).length > 0) {
      return {
        action: 'refuse',
        error: conflictError(
          GR,
          ns.metadata.name ?? '',
          'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
        ),
      };
    }
    return { action: 'delete' };
  },
};

// Pods: phase Pending on create; the main resource keeps the stored status; the status
// subresource keeps the stored owner references too.
// upstream: pkg/registry/core/pod/strategy.go (PrepareForCreate, PrepareForUpdate,
//           podStatusStrategy.PrepareForUpdate)
import type { KubeObject, ObjectMeta } from '@kubesvc/api-types';
import { metaOf } from '../common.js';
import { keepStoredStatus, type RestStrategy } from '../strategy.js';
import { validateGeneric, validateUpdateGeneric } from './generic.js';

export const podStrategy: RestStrategy = {
  prepareForCreate(object: KubeObject): KubeObject {
    return object.kind === 'Pod' ? { ...object, status: { phase: 'Pending' } } : object;
  },
  validate: validateGeneric,
  prepareForUpdate(object: KubeObject, old: KubeObject): KubeObject {
    return object.kind === 'Pod' && old.kind === 'Pod' ? keepStoredStatus(object, old) : object;
  },
  validateUpdate: validateUpdateGeneric,
  prepareForStatusUpdate(object: KubeObject, old: KubeObject): KubeObject {
    const meta: ObjectMeta = { ...metaOf(object) };
    const oldOwners = metaOf(old).ownerReferences;
    if (oldOwners === undefined) delete meta.ownerReferences;
    else meta.ownerReferences = oldOwners;
    return { ...object, metadata: meta } as KubeObject;
  },
};

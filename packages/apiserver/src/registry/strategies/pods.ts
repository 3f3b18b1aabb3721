// Pods: phase Pending on create; the main resource keeps the stored status; the status
// subresource keeps the stored owner references too. A delete is graceful: the grace period
// is the request's, else the pod's terminationGracePeriodSeconds, and 0 for a pod on no node
// or one that has finished; an update that takes the last finalizer off a pod whose grace
// period has run out deletes it.
// upstream (v1.33): pkg/registry/core/pod/strategy.go (PrepareForCreate, PrepareForUpdate,
//           podStatusStrategy.PrepareForUpdate, CheckGracefulDelete)
import type { KubeObject, ObjectMeta, Pod } from '@kubesvc/api-types';
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
  checkGracefulDelete(object: KubeObject, requested: number | undefined): number {
    if (object.kind !== 'Pod') return 0;
    const pod: Pod = object;
    const fromSpec = (pod.spec as Record<string, unknown> | undefined)?.['terminationGracePeriodSeconds'];
    let period = requested ?? (typeof fromSpec === 'number' ? fromSpec : 0);
    // Never scheduled, or already finished: nothing runs that could take time to stop.
    if ((pod.spec?.nodeName ?? '') === '') period = 0;
    const phase = pod.status?.phase;
    if (phase === 'Failed' || phase === 'Succeeded') period = 0;
    return period < 0 ? 1 : period;
  },
};

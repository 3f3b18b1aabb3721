// delete: admission (the kind's admitDelete), the preconditions (rest.BeforeDelete), then
// graceful deletion for the kinds that have it (a pod gets its deletionTimestamp and stays,
// graceful-delete.ts), the garbage collector's finalizer the propagation policy asks for, and
// an object that finalizers keep is marked instead of deleted; a kind with its own storage
// decides (a namespace goes Terminating first); else the key goes in one txn with what goes
// with it (a Service's Endpoints), and afterDelete gives back what a Service held.
// upstream (v1.33): staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go (BeforeDelete),
//           staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Delete,
//           updateForGracefulDeletionAndFinalizers, deletionFinalizersForGarbageCollection),
//           pkg/registry/core/namespace/storage/storage.go (Delete),
//           pkg/registry/core/service/storage/storage.go (afterDelete)
import { err, ok, type KubeObject } from '@kubesvc/api-types';
import type { KeyValue, TxnOp } from '@kubesvc/store';
import { MAX_RETRIES, metaOf, storeFailure } from '../common.js';
import type { RegistryCore } from '../core.js';
import { conflictError, notFoundError, OPTIMISTIC_LOCK_ERROR_MSG, type ApiError } from '../errors.js';
import { groupResource, objectKey, RESOURCES, type ResourceInfo, type ResourceName } from '../resources.js';
import { finalizersForGarbageCollection, gracefulDeleteStep, markAsDeleting, withFinalizers } from '../graceful-delete.js';
import { isGenericStore } from '../strategy.js';
import { deserializeObject, serializeObject } from '../stored-object.js';
import type { DeleteOptions, DeleteOutcome, RegistryResult } from '../types.js';
import { persistUpdate } from './update.js';

export async function deleteObject<T extends KubeObject = KubeObject>(
  core: RegistryCore,
  resource: ResourceName,
  namespace: string,
  name: string,
  options?: DeleteOptions,
): Promise<RegistryResult<DeleteOutcome<T>>> {
  const info = RESOURCES[resource];
  const gr = groupResource(info);
  const strategy = info.strategy;
  // Admission runs before the storage reads anything: the immortal namespaces are refused
  // whether or not they exist.
  const refusal = strategy.admitDelete?.(name);
  if (refusal !== undefined) return err(refusal);
  const key = objectKey(info, info.namespaced ? namespace : '', name);
  try {
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      const { kv } = await core.store.get(key);
      if (kv === undefined) return err(notFoundError(gr, name));
      const object = deserializeObject<T>(kv);
      const refused = preconditionFailure(info, name, options?.preconditions, metaOf(object).uid ?? '', String(kv.modRevision));
      if (refused !== undefined) return err(refused);
      // No options at all is a delete with a grace period of 0, as upstream's store reads nil options.
      const step = gracefulDeleteStep(strategy, object, options === undefined ? 0 : options.gracePeriodSeconds, core.clock.now());
      if (step.kind === 'pending') return ok({ object, deleted: false });
      // The propagation policy's finalizer for the garbage collector, on every kind whose
      // storage is the generic one (a namespace's has its own delete).
      const generic = isGenericStore(strategy);
      const gc = generic ? finalizersForGarbageCollection(step.kind === 'graceful' ? step.object : object, options?.propagationPolicy) : undefined;
      if (step.kind === 'graceful') {
        const r = await gracefulWrite(core, resource, (gc === undefined ? step.object : withFinalizers(step.object, gc)) as T, step.grace, kv);
        if (r === 'conflict') continue;
        return ok(r);
      }
      const finalizers = gc ?? metaOf(object).finalizers ?? [];
      if (generic && finalizers.length > 0) {
        // Finalizers keep it: marked as being deleted until the last one is taken off.
        const r = await persistUpdate(core, info, markAsDeleting(withFinalizers(object, finalizers), core.clock.now()) as T, kv);
        if (r === 'conflict') continue;
        if (!r.ok) return r;
        return ok({ object: r.value, deleted: false });
      }
      const decision = strategy.decideDelete?.(object, core.timestamp()) ?? { action: 'delete' };
      if (decision.action === 'refuse') return err(decision.error);
      if (decision.action === 'update') {
        const r = await persistUpdate(core, info, decision.object as T, kv);
        if (r === 'conflict') continue;
        if (!r.ok) return r;
        return ok({ object: r.value, deleted: false });
      }
      const ops: TxnOp[] = [{ kind: 'delete', key }];
      for (const also of strategy.deletedWith?.(namespace, name) ?? []) ops.push({ kind: 'delete', key: also });
      const r = await core.commit(`delete ${resource}`, [{ key, target: 'modRevision', op: '=', value: kv.modRevision }], ops);
      if (!r.succeeded) continue;
      const allocation = strategy.allocation;
      if (allocation !== undefined && object.kind === 'Service') {
        await core.releaseAfterPersist('delete', allocation.heldBy(object));
      }
      return ok({ object, deleted: true });
    }
    return err(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
  } catch (e) {
    return err(storeFailure(e));
  }
}

/**
 * The write of a graceful delete: the object with its deletionTimestamp, then, when the grace
 * period is 0 and no finalizer holds it, the delete of the key, so that watchers see the
 * object marked and then gone, as upstream's two steps show them. 'conflict' when the object
 * changed under the first write.
 */
async function gracefulWrite<T extends KubeObject>(
  core: RegistryCore,
  resource: ResourceName,
  object: T,
  grace: number,
  kv: KeyValue,
): Promise<DeleteOutcome<T> | 'conflict'> {
  const key = kv.key;
  const written = await core.commit(`update ${resource}`, [{ key, target: 'modRevision', op: '=', value: kv.modRevision }], [{ kind: 'put', key, value: serializeObject(object) }]);
  if (!written.succeeded) return 'conflict';
  const meta = metaOf(object);
  const marked = { ...object, metadata: { ...meta, resourceVersion: String(written.revision) } } as T;
  if (grace > 0 || (meta.finalizers ?? []).length > 0) return { object: marked, deleted: false };
  // The same object (not one made again under the name), whatever was written to it meanwhile;
  // someone else deleting it first is what this delete wanted (upstream ignores that NotFound).
  await core.commit(`delete ${resource}`, [{ key, target: 'createRevision', op: '=', value: kv.createRevision }], [{ kind: 'delete', key }]);
  return { object: marked, deleted: true };
}

/**
 * The Conflict for delete preconditions that do not hold, or undefined. Namespaces have their
 * own Delete with its own text (upstream: pkg/registry/core/namespace/storage/storage.go
 * Delete); every other kind goes through rest.BeforeDelete, which names the resource by its
 * Kind (upstream: staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go BeforeDelete).
 */
function preconditionFailure(info: ResourceInfo, name: string, pre: DeleteOptions['preconditions'], uid: string, resourceVersion: string): ApiError | undefined {
  if (pre === undefined) return undefined;
  const namespace = info.kind === 'Namespace';
  const gr = namespace ? groupResource(info) : { group: info.group, resource: info.kind };
  if (pre.uid !== undefined && pre.uid !== uid) {
    return conflictError(
      gr,
      name,
      namespace
        ? `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${uid}`
        : `the UID in the precondition (${pre.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    );
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== resourceVersion) {
    return conflictError(
      gr,
      name,
      namespace
        ? `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${resourceVersion}`
        : `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`,
    );
  }
  return undefined;
}

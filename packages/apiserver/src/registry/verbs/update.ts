// update and updateStatus: GuaranteedUpdate's loop, once for both. Read the key, check the
// body's uid and resourceVersion preconditions, prepare (rest.BeforeUpdate and the kind's
// PrepareForUpdate, or the status strategy's), validate, write with the modRevision as the
// precondition, and on a lost race read again, unless the request pinned a resourceVersion.
// A Service update takes and gives up IPs and ports around the write.
// upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Update,
//           GuaranteedUpdate), staging/src/k8s.io/apiserver/pkg/registry/rest/update.go
//           (BeforeUpdate), pkg/registry/core/service/storage/storage.go (beginUpdate)
import { err, ok, type KubeObject, type ObjectMeta, type Service } from '@kubesvc/api-types';
import type { KeyValue, TxnOp } from '@kubesvc/store';
import { MAX_RETRIES, metaOf, qualifiedKind, storeFailure, withMeta } from '../common.js';
import type { RegistryCore } from '../core.js';
import { badRequestError, conflictError, invalidError, notFoundError, OPTIMISTIC_LOCK_ERROR_MSG, type ApiError, type GroupResource } from '../errors.js';
import { validateStatusUpdate } from '../pure-adapters.js';
import { groupResource, objectKey, RESOURCES, type ResourceInfo, type ResourceName } from '../resources.js';
import { isEmpty } from '../service-alloc.js';
import { isGenericStore, type AllocationHooks } from '../strategy.js';
import { deserializeObject, serializeObject } from '../stored-object.js';
import type { RegistryResult } from '../types.js';
import { create } from './create.js';

/**
 * The resources with a /status subresource.
 * upstream: pkg/registry/networking/servicecidr/storage/storage.go (StatusREST),
 *           pkg/registry/apps/{deployment,replicaset}/storage/storage.go (StatusREST)
 */
export const STATUS_RESOURCES: ReadonlySet<string> = new Set(['services', 'pods', 'nodes', 'servicecidrs', 'deployments', 'replicasets']);

/** One write attempt against the stored object: its result, or 'conflict' when the txn lost. */
type Attempt<R> = (old: KubeObject, kv: KeyValue) => Promise<RegistryResult<R> | 'conflict'>;

/**
 * GuaranteedUpdate for update and updateStatus: read the key; a missing object goes to
 * `missing`; the body's uid is checked first (rest.defaultUpdatedObjectInfo.Preconditions,
 * checked by the storage before the update function runs), then its resourceVersion; then
 * `attempt`. A lost txn reads again unless the body named a resourceVersion.
 */
async function guaranteedUpdate<R>(
  core: RegistryCore,
  info: ResourceInfo,
  name: string,
  key: string,
  meta: ObjectMeta,
  missing: () => Promise<RegistryResult<R>>,
  attempt: Attempt<R>,
): Promise<RegistryResult<R>> {
  const gr = groupResource(info);
  const wanted = meta.resourceVersion ?? '';
  const uid = meta.uid ?? '';
  try {
    for (let n = 0; n < MAX_RETRIES; n++) {
      const { kv } = await core.store.get(key);
      if (kv === undefined) return await missing();
      const old = deserializeObject(kv);
      const storedUID = metaOf(old).uid ?? '';
      if (uid !== '' && uid !== storedUID) return err(uidPreconditionFailed(gr, name, key, uid, storedUID));
      if (wanted !== '' && wanted !== String(kv.modRevision)) return err(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
      const result = await attempt(old, kv);
      if (result === 'conflict') {
        if (wanted !== '') return err(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
        continue;
      }
      return result;
    }
    return err(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
  } catch (e) {
    return err(storeFailure(e));
  }
}

/** The request's name and namespace against the body's: a 400 when they differ. */
function checkTarget(info: ResourceInfo, meta: ObjectMeta, namespace: string, name: string): ApiError | undefined {
  if ((meta.name ?? '') !== name) return badRequestError(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name})`);
  if (info.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
    return badRequestError('the namespace of the provided object does not match the namespace sent on the request');
  }
  return undefined;
}

/** Replaces the object (already decoded); an empty resourceVersion means "whatever is stored". */
export async function update<T extends KubeObject>(core: RegistryCore, resource: ResourceName, namespace: string, name: string, object: T): Promise<RegistryResult<T>> {
  const r = await updateOrCreate(core, resource, namespace, name, object);
  return r.ok ? ok(r.value.object) : r;
}

/**
 * update, saying whether the object was created: a kind that allows create on update
 * (Endpoints, Events) creates a missing object, and the API answers that with 201, as
 * upstream's update handler does when its storage reports wasCreated.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/update.go
 */
export async function updateOrCreate<T extends KubeObject>(
  core: RegistryCore,
  resource: ResourceName,
  namespace: string,
  name: string,
  object: T,
): Promise<RegistryResult<{ readonly object: T; readonly created: boolean }>> {
  const info = RESOURCES[resource];
  const gr = groupResource(info);
  const meta = metaOf(object);
  const ns = info.namespaced ? namespace : '';
  const refused = checkTarget(info, meta, ns, name);
  if (refused !== undefined) return err(refused);
  const wanted = meta.resourceVersion ?? '';
  const uid = meta.uid ?? '';
  const key = objectKey(info, ns, name);
  return guaranteedUpdate<{ readonly object: T; readonly created: boolean }>(
    core,
    info,
    name,
    key,
    meta,
    async () => {
      if (!info.createOnUpdate) return err(notFoundError(gr, name));
      if (uid !== '') return err(uidPreconditionFailed(gr, name, key, uid, ''));
      if (wanted !== '') return err(notFoundError(gr, name));
      const { resourceVersion: _rv, ...rest } = meta;
      const created = await create(core, resource, ns, withMeta(object, rest));
      return created.ok ? ok({ object: created.value, created: true }) : created;
    },
    async (old, kv) => {
      // Every kind served here allows unconditional updates (AllowUnconditionalUpdate is true
      // in each one's strategy): an update without a resourceVersion is given the stored one
      // before validation, which otherwise refuses it as "must be specified for an update".
      // upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Update,
      //           doUnconditionalUpdate)
      const body = wanted === '' ? withMeta(object, { ...meta, resourceVersion: String(kv.modRevision) }) : object;
      const result = await updateOnce(core, info, body, old as T, kv);
      if (result === 'conflict' || !result.ok) return result;
      return ok({ object: result.value, created: false });
    },
  );
}

/**
 * Writes an object through its /status subresource (services, pods, nodes, servicecidrs): the status is
 * taken from `object`, the spec stays as stored. Preconditions as for update.
 */
export async function updateStatus<T extends KubeObject>(core: RegistryCore, resource: ResourceName, namespace: string, name: string, object: T): Promise<RegistryResult<T>> {
  const info = RESOURCES[resource];
  const gr = groupResource(info);
  if (!STATUS_RESOURCES.has(resource)) return err(notFoundError(gr, name));
  const meta = metaOf(object);
  const ns = info.namespaced ? namespace : '';
  const refused = checkTarget(info, meta, ns, name);
  if (refused !== undefined) return err(refused);
  return guaranteedUpdate<T>(
    core,
    info,
    name,
    objectKey(info, ns, name),
    meta,
    () => Promise.resolve(err(notFoundError(gr, name))),
    async (old, kv) => {
      // Unconditional without a resourceVersion, as for update: the status strategies allow it
      // too (serviceStatusStrategy, podStatusStrategy, serviceCIDRStatusStrategy inherit
      // AllowUnconditionalUpdate from their main strategies).
      const body = (meta.resourceVersion ?? '') === '' ? withMeta(object, { ...meta, resourceVersion: String(kv.modRevision) }) : object;
      const prepared = prepareStatusUpdate(info, body, old as T);
      const validated = validateStatusUpdate(prepared, old as T);
      if (!validated.ok) return err(invalidError(qualifiedKind(info), name, validated.error.errors));
      return persistUpdate(core, info, validated.value, kv);
    },
  );
}

/** rest.BeforeUpdate and the kind's PrepareForUpdate. */
function prepareUpdate<T extends KubeObject>(info: ResourceInfo, object: T, old: T): T {
  const oldMeta = metaOf(old);
  const meta: ObjectMeta = { ...metaOf(object) };
  if (info.namespaced) meta.namespace = oldMeta.namespace ?? '';
  else delete meta.namespace;
  if (oldMeta.generation === undefined) delete meta.generation;
  else meta.generation = oldMeta.generation;
  if ((meta.uid ?? '') === '' && oldMeta.uid !== undefined) meta.uid = oldMeta.uid;
  if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
  if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
  else delete meta.deletionTimestamp;
  // An update never takes the grace period away (a changed one is refused by validation).
  if (oldMeta.deletionGracePeriodSeconds !== undefined && oldMeta.deletionGracePeriodSeconds !== null && (meta.deletionGracePeriodSeconds ?? null) === null) {
    meta.deletionGracePeriodSeconds = oldMeta.deletionGracePeriodSeconds;
  }
  return info.strategy.prepareForUpdate(withMeta(object, meta), old) as T;
}

/**
 * The status strategy's PrepareForUpdate: everything but the status comes from the stored
 * object's spec; metadata follows rest.BeforeUpdate, and the kind may keep more (a Pod's
 * owner references).
 * upstream: pkg/registry/core/service/strategy.go (serviceStatusStrategy.PrepareForUpdate),
 *           pkg/registry/core/pod/strategy.go (podStatusStrategy.PrepareForUpdate),
 *           pkg/registry/networking/servicecidr/strategy.go (serviceCIDRStatusStrategy.PrepareForUpdate)
 */
function prepareStatusUpdate<T extends KubeObject>(info: ResourceInfo, object: T, old: T): T {
  const base = prepareUpdate(info, object, old) as unknown as Record<string, unknown>;
  const stored = old as unknown as Record<string, unknown>;
  const incoming = object as unknown as Record<string, unknown>;
  const out: Record<string, unknown> = { ...base };
  if (stored['spec'] === undefined) delete out['spec'];
  else out['spec'] = stored['spec'];
  if (incoming['status'] === undefined) delete out['status'];
  else out['status'] = incoming['status'];
  const prepare = info.strategy.prepareForStatusUpdate;
  return (prepare === undefined ? out : prepare(out as unknown as KubeObject, old)) as unknown as T;
}

async function updateOnce<T extends KubeObject>(core: RegistryCore, info: ResourceInfo, object: T, old: T, kv: KeyValue): Promise<RegistryResult<T> | 'conflict'> {
  const prepared = prepareUpdate(info, object, old);
  const name = metaOf(prepared).name ?? '';
  const validated = info.strategy.validateUpdate(prepared, old, core.net);
  if (!validated.ok) return err(invalidError(qualifiedKind(info), name, validated.error.errors));
  const allocation = info.strategy.allocation;
  if (allocation !== undefined) {
    return (await updateAllocated(core, info, allocation, validated.value as Service, old as unknown as Service, kv)) as RegistryResult<T> | 'conflict';
  }
  const after = info.strategy.afterValidateUpdate;
  const next = after === undefined ? validated.value : after(validated.value, old);
  return persistUpdate(core, info, next as T, kv);
}

/** The write of an update: nothing when nothing changed (GuaranteedUpdate's no-op check), else a txn on the modRevision. */
export async function persistUpdate<T extends KubeObject>(core: RegistryCore, info: ResourceInfo, object: T, kv: KeyValue): Promise<RegistryResult<T> | 'conflict'> {
  const value = serializeObject(object);
  const meta = metaOf(object);
  const grace = meta.deletionGracePeriodSeconds ?? 0;
  if (isGenericStore(info.strategy) && meta.deletionTimestamp && (meta.finalizers ?? []).length === 0 && grace === 0) {
    // The last finalizer is gone from an object being deleted whose grace period is over (an
    // update keeps the stored deletionTimestamp and grace period): it goes now. A pod still
    // in its grace period stays for the kubelet to delete.
    // upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Update, ShouldDeleteDuringUpdate)
    const ops: TxnOp[] = [{ kind: 'delete', key: kv.key }];
    for (const also of info.strategy.deletedWith?.(meta.namespace ?? '', meta.name ?? '') ?? []) ops.push({ kind: 'delete', key: also });
    const r = await core.commit(`delete ${info.resource}`, [{ key: kv.key, target: 'modRevision', op: '=', value: kv.modRevision }], ops);
    if (!r.succeeded) return 'conflict';
    // What a deleted Service held goes back, as the storage's afterDelete gives it.
    const allocation = info.strategy.allocation;
    if (allocation !== undefined && object.kind === 'Service') await core.releaseAfterPersist('delete', allocation.heldBy(object));
    return ok(withMeta(object, { ...meta, resourceVersion: String(r.revision) }));
  }
  if (value === kv.value) return ok(withMeta(object, { ...meta, resourceVersion: String(kv.modRevision) }));
  const r = await core.commit(`update ${info.resource}`, [{ key: kv.key, target: 'modRevision', op: '=', value: kv.modRevision }], [{ kind: 'put', key: kv.key, value }]);
  if (!r.succeeded) return 'conflict';
  return ok(withMeta(object, { ...meta, resourceVersion: String(r.revision) }));
}

/** beginUpdate: allocate what the update needs, write, give back on failure, release what it gave up after. */
async function updateAllocated(core: RegistryCore, info: ResourceInfo, hooks: AllocationHooks, service: Service, old: Service, kv: KeyValue): Promise<RegistryResult<Service> | 'conflict'> {
  const planned = await core.allocateForWrite('update', (state, rng) => hooks.planUpdate(service, old, state, rng, core.net));
  if (!planned.ok) return planned;
  const { service: next, held, toRelease } = planned.value;
  let result: RegistryResult<Service> | 'conflict';
  try {
    result = await persistUpdate(core, info, next, kv);
  } catch (e) {
    result = err(storeFailure(e));
  }
  if (result === 'conflict' || !result.ok) {
    if (!isEmpty(held)) await core.releaseHeld(held);
    return result;
  }
  await core.releaseAfterPersist('update', toRelease);
  return result;
}

/**
 * The Conflict for an update whose body names another object's uid: the storage's
 * InvalidObjError text, quoted whole by InterpretUpdateError.
 * upstream: staging/src/k8s.io/apiserver/pkg/storage/interfaces.go Preconditions.Check,
 *           staging/src/k8s.io/apiserver/pkg/storage/errors.go (StorageError.Error, ErrCodeInvalidObj 4),
 *           staging/src/k8s.io/apiserver/pkg/storage/errors/storage.go InterpretUpdateError
 */
function uidPreconditionFailed(gr: GroupResource, name: string, key: string, uid: string, storedUID: string): ApiError {
  return conflictError(
    gr,
    name,
    `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${storedUID}`,
  );
}

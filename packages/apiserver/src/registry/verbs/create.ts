// create: rest.BeforeCreate (the request's namespace, NamespaceLifecycle admission, system
// metadata, generateName), the kind's strategy (PrepareForCreate, Validate, a Service's
// allocation), then one txn guarded by "absent" and by the namespace being as checked. A
// Service write that fails gives its allocation back.
// upstream: staging/src/k8s.io/apiserver/pkg/registry/rest/create.go (BeforeCreate),
//           staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Create),
//           staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (Create),
//           pkg/registry/core/service/storage/storage.go (beginCreate, finishCreate)
import { err, ok, type KubeObject, type Namespace, type ObjectMeta, type Service } from '@kubesvc/api-types';
import type { Compare } from '@kubesvc/store';
import { MAX_GENERATE_NAME_ATTEMPTS, MAX_RETRIES, metaOf, qualifiedKind, storeFailure, withMeta } from '../common.js';
import type { RegistryCore } from '../core.js';
import { alreadyExistsError, badRequestError, forbiddenError, generateNameConflictError, internalError, invalidError, notFoundError, unknownError } from '../errors.js';
import { groupResource, objectKey, RESOURCES, type ResourceInfo, type ResourceName } from '../resources.js';
import { isEmpty } from '../service-alloc.js';
import type { AllocationHooks } from '../strategy.js';
import { serializeObject } from '../stored-object.js';
import type { CreateOptions, RegistryResult } from '../types.js';

/** Creates `object` (already decoded) in `namespace` (ignored for namespaces). */
export async function create<T extends KubeObject>(core: RegistryCore, resource: ResourceName, namespace: string, object: T, options: CreateOptions = {}): Promise<RegistryResult<T>> {
  const info = RESOURCES[resource];
  const meta = metaOf(object);
  if (options.name !== undefined && meta.name !== undefined && meta.name !== '' && meta.name !== options.name) {
    return err(badRequestError(`the name of the object (${meta.name}) does not match the name on the URL (${options.name})`));
  }
  // rest.BeforeCreate: a namespaced object lives in the request's namespace; a cluster-scoped one in none.
  let ns = '';
  if (info.namespaced) {
    if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
      return err(badRequestError('the namespace of the provided object does not match the namespace sent on the request'));
    }
    ns = namespace;
  }
  try {
    const nsCheck = info.namespaced ? await checkNamespace(core, info, ns, meta.name ?? '', meta.generateName ?? '') : ok({ revision: 0 });
    if (!nsCheck.ok) return nsCheck;

    let prepared = prepareCreate(core, info, object, ns);
    const base = metaOf(prepared);
    const generated = (base.name ?? '') === '' && (base.generateName ?? '') !== '';
    if (generated) prepared = withMeta(prepared, { ...base, name: generatedName(core, info, base.generateName ?? '') });

    const validated = info.strategy.validate(prepared, core.net);
    if (!validated.ok) return err(invalidError(qualifiedKind(info), metaOf(prepared).name ?? '', validated.error.errors));
    const allocation = info.strategy.allocation;
    if (allocation !== undefined) {
      return (await createAllocated(core, info, allocation, validated.value as Service, nsCheck.value.revision, generated)) as RegistryResult<T>;
    }
    return await persistCreate(core, info, validated.value as T, nsCheck.value.revision, generated);
  } catch (e) {
    return err(storeFailure(e));
  }
}

/** The strategy's name generator, or the registry's random suffix. upstream: rest/create.go (BeforeCreate) */
function generatedName(core: RegistryCore, info: ResourceInfo, base: string): string {
  const generate = info.strategy.generateName;
  return generate === undefined ? core.nextName(base) : generate(base);
}

/** FillObjectMetaSystemFields and the kind's PrepareForCreate. */
function prepareCreate<T extends KubeObject>(core: RegistryCore, info: ResourceInfo, object: T, namespace: string): T {
  const uid = core.nextUID();
  const { deletionTimestamp: _d, deletionGracePeriodSeconds: _g, generation: _gen, namespace: _ns, ...rest } = metaOf(object);
  const meta: ObjectMeta = { ...rest, uid, creationTimestamp: core.timestamp() };
  if (info.namespaced) meta.namespace = namespace;
  return info.strategy.prepareForCreate(withMeta(object, meta)) as T;
}

/** beginCreate's allocation, the write, and finishCreate(false): a write that failed gives its allocation back. */
async function createAllocated(core: RegistryCore, info: ResourceInfo, hooks: AllocationHooks, service: Service, nsRevision: number, generated: boolean): Promise<RegistryResult<Service>> {
  const planned = await core.allocateForWrite('create', (state, rng) => hooks.planCreate(service, state, rng, core.net));
  if (!planned.ok) return planned;
  const { service: allocated, held } = planned.value;
  let result: RegistryResult<Service>;
  try {
    result = await persistCreate(core, info, allocated, nsRevision, generated);
  } catch (e) {
    result = err(storeFailure(e));
  }
  if (!result.ok && !isEmpty(held)) await core.releaseHeld(held);
  return result;
}

/** The txn that creates the key, guarded by "absent" and by the namespace being as checked. */
async function persistCreate<T extends KubeObject>(core: RegistryCore, info: ResourceInfo, object: T, nsRevision: number, generated: boolean): Promise<RegistryResult<T>> {
  // The etcd3 store's Create, after validation and allocation (a Service's allocation is
  // then given back, as on any failed write). upstream: staging/src/k8s.io/apiserver/pkg/
  // storage/etcd3/store.go Create, APIObjectVersioner.ObjectResourceVersion.
  if (isSetResourceVersion(metaOf(object).resourceVersion)) return err(unknownError('resourceVersion should not be set on objects to be created'));
  let current = object;
  let nsRev = nsRevision;
  for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
    const meta = metaOf(current);
    const name = meta.name ?? '';
    const key = objectKey(info, meta.namespace ?? '', name);
    const nsKey = objectKey(RESOURCES.namespaces, '', meta.namespace ?? '');
    const compares: Compare[] = [{ key, target: 'createRevision', op: '=', value: 0 }];
    if (info.namespaced) compares.push({ key: nsKey, target: 'modRevision', op: '=', value: nsRev });
    const r = await core.commit(`create ${info.resource}`, compares, [{ kind: 'put', key, value: serializeObject(current) }], [
      { kind: 'get', key },
      ...(info.namespaced ? [{ kind: 'get' as const, key: nsKey }] : []),
    ]);
    if (r.succeeded) return ok(withMeta(current, { ...meta, resourceVersion: String(r.revision) }));
    const existing = r.results[0];
    if (existing?.kind === 'get' && existing.kv !== undefined) {
      if (!generated || attempt + 1 >= MAX_GENERATE_NAME_ATTEMPTS) {
        return err(generated ? generateNameConflictError(groupResource(info), name, 1) : alreadyExistsError(groupResource(info), name));
      }
      current = withMeta(current, { ...meta, name: generatedName(core, info, meta.generateName ?? '') });
      continue;
    }
    // The namespace changed under us: check it again.
    // Admission saw the object before its name was generated.
    const check = await checkNamespace(core, info, meta.namespace ?? '', generated ? '' : name, meta.generateName ?? '', true);
    if (!check.ok) return check;
    nsRev = check.value.revision;
  }
  return err(internalError(`too many conflicts creating ${info.resource} ${JSON.stringify(metaOf(current).name ?? '')}`));
}

/**
 * NamespaceLifecycle admission: the namespace must exist and not be terminating. The
 * Forbidden names the object as admission.NewForbidden does (its name, else its
 * generateName, else "Unknown") and carries the NamespaceTerminating cause.
 * upstream: staging/src/k8s.io/apiserver/pkg/admission/errors.go (extractResourceName)
 */
async function checkNamespace(core: RegistryCore, info: ResourceInfo, namespace: string, name: string, generateName = '', live = false): Promise<RegistryResult<{ revision: number }>> {
  const key = objectKey(RESOURCES.namespaces, '', namespace);
  // Read active a moment ago (the informer's lister upstream); the txn's compare on the
  // namespace's modRevision catches a change since, and the retry reads it live.
  const seen = live ? undefined : core.activeNamespace(key);
  if (seen !== undefined) return ok({ revision: seen });
  const { kv } = await core.store.get(key);
  if (kv === undefined) {
    core.sawNamespace(key, undefined);
    return err(notFoundError(groupResource(RESOURCES.namespaces), namespace));
  }
  const ns = JSON.parse(kv.value) as Namespace;
  core.sawNamespace(key, ns.status?.phase === 'Terminating' ? undefined : kv.modRevision);
  if (ns.status?.phase === 'Terminating') {
    const named = name !== '' ? name : generateName !== '' ? generateName : 'Unknown';
    return err(
      forbiddenError(groupResource(info), named, `unable to create new content in namespace ${namespace} because it is being terminated`, [
        { reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' },
      ]),
    );
  }
  return ok({ revision: kv.modRevision });
}

/** Whether ObjectResourceVersion reads a version other than 0 (strconv.ParseUint succeeds); other text counts as unset. */
function isSetResourceVersion(rv: string | undefined): boolean {
  if (rv === undefined || !/^[0-9]{1,20}$/.test(rv)) return false;
  const n = BigInt(rv);
  return n > 0n && n <= 0xffff_ffff_ffff_ffffn;
}

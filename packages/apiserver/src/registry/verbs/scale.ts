// The /scale subresource of Deployments and ReplicaSets: an autoscaling/v1 Scale read from the
// object (spec.replicas, status.replicas, the selector as text), and written back by setting
// spec.replicas through the main resource's update, so the generation moves and validation
// runs as for any update. A Scale carrying a resourceVersion is a precondition on the object's.
// upstream (v1.33): pkg/registry/apps/deployment/storage/storage.go (ScaleREST,
//           scaleFromDeployment, scaleUpdatedObjectInfo), pkg/registry/apps/replicaset/storage/
//           storage.go (the same for ReplicaSets), pkg/apis/autoscaling/validation/validation.go
//           (ValidateScale)
import {
  AUTOSCALING_API_VERSION,
  err,
  fieldPath,
  invalid,
  labelSelectorString,
  ok,
  type Deployment,
  type KubeObject,
  type ReplicaSet,
  type Scale,
} from '@kubesvc/api-types';
import { isRecord, MAX_RETRIES, metaOf } from '../common.js';
import type { RegistryCore } from '../core.js';
import { decodeValue, DEFAULT_FIELD_VALIDATION, type DecodeTarget } from '../decode.js';
import { badRequestError, conflictError, invalidError, notFoundError, OPTIMISTIC_LOCK_ERROR_MSG } from '../errors.js';
import type { PatchType } from '../patch.js';
import { groupResource, RESOURCES, type ResourceName } from '../resources.js';
import type { PatchOptions, RegistryResult } from '../types.js';
import { get } from './get.js';
import { update } from './update.js';

/** The resources with a /scale subresource. */
export const SCALE_RESOURCES: ReadonlySet<string> = new Set(['deployments', 'replicasets']);

/** What a Scale body decodes as. */
export const SCALE_TARGET: DecodeTarget = { kind: 'Scale', apiVersion: AUTOSCALING_API_VERSION, group: 'autoscaling' };

type Scalable = Deployment | ReplicaSet;

/** scaleFromDeployment / scaleFromReplicaSet. */
export function scaleOf(object: Scalable): Scale {
  const meta = object.metadata;
  const replicas = object.spec?.replicas;
  const selector = labelSelectorString(object.spec?.selector);
  return {
    apiVersion: AUTOSCALING_API_VERSION,
    kind: 'Scale',
    metadata: {
      ...(meta.name === undefined ? {} : { name: meta.name }),
      ...(meta.namespace === undefined ? {} : { namespace: meta.namespace }),
      ...(meta.uid === undefined ? {} : { uid: meta.uid }),
      ...(meta.resourceVersion === undefined ? {} : { resourceVersion: meta.resourceVersion }),
      creationTimestamp: meta.creationTimestamp ?? null,
    },
    // ScaleSpec.replicas is omitempty; ScaleStatus.replicas is not.
    spec: replicas === undefined || replicas === 0 ? {} : { replicas },
    status: { replicas: object.status?.replicas ?? 0, ...(selector === '' ? {} : { selector }) },
  };
}

function notScalable(resource: ResourceName, name: string): RegistryResult<never> {
  return err(notFoundError(groupResource(RESOURCES[resource]), name));
}

export async function getScale(core: RegistryCore, resource: ResourceName, namespace: string, name: string): Promise<RegistryResult<Scale>> {
  if (!SCALE_RESOURCES.has(resource)) return notScalable(resource, name);
  const got = await get<Scalable>(core, resource, namespace, name);
  return got.ok ? ok(scaleOf(got.value)) : got;
}

/**
 * Sets spec.replicas from the Scale. Without a resourceVersion in the Scale the write is
 * retried on conflict against a fresh read; with one, a stale one is a 409.
 */
export async function updateScale(core: RegistryCore, resource: ResourceName, namespace: string, name: string, scale: Scale): Promise<RegistryResult<Scale>> {
  if (!SCALE_RESOURCES.has(resource)) return notScalable(resource, name);
  const info = RESOURCES[resource];
  if ((scale.metadata.name ?? '') !== name) return err(badRequestError(`the name of the object (${scale.metadata.name ?? ''}) does not match the name on the URL (${name})`));
  const replicas = scale.spec?.replicas ?? 0;
  if (replicas < 0) return err(invalidError({ group: 'autoscaling', kind: 'Scale' }, name, [invalid(fieldPath('spec', 'replicas'), replicas, 'must be greater than or equal to 0')]));
  const pinned = scale.metadata.resourceVersion ?? '';
  for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
    const current = await get<Scalable>(core, resource, namespace, name);
    if (!current.ok) return current;
    const meta = metaOf(current.value);
    const uid = scale.metadata.uid ?? '';
    if (uid !== '' && uid !== meta.uid) return err(conflictError(groupResource(info), name, `Precondition failed: UID in precondition: ${uid}, UID in object meta: ${meta.uid ?? ''}`));
    const next = {
      ...current.value,
      metadata: { ...meta, resourceVersion: pinned === '' ? (meta.resourceVersion ?? '') : pinned },
      spec: { ...current.value.spec, replicas },
    } as Scalable & KubeObject;
    const updated = await update<Scalable & KubeObject>(core, resource, namespace, name, next);
    if (!updated.ok && updated.error._tag === 'Conflict' && pinned === '') continue;
    return updated.ok ? ok(scaleOf(updated.value)) : updated;
  }
  return err(conflictError(groupResource(info), name, OPTIMISTIC_LOCK_ERROR_MSG));
}

/** A patch of the Scale: applied to the Scale read from the object, then written as updateScale. */
export async function patchScale(
  core: RegistryCore,
  resource: ResourceName,
  namespace: string,
  name: string,
  patchType: PatchType,
  document: string,
  options: PatchOptions,
): Promise<RegistryResult<Scale>> {
  const patcher = core.patchers[patchType];
  if (patcher === undefined) return err(badRequestError(`unsupported patch type ${patchType}`));
  for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
    const current = await getScale(core, resource, namespace, name);
    if (!current.ok) return current;
    const patched = patcher(current.value, document);
    if (!patched.ok) return patched;
    if (!isRecord(patched.value)) return err(badRequestError('the patched object is not a JSON object'));
    const decoded = decodeValue(SCALE_TARGET, patched.value, options.fieldValidation ?? DEFAULT_FIELD_VALIDATION);
    if (!decoded.ok) return decoded;
    const scale = decoded.value.object as Scale;
    const pinned = (scale.metadata.resourceVersion ?? '') !== (current.value.metadata.resourceVersion ?? '');
    // The patch was applied to one read; unless it named a resourceVersion, the write is pinned to that read and retried.
    const result = await updateScale(core, resource, namespace, name, pinned ? scale : { ...scale, metadata: { ...scale.metadata, resourceVersion: current.value.metadata.resourceVersion ?? '' } });
    if (!result.ok && result.error._tag === 'Conflict' && !pinned) continue;
    return result;
  }
  return err(conflictError(groupResource(RESOURCES[resource]), name, OPTIMISTIC_LOCK_ERROR_MSG));
}

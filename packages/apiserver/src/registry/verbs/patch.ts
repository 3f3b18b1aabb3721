// patch: apply the patch document to the stored object, decode the result as a request body
// would be, and update it (or its status); a lost race reads and patches again unless the
// patch itself named a resourceVersion.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (patcher, the
//           retry on conflict), staging/src/k8s.io/apiserver/pkg/endpoints/installer.go
//           (the patch types in order)
import { err, type KubeObject } from '@kubesvc/api-types';
import { isRecord, MAX_RETRIES, metaOf } from '../common.js';
import type { RegistryCore } from '../core.js';
import { decodeValue, DEFAULT_FIELD_VALIDATION } from '../decode.js';
import { badRequestError, conflictError, notFoundError, OPTIMISTIC_LOCK_ERROR_MSG, unsupportedMediaTypeError } from '../errors.js';
import type { PatchType } from '../patch.js';
import { groupResource, RESOURCES, type ResourceName } from '../resources.js';
import type { PatchOptions, RegistryResult } from '../types.js';
import { get } from './get.js';
import { patchScale } from './scale.js';
import { STATUS_RESOURCES, update, updateStatus } from './update.js';

/** The patch types in the order kube-apiserver lists them in its 415 (upstream: endpoints/installer.go). */
const PATCH_TYPE_ORDER = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

function patchTypesInOrder(types: readonly string[]): string[] {
  const rank = (t: string) => {
    const i = PATCH_TYPE_ORDER.indexOf(t);
    return i < 0 ? PATCH_TYPE_ORDER.length : i;
  };
  return [...types].sort((a, b) => rank(a) - rank(b));
}

/** Applies a patch document to the stored object and updates it; retried on conflict unless the patch names a resourceVersion. */
export async function patch<T extends KubeObject>(
  core: RegistryCore,
  resource: ResourceName,
  namespace: string,
  name: string,
  patchType: PatchType,
  document: string,
  options: PatchOptions = {},
): Promise<RegistryResult<T>> {
  const info = RESOURCES[resource];
  const patcher = core.patchers[patchType];
  if (patcher === undefined) return err(unsupportedMediaTypeError(patchTypesInOrder(Object.keys(core.patchers))));
  if (options.subresource === 'status' && !STATUS_RESOURCES.has(resource)) return err(notFoundError(groupResource(info), name));
  if (options.subresource === 'scale') return (await patchScale(core, resource, namespace, name, patchType, document, options)) as RegistryResult<T>;
  for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
    const current = await get<T>(core, resource, namespace, name);
    if (!current.ok) return current;
    const patched = patcher(current.value, document);
    if (!patched.ok) return patched;
    if (!isRecord(patched.value)) return err(badRequestError('the patched object is not a JSON object'));
    const decoded = decodeValue(info, patched.value, options.fieldValidation ?? DEFAULT_FIELD_VALIDATION);
    if (!decoded.ok) return decoded;
    const patchedRV = metaOf(decoded.value.object).resourceVersion ?? '';
    const pinned = patchedRV !== metaOf(current.value).resourceVersion;
    const result = options.subresource === 'status' ? await updateStatus(core, resource, namespace, name, decoded.value.object as T) : await update(core, resource, namespace, name, decoded.value.object as T);
    if (!result.ok && result.error._tag === 'Conflict' && !pinned) continue;
    return result;
  }
  return err(conflictError(groupResource(info), name, OPTIMISTIC_LOCK_ERROR_MSG));
}

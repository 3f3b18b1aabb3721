// get: one object by key, with its resourceVersion from the key's modRevision.
// upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Get)
import { err, ok, type KubeObject } from '@kubesvc/api-types';
import { storeFailure } from '../common.js';
import type { RegistryCore } from '../core.js';
import { notFoundError } from '../errors.js';
import { groupResource, objectKey, RESOURCES, type ResourceName } from '../resources.js';
import { deserializeObject } from '../stored-object.js';
import type { RegistryResult } from '../types.js';

export async function get<T extends KubeObject = KubeObject>(core: RegistryCore, resource: ResourceName, namespace: string, name: string): Promise<RegistryResult<T>> {
  const info = RESOURCES[resource];
  try {
    const { kv } = await core.store.get(objectKey(info, namespace, name));
    if (kv === undefined) return err(notFoundError(groupResource(info), name));
    return ok(deserializeObject<T>(kv));
  } catch (e) {
    return err(storeFailure(e));
  }
}

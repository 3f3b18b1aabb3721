// The namespace controller's step for one namespace: when it is Terminating, every object in
// it is deleted (Services give back their IPs and ports), then the namespace itself, unless an
// object's finalizers keep it: then the namespace waits for a later step, as upstream's
// deleter requeues a namespace that still has content.
// upstream: pkg/controller/namespace/deletion/namespaced_resources_deleter.go
import { err, ok, type Namespace } from '@kubesvc/api-types';
import { metaOf, storeFailure } from '../common.js';
import type { RegistryCore } from '../core.js';
import { EventLoopTurns } from '../event-loop-turns.js';
import { NAMESPACED_RESOURCES, objectKey, RESOURCES } from '../resources.js';
import type { RegistryResult } from '../types.js';
import { deleteObject } from './delete.js';
import { get } from './get.js';
import { list } from './list.js';

/**
 * Returns how many objects it deleted and how many finalizers keep; a namespace that is absent
 * or active is left alone.
 */
export async function finalizeNamespace(
  core: RegistryCore,
  name: string,
): Promise<RegistryResult<{ readonly deletedObjects: number; readonly remainingObjects: number; readonly namespaceDeleted: boolean }>> {
  const ns = await get<Namespace>(core, 'namespaces', '', name);
  if (!ns.ok) return ns.error._tag === 'NotFound' ? ok({ deletedObjects: 0, remainingObjects: 0, namespaceDeleted: false }) : ns;
  if (!ns.value.metadata.deletionTimestamp) return ok({ deletedObjects: 0, remainingObjects: 0, namespaceDeleted: false });
  let deleted = 0;
  let remaining = 0;
  const turns = new EventLoopTurns(core.eventLoopSliceMs);
  for (const resource of NAMESPACED_RESOURCES) {
    const listed = await list(core, resource, name);
    if (!listed.ok) return listed;
    for (const item of listed.value.items) {
      await turns.turn();
      const r = await deleteObject(core, resource, name, metaOf(item).name ?? '');
      if (!r.ok && r.error._tag !== 'NotFound') return r;
      if (r.ok && r.value.deleted) deleted++;
      else if (r.ok) remaining++;
      core.finalizedNamespaceObject();
    }
  }
  if (remaining > 0) return ok({ deletedObjects: deleted, remainingObjects: remaining, namespaceDeleted: false });
  try {
    const { kv } = await core.store.get(objectKey(RESOURCES.namespaces, '', name));
    if (kv === undefined) return ok({ deletedObjects: deleted, remainingObjects: 0, namespaceDeleted: false });
    // The controller empties spec.finalizers (/finalize); with none left the namespace goes.
    const r = await core.commit('finalize namespaces', [{ key: kv.key, target: 'modRevision', op: '=', value: kv.modRevision }], [{ kind: 'delete', key: kv.key }]);
    return ok({ deletedObjects: deleted, remainingObjects: 0, namespaceDeleted: r.succeeded });
  } catch (e) {
    return err(storeFailure(e));
  }
}

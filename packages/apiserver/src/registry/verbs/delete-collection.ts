// deletecollection: every object of the list (one namespace, or all) that the predicate
// accepts, deleted one by one; an object gone meanwhile is skipped. Yields to the event loop
// every eventLoopSliceMs so other clients are served.
// upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (DeleteCollection)
import { err, ok, type KubeObject } from '@kubesvc/api-types';
import { metaOf } from '../common.js';
import type { RegistryCore } from '../core.js';
import { methodNotAllowedError } from '../errors.js';
import { EventLoopTurns } from '../event-loop-turns.js';
import { RESOURCES, type ResourceName } from '../resources.js';
import type { DeleteCollectionOptions, ObjectList, RegistryResult } from '../types.js';
import { deleteObject } from './delete.js';
import { list } from './list.js';

export async function deleteCollection<T extends KubeObject = KubeObject>(
  core: RegistryCore,
  resource: ResourceName,
  namespace: string,
  options: DeleteCollectionOptions = {},
): Promise<RegistryResult<ObjectList<T>>> {
  // A storage without DeleteCollection has no route for it: 405 before anything is read.
  if (!RESOURCES[resource].deleteCollection) return err(methodNotAllowedError());
  const listed = await list<T>(core, resource, namespace, options.predicate === undefined ? {} : { predicate: options.predicate });
  if (!listed.ok) return listed;
  const deleted: T[] = [];
  const turns = new EventLoopTurns(core.eventLoopSliceMs);
  for (const item of listed.value.items) {
    await turns.turn();
    const meta = metaOf(item);
    const r = await deleteObject<T>(core, resource, meta.namespace ?? '', meta.name ?? '', {
      // No options: each goes at once, as the registry's own deletes do.
      ...(options.deleteOptions ?? { gracePeriodSeconds: 0 }),
      preconditions: { uid: meta.uid ?? '' },
    });
    if (r.ok) deleted.push(r.value.object);
    else if (r.error._tag !== 'NotFound' && r.error._tag !== 'Conflict') return r;
  }
  return ok({ ...listed.value, items: deleted });
}

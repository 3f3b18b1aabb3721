// The event store behind syncChanges (backend.ts): a sync fed by an informer's events instead of whole lists.

import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { objectKey } from '@kubesvc/proxy';
import type { StateData, SyncIndexes, SyncState } from './state.js';

/**
 * A change as an informer's event handlers report it to kube-proxy's change trackers
 * (upstream: pkg/proxy/config/config.go, the ServiceHandler and EndpointSliceHandler
 * interfaces: OnServiceAdd/Update/Delete, OnEndpointSliceAdd/Update/Delete). An object is
 * known by its namespace and name. Upstream's update handlers also receive the old object;
 * the trackers key the change by the new one, and so does syncChanges, which keeps the old
 * one itself, so an update carries only the new object.
 */
export type ProxyChange =
  | { readonly kind: 'ServiceAdd'; readonly service: Service }
  | { readonly kind: 'ServiceUpdate'; readonly service: Service }
  | { readonly kind: 'ServiceDelete'; readonly service: Service }
  | { readonly kind: 'EndpointSliceAdd'; readonly endpointSlice: EndpointSlice }
  | { readonly kind: 'EndpointSliceUpdate'; readonly endpointSlice: EndpointSlice }
  | { readonly kind: 'EndpointSliceDelete'; readonly endpointSlice: EndpointSlice };

/** The objects syncChanges syncs: what the last sync saw with `changes` applied in order, and the position of each key. */
export function applyChanges(
  state: SyncState | undefined,
  changes: readonly ProxyChange[],
): { services: readonly Service[]; slices: readonly EndpointSlice[]; indexes: SyncIndexes } {
  const prev = state as StateData | undefined;
  const serviceOps: StoreOp<Service>[] = [];
  const sliceOps: StoreOp<EndpointSlice>[] = [];
  for (const change of changes) {
    if ('service' in change) serviceOps.push({ put: change.kind !== 'ServiceDelete', object: change.service });
    else sliceOps.push({ put: change.kind !== 'EndpointSliceDelete', object: change.endpointSlice });
  }
  const services = applyStoreOps(prev?.servicesIn ?? [], prev?.serviceIndex, serviceOps);
  const slices = applyStoreOps(prev?.slicesIn ?? [], prev?.sliceIndex, sliceOps);
  return { services: services.items, slices: slices.items, indexes: { services: services.index, slices: slices.index } };
}

interface StoreOp<T> {
  /** true: add or update; false: delete. */
  readonly put: boolean;
  readonly object: T;
}

type Keyed = { readonly metadata: { readonly namespace?: string | undefined; readonly name?: string | undefined } };

function keyOf(object: Keyed): string {
  return objectKey(object.metadata.namespace, object.metadata.name);
}

/**
 * The objects after `ops`, one per key, and the position of each key. The arrays of the last
 * sync are copied, never changed; an index is copied only when a key comes or goes. Objects
 * keep their positions, an added key goes last, and a deleted one leaves no gap: the order a
 * Map keyed by namespace/name would give.
 */
function applyStoreOps<T extends Keyed>(
  previous: readonly T[],
  previousIndex: ReadonlyMap<string, number> | undefined,
  ops: readonly StoreOp<T>[],
): { items: readonly T[]; index: ReadonlyMap<string, number> } {
  let items: (T | undefined)[];
  let index: ReadonlyMap<string, number>;
  let owned: Map<string, number> | undefined;
  if (previousIndex === undefined) {
    // The last sync was given lists: one object per key, the last listing winning, as sync reads them.
    const byKey = new Map<string, T>();
    for (const object of previous) byKey.set(keyOf(object), object);
    items = [...byKey.values()];
    owned = new Map();
    for (const [i, object] of items.entries()) if (object !== undefined) owned.set(keyOf(object), i);
    index = owned;
  } else {
    if (ops.length === 0) return { items: previous, index: previousIndex };
    items = previous.slice();
    index = previousIndex;
  }
  const own = (): Map<string, number> => {
    owned ??= new Map(index);
    index = owned;
    return owned;
  };
  let holes = 0;
  for (const op of ops) {
    const key = keyOf(op.object);
    const at = index.get(key);
    if (op.put) {
      if (at !== undefined) items[at] = op.object;
      else {
        own().set(key, items.length);
        items.push(op.object);
      }
    } else if (at !== undefined) {
      own().delete(key);
      items[at] = undefined;
      holes++;
    }
  }
  if (holes === 0) return { items: items as T[], index };
  const kept = items.filter((object): object is T => object !== undefined);
  const compacted = new Map<string, number>();
  for (const [i, object] of kept.entries()) compacted.set(keyOf(object), i);
  return { items: kept, index: compacted };
}

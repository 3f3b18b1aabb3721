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
 * Which items array each key index was last made for. The state of a sync keeps its arrays and
 * their index; the next sync makes new arrays and takes the index over in place (a 10,000-key
 * Map is not copied for one new key), and from then on the index is the new arrays'. A sync
 * that starts again from an older state (a retry after a failed restore) finds its index taken
 * and makes one afresh from that state's arrays.
 */
const indexOwners = new WeakMap<ReadonlyMap<string, number>, readonly unknown[]>();

/** The index of `items`: a key's position. */
function indexOf<T extends Keyed>(items: readonly T[]): Map<string, number> {
  const index = new Map<string, number>();
  for (let i = 0; i < items.length; i++) index.set(keyOf(items[i] as T), i);
  return index;
}

/**
 * The objects after `ops`, one per key, and the position of each key. The arrays of the last
 * sync are copied, never changed; its index is taken over (see indexOwners). Objects keep their
 * positions, an added key goes last, and a deleted one leaves no gap: the order a Map keyed by
 * namespace/name would give.
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
    owned = indexOf(items as T[]);
    index = owned;
  } else if (indexOwners.get(previousIndex) !== previous) {
    // Taken over by a later sync: this state's arrays get an index of their own again.
    owned = indexOf(previous);
    indexOwners.set(owned, previous);
    if (ops.length === 0) return { items: previous, index: owned };
    items = previous.slice();
    index = owned;
  } else {
    if (ops.length === 0) return { items: previous, index: previousIndex };
    items = previous.slice();
    index = previousIndex;
  }
  // Before the first key comes or goes: the index is taken over (it is the last arrays' still).
  const own = (): Map<string, number> => {
    owned ??= index instanceof Map ? index : new Map(index);
    index = owned;
    return owned;
  };
  const holes: number[] = [];
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
      holes.push(at);
    }
  }
  if (holes.length === 0) {
    indexOwners.set(index, items);
    return { items: items as T[], index };
  }
  const kept = items.filter((object): object is T => object !== undefined);
  // Each key after a hole moves up by the holes before it.
  holes.sort((a, b) => a - b);
  const first = holes[0] as number;
  const map = own();
  for (const [key, at] of map) {
    if (at < first) continue;
    let lo = 0;
    let hi = holes.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if ((holes[mid] as number) < at) lo = mid + 1;
      else hi = mid;
    }
    map.set(key, at - lo);
  }
  indexOwners.set(map, kept);
  return { items: kept, index: map };
}

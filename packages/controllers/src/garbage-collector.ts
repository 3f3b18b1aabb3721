// The garbage collector, made pure over the informer caches: an object whose owners (by
// ownerReferences, matched by uid) are all gone is deleted, in the background, or in the
// foreground when an owner is waiting for its dependents and it has dependents of its own;
// references to owners that are gone or waiting are dropped from an object that keeps another
// owner. An owner being deleted with the `orphan` finalizer has its references taken off its
// dependents, then the finalizer; one with `foregroundDeletion` has its blocking dependents
// deleted, and loses the finalizer once none is left (the apiserver then deletes it).
// upstream (v1.33): pkg/controller/garbagecollector/garbagecollector.go (attemptToDeleteItem,
//           isDangling, classifyReferences, processDeletingDependentsItem, orphanDependents,
//           attemptToOrphanWorker), pkg/controller/garbagecollector/graph.go (blockingDependents,
//           isDeletingDependents), pkg/controller/garbagecollector/operations.go (deleteObject:
//           the UID and resourceVersion as preconditions)
//
// Keys are `<resource>/<namespace>/<name>` (namespace empty for cluster-scoped objects). Owners
// are looked up in the cache by kind and name, as the upstream collector looks them up by
// name and compares the uid; an owner kind the cluster does not serve leaves its dependent
// alone, as upstream's collector cannot map it to a resource and retries.
import type { KubeObject, OwnerReference, ResourceName } from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';

export const GARBAGE_COLLECTOR_NAME = 'garbage-collector';

/** metav1.FinalizerOrphanDependents. */
export const FINALIZER_ORPHAN = 'orphan';
/** metav1.FinalizerDeleteDependents. */
export const FINALIZER_FOREGROUND = 'foregroundDeletion';

interface Served {
  readonly resource: ResourceName;
  readonly apiVersion: string;
  readonly namespaced: boolean;
}

/** The kinds whose objects the collector watches, as owners and as dependents. */
const SERVED: Readonly<Record<string, Served>> = {
  Pod: { resource: 'pods', apiVersion: 'v1', namespaced: true },
  Service: { resource: 'services', apiVersion: 'v1', namespaced: true },
  Endpoints: { resource: 'endpoints', apiVersion: 'v1', namespaced: true },
  EndpointSlice: { resource: 'endpointslices', apiVersion: 'discovery.k8s.io/v1', namespaced: true },
  Node: { resource: 'nodes', apiVersion: 'v1', namespaced: false },
  Deployment: { resource: 'deployments', apiVersion: 'apps/v1', namespaced: true },
  ReplicaSet: { resource: 'replicasets', apiVersion: 'apps/v1', namespaced: true },
};

const WATCHED: readonly ResourceName[] = Object.values(SERVED).map((s) => s.resource);
const NAMESPACED = new Map(Object.values(SERVED).map((s) => [s.resource, s.namespaced]));

function keyOf(resource: ResourceName, object: KubeObject): string {
  return `${resource}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;
}

function parseKey(key: string): { readonly resource: ResourceName; readonly namespace: string; readonly name: string } | undefined {
  const [resource = '', namespace = '', ...rest] = key.split('/');
  if (!NAMESPACED.has(resource as ResourceName) || rest.length !== 1) return undefined;
  return { resource: resource as ResourceName, namespace, name: rest[0] ?? '' };
}

function finalizers(object: KubeObject): readonly string[] {
  return object.metadata.finalizers ?? [];
}

function isBeingDeleted(object: KubeObject): boolean {
  return object.metadata.deletionTimestamp !== undefined && object.metadata.deletionTimestamp !== null;
}

/** isDeletingDependents: being deleted with the foregroundDeletion finalizer. */
function isDeletingDependents(object: KubeObject): boolean {
  return isBeingDeleted(object) && finalizers(object).includes(FINALIZER_FOREGROUND);
}

interface Dependent {
  readonly resource: ResourceName;
  readonly object: KubeObject;
  readonly ref: OwnerReference;
}

/**
 * The watched objects with an owner reference `matches` accepts: in `namespace`, or in all
 * namespaces and none for a cluster-scoped owner (`namespace` undefined).
 */
function dependentsWhere(namespace: string | undefined, cache: CacheView, matches: (ref: OwnerReference) => boolean): Dependent[] {
  const out: Dependent[] = [];
  for (const resource of WATCHED) {
    // A namespaced owner owns only objects of its own namespace.
    if (namespace !== undefined && NAMESPACED.get(resource) !== true) continue;
    for (const object of namespace === undefined ? cache.list(resource) : cache.list(resource, namespace)) {
      const ref = (object.metadata.ownerReferences ?? []).find(matches);
      if (ref !== undefined) out.push({ resource, object, ref });
    }
  }
  return out;
}

/** The watched objects that name `owner` (by uid) among their owners. */
function dependentsOf(owner: KubeObject, ownerNamespaced: boolean, cache: CacheView): Dependent[] {
  const uid = owner.metadata.uid ?? '';
  if (uid === '') return [];
  return dependentsWhere(ownerNamespaced ? (owner.metadata.namespace ?? '') : undefined, cache, (r) => r.uid === uid);
}

type Classified = { readonly solid: OwnerReference[]; readonly dangling: OwnerReference[]; readonly waiting: OwnerReference[] } | 'unknown';

/** classifyReferences with isDangling's lookup: solid, gone (absent or another uid), or waiting for its dependents. */
function classify(item: KubeObject, itemNamespaced: boolean, cache: CacheView): Classified {
  const solid: OwnerReference[] = [];
  const dangling: OwnerReference[] = [];
  const waiting: OwnerReference[] = [];
  for (const ref of item.metadata.ownerReferences ?? []) {
    const served = SERVED[ref.kind];
    if (served === undefined || served.apiVersion !== ref.apiVersion) return 'unknown';
    // A cluster-scoped object cannot be owned by a namespaced one: upstream gives up on it.
    if (served.namespaced && !itemNamespaced) return 'unknown';
    const owner = cache.get(served.resource, served.namespaced ? (item.metadata.namespace ?? '') : '', ref.name);
    if (owner === undefined || owner.metadata.uid !== ref.uid) dangling.push(ref);
    else if (isDeletingDependents(owner)) waiting.push(ref);
    else solid.push(ref);
  }
  return { solid, dangling, waiting };
}

function withoutOwners(object: KubeObject, uids: ReadonlySet<string>): KubeObject {
  const kept = (object.metadata.ownerReferences ?? []).filter((r) => !uids.has(r.uid));
  const { ownerReferences: _o, ...meta } = object.metadata;
  return { ...object, metadata: kept.length === 0 ? meta : { ...meta, ownerReferences: kept } } as KubeObject;
}

function withoutFinalizer(object: KubeObject, finalizer: string): KubeObject {
  const kept = finalizers(object).filter((f) => f !== finalizer);
  const { finalizers: _f, ...meta } = object.metadata;
  return { ...object, metadata: kept.length === 0 ? meta : { ...meta, finalizers: kept } } as KubeObject;
}

function update(resource: ResourceName, object: KubeObject): ReconcileAction {
  return { kind: 'update', resource, namespace: object.metadata.namespace ?? '', object };
}

function deleteWith(resource: ResourceName, object: KubeObject, propagationPolicy: 'Orphan' | 'Background' | 'Foreground'): ReconcileAction {
  const { namespace = '', name = '', uid = '', resourceVersion } = object.metadata;
  return { kind: 'delete', resource, namespace, name, uid, ...(resourceVersion === undefined ? {} : { resourceVersion }), propagationPolicy };
}

/** attemptToDeleteItem for an object not being deleted. */
function attemptToDelete(resource: ResourceName, item: KubeObject, cache: CacheView): ReconcileAction[] {
  if ((item.metadata.ownerReferences ?? []).length === 0) return [];
  const namespaced = NAMESPACED.get(resource) ?? false;
  const c = classify(item, namespaced, cache);
  if (c === 'unknown') return [];
  if (c.solid.length > 0) {
    if (c.dangling.length === 0 && c.waiting.length === 0) return [];
    // Keep the solid owners; drop the references that would block or mislead.
    return [update(resource, withoutOwners(item, new Set([...c.dangling, ...c.waiting].map((r) => r.uid))))];
  }
  if (c.waiting.length > 0 && dependentsOf(item, namespaced, cache).length > 0) return [deleteWith(resource, item, 'Foreground')];
  const own = finalizers(item);
  const policy = own.includes(FINALIZER_ORPHAN) ? 'Orphan' : own.includes(FINALIZER_FOREGROUND) ? 'Foreground' : 'Background';
  return [deleteWith(resource, item, policy)];
}

/** An owner being deleted with a garbage-collector finalizer: orphan its dependents, or delete them first. */
function finalize(resource: ResourceName, owner: KubeObject, cache: CacheView): ReconcileAction[] {
  const namespaced = NAMESPACED.get(resource) ?? false;
  const dependents = dependentsOf(owner, namespaced, cache);
  if (finalizers(owner).includes(FINALIZER_ORPHAN)) {
    // The dependents first; the finalizer comes off only after all of them are updated.
    const uid = new Set([owner.metadata.uid ?? '']);
    return [...dependents.map((d) => update(d.resource, withoutOwners(d.object, uid))), update(resource, withoutFinalizer(owner, FINALIZER_ORPHAN))];
  }
  if (!isDeletingDependents(owner)) return [];
  const blocking = dependents.filter((d) => d.ref.blockOwnerDeletion === true);
  if (blocking.length === 0) return [update(resource, withoutFinalizer(owner, FINALIZER_FOREGROUND))];
  const actions: ReconcileAction[] = [];
  for (const d of blocking) {
    // A dependent already on its way is waited for; one deleting its own dependents too.
    if (isBeingDeleted(d.object)) continue;
    actions.push(...attemptToDelete(d.resource, d.object, cache));
  }
  return actions;
}

/**
 * An owner that is gone: each object naming it (by kind and name; the uid, which classify
 * compares, tells a reference to an object made again under the name) is looked at again.
 */
function collectDependentsOfGone(resource: ResourceName, namespace: string, name: string, cache: CacheView): ReconcileAction[] {
  const served = Object.entries(SERVED).find(([, s]) => s.resource === resource);
  if (served === undefined) return [];
  const [kind, { apiVersion, namespaced }] = served;
  const actions: ReconcileAction[] = [];
  for (const d of dependentsWhere(namespaced ? namespace : undefined, cache, (r) => r.kind === kind && r.apiVersion === apiVersion && r.name === name)) {
    if (!isBeingDeleted(d.object)) actions.push(...attemptToDelete(d.resource, d.object, cache));
  }
  return actions;
}

/** The garbage collector as a keyed controller over pods, Services, Endpoints, EndpointSlices and Nodes. */
export function garbageCollector(): KeyedController {
  const keysFor = (change: CacheChange, cache: CacheView): string[] => {
    const { resource, object } = change;
    const keys = new Set<string>();
    // An object with owners; an owner being deleted; an owner gone, whose dependents may be
    // garbage now (its key's reconcile looks them up, off the informer's path).
    if ((object.metadata.ownerReferences ?? []).length > 0 || isBeingDeleted(object) || change.type === 'DELETED') keys.add(keyOf(resource, object));
    // A dependent that went, or lost an owner reference: an owner waiting for its dependents may be done.
    const refs = [...(object.metadata.ownerReferences ?? []), ...(change.old?.metadata.ownerReferences ?? [])];
    for (const ref of refs) {
      const served = SERVED[ref.kind];
      if (served === undefined) continue;
      const owner = cache.get(served.resource, served.namespaced ? (object.metadata.namespace ?? '') : '', ref.name);
      if (owner !== undefined && owner.metadata.uid === ref.uid && isBeingDeleted(owner)) keys.add(keyOf(served.resource, owner));
    }
    return [...keys];
  };

  return {
    name: GARBAGE_COLLECTOR_NAME,
    watches: WATCHED,
    keysFor,
    reconcile(key: string, cache: CacheView): readonly ReconcileAction[] {
      const target = parseKey(key);
      if (target === undefined) return [];
      const item = cache.get(target.resource, target.namespace, target.name);
      if (item === undefined) return collectDependentsOfGone(target.resource, target.namespace, target.name, cache);
      if (isBeingDeleted(item)) return finalize(target.resource, item, cache);
      return attemptToDelete(target.resource, item, cache);
    },
  };
}

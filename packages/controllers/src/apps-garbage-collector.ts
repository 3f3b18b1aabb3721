// The garbage collector's background deletion for the dependents of apps/v1 objects: a
// ReplicaSet whose Deployment is gone, and a pod whose ReplicaSet is gone, are deleted, as
// kube-controller-manager's garbage collector deletes an object once none of its owners exists
// (an owner reference naming a uid that is not the live object's counts as gone). Owners of
// other kinds are not looked at: an object with one of them is kept.
// upstream (v1.33): pkg/controller/garbagecollector/garbagecollector.go (attemptToDeleteItem:
//           the owners classified as solid, dangling or waiting for dependents deletion; no
//           solid owner means delete), pkg/controller/garbagecollector/operations.go
import type { KubeObject, OwnerReference, ResourceName } from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';

export const APPS_GARBAGE_COLLECTOR_NAME = 'garbage-collector-controller';

/** The owner kinds looked at, and the resource their objects are in. */
const OWNER_RESOURCE: Readonly<Record<string, ResourceName>> = { Deployment: 'deployments', ReplicaSet: 'replicasets' };
/** The resources whose objects may be owned by them. */
const DEPENDENT_OF: Readonly<Record<string, ResourceName>> = { deployments: 'replicasets', replicasets: 'pods' };

function isAppsOwner(ref: OwnerReference): boolean {
  return ref.apiVersion.split('/')[0] === 'apps' && Object.hasOwn(OWNER_RESOURCE, ref.kind);
}

const keyOf = (resource: ResourceName, object: KubeObject): string => `${resource}/${object.metadata.namespace ?? ''}/${object.metadata.name ?? ''}`;

function hasAppsOwner(object: KubeObject): boolean {
  return (object.metadata.ownerReferences ?? []).some(isAppsOwner);
}

function keysFor(change: CacheChange, cache: CacheView): string[] {
  const { object, resource } = change;
  const keys: string[] = [];
  if ((resource === 'replicasets' || resource === 'pods') && change.type !== 'DELETED' && hasAppsOwner(object)) keys.push(keyOf(resource, object));
  // An owner gone: every dependent naming it.
  const dependents = DEPENDENT_OF[resource];
  if (change.type === 'DELETED' && dependents !== undefined) {
    for (const d of cache.list(dependents, object.metadata.namespace ?? '')) {
      if ((d.metadata.ownerReferences ?? []).some((r) => r.uid === object.metadata.uid)) keys.push(keyOf(dependents, d));
    }
  }
  return keys;
}

/** attemptToDeleteItem: delete when every owner is an apps/v1 owner that no longer exists. */
function reconcile(key: string, cache: CacheView): ReconcileAction[] {
  const [resource, namespace = '', ...rest] = key.split('/');
  if (resource !== 'replicasets' && resource !== 'pods') return [];
  const name = rest.join('/');
  const object = cache.get(resource, namespace, name);
  if (object === undefined || (object.metadata.deletionTimestamp ?? null) !== null) return [];
  const owners = object.metadata.ownerReferences ?? [];
  if (owners.length === 0 || !owners.every(isAppsOwner)) return [];
  const solid = owners.some((ref) => {
    const ownerResource = OWNER_RESOURCE[ref.kind];
    return ownerResource !== undefined && cache.get(ownerResource, namespace, ref.name)?.metadata.uid === ref.uid;
  });
  if (solid) return [];
  const rv = object.metadata.resourceVersion;
  return [{ kind: 'delete', resource, namespace, name, ...(rv === undefined ? {} : { resourceVersion: rv }) }];
}

/** The garbage collector for apps/v1 dependents as a keyed controller (keys are `<resource>/<namespace>/<name>`). */
export function appsGarbageCollector(): KeyedController {
  return {
    name: APPS_GARBAGE_COLLECTOR_NAME,
    watches: ['deployments', 'replicasets', 'pods'],
    keysFor,
    initialKeys: (cache) => [
      ...cache.list('replicasets').filter(hasAppsOwner).map((o) => keyOf('replicasets', o)),
      ...cache.list('pods').filter(hasAppsOwner).map((o) => keyOf('pods', o)),
    ],
    reconcile: (key, cache) => reconcile(key, cache),
  };
}

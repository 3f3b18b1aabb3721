// What the EndpointSlice controller and the mirroring controller share: the endpoint set keyed
// by upstream's endpoint hash, port-map keys, and the slices a controller manages.
// upstream: staging/src/k8s.io/endpointslice/util/endpointset.go (hashEndpoint: the sorted
//           addresses, the hostname and the targetRef's namespace and name),
//           staging/src/k8s.io/endpointslice/util/controller_utils.go (NewPortMapKey)
import {
  compareCodePoints,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  type DiscoveryEndpoint,
  type DiscoveryEndpointPort,
  type EndpointSlice,
} from '@kubesvc/api-types';
import { semanticEqual } from '@kubesvc/api-types';
import type { CacheView, ReconcileAction } from './contract.js';
import { namespacedKey } from './keys.js';

/** The identity of an endpoint in a set: what upstream hashes. */
export function endpointHash(ep: DiscoveryEndpoint): string {
  return JSON.stringify([[...ep.addresses].sort(compareCodePoints), ep.hostname ?? '', ep.targetRef?.namespace ?? '', ep.targetRef?.name ?? '']);
}

/** Endpoints keyed by their hash, in insertion order (upstream's PopAny takes any; this takes the first). */
export type EndpointSet = Map<string, DiscoveryEndpoint>;

/** The key of a set of ports: the ports sorted, so that the order they were listed in does not matter. */
export function portMapKey(ports: readonly DiscoveryEndpointPort[] | null | undefined): string {
  const list = (ports ?? []).map((p) => JSON.stringify([p.name ?? null, p.port ?? null, p.protocol ?? null, p.appProtocol ?? null]));
  return JSON.stringify(list.sort(compareCodePoints));
}

/**
 * EndpointsEqualBeyondHash, taken wide: the whole endpoint, nil and empty alike, but its
 * hints, which upstream does not compare either: they are the hint step's to set, and a
 * slice that is not otherwise changed keeps the ones it has.
 */
export function endpointsEqual(a: DiscoveryEndpoint, b: DiscoveryEndpoint): boolean {
  const { hints: _a, ...restA } = a;
  const { hints: _b, ...restB } = b;
  return semanticEqual(restA, restB);
}

/** The slices in `namespace` labelled for the Service `name` and managed by `controller`, not being deleted. */
export function managedSlices(cache: CacheView, namespace: string, name: string, controller: string): EndpointSlice[] {
  // The label index when the view has one (the informer does): a sync reads its own slices
  // instead of every slice of the namespace.
  const labelled = cache.listByLabel?.<EndpointSlice>('endpointslices', namespace, LABEL_SERVICE_NAME, name) ?? cache.list<EndpointSlice>('endpointslices', namespace);
  return labelled
    .filter((s) => s.metadata.labels?.[LABEL_SERVICE_NAME] === name && s.metadata.labels[LABEL_MANAGED_BY] === controller)
    .filter((s) => s.metadata.deletionTimestamp === undefined || s.metadata.deletionTimestamp === null);
}

export function deleteSlice(slice: EndpointSlice): ReconcileAction {
  const rv = slice.metadata.resourceVersion;
  return {
    kind: 'delete',
    resource: 'endpointslices',
    namespace: slice.metadata.namespace ?? '',
    name: slice.metadata.name ?? '',
    ...(rv === undefined ? {} : { resourceVersion: rv }),
  };
}

export function writeSlice(slice: EndpointSlice): ReconcileAction {
  const namespace = slice.metadata.namespace ?? '';
  return (slice.metadata.name ?? '') === ''
    ? { kind: 'create', resource: 'endpointslices', namespace, object: slice }
    : { kind: 'update', resource: 'endpointslices', namespace, object: slice };
}

/** The controller key (`namespace/service`) of a slice that carries the service-name label. */
export function sliceServiceKey(slice: EndpointSlice): string | undefined {
  const service = slice.metadata.labels?.[LABEL_SERVICE_NAME] ?? '';
  return service === '' ? undefined : namespacedKey(slice.metadata.namespace ?? '', service);
}

// The resources the registry serves and where their objects live in the store: the key layout
// of kube-apiserver's etcd3 storage (the `/registry` prefix, then the resource's path).
// upstream: pkg/registry/*/storage/storage.go (each Store's DefaultQualifiedResource and
//           KeyRootFunc), pkg/registry/core/service/storage/storage.go ("services/specs"),
//           pkg/registry/core/endpoint/storage ("services/endpoints"),
//           pkg/controlplane/reconcilers (masterleases), pkg/registry/core/rangeallocation,
//           pkg/registry/networking/{servicecidr,ipaddress}/storage/storage.go (no KeyRootFunc:
//           the generic Store's `/registry/<resource>` root; DeleteCollection from the Store),
//           pkg/registry/apps/{deployment,replicaset}/storage/storage.go (v1.33: the generic root)
import type { Kind, ResourceName } from '@kubesvc/api-types';
import type { GroupResource } from './errors.js';
import type { RestStrategy } from './strategy.js';
import { appsStrategy } from './strategies/apps.js';
import { endpointSliceStrategy } from './strategies/endpointslices.js';
import { endpointsStrategy } from './strategies/endpoints.js';
import { eventStrategy } from './strategies/events.js';
import { namespaceStrategy } from './strategies/namespaces.js';
import { nodeStrategy } from './strategies/nodes.js';
import { podStrategy } from './strategies/pods.js';
import { ipAddressStrategy } from './strategies/ipaddresses.js';
import { serviceCIDRStrategy } from './strategies/servicecidrs.js';
import { serviceStrategy } from './strategies/services.js';

export type { ResourceName };

export interface ResourceInfo {
  readonly resource: ResourceName;
  readonly group: '' | 'discovery.k8s.io' | 'networking.k8s.io' | 'apps';
  readonly kind: Extract<Kind, 'Namespace' | 'Service' | 'Endpoints' | 'EndpointSlice' | 'Pod' | 'Node' | 'Event' | 'ServiceCIDR' | 'IPAddress' | 'Deployment' | 'ReplicaSet'>;
  readonly apiVersion: 'v1' | 'discovery.k8s.io/v1' | 'networking.k8s.io/v1' | 'apps/v1';
  readonly namespaced: boolean;
  /** The store prefix every object of the resource is under, ending in `/`. */
  readonly prefix: string;
  /** An update of a missing object creates it (upstream strategy AllowCreateOnUpdate). */
  readonly createOnUpdate: boolean;
  /**
   * The storage implements DeleteCollection (rest.CollectionDeleter), so `DELETE` on the
   * collection is routed and discovery lists `deletecollection`. Every generic Store does;
   * the namespace storage wraps its Store without that method, so deleting every namespace
   * at once is not a request the apiserver has (the namespace controller deletes contents
   * namespace by namespace). upstream: pkg/registry/core/namespace/storage/storage.go (REST)
   */
  readonly deleteCollection: boolean;
  /** What the kind's storage does differently (strategies/<resource>.ts). */
  readonly strategy: RestStrategy;
  /**
   * The release that deprecated this version of the kind and what replaces it (the type's
   * prerelease-lifecycle tags): every request to the resource then carries upstream's warning.
   */
  readonly deprecated?: { readonly major: number; readonly minor: number; readonly replacement: string };
}

/**
 * The deprecation warning every request to a deprecated resource gets, worded as upstream's
 * (`v1 Endpoints is deprecated in v1.33+; use discovery.k8s.io/v1 EndpointSlice`), or undefined.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/deprecation/deprecation.go (WarningMessage),
 *           staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (the route's warnings)
 */
export function deprecationWarning(info: Pick<ResourceInfo, 'apiVersion' | 'kind' | 'deprecated'>): string | undefined {
  const d = info.deprecated;
  return d === undefined ? undefined : `${info.apiVersion} ${info.kind} is deprecated in v${d.major}.${d.minor}+; use ${d.replacement}`;
}

export const REGISTRY_PREFIX = '/registry';

export const RESOURCES: Readonly<Record<ResourceName, ResourceInfo>> = {
  namespaces: { resource: 'namespaces', group: '', kind: 'Namespace', apiVersion: 'v1', namespaced: false, prefix: '/registry/namespaces/', createOnUpdate: false, deleteCollection: false, strategy: namespaceStrategy },
  services: { resource: 'services', group: '', kind: 'Service', apiVersion: 'v1', namespaced: true, prefix: '/registry/services/specs/', createOnUpdate: false, deleteCollection: true, strategy: serviceStrategy },
  // Deprecated in v1.33 (KEP-4974), served as before.
  endpoints: {
    resource: 'endpoints',
    group: '',
    kind: 'Endpoints',
    apiVersion: 'v1',
    namespaced: true,
    prefix: '/registry/services/endpoints/',
    createOnUpdate: true,
    deleteCollection: true,
    strategy: endpointsStrategy,
    deprecated: { major: 1, minor: 33, replacement: 'discovery.k8s.io/v1 EndpointSlice' },
  },
  endpointslices: {
    resource: 'endpointslices',
    group: 'discovery.k8s.io',
    kind: 'EndpointSlice',
    apiVersion: 'discovery.k8s.io/v1',
    namespaced: true,
    prefix: '/registry/endpointslices/',
    createOnUpdate: false,
    deleteCollection: true,
    strategy: endpointSliceStrategy,
  },
  pods: { resource: 'pods', group: '', kind: 'Pod', apiVersion: 'v1', namespaced: true, prefix: '/registry/pods/', createOnUpdate: false, deleteCollection: true, strategy: podStrategy },
  // upstream: pkg/registry/core/node/storage/storage.go (the "minions" key root, kept from the
  // old name of nodes)
  nodes: { resource: 'nodes', group: '', kind: 'Node', apiVersion: 'v1', namespaced: false, prefix: '/registry/minions/', createOnUpdate: false, deleteCollection: true, strategy: nodeStrategy },
  events: { resource: 'events', group: '', kind: 'Event', apiVersion: 'v1', namespaced: true, prefix: '/registry/events/', createOnUpdate: true, deleteCollection: true, strategy: eventStrategy },
  // networking.k8s.io/v1, served since v1.33 (the MultiCIDRServiceAllocator gate locked on).
  servicecidrs: {
    resource: 'servicecidrs',
    group: 'networking.k8s.io',
    kind: 'ServiceCIDR',
    apiVersion: 'networking.k8s.io/v1',
    namespaced: false,
    prefix: '/registry/servicecidrs/',
    createOnUpdate: false,
    deleteCollection: true,
    strategy: serviceCIDRStrategy,
  },
  ipaddresses: {
    resource: 'ipaddresses',
    group: 'networking.k8s.io',
    kind: 'IPAddress',
    apiVersion: 'networking.k8s.io/v1',
    namespaced: false,
    prefix: '/registry/ipaddresses/',
    createOnUpdate: false,
    deleteCollection: true,
    strategy: ipAddressStrategy,
  },
  // apps/v1, with /status and /scale subresources (verbs/scale.ts).
  deployments: { resource: 'deployments', group: 'apps', kind: 'Deployment', apiVersion: 'apps/v1', namespaced: true, prefix: '/registry/deployments/', createOnUpdate: false, deleteCollection: true, strategy: appsStrategy },
  replicasets: { resource: 'replicasets', group: 'apps', kind: 'ReplicaSet', apiVersion: 'apps/v1', namespaced: true, prefix: '/registry/replicasets/', createOnUpdate: false, deleteCollection: true, strategy: appsStrategy },
};

/** The table's resources, in its order. */
export const RESOURCE_NAMES: readonly ResourceName[] = Object.values(RESOURCES).map((info) => info.resource);

/** The namespaced resources, in the order the namespace controller deletes them. */
export const NAMESPACED_RESOURCES: readonly ResourceName[] = RESOURCE_NAMES.filter((name) => RESOURCES[name].namespaced);

export function isResourceName(value: string): value is ResourceName {
  return Object.hasOwn(RESOURCES, value);
}

export function groupResource(info: ResourceInfo): GroupResource {
  return { group: info.group, resource: info.resource };
}

/** The key of one object: `<prefix><ns>/<name>`, or `<prefix><name>` when not namespaced. */
export function objectKey(info: ResourceInfo, namespace: string, name: string): string {
  return info.namespaced ? `${info.prefix}${namespace}/${name}` : `${info.prefix}${name}`;
}

/** The prefix of a list: the whole resource, or one namespace of it. */
export function listPrefix(info: ResourceInfo, namespace?: string): string {
  return info.namespaced && namespace !== undefined && namespace !== '' ? `${info.prefix}${namespace}/` : info.prefix;
}

/** The allocators' RangeAllocation objects. upstream: pkg/controlplane/instance.go (rangeRegistries) */
export const SERVICE_IPS_KEY = '/registry/ranges/serviceips';
/** The secondary service CIDR's allocation on a dual-stack cluster. */
export const SECONDARY_SERVICE_IPS_KEY = '/registry/ranges/secondaryserviceips';
export const SERVICE_NODE_PORTS_KEY = '/registry/ranges/servicenodeports';
/** The master-lease reconciler's keys: `/registry/masterleases/<ip>`. */
export const MASTER_LEASES_PREFIX = '/registry/masterleases/';

export function masterLeaseKey(ip: string): string {
  return `${MASTER_LEASES_PREFIX}${ip}`;
}

// The kinds this project reads and writes, by apiVersion and kind, and the List forms
// they travel in.
import { z } from 'zod';
import { DeploymentSchema, ReplicaSetSchema, ScaleSchema, APPS_API_VERSION, AUTOSCALING_API_VERSION, type Deployment, type ReplicaSet, type Scale } from './apps.js';
import { EndpointSliceSchema, type EndpointSlice } from './endpoint-slice.js';
import { EndpointsSchema, type Endpoints } from './endpoints.js';
import { EventSchema, type Event } from './event.js';
import { ListMetaSchema, type ListMeta } from './meta.js';
import { NamespaceSchema, type Namespace } from './namespace.js';
import { NodeSchema, type Node } from './node.js';
import { PodSchema, type Pod } from './pod.js';
import { RangeAllocationSchema, type RangeAllocation } from './range-allocation.js';
import { IPAddressSchema, ServiceCIDRSchema, SERVICE_CIDR_API_VERSION, type IPAddress, type ServiceCIDR } from './service-cidr.js';
import { ServiceSchema, type Service } from './service.js';
import { StatusSchema, type Status } from './status.js';

export type KubeObject =
  | Namespace
  | Service
  | Endpoints
  | EndpointSlice
  | Pod
  | Node
  | Event
  | RangeAllocation
  | ServiceCIDR
  | IPAddress
  | Deployment
  | ReplicaSet
  | Scale
  | Status;
export type Kind = KubeObject['kind'];

/**
 * The resources (the lower-case plural names in API paths) the control plane serves: what the
 * registry stores, informers watch and controllers write. RangeAllocation is stored but not
 * served, a Scale is a view of a Deployment or ReplicaSet, and a Status is an answer, not a resource.
 */
export type ResourceName =
  | 'namespaces'
  | 'services'
  | 'endpoints'
  | 'endpointslices'
  | 'pods'
  | 'nodes'
  | 'events'
  | 'servicecidrs'
  | 'ipaddresses'
  | 'deployments'
  | 'replicasets';

interface KindInfo {
  readonly apiVersion: string;
  readonly schema: z.ZodType<KubeObject>;
}

export const KINDS: Readonly<Record<Kind, KindInfo>> = {
  Namespace: { apiVersion: 'v1', schema: NamespaceSchema },
  Service: { apiVersion: 'v1', schema: ServiceSchema },
  Endpoints: { apiVersion: 'v1', schema: EndpointsSchema },
  EndpointSlice: { apiVersion: 'discovery.k8s.io/v1', schema: EndpointSliceSchema },
  Pod: { apiVersion: 'v1', schema: PodSchema },
  Node: { apiVersion: 'v1', schema: NodeSchema },
  Event: { apiVersion: 'v1', schema: EventSchema },
  RangeAllocation: { apiVersion: 'v1', schema: RangeAllocationSchema },
  ServiceCIDR: { apiVersion: SERVICE_CIDR_API_VERSION, schema: ServiceCIDRSchema },
  IPAddress: { apiVersion: SERVICE_CIDR_API_VERSION, schema: IPAddressSchema },
  Deployment: { apiVersion: APPS_API_VERSION, schema: DeploymentSchema },
  ReplicaSet: { apiVersion: APPS_API_VERSION, schema: ReplicaSetSchema },
  Scale: { apiVersion: AUTOSCALING_API_VERSION, schema: ScaleSchema },
  Status: { apiVersion: 'v1', schema: StatusSchema },
};

export function isKnownKind(kind: string): kind is Kind {
  return Object.hasOwn(KINDS, kind);
}

/** The object a kind's `apiVersion`/`kind` pair names, narrowed. */
export type ObjectOfKind<K extends Kind> = Extract<KubeObject, { kind: K }>;

/**
 * A list as kubectl prints several objects (`kind: List`), or as the API returns a
 * collection (`kind: ServiceList`, whose items carry no apiVersion or kind of their own).
 */
export interface KubeList<T extends KubeObject = KubeObject> {
  apiVersion: string;
  kind: string;
  metadata: ListMeta;
  items: T[];
  [extra: string]: unknown;
}

export const ListEnvelopeSchema = z.looseObject({
  apiVersion: z.string(),
  kind: z.string().regex(/List$/),
  metadata: ListMetaSchema.optional(),
  items: z.array(z.unknown()).nullable(),
});

/** kubectl's envelope for several objects: `kubectl get svc,ep -o json`. */
export function kubectlList<T extends KubeObject>(items: readonly T[]): KubeList<T> {
  return { apiVersion: 'v1', items: [...items], kind: 'List', metadata: { resourceVersion: '' } };
}

// The strategic merge patch metadata of the kinds kubesvc serves: which lists merge (and by
// which key), which are replaced whole, and the struct type a field leads to. These are the
// `patchStrategy` / `patchMergeKey` struct tags of the Go API types (Kubernetes v1.32).
// upstream: staging/src/k8s.io/api/core/v1/types.go, staging/src/k8s.io/api/discovery/v1/types.go,
//           staging/src/k8s.io/api/networking/v1/types.go (v1.33: ServiceCIDR, IPAddress),
//           staging/src/k8s.io/api/events/v1/types.go,
//           staging/src/k8s.io/api/apps/v1/types.go, staging/src/k8s.io/api/autoscaling/v1/types.go (v1.33), staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/types.go
//
// The table is sparse on purpose. A field that is not listed behaves as a Go field without
// tags: a map under it merges key by key and a list under it is replaced whole. Upstream looks
// a field up only when the stored object and the patch both hold a map, or both a list, under
// it, and the stored object comes from the typed struct, so every such field exists there;
// listing only the tagged fields and the struct fields on the way to them gives the same
// merges. Lists with no tag, replaced whole, include Service `externalIPs`, Endpoints
// `subsets`, every EndpointSlice list, `tolerations`, Node `taints`, Namespace
// `spec.finalizers`, Pod `containerStatuses` and the LoadBalancer `ingress` list.

/** One field's tags: `merge` lists merge by `mergeKey` (or as a set of scalars without one). */
export interface PatchField {
  readonly strategy?: 'merge' | 'replace';
  /** `patchStrategy:"merge,retainKeys"`: kubectl's diff sends `$retainKeys` for it. */
  readonly retainKeys?: true;
  readonly mergeKey?: string;
  /** The struct the field (or each element of the list) is, when it has tagged fields below. */
  readonly type?: PatchStructName;
  /** Go's kind name of a scalar list's elements (what upstream names in one error). */
  readonly elementKind?: 'string';
}

export type PatchStruct = Readonly<Record<string, PatchField>>;

/** The Go structs the table describes. */
export type PatchStructName =
  | 'ObjectMeta'
  | 'Service'
  | 'ServiceSpec'
  | 'ServiceStatus'
  | 'Endpoints'
  | 'Pod'
  | 'PodSpec'
  | 'Container'
  | 'PodStatus'
  | 'Namespace'
  | 'NamespaceStatus'
  | 'Node'
  | 'NodeSpec'
  | 'NodeStatus'
  | 'Event'
  | 'EndpointSlice'
  | 'ServiceCIDR'
  | 'ServiceCIDRStatus'
  | 'IPAddress'
  | 'PodTemplateSpec'
  | 'Deployment'
  | 'DeploymentSpec'
  | 'DeploymentStatus'
  | 'ReplicaSet'
  | 'ReplicaSetSpec'
  | 'ReplicaSetStatus'
  | 'Scale';

const objectMeta: PatchStruct = {
  ownerReferences: { strategy: 'merge', mergeKey: 'uid' },
  finalizers: { strategy: 'merge', elementKind: 'string' },
};

const container: PatchStruct = {
  ports: { strategy: 'merge', mergeKey: 'containerPort' },
  env: { strategy: 'merge', mergeKey: 'name' },
  volumeMounts: { strategy: 'merge', mergeKey: 'mountPath' },
  volumeDevices: { strategy: 'merge', mergeKey: 'devicePath' },
};

const STRUCTS: Readonly<Record<PatchStructName, PatchStruct>> = {
  ObjectMeta: objectMeta,
  // core/v1
  Service: { metadata: { type: 'ObjectMeta' }, spec: { type: 'ServiceSpec' }, status: { type: 'ServiceStatus' } },
  ServiceSpec: { ports: { strategy: 'merge', mergeKey: 'port' } },
  ServiceStatus: { conditions: { strategy: 'merge', mergeKey: 'type' } },
  Endpoints: { metadata: { type: 'ObjectMeta' } },
  Pod: { metadata: { type: 'ObjectMeta' }, spec: { type: 'PodSpec' }, status: { type: 'PodStatus' } },
  PodSpec: {
    volumes: { strategy: 'merge', retainKeys: true, mergeKey: 'name' },
    initContainers: { strategy: 'merge', mergeKey: 'name', type: 'Container' },
    containers: { strategy: 'merge', mergeKey: 'name', type: 'Container' },
    // EphemeralContainer inlines EphemeralContainerCommon, whose list tags are Container's.
    ephemeralContainers: { strategy: 'merge', mergeKey: 'name', type: 'Container' },
    imagePullSecrets: { strategy: 'merge', mergeKey: 'name' },
    hostAliases: { strategy: 'merge', mergeKey: 'ip' },
    topologySpreadConstraints: { strategy: 'merge', mergeKey: 'topologyKey' },
    schedulingGates: { strategy: 'merge', mergeKey: 'name' },
    resourceClaims: { strategy: 'merge', retainKeys: true, mergeKey: 'name' },
  },
  Container: container,
  PodStatus: {
    conditions: { strategy: 'merge', mergeKey: 'type' },
    hostIPs: { strategy: 'merge', mergeKey: 'ip' },
    podIPs: { strategy: 'merge', mergeKey: 'ip' },
    resourceClaimStatuses: { strategy: 'merge', retainKeys: true, mergeKey: 'name' },
  },
  Namespace: { metadata: { type: 'ObjectMeta' }, status: { type: 'NamespaceStatus' } },
  NamespaceStatus: { conditions: { strategy: 'merge', mergeKey: 'type' } },
  Node: { metadata: { type: 'ObjectMeta' }, spec: { type: 'NodeSpec' }, status: { type: 'NodeStatus' } },
  NodeSpec: { podCIDRs: { strategy: 'merge', elementKind: 'string' } },
  NodeStatus: {
    conditions: { strategy: 'merge', mergeKey: 'type' },
    addresses: { strategy: 'merge', mergeKey: 'type' },
  },
  Event: { metadata: { type: 'ObjectMeta' } },
  // discovery.k8s.io/v1: no list of EndpointSlice carries a patch strategy.
  EndpointSlice: { metadata: { type: 'ObjectMeta' } },
  // networking.k8s.io/v1: spec.cidrs is atomic (no patch tags, replaced whole); the status
  // conditions merge by type. upstream: staging/src/k8s.io/api/networking/v1/types.go
  ServiceCIDR: { metadata: { type: 'ObjectMeta' }, status: { type: 'ServiceCIDRStatus' } },
  ServiceCIDRStatus: { conditions: { strategy: 'merge', mergeKey: 'type' } },
  IPAddress: { metadata: { type: 'ObjectMeta' } },
  // apps/v1: the pod template is a PodTemplateSpec, whose spec is a PodSpec (containers merge
  // by name, so `kubectl set image` patches one container); status conditions merge by type.
  // DeploymentSpec.strategy's retainKeys tag only matters to apply's `$retainKeys`, not modelled.
  PodTemplateSpec: { metadata: { type: 'ObjectMeta' }, spec: { type: 'PodSpec' } },
  Deployment: { metadata: { type: 'ObjectMeta' }, spec: { type: 'DeploymentSpec' }, status: { type: 'DeploymentStatus' } },
  DeploymentSpec: { template: { type: 'PodTemplateSpec' } },
  DeploymentStatus: { conditions: { strategy: 'merge', mergeKey: 'type' } },
  ReplicaSet: { metadata: { type: 'ObjectMeta' }, spec: { type: 'ReplicaSetSpec' }, status: { type: 'ReplicaSetStatus' } },
  ReplicaSetSpec: { template: { type: 'PodTemplateSpec' } },
  ReplicaSetStatus: { conditions: { strategy: 'merge', mergeKey: 'type' } },
  // autoscaling/v1 Scale: no tagged fields.
  Scale: { metadata: { type: 'ObjectMeta' } },
};

/** The struct a kind's objects are, by `apiVersion` and `kind`. */
const ROOTS: Readonly<Record<string, PatchStructName>> = {
  'v1/Service': 'Service',
  'v1/Endpoints': 'Endpoints',
  'v1/Pod': 'Pod',
  'v1/Namespace': 'Namespace',
  'v1/Node': 'Node',
  'v1/Event': 'Event',
  'events.k8s.io/v1/Event': 'Event',
  'discovery.k8s.io/v1/EndpointSlice': 'EndpointSlice',
  'networking.k8s.io/v1/ServiceCIDR': 'ServiceCIDR',
  'networking.k8s.io/v1/IPAddress': 'IPAddress',
  'apps/v1/Deployment': 'Deployment',
  'apps/v1/ReplicaSet': 'ReplicaSet',
  'autoscaling/v1/Scale': 'Scale',
};

/** The patch metadata of a kind's objects, or undefined for a kind strategic merge patch does not know. */
export function patchSchemaFor(apiVersion: string, kind: string): PatchStruct | undefined {
  const name = ROOTS[`${apiVersion}/${kind}`];
  return name === undefined ? undefined : STRUCTS[name];
}

/** What upstream's LookupPatchMetadataForStruct/ForSlice give for one field. */
export interface FieldLookup {
  /** The struct below the field (for a list: below each element); undefined means no tags below. */
  readonly schema: PatchStruct | undefined;
  /** '' for no strategy (maps merge, lists are replaced). */
  readonly strategy: '' | 'merge' | 'replace';
  readonly mergeKey: string;
  /** The Go kind name upstream prints for the field's element type. */
  readonly elementKind: string;
}

const NO_TAGS: FieldLookup = { schema: undefined, strategy: '', mergeKey: '', elementKind: 'struct' };

export function lookupField(schema: PatchStruct | undefined, key: string): FieldLookup {
  if (schema === undefined || !Object.hasOwn(schema, key)) return NO_TAGS;
  const field = schema[key];
  if (field === undefined) return NO_TAGS;
  return {
    schema: field.type === undefined ? undefined : STRUCTS[field.type],
    strategy: field.strategy ?? '',
    mergeKey: field.mergeKey ?? '',
    elementKind: field.elementKind ?? 'struct',
  };
}

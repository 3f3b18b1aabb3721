// The messages of the kinds kubesvc serves in protobuf, with the field numbers of upstream's
// generated.proto files and the pointer and omitempty facts of the Go types (v1.33).
// upstream: staging/src/k8s.io/api/core/v1/{generated.proto,types.go},
//           staging/src/k8s.io/api/discovery/v1/{generated.proto,types.go},
//           staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/{generated.proto,types.go},
//           staging/src/k8s.io/apimachinery/pkg/runtime/generated.proto (Unknown, TypeMeta),
//           staging/src/k8s.io/apimachinery/pkg/util/intstr/generated.proto,
//           staging/src/k8s.io/apimachinery/pkg/api/resource/generated.proto
import { list, map, message, one, type MessageSpec } from './schema.js';

const PTR = { pointer: true } as const;
const KEEP = { keep: true } as const;

// --- runtime ---------------------------------------------------------------------------------

export const TypeMeta: MessageSpec = message('TypeMeta', [one(1, 'apiVersion', 'string', { go: 'APIVersion' }), one(2, 'kind', 'string')]);

export const Unknown: MessageSpec = message('Unknown', [
  one(1, 'typeMeta', () => TypeMeta, { go: 'TypeMeta' }),
  one(2, 'raw', 'bytes', { go: 'Raw' }),
  one(3, 'contentEncoding', 'string'),
  one(4, 'contentType', 'string'),
]);

// --- apimachinery: intstr, resource, meta/v1 -------------------------------------------------

export const IntOrString: MessageSpec = message('IntOrString', [one(1, 'type', 'int64'), one(2, 'intVal', 'int32'), one(3, 'strVal', 'string')], 'IntOrString');

export const Quantity: MessageSpec = message('Quantity', [one(1, 'string', 'string', { go: 'String_' })], 'Quantity');

/** The wire form of Time and MicroTime. */
export const Timestamp: MessageSpec = message('Timestamp', [one(1, 'seconds', 'int64'), one(2, 'nanos', 'int32')]);

export const Time: MessageSpec = message('Time', [], 'Time');
export const MicroTime: MessageSpec = message('MicroTime', [], 'MicroTime');

export const FieldsV1: MessageSpec = message('FieldsV1', [one(1, 'Raw', 'bytes')], 'FieldsV1');

export const OwnerReference: MessageSpec = message('OwnerReference', [
  one(5, 'apiVersion', 'string', { go: 'APIVersion', keep: true }),
  one(1, 'kind', 'string', KEEP),
  one(3, 'name', 'string', KEEP),
  one(4, 'uid', 'string', { go: 'UID', keep: true }),
  one(6, 'controller', 'bool', PTR),
  one(7, 'blockOwnerDeletion', 'bool', PTR),
]);

export const ManagedFieldsEntry: MessageSpec = message('ManagedFieldsEntry', [
  one(1, 'manager', 'string'),
  one(2, 'operation', 'string'),
  one(3, 'apiVersion', 'string', { go: 'APIVersion' }),
  one(4, 'time', () => Time, PTR),
  one(6, 'fieldsType', 'string'),
  one(7, 'fieldsV1', () => FieldsV1, PTR),
  one(8, 'subresource', 'string'),
]);

export const ObjectMeta: MessageSpec = message('ObjectMeta', [
  one(1, 'name', 'string'),
  one(2, 'generateName', 'string'),
  one(3, 'namespace', 'string'),
  one(4, 'selfLink', 'string'),
  one(5, 'uid', 'string', { go: 'UID' }),
  one(6, 'resourceVersion', 'string'),
  one(7, 'generation', 'int64'),
  one(8, 'creationTimestamp', () => Time),
  one(9, 'deletionTimestamp', () => Time, PTR),
  one(10, 'deletionGracePeriodSeconds', 'int64', PTR),
  map(11, 'labels', 'string'),
  map(12, 'annotations', 'string'),
  list(13, 'ownerReferences', () => OwnerReference),
  list(14, 'finalizers', 'string'),
  list(17, 'managedFields', () => ManagedFieldsEntry),
]);

export const Condition: MessageSpec = message('Condition', [
  one(1, 'type', 'string', KEEP),
  one(2, 'status', 'string', KEEP),
  one(3, 'observedGeneration', 'int64'),
  one(4, 'lastTransitionTime', () => Time, KEEP),
  one(5, 'reason', 'string', KEEP),
  one(6, 'message', 'string', KEEP),
]);

export const Preconditions: MessageSpec = message('Preconditions', [one(1, 'uid', 'string', { go: 'UID', pointer: true }), one(2, 'resourceVersion', 'string', PTR)]);

export const DeleteOptions: MessageSpec = message('DeleteOptions', [
  one(1, 'gracePeriodSeconds', 'int64', PTR),
  one(2, 'preconditions', () => Preconditions, PTR),
  one(3, 'orphanDependents', 'bool', PTR),
  one(4, 'propagationPolicy', 'string', PTR),
  list(5, 'dryRun', 'string'),
  one(6, 'ignoreStoreReadErrorWithClusterBreakingPotential', 'bool', PTR),
]);

// --- core/v1 ---------------------------------------------------------------------------------

const METADATA = { go: 'ObjectMeta' } as const;

export const ObjectReference: MessageSpec = message('ObjectReference', [
  one(1, 'kind', 'string'),
  one(2, 'namespace', 'string'),
  one(3, 'name', 'string'),
  one(4, 'uid', 'string', { go: 'UID' }),
  one(5, 'apiVersion', 'string', { go: 'APIVersion' }),
  one(6, 'resourceVersion', 'string'),
  one(7, 'fieldPath', 'string'),
]);

export const NamespaceCondition: MessageSpec = message('NamespaceCondition', [
  one(1, 'type', 'string', KEEP),
  one(2, 'status', 'string', KEEP),
  one(4, 'lastTransitionTime', () => Time),
  one(5, 'reason', 'string'),
  one(6, 'message', 'string'),
]);

export const Namespace: MessageSpec = message('Namespace', [
  one(1, 'metadata', () => ObjectMeta, METADATA),
  one(2, 'spec', () => message('NamespaceSpec', [list(1, 'finalizers', 'string')])),
  one(3, 'status', () => message('NamespaceStatus', [one(1, 'phase', 'string'), list(2, 'conditions', () => NamespaceCondition)])),
]);

export const ServicePort: MessageSpec = message('ServicePort', [
  one(1, 'name', 'string'),
  one(2, 'protocol', 'string'),
  one(6, 'appProtocol', 'string', PTR),
  one(3, 'port', 'int32', KEEP),
  one(4, 'targetPort', () => IntOrString),
  one(5, 'nodePort', 'int32'),
]);

const ClientIPConfig: MessageSpec = message('ClientIPConfig', [one(1, 'timeoutSeconds', 'int32', PTR)]);
const SessionAffinityConfig: MessageSpec = message('SessionAffinityConfig', [one(1, 'clientIP', () => ClientIPConfig, { go: 'ClientIP', pointer: true })]);

export const ServiceSpec: MessageSpec = message('ServiceSpec', [
  list(1, 'ports', () => ServicePort),
  map(2, 'selector', 'string'),
  one(3, 'clusterIP', 'string'),
  list(18, 'clusterIPs', 'string'),
  one(4, 'type', 'string'),
  list(5, 'externalIPs', 'string'),
  one(7, 'sessionAffinity', 'string'),
  one(8, 'loadBalancerIP', 'string'),
  list(9, 'loadBalancerSourceRanges', 'string'),
  one(10, 'externalName', 'string'),
  one(11, 'externalTrafficPolicy', 'string'),
  one(12, 'healthCheckNodePort', 'int32'),
  one(13, 'publishNotReadyAddresses', 'bool'),
  one(14, 'sessionAffinityConfig', () => SessionAffinityConfig, PTR),
  list(19, 'ipFamilies', 'string', { go: 'IPFamilies' }),
  one(17, 'ipFamilyPolicy', 'string', { go: 'IPFamilyPolicy', pointer: true }),
  one(20, 'allocateLoadBalancerNodePorts', 'bool', PTR),
  one(21, 'loadBalancerClass', 'string', PTR),
  one(22, 'internalTrafficPolicy', 'string', PTR),
  one(23, 'trafficDistribution', 'string', PTR),
]);

const PortStatus: MessageSpec = message('PortStatus', [one(1, 'port', 'int32', KEEP), one(2, 'protocol', 'string', KEEP), one(3, 'error', 'string', PTR)]);

const LoadBalancerIngress: MessageSpec = message('LoadBalancerIngress', [
  one(1, 'ip', 'string', { go: 'IP' }),
  one(2, 'hostname', 'string'),
  one(3, 'ipMode', 'string', { go: 'IPMode', pointer: true }),
  list(4, 'ports', () => PortStatus),
]);

export const Service: MessageSpec = message('Service', [
  one(1, 'metadata', () => ObjectMeta, METADATA),
  one(2, 'spec', () => ServiceSpec),
  one(3, 'status', () =>
    message('ServiceStatus', [one(1, 'loadBalancer', () => message('LoadBalancerStatus', [list(1, 'ingress', () => LoadBalancerIngress)])), list(2, 'conditions', () => Condition)]),
  ),
]);

const EndpointAddress: MessageSpec = message('EndpointAddress', [
  one(1, 'ip', 'string', { go: 'IP', keep: true }),
  one(3, 'hostname', 'string'),
  one(4, 'nodeName', 'string', PTR),
  one(2, 'targetRef', () => ObjectReference, PTR),
]);

const CoreEndpointPort: MessageSpec = message('EndpointPort', [
  one(1, 'name', 'string'),
  one(2, 'port', 'int32', KEEP),
  one(3, 'protocol', 'string'),
  one(4, 'appProtocol', 'string', PTR),
]);

export const Endpoints: MessageSpec = message('Endpoints', [
  one(1, 'metadata', () => ObjectMeta, METADATA),
  list(2, 'subsets', () =>
    message('EndpointSubset', [list(1, 'addresses', () => EndpointAddress), list(2, 'notReadyAddresses', () => EndpointAddress), list(3, 'ports', () => CoreEndpointPort)]),
  ),
]);

const EventSource: MessageSpec = message('EventSource', [one(1, 'component', 'string'), one(2, 'host', 'string')]);
const EventSeries: MessageSpec = message('EventSeries', [one(1, 'count', 'int32'), one(2, 'lastObservedTime', () => MicroTime)]);

export const Event: MessageSpec = message('Event', [
  one(1, 'metadata', () => ObjectMeta, { go: 'ObjectMeta', keep: true }),
  one(2, 'involvedObject', () => ObjectReference, KEEP),
  one(3, 'reason', 'string'),
  one(4, 'message', 'string'),
  one(5, 'source', () => EventSource),
  one(6, 'firstTimestamp', () => Time),
  one(7, 'lastTimestamp', () => Time),
  one(8, 'count', 'int32'),
  one(9, 'type', 'string'),
  one(10, 'eventTime', () => MicroTime),
  one(11, 'series', () => EventSeries, PTR),
  one(12, 'action', 'string'),
  one(13, 'related', () => ObjectReference, PTR),
  one(14, 'reportingComponent', 'string', { go: 'ReportingController', keep: true }),
  one(15, 'reportingInstance', 'string', KEEP),
]);

const Taint: MessageSpec = message('Taint', [one(1, 'key', 'string', KEEP), one(2, 'value', 'string'), one(3, 'effect', 'string', KEEP), one(4, 'timeAdded', () => Time, PTR)]);

const ConfigMapNodeConfigSource: MessageSpec = message('ConfigMapNodeConfigSource', [
  one(1, 'namespace', 'string', KEEP),
  one(2, 'name', 'string', KEEP),
  one(3, 'uid', 'string', { go: 'UID' }),
  one(4, 'resourceVersion', 'string'),
  one(5, 'kubeletConfigKey', 'string', KEEP),
]);

const NodeConfigSource: MessageSpec = message('NodeConfigSource', [one(2, 'configMap', () => ConfigMapNodeConfigSource, PTR)]);

const NodeSpec: MessageSpec = message('NodeSpec', [
  one(1, 'podCIDR', 'string'),
  list(7, 'podCIDRs', 'string'),
  one(3, 'providerID', 'string'),
  one(4, 'unschedulable', 'bool'),
  list(5, 'taints', () => Taint),
  one(6, 'configSource', () => NodeConfigSource, PTR),
  one(2, 'externalID', 'string', { go: 'DoNotUseExternalID' }),
]);

const NodeCondition: MessageSpec = message('NodeCondition', [
  one(1, 'type', 'string', KEEP),
  one(2, 'status', 'string', KEEP),
  one(3, 'lastHeartbeatTime', () => Time),
  one(4, 'lastTransitionTime', () => Time),
  one(5, 'reason', 'string'),
  one(6, 'message', 'string'),
]);

const NodeSystemInfo: MessageSpec = message('NodeSystemInfo', [
  one(1, 'machineID', 'string', KEEP),
  one(2, 'systemUUID', 'string', KEEP),
  one(3, 'bootID', 'string', KEEP),
  one(4, 'kernelVersion', 'string', KEEP),
  one(5, 'osImage', 'string', { go: 'OSImage', keep: true }),
  one(6, 'containerRuntimeVersion', 'string', KEEP),
  one(7, 'kubeletVersion', 'string', KEEP),
  one(8, 'kubeProxyVersion', 'string', KEEP),
  one(9, 'operatingSystem', 'string', KEEP),
  one(10, 'architecture', 'string', KEEP),
  one(11, 'swap', () => message('NodeSwapStatus', [one(1, 'capacity', 'int64', PTR)]), PTR),
]);

const NodeConfigStatus: MessageSpec = message('NodeConfigStatus', [
  one(1, 'assigned', () => NodeConfigSource, PTR),
  one(2, 'active', () => NodeConfigSource, PTR),
  one(3, 'lastKnownGood', () => NodeConfigSource, PTR),
  one(4, 'error', 'string'),
]);

const NodeRuntimeHandler: MessageSpec = message('NodeRuntimeHandler', [
  one(1, 'name', 'string', KEEP),
  one(2, 'features', () => message('NodeRuntimeHandlerFeatures', [one(1, 'recursiveReadOnlyMounts', 'bool', PTR), one(2, 'userNamespaces', 'bool', PTR)]), PTR),
]);

const NodeStatus: MessageSpec = message('NodeStatus', [
  map(1, 'capacity', () => Quantity),
  map(2, 'allocatable', () => Quantity),
  one(3, 'phase', 'string'),
  list(4, 'conditions', () => NodeCondition),
  list(5, 'addresses', () => message('NodeAddress', [one(1, 'type', 'string', KEEP), one(2, 'address', 'string', KEEP)])),
  one(6, 'daemonEndpoints', () => message('NodeDaemonEndpoints', [one(1, 'kubeletEndpoint', () => message('DaemonEndpoint', [one(1, 'Port', 'int32', KEEP)]))])),
  one(7, 'nodeInfo', () => NodeSystemInfo),
  list(8, 'images', () => message('ContainerImage', [list(1, 'names', 'string', KEEP), one(2, 'sizeBytes', 'int64')])),
  list(9, 'volumesInUse', 'string'),
  list(10, 'volumesAttached', () => message('AttachedVolume', [one(1, 'name', 'string', KEEP), one(2, 'devicePath', 'string', KEEP)])),
  one(11, 'config', () => NodeConfigStatus, PTR),
  list(12, 'runtimeHandlers', () => NodeRuntimeHandler),
  one(13, 'features', () => message('NodeFeatures', [one(1, 'supplementalGroupsPolicy', 'bool', PTR)]), PTR),
]);

export const Node: MessageSpec = message('Node', [one(1, 'metadata', () => ObjectMeta, METADATA), one(2, 'spec', () => NodeSpec), one(3, 'status', () => NodeStatus)]);

// --- discovery/v1 ----------------------------------------------------------------------------

const DiscoveryEndpoint: MessageSpec = message('Endpoint', [
  list(1, 'addresses', 'string', KEEP),
  one(2, 'conditions', () => message('EndpointConditions', [one(1, 'ready', 'bool', PTR), one(2, 'serving', 'bool', PTR), one(3, 'terminating', 'bool', PTR)])),
  one(3, 'hostname', 'string', PTR),
  one(4, 'targetRef', () => ObjectReference, PTR),
  map(5, 'deprecatedTopology', 'string'),
  one(6, 'nodeName', 'string', PTR),
  one(7, 'zone', 'string', PTR),
  one(
    8,
    'hints',
    () => message('EndpointHints', [list(1, 'forZones', () => message('ForZone', [one(1, 'name', 'string', KEEP)])), list(2, 'forNodes', () => message('ForNode', [one(1, 'name', 'string', KEEP)]))]),
    PTR,
  ),
]);

const DiscoveryEndpointPort: MessageSpec = message('EndpointPort', [
  one(1, 'name', 'string', PTR),
  one(2, 'protocol', 'string', PTR),
  one(3, 'port', 'int32', PTR),
  one(4, 'appProtocol', 'string', PTR),
]);

export const EndpointSlice: MessageSpec = message('EndpointSlice', [
  one(1, 'metadata', () => ObjectMeta, METADATA),
  one(4, 'addressType', 'string', KEEP),
  list(2, 'endpoints', () => DiscoveryEndpoint, KEEP),
  list(3, 'ports', () => DiscoveryEndpointPort, KEEP),
]);

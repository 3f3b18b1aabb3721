// core/v1 Node: the parts Service networking reads (addresses, pod CIDRs, readiness, the
// zone label) and what a simulated kubelet reports. Everything else is kept as it came.
// upstream: staging/src/k8s.io/api/core/v1/types.go (Node, NodeSpec, NodeStatus, NodeAddress,
//           NodeCondition, NodeSystemInfo, Taint)
import { z } from 'zod';
import { ObjectMetaSchema } from './meta.js';
import { int32, openEnum, stringMap, timestamp } from './schema-helpers.js';

export const NODE_ADDRESS_TYPES = ['Hostname', 'InternalIP', 'ExternalIP', 'InternalDNS', 'ExternalDNS'] as const;
export type NodeAddressType = (typeof NODE_ADDRESS_TYPES)[number];
export const NODE_PHASES = ['Pending', 'Running', 'Terminated'] as const;
export const TAINT_EFFECTS = ['NoSchedule', 'PreferNoSchedule', 'NoExecute'] as const;

/** The well-known label a node's zone is read from. upstream: core/v1 LabelTopologyZone */
export const LABEL_TOPOLOGY_ZONE = 'topology.kubernetes.io/zone';
/** The well-known label carrying the node's name. upstream: core/v1 LabelHostname */
export const LABEL_HOSTNAME = 'kubernetes.io/hostname';

export const TaintSchema = z.looseObject({
  key: z.string(),
  value: z.string().optional(),
  effect: openEnum(TAINT_EFFECTS),
  timeAdded: timestamp.optional(),
});
export type Taint = z.infer<typeof TaintSchema>;

export const NodeSpecSchema = z.looseObject({
  podCIDR: z.string().optional(),
  podCIDRs: z.array(z.string()).optional(),
  providerID: z.string().optional(),
  unschedulable: z.boolean().optional(),
  taints: z.array(TaintSchema).optional(),
});
export type NodeSpec = z.infer<typeof NodeSpecSchema>;

export const NodeAddressSchema = z.looseObject({
  type: openEnum(NODE_ADDRESS_TYPES),
  address: z.string(),
});
export type NodeAddress = z.infer<typeof NodeAddressSchema>;

export const NodeConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  lastHeartbeatTime: timestamp.optional(),
  lastTransitionTime: timestamp.optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type NodeCondition = z.infer<typeof NodeConditionSchema>;

export const NodeSystemInfoSchema = z.looseObject({
  machineID: z.string().optional(),
  systemUUID: z.string().optional(),
  bootID: z.string().optional(),
  kernelVersion: z.string().optional(),
  osImage: z.string().optional(),
  containerRuntimeVersion: z.string().optional(),
  kubeletVersion: z.string().optional(),
  kubeProxyVersion: z.string().optional(),
  operatingSystem: z.string().optional(),
  architecture: z.string().optional(),
});
export type NodeSystemInfo = z.infer<typeof NodeSystemInfoSchema>;

export const NodeStatusSchema = z.looseObject({
  capacity: stringMap.optional(),
  allocatable: stringMap.optional(),
  phase: openEnum(NODE_PHASES).optional(),
  conditions: z.array(NodeConditionSchema).optional(),
  addresses: z.array(NodeAddressSchema).optional(),
  daemonEndpoints: z
    .looseObject({
      kubeletEndpoint: z.looseObject({ Port: int32 }).optional(),
    })
    .optional(),
  nodeInfo: NodeSystemInfoSchema.optional(),
});
export type NodeStatus = z.infer<typeof NodeStatusSchema>;

export const NodeSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Node'),
  metadata: ObjectMetaSchema,
  spec: NodeSpecSchema.optional(),
  status: NodeStatusSchema.optional(),
});
export type Node = z.infer<typeof NodeSchema>;


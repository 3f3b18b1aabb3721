// core/v1 Pod: the parts Service networking reads (labels for selectors, DNS naming,
// service links, addresses and readiness). Everything else is kept as it came.
// upstream: staging/src/k8s.io/api/core/v1/types.go (Pod, PodSpec, PodStatus)
import { z } from 'zod';
import { ObjectMetaSchema } from './meta.js';
import { openEnum, timestamp } from './schema-helpers.js';

export const DNS_POLICIES = ['ClusterFirstWithHostNet', 'ClusterFirst', 'Default', 'None'] as const;
export const POD_PHASES = ['Pending', 'Running', 'Succeeded', 'Failed', 'Unknown'] as const;
export type DNSPolicy = (typeof DNS_POLICIES)[number];
export type PodPhase = (typeof POD_PHASES)[number];

export const PodSpecSchema = z.looseObject({
  hostname: z.string().optional(),
  subdomain: z.string().optional(),
  nodeName: z.string().optional(),
  enableServiceLinks: z.boolean().optional(),
  dnsPolicy: openEnum(DNS_POLICIES).optional(),
  hostNetwork: z.boolean().optional(),
  setHostnameAsFQDN: z.boolean().optional(),
});
export type PodSpec = z.infer<typeof PodSpecSchema>;

export const PodConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  lastProbeTime: timestamp.optional(),
  lastTransitionTime: timestamp.optional(),
  reason: z.string().optional(),
  message: z.string().optional(),
});
export type PodCondition = z.infer<typeof PodConditionSchema>;

const PodIPSchema = z.looseObject({ ip: z.string() });

export const PodStatusSchema = z.looseObject({
  phase: openEnum(POD_PHASES).optional(),
  conditions: z.array(PodConditionSchema).optional(),
  hostIP: z.string().optional(),
  hostIPs: z.array(PodIPSchema).optional(),
  podIP: z.string().optional(),
  podIPs: z.array(PodIPSchema).optional(),
  startTime: timestamp.optional(),
});
export type PodStatus = z.infer<typeof PodStatusSchema>;

export const PodSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Pod'),
  metadata: ObjectMetaSchema,
  spec: PodSpecSchema.optional(),
  status: PodStatusSchema.optional(),
});
export type Pod = z.infer<typeof PodSchema>;

/** A pod is ready when its Ready condition is "True". upstream: pkg/api/v1/pod/util.go IsPodReady */
export function isPodReady(pod: Pod): boolean {
  return pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
}

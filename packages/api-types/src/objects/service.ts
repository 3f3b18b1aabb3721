// core/v1 Service.
// upstream: staging/src/k8s.io/api/core/v1/types.go (Service, ServiceSpec, ServicePort)
import { z } from 'zod';
import { ObjectMetaSchema } from './meta.js';
import { int32, intOrString, openEnum, stringMap, timestamp } from './schema-helpers.js';

export const SERVICE_TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName'] as const;
export const PROTOCOLS = ['TCP', 'UDP', 'SCTP'] as const;
export const SESSION_AFFINITIES = ['None', 'ClientIP'] as const;
export const IP_FAMILIES = ['IPv4', 'IPv6'] as const;
export const IP_FAMILY_POLICIES = ['SingleStack', 'PreferDualStack', 'RequireDualStack'] as const;
export const TRAFFIC_POLICIES = ['Cluster', 'Local'] as const;
export const LOAD_BALANCER_IP_MODES = ['VIP', 'Proxy'] as const;

export type ServiceType = (typeof SERVICE_TYPES)[number];
export type Protocol = (typeof PROTOCOLS)[number];
export type IPFamily = (typeof IP_FAMILIES)[number];
export type IPFamilyPolicy = (typeof IP_FAMILY_POLICIES)[number];

/** clusterIP "None" makes a Service headless. */
export const CLUSTER_IP_NONE = 'None';
/** The default ClientIP affinity timeout, 3 hours. upstream: core/v1 DefaultClientIPServiceAffinitySeconds */
export const DEFAULT_CLIENT_IP_TIMEOUT_SECONDS = 10800;
/** The largest ClientIP affinity timeout, 1 day. upstream: core/v1 MaxClientIPServiceAffinitySeconds */
export const MAX_CLIENT_IP_TIMEOUT_SECONDS = 86400;

export const ServicePortSchema = z.looseObject({
  name: z.string().optional(),
  protocol: openEnum(PROTOCOLS).optional(),
  appProtocol: z.string().optional(),
  port: int32,
  targetPort: intOrString.optional(),
  nodePort: int32.optional(),
});
export type ServicePort = z.infer<typeof ServicePortSchema>;

export const SessionAffinityConfigSchema = z.looseObject({
  clientIP: z
    .looseObject({
      timeoutSeconds: int32.optional(),
    })
    .optional(),
});
export type SessionAffinityConfig = z.infer<typeof SessionAffinityConfigSchema>;

export const ServiceSpecSchema = z.looseObject({
  ports: z.array(ServicePortSchema).optional(),
  selector: stringMap.optional(),
  clusterIP: z.string().optional(),
  clusterIPs: z.array(z.string()).optional(),
  type: openEnum(SERVICE_TYPES).optional(),
  externalIPs: z.array(z.string()).optional(),
  sessionAffinity: openEnum(SESSION_AFFINITIES).optional(),
  loadBalancerIP: z.string().optional(),
  loadBalancerSourceRanges: z.array(z.string()).optional(),
  externalName: z.string().optional(),
  externalTrafficPolicy: openEnum(TRAFFIC_POLICIES).optional(),
  healthCheckNodePort: int32.optional(),
  publishNotReadyAddresses: z.boolean().optional(),
  sessionAffinityConfig: SessionAffinityConfigSchema.optional(),
  ipFamilies: z.array(openEnum(IP_FAMILIES)).optional(),
  ipFamilyPolicy: openEnum(IP_FAMILY_POLICIES).optional(),
  allocateLoadBalancerNodePorts: z.boolean().optional(),
  loadBalancerClass: z.string().optional(),
  internalTrafficPolicy: openEnum(TRAFFIC_POLICIES).optional(),
});
export type ServiceSpec = z.infer<typeof ServiceSpecSchema>;

/**
 * Whether the Service has a cluster IP: clusterIP is set and is not "None". Kubelet's
 * environment variables, the repair run and both proxies skip the others.
 * upstream: pkg/apis/core/v1/helper/helpers.go IsServiceIPSet
 */
export function isServiceIPSet(spec: ServiceSpec | undefined): boolean {
  const ip = spec?.clusterIP ?? '';
  return ip !== '' && ip !== CLUSTER_IP_NONE;
}

export const PortStatusSchema = z.looseObject({
  port: int32,
  protocol: openEnum(PROTOCOLS),
  error: z.string().optional(),
});

export const LoadBalancerIngressSchema = z.looseObject({
  ip: z.string().optional(),
  hostname: z.string().optional(),
  ipMode: openEnum(LOAD_BALANCER_IP_MODES).optional(),
  ports: z.array(PortStatusSchema).optional(),
});
export type LoadBalancerIngress = z.infer<typeof LoadBalancerIngressSchema>;

/** metav1.Condition, as Service status carries it. */
export const ConditionSchema = z.looseObject({
  type: z.string(),
  status: z.string(),
  observedGeneration: int32.optional(),
  lastTransitionTime: timestamp,
  reason: z.string(),
  message: z.string(),
});

export const ServiceStatusSchema = z.looseObject({
  loadBalancer: z
    .looseObject({
      ingress: z.array(LoadBalancerIngressSchema).optional(),
    })
    .optional(),
  conditions: z.array(ConditionSchema).optional(),
});
export type ServiceStatus = z.infer<typeof ServiceStatusSchema>;

export const ServiceSchema = z.looseObject({
  apiVersion: z.literal('v1'),
  kind: z.literal('Service'),
  metadata: ObjectMetaSchema,
  spec: ServiceSpecSchema.optional(),
  status: ServiceStatusSchema.optional(),
});
export type Service = z.infer<typeof ServiceSchema>;

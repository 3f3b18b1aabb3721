// Defaulting as the apiserver applies it when it decodes a v1 object. Pure: the input is
// never changed, and defaulting a defaulted object gives an equal object.
// upstream: pkg/apis/core/v1/defaults.go, pkg/apis/discovery/v1/defaults.go,
//           pkg/api/v1/service/util.go (ExternallyAccessible)
// upstream (v1.33): pkg/apis/apps/v1/defaults.go (SetDefaults_Deployment, SetDefaults_ReplicaSet)
import type { Deployment, PodTemplateSpec, ReplicaSet } from './objects/apps.js';
import type { EndpointSlice } from './objects/endpoint-slice.js';
import type { Endpoints } from './objects/endpoints.js';
import type { KubeObject } from './objects/kinds.js';
import type { Namespace } from './objects/namespace.js';
import type { Pod } from './objects/pod.js';
import type { Service, ServicePort, ServiceSpec } from './objects/service.js';
import { DEFAULT_CLIENT_IP_TIMEOUT_SECONDS } from './objects/service.js';

/** The label every namespace carries with its own name. upstream: core/v1 LabelMetadataName */
export const LABEL_METADATA_NAME = 'kubernetes.io/metadata.name';

/**
 * A Service reachable from outside the cluster: NodePort, LoadBalancer, or ClusterIP
 * with external IPs. Only those get an externalTrafficPolicy.
 */
export function externallyAccessible(spec: ServiceSpec | undefined): boolean {
  const type = spec?.type;
  return (
    type === 'LoadBalancer' ||
    type === 'NodePort' ||
    (type === 'ClusterIP' && (spec?.externalIPs?.length ?? 0) > 0)
  );
}

function defaultServicePort(port: ServicePort): ServicePort {
  const out: ServicePort = { ...port };
  if (!out.protocol) out.protocol = 'TCP';
  if (out.targetPort === undefined || out.targetPort === 0 || out.targetPort === '') out.targetPort = out.port;
  return out;
}

export function defaultService(service: Service): Service {
  const spec: ServiceSpec = { ...service.spec };
  if (!spec.sessionAffinity) spec.sessionAffinity = 'None';
  if (spec.sessionAffinity === 'None') delete spec.sessionAffinityConfig;
  if (spec.sessionAffinity === 'ClientIP' && spec.sessionAffinityConfig?.clientIP?.timeoutSeconds === undefined) {
    spec.sessionAffinityConfig = { clientIP: { timeoutSeconds: DEFAULT_CLIENT_IP_TIMEOUT_SECONDS } };
  }
  if (!spec.type) spec.type = 'ClusterIP';
  if (spec.ports) spec.ports = spec.ports.map(defaultServicePort);
  if (externallyAccessible(spec) && !spec.externalTrafficPolicy) spec.externalTrafficPolicy = 'Cluster';
  if (
    spec.internalTrafficPolicy === undefined &&
    (spec.type === 'NodePort' || spec.type === 'LoadBalancer' || spec.type === 'ClusterIP')
  ) {
    spec.internalTrafficPolicy = 'Cluster';
  }
  if (spec.type === 'LoadBalancer' && spec.allocateLoadBalancerNodePorts === undefined) {
    spec.allocateLoadBalancerNodePorts = true;
  }
  const out: Service = { ...service, spec };
  // LoadBalancerIPMode (GA in 1.32): an ingress IP without a mode is a VIP.
  const ingress = service.status?.loadBalancer?.ingress;
  if (spec.type === 'LoadBalancer' && ingress?.some((i) => i.ip && i.ipMode === undefined)) {
    out.status = {
      ...service.status,
      loadBalancer: {
        ...service.status?.loadBalancer,
        ingress: ingress.map((i) => (i.ip && i.ipMode === undefined ? { ...i, ipMode: 'VIP' } : i)),
      },
    };
  }
  return out;
}

export function defaultEndpoints(endpoints: Endpoints): Endpoints {
  if (!endpoints.subsets?.some((s) => s.ports?.some((p) => !p.protocol))) return endpoints;
  return {
    ...endpoints,
    subsets: endpoints.subsets.map((s) =>
      s.ports ? { ...s, ports: s.ports.map((p) => (p.protocol ? p : { ...p, protocol: 'TCP' })) } : s,
    ),
  };
}

export function defaultEndpointSlice(slice: EndpointSlice): EndpointSlice {
  if (!slice.ports?.some((p) => p.name === undefined || p.protocol === undefined)) return slice;
  return {
    ...slice,
    ports: slice.ports.map((p) => ({ ...p, name: p.name ?? '', protocol: p.protocol ?? 'TCP' })),
  };
}

/** SetDefaults_PodSpec's pod-level defaults (containers are left as they are). */
function defaultPodSpecFields(input: Readonly<Record<string, unknown>> | undefined): Record<string, unknown> {
  const spec: Record<string, unknown> = { ...input };
  if (!spec['dnsPolicy']) spec['dnsPolicy'] = 'ClusterFirst';
  if (!spec['restartPolicy']) spec['restartPolicy'] = 'Always';
  if (spec['securityContext'] === undefined) spec['securityContext'] = {};
  if (spec['terminationGracePeriodSeconds'] === undefined) spec['terminationGracePeriodSeconds'] = 30;
  if (!spec['schedulerName']) spec['schedulerName'] = 'default-scheduler';
  if (spec['enableServiceLinks'] === undefined) spec['enableServiceLinks'] = true;
  return spec;
}

export function defaultPod(pod: Pod): Pod {
  return { ...pod, spec: defaultPodSpecFields(pod.spec) };
}

function defaultTemplate(template: PodTemplateSpec | undefined): PodTemplateSpec {
  return { ...template, spec: defaultPodSpecFields(template?.spec) };
}

/** SetDefaults_Deployment: one replica, RollingUpdate 25%/25%, ten old ReplicaSets kept, a 600 s progress deadline. */
export function defaultDeployment(deployment: Deployment): Deployment {
  const spec = { ...deployment.spec };
  if (spec.replicas === undefined) spec.replicas = 1;
  const strategy = { ...spec.strategy };
  if (!strategy.type) strategy.type = 'RollingUpdate';
  if (strategy.type === 'RollingUpdate') {
    const rolling = { ...strategy.rollingUpdate };
    if (rolling.maxUnavailable === undefined) rolling.maxUnavailable = '25%';
    if (rolling.maxSurge === undefined) rolling.maxSurge = '25%';
    strategy.rollingUpdate = rolling;
  }
  spec.strategy = strategy;
  if (spec.revisionHistoryLimit === undefined) spec.revisionHistoryLimit = 10;
  if (spec.progressDeadlineSeconds === undefined) spec.progressDeadlineSeconds = 600;
  spec.template = defaultTemplate(spec.template);
  return { ...deployment, spec };
}

/** SetDefaults_ReplicaSet: one replica. */
export function defaultReplicaSet(replicaSet: ReplicaSet): ReplicaSet {
  const spec = { ...replicaSet.spec };
  if (spec.replicas === undefined) spec.replicas = 1;
  spec.template = defaultTemplate(spec.template);
  return { ...replicaSet, spec };
}

export function defaultNamespace(namespace: Namespace): Namespace {
  const out: Namespace = { ...namespace };
  const name = namespace.metadata.name;
  if (name) out.metadata = { ...namespace.metadata, labels: { ...namespace.metadata.labels, [LABEL_METADATA_NAME]: name } };
  if (!namespace.status?.phase) out.status = { ...namespace.status, phase: 'Active' };
  return out;
}

/** Defaults any modelled object; kinds without defaults come back as they are. */
export function defaultObject<T extends KubeObject>(object: T): T {
  switch (object.kind) {
    case 'Service':
      return defaultService(object) as T;
    case 'Endpoints':
      return defaultEndpoints(object) as T;
    case 'EndpointSlice':
      return defaultEndpointSlice(object) as T;
    case 'Pod':
      return defaultPod(object) as T;
    case 'Namespace':
      return defaultNamespace(object) as T;
    case 'Deployment':
      return defaultDeployment(object) as T;
    case 'ReplicaSet':
      return defaultReplicaSet(object) as T;
    default:
      return object;
  }
}

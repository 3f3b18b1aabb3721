// Which Services select a Pod, and whether and how a Pod appears as an endpoint: the helpers
// the endpoints and EndpointSlice controllers share.
// upstream: staging/src/k8s.io/endpointslice/util/controller_utils.go (ShouldPodBeInEndpoints,
//           ShouldSetHostname, GetPodServiceMemberships), staging/src/k8s.io/endpointslice/utils.go
//           (FindPort), pkg/api/v1/pod/util.go (IsPodReady, IsPodTerminal)
import { familyName, parseIPSloppy, type IPFamily, type Pod, type Service, type ServicePort } from '@kubesvc/api-types';
import type { CacheView } from './contract.js';
import { namespacedKey } from './keys.js';

/**
 * Whether the Service has a selector. Upstream tests `Spec.Selector == nil`; an empty selector
 * stored through the apiserver reads back as nil (its protobuf storage drops an empty map), so
 * `{}` counts as none here too.
 */
export function hasSelector(service: Service): boolean {
  return Object.keys(service.spec?.selector ?? {}).length > 0;
}

/** labels.Set(selector).AsSelectorPreValidated().Matches(labels): every pair present. */
export function selectorMatches(selector: Readonly<Record<string, string>>, labels: Readonly<Record<string, string>> | undefined): boolean {
  for (const [k, v] of Object.entries(selector)) if (labels?.[k] !== v) return false;
  return true;
}

/** The pods of the Service's namespace that its selector matches, in key order. */
export function selectedPods(service: Service, cache: CacheView): Pod[] {
  const selector = service.spec?.selector ?? {};
  return cache.list<Pod>('pods', service.metadata.namespace ?? '').filter((p) => selectorMatches(selector, p.metadata.labels));
}

/** GetPodServiceMemberships: the keys of the selector Services in the pod's namespace that select it. */
export function podServiceKeys(pod: Pod, cache: CacheView): string[] {
  const ns = pod.metadata.namespace ?? '';
  const keys: string[] = [];
  for (const svc of cache.list<Service>('services', ns)) {
    if (!hasSelector(svc)) continue;
    if (selectorMatches(svc.spec?.selector ?? {}, pod.metadata.labels)) keys.push(namespacedKey(ns, svc.metadata.name ?? ''));
  }
  return keys;
}

/** The Service keys a pod change concerns: the memberships before and after, once each. */
export function podChangeServiceKeys(pod: Pod, old: Pod | undefined, cache: CacheView): string[] {
  const keys = new Set(podServiceKeys(pod, cache));
  if (old !== undefined) for (const k of podServiceKeys(old, cache)) keys.add(k);
  return [...keys];
}

/** IsPodTerminal: Succeeded or Failed. */
export function isPodTerminal(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase === 'Succeeded' || phase === 'Failed';
}

export function isPodDeleting(pod: Pod): boolean {
  return pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null;
}

/**
 * The pod's IPs. The apiserver's v1 conversion fills `podIPs` from `podIP` when only the latter
 * is set; a pod written here without that conversion is read the same way.
 */
export function podIPs(pod: Pod): string[] {
  const listed = (pod.status?.podIPs ?? []).map((p) => p.ip).filter((ip) => ip !== '');
  if (listed.length > 0) return listed;
  const single = pod.status?.podIP ?? '';
  return single === '' ? [] : [single];
}

/** ShouldPodBeInEndpoints: not terminal, has an IP, and not being deleted unless terminating pods are wanted. */
export function shouldPodBeInEndpoints(pod: Pod, includeTerminating: boolean): boolean {
  if (isPodTerminal(pod)) return false;
  if (podIPs(pod).length === 0) return false;
  if (!includeTerminating && isPodDeleting(pod)) return false;
  return true;
}

/** ShouldSetHostname: the pod names a hostname and its subdomain is this Service, in its namespace. */
export function shouldSetHostname(pod: Pod, service: Service): boolean {
  const hostname = pod.spec?.hostname ?? '';
  return hostname !== '' && (pod.spec?.subdomain ?? '') === service.metadata.name && (pod.metadata.namespace ?? '') === (service.metadata.namespace ?? '');
}

/** The family of an IP in text, or undefined when it does not parse (ParseIPSloppy). */
export function ipFamilyOf(ip: string): IPFamily | undefined {
  const parsed = parseIPSloppy(ip);
  return parsed.ok ? familyName(parsed.value.family) : undefined;
}

interface ContainerPort {
  readonly name?: unknown;
  readonly containerPort?: unknown;
  readonly protocol?: unknown;
}

interface Container {
  readonly ports?: unknown;
  readonly restartPolicy?: unknown;
}

function asList<T>(value: unknown): readonly T[] {
  return Array.isArray(value) ? (value as T[]) : [];
}

function namedPort(containers: readonly Container[], name: string, protocol: string): number | undefined {
  for (const container of containers) {
    for (const port of asList<ContainerPort>(container.ports)) {
      // A container port's protocol defaults to TCP (SetDefaults_ContainerPort).
      const portProtocol = typeof port.protocol === 'string' && port.protocol !== '' ? port.protocol : 'TCP';
      if (port.name === name && portProtocol === protocol && typeof port.containerPort === 'number') return port.containerPort;
    }
  }
  return undefined;
}

/**
 * FindPort: a numeric targetPort as it is; a named one looked up in the pod's containers' ports
 * with the Service port's protocol, then in its sidecars (init containers with restartPolicy
 * Always). undefined when no container names it: the pod is skipped for that port.
 */
export function findPort(pod: Pod, servicePort: ServicePort): number | undefined {
  const target = servicePort.targetPort;
  // SetDefaults_Service: an absent, zero or empty targetPort is the port itself.
  if (target === undefined || target === 0 || target === '') return servicePort.port;
  if (typeof target === 'number') return target;
  const protocol = servicePort.protocol ?? 'TCP';
  const spec = (pod.spec ?? {}) as Record<string, unknown>;
  const found = namedPort(asList<Container>(spec['containers']), target, protocol);
  if (found !== undefined) return found;
  const sidecars = asList<Container>(spec['initContainers']).filter((c) => c.restartPolicy === 'Always');
  return namedPort(sidecars, target, protocol);
}

// The endpoints controller: for each Service with a selector, a v1 Endpoints of the same name
// listing the selected pods, ready ones in `addresses` and the others in `notReadyAddresses`.
// upstream: pkg/controller/endpoint/endpoints_controller.go (syncService, addEndpointSubset,
//           podToEndpointAddressForService, truncateEndpoints, checkLeftoverEndpoints)
import {
  CLUSTER_IP_NONE,
  isPodReady,
  isServiceIPSet,
  type EndpointAddress,
  type EndpointPort,
  type EndpointSubset,
  type Endpoints,
  type Pod,
  type Service,
} from '@kubesvc/api-types';
import { semanticEqual } from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';
import { namespacedKey, splitKey } from './keys.js';
import { findPort, hasSelector, ipFamilyOf, podChangeServiceKeys, podIPs, selectedPods, shouldPodBeInEndpoints, shouldSetHostname } from './pod-membership.js';
import { repackSubsets } from '@kubesvc/api-types';
import { computeTriggerTime, formatRFC3339Nano, triggerTimeStateOf } from './trigger-time.js';
import { ANNOTATION_LAST_CHANGE_TRIGGER_TIME, ANNOTATION_LEADER, ANNOTATION_OVER_CAPACITY, LABEL_HEADLESS } from './well-known.js';

/** The most addresses an Endpoints holds before it is truncated. upstream: maxCapacity */
export const ENDPOINTS_MAX_CAPACITY = 1000;
const TRUNCATED = 'truncated';

/** The family whose pod IP a Service's endpoints use: its first ipFamily, else its clusterIP's, else the pod's. */
function serviceFamily(service: Service, pod: Pod): 'IPv4' | 'IPv6' {
  const families = service.spec?.ipFamilies ?? [];
  if (families.length > 0) return families[0] === 'IPv6' ? 'IPv6' : 'IPv4';
  const clusterIP = service.spec?.clusterIP ?? '';
  const ip = clusterIP !== '' && clusterIP !== CLUSTER_IP_NONE ? clusterIP : (pod.status?.podIP ?? '');
  return ipFamilyOf(ip) === 'IPv6' ? 'IPv6' : 'IPv4';
}

/** podToEndpointAddressForService: the pod's IP of the Service's family, with its node and a reference to it. */
function podToEndpointAddress(service: Service, pod: Pod): EndpointAddress | undefined {
  const family = serviceFamily(service, pod);
  const ip = podIPs(pod).find((candidate) => (ipFamilyOf(candidate) === 'IPv6') === (family === 'IPv6'));
  if (ip === undefined) return undefined;
  const nodeName = pod.spec?.nodeName ?? '';
  return {
    ip,
    // Upstream always points nodeName at the pod's (possibly empty) spec.nodeName; an empty
    // one would fail the Endpoints validation, so it is left out (docs/deviations.md).
    ...(nodeName === '' ? {} : { nodeName }),
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
  };
}

function endpointPort(service: Service, index: number, port: number): EndpointPort {
  const sp = service.spec?.ports?.[index];
  return {
    ...(sp?.name ? { name: sp.name } : {}),
    port,
    ...(sp?.protocol ? { protocol: sp.protocol } : {}),
    ...(sp?.appProtocol !== undefined ? { appProtocol: sp.appProtocol } : {}),
  };
}

/** The subsets for a Service: one per (pod, resolved port), then repacked. */
export function desiredSubsets(service: Service, pods: readonly Pod[]): EndpointSubset[] {
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  const ports = service.spec?.ports ?? [];
  const subsets: EndpointSubset[] = [];
  const add = (pod: Pod, address: EndpointAddress, port: EndpointPort | undefined): void => {
    const portList = port === undefined ? [] : [port];
    if (publishNotReady || isPodReady(pod)) subsets.push({ addresses: [address], ports: portList });
    else subsets.push({ notReadyAddresses: [address], ports: portList });
  };
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, publishNotReady)) continue;
    const base = podToEndpointAddress(service, pod);
    if (base === undefined) continue;
    const address: EndpointAddress = shouldSetHostname(pod, service) ? { ...base, hostname: pod.spec?.hostname ?? '' } : base;
    if (ports.length === 0) {
      // A headless Service may have no ports; its addresses come without any.
      if (service.spec?.clusterIP === CLUSTER_IP_NONE) add(pod, address, undefined);
      continue;
    }
    ports.forEach((sp, i) => {
      const port = findPort(pod, sp);
      if (port !== undefined) add(pod, address, endpointPort(service, i, port));
    });
  }
  return repackSubsets(subsets);
}

/**
 * truncateEndpoints: over capacity, keep ready addresses first, each subset's share in
 * proportion to its size (rounded up, the last ones getting what is left); not-ready addresses
 * fill what remains, the same way, and all are dropped when the ready ones alone are over.
 */
export function truncateSubsets(subsets: readonly EndpointSubset[], max = ENDPOINTS_MAX_CAPACITY): { readonly subsets: EndpointSubset[]; readonly truncated: boolean } {
  let totalReady = 0;
  let totalNotReady = 0;
  for (const s of subsets) {
    totalReady += s.addresses?.length ?? 0;
    totalNotReady += s.notReadyAddresses?.length ?? 0;
  }
  if (totalReady + totalNotReady <= max) return { subsets: [...subsets], truncated: false };
  const truncateReady = totalReady > max;
  const budget = truncateReady ? max : max - totalReady;
  const numTotal = truncateReady ? totalReady : totalNotReady;
  let canBeAdded = budget;
  const out = subsets.map((s) => {
    const inSubset = truncateReady ? (s.addresses?.length ?? 0) : (s.notReadyAddresses?.length ?? 0);
    const toBeAdded = Math.min(Math.ceil((inSubset / numTotal) * budget), canBeAdded);
    if (truncateReady) {
      const addresses = (s.addresses ?? []).slice(0, toBeAdded);
      canBeAdded -= addresses.length;
      const { notReadyAddresses: _dropped, addresses: _a, ...rest } = s;
      return { ...rest, ...(addresses.length > 0 ? { addresses } : {}) };
    }
    const notReady = (s.notReadyAddresses ?? []).slice(0, toBeAdded);
    canBeAdded -= notReady.length;
    const { notReadyAddresses: _n, ...rest } = s;
    return { ...rest, ...(notReady.length > 0 ? { notReadyAddresses: notReady } : {}) };
  });
  return { subsets: out, truncated: true };
}

function withoutKey(map: Readonly<Record<string, string>> | undefined, key: string): Record<string, string> {
  const { [key]: _gone, ...rest } = map ?? {};
  return rest;
}

/** The subsets without targetRef resourceVersions, which upstream ignores when comparing. */
function comparableSubsets(subsets: readonly EndpointSubset[] | undefined): unknown {
  const strip = (a: EndpointAddress): EndpointAddress => {
    if (a.targetRef?.resourceVersion === undefined) return a;
    const { resourceVersion: _rv, ...targetRef } = a.targetRef;
    return { ...a, targetRef };
  };
  return (subsets ?? []).map((s) => ({ ...s, addresses: s.addresses?.map(strip), notReadyAddresses: s.notReadyAddresses?.map(strip) }));
}

/**
 * The Endpoints the controller wants for a selector Service, built on the existing one if any.
 * `triggerTime` (ms) is the last-change trigger time to stamp; 0 (none) removes an old one.
 */
export function desiredEndpoints(service: Service, pods: readonly Pod[], existing: Endpoints | undefined, triggerTime = 0): Endpoints {
  const { subsets, truncated } = truncateSubsets(desiredSubsets(service, pods));
  let annotations = withoutKey(withoutKey(existing?.metadata.annotations, ANNOTATION_LAST_CHANGE_TRIGGER_TIME), ANNOTATION_OVER_CAPACITY);
  if (triggerTime !== 0) annotations = { ...annotations, [ANNOTATION_LAST_CHANGE_TRIGGER_TIME]: formatRFC3339Nano(triggerTime) };
  if (truncated) annotations = { ...annotations, [ANNOTATION_OVER_CAPACITY]: TRUNCATED };
  const serviceLabels = service.metadata.labels ?? {};
  const labels = isServiceIPSet(service.spec) ? withoutKey(serviceLabels, LABEL_HEADLESS) : { ...serviceLabels, [LABEL_HEADLESS]: '' };
  const base: Endpoints = existing ?? {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: service.metadata.name ?? '', namespace: service.metadata.namespace ?? '' },
  };
  const { annotations: _a, labels: _l, ...meta } = base.metadata;
  const { subsets: _s, ...rest } = base;
  return {
    ...rest,
    metadata: { ...meta, ...(Object.keys(labels).length > 0 ? { labels } : {}), ...(Object.keys(annotations).length > 0 ? { annotations } : {}) },
    ...(subsets.length > 0 ? { subsets } : {}),
  };
}

/** Whether a write would change anything but the trigger time, which alone never causes one. */
function endpointsEqual(a: Endpoints, b: Endpoints): boolean {
  return (
    semanticEqual(comparableSubsets(a.subsets), comparableSubsets(b.subsets)) &&
    semanticEqual(a.metadata.labels, b.metadata.labels) &&
    semanticEqual(withoutKey(a.metadata.annotations, ANNOTATION_LAST_CHANGE_TRIGGER_TIME), withoutKey(b.metadata.annotations, ANNOTATION_LAST_CHANGE_TRIGGER_TIME))
  );
}

function syncService(key: string, cache: CacheView, remembered: unknown): ReconcileAction[] {
  const { namespace, name } = splitKey(key);
  const service = cache.get<Service>('services', namespace, name);
  const existing = cache.get<Endpoints>('endpoints', namespace, name);
  if (service === undefined) {
    // The Service is gone: so is its Endpoints, and what the trigger-time tracker knew of it.
    const forget: ReconcileAction[] = remembered === undefined ? [] : [{ kind: 'remember', key, value: undefined }];
    if (existing === undefined) return forget;
    const rv = existing.metadata.resourceVersion;
    return [...forget, { kind: 'delete', resource: 'endpoints', namespace, name, ...(rv === undefined ? {} : { resourceVersion: rv }) }];
  }
  // ExternalName Services and Services without a selector get no Endpoints from this
  // controller; the latter's are written by hand.
  if (service.spec?.type === 'ExternalName' || !hasSelector(service)) return [];
  const pods = selectedPods(service, cache);
  // Computed before deciding whether to write, so that the tracker's state moves on even when
  // the sync writes nothing.
  const trigger = computeTriggerTime(service, pods, triggerTimeStateOf(remembered));
  const remember: ReconcileAction = { kind: 'remember', key, value: trigger.state };
  const desired = desiredEndpoints(service, pods, existing, trigger.time);
  if (existing === undefined) return [remember, { kind: 'create', resource: 'endpoints', namespace, object: desired }];
  if (endpointsEqual(existing, desired)) return [remember];
  return [remember, { kind: 'update', resource: 'endpoints', namespace, object: desired }];
}

function keysFor(change: CacheChange, cache: CacheView): string[] {
  const { object } = change;
  const key = namespacedKey(object.metadata.namespace ?? '', object.metadata.name ?? '');
  switch (change.resource) {
    case 'services':
      return [key];
    case 'pods':
      return object.kind === 'Pod' ? podChangeServiceKeys(object, change.old?.kind === 'Pod' ? change.old : undefined, cache) : [];
    case 'endpoints':
      // Only a deletion: the Service's Endpoints is written again (onEndpointsDelete).
      return change.type === 'DELETED' ? [key] : [];
    default:
      return [];
  }
}

/** checkLeftoverEndpoints: every Endpoints once at start, so that those without a Service go. */
function initialKeys(cache: CacheView): string[] {
  return cache
    .list<Endpoints>('endpoints')
    .filter((ep) => ep.metadata.annotations?.[ANNOTATION_LEADER] === undefined)
    .map((ep) => namespacedKey(ep.metadata.namespace ?? '', ep.metadata.name ?? ''));
}

/** The endpoints controller as a keyed controller (keys are Service keys). */
export function endpointsController(): KeyedController {
  return {
    name: 'endpoint-controller',
    watches: ['services', 'pods', 'endpoints'],
    keysFor,
    initialKeys,
    reconcile: (key, cache, _now, remembered) => syncService(key, cache, remembered),
  };
}

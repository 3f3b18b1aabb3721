// The EndpointSlice controller: for each Service with a selector, EndpointSlices of at most
// 100 endpoints, one set per IP family of the Service, each endpoint a selected pod with its
// ready, serving and terminating conditions.
// upstream: pkg/controller/endpointslice/endpointslice_controller.go (syncService, the pod,
//           service, slice and node handlers), staging/src/k8s.io/endpointslice/reconciler.go
//           (Reconcile, reconcileByAddressType, reconcileByPortMapping, finalize, the
//           placeholder slice), staging/src/k8s.io/endpointslice/utils.go (podToEndpoint,
//           getEndpointPorts, getEndpointAddresses, newEndpointSlice, setEndpointSliceLabels,
//           getAddressTypesForService, getSliceToFill, ownedBy, unchangedSlices)
// The hints: traffic-distribution.ts (spec.trafficDistribution) and topology-hints.ts (the
// topology-mode annotation), chosen as reconcileByAddressType chooses in v1.33.
import {
  CLUSTER_IP_NONE,
  formatIP,
  isPodReady,
  isServiceIPSet,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  LABEL_TOPOLOGY_ZONE,
  parseIPSloppy,
  type DiscoveryEndpoint,
  type DiscoveryEndpointPort,
  type EndpointSlice,
  type KubeObject,
  type Node,
  type Pod,
  type Service,
} from '@kubesvc/api-types';
import { semanticEqual } from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';
import { namespacedKey, splitKey } from './keys.js';
import { findPort, hasSelector, isPodDeleting, podChangeServiceKeys, podIPs, podServiceKeys, selectedPods, shouldPodBeInEndpoints, shouldSetHostname } from './pod-membership.js';
import { deleteSlice, endpointHash, endpointsEqual, managedSlices, portMapKey, sliceServiceKey, writeSlice, type EndpointSet } from './slice-util.js';
import { addTopologyHints, cpuRatiosByZone, hintedEndpointsByZone, removeHintsFromSlices, serviceOverloaded, topologyHintsEnabled, TOPOLOGY_MESSAGES, formatWithAddressType, type TopologyEvent } from './topology-hints.js';
import { reconcileTrafficDistributionHints, validTrafficDistribution, type HintedSlices } from './traffic-distribution.js';
import { computeTriggerTime, formatRFC3339Nano, triggerTimeStateOf } from './trigger-time.js';
import { ANNOTATION_LAST_CHANGE_TRIGGER_TIME, ENDPOINTSLICE_CONTROLLER_NAME, LABEL_HEADLESS } from './well-known.js';

/** --max-endpoints-per-slice's default. upstream: pkg/controller/endpointslice/config/v1alpha1/defaults.go */
export const DEFAULT_MAX_ENDPOINTS_PER_SLICE = 100;

type AddressType = 'IPv4' | 'IPv6';

export interface EndpointSliceControllerOptions {
  /** The most endpoints in one slice (upstream's --max-endpoints-per-slice, 1 to 1000). */
  readonly maxEndpointsPerSlice?: number;
  /**
   * kube-controller-manager's PreferSameTrafficDistribution feature gate (alpha in v1.33, off
   * by default): with it on, trafficDistribution PreferSameZone and PreferSameNode give hints
   * as PreferClose does (PreferSameNode adds node hints); with it off they give none.
   */
  readonly preferSameTrafficDistribution?: boolean;
}

interface Settings {
  readonly max: number;
  readonly preferSame: boolean;
}

/** getAddressTypesForService: the Service's ipFamilies; without them, its clusterIP's family, or both when headless. */
export function addressTypesForService(service: Service): AddressType[] {
  const types = new Set<AddressType>();
  for (const family of service.spec?.ipFamilies ?? []) {
    if (family === 'IPv4') types.add('IPv4');
    if (family === 'IPv6') types.add('IPv6');
  }
  if (types.size > 0) return [...types];
  const clusterIP = service.spec?.clusterIP ?? '';
  if (clusterIP !== '' && clusterIP !== CLUSTER_IP_NONE) {
    const parsed = parseIPSloppy(clusterIP);
    return [parsed.ok && parsed.value.family === 6 ? 'IPv6' : 'IPv4'];
  }
  return ['IPv4', 'IPv6'];
}

/** getEndpointAddresses: the pod's IPs of this address type, written canonically. */
function endpointAddresses(pod: Pod, addressType: AddressType): string[] {
  const out: string[] = [];
  for (const text of podIPs(pod)) {
    const parsed = parseIPSloppy(text);
    if (!parsed.ok) continue;
    if ((parsed.value.family === 6) === (addressType === 'IPv6')) out.push(formatIP(parsed.value));
  }
  return out;
}

/** podToEndpoint. */
export function podToEndpoint(pod: Pod, node: Node | undefined, service: Service, addressType: AddressType): DiscoveryEndpoint {
  const serving = isPodReady(pod);
  const terminating = isPodDeleting(pod);
  // A terminating pod is never ready, unless the Service publishes not-ready addresses.
  const ready = service.spec?.publishNotReadyAddresses === true || (serving && !terminating);
  const nodeName = pod.spec?.nodeName ?? '';
  const zone = node?.metadata.labels?.[LABEL_TOPOLOGY_ZONE] ?? '';
  return {
    addresses: endpointAddresses(pod, addressType),
    conditions: { ready, serving, terminating },
    ...(shouldSetHostname(pod, service) ? { hostname: pod.spec?.hostname ?? '' } : {}),
    targetRef: { kind: 'Pod', namespace: pod.metadata.namespace ?? '', name: pod.metadata.name ?? '', uid: pod.metadata.uid ?? '' },
    ...(nodeName === '' ? {} : { nodeName }),
    ...(zone === '' ? {} : { zone }),
  };
}

/** getEndpointPorts: the Service's ports with the pod's target port; a port the pod does not name is left out. */
export function endpointPorts(service: Service, pod: Pod): DiscoveryEndpointPort[] {
  const ports = service.spec?.ports ?? [];
  if (ports.length === 0 && service.spec?.clusterIP === CLUSTER_IP_NONE) return [];
  const out: DiscoveryEndpointPort[] = [];
  for (const sp of ports) {
    const port = findPort(pod, sp);
    if (port === undefined) continue;
    out.push({ name: sp.name ?? '', port, protocol: sp.protocol ?? 'TCP', ...(sp.appProtocol !== undefined ? { appProtocol: sp.appProtocol } : {}) });
  }
  return out;
}

function isReservedLabel(key: string): boolean {
  return key === LABEL_SERVICE_NAME || key === LABEL_MANAGED_BY || key === LABEL_HEADLESS;
}

function withoutReserved(labels: Readonly<Record<string, string>> | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(labels ?? {})) if (!isReservedLabel(k)) out[k] = v;
  return out;
}

/** setEndpointSliceLabels: the Service's labels but the reserved ones, then headless, service-name and managed-by. */
function sliceLabels(slice: EndpointSlice | undefined, service: Service): { readonly labels: Record<string, string>; readonly changed: boolean } {
  const svcLabels = withoutReserved(service.metadata.labels);
  const changed = !semanticEqual(withoutReserved(slice?.metadata.labels), svcLabels);
  const labels: Record<string, string> = { ...svcLabels };
  if (!isServiceIPSet(service.spec)) labels[LABEL_HEADLESS] = '';
  labels[LABEL_SERVICE_NAME] = service.metadata.name ?? '';
  labels[LABEL_MANAGED_BY] = ENDPOINTSLICE_CONTROLLER_NAME;
  return { labels, changed };
}

/** ownedBy: an owner reference to this Service (by UID, kind Service, apiVersion v1). */
function ownedBy(slice: EndpointSlice, service: Service): boolean {
  return (slice.metadata.ownerReferences ?? []).some((o) => o.uid === (service.metadata.uid ?? '') && o.kind === 'Service' && o.apiVersion === 'v1');
}

/** newEndpointSlice: named by the registry from `<service>-`, owned by the Service. */
function newSlice(service: Service, ports: readonly DiscoveryEndpointPort[], addressType: AddressType): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      generateName: `${service.metadata.name ?? ''}-`,
      namespace: service.metadata.namespace ?? '',
      labels: sliceLabels(undefined, service).labels,
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: service.metadata.name ?? '', uid: service.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    addressType,
    endpoints: [],
    ports: [...ports],
  };
}

interface Plan {
  readonly toCreate: EndpointSlice[];
  readonly toUpdate: EndpointSlice[];
  readonly toDelete: EndpointSlice[];
}

function popFirst(set: EndpointSet): DiscoveryEndpoint | undefined {
  for (const [key, ep] of set) {
    set.delete(key);
    return ep;
  }
  return undefined;
}

/** getSliceToFill: the slice that would be closest to full with `n` more endpoints. */
function sliceToFill(slices: readonly EndpointSlice[], n: number, max: number): EndpointSlice | undefined {
  let closestDiff = max;
  let closest: EndpointSlice | undefined;
  for (const slice of slices) {
    const diff = max - (n + (slice.endpoints ?? []).length);
    if (diff >= 0 && diff < closestDiff) {
      closestDiff = diff;
      closest = slice;
      if (diff === 0) return closest;
    }
  }
  return closest;
}

/** reconcileByPortMapping: keep what is still desired in place, fill changed slices, then fit or create. */
function reconcileByPortMapping(service: Service, existing: readonly EndpointSlice[], desired: EndpointSet, ports: readonly DiscoveryEndpointPort[], addressType: AddressType, max: number): Plan {
  const byName = new Map<string, EndpointSlice>();
  const unchanged: string[] = [];
  const toUpdate: string[] = [];
  const toDelete: string[] = [];
  // 1. Drop endpoints no longer desired, refresh those that changed, check the labels.
  for (const slice of existing) {
    const name = slice.metadata.name ?? '';
    byName.set(name, slice);
    const kept: DiscoveryEndpoint[] = [];
    let endpointUpdated = false;
    for (const ep of slice.endpoints ?? []) {
      const hash = endpointHash(ep);
      const got = desired.get(hash);
      if (got === undefined) continue;
      kept.push(got);
      if (!endpointsEqual(got, ep)) endpointUpdated = true;
      desired.delete(hash);
    }
    const { labels, changed } = sliceLabels(slice, service);
    if (endpointUpdated || (slice.endpoints ?? []).length !== kept.length) {
      if (kept.length === 0) toDelete.push(name);
      else {
        byName.set(name, { ...slice, metadata: { ...slice.metadata, labels }, endpoints: kept });
        toUpdate.push(name);
      }
    } else if (changed) {
      byName.set(name, { ...slice, metadata: { ...slice.metadata, labels } });
      toUpdate.push(name);
    } else {
      unchanged.push(name);
    }
  }

  // 2. Fill the slices being updated anyway, fullest first.
  if (desired.size > 0 && toUpdate.length > 0) {
    const fill = toUpdate.map((n) => byName.get(n)).filter((s): s is EndpointSlice => s !== undefined);
    fill.sort((a, b) => (b.endpoints ?? []).length - (a.endpoints ?? []).length);
    for (const slice of fill) {
      const endpoints = [...(slice.endpoints ?? [])];
      while (desired.size > 0 && endpoints.length < max) {
        const ep = popFirst(desired);
        if (ep !== undefined) endpoints.push(ep);
      }
      byName.set(slice.metadata.name ?? '', { ...slice, endpoints });
    }
  }

  // 3. Fit what is left into an unchanged slice when it fits, else into new slices.
  const toCreate: EndpointSlice[] = [];
  while (desired.size > 0) {
    let target: EndpointSlice | undefined;
    if (desired.size < max && unchanged.length > 0) {
      target = sliceToFill(
        unchanged.map((n) => byName.get(n)).filter((s): s is EndpointSlice => s !== undefined),
        desired.size,
        max,
      );
    }
    const slice = target ?? newSlice(service, ports, addressType);
    const endpoints = [...(slice.endpoints ?? [])];
    while (desired.size > 0 && endpoints.length < max) {
      const ep = popFirst(desired);
      if (ep !== undefined) endpoints.push(ep);
    }
    const filled = { ...slice, endpoints };
    const name = filled.metadata.name ?? '';
    if (name !== '') {
      byName.set(name, filled);
      if (!toUpdate.includes(name)) toUpdate.push(name);
      const at = unchanged.indexOf(name);
      if (at >= 0) unchanged.splice(at, 1);
    } else {
      toCreate.push(filled);
    }
  }
  const pick = (names: readonly string[]): EndpointSlice[] => names.map((n) => byName.get(n)).filter((s): s is EndpointSlice => s !== undefined);
  return { toCreate, toUpdate: pick(toUpdate), toDelete: pick(toDelete) };
}

/** The placeholder compare: namespace, labels, owner references, addressType, endpoints and ports. */
function samePlaceholder(a: EndpointSlice, b: EndpointSlice): boolean {
  return (
    (a.metadata.namespace ?? '') === (b.metadata.namespace ?? '') &&
    semanticEqual(a.metadata.labels, b.metadata.labels) &&
    semanticEqual(a.metadata.ownerReferences, b.metadata.ownerReferences) &&
    a.addressType === b.addressType &&
    semanticEqual(a.endpoints, b.endpoints) &&
    semanticEqual(a.ports, b.ports)
  );
}

/** unchangedSlices: the existing slices neither updated nor deleted (by name). */
function unchangedSlices(existing: readonly EndpointSlice[], toUpdate: readonly EndpointSlice[], toDelete: readonly EndpointSlice[]): EndpointSlice[] {
  const changed = new Set([...toUpdate, ...toDelete].map((s) => s.metadata.name ?? ''));
  return existing.filter((s) => !changed.has(s.metadata.name ?? ''));
}

/** What one sync knows of the Service's hints across its address types (upstream's TopologyCache entry). */
interface HintState {
  /** Whether topology-aware hints are in place for the Service (upstream: HasPopulatedHints). */
  populated: boolean;
  readonly events: TopologyEvent[];
  /** Why pods were left out (a node the cache does not know), as the reconciler's errors say it. */
  readonly skipped: string[];
}

/** The hint step of reconcileByAddressType: topology-mode Auto first, then trafficDistribution, else none. */
function reconcileHints(service: Service, existing: readonly EndpointSlice[], plan: Plan, addressType: AddressType, cache: CacheView, settings: Settings, state: HintState): Plan {
  const topology = topologyHintsEnabled(service.metadata.annotations);
  const trafficDistribution = trafficDistributionOf(service);
  const canUseTrafficDistribution = validTrafficDistribution(trafficDistribution, settings.preferSame) && !topology;
  let slices: HintedSlices = { toCreate: plan.toCreate, toUpdate: plan.toUpdate, unchanged: unchangedSlices(existing, plan.toUpdate, plan.toDelete) };
  if (topology) {
    const added = addTopologyHints(slices, addressType, cpuRatiosByZone(cache.list<Node>('nodes')), state.populated);
    state.events.push(...added.events);
    state.populated = added.allocated !== undefined;
    slices = added;
  } else {
    // Hints the annotation put there go, with an event, unless trafficDistribution keeps them.
    if (state.populated && !canUseTrafficDistribution) {
      state.events.push({ type: 'Warning', reason: 'TopologyAwareHintsDisabled', message: formatWithAddressType(TOPOLOGY_MESSAGES.topologyAwareHintsDisabled, addressType) });
    }
    state.populated = false;
    if (!canUseTrafficDistribution) slices = removeHintsFromSlices(slices);
  }
  if (canUseTrafficDistribution) {
    slices = reconcileTrafficDistributionHints(trafficDistribution, { ...slices, unchanged: unchangedSlices(existing, slices.toUpdate, plan.toDelete) });
  }
  return { toCreate: [...slices.toCreate], toUpdate: [...slices.toUpdate], toDelete: plan.toDelete };
}

function reconcileByAddressType(service: Service, pods: readonly Pod[], existing: readonly EndpointSlice[], addressType: AddressType, cache: CacheView, settings: Settings, state: HintState): Plan {
  const { max } = settings;
  const plan: Plan = { toCreate: [], toUpdate: [], toDelete: [] };
  const existingByPorts = new Map<string, EndpointSlice[]>();
  for (const slice of existing) {
    if (!ownedBy(slice, service)) {
      plan.toDelete.push(slice);
      continue;
    }
    const key = portMapKey(slice.ports);
    existingByPorts.set(key, [...(existingByPorts.get(key) ?? []), slice]);
  }

  const desiredByPorts = new Map<string, { readonly ports: DiscoveryEndpointPort[]; readonly set: EndpointSet }>();
  const publishNotReady = service.spec?.publishNotReadyAddresses === true;
  for (const pod of pods) {
    if (!shouldPodBeInEndpoints(pod, true)) continue;
    const ports = endpointPorts(service, pod);
    const key = portMapKey(ports);
    let entry = desiredByPorts.get(key);
    if (entry === undefined) {
      entry = { ports, set: new Map() };
      desiredByPorts.set(key, entry);
    }
    const node = cache.get<Node>('nodes', '', pod.spec?.nodeName ?? '');
    // A pod on a node the cache does not know is left out (and retried when the node shows
    // up), unless the Service publishes not-ready addresses; the sync then reports it.
    if (node === undefined && !publishNotReady) {
      state.skipped.push(`skipping Pod ${pod.metadata.name ?? ''} for Service ${service.metadata.namespace ?? ''}/${service.metadata.name ?? ''}: Node ${pod.spec?.nodeName ?? ''} Not Found`);
      continue;
    }
    const ep = podToEndpoint(pod, node, service, addressType);
    if (ep.addresses.length > 0) entry.set.set(endpointHash(ep), ep);
  }

  for (const [key, { ports, set }] of desiredByPorts) {
    const p = reconcileByPortMapping(service, existingByPorts.get(key) ?? [], set, ports, addressType, max);
    plan.toCreate.push(...p.toCreate);
    plan.toUpdate.push(...p.toUpdate);
    plan.toDelete.push(...p.toDelete);
  }
  for (const [key, slices] of existingByPorts) if (!desiredByPorts.has(key)) plan.toDelete.push(...slices);

  // With no slice left, a placeholder without endpoints or ports stands for the Service.
  if (existing.length === plan.toDelete.length && plan.toCreate.length === 0) {
    const placeholder = newSlice(service, [], addressType);
    const [only] = plan.toDelete;
    if (plan.toDelete.length === 1 && only !== undefined && samePlaceholder(only, placeholder)) plan.toDelete.length = 0;
    else plan.toCreate.push(placeholder);
  }
  return reconcileHints(service, existing, plan, addressType, cache, settings, state);
}

/**
 * addTriggerTimeAnnotation: the last-change trigger time on a slice about to be written, or
 * none when there is no new one (0).
 */
function withTriggerTime(slice: EndpointSlice, triggerTime: number): EndpointSlice {
  const { [ANNOTATION_LAST_CHANGE_TRIGGER_TIME]: _old, ...annotations } = slice.metadata.annotations ?? {};
  const stamped = triggerTime === 0 ? annotations : { ...annotations, [ANNOTATION_LAST_CHANGE_TRIGGER_TIME]: formatRFC3339Nano(triggerTime) };
  const { annotations: _a, ...meta } = slice.metadata;
  return { ...slice, metadata: Object.keys(stamped).length === 0 ? meta : { ...meta, annotations: stamped } };
}

/**
 * finalize: turn creates into updates of slices about to be deleted (same type, owned), stamp
 * the trigger time on what is written, then write.
 */
function finalize(service: Service, plan: Plan, triggerTime: number): ReconcileAction[] {
  const toCreate = [...plan.toCreate];
  const toUpdate = [...plan.toUpdate];
  const toDelete = [...plan.toDelete];
  for (let i = 0; i < toDelete.length; ) {
    const last = toCreate[toCreate.length - 1];
    const victim = toDelete[i];
    if (last === undefined || victim === undefined) break;
    if (victim.addressType === last.addressType && ownedBy(victim, service)) {
      const { generateName: _g, ...meta } = last.metadata;
      toUpdate.push({ ...victim, metadata: { ...victim.metadata, ...meta, name: victim.metadata.name ?? '' }, endpoints: last.endpoints ?? [], ports: last.ports ?? [] });
      toCreate.pop();
      toDelete.splice(i, 1);
    } else {
      i++;
    }
  }
  const actions: ReconcileAction[] = [];
  // No new slices for a Service being deleted: the garbage collector is removing them.
  const deleting = service.metadata.deletionTimestamp !== undefined && service.metadata.deletionTimestamp !== null;
  if (!deleting) for (const slice of toCreate) actions.push(writeSlice(withTriggerTime(slice, triggerTime)));
  for (const slice of toUpdate) actions.push(writeSlice(withTriggerTime(slice, triggerTime)));
  for (const slice of toDelete) actions.push(deleteSlice(slice));
  return actions;
}

function trafficDistributionOf(service: Service): string | undefined {
  // Not in the modelled schema: the loose object keeps it.
  const value = service.spec?.['trafficDistribution'];
  return typeof value === 'string' ? value : undefined;
}

/** Whether any of the slices has a zone hint: the Service had topology hints when the sync began. */
function hasZoneHints(slices: readonly EndpointSlice[]): boolean {
  return slices.some((s) => (s.endpoints ?? []).some((ep) => (ep.hints?.forZones ?? []).length > 0));
}

function serviceEvent(service: Service, event: { readonly type: 'Normal' | 'Warning'; readonly reason: string; readonly message: string }): ReconcileAction {
  return {
    kind: 'event',
    event: {
      recorder: 'core/v1',
      // upstream: pkg/controller/endpointslice/endpointslice_controller.go (the recorder's EventSource)
      reportingController: 'endpoint-slice-controller',
      regarding: { resource: 'services', apiVersion: 'v1', kind: 'Service', namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' },
      type: event.type,
      reason: event.reason,
      message: event.message,
    },
  };
}

function syncService(key: string, cache: CacheView, settings: Settings, remembered: unknown): ReconcileAction[] {
  const { namespace, name } = splitKey(key);
  const service = cache.get<Service>('services', namespace, name);
  const slices = managedSlices(cache, namespace, name, ENDPOINTSLICE_CONTROLLER_NAME);
  if (service === undefined) {
    // Upstream leaves this to the garbage collector, through the slices' owner reference;
    // there is none here, so the controller deletes them (docs/deviations.md). The
    // trigger-time tracker forgets the Service.
    const forget: ReconcileAction[] = remembered === undefined ? [] : [{ kind: 'remember', key, value: undefined }];
    return [...forget, ...slices.map(deleteSlice)];
  }
  if (service.spec?.type === 'ExternalName' || !hasSelector(service)) return [];
  const pods = selectedPods(service, cache);
  // Before the reconcile, so that the tracker's state moves on even when nothing is written.
  const trigger = computeTriggerTime(service, pods, triggerTimeStateOf(remembered));
  const supported = addressTypesForService(service);
  const plan: Plan = { toCreate: [], toUpdate: [], toDelete: [] };
  const byType = new Map<string, EndpointSlice[]>();
  for (const slice of slices) {
    if (!(supported as string[]).includes(slice.addressType)) plan.toDelete.push(slice);
    else byType.set(slice.addressType, [...(byType.get(slice.addressType) ?? []), slice]);
  }
  const actions: ReconcileAction[] = [{ kind: 'remember', key, value: trigger.state }];
  const topology = topologyHintsEnabled(service.metadata.annotations);
  const trafficDistribution = trafficDistributionOf(service);
  // Slices with zone hints while neither the annotation nor trafficDistribution asks for them
  // are what the annotation left; with trafficDistribution on, they are its own.
  const canUseTrafficDistribution = validTrafficDistribution(trafficDistribution, settings.preferSame) && !topology;
  const state: HintState = { populated: !canUseTrafficDistribution && hasZoneHints(slices), events: [], skipped: [] };
  for (const addressType of supported) {
    const events = state.events.length;
    actions.push(...finalize(service, reconcileByAddressType(service, pods, byType.get(addressType) ?? [], addressType, cache, settings, state), trigger.time));
    for (const event of state.events.slice(events)) actions.push(serviceEvent(service, event));
  }
  actions.push(...plan.toDelete.map(deleteSlice));
  // The sync's errors (an aggregate: one alone, several in brackets) become one warning; the
  // slices are written without the pods, which come back when their node does.
  if (state.skipped.length > 0) {
    const error = state.skipped.length === 1 ? (state.skipped[0] ?? '') : `[${state.skipped.join(', ')}]`;
    actions.push(serviceEvent(service, { type: 'Warning', reason: 'FailedToUpdateEndpointSlices', message: `Error updating Endpoint Slices for Service ${namespace}/${name}: ${error}` }));
  }
  return actions;
}

function nodeReady(node: KubeObject | undefined): boolean {
  if (node?.kind !== 'Node') return false;
  for (const c of node.status?.conditions ?? []) if (c.type === 'Ready') return c.status === 'True';
  return false;
}

/** addNode, deleteNode, and updateNode when the node's readiness or zone label changed. */
function nodeTopologyChanged(change: CacheChange): boolean {
  if (change.type !== 'MODIFIED' || change.old === undefined) return true;
  const zone = (o: KubeObject): string | undefined => o.metadata.labels?.[LABEL_TOPOLOGY_ZONE];
  return nodeReady(change.old) !== nodeReady(change.object) || zone(change.old) !== zone(change.object);
}

/**
 * checkNodeTopologyDistribution: the Services with topology hints in place that some zone
 * now has too few of (GetOverloadedServices), to be synced again.
 */
function overloadedServices(cache: CacheView): string[] {
  const ratios = cpuRatiosByZone(cache.list<Node>('nodes'));
  const keys: string[] = [];
  for (const service of cache.list<Service>('services')) {
    if (!topologyHintsEnabled(service.metadata.annotations)) continue;
    const namespace = service.metadata.namespace ?? '';
    const name = service.metadata.name ?? '';
    const slices = managedSlices(cache, namespace, name, ENDPOINTSLICE_CONTROLLER_NAME);
    for (const addressType of ['IPv4', 'IPv6']) {
      if (serviceOverloaded(hintedEndpointsByZone(slices.filter((s) => s.addressType === addressType)), ratios)) {
        keys.push(namespacedKey(namespace, name));
        break;
      }
    }
  }
  return keys;
}

function keysFor(change: CacheChange, cache: CacheView): string[] {
  const { object } = change;
  switch (change.resource) {
    case 'services':
      return [namespacedKey(object.metadata.namespace ?? '', object.metadata.name ?? '')];
    case 'pods':
      return object.kind === 'Pod' ? podChangeServiceKeys(object, change.old?.kind === 'Pod' ? change.old : undefined, cache) : [];
    case 'endpointslices': {
      const keys = new Set<string>();
      for (const slice of [object, change.old]) {
        if (slice?.kind !== 'EndpointSlice' || slice.metadata.labels?.[LABEL_MANAGED_BY] !== ENDPOINTSLICE_CONTROLLER_NAME) continue;
        const key = sliceServiceKey(slice);
        if (key !== undefined) keys.add(key);
      }
      return [...keys];
    }
    case 'nodes': {
      // Pods on a node that was unknown are left out; a node change brings their Services back.
      const nodeName = object.metadata.name ?? '';
      const keys = new Set<string>();
      for (const pod of cache.list<Pod>('pods')) if (pod.spec?.nodeName === nodeName) for (const k of podServiceKeys(pod, cache)) keys.add(k);
      if (nodeTopologyChanged(change)) for (const k of overloadedServices(cache)) keys.add(k);
      return [...keys];
    }
    default:
      return [];
  }
}

/** The EndpointSlice controller as a keyed controller (keys are Service keys). */
export function endpointSliceController(options: EndpointSliceControllerOptions = {}): KeyedController {
  const max = options.maxEndpointsPerSlice ?? DEFAULT_MAX_ENDPOINTS_PER_SLICE;
  const settings: Settings = { max, preferSame: options.preferSameTrafficDistribution === true };
  if (!Number.isInteger(max) || max < 1 || max > 1000) throw new RangeError(`maxEndpointsPerSlice must be between 1 and 1000, got ${max}`);
  return {
    name: 'endpointslice-controller',
    watches: ['services', 'pods', 'endpointslices', 'nodes'],
    keysFor,
    reconcile: (key, cache, _now, remembered) => syncService(key, cache, settings, remembered),
  };
}

// The EndpointSlice mirroring controller: the Endpoints of a Service without a selector
// (written by hand, or by some other controller) copied into EndpointSlices, so that
// consumers that read only slices (kube-proxy) see them.
// upstream: pkg/controller/endpointslicemirroring/endpointslicemirroring_controller.go
//           (syncEndpoints, shouldMirror, the handlers), reconciler.go (reconcile,
//           reconcileByPortMapping, finalize), reconciler_helpers.go (desiredCalc,
//           recycleSlices), utils.go (newEndpointSlice, addressToEndpoint, getAddressType,
//           epPortsToEpsPorts, skipMirror, hasLeaderElection)
import {
  formatIP,
  LABEL_MANAGED_BY,
  LABEL_SERVICE_NAME,
  parseIPSloppy,
  type DiscoveryEndpoint,
  type DiscoveryEndpointPort,
  type EndpointAddress,
  type EndpointPort,
  type EndpointSlice,
  type Endpoints,
  type Service,
} from '@kubesvc/api-types';
import { semanticEqual } from '@kubesvc/api-types';
import type { CacheChange, CacheView, KeyedController, ReconcileAction } from './contract.js';
import { namespacedKey, splitKey } from './keys.js';
import { hasSelector } from './pod-membership.js';
import { deleteSlice, endpointHash, endpointsEqual, managedSlices, portMapKey, sliceServiceKey, writeSlice, type EndpointSet } from './slice-util.js';
import { ANNOTATION_LAST_APPLIED, ANNOTATION_LAST_CHANGE_TRIGGER_TIME, ANNOTATION_LEADER, ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME, LABEL_SKIP_MIRROR } from './well-known.js';

/** --mirroring-max-endpoints-per-subset's default. upstream: pkg/controller/endpointslicemirroring/config/v1alpha1/defaults.go */
export const DEFAULT_MIRRORING_MAX_ENDPOINTS_PER_SUBSET = 1000;

type AddressType = 'IPv4' | 'IPv6';

export interface EndpointSliceMirroringControllerOptions {
  /** The most addresses mirrored from one subset, and the most endpoints in one mirrored slice. */
  readonly maxEndpointsPerSubset?: number;
}

/** shouldMirror: not labelled skip-mirror "true", and not a leader-election lock. */
export function shouldMirror(endpoints: Endpoints): boolean {
  return endpoints.metadata.labels?.[LABEL_SKIP_MIRROR] !== 'true' && endpoints.metadata.annotations?.[ANNOTATION_LEADER] === undefined;
}

/** addressToEndpoint with getAddressType: undefined for an address that is not an IP. */
function addressToEndpoint(address: EndpointAddress, ready: boolean): { readonly endpoint: DiscoveryEndpoint; readonly addressType: AddressType } | undefined {
  const parsed = parseIPSloppy(address.ip);
  if (!parsed.ok) return undefined;
  const endpoint: DiscoveryEndpoint = {
    addresses: [formatIP(parsed.value)],
    conditions: { ready },
    ...(address.targetRef !== undefined ? { targetRef: address.targetRef } : {}),
    ...(address.nodeName !== undefined ? { nodeName: address.nodeName } : {}),
    ...(address.hostname !== undefined && address.hostname !== '' ? { hostname: address.hostname } : {}),
  };
  return { endpoint, addressType: parsed.value.family === 6 ? 'IPv6' : 'IPv4' };
}

/** epPortsToEpsPorts: every field kept, the name as given (empty when absent). */
function slicePorts(ports: readonly EndpointPort[] | undefined): DiscoveryEndpointPort[] {
  return (ports ?? []).map((p) => ({
    name: p.name ?? '',
    port: p.port,
    // The apiserver defaults an Endpoints port's protocol to TCP.
    protocol: p.protocol ?? 'TCP',
    ...(p.appProtocol !== undefined ? { appProtocol: p.appProtocol } : {}),
  }));
}

interface Desired {
  readonly addressType: AddressType;
  readonly ports: DiscoveryEndpointPort[];
  readonly set: EndpointSet;
}

/** What a mirror left out: addresses that are not IPs, and all addresses not mirrored (those included). */
export interface MirrorSkips {
  invalid: number;
  skipped: number;
}

/**
 * The desired endpoints per (address type, ports): at most `max` valid addresses of each
 * subset, ready ones first. `skips`, when given, counts what was left out.
 */
export function desiredMirror(endpoints: Endpoints, max: number, skips: MirrorSkips = { invalid: 0, skipped: 0 }): Map<string, Desired> {
  const desired = new Map<string, Desired>();
  for (const subset of endpoints.subsets ?? []) {
    const ports = slicePorts(subset.ports);
    const keyOf = (t: AddressType): string => `${t}-${portMapKey(ports)}`;
    for (const t of ['IPv4', 'IPv6'] as const) {
      const key = keyOf(t);
      const entry = desired.get(key);
      // A later subset with the same ports shares the set; the ports are the last seen.
      desired.set(key, { addressType: t, ports, set: entry?.set ?? new Map() });
    }
    let added = 0;
    const add = (address: EndpointAddress, ready: boolean): void => {
      if (added >= max) return;
      const converted = addressToEndpoint(address, ready);
      // An address that is not an IP is skipped, and counted for the sync's warning.
      if (converted === undefined) {
        skips.invalid++;
        return;
      }
      desired.get(keyOf(converted.addressType))?.set.set(endpointHash(converted.endpoint), converted.endpoint);
      added++;
    };
    for (const a of subset.addresses ?? []) add(a, true);
    for (const a of subset.notReadyAddresses ?? []) add(a, false);
    skips.skipped += (subset.addresses?.length ?? 0) + (subset.notReadyAddresses?.length ?? 0) - added;
  }
  return desired;
}

/**
 * The warnings a mirror's skips get on the Endpoints: invalid addresses, and addresses beyond
 * the per-subset maximum. upstream (v1.33): pkg/controller/endpointslicemirroring/reconciler.go
 * (reconcile: InvalidIPAddress, TooManyAddressesToMirror)
 */
function skipEvents(endpoints: Endpoints, skips: MirrorSkips, max: number): ReconcileAction[] {
  const event = (reason: string, message: string): ReconcileAction => ({
    kind: 'event',
    event: {
      recorder: 'core/v1',
      // upstream: pkg/controller/endpointslicemirroring/endpointslicemirroring_controller.go (the recorder's source)
      reportingController: 'endpoint-slice-mirroring-controller',
      regarding: { resource: 'endpoints', apiVersion: 'v1', kind: 'Endpoints', namespace: endpoints.metadata.namespace ?? '', name: endpoints.metadata.name ?? '' },
      type: 'Warning',
      reason,
      message,
    },
  });
  const events: ReconcileAction[] = [];
  if (skips.invalid > 0) events.push(event('InvalidIPAddress', `Skipped ${skips.invalid} invalid IP addresses when mirroring to EndpointSlices`));
  if (skips.skipped > skips.invalid) {
    events.push(event('TooManyAddressesToMirror', `A max of ${max} addresses can be mirrored to EndpointSlices per Endpoints subset. ${skips.skipped} addresses were skipped`));
  }
  return events;
}

/** newEndpointSlice: the Endpoints' labels and annotations (but two), owned by the Endpoints. */
function mirroredSlice(endpoints: Endpoints, ports: readonly DiscoveryEndpointPort[], addressType: AddressType, base: EndpointSlice | undefined, items: DiscoveryEndpoint[]): EndpointSlice {
  const name = endpoints.metadata.name ?? '';
  const labels: Record<string, string> = { ...endpoints.metadata.labels, [LABEL_SERVICE_NAME]: name, [LABEL_MANAGED_BY]: ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME };
  const annotations: Record<string, string> = {};
  for (const [k, v] of Object.entries(endpoints.metadata.annotations ?? {})) {
    if (k !== ANNOTATION_LAST_CHANGE_TRIGGER_TIME && k !== ANNOTATION_LAST_APPLIED) annotations[k] = v;
  }
  const owner = { apiVersion: 'v1', kind: 'Endpoints', name, uid: endpoints.metadata.uid ?? '', controller: true, blockOwnerDeletion: true };
  const { annotations: _a, labels: _l, ownerReferences: _o, generateName: _g, ...kept } = base?.metadata ?? {};
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      ...kept,
      ...(base === undefined ? { generateName: `${name}-` } : {}),
      namespace: endpoints.metadata.namespace ?? '',
      labels,
      ...(Object.keys(annotations).length > 0 ? { annotations } : {}),
      ownerReferences: [owner],
    },
    addressType,
    endpoints: items,
    ports: [...ports],
  };
}

/** Whether an existing slice already holds exactly the desired endpoints, labels and annotations. */
function sliceMatches(existing: EndpointSlice, wanted: EndpointSlice): boolean {
  const have = new Map((existing.endpoints ?? []).map((ep) => [endpointHash(ep), ep]));
  const want = wanted.endpoints ?? [];
  if (have.size !== want.length || (existing.endpoints ?? []).length !== want.length) return false;
  for (const ep of want) {
    const got = have.get(endpointHash(ep));
    if (got === undefined || !endpointsEqual(got, ep)) return false;
  }
  return semanticEqual(existing.metadata.labels, wanted.metadata.labels) && semanticEqual(existing.metadata.annotations, wanted.metadata.annotations);
}

function reconcileMirror(endpoints: Endpoints, existing: readonly EndpointSlice[], max: number): ReconcileAction[] {
  const skips: MirrorSkips = { invalid: 0, skipped: 0 };
  const desired = desiredMirror(endpoints, max, skips);
  const existingByKey = new Map<string, EndpointSlice[]>();
  for (const slice of existing) {
    const key = `${slice.addressType}-${portMapKey(slice.ports)}`;
    existingByKey.set(key, [...(existingByKey.get(key) ?? []), slice]);
  }
  const toCreate: EndpointSlice[] = [];
  const toUpdate: EndpointSlice[] = [];
  const toDelete: EndpointSlice[] = [];
  for (const [key, { addressType, ports, set }] of desired) {
    const slices = existingByKey.get(key) ?? [];
    if (set.size === 0) {
      toDelete.push(...slices);
      continue;
    }
    // One slice per key: all but the first go, the first is rewritten unless it matches.
    const [first, ...rest] = slices;
    toDelete.push(...rest);
    const items = [...set.values()].slice(0, max);
    const wanted = mirroredSlice(endpoints, ports, addressType, first, items);
    if (first !== undefined && sliceMatches(first, wanted)) continue;
    (first === undefined ? toCreate : toUpdate).push(wanted);
  }
  for (const [key, slices] of existingByKey) if (!desired.has(key)) toDelete.push(...slices);

  // recycleSlices: a create and a delete of the same address type become one update.
  for (const addressType of ['IPv4', 'IPv6'] as const) {
    const creates = toCreate.filter((s) => s.addressType === addressType);
    const deletes = toDelete.filter((s) => s.addressType === addressType);
    for (let i = 0; i < creates.length && i < deletes.length; i++) {
      const create = creates[i];
      const victim = deletes[i];
      if (create === undefined || victim === undefined) continue;
      toCreate.splice(toCreate.indexOf(create), 1);
      toDelete.splice(toDelete.indexOf(victim), 1);
      const { generateName: _g, ...meta } = create.metadata;
      toUpdate.push({ ...create, metadata: { ...meta, name: victim.metadata.name ?? '', ...(victim.metadata.resourceVersion !== undefined ? { resourceVersion: victim.metadata.resourceVersion } : {}) } });
    }
  }
  const deleting = endpoints.metadata.deletionTimestamp !== undefined && endpoints.metadata.deletionTimestamp !== null;
  return [...skipEvents(endpoints, skips, max), ...(deleting ? [] : toCreate.map(writeSlice)), ...toUpdate.map(writeSlice), ...toDelete.map(deleteSlice)];
}

function syncEndpoints(key: string, cache: CacheView, max: number): ReconcileAction[] {
  const { namespace, name } = splitKey(key);
  const mirrored = managedSlices(cache, namespace, name, ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME);
  const endpoints = cache.get<Endpoints>('endpoints', namespace, name);
  const service = cache.get<Service>('services', namespace, name);
  // No Endpoints, one not to mirror, no Service, or a Service with a selector (whose slices
  // the EndpointSlice controller writes): the mirrored slices go.
  if (endpoints === undefined || !shouldMirror(endpoints) || service === undefined || hasSelector(service)) return mirrored.map(deleteSlice);
  return reconcileMirror(endpoints, mirrored, max);
}

function keysFor(change: CacheChange): string[] {
  const { object, old } = change;
  const key = namespacedKey(object.metadata.namespace ?? '', object.metadata.name ?? '');
  switch (change.resource) {
    case 'endpoints': {
      const now = object.kind === 'Endpoints' && shouldMirror(object);
      const before = old?.kind === 'Endpoints' && shouldMirror(old);
      return now || before ? [key] : [];
    }
    case 'services': {
      if (object.kind !== 'Service') return [];
      // A Service matters when it has no selector, or when it gains or loses one.
      if (change.type === 'MODIFIED' && old?.kind === 'Service') return hasSelector(object) !== hasSelector(old) ? [key] : [];
      return hasSelector(object) ? [] : [key];
    }
    case 'endpointslices': {
      const keys = new Set<string>();
      for (const slice of [object, old]) {
        if (slice?.kind !== 'EndpointSlice') continue;
        const labelChanged = old?.kind === 'EndpointSlice' && object.kind === 'EndpointSlice' && old.metadata.labels?.[LABEL_SERVICE_NAME] !== object.metadata.labels?.[LABEL_SERVICE_NAME];
        if (!labelChanged && slice.metadata.labels?.[LABEL_MANAGED_BY] !== ENDPOINTSLICE_MIRRORING_CONTROLLER_NAME) continue;
        const k = sliceServiceKey(slice);
        if (k !== undefined) keys.add(k);
      }
      return [...keys];
    }
    default:
      return [];
  }
}

/** The mirroring controller as a keyed controller (keys are Endpoints keys). */
export function endpointSliceMirroringController(options: EndpointSliceMirroringControllerOptions = {}): KeyedController {
  const max = options.maxEndpointsPerSubset ?? DEFAULT_MIRRORING_MAX_ENDPOINTS_PER_SUBSET;
  if (!Number.isInteger(max) || max < 1 || max > 1000) throw new RangeError(`maxEndpointsPerSubset must be between 1 and 1000, got ${max}`);
  return {
    name: 'endpointslicemirroring-controller',
    watches: ['endpoints', 'services', 'endpointslices'],
    keysFor,
    reconcile: (key, cache) => syncEndpoints(key, cache, max),
  };
}

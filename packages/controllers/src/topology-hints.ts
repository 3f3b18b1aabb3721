// Topology-aware routing (the `service.kubernetes.io/topology-mode: Auto` annotation, and the
// deprecated `service.kubernetes.io/topology-aware-hints`): each ready endpoint is hinted for
// a zone so that every zone gets a share of the endpoints in proportion to the allocatable CPU
// of its ready nodes, within an overload threshold of 20%; when that cannot be done, no
// endpoint of the address type keeps a hint and the Service gets a Warning event saying why.
// upstream (v1.33): staging/src/k8s.io/endpointslice/topologycache/topologycache.go (AddHints,
//           SetNodes, getAllocations, GetOverloadedServices, hasExcludedLabels),
//           sliceinfo.go (getTotalReadyEndpoints, getAllocatedHintsByZone), utils.go
//           (RemoveHintsFromSlices, redistributeHints, getGivingAndReceivingZones, getMost,
//           getHintsByZone, serviceOverloaded, isNodeReady), event.go (the messages),
//           staging/src/k8s.io/endpointslice/utils.go (hintsEnabled)
//
// Upstream's TopologyCache keeps state between syncs: the CPU ratios (set when Nodes change)
// and the hints it populated per Service. Here both are read from the cache at each sync: the
// ratios from the Nodes, the populated hints from the Service's slices (see docs/deviations.md).
// Go walks maps in random order where upstream picks a zone to receive an endpoint or breaks a
// tie; here zones are walked in name order.
import { compareCodePoints, LABEL_TOPOLOGY_ZONE, type DiscoveryEndpoint, type EndpointSlice, type Node } from '@kubesvc/api-types';
import { endpointReady, type HintedSlices } from './traffic-distribution.js';

/** upstream: core/v1 AnnotationTopologyMode, DeprecatedAnnotationTopologyAwareHints */
export const ANNOTATION_TOPOLOGY_MODE = 'service.kubernetes.io/topology-mode';
export const ANNOTATION_TOPOLOGY_AWARE_HINTS = 'service.kubernetes.io/topology-aware-hints';

/** The share of endpoints above its CPU share a zone may take. upstream: overloadThreshold */
export const OVERLOAD_THRESHOLD = 0.2;

/** The events' messages. upstream: topologycache/event.go */
export const TOPOLOGY_MESSAGES = {
  noZoneSpecified: 'One or more endpoints do not have a zone specified',
  noAllocatedHintsForZones: 'No hints allocated for zones',
  topologyAwareHintsEnabled: 'Topology Aware Hints has been enabled',
  topologyAwareHintsDisabled: 'Topology Aware Hints has been disabled',
  insufficientNodeInfo: 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes',
  nodesReadyInOneZoneOnly: 'Nodes only ready in one zone',
  insufficientNumberOfEndpoints: 'Insufficient number of endpoints',
  minAllocationExceedsOverloadThreshold: 'Unable to allocate minimum required endpoints to each zone without exceeding overload threshold',
} as const;

/** An event on the Service. upstream: topologycache.EventBuilder */
export interface TopologyEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason: 'TopologyAwareHintsEnabled' | 'TopologyAwareHintsDisabled';
  readonly message: string;
}

/** FormatWithAddressType. */
export function formatWithAddressType(message: string, addressType: string): string {
  return `${message}, addressType: ${addressType}`;
}

const disabled = (message: string): TopologyEvent => ({ type: 'Warning', reason: 'TopologyAwareHintsDisabled', message });

/** hintsEnabled: the deprecated annotation when present, else topology-mode; `Auto` or `auto`. */
export function topologyHintsEnabled(annotations: Readonly<Record<string, string>> | undefined): boolean {
  const value = annotations?.[ANNOTATION_TOPOLOGY_AWARE_HINTS] ?? annotations?.[ANNOTATION_TOPOLOGY_MODE];
  return value === 'Auto' || value === 'auto';
}

// --- Nodes ---------------------------------------------------------------------------------

const DECIMAL_SUFFIX: Readonly<Record<string, number>> = { n: -9, u: -6, m: -3, '': 0, k: 3, M: 6, G: 9, T: 12, P: 15, E: 18 };
const BINARY_SUFFIX: Readonly<Record<string, bigint>> = { Ki: 1n << 10n, Mi: 1n << 20n, Gi: 1n << 30n, Ti: 1n << 40n, Pi: 1n << 50n, Ei: 1n << 60n };

/** A resource.Quantity's MilliValue (rounded up), or undefined for text that is not a quantity. */
export function quantityMilliValue(text: string): bigint | undefined {
  const m = /^([+-]?)([0-9]*)(?:\.([0-9]*))?(.*)$/.exec(text);
  if (m === null) return undefined;
  const [, sign = '', whole = '', frac = '', suffix = ''] = m;
  if (whole === '' && frac === '') return undefined;
  // The value as digits / 10^scale, then times 1000 and the suffix.
  let num = BigInt(`${whole}${frac}` === '' ? '0' : `${whole}${frac}`);
  let den = 10n ** BigInt(frac.length);
  num *= 1000n;
  const bin = BINARY_SUFFIX[suffix];
  let exp: number | undefined = DECIMAL_SUFFIX[suffix];
  if (bin !== undefined) num *= bin;
  else if (exp === undefined) {
    const e = /^[eE]([+-]?[0-9]+)$/.exec(suffix);
    if (e === null) return undefined;
    exp = Number(e[1]);
  }
  if (exp !== undefined) {
    if (exp >= 0) num *= 10n ** BigInt(exp);
    else den *= 10n ** BigInt(-exp);
  }
  const q = (num + den - 1n) / den;
  return sign === '-' ? -((num / den) as bigint) : q;
}

function nodeReady(node: Node): boolean {
  for (const c of node.status?.conditions ?? []) if (c.type === 'Ready') return c.status === 'True';
  return false;
}

function excluded(node: Node): boolean {
  const labels = node.metadata.labels ?? {};
  return 'node-role.kubernetes.io/control-plane' in labels || 'node-role.kubernetes.io/master' in labels;
}

/**
 * SetNodes: each zone's share of the allocatable CPU of the ready nodes (control-plane nodes
 * left out); undefined when a ready node lacks a zone or CPU, or fewer than two zones remain.
 */
export function cpuRatiosByZone(nodes: readonly Node[]): ReadonlyMap<string, number> | undefined {
  return zoneCPU(nodes)?.ratios;
}

/** SetNodes' two results: the allocatable CPU of each zone in millicores, and its share. */
export function zoneCPU(nodes: readonly Node[]): { readonly cpuByZone: ReadonlyMap<string, bigint>; readonly ratios: ReadonlyMap<string, number> } | undefined {
  const cpuByZone = new Map<string, bigint>();
  let total = 0n;
  for (const node of nodes) {
    if (excluded(node) || !nodeReady(node)) continue;
    const cpu = quantityMilliValue(node.status?.allocatable?.['cpu'] ?? '0') ?? 0n;
    const zone = node.metadata.labels?.[LABEL_TOPOLOGY_ZONE] ?? '';
    if (zone === '' || cpu === 0n) return undefined;
    total += cpu;
    cpuByZone.set(zone, (cpuByZone.get(zone) ?? 0n) + cpu);
  }
  if (total === 0n || cpuByZone.size < 2) return undefined;
  const ratios = new Map<string, number>();
  for (const zone of [...cpuByZone.keys()].sort(compareCodePoints)) ratios.set(zone, Number(cpuByZone.get(zone) ?? 0n) / Number(total));
  return { cpuByZone, ratios };
}

// --- Allocations ---------------------------------------------------------------------------

export interface ZoneAllocation {
  readonly minimum: number;
  readonly maximum: number;
  readonly desired: number;
}

/** getAllocations: each zone's minimum, desired and maximum number of endpoints, or why there are none. */
export function zoneAllocations(ratios: ReadonlyMap<string, number> | undefined, numEndpoints: number): { readonly allocations: ReadonlyMap<string, ZoneAllocation> } | { readonly event: TopologyEvent } {
  if (ratios === undefined) return { event: disabled(TOPOLOGY_MESSAGES.insufficientNodeInfo) };
  if (ratios.size < 2) return { event: disabled(TOPOLOGY_MESSAGES.nodesReadyInOneZoneOnly) };
  if (ratios.size > numEndpoints) return { event: disabled(`${TOPOLOGY_MESSAGES.insufficientNumberOfEndpoints} (${numEndpoints} endpoints, ${ratios.size} zones)`) };
  let minTotal = 0;
  const partial: [string, number, number][] = [];
  for (const [zone, ratio] of ratios) {
    const desired = ratio * numEndpoints;
    const minimum = Math.ceil(desired * (1 / (1 + OVERLOAD_THRESHOLD)));
    partial.push([zone, minimum, Math.max(desired, minimum)]);
    minTotal += minimum;
    if (minTotal > numEndpoints) {
      return { event: disabled(`${TOPOLOGY_MESSAGES.minAllocationExceedsOverloadThreshold} (${numEndpoints} endpoints, ${ratios.size} zones)`) };
    }
  }
  const allocations = new Map<string, ZoneAllocation>();
  for (const [zone, minimum, desired] of partial) allocations.set(zone, { minimum, desired, maximum: minimum + numEndpoints - minTotal });
  return { allocations };
}

/** The number of hinted endpoints per zone. upstream: EndpointZoneInfo */
export type ZoneCounts = Map<string, number>;

const add = (m: ZoneCounts, zone: string, n: number): void => void m.set(zone, (m.get(zone) ?? 0) + n);

/** getHintsByZone: the slice's hints per zone, or undefined when they are missing, for an unknown zone, or over a maximum. */
export function hintsByZone(slice: EndpointSlice, allocated: ReadonlyMap<string, number>, allocations: ReadonlyMap<string, ZoneAllocation>): ZoneCounts | undefined {
  const counts: ZoneCounts = new Map();
  for (const ep of slice.endpoints ?? []) {
    if (!endpointReady(ep)) continue;
    const zones = ep.hints?.forZones ?? [];
    if (zones.length === 0) return undefined;
    for (const { name } of zones) {
      if (!allocations.has(name)) return undefined;
      add(counts, name, 1);
    }
  }
  for (const [zone, n] of counts) {
    const allocation = allocations.get(zone);
    if (allocation === undefined || n + (allocated.get(zone) ?? 0) > allocation.maximum) return undefined;
  }
  return counts;
}

function mostOf(zones: ReadonlyMap<string, number>): [string, number] {
  let zone = '';
  let most = 0;
  for (const [z, n] of zones) {
    if (n > most) {
      zone = z;
      most = n;
    }
  }
  return [zone, most];
}

/** getGivingAndReceivingZones: how many endpoints each zone over its desired share gives, and each under it receives. */
export function givingAndReceivingZones(allocations: ReadonlyMap<string, ZoneAllocation>, allocated: ReadonlyMap<string, number>): { readonly giving: ZoneCounts; readonly receiving: ZoneCounts } {
  const givingDesired = new Map<string, number>();
  const receivingDesired = new Map<string, number>();
  for (const [zone, allocation] of allocations) {
    const have = allocated.get(zone) ?? 0;
    if (have > allocation.desired) givingDesired.set(zone, have - allocation.desired);
    else if (have < allocation.desired) receivingDesired.set(zone, allocation.desired - have);
  }
  const giving: ZoneCounts = new Map();
  const receiving: ZoneCounts = new Map();
  for (;;) {
    const [gz, toGive] = mostOf(givingDesired);
    const [rz, toReceive] = mostOf(receivingDesired);
    if (gz === '' || rz === '' || (toGive < 1 && toReceive < 1) || toGive < 0.5 || toReceive < 0.5) break;
    add(giving, gz, 1);
    givingDesired.set(gz, toGive - 1);
    add(receiving, rz, 1);
    receivingDesired.set(rz, toReceive - 1);
  }
  return { giving, receiving };
}

/** redistributeHints: re-hint endpoints of giving zones for receiving zones; returns the change per zone. */
export function redistributeHints(slices: EndpointSlice[], giving: ZoneCounts, receiving: ZoneCounts): ZoneCounts {
  const changes: ZoneCounts = new Map();
  for (const [s, slice] of slices.entries()) {
    const endpoints = [...(slice.endpoints ?? [])];
    let touched = false;
    for (const [i, ep] of endpoints.entries()) {
      if (!endpointReady(ep)) continue;
      if (giving.size === 0 || receiving.size === 0) break;
      if (ep.zone === undefined || ep.zone === '') continue;
      const from = ep.zone;
      const toGive = giving.get(from) ?? 0;
      if (toGive <= 0) continue;
      for (const to of [...receiving.keys()].sort(compareCodePoints)) {
        const toReceive = receiving.get(to) ?? 0;
        if (toReceive <= 0) continue;
        endpoints[i] = { ...ep, hints: { forZones: [{ name: to }] } };
        touched = true;
        if (toGive === 1) giving.delete(from);
        else giving.set(from, toGive - 1);
        if (toReceive === 1) receiving.delete(to);
        else receiving.set(to, toReceive - 1);
        add(changes, to, 1);
        add(changes, from, -1);
        break;
      }
    }
    if (touched) slices[s] = { ...slice, endpoints };
  }
  return changes;
}

function withoutHints(ep: DiscoveryEndpoint): DiscoveryEndpoint {
  if (ep.hints === undefined) return ep;
  const { hints: _dropped, ...rest } = ep;
  return rest;
}

const stripped = (slice: EndpointSlice): EndpointSlice => (slice.endpoints === undefined || slice.endpoints === null ? slice : { ...slice, endpoints: slice.endpoints.map(withoutHints) });

/** RemoveHintsFromSlices: no hints on the created and updated slices; an unchanged slice with hints becomes an update. */
export function removeHintsFromSlices(slices: HintedSlices): HintedSlices {
  const toUpdate = slices.toUpdate.map(stripped);
  const unchanged: EndpointSlice[] = [];
  for (const slice of slices.unchanged) {
    if ((slice.endpoints ?? []).some((ep) => ep.hints !== undefined)) toUpdate.push(stripped(slice));
    else unchanged.push(slice);
  }
  return { toCreate: slices.toCreate.map(stripped), toUpdate, unchanged };
}

/** The ready endpoints of all the slices. upstream: getTotalReadyEndpoints */
export function totalReadyEndpoints(slices: HintedSlices): number {
  let n = 0;
  for (const slice of [...slices.toCreate, ...slices.toUpdate, ...slices.unchanged]) for (const ep of slice.endpoints ?? []) if (endpointReady(ep)) n++;
  return n;
}

export interface AddHintsResult extends HintedSlices {
  readonly events: readonly TopologyEvent[];
  /** The hinted endpoints per zone (upstream's endpointsByService entry), or undefined when hints were removed. */
  readonly allocated: ReadonlyMap<string, number> | undefined;
}

/**
 * AddHints for one address type: allocate, keep the unchanged slices whose hints still fit,
 * hint every ready endpoint of the others for its own zone, then move endpoints from zones over
 * their share to zones under it. `hintsPopulated`: whether the Service had hints already (no
 * Enabled event then).
 */
export function addTopologyHints(slices: HintedSlices, addressType: string, ratios: ReadonlyMap<string, number> | undefined, hintsPopulated: boolean): AddHintsResult {
  const got = zoneAllocations(ratios, totalReadyEndpoints(slices));
  if ('event' in got) {
    return { ...removeHintsFromSlices(slices), events: [{ ...got.event, message: formatWithAddressType(got.event.message, addressType) }], allocated: undefined };
  }
  const { allocations } = got;
  // getAllocatedHintsByZone: unchanged slices whose hints still fit count; the others are updated.
  const allocated: ZoneCounts = new Map();
  const toUpdate = [...slices.toUpdate];
  const unchanged: EndpointSlice[] = [];
  for (const slice of slices.unchanged) {
    const counts = hintsByZone(slice, allocated, allocations);
    if (counts === undefined) toUpdate.push(slice);
    else {
      unchanged.push(slice);
      for (const [zone, n] of counts) add(allocated, zone, n);
    }
  }
  const after: HintedSlices = { toCreate: slices.toCreate, toUpdate, unchanged };
  const allocatable = [...slices.toCreate, ...toUpdate];
  for (const [s, slice] of allocatable.entries()) {
    const endpoints = [...(slice.endpoints ?? [])];
    for (const [i, ep] of endpoints.entries()) {
      // An endpoint that is not ready keeps what it has (upstream clears a copy).
      if (!endpointReady(ep)) continue;
      if (ep.zone === undefined || ep.zone === '') {
        const removed = removeHintsFromSlices(after);
        return { ...removed, events: [disabled(formatWithAddressType(TOPOLOGY_MESSAGES.noZoneSpecified, addressType))], allocated: undefined };
      }
      add(allocated, ep.zone, 1);
      endpoints[i] = { ...ep, hints: { forZones: [{ name: ep.zone }] } };
    }
    allocatable[s] = { ...slice, endpoints };
  }
  const { giving, receiving } = givingAndReceivingZones(allocations, allocated);
  for (const [zone, diff] of redistributeHints(allocatable, giving, receiving)) add(allocated, zone, diff);
  if (allocated.size === 0) {
    const removed = removeHintsFromSlices({ toCreate: allocatable.slice(0, slices.toCreate.length), toUpdate: allocatable.slice(slices.toCreate.length), unchanged });
    return { ...removed, events: [disabled(formatWithAddressType(TOPOLOGY_MESSAGES.noAllocatedHintsForZones, addressType))], allocated: undefined };
  }
  const events: TopologyEvent[] = hintsPopulated ? [] : [{ type: 'Normal', reason: 'TopologyAwareHintsEnabled', message: formatWithAddressType(TOPOLOGY_MESSAGES.topologyAwareHintsEnabled, addressType) }];
  return { toCreate: allocatable.slice(0, slices.toCreate.length), toUpdate: allocatable.slice(slices.toCreate.length), unchanged, events, allocated };
}

/** serviceOverloaded: some zone has fewer hinted endpoints than its minimum, or no ratios at all. */
export function serviceOverloaded(allocated: ReadonlyMap<string, number>, ratios: ReadonlyMap<string, number> | undefined): boolean {
  if (allocated.size === 0) return false;
  if (ratios === undefined || ratios.size === 0) return true;
  let total = 0;
  for (const n of allocated.values()) total += n;
  for (const [zone, ratio] of ratios) {
    const have = allocated.get(zone);
    if (have === undefined) return true;
    if (have < Math.ceil(total * ratio * (1 / (1 + OVERLOAD_THRESHOLD)))) return true;
  }
  return false;
}

/** The hinted ready endpoints per zone in some slices: what AddHints recorded for them. */
export function hintedEndpointsByZone(slices: readonly EndpointSlice[]): ZoneCounts {
  const counts: ZoneCounts = new Map();
  for (const slice of slices) for (const ep of slice.endpoints ?? []) if (endpointReady(ep)) for (const { name } of ep.hints?.forZones ?? []) add(counts, name, 1);
  return counts;
}

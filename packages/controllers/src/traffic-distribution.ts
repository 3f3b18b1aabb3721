// The hints a Service's spec.trafficDistribution asks for: with PreferClose (and, behind the
// PreferSameTrafficDistribution gate, PreferSameZone) every ready endpoint that has a zone is
// hinted for its own zone; with PreferSameNode it is also hinted for its own node. Any other
// value, or none, means no hints at all.
// upstream (v1.33): staging/src/k8s.io/endpointslice/trafficdist/trafficdist.go (ReconcileHints,
//           defaultHeuristic, preferCloseHeuristic), staging/src/k8s.io/endpointslice/reconciler.go
//           (validTrafficDistribution)
import type { DiscoveryEndpoint, EndpointSlice } from '@kubesvc/api-types';

/** spec.trafficDistribution's values. upstream: core/v1 ServiceTrafficDistribution* */
export const TRAFFIC_DISTRIBUTION_PREFER_CLOSE = 'PreferClose';
export const TRAFFIC_DISTRIBUTION_PREFER_SAME_ZONE = 'PreferSameZone';
export const TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE = 'PreferSameNode';

const CLOSE_VALUES: readonly string[] = [TRAFFIC_DISTRIBUTION_PREFER_CLOSE, TRAFFIC_DISTRIBUTION_PREFER_SAME_ZONE, TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE];

/** The slices of one address type as the reconciler has sorted them: new, changed, and left as they are. */
export interface HintedSlices {
  readonly toCreate: readonly EndpointSlice[];
  readonly toUpdate: readonly EndpointSlice[];
  readonly unchanged: readonly EndpointSlice[];
}

/**
 * validTrafficDistribution: whether the controller acts on this value. PreferClose always;
 * PreferSameZone and PreferSameNode only with the PreferSameTrafficDistribution gate on.
 */
export function validTrafficDistribution(value: string | undefined, preferSameTrafficDistribution: boolean): boolean {
  if (value === undefined) return false;
  if (value === TRAFFIC_DISTRIBUTION_PREFER_CLOSE) return true;
  return preferSameTrafficDistribution && (value === TRAFFIC_DISTRIBUTION_PREFER_SAME_ZONE || value === TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE);
}

/** Ready is the condition set to true; absent counts as not ready. */
export function endpointReady(ep: DiscoveryEndpoint): boolean {
  return ep.conditions?.ready === true;
}

interface Heuristic {
  needsUpdate(slice: EndpointSlice): boolean;
  update(slice: EndpointSlice): EndpointSlice;
}

function withoutHints(ep: DiscoveryEndpoint): DiscoveryEndpoint {
  if (ep.hints === undefined) return ep;
  const { hints: _dropped, ...rest } = ep;
  return rest;
}

/** Cluster-wide routing: no endpoint keeps a hint. */
const clusterWide: Heuristic = {
  needsUpdate: (slice) => (slice.endpoints ?? []).some((ep) => ep.hints !== undefined),
  update: (slice) => (slice.endpoints === undefined || slice.endpoints === null ? slice : { ...slice, endpoints: slice.endpoints.map(withoutHints) }),
};

/** PreferClose and PreferSameZone (zone hints), PreferSameNode (zone and node hints). */
function preferClose(nodeHints: boolean): Heuristic {
  const wrong = (ep: DiscoveryEndpoint): boolean => {
    const zones = ep.hints?.forZones ?? [];
    const nodes = ep.hints?.forNodes ?? [];
    if (ep.zone !== undefined) {
      if (ep.hints === undefined || zones.length !== 1 || zones[0]?.name !== ep.zone) return true;
    } else if (zones.length > 0) {
      return true;
    }
    if (ep.nodeName !== undefined && nodeHints) {
      if (ep.hints === undefined || nodes.length !== 1 || nodes[0]?.name !== ep.nodeName) return true;
    } else if (nodes.length > 0) {
      return true;
    }
    return false;
  };
  const hinted = (ep: DiscoveryEndpoint): DiscoveryEndpoint => {
    // Endpoints that are not ready keep whatever they have.
    if (!endpointReady(ep)) return ep;
    const forZones = ep.zone !== undefined ? [{ name: ep.zone }] : undefined;
    const forNodes = ep.nodeName !== undefined && nodeHints ? [{ name: ep.nodeName }] : undefined;
    if (forZones === undefined && forNodes === undefined) return withoutHints(ep);
    return { ...ep, hints: { ...(forZones === undefined ? {} : { forZones }), ...(forNodes === undefined ? {} : { forNodes }) } };
  };
  return {
    needsUpdate: (slice) => (slice.endpoints ?? []).some((ep) => endpointReady(ep) && wrong(ep)),
    update: (slice) => (slice.endpoints === undefined || slice.endpoints === null ? slice : { ...slice, endpoints: slice.endpoints.map(hinted) }),
  };
}

/**
 * ReconcileHints: the unchanged slices whose hints are missing or wrong move to the updates,
 * then every created and updated slice gets the hints `trafficDistribution` asks for (none for
 * an unknown value or none). The slices given are not changed.
 */
export function reconcileTrafficDistributionHints(trafficDistribution: string | undefined, slices: HintedSlices): HintedSlices {
  const h = trafficDistribution !== undefined && CLOSE_VALUES.includes(trafficDistribution) ? preferClose(trafficDistribution === TRAFFIC_DISTRIBUTION_PREFER_SAME_NODE) : clusterWide;
  const toUpdate = [...slices.toUpdate];
  const unchanged: EndpointSlice[] = [];
  for (const slice of slices.unchanged) {
    if (h.needsUpdate(slice)) toUpdate.push(slice);
    else unchanged.push(slice);
  }
  return { toCreate: slices.toCreate.map((s) => h.update(s)), toUpdate: toUpdate.map((s) => h.update(s)), unchanged };
}

// The choice of a service port's usable endpoints on one node: ready ones (falling back to
// serving and terminating ones), the Cluster ones narrowed by topology hints when every ready
// endpoint has hints and some are for this node (or its zone).
// upstream (v1.33): pkg/proxy/topology.go (CategorizeEndpoints, topologyModeFromHints,
// availableForTopology); pkg/features/kube_features.go (PreferSameTrafficDistribution: alpha
// in v1.33, off by default).

import { LABEL_TOPOLOGY_ZONE } from '@kubesvc/api-types';
import { compareStrings, type EndpointInfo } from './endpoints.js';
import { usesClusterEndpoints, usesLocalEndpoints, type ServicePortInfo } from './service-ports.js';

/** What of its node a proxier's endpoint choice reads. */
export interface NodeTopology {
  /** The node's name: what node hints name. */
  readonly nodeName: string;
  /** The node's `topology.kubernetes.io/zone` label; '' without one. */
  readonly zone: string;
  /** The PreferSameTrafficDistribution feature gate: node hints count only with it on. */
  readonly preferSameTrafficDistribution: boolean;
}

/** No node: no zone, the gate off (hints then never narrow anything but an endpoint hinted for zone ""). */
export const NO_TOPOLOGY: NodeTopology = { nodeName: '', zone: '', preferSameTrafficDistribution: false };

/** A node's topology from its name, its labels (of which the zone label is read) and the gate. */
export function nodeTopology(nodeName: string, topologyLabels: Readonly<Record<string, string>>, preferSameTrafficDistribution: boolean): NodeTopology {
  return { nodeName, zone: topologyLabels[LABEL_TOPOLOGY_ZONE] ?? '', preferSameTrafficDistribution };
}

/** The settings of a proxier config that nodeTopologyOf reads. */
export interface TopologySettings {
  readonly nodeName: string;
  readonly topologyLabels: Readonly<Record<string, string>>;
  readonly preferSameTrafficDistribution: boolean;
}

const topologyOfConfig = new WeakMap<TopologySettings, NodeTopology>();

/** nodeTopology of a proxier config, made once per config object (a sync asks once per service port). */
export function nodeTopologyOf(config: TopologySettings): NodeTopology {
  let topology = topologyOfConfig.get(config);
  if (topology === undefined) {
    topology = nodeTopology(config.nodeName, config.topologyLabels, config.preferSameTrafficDistribution);
    topologyOfConfig.set(config, topology);
  }
  return topology;
}

/** How the Cluster endpoints are narrowed: not at all (''), to this zone's, or to this node's. */
export type TopologyMode = '' | 'PreferSameZone' | 'PreferSameNode';

/**
 * PreferSameNode when the gate is on, every ready endpoint has node hints and one names this
 * node; else PreferSameZone when every ready endpoint has zone hints and one names this node's
 * zone; else '' (also when no endpoint is ready). A ready endpoint without hints decides it at
 * once, so that endpoints without hints cost one look.
 */
export function topologyModeFromHints(endpoints: readonly EndpointInfo[], topology: NodeTopology): TopologyMode {
  const gate = topology.preferSameTrafficDistribution;
  let hasReady = false;
  let allNodeHints = true;
  let forNode = false;
  let allZoneHints = true;
  let forZone = false;
  for (let i = 0; i < endpoints.length; i++) {
    const ep = endpoints[i] as EndpointInfo;
    if (!ep.ready) continue;
    hasReady = true;
    const hints = ep.hints;
    if (hints === undefined) return '';
    if (hints.nodes.length === 0) allNodeHints = false;
    else if (hints.nodes.includes(topology.nodeName)) forNode = true;
    if (hints.zones.length === 0) allZoneHints = false;
    else if (hints.zones.includes(topology.zone)) forZone = true;
    if (!allZoneHints && (!gate || !allNodeHints)) return '';
  }
  if (!hasReady) return '';
  if (gate && allNodeHints && forNode) return 'PreferSameNode';
  if (allZoneHints && forZone) return 'PreferSameZone';
  return '';
}

/** Whether the endpoint may be used from this node in the mode (no fallback here: the mode already chose). */
export function availableForTopology(ep: EndpointInfo, mode: TopologyMode, topology: NodeTopology): boolean {
  if (mode === '') return true;
  const hints = ep.hints;
  if (hints === undefined) return false;
  return mode === 'PreferSameNode' ? hints.nodes.includes(topology.nodeName) : hints.zones.includes(topology.zone);
}

export interface CategorizedEndpoints {
  readonly clusterEndpoints: readonly EndpointInfo[];
  readonly localEndpoints: readonly EndpointInfo[];
  readonly allReachableEndpoints: readonly EndpointInfo[];
  readonly hasAnyEndpoints: boolean;
}

/**
 * CategorizeEndpoints: ready endpoints, falling back to serving and terminating ones
 * (independently for Cluster and Local policy); the Cluster ones narrowed by topology
 * (topologyModeFromHints) as seen from `topology`'s node, the Local ones never. When topology
 * narrows or Local policy falls back, the reachable endpoints are the union of both lists.
 * Without `topology`: NO_TOPOLOGY.
 */
export function categorizeEndpoints(endpoints: readonly EndpointInfo[], svc: ServicePortInfo, topology: NodeTopology = NO_TOPOLOGY): CategorizedEndpoints {
  let clusterEndpoints: readonly EndpointInfo[] = [];
  let localEndpoints: EndpointInfo[] = [];
  let hasAnyEndpoints = false;
  let mode: TopologyMode = '';
  const useCluster = usesClusterEndpoints(svc);
  if (useCluster) {
    mode = topologyModeFromHints(endpoints, topology);
    if (mode === '') {
      // Usually every endpoint is ready: then the list itself, not a copy (once per service port).
      clusterEndpoints = endpoints.every((ep) => ep.ready) ? endpoints : endpoints.filter((ep) => ep.ready);
    } else {
      const narrowed = mode;
      clusterEndpoints = endpoints.filter((ep) => ep.ready && availableForTopology(ep, narrowed, topology));
    }
    // A mode other than '' was chosen only with a ready endpoint for it: this falls back only
    // when no endpoint is ready anywhere.
    if (clusterEndpoints.length === 0) clusterEndpoints = endpoints.filter((ep) => ep.serving && ep.terminating);
    if (clusterEndpoints.length > 0) hasAnyEndpoints = true;
  }
  if (!usesLocalEndpoints(svc)) {
    return { clusterEndpoints, localEndpoints, allReachableEndpoints: clusterEndpoints, hasAnyEndpoints };
  }
  let hasLocalReady = false;
  let hasLocalServingTerminating = false;
  for (const ep of endpoints) {
    if (ep.ready) {
      hasAnyEndpoints = true;
      if (ep.isLocal) hasLocalReady = true;
    } else if (ep.serving && ep.terminating) {
      hasAnyEndpoints = true;
      if (ep.isLocal) hasLocalServingTerminating = true;
    }
  }
  let useServingTerminating = false;
  if (hasLocalReady) {
    localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.ready);
  } else if (hasLocalServingTerminating) {
    useServingTerminating = true;
    localEndpoints = endpoints.filter((ep) => ep.isLocal && ep.serving && ep.terminating);
  }
  if (!useCluster) {
    return { clusterEndpoints, localEndpoints, allReachableEndpoints: localEndpoints, hasAnyEndpoints };
  }
  if (mode === '' && !useServingTerminating) {
    // Every ready endpoint is a Cluster one, and the Local ones are ready: a superset.
    return { clusterEndpoints, localEndpoints, allReachableEndpoints: clusterEndpoints, hasAnyEndpoints };
  }
  // Upstream merges the two lists through a Go map (random order); here by `ip:port`.
  const merged = new Map<string, EndpointInfo>();
  for (const ep of clusterEndpoints) merged.set(ep.hostPort, ep);
  for (const ep of localEndpoints) merged.set(ep.hostPort, ep);
  const allReachableEndpoints = [...merged.values()].sort((a, b) => compareStrings(a.hostPort, b.hostPort));
  return { clusterEndpoints, localEndpoints, allReachableEndpoints, hasAnyEndpoints };
}

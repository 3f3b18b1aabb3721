export type { ErrPortRange, ParsePortRangeResult, PortRange } from './port-range.js';
export { DEFAULT_NODE_PORT_RANGE, formatPortRange, parsePortRange, portRangeContains } from './port-range.js';
export type { ErrServiceNetworking, ServiceNetworking, ServiceNetworkingFlags, ServiceNetworkingResult } from './service-networking.js';
export {
  DEFAULT_CLUSTER_DOMAIN,
  DEFAULT_SERVICE_IP_CIDR,
  ERR_SERVICE_CIDRS_SAME_FAMILY,
  ERR_SERVICE_RANGE_TOO_SMALL,
  ERR_TOO_MANY_SERVICE_CIDRS,
  parseServiceNetworking,
  serviceIPOfRange,
  serviceNetworkingEquals,
  serviceNetworkingFlags,
} from './service-networking.js';
export type { ServiceCIDRLike } from './service-cidr-match.js';
export {
  ipAddressOfName,
  prefixContainsIP,
  serviceCIDRPrefix,
  serviceCIDRsContainingIP,
  serviceCIDRsContainingPrefix,
  serviceCIDRsOverlappingPrefix,
} from './service-cidr-match.js';
export type { ClusterIPAllocation, ClusterIPAllocator } from './cluster-ip-allocation.js';
export { BITMAP_CLUSTER_IP_ALLOCATION, DEFAULT_CLUSTER_IP_ALLOCATION } from './cluster-ip-allocation.js';
export type {
  ClusterIPFeatureGate,
  ModelledFeatureGate,
  ClusterIPFeatureGates,
  ClusterIPFeatureGatesResult,
  ErrFeatureGates,
  ErrFeatureGatePair,
  FeatureGateFlags,
} from './feature-gates.js';
export { DEFAULT_KUBE_EMULATION_VERSION, MIN_KUBE_EMULATION_VERSION, parseClusterIPFeatureGates, readFeatureGatePairs, UNMODELLED_GATE_NOTE } from './feature-gates.js';

export {
  canonicalCIDRText,
  canonicalIPText,
  cidrArb,
  ipArb,
  ipInCidrArb,
  ipOutsideCidrArb,
  ipSpellingArb,
  ipv4Arb,
  ipv6Arb,
  portArb,
  portRangeArb,
} from './net.js';
export type { CidrArbOptions, IPSpelling, OutsideOptions, PortRangeSample, SpellingOptions } from './net.js';
export {
  dns1035LabelArb,
  dns1123LabelArb,
  dns1123SubdomainArb,
  ianaSvcNameArb,
  labelKeyArb,
  labelsArb,
  labelValueArb,
} from './names.js';
export {
  endpointSliceArb,
  endpointsArb,
  eventArb,
  ipAddressArb,
  kubeObjectArb,
  namespaceArb,
  objectMetaArb,
  podArb,
  podIPv4Arb,
  podIPv6Arb,
  publicIPArb,
  rangeAllocationArb,
  serviceArb,
  serviceCIDRArb,
  serviceIPv4Arb,
  serviceIPv6Arb,
  statusArb,
} from './objects.js';
export { endpointsMutantArb, kubeObjectMutantArb, otherMutantArb, serviceMutantArb } from './mutants.js';
export type { Mutant } from './mutants.js';
export { shapeMutantArb } from './shape-mutants.js';
export {
  apiBodyArb,
  apiContentTypeArb,
  apiQueryArb,
  copyChainPatch,
  describeRequest,
  FUZZ_NODE_NAME,
  FUZZ_NODE_PORT_RANGE,
  FUZZ_POD_NAMES,
  FUZZ_SEEDED_NAMESPACES,
  FUZZ_SERVICE_CIDR,
  FUZZ_SERVICE_NAMES,
  FUZZ_USER_NAMESPACES,
  fuzzWorld,
  hostileRequestArb,
  IMMORTAL_NAMESPACES,
  nestedJson,
  sampleHostileRequests,
  upstreamAuthentication,
} from './api-requests.js';
export type { FuzzWorld, HostileRequest, HostileRequestOptions, RequestFamily } from './api-requests.js';
export { proxierClusterArb } from './proxier-cluster.js';
export type { ProxierCluster } from './proxier-cluster.js';

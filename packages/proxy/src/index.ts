// Public API of @kubesvc/proxy: what every proxier backend shares (upstream's pkg/proxy).
// Service ports (pkg/proxy/serviceport.go).
export type { L4Protocol, ServicePortInfo } from './service-ports.js';
export {
  canonicalIPv4Value,
  isCanonicalIPv4,
  isExternallyAccessible,
  isPortNumber,
  lowerProtocol,
  servicePortInfos,
  usesClusterEndpoints,
  usesLocalEndpoints,
} from './service-ports.js';
// Endpoints from EndpointSlices (pkg/proxy/endpointslicecache.go, endpoint.go, topology.go).
export type { EndpointHints, SlicesByService } from './endpoints.js';
export {
  EndpointInfo,
  checkUnexamined,
  compareHostPorts,
  compareStrings,
  endpointInfo,
  endpointsMap,
  hostPortLength,
  readEndpointHints,
  sameHints,
  sameHostPort,
  servicePortEndpointBound,
  servicePortEndpoints,
  servicePortKey,
  serviceSlices,
  slicesByService,
} from './endpoints.js';
// The choice of usable endpoints on a node, topology hints included (pkg/proxy/topology.go).
export type { CategorizedEndpoints, NodeTopology, TopologyMode, TopologySettings } from './topology.js';
export { NO_TOPOLOGY, availableForTopology, categorizeEndpoints, nodeTopology, nodeTopologyOf, topologyModeFromHints } from './topology.js';
// Change tracking (pkg/proxy/servicechangetracker.go, endpointschangetracker.go).
export type { Candidate, Matched, StoreIndexes, TrackedEntry, TrackedState } from './changes.js';
export {
  EMPTY_SLICES,
  compareServices,
  matchByKey,
  matchByEdits,
  matchByPosition,
  mostEndpoints,
  objectKey,
  sameEndpoints,
  sameObjects,
  sameServicePortInfo,
  sliceId,
} from './changes.js';
export { flat } from './flat.js';
export { TextBytesBuffer } from './text-bytes-buffer.js';
// The chain-name hash (SHA-256, FIPS 180-4, in Go's base32.StdEncoding): the iptables proxier's
// 16 characters, the nftables proxier's 8, specialised for short ASCII text.
export { sha256, sha256Base32Prefix16, sha256Base32Prefix8, utf8 } from './hash/sha256.js';
export { shortPrefixedHash9 } from './hash/short-hash.js';
// The settings every backend's proxier takes: their checks (in the caller's order) and defaults.
export type { CommonProxierConfig, CommonProxierConfigOptions, LocalDetector, NodeIPRule, NodeSettings, ProxierOptionsInput } from './proxier-config.js';
export {
  CIDR_DETAIL,
  DEFAULT_MASQUERADE_BIT,
  checkBooleanSetting,
  checkNodePortAddresses,
  checkNodeSettings,
  cidrFamily,
  commonProxierConfig,
  defaultNodeIP,
  goHexMark,
  isStringArray,
  proxierOptionsInput,
} from './proxier-config.js';
// --nodeport-addresses (pkg/proxy/util/nodeport_addresses.go).
export type { NodePortAddresses, ZeroCIDRRule } from './node-port-addresses.js';
export { nodePortAddresses, nodePortAddressesContainIPv4Loopback, nodePortIPs } from './node-port-addresses.js';
// A tracer's input: the packet, its options, their shape check, and exact probabilities.
export type { ConntrackState, ErrTrace, IcmpPacket, Packet, PacketEntry, PacketProtocol, PortPacket, RecentEntry, TraceOptions } from './trace/packet.js';
export { checkFamily, checkOptions, checkPacket, describe as describeTraceInput, refuse as refuseTraceInput } from './trace/packet-input.js';
export { parseAddress, parseIPv4, parseIPv6 } from './trace/address.js';
export type { Rational, Weight } from './trace/rational.js';
export {
  ONE as RATIONAL_ONE,
  UNIT as UNIT_WEIGHT,
  ZERO as RATIONAL_ZERO,
  add as addRational,
  compare as compareRational,
  distance as rationalDistance,
  equals as rationalEquals,
  formatRational,
  parseDecimal as parseDecimalRational,
  reduce as reduceRational,
  scaleWeight,
  toFixed as rationalToFixed,
  weightValue,
} from './trace/rational.js';
// The start of a trace's text and its probability lines, shared by the backends' explain.
export { packetDestinationText, packetHeadline, probabilityLine } from './trace/headline.js';
// The persistent list the tracers fork their runs on.
export type { Cons } from './trace/cons.js';
export { consToArray } from './trace/cons.js';

// Services as a proxier sees them: one entry per service port of the proxier's family, with
// its addresses filtered and normalised. Every backend reads the same entries; what a backend
// adds (the iptables proxier: its chain names) rides in `chains`, set when the entry is made,
// so a backend still makes one object per service port.
// upstream: pkg/proxy/serviceport.go (newBaseServiceInfo, BaseServicePortInfo),
// pkg/proxy/servicechangetracker.go (serviceToServiceMap), pkg/proxy/util/utils.go
// (ShouldSkipService, GetClusterIPByFamily, MapIPsByIPFamily, MapCIDRsByIPFamily),
// pkg/api/v1/service/util.go (ExternallyAccessible, ExternalPolicyLocal, InternalPolicyLocal,
// NeedsHealthCheck), pkg/proxy/serviceport.go (UsesClusterEndpoints, UsesLocalEndpoints).

import {
  DEFAULT_CLIENT_IP_TIMEOUT_SECONDS,
  formatCIDR,
  formatIP,
  isServiceIPSet,
  needsHealthCheck,
  parseCIDRSloppy,
  parseIPSloppy,
  servicePortNameString,
  type Service,
} from '@kubesvc/api-types';
import { flat } from './flat.js';

/** A service port's protocol as iptables and nftables spell it (and the tracer's packets carry). */
export type L4Protocol = 'tcp' | 'udp' | 'sctp';

/**
 * One service port (BaseServicePortInfo). `C` is what the backend attaches to it when it is made
 * (servicePortInfos' `decorate`): the iptables proxier's chain names, or nothing.
 */
export interface ServicePortInfo<C = unknown> {
  readonly namespace: string;
  readonly name: string;
  /** The service port's name ("" when unnamed). */
  readonly portName: string;
  /** ServicePortName.String(): `ns/name:port`, or `ns/name` for an unnamed port. */
  readonly nameString: string;
  readonly protocol: L4Protocol;
  readonly clusterIP: string;
  readonly port: number;
  /** 0 when none. */
  readonly nodePort: number;
  readonly externalIPs: readonly string[];
  readonly loadBalancerVIPs: readonly string[];
  readonly loadBalancerSourceRanges: readonly string[];
  /** 0 when none (only LoadBalancer services with externalTrafficPolicy Local have one). */
  readonly healthCheckNodePort: number;
  readonly clientIPAffinity: boolean;
  readonly stickyMaxAgeSeconds: number;
  readonly externalPolicyLocal: boolean;
  readonly internalPolicyLocal: boolean;
  /** What the backend attached (servicePortInfos' `decorate`); the iptables proxier: its chain names. */
  readonly chains: C;
}

export function isExternallyAccessible(info: ServicePortInfo): boolean {
  return info.nodePort !== 0 || info.loadBalancerVIPs.length > 0 || info.externalIPs.length > 0;
}

/**
 * Cluster-policy endpoints are needed for Cluster internal policy, and for any externally
 * accessible port, even with Local external policy: the short-circuit rules for pod and
 * node traffic jump to KUBE-SVC.
 */
export function usesClusterEndpoints(info: ServicePortInfo): boolean {
  return !info.internalPolicyLocal || isExternallyAccessible(info);
}

export function usesLocalEndpoints(info: ServicePortInfo): boolean {
  return info.internalPolicyLocal || (info.externalPolicyLocal && isExternallyAccessible(info));
}

/** An integer in 1..65535. */
export function isPortNumber(port: unknown): port is number {
  return typeof port === 'number' && Number.isInteger(port) && port >= 1 && port <= 65535;
}

/** A Service or EndpointSlice port's protocol (TCP when unset) as iptables spells it; undefined for one kube-proxy does not program. */
export function lowerProtocol(protocol: string | undefined): L4Protocol | undefined {
  switch (protocol ?? 'TCP') {
    case 'TCP':
      return 'tcp';
    case 'UDP':
      return 'udp';
    case 'SCTP':
      return 'sctp';
    default:
      return undefined;
  }
}

/**
 * Whether `text` is a dotted quad as Go prints it (no leading zeros, each part ≤ 255): then
 * net.ParseIPSloppy(text).String() is `text` itself and the general parser can be skipped.
 * A scan, not a regular expression: it runs once per endpoint.
 */
export function isCanonicalIPv4(text: string): boolean {
  return canonicalIPv4Value(text) >= 0;
}

/** The 32-bit value of `text` if it is a dotted quad as Go prints it (see isCanonicalIPv4), else -1. */
export function canonicalIPv4Value(text: string): number {
  const n = text.length;
  if (n < 7 || n > 15) return -1;
  let parts = 0;
  let address = 0;
  let i = 0;
  while (i < n) {
    const start = i;
    let value = 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c < 48 || c > 57) break;
      value = value * 10 + (c - 48);
      i++;
    }
    const digits = i - start;
    if (digits === 0 || digits > 3 || value > 255 || (digits > 1 && text.charCodeAt(start) === 48)) return -1;
    parts++;
    address = address * 256 + value;
    if (i === n) break;
    if (text.charCodeAt(i) !== 46 || parts === 4) return -1;
    i++;
    if (i === n) return -1;
  }
  return parts === 4 ? address : -1;
}

function clusterIPForFamily(service: Service, family: 4 | 6): string | undefined {
  const spec = service.spec ?? {};
  const candidates = spec.clusterIPs !== undefined && spec.clusterIPs.length > 0 ? spec.clusterIPs : [spec.clusterIP ?? ''];
  for (const text of candidates) {
    if (isCanonicalIPv4(text)) {
      if (family === 4) return text;
      continue;
    }
    const parsed = parseIPSloppy(text);
    if (parsed.ok && parsed.value.family === family) return formatIP(parsed.value);
  }
  return undefined;
}

/**
 * Shared by the service ports without such addresses (most of them): a large sync keeps a
 * service port per Service, and three empty arrays each would be most of its objects.
 */
const NONE: readonly never[] = [];

/** servicePortInfos' `decorate` for a caller that attaches nothing. */
function noChains(): undefined {
  return undefined;
}

function ipsOfFamily(texts: readonly string[], family: 4 | 6): readonly string[] {
  if (texts.length === 0) return NONE;
  const out: string[] = [];
  for (const text of texts) {
    const parsed = parseIPSloppy(text.trim());
    if (parsed.ok && parsed.value.family === family) out.push(formatIP(parsed.value));
  }
  return out;
}

function cidrsOfFamily(texts: readonly string[], family: 4 | 6): readonly string[] {
  if (texts.length === 0) return NONE;
  const out: string[] = [];
  for (const text of texts) {
    const parsed = parseCIDRSloppy(text.trim());
    if (parsed.ok && parsed.value.cidr.network.family === family) out.push(formatCIDR(parsed.value.cidr));
  }
  return out;
}

/**
 * The service ports of one Service for a proxier of `family`: none for a headless or
 * ExternalName service, or one without a cluster IP of that family. `decorate` gives each its
 * `chains` from its ServicePortName.String() and protocol; without it, `chains` is undefined.
 */
export function servicePortInfos(service: Service, family: 4 | 6): ServicePortInfo<undefined>[];
export function servicePortInfos<C>(
  service: Service,
  family: 4 | 6,
  decorate: (servicePortName: string, protocol: L4Protocol) => C,
): ServicePortInfo<C>[];
export function servicePortInfos<C>(
  service: Service,
  family: 4 | 6,
  decorate: (servicePortName: string, protocol: L4Protocol) => C | undefined = noChains,
): ServicePortInfo<C | undefined>[] {
  const spec = service.spec ?? {};
  const type = spec.type ?? 'ClusterIP';
  if (type === 'ExternalName') return [];
  if (!isServiceIPSet(spec)) return [];
  const clusterIP = clusterIPForFamily(service, family);
  if (clusterIP === undefined) return [];

  const namespace = service.metadata.namespace ?? 'default';
  const name = service.metadata.name ?? '';
  const externallyAccessibleType =
    type === 'LoadBalancer' || type === 'NodePort' || (type === 'ClusterIP' && (spec.externalIPs ?? []).length > 0);
  const externalPolicyLocal = externallyAccessibleType && spec.externalTrafficPolicy === 'Local';
  const internalPolicyLocal = spec.internalTrafficPolicy === 'Local';
  const clientIPAffinity = spec.sessionAffinity === 'ClientIP';
  const stickyMaxAgeSeconds = clientIPAffinity
    ? (spec.sessionAffinityConfig?.clientIP?.timeoutSeconds ?? DEFAULT_CLIENT_IP_TIMEOUT_SECONDS)
    : 0;
  const externalIPs = ipsOfFamily(spec.externalIPs ?? [], family);
  const ingress = service.status?.loadBalancer?.ingress ?? NONE;
  const loadBalancerVIPs =
    ingress.length === 0
      ? NONE
      : ipsOfFamily(
          ingress
            // Proxy-mode load balancers forward to the nodes; their IPs are not captured.
            .filter((ingress) => ingress.ip !== undefined && ingress.ip !== '' && ingress.ipMode !== 'Proxy')
            .map((ingress) => ingress.ip ?? ''),
          family,
        );
  const loadBalancerSourceRanges = cidrsOfFamily(spec.loadBalancerSourceRanges ?? [], family);
  const healthCheckNodePort = needsHealthCheck(spec) ? (spec.healthCheckNodePort ?? 0) : 0;

  const out: ServicePortInfo<C | undefined>[] = [];
  for (const port of spec.ports ?? []) {
    const protocol = lowerProtocol(port.protocol);
    if (protocol === undefined) continue;
    // A port number iptables cannot take is skipped (and reported by generateRules' diagnostics).
    if (!isPortNumber(port.port)) continue;
    if (port.nodePort !== undefined && port.nodePort !== 0 && !isPortNumber(port.nodePort)) continue;
    const portName = port.name ?? '';
    // Flat: it is printed into most lines of the service port.
    const nameString = flat(servicePortNameString({ namespace, name, port: portName }));
    out.push({
      namespace,
      name,
      portName,
      nameString,
      protocol,
      clusterIP,
      port: port.port,
      nodePort: port.nodePort ?? 0,
      externalIPs,
      loadBalancerVIPs,
      loadBalancerSourceRanges,
      healthCheckNodePort,
      clientIPAffinity,
      stickyMaxAgeSeconds,
      externalPolicyLocal,
      internalPolicyLocal,
      chains: decorate(nameString, protocol),
    });
  }
  return out;
}

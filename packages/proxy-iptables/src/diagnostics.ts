// What generateRules leaves out of the rules because the input is malformed, reported instead
// of dropped without a word. kube-proxy meets these inputs rarely (the apiserver's validation
// refuses most of them), and where it meets them it logs and skips; it never fails the sync:
// upstream: pkg/proxy/endpointslicecache.go (updatePending: "Error getting endpoint slice
// cache keys" for a slice without the service-name label; addEndpoints skips a port without
// a number and an endpoint without an address), pkg/proxy/servicechangetracker.go
// (serviceToServiceMap: no cluster IP of the family, no service ports), pkg/proxy/serviceport.go
// (newBaseServiceInfo: externalIPs, LB ingress IPs and source ranges are filtered through
// MapIPsByIPFamily / MapCIDRsByIPFamily, which drop what does not parse).
//
// Skips by design (a headless or ExternalName Service, a cluster IP or slice of the other
// family, an FQDN slice) are not reported: they are not errors.

import { CLUSTER_IP_NONE, parseCIDRSloppy, parseIPSloppy, type EndpointSlice, type Service } from '@kubesvc/api-types';
import { isCanonicalIPv4, isPortNumber, lowerProtocol } from '@kubesvc/proxy';

/** One input object, or part of it, that the rules leave out, and why. */
export interface RuleDiagnostic {
  /** The object: `Service` or `EndpointSlice`, with its namespace and name. */
  readonly object: { readonly kind: 'Service' | 'EndpointSlice'; readonly namespace: string; readonly name: string };
  /** The field that is wrong, as a field path (`spec.clusterIP`, `endpoints[2].addresses[0]`). */
  readonly field: string;
  /** The offending value, as given. */
  readonly value: unknown;
  /** What is wrong and what was left out. */
  readonly reason: string;
}

const validPort = isPortNumber;

function parsesAsIP(text: unknown): boolean {
  return typeof text === 'string' && (isCanonicalIPv4(text) || parseIPSloppy(text).ok);
}

/** The malformed parts of the Services (whatever their family): what servicePortInfos drops. */
export function serviceDiagnostics(services: readonly Service[]): RuleDiagnostic[] {
  const out: RuleDiagnostic[] = [];
  // Plain loops, nothing allocated for a well-formed Service: a large cluster has tens of thousands.
  for (const service of services) {
    const spec = service.spec ?? {};
    const type = spec.type ?? 'ClusterIP';
    if (type === 'ExternalName') continue;
    const clusterIP = spec.clusterIP ?? '';
    if (clusterIP === '' || clusterIP === CLUSTER_IP_NONE) continue;
    const explicit = spec.clusterIPs !== undefined && spec.clusterIPs.length > 0;
    const clusterIPs = explicit ? (spec.clusterIPs as readonly string[]) : undefined;
    const count = clusterIPs === undefined ? 1 : clusterIPs.length;
    for (let i = 0; i < count; i++) {
      const ip = clusterIPs === undefined ? clusterIP : clusterIPs[i];
      if (!parsesAsIP(ip)) {
        report(out, service, explicit ? `spec.clusterIPs[${i}]` : 'spec.clusterIP', ip, 'not a valid IP address; no rules are written for this cluster IP');
      }
    }
    const ports = spec.ports ?? [];
    for (let i = 0; i < ports.length; i++) {
      const port = ports[i] as (typeof ports)[number];
      if (lowerProtocol(port.protocol) === undefined) {
        report(out, service, `spec.ports[${i}].protocol`, port.protocol, 'unsupported protocol (kube-proxy programs TCP, UDP and SCTP); the port is skipped');
      }
      if (!validPort(port.port)) report(out, service, `spec.ports[${i}].port`, port.port, 'not a port number in 1..65535; the port is skipped');
      if (port.nodePort !== undefined && port.nodePort !== 0 && !validPort(port.nodePort)) {
        report(out, service, `spec.ports[${i}].nodePort`, port.nodePort, 'not a port number in 1..65535; the port is skipped');
      }
    }
    const externalIPs = spec.externalIPs ?? [];
    for (let i = 0; i < externalIPs.length; i++) {
      const ip = externalIPs[i] as string;
      if (!parsesAsIP(ip.trim())) report(out, service, `spec.externalIPs[${i}]`, ip, 'not a valid IP address; left out');
    }
    const ranges = spec.loadBalancerSourceRanges ?? [];
    for (let i = 0; i < ranges.length; i++) {
      const cidr = ranges[i] as string;
      if (!parseCIDRSloppy(cidr.trim()).ok) report(out, service, `spec.loadBalancerSourceRanges[${i}]`, cidr, 'not a valid CIDR; left out');
    }
    const ingress = service.status?.loadBalancer?.ingress ?? [];
    for (let i = 0; i < ingress.length; i++) {
      const ip = (ingress[i] as (typeof ingress)[number]).ip;
      if (ip !== undefined && ip !== '' && !parsesAsIP(ip.trim())) {
        report(out, service, `status.loadBalancer.ingress[${i}].ip`, ip, 'not a valid IP address; left out');
      }
    }
  }
  return out;
}

function report(out: RuleDiagnostic[], service: Service, field: string, value: unknown, reason: string): void {
  const object = { kind: 'Service', namespace: service.metadata.namespace ?? 'default', name: service.metadata.name ?? '' } as const;
  out.push({ object, field, value, reason });
}

/** The malformed parts of the EndpointSlices of `addressType` (IPv4 or IPv6): what endpointsMap drops. */
export function endpointSliceDiagnostics(slices: readonly EndpointSlice[], family: 4 | 6): RuleDiagnostic[] {
  const out: RuleDiagnostic[] = [];
  const addressType = family === 4 ? 'IPv4' : 'IPv6';
  for (const slice of slices) {
    if (slice.addressType !== addressType) continue;
    const object = { kind: 'EndpointSlice', namespace: slice.metadata.namespace ?? 'default', name: slice.metadata.name ?? '' } as const;
    const report = (field: string, value: unknown, reason: string): void => {
      out.push({ object, field, value, reason });
    };
    const serviceName = slice.metadata.labels?.['kubernetes.io/service-name'];
    if (serviceName === undefined || serviceName === '') {
      // upstream: endpointslicecache.go endpointSliceCacheKeys, "no kubernetes.io/service-name label set on endpoint slice".
      report('metadata.labels["kubernetes.io/service-name"]', serviceName, 'no kubernetes.io/service-name label set on endpoint slice; the slice is ignored');
      continue;
    }
    (slice.ports ?? []).forEach((port, i) => {
      if (port.port === undefined || port.port === 0) {
        report(`ports[${i}].port`, port.port, 'no port number; the port is ignored');
      } else if (!validPort(port.port)) {
        // upstream skips only a missing port; this one is kept as given (iptables-restore then refuses its DNAT rule).
        report(`ports[${i}].port`, port.port, 'not a port number in 1..65535; kept as given, but iptables-restore will refuse the DNAT rule');
      }
      if (lowerProtocol(port.protocol) === undefined) {
        report(`ports[${i}].protocol`, port.protocol, 'unsupported protocol (kube-proxy programs TCP, UDP and SCTP); the port is ignored');
      }
    });
    (slice.endpoints ?? []).forEach((endpoint, j) => {
      const address = endpoint.addresses[0];
      if (address === undefined) report(`endpoints[${j}].addresses`, endpoint.addresses, 'no address; the endpoint is ignored');
      else if (!parsesAsIP(address)) report(`endpoints[${j}].addresses[0]`, address, `not a valid ${addressType} address; the endpoint is ignored`);
    });
  }
  return out;
}

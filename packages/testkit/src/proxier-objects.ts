// The Services and EndpointSlices of upstream's proxier tests, for the tests of every proxy
// backend and of the shared model (upstream: pkg/proxy/iptables/proxier_test.go
// makeTestService, makeTestEndpointSlice).
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice, Service, ServiceSpec, ServiceStatus } from '@kubesvc/api-types';

/** A v1 Service `namespace/name` with this spec and status. */
export function makeService(namespace: string, name: string, spec: ServiceSpec, status: ServiceStatus = {}): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace, name }, spec, status };
}

/** Slice `<service>-<sliceNumber>` of `service`, labelled with its name. */
export function makeSlice(
  namespace: string,
  service: string,
  sliceNumber: number,
  addressType: 'IPv4' | 'IPv6',
  endpoints: DiscoveryEndpoint[],
  ports: DiscoveryEndpointPort[],
): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      namespace,
      name: `${service}-${sliceNumber}`,
      labels: { 'kubernetes.io/service-name': service },
    },
    addressType,
    endpoints,
    ports,
  };
}

/** An endpoint at `ip` on `node` in `zone`, hinted for that zone and that node, as the EndpointSlice controller writes PreferSameNode's hints. */
export function hintedEndpoint(ip: string, zone: string, node: string): DiscoveryEndpoint {
  return { addresses: [ip], nodeName: node, zone, hints: { forZones: [{ name: zone }], forNodes: [{ name: node }] } };
}

/**
 * The topology tests' cluster, one for every backend: Service ns1/web (172.30.0.10, port p80)
 * with two endpoints in zone-a (on node-a and node-a2) and one in zone-b (on node-b), each
 * hinted for its own zone and node.
 */
export function hintedZoneCluster(): { services: Service[]; slices: EndpointSlice[] } {
  const port = { name: 'p80', port: 80, protocol: 'TCP' as const };
  return {
    services: [makeService('ns1', 'web', { clusterIP: '172.30.0.10', ports: [port] })],
    slices: [
      makeSlice('ns1', 'web', 1, 'IPv4', [hintedEndpoint('10.0.1.1', 'zone-a', 'node-a'), hintedEndpoint('10.0.1.2', 'zone-a', 'node-a2'), hintedEndpoint('10.0.2.1', 'zone-b', 'node-b')], [port]),
    ],
  };
}

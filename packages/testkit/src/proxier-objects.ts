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

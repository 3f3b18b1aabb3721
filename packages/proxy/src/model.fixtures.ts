// Services and EndpointSlices for the model's tests, as upstream's proxier tests make them
// (pkg/proxy/iptables/proxier_test.go makeTestService, makeTestEndpointSlice).
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice, Service, ServiceSpec, ServiceStatus } from '@kubesvc/api-types';

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

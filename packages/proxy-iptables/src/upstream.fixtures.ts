// Builders for the Services, EndpointSlices and proxier settings of upstream's iptables
// proxier tests (upstream: pkg/proxy/iptables/proxier_test.go, NewFakeProxier,
// makeTestService, makeTestEndpointSlice). Test-only: excluded from the library build.
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice, Service, ServiceSpec, ServiceStatus } from '@kubesvc/api-types';
import { proxierConfig, type ProxierConfig, type ProxierConfigOptions } from './proxier-config.js';

export const TEST_NODE_NAME = 'test-node';
/** NewFakeProxier's network interfaces: lo, then eth0. */
export const FAKE_INTERFACE_ADDRESSES = [
  '127.0.0.1',
  '::1',
  '192.168.0.2',
  '192.168.1.2',
  '192.168.99.11',
  '2001:db8::1',
  '2001:db8:1::2',
];

/** NewFakeProxier: pod CIDR detector, mark 0x4000, localhost NodePorts and nfacct counters on. */
export function fakeProxierConfig(overrides: Partial<ProxierConfigOptions> = {}): ProxierConfig {
  const family = overrides.family ?? 4;
  return proxierConfig({
    nodeName: TEST_NODE_NAME,
    nodeIPs: FAKE_INTERFACE_ADDRESSES,
    // The fake keeps the IPv4 node IP even for an IPv6 proxier.
    nodeIP: '192.168.0.2',
    family,
    localDetector: { kind: 'cidr', cidr: family === 4 ? '10.0.0.0/8' : 'fd00:10::/64' },
    masqueradeMark: '0x4000',
    localhostNodePorts: true,
    nfacctCounters: true,
    ...overrides,
  });
}

export function makeService(
  namespace: string,
  name: string,
  spec: ServiceSpec,
  status: ServiceStatus = {},
): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace, name }, spec, status };
}

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

/** A single-port slice: each address an endpoint (ready unless the conditions say otherwise). */
export function simpleSlice(
  namespace: string,
  service: string,
  port: DiscoveryEndpointPort,
  endpoints: DiscoveryEndpoint[],
  addressType: 'IPv4' | 'IPv6' = 'IPv4',
): EndpointSlice {
  return makeSlice(namespace, service, 1, addressType, endpoints, [port]);
}

export const tcp80 = (name = 'p80'): DiscoveryEndpointPort => ({ name, port: 80, protocol: 'TCP' });

/** dedent.Dedent of a template: drop the common leading indentation and the first newline. */
export function dedent(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0);
  const cut = Math.min(...indents);
  return lines.map((l) => l.slice(cut)).join('\n').replace(/[ \t]+$/, '');
}

// Builders for the Services, EndpointSlices and proxier settings of upstream's iptables
// proxier tests (upstream: pkg/proxy/iptables/proxier_test.go, NewFakeProxier,
// makeTestService, makeTestEndpointSlice). Test-only: excluded from the library build.
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice } from '@kubesvc/api-types';
import { makeService, makeSlice } from '@kubesvc/testkit';
import { type ProxierConfig, type ProxierConfigOptions } from './proxier-config.js';
import { validConfig } from './proxier-config.fixtures.js';

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
  return validConfig({
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

export { makeService, makeSlice };

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

const p80 = { name: 'p80', port: 80, protocol: 'TCP' as const };

/** The cluster of upstream's TestOverallIPTablesRules and TestTracePacket (pkg/proxy/iptables/proxier_test.go). */
export const overallServices = [
  makeService('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: [p80] }),
  makeService(
    'ns2',
    'svc2',
    {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Local',
      clusterIP: '172.30.0.42',
      ports: [{ ...p80, nodePort: 3001 }],
      externalIPs: ['192.168.99.22'],
      healthCheckNodePort: 30000,
    },
    { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
  ),
  makeService('ns3', 'svc3', { type: 'NodePort', clusterIP: '172.30.0.43', ports: [{ ...p80, nodePort: 3003 }] }),
  makeService('ns4', 'svc4', {
    type: 'NodePort',
    clusterIP: '172.30.0.44',
    externalIPs: ['192.168.99.33'],
    ports: [{ ...p80, targetPort: 80 }],
  }),
  makeService(
    'ns5',
    'svc5',
    {
      type: 'LoadBalancer',
      externalTrafficPolicy: 'Cluster',
      clusterIP: '172.30.0.45',
      ports: [{ ...p80, nodePort: 3002 }],
      healthCheckNodePort: 30000,
      // Extra whitespace must be tolerated.
      loadBalancerSourceRanges: [' 203.0.113.0/25'],
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } },
    },
    { loadBalancer: { ingress: [{ ip: '5.6.7.8' }] } },
  ),
  makeService('ns6', 'svc6', { type: 'ClusterIP', clusterIP: '172.30.0.46', ports: [{ ...p80, targetPort: 80 }] }),
];

export const overallSlices = [
  simpleSlice('ns1', 'svc1', tcp80(), [{ addresses: ['10.180.0.1'] }]),
  // No nodeName: not local, so ns2/svc2 has no local endpoints.
  simpleSlice('ns2', 'svc2', tcp80(), [{ addresses: ['10.180.0.2'] }]),
  simpleSlice('ns3', 'svc3', tcp80(), [{ addresses: ['10.180.0.3'] }]),
  simpleSlice('ns4', 'svc4', tcp80(), [{ addresses: ['10.180.0.4'] }, { addresses: ['10.180.0.5'], nodeName: TEST_NODE_NAME }]),
  simpleSlice('ns5', 'svc5', tcp80(), [{ addresses: ['10.180.0.3'] }]),
];

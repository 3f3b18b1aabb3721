// upstream's per-feature nftables proxier tests (pkg/proxy/nftables/proxier_test.go): a sync of
// their services and slices with NewFakeProxier's settings, then their packets traced through
// the table as their helpers_test.go tracer traces them, each with the endpoints reached (or
// DROP / REJECT) and the masquerade mark they expect.
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice, Service, ServicePort } from '@kubesvc/api-types';
import type { Packet, PacketEntry } from '@kubesvc/proxy';
import { makeService, makeSlice } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import type { NftablesProxierConfigOptions } from '../config.js';
import { applyTransaction } from '../model/apply.js';
import type { NftTable } from '../model/types.js';
import { generateNftablesRules } from './generate.js';
import { INITIAL_NFTABLES_SYNC_STATE, syncNftables } from './sync.js';
import { tracePacket as modelTracePacket } from '../trace/trace-packet.js';
import { TEST_EXTERNAL_CLIENT as EXTERNAL, TEST_EXTERNAL_CLIENT_BLOCKED as BLOCKED, TEST_NODE_IPS, tracePacket, type PacketFlowTest } from './packet-flow.fixtures.js';
import { fakeNftablesConfig, TEST_NODE_IP, TEST_NODE_NAME } from './upstream.fixtures.js';

function synced(services: readonly Service[], slices: readonly EndpointSlice[], overrides: Partial<NftablesProxierConfigOptions> = {}): NftTable {
  const result = generateNftablesRules(services, slices, fakeNftablesConfig(overrides));
  const applied = applyTransaction(undefined, result.transaction);
  if (!applied.ok || applied.value === undefined) throw new Error('the sync did not apply');
  return applied.value;
}

/**
 * The package's own tracer on the same packet: a packet from a node address enters as one the
 * node routes, a 10.x / fd00:10: source as a pod's, any other from outside (upstream's tracer
 * sends them all through prerouting). Its outcomes in upstream's words: the DNAT destinations,
 * DROP or REJECT, and whether every outcome is marked for masquerading.
 */
function modelTrace(table: NftTable, test: PacketFlowTest): { output: string; masq: boolean } {
  const entry: PacketEntry = TEST_NODE_IPS.includes(test.sourceIP)
    ? 'node'
    : test.sourceIP.startsWith('10.') || test.sourceIP.startsWith('fd00:10:')
      ? 'pod'
      : 'outside';
  const packet: Packet = { source: test.sourceIP, destination: test.destIP, protocol: test.protocol ?? 'tcp', destinationPort: test.destPort, entry };
  const result = modelTracePacket(table, packet, { localAddresses: TEST_NODE_IPS });
  if (!result.ok) throw new Error(result.error.message);
  const outputs: string[] = [];
  for (const o of result.value.outcomes) {
    if (o.kind === 'drop') outputs.push('DROP');
    else if (o.kind === 'reject') outputs.push('REJECT');
    else if (o.kind === 'dnat' && o.dnat !== undefined) outputs.push(o.dnat);
  }
  const dnats = result.value.outcomes.filter((o) => o.kind === 'dnat');
  return { output: outputs.join(', '), masq: dnats.length > 0 && dnats.every((o) => o.markedForMasquerade) };
}

function runPacketFlowTests(table: NftTable, tests: readonly PacketFlowTest[]): void {
  for (const test of tests) {
    const result = tracePacket(table, test, TEST_NODE_IPS);
    const expected = { name: test.name, output: test.output, masq: test.masq ?? false };
    expect({ name: test.name, output: result.output, masq: result.masq, unmatched: result.unmatched }).toEqual({ ...expected, unmatched: [] });
    expect({ name: test.name, ...modelTrace(table, test) }).toEqual(expected);
  }
}

const port = (name: string, p: number, extra: Partial<ServicePort> = {}): ServicePort => ({ name, port: p, protocol: 'TCP', ...extra });
const slice = (
  ns: string,
  name: string,
  endpoints: DiscoveryEndpoint[],
  ports: DiscoveryEndpointPort[] = [{ name: 'p80', port: 80, protocol: 'TCP' }],
  family: 'IPv4' | 'IPv6' = 'IPv4',
): EndpointSlice =>
  makeSlice(ns, name, 1, family, endpoints, ports);

describe('TestNoEndpointsReject', () => {
  const table = synced(
    [
      makeService(
        'ns1',
        'svc1',
        { type: 'LoadBalancer', clusterIP: '172.30.0.41', externalIPs: ['192.168.99.11'], ports: [port('p80', 80, { nodePort: 3001 })] },
        { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      ),
    ],
    [],
  );
  it('rejects connections to the ClusterIP, external IP, NodePort and LoadBalancer IP of a service with no endpoints', () => {
    runPacketFlowTests(table, [
      { name: 'pod to cluster IP with no endpoints', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: 'REJECT' },
      { name: 'external to external IP with no endpoints', sourceIP: EXTERNAL, destIP: '192.168.99.11', destPort: 80, output: 'REJECT' },
      { name: 'pod to NodePort with no endpoints', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: 'REJECT' },
      { name: 'external to NodePort with no endpoints', sourceIP: EXTERNAL, destIP: TEST_NODE_IP, destPort: 3001, output: 'REJECT' },
      { name: 'pod to LoadBalancer IP with no endpoints', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: 'REJECT' },
      { name: 'external to LoadBalancer IP with no endpoints', sourceIP: EXTERNAL, destIP: '1.2.3.4', destPort: 80, output: 'REJECT' },
    ]);
  });
});

describe('TestClusterIPGeneral', () => {
  const table = synced(
    [
      makeService('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: [port('http', 80)] }),
      makeService('ns2', 'svc2', {
        clusterIP: '172.30.0.42',
        ports: [
          port('http', 80),
          port('https', 443, { targetPort: 8443 }),
          { name: 'dns-udp', port: 53, protocol: 'UDP' },
          port('dns-tcp', 53, { targetPort: 5353 }),
          { name: 'dns-sctp', port: 53, protocol: 'SCTP' },
        ],
      }),
    ],
    [
      slice('ns1', 'svc1', [{ addresses: ['10.180.0.1'], nodeName: TEST_NODE_NAME }], [{ name: 'http', port: 80, protocol: 'TCP' }]),
      slice(
        'ns2',
        'svc2',
        [
          { addresses: ['10.180.0.1'], nodeName: TEST_NODE_NAME },
          { addresses: ['10.180.2.1'], nodeName: 'node2' },
        ],
        [
          { name: 'http', port: 80, protocol: 'TCP' },
          { name: 'https', port: 8443, protocol: 'TCP' },
          { name: 'dns-udp', port: 53, protocol: 'UDP' },
          { name: 'dns-tcp', port: 5353, protocol: 'TCP' },
          { name: 'dns-sctp', port: 53, protocol: 'SCTP' },
        ],
      ),
    ],
  );
  it('routes ClusterIP traffic by port and protocol, masquerades hairpin traffic, rejects undefined ports and drops unallocated IPs', () => {
    runPacketFlowTests(table, [
      { name: 'simple clusterIP', sourceIP: '10.180.0.2', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80', masq: false },
      { name: 'hairpin to cluster IP', sourceIP: '10.180.0.1', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80', masq: true },
      { name: 'clusterIP with multiple endpoints', sourceIP: '10.180.0.2', destIP: '172.30.0.42', destPort: 80, output: '10.180.0.1:80, 10.180.2.1:80' },
      { name: 'clusterIP with TargetPort', sourceIP: '10.180.0.2', destIP: '172.30.0.42', destPort: 443, output: '10.180.0.1:8443, 10.180.2.1:8443' },
      {
        name: 'clusterIP with TCP, UDP, and SCTP on same port (TCP)',
        sourceIP: '10.180.0.2',
        protocol: 'tcp',
        destIP: '172.30.0.42',
        destPort: 53,
        output: '10.180.0.1:5353, 10.180.2.1:5353',
      },
      {
        name: 'clusterIP with TCP, UDP, and SCTP on same port (UDP)',
        sourceIP: '10.180.0.2',
        protocol: 'udp',
        destIP: '172.30.0.42',
        destPort: 53,
        output: '10.180.0.1:53, 10.180.2.1:53',
      },
      {
        name: 'clusterIP with TCP, UDP, and SCTP on same port (SCTP)',
        sourceIP: '10.180.0.2',
        protocol: 'sctp',
        destIP: '172.30.0.42',
        destPort: 53,
        output: '10.180.0.1:53, 10.180.2.1:53',
      },
      { name: 'TCP-only port does not match UDP traffic', sourceIP: '10.180.0.2', protocol: 'udp', destIP: '172.30.0.42', destPort: 80, output: 'REJECT' },
      { name: "svc1 does not accept svc2's ports", sourceIP: '10.180.0.2', destIP: '172.30.0.41', destPort: 443, output: 'REJECT' },
      { name: 'packet to unallocated cluster ip', sourceIP: '10.180.0.2', destIP: '172.30.0.50', destPort: 80, output: 'DROP' },
    ]);
  });
});

describe('TestLoadBalancer', () => {
  const table = synced(
    [
      makeService(
        'ns1',
        'svc1',
        {
          type: 'LoadBalancer',
          clusterIP: '172.30.0.41',
          ports: [port('p80', 80, { nodePort: 3001 })],
          // Excess whitespace must be ignored.
          loadBalancerSourceRanges: ['192.168.0.0/24', ' 203.0.113.0/25'],
        },
        { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { ip: '5.6.7.8' }] } },
      ),
    ],
    [slice('ns1', 'svc1', [{ addresses: ['10.180.0.1'] }])],
  );
  const ep = '10.180.0.1:80';
  it('applies loadBalancerSourceRanges to LoadBalancer IPs only, admitting the node and the LB IPs themselves', () => {
    runPacketFlowTests(table, [
      { name: 'pod to cluster IP', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: ep, masq: false },
      { name: 'external to nodePort', sourceIP: EXTERNAL, destIP: TEST_NODE_IP, destPort: 3001, output: ep, masq: true },
      { name: 'nodePort bypasses LoadBalancerSourceRanges', sourceIP: BLOCKED, destIP: TEST_NODE_IP, destPort: 3001, output: ep, masq: true },
      { name: 'accepted external to LB1', sourceIP: EXTERNAL, destIP: '1.2.3.4', destPort: 80, output: ep, masq: true },
      { name: 'accepted external to LB2', sourceIP: EXTERNAL, destIP: '5.6.7.8', destPort: 80, output: ep, masq: true },
      { name: 'blocked external to LB1', sourceIP: BLOCKED, destIP: '1.2.3.4', destPort: 80, output: 'DROP' },
      { name: 'blocked external to LB2', sourceIP: BLOCKED, destIP: '5.6.7.8', destPort: 80, output: 'DROP' },
      { name: 'pod to LB1 (blocked by LoadBalancerSourceRanges)', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: 'DROP' },
      { name: 'pod to LB2 (blocked by LoadBalancerSourceRanges)', sourceIP: '10.0.0.2', destIP: '5.6.7.8', destPort: 80, output: 'DROP' },
      { name: 'node to LB1 (allowed by LoadBalancerSourceRanges)', sourceIP: TEST_NODE_IP, destIP: '1.2.3.4', destPort: 80, output: ep, masq: true },
      { name: 'node to LB2 (allowed by LoadBalancerSourceRanges)', sourceIP: TEST_NODE_IP, destIP: '5.6.7.8', destPort: 80, output: ep, masq: true },
      { name: 'same node to LB1, SNATted to LB1 (implicitly allowed)', sourceIP: '1.2.3.4', destIP: '1.2.3.4', destPort: 80, output: ep, masq: true },
      { name: 'same node to LB2, SNATted to LB2 (implicitly allowed)', sourceIP: '5.6.7.8', destIP: '5.6.7.8', destPort: 80, output: ep, masq: true },
    ]);
  });
});

describe('TestNodePorts', () => {
  it.each([
    { name: 'ipv4', family: 4 as const, nodePortAddresses: undefined, allowAltNodeIP: false },
    { name: 'ipv4, multiple nodeport-addresses', family: 4 as const, nodePortAddresses: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'], allowAltNodeIP: true },
    { name: 'ipv6', family: 6 as const, nodePortAddresses: undefined, allowAltNodeIP: false },
    {
      name: 'ipv6, multiple nodeport-addresses',
      family: 6 as const,
      nodePortAddresses: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64', '2001:db8:1::2/128'],
      allowAltNodeIP: true,
    },
  ])('$name', ({ family, nodePortAddresses, allowAltNodeIP }) => {
    const v4 = family === 4;
    const [svcIP, epIP1, epIP2, nodeIP] = v4
      ? ['172.30.0.41', '10.180.0.1', '10.180.2.1', TEST_NODE_IP]
      : ['fd00:172:30::41', 'fd00:10:180::1', 'fd00:10:180::2:1', '2001:db8::1'];
    const table = synced(
      [makeService('ns1', 'svc1', { type: 'NodePort', clusterIP: svcIP, ports: [port('p80', 80, { nodePort: 3001 })] })],
      [
        slice(
          'ns1',
          'svc1',
          [{ addresses: [epIP1] }, { addresses: [epIP2], nodeName: TEST_NODE_NAME }],
          [{ name: 'p80', port: 80, protocol: 'TCP' }],
          v4 ? 'IPv4' : 'IPv6',
        ),
      ],
      { family, ...(nodePortAddresses === undefined ? {} : { nodePortAddresses }) },
    );
    const [podIP, externalClientIP, altNodeIP] = v4 ? ['10.0.0.2', EXTERNAL, '192.168.1.2'] : ['fd00:10::2', '2600:5200::1', '2001:db8:1::2'];
    const hostPort = (ip: string): string => (v4 ? `${ip}:80` : `[${ip}]:80`);
    const output = `${hostPort(epIP1)}, ${hostPort(epIP2)}`;
    runPacketFlowTests(table, [
      { name: 'pod to cluster IP', sourceIP: podIP, destIP: svcIP, destPort: 80, output, masq: false },
      { name: 'external to nodePort', sourceIP: externalClientIP, destIP: nodeIP, destPort: 3001, output, masq: true },
      { name: 'node to nodePort', sourceIP: nodeIP, destIP: nodeIP, destPort: 3001, output, masq: true },
      allowAltNodeIP
        ? { name: 'external to nodePort on secondary IP', sourceIP: externalClientIP, destIP: altNodeIP, destPort: 3001, output, masq: true }
        : { name: 'secondary nodeIP ignores NodePorts', sourceIP: externalClientIP, destIP: altNodeIP, destPort: 3001, output: '' },
    ]);
  });
});

function policyService(policy: 'Local' | 'Cluster'): Service {
  return makeService(
    'ns1',
    'svc1',
    {
      type: 'LoadBalancer',
      externalTrafficPolicy: policy,
      clusterIP: '172.30.0.41',
      externalIPs: ['192.168.99.11'],
      ports: [port('p80', 80, { nodePort: 3001, targetPort: 80 })],
      ...(policy === 'Local' ? { healthCheckNodePort: 30000 } : {}),
    },
    { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
  );
}
const policySlice = slice('ns1', 'svc1', [{ addresses: ['10.180.0.1'] }, { addresses: ['10.180.2.1'], nodeName: TEST_NODE_NAME }]);
const both = '10.180.0.1:80, 10.180.2.1:80';

describe('TestExternalTrafficPolicyLocal', () => {
  const table = synced([policyService('Local')], [policySlice]);
  it('does not masquerade external traffic, which reaches only local endpoints; traffic from pods reaches every endpoint', () => {
    runPacketFlowTests(table, [
      { name: 'pod to cluster IP hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: both },
      { name: 'pod to external IP hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '192.168.99.11', destPort: 80, output: both },
      { name: 'external to external IP hits only local endpoint, unmasqueraded', sourceIP: EXTERNAL, destIP: '192.168.99.11', destPort: 80, output: '10.180.2.1:80' },
      { name: 'pod to LB IP hits only both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: both },
      { name: 'external to LB IP hits only local endpoint, unmasqueraded', sourceIP: EXTERNAL, destIP: '1.2.3.4', destPort: 80, output: '10.180.2.1:80' },
      { name: 'pod to NodePort hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: both },
      { name: 'external to NodePort hits only local endpoint, unmasqueraded', sourceIP: EXTERNAL, destIP: TEST_NODE_IP, destPort: 3001, output: '10.180.2.1:80' },
    ]);
  });
});

describe('TestExternalTrafficPolicyCluster', () => {
  const table = synced([policyService('Cluster')], [policySlice]);
  it('masquerades traffic to external IPs, LoadBalancer IPs and NodePorts, but not to the ClusterIP', () => {
    runPacketFlowTests(table, [
      { name: 'pod to cluster IP hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: both, masq: false },
      { name: 'pod to external IP hits both endpoints, masqueraded', sourceIP: '10.0.0.2', destIP: '192.168.99.11', destPort: 80, output: both, masq: true },
      { name: 'external to external IP hits both endpoints, masqueraded', sourceIP: EXTERNAL, destIP: '192.168.99.11', destPort: 80, output: both, masq: true },
      { name: 'pod to LB IP hits both endpoints, masqueraded', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: both, masq: true },
      { name: 'external to LB IP hits both endpoints, masqueraded', sourceIP: EXTERNAL, destIP: '1.2.3.4', destPort: 80, output: both, masq: true },
      { name: 'pod to NodePort hits both endpoints, masqueraded', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: both, masq: true },
      { name: 'external to NodePort hits both endpoints, masqueraded', sourceIP: EXTERNAL, destIP: TEST_NODE_IP, destPort: 3001, output: both, masq: true },
    ]);
  });
});

describe('TestInternalExternalMasquerade', () => {
  const lb = (ns: string, name: string, ip: string, nodePort: number, lbIP: string, extra: Partial<Service['spec']> = {}): Service =>
    makeService(ns, name, { type: 'LoadBalancer', clusterIP: ip, ports: [port('p80', 80, { nodePort })], ...extra }, { loadBalancer: { ingress: [{ ip: lbIP }] } });
  const services = [
    lb('ns1', 'svc1', '172.30.0.41', 3001, '1.2.3.4', { healthCheckNodePort: 30001 }),
    lb('ns2', 'svc2', '172.30.0.42', 3002, '5.6.7.8', { healthCheckNodePort: 30002, externalTrafficPolicy: 'Local' }),
    lb('ns3', 'svc3', '172.30.0.43', 3003, '9.10.11.12', { healthCheckNodePort: 30003, internalTrafficPolicy: 'Local' }),
  ];
  const twoEndpoints = (ns: string, name: string, n: number): EndpointSlice =>
    slice(ns, name, [
      { addresses: [`10.180.0.${n}`], nodeName: TEST_NODE_NAME },
      { addresses: [`10.180.1.${n}`], nodeName: 'remote' },
    ]);
  const slices = [twoEndpoints('ns1', 'svc1', 1), twoEndpoints('ns2', 'svc2', 2), twoEndpoints('ns3', 'svc3', 3)];

  // The normal case: a working local detector, no masqueradeAll.
  const all1 = '10.180.0.1:80, 10.180.1.1:80';
  const all2 = '10.180.0.2:80, 10.180.1.2:80';
  const all3 = '10.180.0.3:80, 10.180.1.3:80';
  const flowTests: PacketFlowTest[] = [
    { name: 'pod to ClusterIP', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: all1, masq: false },
    { name: 'pod to NodePort', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: all1, masq: true },
    { name: 'pod to LB', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: all1, masq: true },
    { name: 'node to ClusterIP', sourceIP: TEST_NODE_IP, destIP: '172.30.0.41', destPort: 80, output: all1, masq: true },
    { name: 'node to NodePort', sourceIP: TEST_NODE_IP, destIP: TEST_NODE_IP, destPort: 3001, output: all1, masq: true },
    { name: 'node to LB', sourceIP: TEST_NODE_IP, destIP: '1.2.3.4', destPort: 80, output: all1, masq: true },
    { name: 'external to ClusterIP', sourceIP: EXTERNAL, destIP: '172.30.0.41', destPort: 80, output: all1, masq: true },
    { name: 'external to NodePort', sourceIP: EXTERNAL, destIP: TEST_NODE_IP, destPort: 3001, output: all1, masq: true },
    { name: 'external to LB', sourceIP: EXTERNAL, destIP: '1.2.3.4', destPort: 80, output: all1, masq: true },
    { name: 'pod to ClusterIP with eTP:Local', sourceIP: '10.0.0.2', destIP: '172.30.0.42', destPort: 80, output: all2, masq: false },
    { name: 'pod to NodePort with eTP:Local', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3002, output: all2, masq: false },
    { name: 'pod to LB with eTP:Local', sourceIP: '10.0.0.2', destIP: '5.6.7.8', destPort: 80, output: all2, masq: false },
    { name: 'node to ClusterIP with eTP:Local', sourceIP: TEST_NODE_IP, destIP: '172.30.0.42', destPort: 80, output: all2, masq: true },
    // upstream's case sends this one to svc1's NodePort.
    { name: 'node to NodePort with eTP:Local', sourceIP: TEST_NODE_IP, destIP: TEST_NODE_IP, destPort: 3001, output: all1, masq: true },
    { name: 'node to LB with eTP:Local', sourceIP: TEST_NODE_IP, destIP: '5.6.7.8', destPort: 80, output: all2, masq: true },
    { name: 'external to ClusterIP with eTP:Local', sourceIP: EXTERNAL, destIP: '172.30.0.42', destPort: 80, output: all2, masq: true },
    { name: 'external to NodePort with eTP:Local', sourceIP: EXTERNAL, destIP: TEST_NODE_IP, destPort: 3002, output: '10.180.0.2:80', masq: false },
    { name: 'external to LB with eTP:Local', sourceIP: EXTERNAL, destIP: '5.6.7.8', destPort: 80, output: '10.180.0.2:80', masq: false },
    { name: 'pod to ClusterIP with iTP:Local', sourceIP: '10.0.0.2', destIP: '172.30.0.43', destPort: 80, output: '10.180.0.3:80', masq: false },
    { name: 'pod to NodePort with iTP:Local', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3003, output: all3, masq: true },
    { name: 'pod to LB with iTP:Local', sourceIP: '10.0.0.2', destIP: '9.10.11.12', destPort: 80, output: all3, masq: true },
    { name: 'node to ClusterIP with iTP:Local', sourceIP: TEST_NODE_IP, destIP: '172.30.0.43', destPort: 80, output: '10.180.0.3:80', masq: true },
    { name: 'node to NodePort with iTP:Local', sourceIP: TEST_NODE_IP, destIP: TEST_NODE_IP, destPort: 3003, output: all3, masq: true },
    { name: 'node to LB with iTP:Local', sourceIP: TEST_NODE_IP, destIP: '9.10.11.12', destPort: 80, output: all3, masq: true },
    { name: 'external to ClusterIP with iTP:Local', sourceIP: EXTERNAL, destIP: '172.30.0.43', destPort: 80, output: '10.180.0.3:80', masq: true },
    { name: 'external to NodePort with iTP:Local', sourceIP: EXTERNAL, destIP: TEST_NODE_IP, destPort: 3003, output: all3, masq: true },
    { name: 'external to LB with iTP:Local', sourceIP: EXTERNAL, destIP: '9.10.11.12', destPort: 80, output: all3, masq: true },
  ];

  type Override = { readonly output?: string; readonly masq?: boolean };
  const noDetector: Record<string, Override> = {
    // Without a detector, all traffic to a ClusterIP is taken to come from a pod: no masquerade.
    'node to ClusterIP': { masq: false },
    'node to ClusterIP with eTP:Local': { masq: false },
    'node to ClusterIP with iTP:Local': { masq: false },
    'external to ClusterIP': { masq: false },
    'external to ClusterIP with eTP:Local': { masq: false },
    'external to ClusterIP with iTP:Local': { masq: false },
    // And there is no eTP:Local short circuit for pods: they get the local endpoints only.
    'pod to NodePort with eTP:Local': { output: '10.180.0.2:80' },
    'pod to LB with eTP:Local': { output: '10.180.0.2:80' },
  };
  const masqueradeAll: Record<string, Override> = {
    'pod to ClusterIP': { masq: true },
    'pod to ClusterIP with eTP:Local': { masq: true },
    'pod to ClusterIP with iTP:Local': { masq: true },
  };
  const noDetectorOutputs = Object.fromEntries(Object.entries(noDetector).filter(([, o]) => o.output !== undefined));
  const cases: readonly { name: string; options: Partial<NftablesProxierConfigOptions>; overrides: Record<string, Override> }[] = [
    { name: 'base', options: {}, overrides: {} },
    { name: 'no LocalTrafficDetector', options: { localDetector: { kind: 'none' } }, overrides: noDetector },
    { name: 'masqueradeAll', options: { masqueradeAll: true }, overrides: masqueradeAll },
    { name: 'masqueradeAll, no LocalTrafficDetector', options: { masqueradeAll: true, localDetector: { kind: 'none' } }, overrides: { ...masqueradeAll, ...noDetectorOutputs } },
  ];
  it.each(cases)('$name', ({ options, overrides }) => {
    const table = synced(services, slices, options);
    runPacketFlowTests(
      table,
      flowTests.map((t) => ({ ...t, ...overrides[t.name] })),
    );
  });
});

/**
 * upstream's sync, trace, delete the slice, sync, trace pattern: the first sync is full, the
 * second (the slice deleted) partial.
 */
function syncedThenDeleted(service: Service, endpointSlice: EndpointSlice, tests: readonly PacketFlowTest[], afterDeletion: readonly PacketFlowTest[]): void {
  const config = fakeNftablesConfig();
  const first = syncNftables(INITIAL_NFTABLES_SYNC_STATE, [service], [endpointSlice], config, { now: 0 });
  if (!first.ok || first.value.state.table === undefined) throw new Error('the first sync failed');
  runPacketFlowTests(first.value.state.table, tests);
  const second = syncNftables(first.value.state, [service], [], config, { now: 1 });
  if (!second.ok || second.value.state.table === undefined) throw new Error('the second sync failed');
  expect(second.value.full).toBe(false);
  runPacketFlowTests(second.value.state.table, afterDeletion);
}

type Conditions = { readonly ready?: boolean; readonly serving?: boolean; readonly terminating?: boolean };
const ep = (ip: string, nodeName: string, conditions: Conditions = { ready: true }): DiscoveryEndpoint => ({ addresses: [ip], conditions, nodeName });
const unnamed80: DiscoveryEndpointPort[] = [{ name: '', port: 80, protocol: 'TCP' }];
const svc1Slice = (endpoints: DiscoveryEndpoint[]): EndpointSlice => slice('ns1', 'svc1', endpoints, unnamed80);
const READY = { ready: true, serving: true, terminating: false };
const TERMINATING = { ready: false, serving: true, terminating: true };
const GONE = { ready: false, serving: false, terminating: true };

describe('TestInternalTrafficPolicy', () => {
  const service = (policy: 'Cluster' | 'Local'): Service =>
    makeService('ns1', 'svc1', { clusterIP: '172.30.1.1', selector: { foo: 'bar' }, ports: [{ name: '', port: 80, protocol: 'TCP' }], internalTrafficPolicy: policy });
  const deleted: PacketFlowTest[] = [{ name: 'endpoints deleted', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: 'REJECT' }];
  it.each([
    {
      name: 'internalTrafficPolicy is cluster',
      policy: 'Cluster' as const,
      nodes: [TEST_NODE_NAME, 'node1', 'node2'],
      test: { name: 'pod to ClusterIP hits all endpoints', output: '10.0.1.1:80, 10.0.1.2:80, 10.0.1.3:80' },
    },
    {
      name: 'internalTrafficPolicy is local and there is one local endpoint',
      policy: 'Local' as const,
      nodes: [TEST_NODE_NAME, 'node1', 'node2'],
      test: { name: 'pod to ClusterIP hits only local endpoint', output: '10.0.1.1:80' },
    },
    {
      name: 'internalTrafficPolicy is local and there are multiple local endpoints',
      policy: 'Local' as const,
      nodes: [TEST_NODE_NAME, TEST_NODE_NAME, 'node2'],
      test: { name: 'pod to ClusterIP hits all local endpoints', output: '10.0.1.1:80, 10.0.1.2:80' },
    },
    {
      name: 'internalTrafficPolicy is local and there are no local endpoints',
      policy: 'Local' as const,
      nodes: ['node0', 'node1', 'node2'],
      test: { name: 'no endpoints', output: 'DROP' },
    },
  ])('$name', ({ policy, nodes, test }) => {
    syncedThenDeleted(
      service(policy),
      svc1Slice(nodes.map((node, i) => ep(`10.0.1.${i + 1}`, node))),
      [{ ...test, sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80 }],
      deleted,
    );
  });
});

function terminatingService(policy: 'Local' | 'Cluster'): Service {
  return makeService(
    'ns1',
    'svc1',
    { clusterIP: '172.30.1.1', type: 'LoadBalancer', externalTrafficPolicy: policy, ports: [{ name: '', port: 80, protocol: 'TCP', targetPort: 80 }], healthCheckNodePort: 30000 },
    { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
  );
}
const afterTerminatingDeleted: PacketFlowTest[] = [
  { name: 'pod to clusterIP after endpoints deleted', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: 'REJECT' },
  { name: 'external to LB after endpoints deleted', sourceIP: EXTERNAL, destIP: '1.2.3.4', destPort: 80, output: 'REJECT' },
];
const podAndExternal = (pod: string, podMasq: boolean, external: string, externalMasq: boolean, externalName = 'external to LB'): PacketFlowTest[] => [
  { name: 'pod to clusterIP', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: pod, masq: podMasq },
  { name: externalName, sourceIP: EXTERNAL, destIP: '1.2.3.4', destPort: 80, output: external, masq: externalMasq },
];

describe('TestTerminatingEndpointsTrafficPolicyLocal', () => {
  it.each([
    {
      name: 'ready endpoints exist',
      endpoints: [
        ep('10.0.1.1', TEST_NODE_NAME, READY),
        ep('10.0.1.2', TEST_NODE_NAME, READY),
        ep('10.0.1.3', TEST_NODE_NAME, TERMINATING),
        ep('10.0.1.4', TEST_NODE_NAME, GONE),
        ep('10.0.1.5', 'node-1', READY),
      ],
      tests: podAndExternal('10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80', false, '10.0.1.1:80, 10.0.1.2:80', false),
    },
    {
      name: 'only terminating endpoints exist',
      endpoints: [
        ep('10.0.1.2', TEST_NODE_NAME, TERMINATING),
        ep('10.0.1.3', TEST_NODE_NAME, TERMINATING),
        ep('10.0.1.4', TEST_NODE_NAME, GONE),
        ep('10.0.1.5', 'node-1', READY),
      ],
      tests: podAndExternal('10.0.1.5:80', false, '10.0.1.2:80, 10.0.1.3:80', false),
    },
    {
      name: 'terminating endpoints on remote node',
      endpoints: [ep('10.0.1.5', 'node-1', TERMINATING)],
      tests: podAndExternal('10.0.1.5:80', false, 'DROP', false, 'external to LB, no locally-usable endpoints'),
    },
    {
      name: 'no usable endpoints on any node',
      endpoints: [ep('10.0.1.5', TEST_NODE_NAME, GONE), ep('10.0.1.5', 'node-1', GONE)],
      tests: [
        { name: 'pod to clusterIP, no usable endpoints', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: 'REJECT' },
        { name: 'external to LB, no usable endpoints', sourceIP: EXTERNAL, destIP: '1.2.3.4', destPort: 80, output: 'REJECT' },
      ],
    },
  ])('$name', ({ endpoints, tests }) => {
    syncedThenDeleted(terminatingService('Local'), svc1Slice(endpoints), tests, afterTerminatingDeleted);
  });
});

describe('TestTerminatingEndpointsTrafficPolicyCluster', () => {
  it.each([
    {
      name: 'ready endpoints exist',
      endpoints: [
        ep('10.0.1.1', TEST_NODE_NAME, READY),
        ep('10.0.1.2', TEST_NODE_NAME, READY),
        ep('10.0.1.3', 'another-node', TERMINATING),
        ep('10.0.1.4', 'another-node', GONE),
        ep('10.0.1.5', 'another-node', READY),
      ],
      tests: podAndExternal('10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80', false, '10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80', true),
    },
    {
      name: 'only terminating endpoints exist',
      endpoints: [
        ep('10.0.1.2', TEST_NODE_NAME, TERMINATING),
        ep('10.0.1.3', TEST_NODE_NAME, TERMINATING),
        ep('10.0.1.4', 'another-node', GONE),
        ep('10.0.1.5', 'another-node', TERMINATING),
      ],
      tests: podAndExternal('10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80', false, '10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80', true),
    },
    {
      name: 'terminating endpoints on remote node',
      endpoints: [ep('10.0.1.5', 'node-1', TERMINATING)],
      tests: podAndExternal('10.0.1.5:80', false, '10.0.1.5:80', true),
    },
    {
      name: 'no usable endpoints on any node',
      endpoints: [ep('10.0.1.5', TEST_NODE_NAME, GONE), ep('10.0.1.5', 'node-1', GONE)],
      tests: [
        { name: 'pod to clusterIP', sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, output: 'REJECT' },
        { name: 'external to LB', sourceIP: EXTERNAL, destIP: '1.2.3.4', destPort: 80, output: 'REJECT' },
      ],
    },
  ])('$name', ({ endpoints, tests }) => {
    syncedThenDeleted(terminatingService('Cluster'), svc1Slice(endpoints), tests, afterTerminatingDeleted);
  });
});

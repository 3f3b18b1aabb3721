// upstream's packet-flow tests (pkg/proxy/iptables/proxier_test.go, runPacketFlowTests), run
// through this tracer on the rules this package generates for the same clusters. upstream's
// tracer returns the DNAT destinations joined by ", " (or ACCEPT / DROP / REJECT, or "" for no
// match) and whether KUBE-MARK-MASQ was hit; `upstreamView` reduces our outcomes to that.
// upstream has no notion of where a packet enters; here a pod source (10.x) enters from a pod,
// the node IP from this host, and any other address from outside, as upstream's cases mean.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { generateRules } from '../backend.js';
import { fakeProxierConfig, FAKE_INTERFACE_ADDRESSES, makeService, overallServices, overallSlices, simpleSlice, tcp80, TEST_NODE_NAME } from '../upstream.fixtures.js';
import { addRational as add, type Rational, RATIONAL_ONE as ONE, RATIONAL_ZERO as ZERO } from '@kubesvc/proxy';
import { tracePacket } from './trace-packet.js';
import type { L4Protocol } from '../ruleset.js';
import type { ProxierConfigOptions } from '../proxier-config.js';
import type { PacketEntry } from './trace-types.js';

const testNodeIP = '192.168.0.2';
const testExternalClient = '203.0.113.2';
const testExternalClientBlocked = '203.0.113.130';
/** upstream's testNodeIPs: what its tracer treats as LOCAL (with 127.0.0.1 and ::1). */
const testNodeIPs = ['192.168.0.2', '192.168.1.2', '192.168.99.11', '2001:db8::1', '2001:db8:1::2'];

interface FlowCase {
  readonly name: string;
  readonly sourceIP: string;
  readonly protocol?: L4Protocol;
  readonly destIP: string;
  readonly destPort: number;
  readonly output: string;
  readonly masq?: boolean;
}

function entryOf(source: string): PacketEntry {
  if (source.startsWith('10.')) return 'pod';
  if (testNodeIPs.includes(source) || source === '127.0.0.1') return 'host';
  return 'outside';
}

function upstreamView(services: Service[], slices: EndpointSlice[], c: FlowCase, overrides: Partial<ProxierConfigOptions>): { output: string; masq: boolean; total: Rational } {
  const { ruleset } = generateRules(services, slices, fakeProxierConfig(overrides));
  const result = tracePacket(
    ruleset,
    { source: c.sourceIP, destination: c.destIP, protocol: c.protocol ?? 'tcp', destinationPort: c.destPort, entry: entryOf(c.sourceIP) },
    { localAddresses: testNodeIPs },
  );
  if (!result.ok) throw new Error(result.error.message);
  const outputs: string[] = [];
  let masq = false;
  let total = ZERO;
  for (const o of result.value.outcomes) {
    const out = o.kind === 'dnat' ? o.dnat : o.kind === 'no-match' ? undefined : o.kind.toUpperCase();
    if (out !== undefined && !outputs.includes(out)) outputs.push(out);
    masq ||= o.markedForMasquerade;
    total = add(total, o.probability.written);
  }
  return { output: outputs.join(', '), masq, total };
}

function runPacketFlowTests(services: Service[], slices: EndpointSlice[], cases: readonly FlowCase[], overrides: Partial<ProxierConfigOptions> = {}): void {
  for (const c of cases) {
    it(c.name, () => {
      const view = upstreamView(services, slices, c, overrides);
      expect({ output: view.output, masq: view.masq }).toEqual({ output: c.output, masq: c.masq ?? false });
      expect(view.total).toEqual(ONE);
    });
  }
}

const p80 = { name: 'p80', port: 80, protocol: 'TCP' as const };

describe('TestTracePacket (the TestOverallIPTablesRules cluster)', () => {
  runPacketFlowTests(overallServices, overallSlices, [
    { name: 'no match', sourceIP: '10.0.0.2', destIP: '10.0.0.3', destPort: 80, output: '' },
    { name: 'single endpoint', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80' },
    { name: 'multiple endpoints', sourceIP: '10.0.0.2', destIP: '172.30.0.44', destPort: 80, output: '10.180.0.4:80, 10.180.0.5:80' },
    { name: 'LOCAL, KUBE-MARK-MASQ', sourceIP: testNodeIP, destIP: '192.168.99.22', destPort: 80, output: '10.180.0.2:80', masq: true },
    { name: 'DROP', sourceIP: testExternalClient, destIP: '192.168.99.22', destPort: 80, output: 'DROP' },
    { name: 'ACCEPT (NodePortHealthCheck)', sourceIP: testNodeIP, destIP: testNodeIP, destPort: 30000, output: 'ACCEPT' },
    { name: 'REJECT', sourceIP: '10.0.0.2', destIP: '172.30.0.46', destPort: 80, output: 'REJECT' },
  ]);
});

describe('TestNoEndpointsReject', () => {
  const services = [
    makeService(
      'ns1',
      'svc1',
      { type: 'LoadBalancer', clusterIP: '172.30.0.41', externalIPs: ['192.168.99.11'], ports: [{ ...p80, nodePort: 3001 }] },
      { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
    ),
  ];
  runPacketFlowTests(services, [], [
    { name: 'pod to cluster IP with no endpoints', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: 'REJECT' },
    { name: 'external to external IP with no endpoints', sourceIP: testExternalClient, destIP: '192.168.99.11', destPort: 80, output: 'REJECT' },
    { name: 'pod to NodePort with no endpoints', sourceIP: '10.0.0.2', destIP: testNodeIP, destPort: 3001, output: 'REJECT' },
    { name: 'external to NodePort with no endpoints', sourceIP: testExternalClient, destIP: testNodeIP, destPort: 3001, output: 'REJECT' },
    { name: 'pod to LoadBalancer IP with no endpoints', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: 'REJECT' },
    { name: 'external to LoadBalancer IP with no endpoints', sourceIP: testExternalClient, destIP: '1.2.3.4', destPort: 80, output: 'REJECT' },
  ]);
});

describe('TestClusterIPGeneral', () => {
  const services = [
    makeService('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: [{ name: 'http', port: 80, protocol: 'TCP' }] }),
    makeService('ns2', 'svc2', {
      clusterIP: '172.30.0.42',
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 },
        { name: 'dns-udp', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 53, protocol: 'TCP', targetPort: 5353 },
        { name: 'dns-sctp', port: 53, protocol: 'SCTP' },
      ],
    }),
  ];
  const slices: EndpointSlice[] = [
    simpleSlice('ns1', 'svc1', { name: 'http', port: 80, protocol: 'TCP' }, [{ addresses: ['10.180.0.1'], nodeName: TEST_NODE_NAME }]),
    {
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'ns2', name: 'svc2-1', labels: { 'kubernetes.io/service-name': 'svc2' } },
      addressType: 'IPv4',
      endpoints: [
        { addresses: ['10.180.0.1'], nodeName: TEST_NODE_NAME },
        { addresses: ['10.180.2.1'], nodeName: 'node2' },
      ],
      ports: [
        { name: 'http', port: 80, protocol: 'TCP' },
        { name: 'https', port: 8443, protocol: 'TCP' },
        { name: 'dns-udp', port: 53, protocol: 'UDP' },
        { name: 'dns-tcp', port: 5353, protocol: 'TCP' },
        { name: 'dns-sctp', port: 53, protocol: 'SCTP' },
      ],
    },
  ];
  runPacketFlowTests(services, slices, [
    { name: 'simple clusterIP', sourceIP: '10.180.0.2', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80', masq: false },
    { name: 'hairpin to cluster IP', sourceIP: '10.180.0.1', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80', masq: true },
    { name: 'clusterIP with multiple endpoints', sourceIP: '10.180.0.2', destIP: '172.30.0.42', destPort: 80, output: '10.180.0.1:80, 10.180.2.1:80' },
    { name: 'clusterIP with TargetPort', sourceIP: '10.180.0.2', destIP: '172.30.0.42', destPort: 443, output: '10.180.0.1:8443, 10.180.2.1:8443' },
    { name: 'clusterIP with TCP, UDP, and SCTP on same port (TCP)', sourceIP: '10.180.0.2', protocol: 'tcp', destIP: '172.30.0.42', destPort: 53, output: '10.180.0.1:5353, 10.180.2.1:5353' },
    { name: 'clusterIP with TCP, UDP, and SCTP on same port (UDP)', sourceIP: '10.180.0.2', protocol: 'udp', destIP: '172.30.0.42', destPort: 53, output: '10.180.0.1:53, 10.180.2.1:53' },
    { name: 'clusterIP with TCP, UDP, and SCTP on same port (SCTP)', sourceIP: '10.180.0.2', protocol: 'sctp', destIP: '172.30.0.42', destPort: 53, output: '10.180.0.1:53, 10.180.2.1:53' },
    { name: 'TCP-only port does not match UDP traffic', sourceIP: '10.180.0.2', protocol: 'udp', destIP: '172.30.0.42', destPort: 80, output: '' },
    { name: "svc1 does not accept svc2's ports", sourceIP: '10.180.0.2', destIP: '172.30.0.41', destPort: 443, output: '' },
  ]);
});

describe('TestLoadBalancer', () => {
  const services = [
    makeService(
      'ns1',
      'svc1',
      {
        type: 'LoadBalancer',
        clusterIP: '172.30.0.41',
        ports: [{ ...p80, nodePort: 3001 }],
        loadBalancerSourceRanges: ['192.168.0.0/24', ' 203.0.113.0/25'],
      },
      { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { ip: '5.6.7.8' }] } },
    ),
  ];
  const slices = [simpleSlice('ns1', 'svc1', tcp80(), [{ addresses: ['10.180.0.1'] }])];
  const ep = '10.180.0.1:80';
  runPacketFlowTests(services, slices, [
    { name: 'pod to cluster IP', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: ep, masq: false },
    { name: 'external to nodePort', sourceIP: testExternalClient, destIP: testNodeIP, destPort: 3001, output: ep, masq: true },
    { name: 'nodePort bypasses LoadBalancerSourceRanges', sourceIP: testExternalClientBlocked, destIP: testNodeIP, destPort: 3001, output: ep, masq: true },
    { name: 'accepted external to LB1', sourceIP: testExternalClient, destIP: '1.2.3.4', destPort: 80, output: ep, masq: true },
    { name: 'accepted external to LB2', sourceIP: testExternalClient, destIP: '5.6.7.8', destPort: 80, output: ep, masq: true },
    { name: 'blocked external to LB1', sourceIP: testExternalClientBlocked, destIP: '1.2.3.4', destPort: 80, output: 'DROP' },
    { name: 'blocked external to LB2', sourceIP: testExternalClientBlocked, destIP: '5.6.7.8', destPort: 80, output: 'DROP' },
    { name: 'pod to LB1 (blocked by LoadBalancerSourceRanges)', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: 'DROP' },
    { name: 'pod to LB2 (blocked by LoadBalancerSourceRanges)', sourceIP: '10.0.0.2', destIP: '5.6.7.8', destPort: 80, output: 'DROP' },
    { name: 'node to LB1 (allowed by LoadBalancerSourceRanges)', sourceIP: testNodeIP, destIP: '1.2.3.4', destPort: 80, output: ep, masq: true },
    { name: 'node to LB2 (allowed by LoadBalancerSourceRanges)', sourceIP: testNodeIP, destIP: '5.6.7.8', destPort: 80, output: ep, masq: true },
    { name: 'same node to LB1, SNATted to LB1 (implicitly allowed)', sourceIP: '1.2.3.4', destIP: '1.2.3.4', destPort: 80, output: ep, masq: true },
    { name: 'same node to LB2, SNATted to LB2 (implicitly allowed)', sourceIP: '5.6.7.8', destIP: '5.6.7.8', destPort: 80, output: ep, masq: true },
  ]);
});

describe('TestNodePorts (IPv4)', () => {
  const services = [makeService('ns1', 'svc1', { type: 'NodePort', clusterIP: '172.30.0.41', ports: [{ ...p80, nodePort: 3001 }] })];
  const slices = [simpleSlice('ns1', 'svc1', tcp80(), [{ addresses: ['10.180.0.1'] }, { addresses: ['10.180.2.1'], nodeName: TEST_NODE_NAME }])];
  const output = '10.180.0.1:80, 10.180.2.1:80';
  const basic: FlowCase[] = [
    { name: 'pod to cluster IP', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output, masq: false },
    { name: 'external to nodePort', sourceIP: testExternalClient, destIP: testNodeIP, destPort: 3001, output, masq: true },
    { name: 'node to nodePort', sourceIP: testNodeIP, destIP: testNodeIP, destPort: 3001, output, masq: true },
    { name: 'external to nodePort on secondary IP', sourceIP: testExternalClient, destIP: '192.168.1.2', destPort: 3001, output, masq: true },
  ];
  describe('localhost-nodeports enabled', () => {
    runPacketFlowTests(services, slices, [
      ...basic,
      { name: 'localhost to nodePort gets masqueraded', sourceIP: '127.0.0.1', destIP: '127.0.0.1', destPort: 3001, output, masq: true },
    ]);
  });
  describe('localhost-nodeports disabled', () => {
    runPacketFlowTests(
      services,
      slices,
      [...basic, { name: 'localhost to nodePort is ignored', sourceIP: '127.0.0.1', destIP: '127.0.0.1', destPort: 3001, output: '' }],
      { localhostNodePorts: false },
    );
  });
  describe('nodePortAddresses 192.168.0.0/24 and 127.0.0.1/32, localhost-nodeports disabled', () => {
    runPacketFlowTests(
      services,
      slices,
      [
        ...basic.filter((c) => c.name !== 'external to nodePort on secondary IP'),
        { name: 'localhost to nodePort is ignored', sourceIP: '127.0.0.1', destIP: '127.0.0.1', destPort: 3001, output: '' },
        { name: 'secondary nodeIP ignores NodePorts', sourceIP: testExternalClient, destIP: '192.168.1.2', destPort: 3001, output: '' },
      ],
      { localhostNodePorts: false, nodePortAddresses: ['192.168.0.0/24', '127.0.0.1/32'] },
    );
  });
});

describe('TestHealthCheckNodePort', () => {
  const services = [
    makeService('ns1', 'svc1', {
      type: 'LoadBalancer',
      clusterIP: '172.30.0.42',
      ports: [{ ...p80, nodePort: 3001 }],
      healthCheckNodePort: 30000,
      externalTrafficPolicy: 'Local',
    }),
  ];
  runPacketFlowTests(services, [], [{ name: 'firewall accepts HealthCheckNodePort', sourceIP: '1.2.3.4', destIP: testNodeIP, destPort: 30000, output: 'ACCEPT', masq: false }], {
    nodePortAddresses: ['127.0.0.0/8'],
  });
  runPacketFlowTests([], [], [{ name: 'HealthCheckNodePort no longer has any rule', sourceIP: '1.2.3.4', destIP: testNodeIP, destPort: 30000, output: '' }], {
    nodePortAddresses: ['127.0.0.0/8'],
  });
});

describe('TestExternalTrafficPolicyLocal and TestExternalTrafficPolicyCluster', () => {
  const service = (policy: 'Local' | 'Cluster'): Service =>
    makeService(
      'ns1',
      'svc1',
      {
        type: 'LoadBalancer',
        externalTrafficPolicy: policy,
        clusterIP: '172.30.0.41',
        externalIPs: ['192.168.99.11'],
        ports: [{ ...p80, nodePort: 3001, targetPort: 80 }],
        ...(policy === 'Local' ? { healthCheckNodePort: 30000 } : {}),
      },
      { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
    );
  const slices = [simpleSlice('ns1', 'svc1', tcp80(), [{ addresses: ['10.180.0.1'] }, { addresses: ['10.180.2.1'], nodeName: TEST_NODE_NAME }])];
  const both = '10.180.0.1:80, 10.180.2.1:80';
  const localOnly = '10.180.2.1:80';
  describe('Local', () => {
    runPacketFlowTests([service('Local')], slices, [
      { name: 'pod to cluster IP hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: both, masq: false },
      { name: 'pod to external IP hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '192.168.99.11', destPort: 80, output: both, masq: false },
      { name: 'external to external IP hits only local endpoint, unmasqueraded', sourceIP: testExternalClient, destIP: '192.168.99.11', destPort: 80, output: localOnly, masq: false },
      { name: 'pod to LB IP hits only both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: both, masq: false },
      { name: 'external to LB IP hits only local endpoint, unmasqueraded', sourceIP: testExternalClient, destIP: '1.2.3.4', destPort: 80, output: localOnly, masq: false },
      { name: 'pod to NodePort hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: testNodeIP, destPort: 3001, output: both, masq: false },
      { name: 'external to NodePort hits only local endpoint, unmasqueraded', sourceIP: testExternalClient, destIP: testNodeIP, destPort: 3001, output: localOnly, masq: false },
    ]);
  });
  describe('Cluster', () => {
    runPacketFlowTests([service('Cluster')], slices, [
      { name: 'pod to cluster IP hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: both, masq: false },
      { name: 'pod to external IP hits both endpoints, masqueraded', sourceIP: '10.0.0.2', destIP: '192.168.99.11', destPort: 80, output: both, masq: true },
      { name: 'external to external IP hits both endpoints, masqueraded', sourceIP: testExternalClient, destIP: '192.168.99.11', destPort: 80, output: both, masq: true },
      { name: 'pod to LB IP hits both endpoints, masqueraded', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: both, masq: true },
      { name: 'external to LB IP hits both endpoints, masqueraded', sourceIP: testExternalClient, destIP: '1.2.3.4', destPort: 80, output: both, masq: true },
      { name: 'pod to NodePort hits both endpoints, masqueraded', sourceIP: '10.0.0.2', destIP: testNodeIP, destPort: 3001, output: both, masq: true },
      { name: 'external to NodePort hits both endpoints, masqueraded', sourceIP: testExternalClient, destIP: testNodeIP, destPort: 3001, output: both, masq: true },
    ]);
  });
});

it('the fake proxier treats the same addresses as local as upstream (testNodeIPs are FAKE_INTERFACE_ADDRESSES without loopback)', () => {
  expect(FAKE_INTERFACE_ADDRESSES.filter((a) => a !== '127.0.0.1' && a !== '::1')).toEqual(testNodeIPs);
});

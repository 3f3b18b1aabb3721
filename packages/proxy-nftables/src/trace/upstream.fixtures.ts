// Upstream's packet-flow expectations for the nftables tracer: the packets of
// pkg/proxy/nftables/helpers_test.go's TestTracePacketV4 and TestTracePacketV6 (their
// runPacketFlowTests calls), each with the output upstream expects (the DNAT destinations of
// every endpoint joined by ", ", or DROP, REJECT, or "" for no match) and whether the packet is
// masqueraded. The rulesets they run on are ../read/fixtures/trace-packet.v4.nft and
// trace-packet.v6.nft. Test-only: excluded from the library build.
//
// Which version: TestTracePacketV6's ruleset has v1.33's layout exactly (filter-prerouting,
// -input, -forward, -output at -110, filter-output-post-dnat at -90, service-endpoints-check,
// nodeport-endpoints-check, cluster-ips-check, `tcp dport` in the ClusterIP masquerade rule),
// the rule texts of v1.33's proxier.go, and is also the dump knftables v0.0.18 (the version
// v1.33 requires) keeps in fake_test.go; TestTracePacketV4's ruleset is of the earlier layout
// (one endpoints-check chain) and is kept as upstream wrote it. TestTracePacketV4's packets also
// run on TestOverallNFTablesRules' v1.33 ruleset (../read/fixtures/overall-rules.v4.nft).
// upstream: pkg/proxy/nftables/proxier_test.go (the test node's addresses: testNodeIP,
// testNodeIPAlt, testExternalIP, testNodeIPv6, testNodeIPv6Alt, testExternalClient,
// testExternalClientBlocked).
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice, Service, ServicePort } from '@kubesvc/api-types';
import { makeService, makeSlice } from '@kubesvc/testkit';
import type { NftablesProxierConfigOptions } from '../config.js';
import type { Trace } from './trace-types.js';

export const TEST_NODE_IP = '192.168.0.2';
export const TEST_NODE_IP_ALT = '192.168.1.2';
export const TEST_EXTERNAL_IP = '192.168.99.11';
export const TEST_NODE_IPV6 = '2001:db8::1';
export const TEST_NODE_IPV6_ALT = '2001:db8:1::2';
export const TEST_EXTERNAL_CLIENT = '203.0.113.2';
export const TEST_EXTERNAL_CLIENT_BLOCKED = '203.0.113.130';

/** testNodeIPs: what the tracer treats as local (`fib daddr type local`). */
export const TEST_NODE_IPS: readonly string[] = [TEST_NODE_IP, TEST_NODE_IP_ALT, TEST_EXTERNAL_IP, TEST_NODE_IPV6, TEST_NODE_IPV6_ALT];

/** A packetFlowTest: protocol defaults to TCP as upstream's runPacketFlowTests does. */
export interface PacketFlowTest {
  readonly name: string;
  readonly sourceIP: string;
  readonly protocol?: 'TCP' | 'UDP' | 'SCTP';
  readonly destIP: string;
  readonly destPort: number;
  readonly output: string;
  readonly masq: boolean;
}

/** TestTracePacketV4 (rules: trace-packet.v4.nft, based on TestOverallNFTablesRules). */
export const TRACE_PACKET_V4: readonly PacketFlowTest[] = [
  { name: 'no match', sourceIP: '10.0.0.2', destIP: '10.0.0.3', destPort: 80, output: '', masq: false },
  { name: 'single endpoint', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80', masq: false },
  { name: 'multiple endpoints', sourceIP: '10.0.0.2', destIP: '172.30.0.44', destPort: 80, output: '10.180.0.4:80, 10.180.0.5:80', masq: false },
  { name: 'local, mark for masquerade', sourceIP: TEST_NODE_IP, destIP: '192.168.99.22', destPort: 80, output: '10.180.0.2:80', masq: true },
  { name: 'DROP', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '192.168.99.22', destPort: 80, output: 'DROP', masq: false },
  { name: 'REJECT', sourceIP: '10.0.0.2', destIP: '172.30.0.46', destPort: 80, output: 'REJECT', masq: false },
  { name: 'blocked external to loadbalancer IP', sourceIP: TEST_EXTERNAL_CLIENT_BLOCKED, destIP: '5.6.7.8', destPort: 80, output: 'DROP', masq: false },
  { name: 'pod to nodePort', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: '10.180.0.2:80', masq: false },
];

const V6_OUTPUT = '[fd00:10:180::1]:80, [fd00:10:180::2:1]:80';

/** TestTracePacketV6 (rules: trace-packet.v6.nft, based on the "basic tests" of TestNodePorts for IPv6). */
export const TRACE_PACKET_V6: readonly PacketFlowTest[] = [
  { name: 'pod to cluster IP', sourceIP: 'fd00:10::2', destIP: 'fd00:172:30::41', destPort: 80, output: V6_OUTPUT, masq: false },
  { name: 'external to nodePort', sourceIP: '2600:5200::1', destIP: TEST_NODE_IPV6, destPort: 3001, output: V6_OUTPUT, masq: true },
  { name: 'node to nodePort', sourceIP: TEST_NODE_IPV6, destIP: TEST_NODE_IPV6, destPort: 3001, output: V6_OUTPUT, masq: true },
];

// The per-feature tests of proxier_test.go: each syncs a NewFakeProxier over its Services and
// EndpointSlices, then runs its packets through the ruleset the proxier wrote. The packets
// and their expected outputs below are upstream's; the Services and EndpointSlices are
// upstream's, written with the testkit's builders. (Read from a proxier_test.go of the later
// base-chain layout, filter-prerouting-pre-dnat: the packets and outputs are the same facts
// about a Service, and here they run on the rules the v1.33 builder writes.) Where upstream
// deletes the EndpointSlice and syncs again, the case after the deletion is its own test here,
// the Service synced without EndpointSlices.


const TEST_NODE_NAME = 'test-node';

/** One of upstream's per-feature tests: what it syncs, and the packets it runs. */
export interface FeatureTest {
  readonly name: string;
  readonly config?: Partial<NftablesProxierConfigOptions>;
  readonly services: readonly Service[];
  readonly slices: readonly EndpointSlice[];
  readonly packets: readonly PacketFlowTest[];
}

const tcp = (name: string, port: number, extra: Partial<ServicePort> = {}): ServicePort => ({ name, port, protocol: 'TCP', ...extra });
const epPort = (name: string, port: number, protocol: 'TCP' | 'UDP' | 'SCTP' = 'TCP'): DiscoveryEndpointPort => ({ name, port, protocol });
const local = (ip: string): DiscoveryEndpoint => ({ addresses: [ip], nodeName: TEST_NODE_NAME });
const remote = (ip: string, nodeName?: string): DiscoveryEndpoint => (nodeName === undefined ? { addresses: [ip] } : { addresses: [ip], nodeName });

/** TestNoEndpointsReject: a LoadBalancer Service without endpoints rejects on every address. */
const noEndpointsReject: FeatureTest = {
  name: 'TestNoEndpointsReject',
  services: [
    makeService(
      'ns1',
      'svc1',
      { type: 'LoadBalancer', clusterIP: '172.30.0.41', externalIPs: ['192.168.99.11'], ports: [tcp('p80', 80, { nodePort: 3001 })] },
      { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
    ),
  ],
  slices: [],
  packets: [
    { name: 'pod to cluster IP with no endpoints', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: 'REJECT', masq: false },
    { name: 'external to external IP with no endpoints', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '192.168.99.11', destPort: 80, output: 'REJECT', masq: false },
    { name: 'pod to NodePort with no endpoints', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: 'REJECT', masq: false },
    { name: 'external to NodePort with no endpoints', sourceIP: TEST_EXTERNAL_CLIENT, destIP: TEST_NODE_IP, destPort: 3001, output: 'REJECT', masq: false },
    { name: 'pod to LoadBalancer IP with no endpoints', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: 'REJECT', masq: false },
    { name: 'external to LoadBalancer IP with no endpoints', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: 'REJECT', masq: false },
  ],
};

/** TestClusterIPGeneral: ports, target ports, protocols, hairpin, unallocated ClusterIPs. */
const clusterIPGeneral: FeatureTest = {
  name: 'TestClusterIPGeneral',
  services: [
    makeService('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: [tcp('http', 80)] }),
    makeService('ns2', 'svc2', {
      clusterIP: '172.30.0.42',
      ports: [
        tcp('http', 80),
        tcp('https', 443, { targetPort: 8443 }),
        { name: 'dns-udp', port: 53, protocol: 'UDP' },
        tcp('dns-tcp', 53, { targetPort: 5353 }),
        { name: 'dns-sctp', port: 53, protocol: 'SCTP' },
      ],
    }),
  ],
  slices: [
    makeSlice('ns1', 'svc1', 1, 'IPv4', [local('10.180.0.1')], [epPort('http', 80)]),
    makeSlice(
      'ns2',
      'svc2',
      1,
      'IPv4',
      [local('10.180.0.1'), remote('10.180.2.1', 'node2')],
      [epPort('http', 80), epPort('https', 8443), epPort('dns-udp', 53, 'UDP'), epPort('dns-tcp', 5353), epPort('dns-sctp', 53, 'SCTP')],
    ),
  ],
  packets: [
    { name: 'simple clusterIP', sourceIP: '10.180.0.2', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80', masq: false },
    { name: 'hairpin to cluster IP', sourceIP: '10.180.0.1', destIP: '172.30.0.41', destPort: 80, output: '10.180.0.1:80', masq: true },
    { name: 'clusterIP with multiple endpoints', sourceIP: '10.180.0.2', destIP: '172.30.0.42', destPort: 80, output: '10.180.0.1:80, 10.180.2.1:80', masq: false },
    { name: 'clusterIP with TargetPort', sourceIP: '10.180.0.2', destIP: '172.30.0.42', destPort: 443, output: '10.180.0.1:8443, 10.180.2.1:8443', masq: false },
    {
      name: 'clusterIP with TCP, UDP, and SCTP on same port (TCP)',
      sourceIP: '10.180.0.2',
      protocol: 'TCP',
      destIP: '172.30.0.42',
      destPort: 53,
      output: '10.180.0.1:5353, 10.180.2.1:5353',
      masq: false,
    },
    {
      name: 'clusterIP with TCP, UDP, and SCTP on same port (UDP)',
      sourceIP: '10.180.0.2',
      protocol: 'UDP',
      destIP: '172.30.0.42',
      destPort: 53,
      output: '10.180.0.1:53, 10.180.2.1:53',
      masq: false,
    },
    {
      name: 'clusterIP with TCP, UDP, and SCTP on same port (SCTP)',
      sourceIP: '10.180.0.2',
      protocol: 'SCTP',
      destIP: '172.30.0.42',
      destPort: 53,
      output: '10.180.0.1:53, 10.180.2.1:53',
      masq: false,
    },
    { name: 'TCP-only port does not match UDP traffic', sourceIP: '10.180.0.2', protocol: 'UDP', destIP: '172.30.0.42', destPort: 80, output: 'REJECT', masq: false },
    { name: "svc1 does not accept svc2's ports", sourceIP: '10.180.0.2', destIP: '172.30.0.41', destPort: 443, output: 'REJECT', masq: false },
    { name: 'packet to unallocated cluster ip', sourceIP: '10.180.0.2', destIP: '172.30.0.50', destPort: 80, output: 'DROP', masq: false },
  ],
};

const LB_EP = '10.180.0.1:80';

/** TestLoadBalancer: LoadBalancerSourceRanges, which NodePorts bypass. */
const loadBalancer: FeatureTest = {
  name: 'TestLoadBalancer',
  services: [
    makeService(
      'ns1',
      'svc1',
      {
        type: 'LoadBalancer',
        clusterIP: '172.30.0.41',
        ports: [tcp('p80', 80, { nodePort: 3001 })],
        // Excess whitespace must be ignored.
        loadBalancerSourceRanges: ['192.168.0.0/24', ' 203.0.113.0/25'],
      },
      { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { ip: '5.6.7.8' }] } },
    ),
  ],
  slices: [makeSlice('ns1', 'svc1', 1, 'IPv4', [remote('10.180.0.1')], [epPort('p80', 80)])],
  packets: [
    { name: 'pod to cluster IP', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: LB_EP, masq: false },
    { name: 'external to nodePort', sourceIP: TEST_EXTERNAL_CLIENT, destIP: TEST_NODE_IP, destPort: 3001, output: LB_EP, masq: true },
    { name: 'nodePort bypasses LoadBalancerSourceRanges', sourceIP: TEST_EXTERNAL_CLIENT_BLOCKED, destIP: TEST_NODE_IP, destPort: 3001, output: LB_EP, masq: true },
    { name: 'accepted external to LB1', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: LB_EP, masq: true },
    { name: 'accepted external to LB2', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '5.6.7.8', destPort: 80, output: LB_EP, masq: true },
    { name: 'blocked external to LB1', sourceIP: TEST_EXTERNAL_CLIENT_BLOCKED, destIP: '1.2.3.4', destPort: 80, output: 'DROP', masq: false },
    { name: 'blocked external to LB2', sourceIP: TEST_EXTERNAL_CLIENT_BLOCKED, destIP: '5.6.7.8', destPort: 80, output: 'DROP', masq: false },
    { name: 'pod to LB1 (blocked by LoadBalancerSourceRanges)', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: 'DROP', masq: false },
    { name: 'pod to LB2 (blocked by LoadBalancerSourceRanges)', sourceIP: '10.0.0.2', destIP: '5.6.7.8', destPort: 80, output: 'DROP', masq: false },
    { name: 'node to LB1 (allowed by LoadBalancerSourceRanges)', sourceIP: TEST_NODE_IP, destIP: '1.2.3.4', destPort: 80, output: LB_EP, masq: true },
    { name: 'node to LB2 (allowed by LoadBalancerSourceRanges)', sourceIP: TEST_NODE_IP, destIP: '5.6.7.8', destPort: 80, output: LB_EP, masq: true },
    { name: 'same node to LB1, SNATted to LB1 (implicitly allowed)', sourceIP: '1.2.3.4', destIP: '1.2.3.4', destPort: 80, output: LB_EP, masq: true },
    { name: 'same node to LB2, SNATted to LB2 (implicitly allowed)', sourceIP: '5.6.7.8', destIP: '5.6.7.8', destPort: 80, output: LB_EP, masq: true },
  ],
};

/** TestNodePorts: one case of --nodeport-addresses in one family. */
function nodePorts(name: string, family: 4 | 6, nodePortAddresses: readonly string[] | undefined, allowAltNodeIP: boolean): FeatureTest {
  const v4 = family === 4;
  const svcIP = v4 ? '172.30.0.41' : 'fd00:172:30::41';
  const ep1 = v4 ? '10.180.0.1' : 'fd00:10:180::1';
  const ep2 = v4 ? '10.180.2.1' : 'fd00:10:180::2:1';
  const nodeIP = v4 ? TEST_NODE_IP : TEST_NODE_IPV6;
  const podIP = v4 ? '10.0.0.2' : 'fd00:10::2';
  const externalClientIP = v4 ? TEST_EXTERNAL_CLIENT : '2600:5200::1';
  const altNodeIP = v4 ? TEST_NODE_IP_ALT : TEST_NODE_IPV6_ALT;
  const join = (ip: string): string => (v4 ? `${ip}:80` : `[${ip}]:80`);
  const output = `${join(ep1)}, ${join(ep2)}`;
  return {
    name: `TestNodePorts/${name}`,
    config: { family, ...(nodePortAddresses === undefined ? {} : { nodePortAddresses }) },
    services: [makeService('ns1', 'svc1', { type: 'NodePort', clusterIP: svcIP, ports: [tcp('p80', 80, { nodePort: 3001 })] })],
    slices: [makeSlice('ns1', 'svc1', 1, v4 ? 'IPv4' : 'IPv6', [remote(ep1), local(ep2)], [epPort('p80', 80)])],
    packets: [
      { name: 'pod to cluster IP', sourceIP: podIP, destIP: svcIP, destPort: 80, output, masq: false },
      { name: 'external to nodePort', sourceIP: externalClientIP, destIP: nodeIP, destPort: 3001, output, masq: true },
      { name: 'node to nodePort', sourceIP: nodeIP, destIP: nodeIP, destPort: 3001, output, masq: true },
      allowAltNodeIP
        ? { name: 'external to nodePort on secondary IP', sourceIP: externalClientIP, destIP: altNodeIP, destPort: 3001, output, masq: true }
        : { name: 'secondary nodeIP ignores NodePorts', sourceIP: externalClientIP, destIP: altNodeIP, destPort: 3001, output: '', masq: false },
    ],
  };
}

function trafficPolicy(policy: 'Local' | 'Cluster'): FeatureTest {
  const both = '10.180.0.1:80, 10.180.2.1:80';
  const onlyLocal = '10.180.2.1:80';
  const isLocal = policy === 'Local';
  return {
    name: `TestExternalTrafficPolicy${policy}`,
    services: [
      makeService(
        'ns1',
        'svc1',
        {
          type: 'LoadBalancer',
          externalTrafficPolicy: policy,
          clusterIP: '172.30.0.41',
          externalIPs: ['192.168.99.11'],
          ports: [tcp('p80', 80, { nodePort: 3001, targetPort: 80 })],
          ...(isLocal ? { healthCheckNodePort: 30000 } : {}),
        },
        { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      ),
    ],
    slices: [makeSlice('ns1', 'svc1', 1, 'IPv4', [remote('10.180.0.1'), local('10.180.2.1')], [epPort('p80', 80)])],
    packets: isLocal
      ? [
          { name: 'pod to cluster IP hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: both, masq: false },
          { name: 'pod to external IP hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '192.168.99.11', destPort: 80, output: both, masq: false },
          { name: 'external to external IP hits only local endpoint, unmasqueraded', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '192.168.99.11', destPort: 80, output: onlyLocal, masq: false },
          { name: 'pod to LB IP hits only both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: both, masq: false },
          { name: 'external to LB IP hits only local endpoint, unmasqueraded', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: onlyLocal, masq: false },
          { name: 'pod to NodePort hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: both, masq: false },
          { name: 'external to NodePort hits only local endpoint, unmasqueraded', sourceIP: TEST_EXTERNAL_CLIENT, destIP: TEST_NODE_IP, destPort: 3001, output: onlyLocal, masq: false },
        ]
      : [
          { name: 'pod to cluster IP hits both endpoints, unmasqueraded', sourceIP: '10.0.0.2', destIP: '172.30.0.41', destPort: 80, output: both, masq: false },
          { name: 'pod to external IP hits both endpoints, masqueraded', sourceIP: '10.0.0.2', destIP: '192.168.99.11', destPort: 80, output: both, masq: true },
          { name: 'external to external IP hits both endpoints, masqueraded', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '192.168.99.11', destPort: 80, output: both, masq: true },
          { name: 'pod to LB IP hits both endpoints, masqueraded', sourceIP: '10.0.0.2', destIP: '1.2.3.4', destPort: 80, output: both, masq: true },
          { name: 'external to LB IP hits both endpoints, masqueraded', sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, output: both, masq: true },
          { name: 'pod to NodePort hits both endpoints, masqueraded', sourceIP: '10.0.0.2', destIP: TEST_NODE_IP, destPort: 3001, output: both, masq: true },
          { name: 'external to NodePort hits both endpoints, masqueraded', sourceIP: TEST_EXTERNAL_CLIENT, destIP: TEST_NODE_IP, destPort: 3001, output: both, masq: true },
        ],
  };
}

/** TestInternalTrafficPolicy: one case, and the same Service once its EndpointSlice is deleted. */
function internalTrafficPolicy(name: string, policy: 'Cluster' | 'Local', endpoints: readonly [string, string][], packet: Omit<PacketFlowTest, 'sourceIP' | 'destIP' | 'destPort'>): FeatureTest[] {
  const service = makeService('ns1', 'svc1', { clusterIP: '172.30.1.1', internalTrafficPolicy: policy, ports: [{ name: '', port: 80, protocol: 'TCP' }] });
  const slice = makeSlice('ns1', 'svc1', 1, 'IPv4', endpoints.map(([ip, nodeName]) => ({ addresses: [ip], conditions: { ready: true }, nodeName })), [epPort('', 80)]);
  const to = { sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80 };
  return [
    { name: `TestInternalTrafficPolicy/${name}`, services: [service], slices: [slice], packets: [{ ...to, ...packet }] },
    { name: `TestInternalTrafficPolicy/${name}, endpoints deleted`, services: [service], slices: [], packets: [{ ...to, name: 'endpoints deleted', output: 'REJECT', masq: false }] },
  ];
}

type Conditions = { readonly ready: boolean; readonly serving: boolean; readonly terminating: boolean };
const READY: Conditions = { ready: true, serving: true, terminating: false };
const TERMINATING: Conditions = { ready: false, serving: true, terminating: true };
const GONE: Conditions = { ready: false, serving: false, terminating: true };

/**
 * TestTerminatingEndpointsTrafficPolicyLocal and ...Cluster: one case, and the Service once its
 * EndpointSlice is deleted. With Cluster policy, traffic from outside is masqueraded.
 */
function terminating(
  policy: 'Local' | 'Cluster',
  name: string,
  endpoints: readonly [string, Conditions, string][],
  toClusterIP: PacketFlowTest['output'],
  toLB: PacketFlowTest['output'],
): FeatureTest[] {
  const service = makeService(
    'ns1',
    'svc1',
    { clusterIP: '172.30.1.1', type: 'LoadBalancer', externalTrafficPolicy: policy, ports: [{ name: '', targetPort: 80, port: 80, protocol: 'TCP' }], healthCheckNodePort: 30000 },
    { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
  );
  const slice = makeSlice('ns1', 'svc1', 1, 'IPv4', endpoints.map(([ip, conditions, nodeName]) => ({ addresses: [ip], conditions, nodeName })), [epPort('', 80)]);
  const pod = { sourceIP: '10.0.0.2', destIP: '172.30.1.1', destPort: 80, masq: false };
  const external = { sourceIP: TEST_EXTERNAL_CLIENT, destIP: '1.2.3.4', destPort: 80, masq: false };
  const test = `TestTerminatingEndpointsTrafficPolicy${policy}/${name}`;
  // Cluster policy masquerades what it DNATs from outside; a REJECT or DROP is not DNATed.
  const externalMasq = policy === 'Cluster' && toLB !== 'REJECT' && toLB !== 'DROP';
  return [
    {
      name: test,
      services: [service],
      slices: [slice],
      packets: [
        { ...pod, name: 'pod to clusterIP', output: toClusterIP },
        { ...external, name: 'external to LB', output: toLB, masq: externalMasq },
      ],
    },
    {
      name: `${test}, endpoints deleted`,
      services: [service],
      slices: [],
      packets: [
        { ...pod, name: 'pod to clusterIP after endpoints deleted', output: 'REJECT' },
        { ...external, name: 'external to LB after endpoints deleted', output: 'REJECT' },
      ],
    },
  ];
}

/** TestInternalExternalMasquerade: three LoadBalancers (eTP Cluster, eTP Local, iTP Local), each with a local and a remote endpoint. */
function internalExternalMasquerade(): FeatureTest[] {
  const lb = (ns: string, ip: string, nodePort: number, lbIP: string, extra: Partial<Service['spec']>): Service =>
    makeService(ns, ns.replace('ns', 'svc'), { type: 'LoadBalancer', clusterIP: ip, ports: [tcp('p80', 80, { nodePort })], ...extra }, { loadBalancer: { ingress: [{ ip: lbIP }] } });
  const services = [
    lb('ns1', '172.30.0.41', 3001, '1.2.3.4', { healthCheckNodePort: 30001 }),
    lb('ns2', '172.30.0.42', 3002, '5.6.7.8', { healthCheckNodePort: 30002, externalTrafficPolicy: 'Local' }),
    lb('ns3', '172.30.0.43', 3003, '9.10.11.12', { healthCheckNodePort: 30003, internalTrafficPolicy: 'Local' }),
  ];
  const slices = [1, 2, 3].map((n) => makeSlice(`ns${n}`, `svc${n}`, 1, 'IPv4', [local(`10.180.0.${n}`), remote(`10.180.1.${n}`, 'remote')], [epPort('p80', 80)]));
  const both = (n: number): string => `10.180.0.${n}:80, 10.180.1.${n}:80`;
  const flow = (name: string, sourceIP: string, destIP: string, destPort: number, output: string, masq: boolean): PacketFlowTest => ({ name, sourceIP, destIP, destPort, output, masq });
  const pod = '10.0.0.2';
  const node = TEST_NODE_IP;
  const ext = TEST_EXTERNAL_CLIENT;
  const flowTests: readonly PacketFlowTest[] = [
    flow('pod to ClusterIP', pod, '172.30.0.41', 80, both(1), false),
    flow('pod to NodePort', pod, node, 3001, both(1), true),
    flow('pod to LB', pod, '1.2.3.4', 80, both(1), true),
    flow('node to ClusterIP', node, '172.30.0.41', 80, both(1), true),
    flow('node to NodePort', node, node, 3001, both(1), true),
    flow('node to LB', node, '1.2.3.4', 80, both(1), true),
    flow('external to ClusterIP', ext, '172.30.0.41', 80, both(1), true),
    flow('external to NodePort', ext, node, 3001, both(1), true),
    flow('external to LB', ext, '1.2.3.4', 80, both(1), true),
    flow('pod to ClusterIP with eTP:Local', pod, '172.30.0.42', 80, both(2), false),
    flow('pod to NodePort with eTP:Local', pod, node, 3002, both(2), false),
    flow('pod to LB with eTP:Local', pod, '5.6.7.8', 80, both(2), false),
    flow('node to ClusterIP with eTP:Local', node, '172.30.0.42', 80, both(2), true),
    // Upstream sends this one to port 3001 (svc1's NodePort).
    flow('node to NodePort with eTP:Local', node, node, 3001, both(1), true),
    flow('node to LB with eTP:Local', node, '5.6.7.8', 80, both(2), true),
    flow('external to ClusterIP with eTP:Local', ext, '172.30.0.42', 80, both(2), true),
    flow('external to NodePort with eTP:Local', ext, node, 3002, '10.180.0.2:80', false),
    flow('external to LB with eTP:Local', ext, '5.6.7.8', 80, '10.180.0.2:80', false),
    flow('pod to ClusterIP with iTP:Local', pod, '172.30.0.43', 80, '10.180.0.3:80', false),
    flow('pod to NodePort with iTP:Local', pod, node, 3003, both(3), true),
    flow('pod to LB with iTP:Local', pod, '9.10.11.12', 80, both(3), true),
    flow('node to ClusterIP with iTP:Local', node, '172.30.0.43', 80, '10.180.0.3:80', true),
    flow('node to NodePort with iTP:Local', node, node, 3003, both(3), true),
    flow('node to LB with iTP:Local', node, '9.10.11.12', 80, both(3), true),
    flow('external to ClusterIP with iTP:Local', ext, '172.30.0.43', 80, '10.180.0.3:80', true),
    flow('external to NodePort with iTP:Local', ext, node, 3003, both(3), true),
    flow('external to LB with iTP:Local', ext, '9.10.11.12', 80, both(3), true),
  ];
  type Override = { readonly output?: string; readonly masq?: boolean };
  const noDetector: Record<string, Override> = {
    'node to ClusterIP': { masq: false },
    'node to ClusterIP with eTP:Local': { masq: false },
    'node to ClusterIP with iTP:Local': { masq: false },
    'external to ClusterIP': { masq: false },
    'external to ClusterIP with eTP:Local': { masq: false },
    'external to ClusterIP with iTP:Local': { masq: false },
    'pod to NodePort with eTP:Local': { output: '10.180.0.2:80' },
    'pod to LB with eTP:Local': { output: '10.180.0.2:80' },
  };
  const masqueradeAll: Record<string, Override> = {
    'pod to ClusterIP': { masq: true },
    'pod to ClusterIP with eTP:Local': { masq: true },
    'pod to ClusterIP with iTP:Local': { masq: true },
  };
  const cases: [string, Partial<NftablesProxierConfigOptions>, Record<string, Override>][] = [
    ['base', {}, {}],
    ['no LocalTrafficDetector', { localDetector: { kind: 'none' } }, noDetector],
    ['masqueradeAll', { masqueradeAll: true }, masqueradeAll],
    [
      'masqueradeAll, no LocalTrafficDetector',
      { masqueradeAll: true, localDetector: { kind: 'none' } },
      { ...masqueradeAll, 'pod to NodePort with eTP:Local': { output: '10.180.0.2:80' }, 'pod to LB with eTP:Local': { output: '10.180.0.2:80' } },
    ],
  ];
  return cases.map(([name, config, overrides]) => ({
    name: `TestInternalExternalMasquerade/${name}`,
    config,
    services,
    slices,
    packets: flowTests.map((f) => ({ ...f, ...overrides[f.name] })),
  }));
}

export const FEATURE_TESTS: readonly FeatureTest[] = [
  noEndpointsReject,
  clusterIPGeneral,
  loadBalancer,
  nodePorts('ipv4', 4, undefined, false),
  nodePorts('ipv4, multiple nodeport-addresses', 4, ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'], true),
  nodePorts('ipv6', 6, undefined, false),
  nodePorts('ipv6, multiple nodeport-addresses', 6, ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64', '2001:db8:1::2/128'], true),
  trafficPolicy('Local'),
  trafficPolicy('Cluster'),
  ...internalTrafficPolicy('internalTrafficPolicy is cluster', 'Cluster', [['10.0.1.1', TEST_NODE_NAME], ['10.0.1.2', 'node1'], ['10.0.1.3', 'node2']], {
    name: 'pod to ClusterIP hits all endpoints',
    output: '10.0.1.1:80, 10.0.1.2:80, 10.0.1.3:80',
    masq: false,
  }),
  ...internalTrafficPolicy('internalTrafficPolicy is local and there is one local endpoint', 'Local', [['10.0.1.1', TEST_NODE_NAME], ['10.0.1.2', 'node1'], ['10.0.1.3', 'node2']], {
    name: 'pod to ClusterIP hits only local endpoint',
    output: '10.0.1.1:80',
    masq: false,
  }),
  ...internalTrafficPolicy('internalTrafficPolicy is local and there are multiple local endpoints', 'Local', [['10.0.1.1', TEST_NODE_NAME], ['10.0.1.2', TEST_NODE_NAME], ['10.0.1.3', 'node2']], {
    name: 'pod to ClusterIP hits all local endpoints',
    output: '10.0.1.1:80, 10.0.1.2:80',
    masq: false,
  }),
  ...internalTrafficPolicy('internalTrafficPolicy is local and there are no local endpoints', 'Local', [['10.0.1.1', 'node0'], ['10.0.1.2', 'node1'], ['10.0.1.3', 'node2']], {
    name: 'no endpoints',
    output: 'DROP',
    masq: false,
  }),
  ...terminating(
    'Local',
    'ready endpoints exist',
    [
      ['10.0.1.1', READY, TEST_NODE_NAME],
      ['10.0.1.2', READY, TEST_NODE_NAME],
      ['10.0.1.3', TERMINATING, TEST_NODE_NAME],
      ['10.0.1.4', GONE, TEST_NODE_NAME],
      ['10.0.1.5', READY, 'node-1'],
    ],
    '10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80',
    '10.0.1.1:80, 10.0.1.2:80',
  ),
  ...terminating(
    'Local',
    'only terminating endpoints exist',
    [
      ['10.0.1.2', TERMINATING, TEST_NODE_NAME],
      ['10.0.1.3', TERMINATING, TEST_NODE_NAME],
      ['10.0.1.4', GONE, TEST_NODE_NAME],
      ['10.0.1.5', READY, 'node-1'],
    ],
    '10.0.1.5:80',
    '10.0.1.2:80, 10.0.1.3:80',
  ),
  ...terminating('Local', 'terminating endpoints on remote node', [['10.0.1.5', TERMINATING, 'node-1']], '10.0.1.5:80', 'DROP'),
  ...terminating(
    'Local',
    'no usable endpoints on any node',
    [
      ['10.0.1.5', GONE, TEST_NODE_NAME],
      ['10.0.1.5', GONE, 'node-1'],
    ],
    'REJECT',
    'REJECT',
  ),
  ...terminating(
    'Cluster',
    'ready endpoints exist',
    [
      ['10.0.1.1', READY, TEST_NODE_NAME],
      ['10.0.1.2', READY, TEST_NODE_NAME],
      ['10.0.1.3', TERMINATING, 'another-node'],
      ['10.0.1.4', GONE, 'another-node'],
      ['10.0.1.5', READY, 'another-node'],
    ],
    '10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80',
    '10.0.1.1:80, 10.0.1.2:80, 10.0.1.5:80',
  ),
  ...terminating(
    'Cluster',
    'only terminating endpoints exist',
    [
      ['10.0.1.2', TERMINATING, TEST_NODE_NAME],
      ['10.0.1.3', TERMINATING, TEST_NODE_NAME],
      ['10.0.1.4', GONE, 'another-node'],
      ['10.0.1.5', TERMINATING, 'another-node'],
    ],
    '10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80',
    '10.0.1.2:80, 10.0.1.3:80, 10.0.1.5:80',
  ),
  ...terminating('Cluster', 'terminating endpoints on remote node', [['10.0.1.5', TERMINATING, 'node-1']], '10.0.1.5:80', '10.0.1.5:80'),
  ...terminating(
    'Cluster',
    'no usable endpoints on any node',
    [
      ['10.0.1.5', GONE, TEST_NODE_NAME],
      ['10.0.1.5', GONE, 'node-1'],
    ],
    'REJECT',
    'REJECT',
  ),
  ...internalExternalMasquerade(),
];

/** upstream's tracePacket output: every DNAT destination, or DROP / REJECT, joined by ", ". */
export function upstreamOutput(trace: Trace): string {
  const outputs: string[] = [];
  for (const o of trace.outcomes) {
    if (o.kind === 'drop') outputs.push('DROP');
    else if (o.kind === 'reject') outputs.push('REJECT');
    else if (o.kind === 'dnat' && o.dnat !== undefined) outputs.push(o.dnat);
  }
  return outputs.join(', ');
}

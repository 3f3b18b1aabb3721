// Upstream's packet-flow expectations for the nftables tracer: the packets of
// pkg/proxy/nftables/helpers_test.go's TestTracePacketV4 and TestTracePacketV6 (their
// runPacketFlowTests calls), each with the output upstream expects (the DNAT destinations of
// every endpoint joined by ", ", or DROP, REJECT, or "" for no match) and whether the packet is
// masqueraded. The rulesets they run on are ../read/fixtures/trace-packet.v4.nft and
// trace-packet.v6.nft. Test-only: excluded from the library build.
// upstream: pkg/proxy/nftables/proxier_test.go (the test node's addresses: testNodeIP,
// testNodeIPAlt, testExternalIP, testNodeIPv6, testNodeIPv6Alt, testExternalClient,
// testExternalClientBlocked).

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

// Upstream's nftables proxier tests as vectors: their fake proxier's settings, the Services
// and EndpointSlices they sync, and the rulesets they expect (knftables' fake Dump, compared
// after helpers_test.go's sortNFTablesTransaction). Test-only: excluded from the library build.
// upstream: pkg/proxy/nftables/proxier_test.go and helpers_test.go, as of the v1.33 layout
// (base chains filter-prerouting, filter-input, filter-forward, filter-output at -110 and
// filter-output-post-dnat at -90; service-endpoints-check and nodeport-endpoints-check; the
// nodeport-ips set; cluster-ips-check with the ServiceCIDRs; `tcp dport` in the ClusterIP
// masquerade rule), the same chain names and rule texts as v1.33's proxier.go. The texts are
// upstream's expected rulesets, re-typed.
import type { DiscoveryEndpoint, DiscoveryEndpointPort, EndpointSlice, Service } from '@kubesvc/api-types';
import { makeService, makeSlice } from '@kubesvc/testkit';
import { nftablesProxierConfig, type NftablesProxierConfig, type NftablesProxierConfigOptions } from '../config.js';

export const TEST_NODE_NAME = 'test-node';
export const TEST_NODE_IP = '192.168.0.2';
export const TEST_NODE_IPV6 = '2001:db8::1';
/** NewFakeProxier's network interfaces: lo, then eth0. */
export const FAKE_INTERFACE_ADDRESSES = ['127.0.0.1', '::1', '192.168.0.2', '192.168.1.2', '192.168.99.11', '2001:db8::1', '2001:db8:1::2'];

/**
 * NewFakeProxier: the pod CIDR detector (10.0.0.0/8, fd00:10::/64), mark 0x4000, the node IP
 * of the family, NodePorts on the node IPs only, and the ServiceCIDRs 172.30.0.0/16 and
 * fd00:10:96::/112.
 */
export function fakeNftablesConfig(overrides: Partial<NftablesProxierConfigOptions> = {}): NftablesProxierConfig {
  const family = overrides.family ?? 4;
  const result = nftablesProxierConfig({
    nodeName: TEST_NODE_NAME,
    nodeIPs: FAKE_INTERFACE_ADDRESSES,
    nodeIP: family === 4 ? TEST_NODE_IP : TEST_NODE_IPV6,
    family,
    localDetector: { kind: 'cidr', cidr: family === 4 ? '10.0.0.0/8' : 'fd00:10::/64' },
    masqueradeMark: '0x4000',
    nodePortAddresses: [`${TEST_NODE_IP}/32`, `${TEST_NODE_IPV6}/128`],
    serviceCIDRs: family === 4 ? ['172.30.0.0/16'] : ['fd00:10:96::/112'],
    ...overrides,
  });
  if (!result.ok) throw new Error(`fixture config refused: ${result.error.message}`);
  return result.value;
}

/** dedent.Dedent of a template: drop the common leading indentation and the first newline. */
export function dedent(text: string): string {
  const lines = text.replace(/^\n/, '').split('\n');
  const indents = lines.filter((l) => l.trim() !== '').map((l) => /^[ \t]*/.exec(l)?.[0].length ?? 0);
  const cut = Math.min(...indents);
  return lines.map((l) => l.slice(cut)).join('\n');
}

// helpers_test.go objectOrder: the order object types sort into (higher first).
const OBJECT_ORDER: Readonly<Record<string, number>> = { table: 10, chain: 9, rule: 8, set: 7, map: 6, element: 5 };

/**
 * helpers_test.go sortNFTablesTransaction: blank and `#` lines dropped, then a stable sort by
 * object type, then by object name; rules keep their order, other lines sort by their text.
 */
export function sortNFTablesTransaction(tx: string): string {
  const lines = tx.split('\n').filter((line) => line !== '' && !line.startsWith('#'));
  const keyed = lines.map((line, index) => ({ line, index, words: line.split(' ') }));
  keyed.sort((a, b) => {
    if (a.words.length < 5 || b.words.length < 5) return a.index - b.index;
    const [ta, tb] = [a.words[1] ?? '', b.words[1] ?? ''];
    if (ta !== tb) return (OBJECT_ORDER[tb] ?? 0) - (OBJECT_ORDER[ta] ?? 0);
    const [na, nb] = [a.words[4] ?? '', b.words[4] ?? ''];
    if (na !== nb) return na < nb ? -1 : 1;
    if (ta === 'rule') return a.index - b.index;
    return a.line < b.line ? -1 : a.line > b.line ? 1 : a.index - b.index;
  });
  return keyed.map((k) => k.line).join('\n');
}

const p80 = { name: 'p80', port: 80, protocol: 'TCP' as const };
const tcp80: DiscoveryEndpointPort = { name: 'p80', port: 80, protocol: 'TCP' };
const slice = (namespace: string, service: string, endpoints: DiscoveryEndpoint[]): EndpointSlice =>
  makeSlice(namespace, service, 1, 'IPv4', endpoints, [tcp80]);

/** The cluster of upstream's TestOverallNFTablesRules. */
export const overallServices: readonly Service[] = [
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
  makeService('ns4', 'svc4', { type: 'NodePort', clusterIP: '172.30.0.44', externalIPs: ['192.168.99.33'], ports: [{ ...p80, targetPort: 80 }] }),
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

export const overallSlices: readonly EndpointSlice[] = [
  slice('ns1', 'svc1', [{ addresses: ['10.180.0.1'] }]),
  // No nodeName: not local, so ns2/svc2 has no local endpoints.
  slice('ns2', 'svc2', [{ addresses: ['10.180.0.2'] }]),
  slice('ns3', 'svc3', [{ addresses: ['10.180.0.3'] }]),
  slice('ns4', 'svc4', [{ addresses: ['10.180.0.4'] }, { addresses: ['10.180.0.5'], nodeName: TEST_NODE_NAME }]),
  slice('ns5', 'svc5', [{ addresses: ['10.180.0.3'] }]),
];

/** proxier_test.go baseRules: what every sync of NewFakeProxier's proxier writes. */
export const BASE_RULES = dedent(`
  add table ip kube-proxy { comment "rules for kube-proxy" ; }

  add set ip kube-proxy cluster-ips { type ipv4_addr ; comment "Active ClusterIPs" ; }
  add set ip kube-proxy nodeport-ips { type ipv4_addr ; comment "IPs that accept NodePort traffic" ; }

  add map ip kube-proxy firewall-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "destinations that are subject to LoadBalancerSourceRanges" ; }
  add map ip kube-proxy no-endpoint-nodeports { type inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to service nodeports with no endpoints" ; }
  add map ip kube-proxy no-endpoint-services { type ipv4_addr . inet_proto . inet_service : verdict ; comment "vmap to drop or reject packets to services with no endpoints" ; }
  add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "ClusterIP, ExternalIP and LoadBalancer IP traffic" ; }
  add map ip kube-proxy service-nodeports { type inet_proto . inet_service : verdict ; comment "NodePort traffic" ; }

  add chain ip kube-proxy cluster-ips-check
  add chain ip kube-proxy filter-prerouting { type filter hook prerouting priority -110 ; }
  add chain ip kube-proxy filter-forward { type filter hook forward priority -110 ; }
  add chain ip kube-proxy filter-input { type filter hook input priority -110 ; }
  add chain ip kube-proxy filter-output { type filter hook output priority -110 ; }
  add chain ip kube-proxy filter-output-post-dnat { type filter hook output priority -90 ; }
  add chain ip kube-proxy firewall-check
  add chain ip kube-proxy mark-for-masquerade
  add chain ip kube-proxy masquerading
  add chain ip kube-proxy nat-output { type nat hook output priority -100 ; }
  add chain ip kube-proxy nat-postrouting { type nat hook postrouting priority 100 ; }
  add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -100 ; }
  add chain ip kube-proxy nodeport-endpoints-check
  add chain ip kube-proxy reject-chain { comment "helper for @no-endpoint-services / @no-endpoint-nodeports" ; }
  add chain ip kube-proxy services
  add chain ip kube-proxy service-endpoints-check

  add rule ip kube-proxy cluster-ips-check ip daddr @cluster-ips reject comment "Reject traffic to invalid ports of ClusterIPs"
  add rule ip kube-proxy cluster-ips-check ip daddr { 172.30.0.0/16 } drop comment "Drop traffic to unallocated ClusterIPs"
  add rule ip kube-proxy filter-prerouting ct state new jump firewall-check
  add rule ip kube-proxy filter-forward ct state new jump service-endpoints-check
  add rule ip kube-proxy filter-forward ct state new jump cluster-ips-check
  add rule ip kube-proxy filter-input ct state new jump nodeport-endpoints-check
  add rule ip kube-proxy filter-input ct state new jump service-endpoints-check
  add rule ip kube-proxy filter-output ct state new jump service-endpoints-check
  add rule ip kube-proxy filter-output ct state new jump firewall-check
  add rule ip kube-proxy filter-output-post-dnat ct state new jump cluster-ips-check
  add rule ip kube-proxy firewall-check ip daddr . meta l4proto . th dport vmap @firewall-ips
  add rule ip kube-proxy mark-for-masquerade mark set mark or 0x4000
  add rule ip kube-proxy masquerading mark and 0x4000 == 0 return
  add rule ip kube-proxy masquerading mark set mark xor 0x4000
  add rule ip kube-proxy masquerading masquerade fully-random
  add rule ip kube-proxy nat-output jump services
  add rule ip kube-proxy nat-postrouting jump masquerading
  add rule ip kube-proxy nat-prerouting jump services
  add rule ip kube-proxy nodeport-endpoints-check ip daddr @nodeport-ips meta l4proto . th dport vmap @no-endpoint-nodeports
  add rule ip kube-proxy reject-chain reject
  add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips
  add rule ip kube-proxy services ip daddr @nodeport-ips meta l4proto . th dport vmap @service-nodeports

  add element ip kube-proxy nodeport-ips { 192.168.0.2 }
  add rule ip kube-proxy service-endpoints-check ip daddr . meta l4proto . th dport vmap @no-endpoint-services
`);

/** TestOverallNFTablesRules: the expected ruleset. */
export const TEST_OVERALL_NFTABLES_RULES =
  BASE_RULES +
  dedent(`
  # svc1
  add chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80
  add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 ip daddr 172.30.0.41 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 }

  add chain ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80
  add rule ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 ip saddr 10.180.0.1 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 meta l4proto tcp dnat to 10.180.0.1:80

  add element ip kube-proxy cluster-ips { 172.30.0.41 }
  add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80 }

  # svc2
  add chain ip kube-proxy service-42NFTM6N-ns2/svc2/tcp/p80
  add rule ip kube-proxy service-42NFTM6N-ns2/svc2/tcp/p80 ip daddr 172.30.0.42 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-42NFTM6N-ns2/svc2/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80 }
  add chain ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80
  add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 ip saddr 10.0.0.0/8 goto service-42NFTM6N-ns2/svc2/tcp/p80 comment "short-circuit pod traffic"
  add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 fib saddr type local jump mark-for-masquerade comment "masquerade local traffic"
  add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 fib saddr type local goto service-42NFTM6N-ns2/svc2/tcp/p80 comment "short-circuit local traffic"
  add chain ip kube-proxy endpoint-SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80
  add rule ip kube-proxy endpoint-SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80 ip saddr 10.180.0.2 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-SGOXE6O3-ns2/svc2/tcp/p80__10.180.0.2/80 meta l4proto tcp dnat to 10.180.0.2:80

  add element ip kube-proxy cluster-ips { 172.30.0.42 }
  add element ip kube-proxy service-ips { 172.30.0.42 . tcp . 80 : goto service-42NFTM6N-ns2/svc2/tcp/p80 }
  add element ip kube-proxy service-ips { 192.168.99.22 . tcp . 80 : goto external-42NFTM6N-ns2/svc2/tcp/p80 }
  add element ip kube-proxy service-ips { 1.2.3.4 . tcp . 80 : goto external-42NFTM6N-ns2/svc2/tcp/p80 }
  add element ip kube-proxy service-nodeports { tcp . 3001 : goto external-42NFTM6N-ns2/svc2/tcp/p80 }

  add element ip kube-proxy no-endpoint-nodeports { tcp . 3001 comment "ns2/svc2:p80" : drop }
  add element ip kube-proxy no-endpoint-services { 1.2.3.4 . tcp . 80 comment "ns2/svc2:p80" : drop }
  add element ip kube-proxy no-endpoint-services { 192.168.99.22 . tcp . 80 comment "ns2/svc2:p80" : drop }

  # svc3
  add chain ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80
  add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 ip daddr 172.30.0.43 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80 }
  add chain ip kube-proxy external-4AT6LBPK-ns3/svc3/tcp/p80
  add rule ip kube-proxy external-4AT6LBPK-ns3/svc3/tcp/p80 jump mark-for-masquerade
  add rule ip kube-proxy external-4AT6LBPK-ns3/svc3/tcp/p80 goto service-4AT6LBPK-ns3/svc3/tcp/p80
  add chain ip kube-proxy endpoint-UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80
  add rule ip kube-proxy endpoint-UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80 ip saddr 10.180.0.3 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-UEIP74TE-ns3/svc3/tcp/p80__10.180.0.3/80 meta l4proto tcp dnat to 10.180.0.3:80

  add element ip kube-proxy cluster-ips { 172.30.0.43 }
  add element ip kube-proxy service-ips { 172.30.0.43 . tcp . 80 : goto service-4AT6LBPK-ns3/svc3/tcp/p80 }
  add element ip kube-proxy service-nodeports { tcp . 3003 : goto external-4AT6LBPK-ns3/svc3/tcp/p80 }

  # svc4
  add chain ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80
  add rule ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80 ip daddr 172.30.0.44 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80 numgen random mod 2 vmap { 0 : goto endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80 , 1 : goto endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80 }
  add chain ip kube-proxy external-LAUZTJTB-ns4/svc4/tcp/p80
  add rule ip kube-proxy external-LAUZTJTB-ns4/svc4/tcp/p80 jump mark-for-masquerade
  add rule ip kube-proxy external-LAUZTJTB-ns4/svc4/tcp/p80 goto service-LAUZTJTB-ns4/svc4/tcp/p80
  add chain ip kube-proxy endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80
  add rule ip kube-proxy endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80 ip saddr 10.180.0.5 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-5RFCDDV7-ns4/svc4/tcp/p80__10.180.0.5/80 meta l4proto tcp dnat to 10.180.0.5:80
  add chain ip kube-proxy endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80
  add rule ip kube-proxy endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80 ip saddr 10.180.0.4 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-UNZV3OEC-ns4/svc4/tcp/p80__10.180.0.4/80 meta l4proto tcp dnat to 10.180.0.4:80

  add element ip kube-proxy cluster-ips { 172.30.0.44 }
  add element ip kube-proxy service-ips { 172.30.0.44 . tcp . 80 : goto service-LAUZTJTB-ns4/svc4/tcp/p80 }
  add element ip kube-proxy service-ips { 192.168.99.33 . tcp . 80 : goto external-LAUZTJTB-ns4/svc4/tcp/p80 }

  # svc5
  add set ip kube-proxy affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }
  add chain ip kube-proxy service-HVFWP5L3-ns5/svc5/tcp/p80
  add rule ip kube-proxy service-HVFWP5L3-ns5/svc5/tcp/p80 ip daddr 172.30.0.45 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-HVFWP5L3-ns5/svc5/tcp/p80 ip saddr @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 goto endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80
  add rule ip kube-proxy service-HVFWP5L3-ns5/svc5/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 }
  add chain ip kube-proxy external-HVFWP5L3-ns5/svc5/tcp/p80
  add rule ip kube-proxy external-HVFWP5L3-ns5/svc5/tcp/p80 jump mark-for-masquerade
  add rule ip kube-proxy external-HVFWP5L3-ns5/svc5/tcp/p80 goto service-HVFWP5L3-ns5/svc5/tcp/p80

  add chain ip kube-proxy endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80
  add rule ip kube-proxy endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 ip saddr 10.180.0.3 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 update @affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { ip saddr }
  add rule ip kube-proxy endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 meta l4proto tcp dnat to 10.180.0.3:80

  add chain ip kube-proxy firewall-HVFWP5L3-ns5/svc5/tcp/p80
  add rule ip kube-proxy firewall-HVFWP5L3-ns5/svc5/tcp/p80 ip saddr != { 203.0.113.0/25 } drop

  add element ip kube-proxy cluster-ips { 172.30.0.45 }
  add element ip kube-proxy service-ips { 172.30.0.45 . tcp . 80 : goto service-HVFWP5L3-ns5/svc5/tcp/p80 }
  add element ip kube-proxy service-ips { 5.6.7.8 . tcp . 80 : goto external-HVFWP5L3-ns5/svc5/tcp/p80 }
  add element ip kube-proxy service-nodeports { tcp . 3002 : goto external-HVFWP5L3-ns5/svc5/tcp/p80 }
  add element ip kube-proxy firewall-ips { 5.6.7.8 . tcp . 80 : goto firewall-HVFWP5L3-ns5/svc5/tcp/p80 }

  # svc6
  add element ip kube-proxy cluster-ips { 172.30.0.46 }
  add element ip kube-proxy no-endpoint-services { 172.30.0.46 . tcp . 80 comment "ns6/svc6:p80" : goto reject-chain }
`);

// TestSyncProxyRulesRepeated: the rulesets after each sync, from upstream's blocks per service.
const REPEATED_SVC1 = `
  add chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80
  add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 ip daddr 172.30.0.41 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-5TPGNJF2-ns1/svc1/tcp/p80__10.0.1.1/80 }
  add chain ip kube-proxy endpoint-5TPGNJF2-ns1/svc1/tcp/p80__10.0.1.1/80
  add rule ip kube-proxy endpoint-5TPGNJF2-ns1/svc1/tcp/p80__10.0.1.1/80 ip saddr 10.0.1.1 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-5TPGNJF2-ns1/svc1/tcp/p80__10.0.1.1/80 meta l4proto tcp dnat to 10.0.1.1:80
`;
const REPEATED_SVC2 = `
  add chain ip kube-proxy service-MHHHYRWA-ns2/svc2/tcp/p8080
  add rule ip kube-proxy service-MHHHYRWA-ns2/svc2/tcp/p8080 ip daddr 172.30.0.42 tcp dport 8080 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-MHHHYRWA-ns2/svc2/tcp/p8080 numgen random mod 1 vmap { 0 : goto endpoint-7RVP4LUQ-ns2/svc2/tcp/p8080__10.0.2.1/8080 }
  add chain ip kube-proxy endpoint-7RVP4LUQ-ns2/svc2/tcp/p8080__10.0.2.1/8080
  add rule ip kube-proxy endpoint-7RVP4LUQ-ns2/svc2/tcp/p8080__10.0.2.1/8080 ip saddr 10.0.2.1 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-7RVP4LUQ-ns2/svc2/tcp/p8080__10.0.2.1/8080 meta l4proto tcp dnat to 10.0.2.1:8080
`;
const REPEATED_SVC3 = `
  add chain ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80
  add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 ip daddr 172.30.0.43 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-2OCDJSZQ-ns3/svc3/tcp/p80__10.0.3.1/80 }
  add chain ip kube-proxy endpoint-2OCDJSZQ-ns3/svc3/tcp/p80__10.0.3.1/80
  add rule ip kube-proxy endpoint-2OCDJSZQ-ns3/svc3/tcp/p80__10.0.3.1/80 ip saddr 10.0.3.1 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-2OCDJSZQ-ns3/svc3/tcp/p80__10.0.3.1/80 meta l4proto tcp dnat to 10.0.3.1:80
`;
const REPEATED_SVC4 = `
  add chain ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80
  add rule ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80 ip daddr 172.30.0.44 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-LAUZTJTB-ns4/svc4/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-WAHRBT2B-ns4/svc4/tcp/p80__10.0.4.1/80 }
  add chain ip kube-proxy endpoint-WAHRBT2B-ns4/svc4/tcp/p80__10.0.4.1/80
  add rule ip kube-proxy endpoint-WAHRBT2B-ns4/svc4/tcp/p80__10.0.4.1/80 ip saddr 10.0.4.1 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-WAHRBT2B-ns4/svc4/tcp/p80__10.0.4.1/80 meta l4proto tcp dnat to 10.0.4.1:80
`;
/** svc3 with its endpoint moved to 10.0.3.2: the old endpoint chain flushed, not yet deleted. */
const REPEATED_SVC3_MOVED = `
  add chain ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80
  add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 ip daddr 172.30.0.43 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80 }
  add chain ip kube-proxy endpoint-2OCDJSZQ-ns3/svc3/tcp/p80__10.0.3.1/80
  add chain ip kube-proxy endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80
  add rule ip kube-proxy endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80 ip saddr 10.0.3.2 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80 meta l4proto tcp dnat to 10.0.3.2:80
`;
/** svc3 with endpoints 10.0.3.2 and 10.0.3.3. */
const REPEATED_SVC3_TWO = `
  add chain ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80
  add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 ip daddr 172.30.0.43 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80 numgen random mod 2 vmap { 0 : goto endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80 , 1 : goto endpoint-TQ2QKHCZ-ns3/svc3/tcp/p80__10.0.3.3/80 }
  add chain ip kube-proxy endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80
  add rule ip kube-proxy endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80 ip saddr 10.0.3.2 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80 meta l4proto tcp dnat to 10.0.3.2:80
  add chain ip kube-proxy endpoint-TQ2QKHCZ-ns3/svc3/tcp/p80__10.0.3.3/80
  add rule ip kube-proxy endpoint-TQ2QKHCZ-ns3/svc3/tcp/p80__10.0.3.3/80 ip saddr 10.0.3.3 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-TQ2QKHCZ-ns3/svc3/tcp/p80__10.0.3.3/80 meta l4proto tcp dnat to 10.0.3.3:80
`;
const ELEMENT = {
  cluster41: 'add element ip kube-proxy cluster-ips { 172.30.0.41 }',
  cluster42: 'add element ip kube-proxy cluster-ips { 172.30.0.42 }',
  cluster43: 'add element ip kube-proxy cluster-ips { 172.30.0.43 }',
  cluster44: 'add element ip kube-proxy cluster-ips { 172.30.0.44 }',
  service41: 'add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80 }',
  service42: 'add element ip kube-proxy service-ips { 172.30.0.42 . tcp . 8080 : goto service-MHHHYRWA-ns2/svc2/tcp/p8080 }',
  service43: 'add element ip kube-proxy service-ips { 172.30.0.43 . tcp . 80 : goto service-4AT6LBPK-ns3/svc3/tcp/p80 }',
  service44: 'add element ip kube-proxy service-ips { 172.30.0.44 . tcp . 80 : goto service-LAUZTJTB-ns4/svc4/tcp/p80 }',
  noEndpoints43: 'add element ip kube-proxy no-endpoint-services { 172.30.0.43 . tcp . 80 comment "ns3/svc3:p80" : goto reject-chain }',
  noEndpoints44: 'add element ip kube-proxy no-endpoint-services { 172.30.0.44 . tcp . 80 comment "ns4/svc4:p80" : goto reject-chain }',
} as const;
const ruleset = (...parts: string[]): string => BASE_RULES + dedent(parts.join('\n'));
const e = ELEMENT;
const SVC3_FLUSHED = `
  add chain ip kube-proxy service-4AT6LBPK-ns3/svc3/tcp/p80
  add chain ip kube-proxy endpoint-SWWHDC7X-ns3/svc3/tcp/p80__10.0.3.2/80
  add chain ip kube-proxy endpoint-TQ2QKHCZ-ns3/svc3/tcp/p80__10.0.3.3/80
`;
const SVC2_FLUSHED = `
  add chain ip kube-proxy service-MHHHYRWA-ns2/svc2/tcp/p8080
  add chain ip kube-proxy endpoint-7RVP4LUQ-ns2/svc2/tcp/p8080__10.0.2.1/8080
`;
const els = (...lines: string[]): string => lines.map((l) => `  ${l}`).join('\n');

/** TestSyncProxyRulesRepeated: the expected ruleset after each step, and the sync transaction's operation count where upstream checks it. */
export const SYNC_PROXY_RULES_REPEATED = {
  initial: ruleset(els(e.cluster41, e.cluster42, e.service41, e.service42), REPEATED_SVC1, REPEATED_SVC2),
  addService: ruleset(els(e.cluster41, e.cluster42, e.cluster43, e.service41, e.service42, e.service43), REPEATED_SVC1, REPEATED_SVC2, REPEATED_SVC3),
  deleteService: ruleset(els(e.cluster41, e.cluster43, e.service41, e.service43), REPEATED_SVC1, SVC2_FLUSHED, REPEATED_SVC3),
  staleDeleted: ruleset(els(e.cluster41, e.cluster43, e.service41, e.service43), REPEATED_SVC1, REPEATED_SVC3),
  addServiceWithoutEndpoints: ruleset(els(e.cluster41, e.cluster43, e.cluster44, e.service41, e.service43), REPEATED_SVC1, REPEATED_SVC3, els(e.noEndpoints44)),
  addEndpoints: ruleset(els(e.cluster41, e.cluster43, e.cluster44, e.service41, e.service43, e.service44), REPEATED_SVC1, REPEATED_SVC3, REPEATED_SVC4),
  changeEndpoint: ruleset(els(e.cluster41, e.cluster43, e.cluster44, e.service41, e.service43, e.service44), REPEATED_SVC1, REPEATED_SVC3_MOVED, REPEATED_SVC4),
  addEndpoint: ruleset(els(e.cluster41, e.cluster43, e.cluster44, e.service41, e.service43, e.service44), REPEATED_SVC1, REPEATED_SVC3_TWO, REPEATED_SVC4),
  emptyEndpoints: ruleset(els(e.cluster41, e.cluster43, e.cluster44, e.service41, e.noEndpoints43, e.service44), REPEATED_SVC1, SVC3_FLUSHED, REPEATED_SVC4),
} as const;

/** The Services and EndpointSlices of TestSyncProxyRulesRepeated's steps. */
export const repeated = {
  svc1: makeService('ns1', 'svc1', { type: 'ClusterIP', clusterIP: '172.30.0.41', ports: [p80] }),
  svc2: makeService('ns2', 'svc2', { type: 'ClusterIP', clusterIP: '172.30.0.42', ports: [{ name: 'p8080', port: 8080, protocol: 'TCP' }] }),
  svc3: makeService('ns3', 'svc3', { type: 'ClusterIP', clusterIP: '172.30.0.43', ports: [p80] }),
  svc4: makeService('ns4', 'svc4', { type: 'ClusterIP', clusterIP: '172.30.0.44', ports: [p80] }),
  eps1: slice('ns1', 'svc1', [{ addresses: ['10.0.1.1'] }]),
  eps2: makeSlice('ns2', 'svc2', 1, 'IPv4', [{ addresses: ['10.0.2.1'] }], [{ name: 'p8080', port: 8080, protocol: 'TCP' }]),
  eps3: slice('ns3', 'svc3', [{ addresses: ['10.0.3.1'] }]),
  eps3update: slice('ns3', 'svc3', [{ addresses: ['10.0.3.2'] }]),
  eps3update2: slice('ns3', 'svc3', [{ addresses: ['10.0.3.2'] }, { addresses: ['10.0.3.3'] }]),
  eps3update3: slice('ns3', 'svc3', []),
  eps4: slice('ns4', 'svc4', [{ addresses: ['10.0.4.1'] }]),
} as const;

/** TestBadIPs: addresses with leading zeros, as Go's sloppy parser reads them. */
export const badIPsServices: readonly Service[] = [
  makeService(
    'ns1',
    'svc1',
    {
      type: 'LoadBalancer',
      clusterIP: '172.30.0.041',
      ports: [{ ...p80, nodePort: 3001 }],
      externalIPs: ['192.168.099.022'],
      loadBalancerSourceRanges: ['203.0.113.000/025'],
    },
    { loadBalancer: { ingress: [{ ip: '1.2.3.004' }] } },
  ),
];
export const badIPsSlices: readonly EndpointSlice[] = [slice('ns1', 'svc1', [{ addresses: ['10.180.00.001'] }])];

/** TestBadIPs: the expected ruleset, every address written canonically. */
export const TEST_BAD_IPS_RULES =
  BASE_RULES +
  dedent(`
  # svc1
  add chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80
  add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 ip daddr 172.30.0.41 tcp dport 80 ip saddr != 10.0.0.0/8 jump mark-for-masquerade
  add rule ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80 numgen random mod 1 vmap { 0 : goto endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 }

  add chain ip kube-proxy external-ULMVA6XW-ns1/svc1/tcp/p80
  add rule ip kube-proxy external-ULMVA6XW-ns1/svc1/tcp/p80 jump mark-for-masquerade
  add rule ip kube-proxy external-ULMVA6XW-ns1/svc1/tcp/p80 goto service-ULMVA6XW-ns1/svc1/tcp/p80

  add chain ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80
  add rule ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 ip saddr 10.180.0.1 jump mark-for-masquerade
  add rule ip kube-proxy endpoint-5OJB2KTY-ns1/svc1/tcp/p80__10.180.0.1/80 meta l4proto tcp dnat to 10.180.0.1:80

  add chain ip kube-proxy firewall-ULMVA6XW-ns1/svc1/tcp/p80
  add rule ip kube-proxy firewall-ULMVA6XW-ns1/svc1/tcp/p80 ip saddr != { 203.0.113.0/25 } drop

  add element ip kube-proxy cluster-ips { 172.30.0.41 }
  add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80 }
  add element ip kube-proxy service-ips { 192.168.99.22 . tcp . 80 : goto external-ULMVA6XW-ns1/svc1/tcp/p80 }
  add element ip kube-proxy service-ips { 1.2.3.4 . tcp . 80 : goto external-ULMVA6XW-ns1/svc1/tcp/p80 }
  add element ip kube-proxy service-nodeports { tcp . 3001 : goto external-ULMVA6XW-ns1/svc1/tcp/p80 }
  add element ip kube-proxy firewall-ips { 1.2.3.4 . tcp . 80 : goto firewall-ULMVA6XW-ns1/svc1/tcp/p80 }
`);

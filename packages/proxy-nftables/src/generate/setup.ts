// What every full sync writes before the services: the table, the base chains and the chains
// they jump to, the masquerading rules, the sets and maps (flushed), and the fixed rules that
// look them up.
// upstream: pkg/proxy/nftables/proxier.go (v1.33: setupNFTables, nftablesBaseChains,
// nftablesJumpChains); pkg/proxy/util/nodeport_addresses.go (NewNodePortAddresses,
// MatchAll, GetNodeIPs: @kubesvc/proxy's nodePortAddresses and nodePortIPs).

import { formatIP, isLoopback } from '@kubesvc/api-types';
import { nodePortAddresses, nodePortIPs, type NodePortAddresses } from '@kubesvc/proxy';
import type { NftablesProxierConfig } from '../config.js';
import {
  BASE_CHAINS,
  CLUSTER_IPS_CHECK_CHAIN,
  CLUSTER_IPS_SET,
  FIREWALL_CHECK_CHAIN,
  FIREWALL_IPS_MAP,
  KUBE_PROXY_TABLE_COMMENT,
  MARK_MASQ_CHAIN,
  MASQUERADING_CHAIN,
  NODEPORT_ENDPOINTS_CHECK_CHAIN,
  NODEPORT_IPS_SET,
  NO_ENDPOINT_NODEPORTS_MAP,
  NO_ENDPOINT_SERVICES_MAP,
  REJECT_CHAIN,
  SERVICE_ENDPOINTS_CHECK_CHAIN,
  SERVICE_IPS_MAP,
  SERVICE_NODEPORTS_MAP,
  SERVICES_CHAIN,
} from '../names.js';
import type { TxWriter } from './tx.js';

/** `ip` / `ip6` and `ipv4_addr` / `ipv6_addr` for the proxier's family. */
export function familyWords(family: 4 | 6): { readonly ipX: 'ip' | 'ip6'; readonly addrType: string; readonly noLocalhost: string } {
  return family === 4
    ? { ipX: 'ip', addrType: 'ipv4_addr', noLocalhost: 'ip daddr != 127.0.0.0/8' }
    : { ipX: 'ip6', addrType: 'ipv6_addr', noLocalhost: 'ip6 daddr != ::1' };
}

/** A base chain's priority as upstream names it (knftables writes the number). */
function basePriority(priority: number): string {
  if (priority === -100) return 'dstnat';
  if (priority === 100) return 'srcnat';
  return priority < -100 ? `dstnat${priority + 100}` : `dstnat+${priority + 100}`;
}

/** nftablesJumpChains: [destination, source chain, what the jump rule matches first]. */
const JUMP_CHAINS: readonly (readonly [string, string, string])[] = [
  [NODEPORT_ENDPOINTS_CHECK_CHAIN, 'filter-input', 'ct state new'],
  [SERVICE_ENDPOINTS_CHECK_CHAIN, 'filter-input', 'ct state new'],
  [SERVICE_ENDPOINTS_CHECK_CHAIN, 'filter-forward', 'ct state new'],
  [SERVICE_ENDPOINTS_CHECK_CHAIN, 'filter-output', 'ct state new'],
  [FIREWALL_CHECK_CHAIN, 'filter-prerouting', 'ct state new'],
  [FIREWALL_CHECK_CHAIN, 'filter-output', 'ct state new'],
  [SERVICES_CHAIN, 'nat-output', ''],
  [SERVICES_CHAIN, 'nat-prerouting', ''],
  [MASQUERADING_CHAIN, 'nat-postrouting', ''],
  [CLUSTER_IPS_CHECK_CHAIN, 'filter-forward', 'ct state new'],
  [CLUSTER_IPS_CHECK_CHAIN, 'filter-output-post-dnat', 'ct state new'],
];

/**
 * GetNodeIPs without the loopback addresses setupNFTables leaves out, written canonically: the
 * node addresses in any of the CIDRs, each once, in the order of the CIDRs and then of the
 * addresses (upstream collects them in a Go map, in no order; a set's elements are compared
 * sorted).
 */
export function nodePortIPsOf(npa: NodePortAddresses, addresses: readonly string[]): string[] {
  return nodePortIPs(npa, addresses)
    .filter((ip) => !isLoopback(ip))
    .map(formatIP);
}

/** setupNFTables. `firstSync` adds and deletes the base chains first, so that changed properties take. */
export function setupNftables(tx: TxWriter, config: NftablesProxierConfig, firstSync: boolean, created: Set<string>): void {
  const { ipX, addrType, noLocalhost } = familyWords(config.family);
  const mark = config.masqueradeMark;
  tx.addTable(KUBE_PROXY_TABLE_COMMENT);
  if (firstSync) {
    for (const chain of BASE_CHAINS) {
      tx.addChain({ name: chain.name });
      tx.deleteChain(chain.name);
    }
  }
  for (const chain of BASE_CHAINS) {
    tx.addChain({ name: chain.name, type: chain.type, hook: chain.hook, priority: basePriority(chain.priority) });
    tx.flushChain(chain.name);
  }
  for (const [dest, source, extra] of JUMP_CHAINS) {
    tx.ensureChain(dest, created, false);
    tx.addRule(source, extra === '' ? `jump ${dest}` : `${extra} jump ${dest}`);
  }
  for (const chain of [SERVICES_CHAIN, CLUSTER_IPS_CHECK_CHAIN, MASQUERADING_CHAIN, MARK_MASQ_CHAIN]) tx.ensureChain(chain, created, false);

  tx.addRule(MARK_MASQ_CHAIN, `mark set mark or ${mark}`);
  tx.addRule(MASQUERADING_CHAIN, `mark and ${mark} == 0 return`);
  tx.addRule(MASQUERADING_CHAIN, `mark set mark xor ${mark}`);
  tx.addRule(MASQUERADING_CHAIN, 'masquerade fully-random');

  tx.addSet('set', { name: CLUSTER_IPS_SET, type: addrType, comment: 'Active ClusterIPs' });
  tx.addRule(CLUSTER_IPS_CHECK_CHAIN, `${ipX} daddr @${CLUSTER_IPS_SET} reject`, 'Reject traffic to invalid ports of ClusterIPs');
  if (config.serviceCIDRs.length > 0) {
    tx.addRule(CLUSTER_IPS_CHECK_CHAIN, `${ipX} daddr { ${config.serviceCIDRs.join(',')} } drop`, 'Drop traffic to unallocated ClusterIPs');
  }

  // add, then delete or flush: a plain delete would fail when the set does not exist.
  // v1.33's IsZeroCIDR: any CIDR of prefix length 0 matches everything.
  const npa = nodePortAddresses(config.nodePortAddresses, config.family, 'prefix');
  tx.addSet('set', { name: NODEPORT_IPS_SET, type: addrType, comment: 'IPs that accept NodePort traffic' });
  if (npa.matchAll) {
    tx.deleteSet('set', NODEPORT_IPS_SET);
  } else {
    tx.flushSet('set', NODEPORT_IPS_SET);
    for (const ip of nodePortIPsOf(npa, config.nodeIPs)) tx.addElement('set', { set: NODEPORT_IPS_SET, key: [ip] });
  }

  const serviceKey = `${addrType} . inet_proto . inet_service : verdict`;
  const portKey = 'inet_proto . inet_service : verdict';
  tx.addSet('map', { name: NO_ENDPOINT_SERVICES_MAP, type: serviceKey, comment: 'vmap to drop or reject packets to services with no endpoints' });
  tx.addSet('map', { name: NO_ENDPOINT_NODEPORTS_MAP, type: portKey, comment: 'vmap to drop or reject packets to service nodeports with no endpoints' });
  tx.addChain({ name: REJECT_CHAIN, comment: 'helper for @no-endpoint-services / @no-endpoint-nodeports' });
  tx.flushChain(REJECT_CHAIN);
  tx.addRule(REJECT_CHAIN, 'reject');
  tx.addRule(SERVICE_ENDPOINTS_CHECK_CHAIN, `${ipX} daddr . meta l4proto . th dport vmap @${NO_ENDPOINT_SERVICES_MAP}`);
  tx.addRule(
    NODEPORT_ENDPOINTS_CHECK_CHAIN,
    npa.matchAll
      ? `${noLocalhost} meta l4proto . th dport vmap @${NO_ENDPOINT_NODEPORTS_MAP}`
      : `${ipX} daddr @${NODEPORT_IPS_SET} meta l4proto . th dport vmap @${NO_ENDPOINT_NODEPORTS_MAP}`,
  );

  tx.addSet('map', { name: FIREWALL_IPS_MAP, type: serviceKey, comment: 'destinations that are subject to LoadBalancerSourceRanges' });
  tx.ensureChain(FIREWALL_CHECK_CHAIN, created, false);
  tx.addRule(FIREWALL_CHECK_CHAIN, `${ipX} daddr . meta l4proto . th dport vmap @${FIREWALL_IPS_MAP}`);

  tx.addSet('map', { name: SERVICE_IPS_MAP, type: serviceKey, comment: 'ClusterIP, ExternalIP and LoadBalancer IP traffic' });
  tx.addSet('map', { name: SERVICE_NODEPORTS_MAP, type: portKey, comment: 'NodePort traffic' });
  tx.addRule(SERVICES_CHAIN, `${ipX} daddr . meta l4proto . th dport vmap @${SERVICE_IPS_MAP}`);
  tx.addRule(
    SERVICES_CHAIN,
    npa.matchAll
      ? `fib daddr type local ${noLocalhost} meta l4proto . th dport vmap @${SERVICE_NODEPORTS_MAP}`
      : `${ipX} daddr @${NODEPORT_IPS_SET} meta l4proto . th dport vmap @${SERVICE_NODEPORTS_MAP}`,
  );
}

// The names kube-proxy's nftables proxier gives its table, chains, sets and maps, and the
// base chains with their hooks and priorities, as v1.33 lays them out.
// upstream: pkg/proxy/nftables/proxier.go (v1.33), the constants and nftablesBaseChains.

/** The one table, in family `ip` (IPv4) or `ip6` (IPv6). */
export const KUBE_PROXY_TABLE = 'kube-proxy';

/** The comment of the table (`add table ip kube-proxy { comment "rules for kube-proxy" ; }`). */
export const KUBE_PROXY_TABLE_COMMENT = 'rules for kube-proxy';

export type BaseChainType = 'filter' | 'nat';
export type BaseChainHook = 'prerouting' | 'input' | 'forward' | 'output' | 'postrouting';

/** A base chain: attached to a netfilter hook at a priority (knftables writes the number). */
export interface BaseChain {
  readonly name: string;
  readonly type: BaseChainType;
  readonly hook: BaseChainHook;
  /** dstnat is -100, srcnat 100; the filter chains sit 10 before dstnat, filter-output-post-dnat 10 after. */
  readonly priority: number;
}

/**
 * v1.33's base chains, in upstream's order. The filter chains run before DNAT (priority -110)
 * so that they see the destination the client wrote; `filter-output-post-dnat` (-90) sees
 * locally sent packets after DNAT, for the cluster-IPs check.
 */
export const BASE_CHAINS: readonly BaseChain[] = [
  { name: 'filter-prerouting', type: 'filter', hook: 'prerouting', priority: -110 },
  { name: 'filter-input', type: 'filter', hook: 'input', priority: -110 },
  { name: 'filter-forward', type: 'filter', hook: 'forward', priority: -110 },
  { name: 'filter-output', type: 'filter', hook: 'output', priority: -110 },
  { name: 'filter-output-post-dnat', type: 'filter', hook: 'output', priority: -90 },
  { name: 'nat-prerouting', type: 'nat', hook: 'prerouting', priority: -100 },
  { name: 'nat-output', type: 'nat', hook: 'output', priority: -100 },
  { name: 'nat-postrouting', type: 'nat', hook: 'postrouting', priority: 100 },
];

// Service dispatch.
export const SERVICES_CHAIN = 'services';
export const SERVICE_IPS_MAP = 'service-ips';
export const SERVICE_NODEPORTS_MAP = 'service-nodeports';
/** The IPs that accept NodePort traffic (absent when `--nodeport-addresses` selects all). */
export const NODEPORT_IPS_SET = 'nodeport-ips';
/** Every active ClusterIP. */
export const CLUSTER_IPS_SET = 'cluster-ips';
// Services with no endpoints.
export const SERVICE_ENDPOINTS_CHECK_CHAIN = 'service-endpoints-check';
export const NODEPORT_ENDPOINTS_CHECK_CHAIN = 'nodeport-endpoints-check';
export const NO_ENDPOINT_SERVICES_MAP = 'no-endpoint-services';
export const NO_ENDPOINT_NODEPORTS_MAP = 'no-endpoint-nodeports';
export const REJECT_CHAIN = 'reject-chain';
/** Traffic to unallocated ClusterIPs (dropped) and to undefined ports of ClusterIPs (rejected). */
export const CLUSTER_IPS_CHECK_CHAIN = 'cluster-ips-check';
// LoadBalancer source ranges.
export const FIREWALL_IPS_MAP = 'firewall-ips';
export const FIREWALL_CHECK_CHAIN = 'firewall-check';
// Masquerading.
export const MARK_MASQ_CHAIN = 'mark-for-masquerade';
export const MASQUERADING_CHAIN = 'masquerading';

// The settings a single-family iptables proxier runs with, and their defaults.
// upstream: pkg/proxy/iptables/proxier.go (NewProxier), pkg/proxy/util/nodeport_addresses.go,
// pkg/proxy/util/localdetector.go, cmd/kube-proxy defaults (masqueradeBit 14).

import { formatIP, isLoopback, parseIPSloppy } from '@kubesvc/api-types';
import { nodePortAddressesContainIPv4Loopback } from './node-port-addresses.js';

/** Which traffic counts as coming from a pod: a cluster CIDR (`-s CIDR`), or no detection. */
export type LocalDetector = { readonly kind: 'cidr'; readonly cidr: string } | { readonly kind: 'none' };

/** How `--probability` is printed: `%0.10f` (v1.10 and later) or the old `%0.5f`. */
export type ProbabilityFormat = 'modern' | 'old';

export interface ProxierConfigOptions {
  /** The node kube-proxy runs on; endpoints with this nodeName are local. */
  readonly nodeName: string;
  /**
   * The node's addresses (all interfaces, loopback included), any family: the candidates
   * that `nodePortAddresses` selects from.
   */
  readonly nodeIPs?: readonly string[];
  /**
   * The node IP (loadBalancerSourceRanges containing it also admit the LB IPs as sources).
   * Default: the first non-loopback address of the proxier's family in `nodeIPs`.
   */
  readonly nodeIP?: string;
  /** The proxier's IP family; default 4. A dual-stack node runs one proxier per family. */
  readonly family?: 4 | 6;
  /** Default `{ kind: 'none' }`. */
  readonly localDetector?: LocalDetector;
  /** Default 14 (mark 0x4000). */
  readonly masqueradeBit?: number;
  /**
   * The mark text used in rules. Default: Go's `%#08x` of 1 << masqueradeBit, which is
   * `0x00004000` for bit 14. Upstream's unit tests hard-code `0x4000`; pass that to compare.
   */
  readonly masqueradeMark?: string;
  /** Masquerade all traffic to cluster IPs. Default false. */
  readonly masqueradeAll?: boolean;
  /** CIDRs selecting the node addresses NodePorts listen on; empty (default) means all. */
  readonly nodePortAddresses?: readonly string[];
  /** Allow NodePorts on 127.0.0.0/8 (IPv4 only). Default true, as upstream. */
  readonly localhostNodePorts?: boolean;
  /** Above this many endpoints in total, comments are left out of per-endpoint rules. Default 1000. */
  readonly largeClusterThreshold?: number;
  /** The nfacct counters exist (ct_state_invalid_dropped_pkts, localhost_nps_accepted_pkts). Default false. */
  readonly nfacctCounters?: boolean;
  /** iptables supports `--random-fully` on MASQUERADE. Default false. */
  readonly randomFully?: boolean;
  /** nf_conntrack_tcp_be_liberal is set: no DROP rule for INVALID packets. Default false. */
  readonly conntrackTCPLiberal?: boolean;
  /** Default 'modern'. */
  readonly probabilityFormat?: ProbabilityFormat;
}

export interface ProxierConfig {
  readonly nodeName: string;
  readonly nodeIPs: readonly string[];
  /** '' when there is none. */
  readonly nodeIP: string;
  readonly family: 4 | 6;
  readonly localDetector: LocalDetector;
  readonly masqueradeBit: number;
  readonly masqueradeMark: string;
  readonly masqueradeAll: boolean;
  readonly nodePortAddresses: readonly string[];
  /** After upstream's adjustment: false when nodePortAddresses excludes 127.0.0.1. */
  readonly localhostNodePorts: boolean;
  readonly largeClusterThreshold: number;
  readonly nfacctCounters: boolean;
  readonly randomFully: boolean;
  readonly conntrackTCPLiberal: boolean;
  readonly probabilityFormat: ProbabilityFormat;
}

export const DEFAULT_MASQUERADE_BIT = 14;
/** upstream: pkg/proxy/iptables/proxier.go largeClusterEndpointsThreshold */
export const LARGE_CLUSTER_ENDPOINTS_THRESHOLD = 1000;

/**
 * Go's `fmt.Sprintf("%#08x", v)`: Go pads the digits to the width and then prepends `0x`
 * (the prefix does not count towards the width), so 0x4000 prints as `0x00004000`.
 */
export function goHexMark(value: number): string {
  return `0x${value.toString(16).padStart(8, '0')}`;
}

/** Fills the defaults, as NewProxier would. */
export function proxierConfig(options: ProxierConfigOptions): ProxierConfig {
  const family = options.family ?? 4;
  const masqueradeBit = options.masqueradeBit ?? DEFAULT_MASQUERADE_BIT;
  if (!Number.isInteger(masqueradeBit) || masqueradeBit < 0 || masqueradeBit > 31) {
    throw new RangeError(`masqueradeBit must be an integer in 0..31, got ${masqueradeBit}`);
  }
  const nodePortAddresses = options.nodePortAddresses ?? [];
  let localhostNodePorts = options.localhostNodePorts ?? true;
  // upstream NewProxier: localhost NodePorts are off unless nodePortAddresses admits 127.0.0.1.
  if (!nodePortAddressesContainIPv4Loopback(nodePortAddresses, family)) localhostNodePorts = false;
  return {
    nodeName: options.nodeName,
    nodeIPs: options.nodeIPs ?? [],
    nodeIP: options.nodeIP ?? defaultNodeIP(options.nodeIPs ?? [], family),
    family,
    localDetector: options.localDetector ?? { kind: 'none' },
    masqueradeBit,
    masqueradeMark: options.masqueradeMark ?? goHexMark(2 ** masqueradeBit),
    masqueradeAll: options.masqueradeAll ?? false,
    nodePortAddresses,
    localhostNodePorts,
    largeClusterThreshold: options.largeClusterThreshold ?? LARGE_CLUSTER_ENDPOINTS_THRESHOLD,
    nfacctCounters: options.nfacctCounters ?? false,
    randomFully: options.randomFully ?? false,
    conntrackTCPLiberal: options.conntrackTCPLiberal ?? false,
    probabilityFormat: options.probabilityFormat ?? 'modern',
  };
}

function defaultNodeIP(addresses: readonly string[], family: 4 | 6): string {
  for (const text of addresses) {
    const parsed = parseIPSloppy(text);
    if (parsed.ok && parsed.value.family === family && !isLoopback(parsed.value)) return formatIP(parsed.value);
  }
  return '';
}

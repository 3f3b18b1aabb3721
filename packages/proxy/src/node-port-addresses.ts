// --nodeport-addresses: which node addresses NodePorts are accepted on, for both backends.
// upstream: pkg/proxy/util/nodeport_addresses.go (NewNodePortAddresses, MatchAll,
// ContainsIPv4Loopback, GetNodeIPs), pkg/proxy/util/utils.go (IsZeroCIDR).

import { cidrContains, formatIP, isLoopback, parseCIDRSloppy, parseIPSloppy, type CIDR, type IP } from '@kubesvc/api-types';

export interface NodePortAddresses {
  /** The CIDRs of the proxier's family, parsed (the zero CIDR when none of the given ones fit). */
  readonly cidrs: readonly CIDR[];
  /** No CIDR of the family was given (or a zero CIDR was): every local address. */
  readonly matchAll: boolean;
  readonly containsIPv4Loopback: boolean;
}

/**
 * How IsZeroCIDR tells a CIDR that matches everything: by its text, `0.0.0.0/0` or `::/0`
 * (the string form the iptables backend's kube-proxy has), or by a prefix length of 0 on the
 * parsed CIDR (the form the nftables backend's v1.33 has, which also takes `10.0.0.0/0`).
 */
export type ZeroCIDRRule = 'text' | 'prefix';

const IPV4_LOOPBACK: IP = { family: 4, value: 0x7f000001n };

/** upstream NewNodePortAddresses: keep the CIDRs of the family; none of the family means all addresses. */
export function nodePortAddresses(cidrStrings: readonly string[], family: 4 | 6, zeroCIDR: ZeroCIDRRule = 'text'): NodePortAddresses {
  const ofFamily: string[] = [];
  for (const s of cidrStrings) {
    const parsed = parseCIDRSloppy(s);
    if (parsed.ok && parsed.value.cidr.network.family === family) ofFamily.push(s);
  }
  // No CIDR of the family (even with CIDRs of the other family): all addresses.
  if (ofFamily.length === 0) ofFamily.push(family === 4 ? '0.0.0.0/0' : '::/0');
  const cidrs: CIDR[] = [];
  let containsIPv4Loopback = false;
  let matchAll = false;
  for (const s of ofFamily) {
    const parsed = parseCIDRSloppy(s);
    if (!parsed.ok) continue;
    const { ip, cidr } = parsed.value;
    if (cidr.network.family === 4 && (isLoopback(ip) || cidrContains(cidr, IPV4_LOOPBACK))) {
      containsIPv4Loopback = true;
    }
    if (zeroCIDR === 'text' ? s === '0.0.0.0/0' || s === '::/0' : cidr.prefix === 0) {
      cidrs.length = 0;
      cidrs.push(cidr);
      matchAll = true;
      break;
    }
    cidrs.push(cidr);
  }
  return { cidrs, matchAll, containsIPv4Loopback };
}

export function nodePortAddressesContainIPv4Loopback(cidrStrings: readonly string[], family: 4 | 6): boolean {
  return nodePortAddresses(cidrStrings, family).containsIPv4Loopback;
}

/**
 * upstream GetNodeIPs: the node addresses inside any of the CIDRs, without duplicates.
 * Upstream returns them in Go map order; here they come in the order of the CIDRs, then of
 * the addresses (the first occurrence wins).
 */
export function nodePortIPs(npa: NodePortAddresses, addresses: readonly string[]): IP[] {
  const seen = new Set<string>();
  const out: IP[] = [];
  for (const cidr of npa.cidrs) {
    for (const text of addresses) {
      const parsed = parseIPSloppy(text);
      if (!parsed.ok || !cidrContains(cidr, parsed.value)) continue;
      const key = formatIP(parsed.value);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(parsed.value);
    }
  }
  return out;
}

// Which ServiceCIDR objects hold an IP: the check the IPAddress repair loop (and the
// allocator's range lookups) make against the listed ServiceCIDRs. Since Kubernetes v1.30 the
// repair loop no longer keeps an IP tree of its own; it lists the ServiceCIDRs and asks each
// prefix in turn.
// upstream (v1.33): pkg/api/servicecidr/servicecidr.go (ContainsIP, ContainsAddress,
//           PrefixContainsIP, broadcastAddress, IPToAddr). The stored upstream text of this file
//           still names networking/v1beta1; v1.33 lists networking/v1 objects with the same code.
import { cidrContains, parseCIDR, type CIDR, type IP, type ServiceCIDR } from '@kubesvc/api-types';

/**
 * The prefix netip.ParsePrefix reads from one of `spec.cidrs`, or undefined where it fails
 * (upstream skips such an entry; validation never lets one be stored). netip is stricter than
 * net.ParseCIDR: no leading zeros in the address or in the length. A prefix written in IPv6
 * text over ::ffff:0:0/96 stays an IPv6 prefix there, which never holds an IPv4 address, so it
 * holds nothing here (an IP in that block is always read as IPv4).
 */
function servicePrefix(text: string): CIDR | undefined {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return undefined;
  const length = text.slice(slash + 1);
  if (length.length > 1 && length.startsWith('0')) return undefined;
  const parsed = parseCIDR(text);
  if (!parsed.ok) return undefined;
  const writtenV6 = text.slice(0, slash).includes(':');
  if (writtenV6 && parsed.value.cidr.network.family === 4) return undefined;
  return parsed.value.cidr;
}

/**
 * PrefixContainsIP: the IP is inside the prefix and is not its network address, nor, for
 * IPv4, its broadcast address (a ServiceCIDR never hands those out, so a Service holding one
 * does not belong to it). Host bits in the prefix do not matter: it is masked first.
 */
export function prefixContainsIP(prefix: CIDR, ip: IP): boolean {
  if (prefix.network.family !== ip.family) return false;
  if (prefix.network.value === ip.value) return false;
  if (ip.family === 4) {
    const hostBits = 32n - BigInt(prefix.prefix);
    const broadcast = prefix.network.value | ((1n << hostBits) - 1n);
    if (broadcast === ip.value) return false;
  }
  return cidrContains(prefix, ip);
}

/**
 * ContainsIP: the ServiceCIDRs, in the order given, with an entry of `spec.cidrs` that holds
 * the IP (prefixContainsIP). A ServiceCIDR being deleted still counts, as upstream's lister
 * returns it. The repair loop reports a ClusterIP for which this is empty as out of range.
 */
export function serviceCIDRsContainingIP<T extends Pick<ServiceCIDR, 'spec'>>(serviceCIDRs: readonly T[], ip: IP): T[] {
  const out: T[] = [];
  for (const serviceCIDR of serviceCIDRs) {
    for (const text of serviceCIDR.spec?.cidrs ?? []) {
      const prefix = servicePrefix(text);
      if (prefix !== undefined && prefixContainsIP(prefix, ip)) out.push(serviceCIDR);
    }
  }
  return out;
}

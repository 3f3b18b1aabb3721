// Which ServiceCIDRs overlap a prefix, contain a prefix, or hold an address: the questions the
// ServiceCIDR controller asks of the listed ServiceCIDRs (which keys a change touches, whether a
// ServiceCIDR being deleted would leave IPAddresses behind), the IPAddress repair loop asks of
// a ClusterIP (is it in range), and the MetaAllocator asks of an explicit IP.
// upstream (v1.33): pkg/api/servicecidr/servicecidr.go (OverlapsPrefix, ContainsPrefix,
//           ContainsAddress, PrefixContainsIP, broadcastAddress). Upstream reads `spec.cidrs`
//           with netip.ParsePrefix and IPAddress names with netip.ParseAddr; an entry either
//           refuses is skipped (validation never stores one).
import { cidrContains, parseCIDR, type CIDR } from '../net/cidr.js';
import { cidrLastValue } from '../net/cidr-size.js';
import { parseIP, type IP } from '../net/ip.js';
import type { ServiceCIDR } from '../objects/service-cidr.js';

/** A ServiceCIDR as these checks read it: its name and its `spec.cidrs`. */
export type ServiceCIDRLike = Pick<ServiceCIDR, 'metadata' | 'spec'>;

/**
 * One entry of `spec.cidrs` as netip.ParsePrefix reads it, or undefined where that fails.
 * netip is stricter than net.ParseCIDR: no leading zero in the prefix length, and a prefix
 * written in IPv6 text stays IPv6 even over ::ffff:0:0/96 (it then holds no IPv4 address, and
 * an IPv6 address never lies there in this model), so such an entry holds nothing here.
 */
export function serviceCIDRPrefix(text: string): CIDR | undefined {
  const slash = text.lastIndexOf('/');
  if (slash < 0) return undefined;
  const length = text.slice(slash + 1);
  if (length.length > 1 && length.startsWith('0')) return undefined;
  const parsed = parseCIDR(text);
  if (!parsed.ok) return undefined;
  if (text.slice(0, slash).includes(':') && parsed.value.cidr.network.family === 4) return undefined;
  return parsed.value.cidr;
}

/**
 * An IPAddress name as netip.ParseAddr reads it, or undefined. An IPv4-mapped name
 * (`::ffff:10.0.0.1`) is an IPv6 address to netip, inside no ServiceCIDR prefix here (see
 * serviceCIDRPrefix), so it is refused; validation refuses such names anyway.
 */
export function ipAddressOfName(name: string): IP | undefined {
  const parsed = parseIP(name);
  if (!parsed.ok) return undefined;
  if (name.includes(':') && parsed.value.family === 4) return undefined;
  return parsed.value;
}


/**
 * PrefixContainsIP: the address is inside the prefix and is neither its network address nor,
 * for IPv4, its broadcast address. A ServiceCIDR never hands those out, so an IPAddress named
 * by one does not depend on it.
 */
export function prefixContainsIP(prefix: CIDR, ip: IP): boolean {
  if (prefix.network.family !== ip.family) return false;
  if (ip.value === prefix.network.value) return false;
  if (ip.family === 4 && ip.value === cidrLastValue(prefix)) return false;
  return cidrContains(prefix, ip);
}

/** netip.Prefix.Overlaps: the two blocks share an address (never across families). */
function overlaps(a: CIDR, b: CIDR): boolean {
  if (a.network.family !== b.network.family) return false;
  const shorter = a.prefix <= b.prefix ? a : b;
  const longer = shorter === a ? b : a;
  return cidrContains(shorter, longer.network);
}

/**
 * upstream walks every ServiceCIDR and every entry of its spec.cidrs, adding the ServiceCIDR
 * once per entry that matches; a valid ServiceCIDR has at most one entry per family, so at
 * most one entry matches a prefix or an address.
 */
function matching<T extends ServiceCIDRLike>(serviceCIDRs: readonly T[], test: (prefix: CIDR) => boolean): T[] {
  const out: T[] = [];
  for (const serviceCIDR of serviceCIDRs) {
    for (const text of serviceCIDR.spec?.cidrs ?? []) {
      const prefix = serviceCIDRPrefix(text);
      if (prefix !== undefined && test(prefix)) out.push(serviceCIDR);
    }
  }
  return out;
}

/** OverlapsPrefix: the ServiceCIDRs with an entry that shares an address with `prefix`, in the order given. */
export function serviceCIDRsOverlappingPrefix<T extends ServiceCIDRLike>(serviceCIDRs: readonly T[], prefix: CIDR): T[] {
  return matching(serviceCIDRs, (p) => overlaps(p, prefix));
}

/** ContainsPrefix: the ServiceCIDRs with an entry that holds all of `prefix` (the same block or a larger one). */
export function serviceCIDRsContainingPrefix<T extends ServiceCIDRLike>(serviceCIDRs: readonly T[], prefix: CIDR): T[] {
  return matching(serviceCIDRs, (p) => overlaps(p, prefix) && p.prefix <= prefix.prefix);
}

/**
 * ContainsAddress (and ContainsIP): the ServiceCIDRs with an entry that holds `ip`
 * (prefixContainsIP), in the order given. A ServiceCIDR being deleted still counts, as
 * upstream's lister returns it; the repair loop reports a ClusterIP for which this is empty
 * as out of range.
 */
export function serviceCIDRsContainingIP<T extends ServiceCIDRLike>(serviceCIDRs: readonly T[], ip: IP): T[] {
  return matching(serviceCIDRs, (p) => prefixContainsIP(p, ip));
}

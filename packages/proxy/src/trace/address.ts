// Addresses as the kernel's tools read them: inet_pton rules. api-types' parseIP (Go's strict
// parser: no leading zeros in an octet, at most four digits a group, no zone) accepts the same
// text, with one difference kept here: Go makes an IPv4-mapped IPv6 address IPv4, while
// inet_pton(AF_INET6) keeps it IPv6. A traced packet's addresses are read this way, as are the
// addresses of iptables rules (proxy-iptables' save/address.ts, which also prints them).
// upstream: iptables libxtables/xtables.c (xtables_ipaddr_to_numeric, xtables_ip6addr_to_numeric).

import { MAPPED_BASE, parseIP, type IPVersion } from '@kubesvc/api-types';

/** inet_pton(AF_INET): four decimal octets, no leading zeros (glibc refuses them). */
export function parseIPv4(text: string): bigint | undefined {
  const ip = parseIP(text);
  // parseIP also reads `::ffff:a.b.c.d` as IPv4; inet_pton(AF_INET) does not.
  return ip.ok && ip.value.family === 4 && !text.includes(':') ? ip.value.value : undefined;
}

/** inet_pton(AF_INET6): hex groups, at most one `::`, an optional dotted IPv4 tail. */
export function parseIPv6(text: string): bigint | undefined {
  const ip = parseIP(text);
  if (!ip.ok || !text.includes(':')) return undefined;
  // parseIP makes an IPv4-mapped address IPv4; inet_pton keeps its 128 bits.
  return ip.value.family === 6 ? ip.value.value : MAPPED_BASE | ip.value.value;
}

/** inet_pton of `family`. */
export function parseAddress(text: string, family: IPVersion): bigint | undefined {
  return family === 4 ? parseIPv4(text) : parseIPv6(text);
}

// Addresses as iptables reads and prints them: the text is read with inet_pton rules and
// printed with glibc's inet_ntop. api-types' parseIP (Go's strict parser: no leading zeros in
// an octet, at most four digits a group, no zone) accepts the same text, and its formatIP
// prints IPv6 as glibc does (the longest run, first on a tie, of two or more zero groups
// becomes `::`; a lone zero group is not shortened), with two differences kept here: Go makes
// an IPv4-mapped IPv6 address IPv4, while iptables keeps it IPv6; and glibc prints the last
// 32 bits of a mapped (`::ffff:10.0.0.1`) or IPv4-compatible (`::10.0.0.1`) address dotted.
// Not modelled: iptables reads IPv4 more loosely than inet_pton (strtoul octets, so `010.0.0.1`
// is 8.0.0.1 and `0x0a.0.0.1` is 10.0.0.1, and `10.1` is 10.1.0.0); the view refuses those.
// upstream: iptables libxtables/xtables.c (xtables_ipaddr_to_numeric, xtables_ip6addr_to_numeric),
// glibc resolv/inet_ntop.c.

import { familyBits, formatIP, type IPVersion } from '@kubesvc/api-types';
import { parseAddress, parseIPv4, parseIPv6 } from '@kubesvc/proxy';

// Reading an address as inet_pton does is the tracer's too: @kubesvc/proxy holds it.
export { parseAddress, parseIPv4, parseIPv6 };

export type IptFamily = IPVersion;

/** Parsed `ADDRESS[/PREFIX]`, with the host bits already cleared as the kernel stores it. */
export interface MaskedAddress {
  /** The network address, as a big integer of 32 or 128 bits. */
  readonly value: bigint;
  readonly prefix: number;
}

function formatIPv4(value: bigint): string {
  return formatIP({ family: 4, value });
}

/** glibc inet_ntop(AF_INET6): formatIP, but dotted after `::ffff:` or `::` (not for `::` or `::x`). */
function formatIPv6(value: bigint): string {
  const high = value >> 32n;
  if (high === 0xffffn) return `::ffff:${formatIPv4(value & 0xffff_ffffn)}`;
  if (high === 0n && value > 0xffffn) return `::${formatIPv4(value)}`;
  return formatIP({ family: 6, value });
}

export function formatAddress(value: bigint, family: IptFamily): string {
  return family === 4 ? formatIPv4(value) : formatIPv6(value);
}

export function prefixMask(prefix: number, family: IptFamily): bigint {
  const bits = familyBits(family);
  const hostBits = BigInt(bits - prefix);
  return (((1n << BigInt(bits)) - 1n) >> hostBits) << hostBits;
}

/**
 * `ADDRESS` or `ADDRESS/PREFIX` as `-s`/`-d` read it: no prefix means a host (/32, /128), and
 * the host bits are cleared. Netmask notation and host names are not modelled.
 */
export function parseMaskedAddress(text: string, family: IptFamily): MaskedAddress | undefined {
  const slash = text.indexOf('/');
  const addressText = slash === -1 ? text : text.slice(0, slash);
  const address = parseAddress(addressText, family);
  if (address === undefined) return undefined;
  let prefix: number = familyBits(family);
  if (slash !== -1) {
    const prefixText = text.slice(slash + 1);
    if (!/^[0-9]{1,3}$/.test(prefixText)) return undefined;
    prefix = Number(prefixText);
    if (prefix > familyBits(family)) return undefined;
  }
  return { value: address & prefixMask(prefix, family), prefix };
}

export function formatMaskedAddress(address: MaskedAddress, family: IptFamily): string {
  return `${formatAddress(address.value, family)}/${address.prefix}`;
}

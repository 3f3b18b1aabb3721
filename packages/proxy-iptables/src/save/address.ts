// Addresses as iptables reads and prints them: the text is read with inet_pton rules and
// printed with glibc's inet_ntop, which differ from Go's (an IPv4-mapped IPv6 address stays
// IPv6 and prints as `::ffff:10.0.0.1`; a lone zero group is not shortened).
// upstream: iptables libxtables/xtables.c (xtables_ipaddr_to_numeric, xtables_ip6addr_to_numeric),
// glibc resolv/inet_ntop.c.

export type IptFamily = 4 | 6;

/** Parsed `ADDRESS[/PREFIX]`, with the host bits already cleared as the kernel stores it. */
export interface MaskedAddress {
  /** The network address, as a big integer of 32 or 128 bits. */
  readonly value: bigint;
  readonly prefix: number;
}

export function familyBits(family: IptFamily): 32 | 128 {
  return family === 4 ? 32 : 128;
}

const DECIMAL_OCTET = /^(0|[1-9][0-9]{0,2})$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/** inet_pton(AF_INET): four decimal octets, no leading zeros (glibc refuses them). */
export function parseIPv4(text: string): bigint | undefined {
  const parts = text.split('.');
  if (parts.length !== 4) return undefined;
  let value = 0n;
  for (const part of parts) {
    if (!DECIMAL_OCTET.test(part)) return undefined;
    const octet = Number(part);
    if (octet > 255) return undefined;
    value = (value << 8n) | BigInt(octet);
  }
  return value;
}

/** inet_pton(AF_INET6): hex groups, at most one `::`, an optional dotted IPv4 tail. */
export function parseIPv6(text: string): bigint | undefined {
  const halves = text.split('::');
  if (halves.length > 2) return undefined;
  const groupsOf = (part: string, allowIPv4Tail: boolean): number[] | undefined => {
    if (part === '') return [];
    const pieces = part.split(':');
    const groups: number[] = [];
    for (let i = 0; i < pieces.length; i++) {
      const piece = pieces[i] ?? '';
      if (allowIPv4Tail && i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIPv4(piece);
        if (v4 === undefined) return undefined;
        groups.push(Number(v4 >> 16n), Number(v4 & 0xffffn));
        continue;
      }
      if (!HEX_GROUP.test(piece)) return undefined;
      groups.push(Number.parseInt(piece, 16));
    }
    return groups;
  };
  const head = groupsOf(halves[0] ?? '', halves.length === 1);
  const tail = halves.length === 2 ? groupsOf(halves[1] ?? '', true) : [];
  if (head === undefined || tail === undefined) return undefined;
  let groups: number[];
  if (halves.length === 1) {
    if (head.length !== 8) return undefined;
    groups = head;
  } else {
    const missing = 8 - head.length - tail.length;
    if (missing < 1) return undefined;
    groups = [...head, ...new Array<number>(missing).fill(0), ...tail];
  }
  let value = 0n;
  for (const g of groups) value = (value << 16n) | BigInt(g);
  return value;
}

export function parseAddress(text: string, family: IptFamily): bigint | undefined {
  return family === 4 ? parseIPv4(text) : parseIPv6(text);
}

function formatIPv4(value: bigint): string {
  const n = Number(value);
  return [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
}

/** glibc inet_ntop(AF_INET6): the longest run (first on a tie) of two or more zero groups becomes `::`. */
function formatIPv6(value: bigint): string {
  const words: number[] = [];
  for (let i = 7; i >= 0; i--) words.push(Number((value >> BigInt(i * 16)) & 0xffffn));
  let bestBase = -1;
  let bestLen = 0;
  let curBase = -1;
  let curLen = 0;
  for (let i = 0; i < 8; i++) {
    if (words[i] === 0) {
      if (curBase === -1) {
        curBase = i;
        curLen = 1;
      } else {
        curLen++;
      }
      if (curLen > bestLen) {
        bestBase = curBase;
        bestLen = curLen;
      }
    } else {
      curBase = -1;
      curLen = 0;
    }
  }
  if (bestLen < 2) bestBase = -1;
  let out = '';
  for (let i = 0; i < 8; i++) {
    if (bestBase !== -1 && i >= bestBase && i < bestBase + bestLen) {
      if (i === bestBase) out += ':';
      continue;
    }
    if (i !== 0) out += ':';
    // glibc prints the last 32 bits dotted for IPv4-compatible and IPv4-mapped addresses.
    if (i === 6 && bestBase === 0 && (bestLen === 6 || (bestLen === 5 && words[5] === 0xffff))) {
      out += formatIPv4(value & 0xffff_ffffn);
      break;
    }
    out += (words[i] ?? 0).toString(16);
  }
  if (bestBase !== -1 && bestBase + bestLen === 8) out += ':';
  return out;
}

export function formatAddress(value: bigint, family: IptFamily): string {
  return family === 4 ? formatIPv4(value) : formatIPv6(value);
}

export function prefixMask(prefix: number, family: IptFamily): bigint {
  const bits = BigInt(familyBits(family));
  const all = (1n << bits) - 1n;
  return prefix === 0 ? 0n : (all >> BigInt(familyBits(family) - prefix)) << BigInt(familyBits(family) - prefix);
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

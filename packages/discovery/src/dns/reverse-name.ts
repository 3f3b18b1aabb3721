// in-addr.arpa and ip6.arpa names (RFC 1035 §3.5, RFC 3596 §2.5).
// upstream: coredns plugin/pkg/dnsutil/reverse.go (ExtractAddressFromReverse)
import { ipFromBigInt, parseIP, type IP } from '@kubesvc/api-types';

export const IPV4_REVERSE_ZONE = 'in-addr.arpa';
export const IPV6_REVERSE_ZONE = 'ip6.arpa';

/** The PTR name of an address: `4.3.2.1.in-addr.arpa`, or 32 nibbles under ip6.arpa. */
export function reverseName(ip: IP): string {
  if (ip.family === 4) {
    const v = Number(ip.value);
    return `${v & 255}.${(v >>> 8) & 255}.${(v >>> 16) & 255}.${v >>> 24}.${IPV4_REVERSE_ZONE}`;
  }
  const hex = ip.value.toString(16).padStart(32, '0');
  return `${[...hex].reverse().join('.')}.${IPV6_REVERSE_ZONE}`;
}

const DECIMAL = /^(0|[1-9][0-9]{0,2})$/;
const NIBBLE = /^[0-9a-f]$/;

/** The address a reverse name stands for, or undefined if it names none (lower-case input). */
export function addressFromReverse(name: string): IP | undefined {
  if (typeof name !== 'string') return undefined;
  if (name.endsWith(`.${IPV4_REVERSE_ZONE}`)) {
    const labels = name.slice(0, -IPV4_REVERSE_ZONE.length - 1).split('.');
    if (labels.length !== 4 || !labels.every((l) => DECIMAL.test(l))) return undefined;
    const parsed = parseIP(labels.reverse().join('.'));
    return parsed.ok ? parsed.value : undefined;
  }
  if (name.endsWith(`.${IPV6_REVERSE_ZONE}`)) {
    const labels = name.slice(0, -IPV6_REVERSE_ZONE.length - 1).split('.');
    if (labels.length !== 32 || !labels.every((l) => NIBBLE.test(l))) return undefined;
    // An IPv4-mapped address reads as IPv4, as Go's ParseIP(...).String() prints it.
    return ipFromBigInt(6, BigInt(`0x${labels.reverse().join('')}`));
  }
  return undefined;
}

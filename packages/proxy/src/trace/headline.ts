// What every backend's trace text starts with and how it writes a probability, so that an
// iptables trace and an nftables trace of the same packet read alike.

import { joinHostPort } from '@kubesvc/api-types';
import type { ConntrackState, Packet, PacketEntry } from './packet.js';
import { formatRational, toFixed, type Rational } from './rational.js';

const ENTRY: Readonly<Record<PacketEntry, string>> = {
  pod: 'from a pod on this node',
  node: 'from another node',
  outside: 'from outside the cluster',
  host: 'from this host',
};

/** `ip:port` (`[ip]:port` for IPv6), or the bare IP for ICMP, which has no port. */
export function packetDestinationText(packet: Packet): string {
  return packet.destinationPort === undefined ? packet.destination : joinHostPort(packet.destination, packet.destinationPort);
}

/** `tcp 10.244.0.2 -> 10.96.0.1:443 from a pod on this node (conntrack NEW)`. */
export function packetHeadline(packet: Packet, conntrack: ConntrackState = 'NEW'): string {
  const what = packet.protocol === 'icmp' ? 'icmp echo request' : packet.protocol;
  return `${what} ${packet.source} -> ${packetDestinationText(packet)} ${ENTRY[packet.entry]} (conntrack ${conntrack})`;
}

/** `written 1/3 ≈ 0.333333333333, kernel 1431655765/4294967296 ≈ 0.333333333101`. */
export function probabilityLine(written: Rational, kernel: Rational): string {
  return `written ${formatRational(written)} ≈ ${toFixed(written, 12)}, kernel ${formatRational(kernel)} ≈ ${toFixed(kernel, 12)}`;
}

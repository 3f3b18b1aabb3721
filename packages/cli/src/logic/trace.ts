// `kubesvc trace`: the packet of the flags, and the trace's outcomes as a table or as data. Pure.
import { err, ok, parseIP, splitHostPort, type Result, type TaggedError } from '@kubesvc/api-types';
import { formatRational, rationalToFixed, type Packet, type PacketEntry, type Rational } from '@kubesvc/proxy-iptables';
import { formatTable } from '../output/output-format.js';

export const PACKET_PROTOCOLS = ['tcp', 'udp', 'sctp', 'icmp'] as const;
export const PACKET_ENTRIES: readonly PacketEntry[] = ['pod', 'node', 'outside', 'host'];

export interface PacketFlags {
  readonly to: string;
  readonly proto: (typeof PACKET_PROTOCOLS)[number];
  readonly from?: string;
  readonly entry?: PacketEntry;
  readonly nodePort: boolean;
  readonly nodeIPs: readonly string[];
}

/** A wrong `--to`/`--from`: a usage error naming the flag. */
export type ErrPacketFlags = TaggedError<'ErrPacketFlags'>;

/** The default sources: a pod in the usual 10.244.0.0/16 pod CIDR, and a documentation address outside the cluster. */
export const DEFAULT_POD_SOURCE = '10.244.0.2';
export const DEFAULT_OUTSIDE_SOURCE = '203.0.113.10';

export interface TracedPacket {
  readonly packet: Packet;
  /** The node's local addresses: the node IPs, and the address of `--to` for a node port. */
  readonly localAddresses: readonly string[];
}

const bad = (message: string): Result<never, ErrPacketFlags> => err({ _tag: 'ErrPacketFlags', message });

function destinationOf(flags: PacketFlags): Result<{ host: string; port: number | undefined }, ErrPacketFlags> {
  const to = flags.to;
  if (flags.proto === 'icmp') {
    const ip = parseIP(to.replace(/^\[(.*)\]$/, '$1'));
    if (!ip.ok) return bad(`--to ${JSON.stringify(to)}: an ICMP echo has no port: give an IP address (${ip.error.message})`);
    return ok({ host: to.replace(/^\[(.*)\]$/, '$1'), port: undefined });
  }
  // `:30080` with --node-port: the node's first IP.
  const text = flags.nodePort && to.startsWith(':') && flags.nodeIPs[0] !== undefined ? `${joinHost(flags.nodeIPs[0])}${to}` : to;
  const split = splitHostPort(text);
  if (!split.ok) return bad(`--to ${JSON.stringify(to)}: expected IP:PORT: ${split.error.message}`);
  const { host, port } = split.value;
  const ip = parseIP(host);
  if (!ip.ok) return bad(`--to ${JSON.stringify(to)}: ${ip.error.message}`);
  const number = /^\d+$/.test(port) ? Number(port) : Number.NaN;
  if (!Number.isInteger(number) || number < 1 || number > 65535) return bad(`--to ${JSON.stringify(to)}: the port must be a number from 1 to 65535`);
  return ok({ host, port: number });
}

function joinHost(ip: string): string {
  return ip.includes(':') ? `[${ip}]` : ip;
}

/** The packet that `--to`, `--proto`, `--from`, `--entry` and `--node-port` describe. */
export function packetOf(flags: PacketFlags): Result<TracedPacket, ErrPacketFlags> {
  const destination = destinationOf(flags);
  if (!destination.ok) return destination;
  const entry = flags.entry ?? (flags.nodePort ? 'outside' : 'pod');
  const source = flags.from ?? (entry === 'outside' ? DEFAULT_OUTSIDE_SOURCE : entry === 'host' ? (flags.nodeIPs[0] ?? '127.0.0.1') : DEFAULT_POD_SOURCE);
  const from = parseIP(source);
  if (!from.ok) return bad(`--from ${JSON.stringify(source)}: ${from.error.message}`);
  const { host, port } = destination.value;
  const localAddresses = flags.nodePort && !flags.nodeIPs.includes(host) ? [...flags.nodeIPs, host] : [...flags.nodeIPs];
  const packet: Packet =
    port === undefined || flags.proto === 'icmp'
      ? { protocol: 'icmp', source, destination: host, entry }
      : { protocol: flags.proto, source, destination: host, destinationPort: port, entry };
  return ok({ packet, localAddresses });
}

/** What both backends' tracers say of an outcome (proxy-iptables' and proxy-nftables' TraceOutcome). */
export interface TracedOutcome {
  readonly kind: 'dnat' | 'reject' | 'drop' | 'accept' | 'no-match';
  readonly dnat?: string;
  readonly delivery: 'local' | 'forward';
  readonly masqueraded: boolean;
  readonly chains: readonly string[];
  readonly probability: { readonly written: Rational; readonly kernel: Rational };
}

/** A trace of either backend. */
export interface Traced {
  readonly packet: Packet;
  readonly outcomes: readonly TracedOutcome[];
}

function outcomeText(o: TracedOutcome): string {
  switch (o.kind) {
    case 'dnat':
      return 'DNAT';
    case 'no-match':
      return 'no rule';
    default:
      return o.kind.toUpperCase();
  }
}

function destinationText(trace: Traced, o: TracedOutcome): string {
  if (o.dnat !== undefined) return o.dnat;
  const p = trace.packet;
  return p.destinationPort === undefined ? p.destination : `${joinHost(p.destination)}:${p.destinationPort}`;
}

// The chains that say which service and endpoint a packet took; the filter chains and
// KUBE-POSTROUTING every packet passes are left to the text output. iptables mode:
// KUBE-SERVICES, KUBE-SVC-…; nftables mode: services, service-…, external-…, endpoint-….
// (The nftables checks every new connection passes, firewall-check and the *-endpoints-check
// chains, are left out too.)
const SERVICE_CHAIN = /^(KUBE-(SERVICES|NODEPORTS|SVC|SVL|EXT|FW|SEP|XLB)\b|services$|(service|external|firewall|endpoint)-(?!(.*-)?check$))/;

function serviceChains(o: TracedOutcome): string[] {
  return [...new Set(o.chains.filter((c) => SERVICE_CHAIN.test(c)))];
}

/** `-o table`: one row per outcome, the exact probability as a fraction and its decimal, as written and as the kernel draws. */
export function traceTable(trace: Traced): string {
  const rows = trace.outcomes.map((o) => [
    outcomeText(o),
    destinationText(trace, o),
    formatRational(o.probability.written),
    rationalToFixed(o.probability.written, 10),
    rationalToFixed(o.probability.kernel, 10),
    o.masqueraded ? 'yes' : 'no',
    serviceChains(o).join(' > '),
  ]);
  return formatTable(['OUTCOME', 'DESTINATION', 'PROBABILITY', 'DECIMAL', 'KERNEL', 'MASQUERADED', 'CHAINS'], rows);
}

/** `-o json|yaml`: the packet and every outcome, probabilities as exact fractions and decimals. */
export function traceData(trace: Traced): Record<string, unknown> {
  return {
    packet: { ...trace.packet },
    outcomes: trace.outcomes.map((o) => ({
      outcome: o.kind,
      destination: destinationText(trace, o),
      ...(o.dnat !== undefined ? { dnat: o.dnat } : {}),
      delivery: o.delivery,
      masqueraded: o.masqueraded,
      probability: {
        written: formatRational(o.probability.written),
        writtenDecimal: rationalToFixed(o.probability.written, 12),
        kernel: formatRational(o.probability.kernel),
        kernelDecimal: rationalToFixed(o.probability.kernel, 12),
      },
      chains: [...o.chains],
    })),
  };
}

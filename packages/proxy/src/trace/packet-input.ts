// The shape check at a tracer's edge. A tracer is called from JavaScript, from the CLI and
// with a packet read from JSON, so its arguments are checked once, before the interpreter runs:
// a protocol or entry point the tracer does not know, a port that is not one, a local address
// that does not parse, or an unknown conntrack state is an ErrTrace naming the field, never a
// `no-match` trace nor a TypeError from deep inside. The checks cost one pass over the
// arguments, none in the interpreter's loop. The check of what the packet is traced through
// (proxy-iptables: a Ruleset) belongs to the backend.

import { err, isRecord, ok, type Err, type Result } from '@kubesvc/api-types';
import { parseAddress } from './address.js';
import type { ConntrackState, ErrTrace, Packet, PacketEntry, PacketProtocol, TraceOptions } from './packet.js';

const PROTOCOLS: readonly PacketProtocol[] = ['tcp', 'udp', 'sctp', 'icmp'];
const ENTRIES: readonly PacketEntry[] = ['pod', 'node', 'outside', 'host'];
const CONNTRACK_STATES: readonly ConntrackState[] = ['NEW', 'ESTABLISHED', 'RELATED', 'INVALID', 'UNTRACKED'];

/** An ErrTrace refusing `field`. */
export function refuse(field: string, message: string): Err<ErrTrace> {
  return err({ _tag: 'ErrTrace', message: `${field}: ${message}`, field });
}

/** How a refusal names a value it was given. */
export function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return `${typeof value} ${String(value)}`;
  return typeof value;
}

/**
 * The protocol, case-insensitively: Kubernetes writes `TCP`, iptables `tcp`; both are the same
 * protocol, and refusing one of them would only make users convert.
 */
function packetProtocol(value: unknown): PacketProtocol | undefined {
  if (typeof value !== 'string') return undefined;
  const lower = value.toLowerCase();
  return PROTOCOLS.find((p) => p === lower);
}

/** The packet, its protocol in lower case, or why it is refused. */
export function checkPacket(value: unknown, family: 4 | 6): Result<Packet, ErrTrace> {
  if (!isRecord(value)) return refuse('packet', `expected an object, got ${describe(value)}`);
  const { source, destination, protocol, destinationPort, entry } = value;
  if (typeof source !== 'string' || parseAddress(source, family) === undefined) {
    return refuse('packet.source', `${describe(source)} is not an IPv${family} address`);
  }
  if (typeof destination !== 'string' || parseAddress(destination, family) === undefined) {
    return refuse('packet.destination', `${describe(destination)} is not an IPv${family} address`);
  }
  const known = packetProtocol(protocol);
  if (known === undefined) return refuse('packet.protocol', `unknown protocol ${describe(protocol)} (expected tcp, udp, sctp or icmp)`);
  if (typeof entry !== 'string' || !(ENTRIES as readonly string[]).includes(entry)) {
    return refuse('packet.entry', `unknown entry point ${describe(entry)} (expected pod, node, outside or host)`);
  }
  const base = { source, destination, entry: entry as PacketEntry };
  if (known === 'icmp') {
    if (destinationPort !== undefined) return refuse('packet.destinationPort', 'an ICMP echo request has no port');
    return ok({ ...base, protocol: known });
  }
  if (typeof destinationPort !== 'number' || !Number.isInteger(destinationPort) || destinationPort < 0 || destinationPort > 65535) {
    return refuse('packet.destinationPort', `bad destination port ${describe(destinationPort)} (expected an integer 0-65535)`);
  }
  return ok({ ...base, protocol: known, destinationPort });
}

/** Whether the options have the shape TraceOptions says; the values are read by the tracer. */
export function checkOptions<O = unknown>(value: unknown): Result<TraceOptions<O>, ErrTrace> {
  if (!isRecord(value)) return refuse('options', `expected an object, got ${describe(value)}`);
  const { localAddresses, recent, now, masqueradeMark, mark, conntrack, onOutcome } = value;
  if (!Array.isArray(localAddresses)) return refuse('options.localAddresses', `expected an array of addresses, got ${describe(localAddresses)}`);
  // A node's list holds both families; the other family's addresses are not this proxier's.
  for (const [i, address] of (localAddresses as unknown[]).entries()) {
    if (typeof address !== 'string' || (parseAddress(address, 4) === undefined && parseAddress(address, 6) === undefined)) {
      return refuse(`options.localAddresses[${i}]`, `${describe(address)} is not an IP address`);
    }
  }
  if (recent !== undefined) {
    if (!Array.isArray(recent)) return refuse('options.recent', `expected an array, got ${describe(recent)}`);
    for (const [i, entry] of (recent as unknown[]).entries()) {
      const bad = checkRecent(entry);
      if (bad !== undefined) return refuse(`options.recent[${i}]`, bad);
    }
  }
  if (now !== undefined && (typeof now !== 'number' || !Number.isFinite(now))) return refuse('options.now', `expected a finite number of milliseconds, got ${describe(now)}`);
  for (const [name, m] of [
    ['masqueradeMark', masqueradeMark],
    ['mark', mark],
  ] as const) {
    if (m !== undefined && (typeof m !== 'number' || !Number.isInteger(m) || m < 0 || m > 0xffffffff)) {
      return refuse(`options.${name}`, `expected a 32-bit mark, got ${describe(m)}`);
    }
  }
  if (conntrack !== undefined && (typeof conntrack !== 'string' || !(CONNTRACK_STATES as readonly string[]).includes(conntrack))) {
    return refuse('options.conntrack', `unknown conntrack state ${describe(conntrack)} (expected ${CONNTRACK_STATES.join(', ')})`);
  }
  if (onOutcome !== undefined && typeof onOutcome !== 'function') return refuse('options.onOutcome', `expected a function, got ${describe(onOutcome)}`);
  return ok(value as unknown as TraceOptions<O>);
}

/** The family option alone: it says how to read every other address. */
export function checkFamily(options: unknown): Result<4 | 6, ErrTrace> {
  const family = isRecord(options) ? options['family'] : undefined;
  if (family === undefined) return ok(4);
  if (family === 4 || family === 6) return ok(family);
  return refuse('options.family', `expected 4 or 6, got ${describe(family)}`);
}

function checkRecent(value: unknown): string | undefined {
  if (!isRecord(value)) return `expected { name, source, lastSeen }, got ${describe(value)}`;
  if (typeof value['name'] !== 'string') return `name: expected a string, got ${describe(value['name'])}`;
  // xt_recent keeps both families' sources in one list; the other family's never match here.
  const source = value['source'];
  if (typeof source !== 'string' || (parseAddress(source, 4) === undefined && parseAddress(source, 6) === undefined)) return `source: ${describe(source)} is not an IP address`;
  const lastSeen = value['lastSeen'];
  if (typeof lastSeen !== 'number' || !Number.isFinite(lastSeen)) return `lastSeen: expected a finite number, got ${describe(lastSeen)}`;
  return undefined;
}

// What a packet tracer takes, whichever backend's rules it walks: the packet, where it enters
// the node, the conntrack and xt_recent state it meets, and why a trace could not run. The
// tracer itself (what it returns) belongs to the backend: proxy-iptables' trace/.

import type { L4Protocol } from '../service-ports.js';

/**
 * Where the packet enters this node's netfilter hooks:
 * - `pod`: from a pod on this node (through its veth), then nat PREROUTING;
 * - `node`: routed through this node from another node or a pod there, nat PREROUTING;
 * - `outside`: from a client outside the cluster, nat PREROUTING;
 * - `host`: sent by a process of this host (host network), nat OUTPUT.
 * pod, node and outside take the same hooks; they differ in the source address you give.
 */
export type PacketEntry = 'pod' | 'node' | 'outside' | 'host';

/**
 * The protocols a traced packet can carry: the three kube-proxy writes rules for, and ICMP
 * (an echo request, as `ping` sends). Only the packet has ICMP, not a Rule: kube-proxy writes
 * every service rule with `-p tcp|udp|sctp`, so none of them matches a ping, which is what a
 * trace of one shows. `tracePacket` also takes these names in any case
 * (`'TCP'`, as a Service port writes it, is `'tcp'`).
 */
export type PacketProtocol = L4Protocol | 'icmp';

interface PacketBase {
  readonly source: string;
  readonly destination: string;
  readonly entry: PacketEntry;
}

/** A TCP, UDP or SCTP packet: it has a destination port (0–65535). */
export interface PortPacket extends PacketBase {
  readonly protocol: L4Protocol;
  readonly destinationPort: number;
}

/** An ICMP echo request (`ping`): no port, so `destinationPort` must be absent. */
export interface IcmpPacket extends PacketBase {
  readonly protocol: 'icmp';
  readonly destinationPort?: undefined;
}

export type Packet = PortPacket | IcmpPacket;

/** One entry of an xt_recent list: `source` was last seen at `lastSeen` (ms). */
export interface RecentEntry {
  readonly name: string;
  readonly source: string;
  readonly lastSeen: number;
}

export type ConntrackState = 'NEW' | 'ESTABLISHED' | 'RELATED' | 'INVALID' | 'UNTRACKED';

/** `O`: the outcome a backend's tracer reports (proxy-iptables: its TraceOutcome). */
export interface TraceOptions<O = unknown> {
  /**
   * The addresses `-m addrtype --src-type/--dst-type LOCAL` treats as local, and that routing
   * delivers to this host: the node's IPs, and any LoadBalancer or external IP that the
   * cloud adds to the node's local routing table (GCE does; most do not). 127.0.0.0/8 and
   * ::1 are always local and need not be listed.
   */
  readonly localAddresses: readonly string[];
  /** The xt_recent lists (default none). */
  readonly recent?: readonly RecentEntry[];
  /** Milliseconds, the clock the `recent` entries use (default 0). */
  readonly now?: number;
  /** The masquerade mark, to report `markedForMasquerade` (default 0x4000; the rules decide masquerading). */
  readonly masqueradeMark?: number;
  /** The packet's mark when it enters (default 0). */
  readonly mark?: number;
  /**
   * The conntrack state of the packet (default NEW: the first packet of a connection). The nat
   * table is only consulted for NEW packets; later packets follow the connection's binding,
   * which the tracer does not know, so they are traced through filter with the original destination.
   */
  readonly conntrack?: ConntrackState;
  /** How to read a restore text's addresses (default 4); a Ruleset carries its own family. */
  readonly family?: 4 | 6;
  /**
   * Called with each outcome as it is found; the outcomes are then not kept in the result
   * (for chains of thousands of endpoints, whose exact probabilities are large numbers).
   */
  readonly onOutcome?: (outcome: O) => void;
}

/**
 * Why a trace could not run: a rule the tracer cannot evaluate (with its `line` in a restore
 * text), or input of the wrong shape (with the `field` at fault: `packet.protocol`,
 * `options.localAddresses[1]`, `ruleset`, ...).
 */
export interface ErrTrace {
  readonly _tag: 'ErrTrace';
  readonly message: string;
  /** The line of a restore text, when the error is in one. */
  readonly line?: number;
  /** The argument or field at fault, when the input itself is refused. */
  readonly field?: string;
}

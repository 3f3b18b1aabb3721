// The values the packet tracer takes and returns.

import type { Result } from '@kubesvc/api-types';
import type { L4Protocol, Rule, TableName } from '../ruleset.js';
import type { Rational } from './rational.js';

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

export interface TraceOptions {
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
  readonly onOutcome?: (outcome: TraceOutcome) => void;
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

export interface MatchedRule {
  readonly table: TableName;
  readonly chain: string;
  /** 0-based position in the chain. */
  readonly index: number;
  /**
   * The rule's line. Over a Ruleset that generateRules made, exactly kube-proxy's line in its
   * restore text (`-A CHAIN ...`; for the built-in chains' jump rules, the arguments kube-proxy
   * passes to `iptables -I`, written as `-A CHAIN ...`). Over a restore text (or a Ruleset that
   * `rulesetFromRestoreText` read), the line `iptables-save` prints for that rule once loaded:
   * `-A`, then `-s`, `-d`, `-p`, every `-m` with its options in the kernel's canonical form, and
   * the target; for an iptables-save dump that is the dump's own line.
   */
  readonly text: string;
  readonly rule: Rule;
}

/** A statistic match the packet met: taken (matched) or not, with both probabilities of that branch. */
export interface Branch {
  readonly table: TableName;
  readonly chain: string;
  readonly index: number;
  /** The `--probability` text. */
  readonly probability: string;
  /** The u32 the kernel stores for it. */
  readonly stored: number;
  readonly taken: boolean;
  /** The probability of this branch given the packet got here: p or 1 − p. */
  readonly written: Rational;
  readonly kernel: Rational;
}

/** A step of an outcome's path, in order. */
export type TraceStep =
  | { readonly kind: 'hook'; readonly table: TableName; readonly chain: string }
  | { readonly kind: 'enter'; readonly table: TableName; readonly chain: string }
  | { readonly kind: 'rule'; readonly matched: MatchedRule }
  | { readonly kind: 'branch'; readonly branch: Branch; readonly rule: MatchedRule }
  | { readonly kind: 'return'; readonly table: TableName; readonly chain: string }
  | { readonly kind: 'skip'; readonly reason: string };

/**
 * How one possible run of the packet ends.
 * - `dnat`: the destination was rewritten and the packet goes on (delivered or forwarded);
 * - `reject`, `drop`: a filter rule ended it (a DNAT before is still reported in `dnat`);
 * - `accept`: not DNATed, and a rule accepted it explicitly (e.g. a health check node port);
 * - `no-match`: not DNATed and no rule decided: the chains' ACCEPT policy lets it through.
 */
export type OutcomeKind = 'dnat' | 'reject' | 'drop' | 'accept' | 'no-match';

export interface TraceOutcome {
  readonly kind: OutcomeKind;
  /** The DNAT destination, `ip:port` as written (`[ip]:port` for IPv6). */
  readonly dnat?: string;
  /** The destination after nat: local (filter INPUT) or routed on (filter FORWARD, nat POSTROUTING). */
  readonly delivery: 'local' | 'forward';
  /** KUBE-MARK-MASQ (or any rule) set the masquerade mark. */
  readonly markedForMasquerade: boolean;
  /** A MASQUERADE rule took the packet in nat POSTROUTING. */
  readonly masqueraded: boolean;
  /** The xt_recent entries `--set` wrote (source, at `now`). */
  readonly recentUpdates: readonly RecentEntry[];
  /** The user chains entered, in order (`KUBE-SERVICES`, `KUBE-SVC-…`, `KUBE-SEP-…`, …), per table. */
  readonly chains: readonly string[];
  /** The rules that matched, in order (a not-taken statistic rule did not match and is not here). */
  readonly matched: readonly MatchedRule[];
  /** The probability of this outcome: with the written probabilities, and as the kernel draws. */
  readonly probability: { readonly written: Rational; readonly kernel: Rational };
  /** Every step, branches included; built on demand (`traceSteps`), since shared between outcomes. */
  readonly trail: Trail;
}

/** A persistent list of steps, newest first; `traceSteps` gives them oldest first. */
export interface Trail {
  readonly step: TraceStep;
  readonly previous: Trail | undefined;
}

export interface Trace {
  readonly packet: Packet;
  /** In the order found: statistic branches taken first, so endpoints come in chain order. */
  readonly outcomes: readonly TraceOutcome[];
  /** How many outcomes there were (equal to outcomes.length unless `onOutcome` took them). */
  readonly outcomeCount: number;
}

export type TraceResult = Result<Trace, ErrTrace>;

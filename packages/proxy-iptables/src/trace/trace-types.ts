// The values the packet tracer takes and returns: the packet and its options come from
// @kubesvc/proxy (trace/packet.ts there); what a trace finds is about iptables rules.

import type { Result } from '@kubesvc/api-types';
import type { ErrTrace, Packet, Rational, RecentEntry, TraceOptions as BaseTraceOptions } from '@kubesvc/proxy';
import type { Rule, TableName } from '../ruleset.js';

export type { ConntrackState, ErrTrace, IcmpPacket, Packet, PacketEntry, PacketProtocol, PortPacket, RecentEntry } from '@kubesvc/proxy';

/** The tracer's options (@kubesvc/proxy's TraceOptions), `onOutcome` taking this tracer's outcomes. */
export type TraceOptions = BaseTraceOptions<TraceOutcome>;

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

// The values the packet tracer takes and returns: the packet and its options come from
// @kubesvc/proxy (trace/packet.ts there), shaped as proxy-iptables' tracer returns them; what
// a trace finds is about nftables chains and rules.

import type { Result } from '@kubesvc/api-types';
import type { ErrTrace, Packet, Rational, RecentEntry, TraceOptions as BaseTraceOptions } from '@kubesvc/proxy';
import type { NftRule } from '../model/types.js';
import type { BaseChainHook } from '../names.js';

export type { ConntrackState, ErrTrace, IcmpPacket, Packet, PacketEntry, PacketProtocol, PortPacket, RecentEntry } from '@kubesvc/proxy';

/**
 * The tracer's options (@kubesvc/proxy's TraceOptions), `onOutcome` taking this tracer's
 * outcomes. `recent` is the affinity state: an entry `{ name, source, lastSeen }` says that
 * `source` is in the affinity set `name` since `lastSeen` (ms), until the set's timeout has
 * passed at `now`; the elements a table's affinity sets already hold (a live node's listing)
 * count too.
 */
export type TraceOptions = BaseTraceOptions<TraceOutcome>;

export interface MatchedRule {
  readonly chain: string;
  /** 0-based position in the chain. */
  readonly index: number;
  /** The rule's text, as the table holds it (without its comment). */
  readonly text: string;
  readonly rule: NftRule;
}

/** A `numgen random mod N` branch the run took. */
export interface Branch {
  readonly chain: string;
  readonly index: number;
  /** The number drawn, 0 ≤ value < modulus. */
  readonly value: number;
  readonly modulus: number;
  /** 1/N, as the rule is written. */
  readonly written: Rational;
  /** The share of 32-bit random numbers the kernel maps to `value` (reciprocal_scale). */
  readonly kernel: Rational;
}

/** A step of an outcome's path, in order. */
export type TraceStep =
  | { readonly kind: 'hook'; readonly hook: BaseChainHook; readonly chain: string; readonly priority: number }
  | { readonly kind: 'enter'; readonly chain: string; readonly via: 'jump' | 'goto' }
  | { readonly kind: 'rule'; readonly matched: MatchedRule }
  | { readonly kind: 'branch'; readonly branch: Branch; readonly rule: MatchedRule }
  | { readonly kind: 'return'; readonly chain: string }
  | { readonly kind: 'skip'; readonly reason: string };

/**
 * How one possible run of the packet ends (as proxy-iptables' outcomes):
 * - `dnat`: the destination was rewritten and the packet goes on (delivered or forwarded);
 * - `reject`, `drop`: a rule ended it (a DNAT before is still reported in `dnat`);
 * - `accept`: not DNATed, and a filter rule accepted it explicitly;
 * - `no-match`: not DNATed and no rule decided: the chains' accept policy lets it through.
 */
export type OutcomeKind = 'dnat' | 'reject' | 'drop' | 'accept' | 'no-match';

export interface TraceOutcome {
  readonly kind: OutcomeKind;
  /** The DNAT destination, `ip:port` as written (`[ip]:port` for IPv6). */
  readonly dnat?: string;
  /** The destination after DNAT: local (the input hook) or routed on (forward, postrouting). */
  readonly delivery: 'local' | 'forward';
  /** The masquerade mark was set (by `mark-for-masquerade` or any rule), or a masquerade ran. */
  readonly markedForMasquerade: boolean;
  /** A `masquerade` statement took the packet in the postrouting hook. */
  readonly masqueraded: boolean;
  /** The affinity entries `update @set { ip saddr }` wrote (source, at `now`). */
  readonly affinityUpdates: readonly RecentEntry[];
  /** The regular chains entered (by jump, goto or a verdict map), in order. */
  readonly chains: readonly string[];
  /** The rules that matched, in order. */
  readonly matched: readonly MatchedRule[];
  /** The probability of this outcome: with 1/N per numgen branch, and as the kernel draws. */
  readonly probability: { readonly written: Rational; readonly kernel: Rational };
  /** Every step, branches included; `traceSteps` gives them oldest first. */
  readonly trail: Trail;
}

/** A persistent list of steps, newest first. */
export interface Trail {
  readonly step: TraceStep;
  readonly previous: Trail | undefined;
}

export interface Trace {
  readonly packet: Packet;
  /** In the order found: numgen branches in value order, so endpoints come in map order. */
  readonly outcomes: readonly TraceOutcome[];
  /** How many outcomes there were (equal to outcomes.length unless `onOutcome` took them). */
  readonly outcomeCount: number;
}

export type TraceResult = Result<Trace, ErrTrace>;

/** An outcome's steps, oldest first. */
export function traceSteps(outcome: TraceOutcome): TraceStep[] {
  const out: TraceStep[] = [];
  for (let t: Trail | undefined = outcome.trail; t !== undefined; t = t.previous) out.push(t.step);
  return out.reverse();
}

// What both tracers (proxy-iptables' and proxy-nftables') tell of a packet, for a lab whose
// nodes may run either mode.
import type { Result } from '@kubesvc/api-types';
import type { ErrTrace, Packet, Rational } from '@kubesvc/proxy';

/** How one possible run of the packet ends: the fields both tracers' outcomes share. */
export interface LabTraceOutcome {
  readonly kind: 'dnat' | 'reject' | 'drop' | 'accept' | 'no-match';
  /** The DNAT destination, `ip:port`. */
  readonly dnat?: string;
  readonly delivery: 'local' | 'forward';
  readonly markedForMasquerade: boolean;
  readonly masqueraded: boolean;
  /** The chains entered, in order. */
  readonly chains: readonly string[];
  readonly probability: { readonly written: Rational; readonly kernel: Rational };
}

export type LabTraceResult = Result<{ readonly packet: Packet; readonly outcomes: readonly LabTraceOutcome[] }, ErrTrace>;

// A trace for people, as proxy-iptables' explain writes one: the packet, then each outcome
// with its probability and the rules it went through, chain by chain, with every numgen
// branch on the way. Same table and packet, same text.

import type { Result } from '@kubesvc/api-types';
import { formatRational, packetDestinationText, packetHeadline, probabilityLine, type Packet } from '@kubesvc/proxy';
import type { NftTable } from '../model/types.js';
import { tracePacket } from './trace-packet.js';
import { traceSteps, type ErrTrace, type TraceOptions, type TraceOutcome } from './trace-types.js';

export type ExplainResult = Result<string, ErrTrace>;

function delivered(outcome: TraceOutcome): string {
  return outcome.delivery === 'local' ? 'delivered to this host' : 'forwarded';
}

function verdict(outcome: TraceOutcome, packet: Packet): string {
  const masq = outcome.masqueraded ? ', masqueraded' : '';
  switch (outcome.kind) {
    case 'dnat':
      return `DNAT to ${outcome.dnat ?? ''} (${delivered(outcome)}${masq})`;
    case 'accept':
      return `accept (${delivered(outcome)}${masq})`;
    case 'no-match':
      return `no rule decided: the packet goes on to ${packetDestinationText(packet)}, not DNATed (${delivered(outcome)})`;
    case 'drop':
      return outcome.dnat === undefined ? 'drop' : `drop (after DNAT to ${outcome.dnat})`;
    case 'reject':
      return outcome.dnat === undefined ? 'reject' : `reject (after DNAT to ${outcome.dnat})`;
  }
}

/** What kube-proxy's nftables chains that end a packet mean, for the outcome's last chain. */
const ENDING_NOTES: Readonly<Record<string, string>> = {
  'cluster-ips-check':
    "the destination is a ClusterIP (or an address of a ServiceCIDR) that no DNAT rule took: kube-proxy's nftables mode rejects a packet to an undefined port of a ClusterIP and drops one to an unallocated ClusterIP (the iptables mode lets both through to nowhere)",
  'reject-chain': 'the service port has no usable endpoints: kube-proxy rejects the connection',
};

/**
 * A readable, chain-by-chain trace of the packet through an nftables table: every possible
 * outcome with its exact probability (as written, 1/N per numgen branch, and as the kernel
 * draws), and the rules that decided it.
 */
export function explain(table: NftTable | string, packet: Packet, options: TraceOptions): ExplainResult {
  // explain needs the outcomes themselves, so a caller's onOutcome is not used; options that
  // are not an object go to tracePacket as they are, which refuses them.
  const given: unknown = options;
  let rest = options;
  if (typeof given === 'object' && given !== null) {
    const { onOutcome, ...others } = options;
    void onOutcome;
    rest = others;
  }
  const result = tracePacket(table, packet, rest);
  if (!result.ok) return result;
  const { outcomes } = result.value;
  const traced = result.value.packet;
  const lines: string[] = [packetHeadline(traced, rest.conntrack), `${outcomes.length} possible outcome${outcomes.length === 1 ? '' : 's'}`];
  outcomes.forEach((outcome, i) => {
    lines.push('', `outcome ${i + 1}: ${verdict(outcome, traced)}`);
    const last = outcome.matched.at(-1)?.chain;
    const note = (outcome.kind === 'drop' || outcome.kind === 'reject') && last !== undefined ? ENDING_NOTES[last] : undefined;
    if (note !== undefined) lines.push(`  ${note}`);
    lines.push(`  probability: ${probabilityLine(outcome.probability.written, outcome.probability.kernel)}`);
    for (const update of outcome.affinityUpdates) lines.push(`  affinity set ${update.name}: ${update.source} seen at ${update.lastSeen}`);
    // A chain's name is printed before the first rule that matched in it (again after a return
    // into it); a base chain's with its hook and priority.
    const labels = new Map<string, string>();
    let chain = '';
    let printed = '';
    const line = (text: string): void => {
      if (chain !== printed) {
        lines.push(`  ${chain}`);
        printed = chain;
      }
      lines.push(`    ${text}`);
    };
    for (const step of traceSteps(outcome)) {
      switch (step.kind) {
        case 'hook':
          chain = `${step.chain} (hook ${step.hook}, priority ${step.priority})`;
          labels.set(step.chain, chain);
          break;
        case 'enter':
        case 'return':
          chain = labels.get(step.chain) ?? step.chain;
          break;
        case 'rule':
          line(step.matched.text);
          break;
        case 'branch': {
          const b = step.branch;
          line(`numgen random mod ${b.modulus} drew ${b.value}: written ${formatRational(b.written)}, kernel ${formatRational(b.kernel)}`);
          break;
        }
        case 'skip':
          lines.push(`  (${step.reason})`);
          break;
      }
    }
  });
  return { ok: true, value: `${lines.join('\n')}\n` };
}

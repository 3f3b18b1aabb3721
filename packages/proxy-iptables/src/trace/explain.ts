// A trace for people: the packet, then each outcome with its probability and the rules it
// went through, chain by chain, with the probability of every statistic branch on the way.
// The text is stable (the README shows it): same ruleset and packet, same text.

import { joinHostPort, type Result } from '@kubesvc/api-types';
import type { Ruleset } from '../ruleset.js';
import { formatRational, toFixed } from './rational.js';
import { traceSteps, tracePacket } from './trace-packet.js';
import type { ErrTrace, Packet, PacketEntry, TraceOptions, TraceOutcome } from './trace-types.js';

export type ExplainResult = Result<string, ErrTrace>;

const ENTRY: Readonly<Record<PacketEntry, string>> = {
  pod: 'from a pod on this node',
  node: 'from another node',
  outside: 'from outside the cluster',
  host: 'from this host',
};

function verdict(outcome: TraceOutcome, destination: string): string {
  const masq = outcome.masqueraded ? ', masqueraded' : '';
  switch (outcome.kind) {
    case 'dnat':
      return `DNAT to ${outcome.dnat ?? ''} (${outcome.delivery === 'local' ? 'delivered to this host' : 'forwarded'}${masq})`;
    case 'accept':
      return `ACCEPT (${outcome.delivery === 'local' ? 'delivered to this host' : 'forwarded'}${masq})`;
    case 'no-match':
      return `no rule decided: the packet goes on to ${destination}, not DNATed (${outcome.delivery === 'local' ? 'delivered to this host' : 'forwarded'})`;
    case 'drop':
      return outcome.dnat === undefined ? 'DROP' : `DROP (after DNAT to ${outcome.dnat})`;
    case 'reject':
      return outcome.dnat === undefined ? 'REJECT' : `REJECT (after DNAT to ${outcome.dnat})`;
  }
}

function probabilityLine(written: { numerator: bigint; denominator: bigint }, kernel: { numerator: bigint; denominator: bigint }): string {
  return `written ${formatRational(written)} ≈ ${toFixed(written, 12)}, kernel ${formatRational(kernel)} ≈ ${toFixed(kernel, 12)}`;
}

/**
 * A readable, chain-by-chain trace of the packet: every possible outcome with its exact
 * probability (written and as the kernel draws), and the rules that decided it.
 */
export function explain(ruleset: Ruleset | string, packet: Packet, options: TraceOptions): ExplainResult {
  // explain needs the outcomes themselves, so a caller's onOutcome is not used.
  const { onOutcome, ...rest } = options;
  void onOutcome;
  const result = tracePacket(ruleset, packet, rest);
  if (!result.ok) return result;
  const { outcomes } = result.value;
  const lines: string[] = [];
  lines.push(`${packet.protocol} ${packet.source} -> ${joinHostPort(packet.destination, packet.destinationPort)} ${ENTRY[packet.entry]} (conntrack ${options.conntrack ?? 'NEW'})`);
  lines.push(`${outcomes.length} possible outcome${outcomes.length === 1 ? '' : 's'}`);
  outcomes.forEach((outcome, i) => {
    lines.push('');
    lines.push(`outcome ${i + 1}: ${verdict(outcome, joinHostPort(packet.destination, packet.destinationPort))}`);
    lines.push(`  probability: ${probabilityLine(outcome.probability.written, outcome.probability.kernel)}`);
    for (const update of outcome.recentUpdates) lines.push(`  recent list ${update.name}: ${update.source} seen at ${update.lastSeen}`);
    // A chain's name is printed before the first rule that matched in it; chains the packet
    // went through without a match show only as the jump into them.
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
        case 'enter':
          chain = `${step.table} ${step.chain}`;
          break;
        case 'return':
          chain = `${step.table} ${step.chain}`;
          break;
        case 'rule':
          line(step.matched.text);
          break;
        case 'branch': {
          const b = step.branch;
          const head = `statistic --probability ${b.probability} (kernel ${b.stored}/2^31)`;
          if (b.taken) line(`${head} matched: written ${formatRational(b.written)}, kernel ${formatRational(b.kernel)}`);
          else line(`${head} did not match: written ${formatRational(b.written)}, kernel ${formatRational(b.kernel)}; skipped ${step.rule.text}`);
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

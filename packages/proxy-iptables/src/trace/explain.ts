// A trace for people: the packet, then each outcome with its probability and the rules it
// went through, chain by chain, with the probability of every statistic branch on the way.
// The text is stable (the README shows it): same ruleset and packet, same text.

import type { Result } from '@kubesvc/api-types';
import { rulesetTable, type Ruleset } from '../ruleset.js';
import { parseAddress, parseMaskedAddress } from '../save/address.js';
import { formatRational, packetDestinationText as destinationText, packetHeadline, probabilityLine } from '@kubesvc/proxy';
import { rulesetFromRestoreText } from './ruleset-from-text.js';
import { traceSteps, tracePacket } from './trace-packet.js';
import type { ErrTrace, Packet, TraceOptions, TraceOutcome } from './trace-types.js';

export type ExplainResult = Result<string, ErrTrace>;

function verdict(outcome: TraceOutcome, packet: Packet): string {
  const masq = outcome.masqueraded ? ', masqueraded' : '';
  const destination = destinationText(packet);
  if (packet.protocol === 'icmp' && outcome.kind === 'no-match') {
    return outcome.delivery === 'local'
      ? `no rule decided: not DNATed, the packet is delivered to this host unchanged (${destination})`
      : `no rule decided: not DNATed, the packet leaves the node unchanged towards ${destination} (forwarded)`;
  }
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

/** One service port whose cluster IP rule is for `destination`: `ns/svc:port` and `tcp 80`. */
interface ClusterIPRule {
  readonly servicePort: string;
  readonly protocol: string;
  readonly port: number | undefined;
}

const CLUSTER_IP_COMMENT = ' cluster IP';

/**
 * The KUBE-SERVICES rules that send `destination` as a cluster IP to a service chain: how
 * kube-proxy marks a ClusterIP (its comment ends in "cluster IP"). upstream:
 * pkg/proxy/iptables/proxier.go (the `"%s cluster IP"` comment of the KUBE-SERVICES jump).
 */
function clusterIPRules(ruleset: Ruleset, destination: string): ClusterIPRule[] {
  const ip = parseAddress(destination, ruleset.family);
  const out: ClusterIPRule[] = [];
  if (ip === undefined) return out;
  const full = ruleset.family === 4 ? 32 : 128;
  for (const rule of rulesetTable(ruleset, 'nat').rules) {
    if (rule.chain !== 'KUBE-SERVICES') continue;
    let comment: string | undefined;
    let protocol = '';
    let port: number | undefined;
    let forDestination = false;
    for (const m of rule.matches) {
      if (m.kind === 'comment') comment = m.text;
      else if (m.kind === 'protocol') protocol = m.protocol;
      else if (m.kind === 'dport') port = m.port;
      else if (m.kind === 'destination' && !m.negated) {
        const a = parseMaskedAddress(m.address, ruleset.family);
        forDestination = a !== undefined && a.prefix === full && a.value === ip;
      }
    }
    if (forDestination && comment?.endsWith(CLUSTER_IP_COMMENT) === true) {
      out.push({ servicePort: comment.slice(0, -CLUSTER_IP_COMMENT.length), protocol, port });
    }
  }
  return out;
}

/** Why a ping to a cluster IP goes unanswered, when the destination is one. */
function icmpNote(ruleset: Ruleset, packet: Packet): string | undefined {
  const rules = clusterIPRules(ruleset, packet.destination);
  if (rules.length === 0) return undefined;
  const ports = rules.map((r) => `${r.servicePort} (${r.protocol}${r.port === undefined ? '' : ` ${r.port}`})`).join(', ');
  return (
    `${packet.destination} is the cluster IP of ${ports}: a virtual IP that no interface owns and no route is for. ` +
    `kube-proxy DNATs only the ports above (its rules test -p tcp, udp or sctp), so no rule matches an ICMP echo request: ` +
    `it leaves the node towards an address nothing answers for, and the ping gets no reply`
  );
}

/**
 * A readable, chain-by-chain trace of the packet: every possible outcome with its exact
 * probability (written and as the kernel draws), and the rules that decided it.
 */
export function explain(ruleset: Ruleset | string, packet: Packet, options: TraceOptions): ExplainResult {
  // explain needs the outcomes themselves, so a caller's onOutcome is not used. Options that
  // are not an object go to tracePacket as they are, which refuses them.
  const given: unknown = options;
  let rest = options;
  if (typeof given === 'object' && given !== null) {
    const { onOutcome, ...others } = options;
    void onOutcome;
    rest = others;
  }
  // A text is read once here, so that the ICMP note can look at its rules; a bad family is
  // left to tracePacket to refuse.
  let rs: Ruleset | string = ruleset;
  const family: unknown = typeof given === 'object' && given !== null ? (given as { family?: unknown }).family : undefined;
  if (typeof ruleset === 'string' && (family === undefined || family === 4 || family === 6)) {
    const parsed = rulesetFromRestoreText(ruleset, family ?? 4);
    if (!parsed.ok) return parsed;
    rs = parsed.value;
  }
  const result = tracePacket(rs, packet, rest);
  if (!result.ok) return result;
  const { outcomes } = result.value;
  // The checked packet: its protocol in lower case.
  const traced = result.value.packet;
  const lines: string[] = [];
  lines.push(packetHeadline(traced, rest.conntrack));
  lines.push(`${outcomes.length} possible outcome${outcomes.length === 1 ? '' : 's'}`);
  outcomes.forEach((outcome, i) => {
    lines.push('');
    lines.push(`outcome ${i + 1}: ${verdict(outcome, traced)}`);
    const note = traced.protocol === 'icmp' && outcome.kind === 'no-match' && outcome.delivery === 'forward' && typeof rs !== 'string' ? icmpNote(rs, traced) : undefined;
    if (note !== undefined) lines.push(`  ${note}`);
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

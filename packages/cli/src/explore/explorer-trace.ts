// The explorer's trace form, run through proxy-iptables' tracer over the rules kube-proxy
// writes for the same objects: the packet as `kubesvc trace` reads its flags. Pure.
import { err, ok } from '@kubesvc/api-types';
import type { TraceAnswer, TraceRequest } from '@kubesvc/explorer';
import { chainRules, formatRational, rationalToFixed, rulesetTable, type ProxierConfig, type Ruleset, type TraceOutcome } from '@kubesvc/proxy-iptables';
import type { Dump } from '../dump/load-dump.js';
import { traceIptablesRun } from '../logic/nodes.js';
import { packetOf } from '../logic/trace.js';

function gcd(a: bigint, b: bigint): bigint {
  return b === 0n ? a : gcd(b, a % b);
}

/**
 * The probability kube-proxy means for an outcome: each `--probability` is its text for
 * 1/denominator (upstream: pkg/proxy/iptables/proxier.go, probability(n) = 1/n), so a rule
 * taken counts 1/d and a statistic rule passed over before it in its chain (d-1)/d. For n
 * endpoints this is exactly 1/n each; the written decimals give a little less or more.
 */
export function intendedProbability(ruleset: Ruleset, outcome: TraceOutcome): string {
  let numerator = 1n;
  let denominator = 1n;
  const nat = rulesetTable(ruleset, 'nat');
  const chains = new Set(outcome.matched.filter((m) => m.table === 'nat').map((m) => m.chain));
  for (const chain of chains) {
    const taken = new Set(outcome.matched.filter((m) => m.table === 'nat' && m.chain === chain).map((m) => m.index));
    const last = Math.max(...taken);
    chainRules(nat, chain).forEach((rule, index) => {
      const statistic = rule.matches.find((m) => m.kind === 'statistic');
      if (statistic?.kind !== 'statistic' || index > last) return;
      const d = BigInt(statistic.denominator);
      // Taken: 1/d. Passed over (its draw failed): (d-1)/d.
      if (!taken.has(index)) numerator *= d - 1n;
      denominator *= d;
    });
  }
  const g = gcd(numerator, denominator);
  return denominator / g === 1n ? String(numerator / g) : `${numerator / g}/${denominator / g}`;
}

export function explorerTrace(dump: Dump, proxier: ProxierConfig, request: TraceRequest): TraceAnswer {
  const packet = packetOf({
    to: request.destination.trim(),
    proto: request.protocol,
    nodePort: false,
    nodeIPs: proxier.nodeIPs,
    ...(request.source.trim() !== '' ? { from: request.source.trim() } : {}),
  });
  if (!packet.ok) return err({ _tag: 'ErrExplorerTrace', message: packet.error.message.replace(/--to/g, 'destination').replace(/--from/g, 'source') });
  const run = traceIptablesRun(dump, proxier, packet.value);
  if (!run.ok) return err({ _tag: 'ErrExplorerTrace', message: run.error.message });
  const { ruleset, trace } = run.value;
  const p = trace.packet;
  return ok(
    trace.outcomes.map((o) => ({
      outcome: o.kind,
      destination: o.dnat ?? (p.destinationPort === undefined ? p.destination : `${p.destination}:${p.destinationPort}`),
      probability: intendedProbability(ruleset, o),
      written: formatRational(o.probability.written),
      decimal: rationalToFixed(o.probability.written, 10),
      kernel: rationalToFixed(o.probability.kernel, 10),
      masqueraded: o.masqueraded,
      chains: [...new Set(o.chains)],
    })),
  );
}

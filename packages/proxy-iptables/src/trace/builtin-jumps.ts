// The rules kube-proxy puts in the built-in chains, which its restore text does not carry:
// each is written once with `EnsureRule(Prepend, ...)`, walking iptablesJumpChains in order,
// so within one built-in chain the LAST entry of the list ends up FIRST. For IPv4 with
// localhost NodePorts, kube-proxy also ensures kubelet's jumps to KUBE-FIREWALL (appended to
// the list, so prepended last: first in INPUT and OUTPUT), without a comment.
// upstream: pkg/proxy/iptables/proxier.go (iptablesJumpChains, iptablesKubeletJumpChains,
// syncProxyRules "ensure jump rules"); pkg/kubelet/kubelet_network_linux.go (KUBE-FIREWALL).

import type { Match, Rule, Ruleset, TableName } from '../ruleset.js';
import { rulesetTable } from '../ruleset.js';

interface JumpChain {
  readonly table: TableName;
  readonly to: string;
  readonly from: string;
  readonly comment: string;
  readonly ctstateNew: boolean;
}

/** upstream's list, in its order. */
const JUMP_CHAINS: readonly JumpChain[] = [
  { table: 'filter', to: 'KUBE-EXTERNAL-SERVICES', from: 'INPUT', comment: 'kubernetes externally-visible service portals', ctstateNew: true },
  { table: 'filter', to: 'KUBE-EXTERNAL-SERVICES', from: 'FORWARD', comment: 'kubernetes externally-visible service portals', ctstateNew: true },
  { table: 'filter', to: 'KUBE-NODEPORTS', from: 'INPUT', comment: 'kubernetes health check service ports', ctstateNew: false },
  { table: 'filter', to: 'KUBE-SERVICES', from: 'FORWARD', comment: 'kubernetes service portals', ctstateNew: true },
  { table: 'filter', to: 'KUBE-SERVICES', from: 'OUTPUT', comment: 'kubernetes service portals', ctstateNew: true },
  { table: 'filter', to: 'KUBE-FORWARD', from: 'FORWARD', comment: 'kubernetes forwarding rules', ctstateNew: false },
  { table: 'filter', to: 'KUBE-PROXY-FIREWALL', from: 'INPUT', comment: 'kubernetes load balancer firewall', ctstateNew: true },
  { table: 'filter', to: 'KUBE-PROXY-FIREWALL', from: 'OUTPUT', comment: 'kubernetes load balancer firewall', ctstateNew: true },
  { table: 'filter', to: 'KUBE-PROXY-FIREWALL', from: 'FORWARD', comment: 'kubernetes load balancer firewall', ctstateNew: true },
  { table: 'nat', to: 'KUBE-SERVICES', from: 'OUTPUT', comment: 'kubernetes service portals', ctstateNew: false },
  { table: 'nat', to: 'KUBE-SERVICES', from: 'PREROUTING', comment: 'kubernetes service portals', ctstateNew: false },
  { table: 'nat', to: 'KUBE-POSTROUTING', from: 'POSTROUTING', comment: 'kubernetes postrouting rules', ctstateNew: false },
  // iptablesKubeletJumpChains (only when the ruleset has KUBE-FIREWALL: IPv4, localhost NodePorts).
  { table: 'filter', to: 'KUBE-FIREWALL', from: 'INPUT', comment: '', ctstateNew: false },
  { table: 'filter', to: 'KUBE-FIREWALL', from: 'OUTPUT', comment: '', ctstateNew: false },
];

export const BUILTIN_CHAINS: Readonly<Record<TableName, readonly string[]>> = {
  filter: ['INPUT', 'FORWARD', 'OUTPUT'],
  nat: ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'],
};

function jumpRule(jump: JumpChain): Rule {
  const matches: Match[] = [];
  if (jump.ctstateNew) matches.push({ kind: 'conntrack', states: ['NEW'], negated: false });
  if (jump.comment !== '') matches.push({ kind: 'comment', text: jump.comment });
  return { chain: jump.from, matches, target: { kind: 'jump', chain: jump.to } };
}

/**
 * The built-in chains' rules for a table: the ruleset's own when it has any rule in a built-in
 * chain of that table (a restore text or iptables-save dump that carries them), else
 * kube-proxy's jump rules to the chains the table declares.
 */
export function builtinRules(ruleset: Ruleset, table: TableName): ReadonlyMap<string, readonly Rule[]> {
  const t = rulesetTable(ruleset, table);
  const builtins = BUILTIN_CHAINS[table];
  const out = new Map<string, Rule[]>(builtins.map((c) => [c, []]));
  const own = t.rules.filter((r) => builtins.includes(r.chain));
  if (own.length > 0) {
    for (const rule of own) out.get(rule.chain)?.push(rule);
    return out;
  }
  const declared = new Set(t.chains);
  for (const jump of JUMP_CHAINS) {
    if (jump.table !== table || !declared.has(jump.to)) continue;
    // Prepend.
    out.get(jump.from)?.unshift(jumpRule(jump));
  }
  return out;
}

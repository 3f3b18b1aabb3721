// Prints a Ruleset as kube-proxy writes iptables-restore input: per table `*name`, the chain
// lines `:NAME - [0:0]`, the rules, `-X NAME` for deleted chains, `COMMIT`.
// upstream: pkg/proxy/iptables/proxier.go (the filterRules/natRules writes, in that argument
// order), pkg/util/iptables/save_restore.go (MakeChainLine).

import type { Match, Rule, Ruleset, Target } from './ruleset.js';

/**
 * kube-proxy writes the quote characters itself, and only for comments with spaces
 * (`"ns/svc:p cluster IP"`); a bare service port name goes unquoted (`ns/svc:p`).
 */
function commentArg(text: string): string {
  return /\s/.test(text) ? `"${text}"` : text;
}

export function printMatch(match: Match): string {
  switch (match.kind) {
    case 'comment':
      return `-m comment --comment ${commentArg(match.text)}`;
    case 'protocol':
      return `-m ${match.protocol} -p ${match.protocol}`;
    case 'dport':
      return `--dport ${match.port}`;
    case 'source':
      return `${match.negated ? '! ' : ''}-s ${match.address}`;
    case 'destination':
      return `${match.negated ? '! ' : ''}-d ${match.address}`;
    case 'addrtype':
      return `-m addrtype --${match.direction}-type ${match.addressType}`;
    case 'statistic':
      return `-m statistic --mode random --probability ${match.probability}`;
    case 'recent-check':
      return `-m recent --name ${match.name} --rcheck --seconds ${match.seconds} --reap`;
    case 'recent-set':
      return `-m recent --name ${match.name} --set`;
    case 'mark':
      return `-m mark ${match.negated ? '! ' : ''}--mark ${match.value}/${match.mask}`;
    case 'conntrack':
      return `-m conntrack ${match.negated ? '! ' : ''}--ctstate ${match.states.join(',')}`;
    case 'nfacct':
      return `-m nfacct --nfacct-name ${match.name}`;
  }
}

export function printTarget(target: Target): string {
  switch (target.kind) {
    case 'jump':
      return `-j ${target.chain}`;
    case 'accept':
      return '-j ACCEPT';
    case 'drop':
      return '-j DROP';
    case 'reject':
      return '-j REJECT';
    case 'return':
      return '-j RETURN';
    case 'dnat':
      return `-j DNAT --to-destination ${target.destination}`;
    case 'mark':
      return `-j MARK --${target.op}-mark ${target.value}`;
    case 'masquerade':
      return target.randomFully ? '-j MASQUERADE --random-fully' : '-j MASQUERADE';
  }
}

/** One rule line, `-A CHAIN ...`, as kube-proxy writes it. */
export function printRule(rule: Rule): string {
  // One join per line, not a chain of `+=`: that leaves a rope per line for the final join
  // to flatten, and a full sync prints hundreds of thousands of lines.
  const parts = ['-A', rule.chain];
  for (const match of rule.matches) parts.push(printMatch(match));
  if (rule.target !== undefined) parts.push(printTarget(rule.target));
  return parts.join(' ');
}

/**
 * The iptables-restore text. Rules come in the ruleset's order; `-X` lines follow the rules
 * of their table (upstream writes them just before the final KUBE-SERVICES rule; restore
 * treats both the same).
 */
export function printRestoreText(ruleset: Ruleset): string {
  const lines: string[] = [];
  for (const table of ruleset.tables) {
    lines.push(`*${table.name}`);
    for (const chain of table.chains) lines.push(`:${chain} - [0:0]`);
    for (const rule of table.rules) lines.push(printRule(rule));
    for (const chain of table.deletedChains) lines.push(`-X ${chain}`);
    lines.push('COMMIT');
  }
  lines.push('');
  return lines.join('\n');
}

// Prints a Ruleset as kube-proxy writes iptables-restore input: per table `*name`, the chain
// lines `:NAME - [0:0]`, the rules, `-X NAME` for deleted chains, `COMMIT`.
// upstream: pkg/proxy/iptables/proxier.go (the filterRules/natRules writes, in that argument
// order), pkg/util/iptables/save_restore.go (MakeChainLine).

import type { L4Protocol, Match, Rule, Ruleset, Target } from '../ruleset.js';
import { flat } from '@kubesvc/proxy';

const WHITESPACE = /\s/;

/**
 * WHITESPACE.test(text), scanning ASCII by hand: two comments per endpoint are tested, and a
 * regular expression call costs more than the scan. Text with other code units goes to the
 * expression, which knows Unicode's spaces.
 */
/** Whether every code unit of `text` is ASCII. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

export function hasWhitespace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) return true;
    if (c > 0x7f) return WHITESPACE.test(text);
  }
  return false;
}

/**
 * The text of a match, preceded by a space. Text is built by concatenation throughout: V8
 * makes ropes of it and flattens a whole service or batch of services once, which is about
 * twice as fast as joining arrays of small pieces.
 * kube-proxy writes the quote characters of a comment itself, and only for comments with
 * spaces (`"ns/svc:p cluster IP"`); a bare service port name goes unquoted (`ns/svc:p`).
 */
function spacedMatch(match: Match): string {
  switch (match.kind) {
    case 'comment':
      return hasWhitespace(match.text) ? ' -m comment --comment "' + match.text + '"' : ' -m comment --comment ' + match.text;
    case 'protocol':
      return PROTOCOL_TEXT[match.protocol];
    case 'dport':
      return ' --dport ' + String(match.port);
    case 'source':
      return (match.negated ? ' ! -s ' : ' -s ') + match.address;
    case 'destination':
      return (match.negated ? ' ! -d ' : ' -d ') + match.address;
    case 'addrtype':
      return (match.direction === 'src' ? ' -m addrtype --src-type ' : ' -m addrtype --dst-type ') + match.addressType;
    case 'statistic':
      return ' -m statistic --mode random --probability ' + match.probability;
    case 'recent-check':
      return ' -m recent --name ' + match.name + ' --rcheck --seconds ' + String(match.seconds) + ' --reap';
    case 'recent-set':
      return ' -m recent --name ' + match.name + ' --set';
    case 'mark':
      return (match.negated ? ' -m mark ! --mark ' : ' -m mark --mark ') + match.value + '/' + match.mask;
    case 'conntrack':
      return (match.negated ? ' -m conntrack ! --ctstate ' : ' -m conntrack --ctstate ') + match.states.join(',');
    case 'nfacct':
      return ' -m nfacct --nfacct-name ' + match.name;
  }
}

const PROTOCOL_TEXT: Readonly<Record<L4Protocol, string>> = {
  tcp: ' -m tcp -p tcp',
  udp: ' -m udp -p udp',
  sctp: ' -m sctp -p sctp',
};

/** The text of a target, preceded by a space and followed by the end of the line. */
function spacedTargetLine(target: Target): string {
  switch (target.kind) {
    case 'jump':
      return ' -j ' + target.chain + '\n';
    case 'accept':
      return ' -j ACCEPT\n';
    case 'drop':
      return ' -j DROP\n';
    case 'reject':
      return ' -j REJECT\n';
    case 'return':
      return ' -j RETURN\n';
    case 'dnat':
      return ' -j DNAT --to-destination ' + target.destination + '\n';
    case 'mark':
      if (target.op === 'or' && target.spelling === 'set-xmark') return ' -j MARK --set-xmark ' + target.value + '/' + target.value + '\n';
      return (target.op === 'or' ? ' -j MARK --or-mark ' : ' -j MARK --xor-mark ') + target.value + '\n';
    case 'masquerade':
      return target.randomFully ? ' -j MASQUERADE --random-fully\n' : ' -j MASQUERADE\n';
  }
}

/** A chain's declaration line, `:CHAIN - [0:0]`, with its newline (upstream: pkg/util/iptables/save_restore.go MakeChainLine). */
export function chainLine(chain: string): string {
  return ':' + chain + ' - [0:0]\n';
}

/** The line that deletes a chain, with its newline. */
export function deleteChainLine(chain: string): string {
  return '-X ' + chain + '\n';
}

/** One rule line, `-A CHAIN ...`, with its newline (possibly a rope: flatten before keeping it). */
export function ruleLine(chain: string, matches: readonly Match[], target: Target | undefined): string {
  return ruleLineAfter(ruleHead(chain), matches, target);
}

/** The start of every rule line of `chain`: callers printing many lines of one chain make it once. */
export function ruleHead(chain: string): string {
  return '-A ' + chain;
}

/** ruleLine, given ruleHead(chain). */
export function ruleLineAfter(head: string, matches: readonly Match[], target: Target | undefined): string {
  let line = head;
  for (const match of matches) line += spacedMatch(match);
  return line + (target === undefined ? '\n' : spacedTargetLine(target));
}

/**
 * The two rules of a KUBE-SEP- chain without session affinity, as one template: the hairpin
 * rule (`-s IP -j KUBE-MARK-MASQ`) and the DNAT rule, each after the service port's optional
 * comment. The pieces that are the same for every endpoint of a service port are joined and
 * flattened once, so an endpoint's two lines take eight pieces instead of some twenty pieces
 * and four match and target objects. Prints exactly what ruleLine prints for the same rules.
 */
export interface EndpointChainTemplate {
  /** The comment (or nothing) and ` -s `. */
  readonly beforeIP: string;
  /** The comment (or nothing), the protocol match and ` -j DNAT --to-destination `. */
  readonly beforeHostPort: string;
}

export function endpointChainTemplate(comment: Match | undefined, protocol: L4Protocol): EndpointChainTemplate {
  const spacedComment = comment === undefined ? '' : spacedMatch(comment);
  return {
    beforeIP: flat(spacedComment + ' -s '),
    beforeHostPort: flat(spacedComment + PROTOCOL_TEXT[protocol] + ' -j DNAT --to-destination '),
  };
}

/** The two lines of `chain` (see EndpointChainTemplate), with their newlines. */
export function endpointChainLines(template: EndpointChainTemplate, chain: string, ip: string, hostPort: string): string {
  return '-A ' + chain + template.beforeIP + ip + MASQ_THEN_HEAD + chain + template.beforeHostPort + hostPort + '\n';
}

const MASQ_THEN_HEAD = ' -j KUBE-MARK-MASQ\n-A ';

/**
 * ` -m statistic --mode random --probability P -j `: what a large cluster's load-balancing rule
 * prints between its chain and the endpoint's chain (the rule's only match and its jump).
 */
export function statisticJumpText(statistic: Match): string {
  return flat(spacedMatch(statistic) + ' -j ');
}

export function printMatch(match: Match): string {
  return spacedMatch(match).slice(1);
}

export function printTarget(target: Target): string {
  return spacedTargetLine(target).slice(1, -1);
}

/** One rule line, `-A CHAIN ...`, as kube-proxy writes it. */
export function printRule(rule: Rule): string {
  return printRuleParts(rule.chain, rule.matches, rule.target);
}

/** printRule without the Rule value. */
export function printRuleParts(chain: string, matches: readonly Match[], target: Target | undefined): string {
  return ruleLine(chain, matches, target).slice(0, -1);
}

/**
 * The iptables-restore text. Rules come in the ruleset's order; `-X` lines follow the rules
 * of their table (upstream writes them just before the final KUBE-SERVICES rule; restore
 * treats both the same).
 */
export function printRestoreText(ruleset: Ruleset): string {
  // Flattened in chunks: a rope of a whole large ruleset (millions of pieces) would live
  // through many scavenges before the single flattening.
  const chunks: string[] = [];
  let text = '';
  for (const table of ruleset.tables) {
    text += '*' + table.name + '\n';
    for (const chain of table.chains) text += chainLine(chain);
    for (const rule of table.rules) {
      text += ruleLine(rule.chain, rule.matches, rule.target);
      if (text.length >= CHARS_PER_CHUNK) {
        chunks.push(flat(text));
        text = '';
      }
    }
    for (const chain of table.deletedChains) text += deleteChainLine(chain);
    text += 'COMMIT\n';
  }
  if (chunks.length === 0) return flat(text);
  chunks.push(text);
  return chunks.join('');
}

const CHARS_PER_CHUNK = 1 << 20;

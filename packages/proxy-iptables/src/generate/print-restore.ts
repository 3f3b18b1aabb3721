// Prints a Ruleset as kube-proxy writes iptables-restore input: per table `*name`, the chain
// lines `:NAME - [0:0]`, the rules, `-X NAME` for deleted chains, `COMMIT`.
// upstream: pkg/proxy/iptables/proxier.go (the filterRules/natRules writes, in that argument
// order), pkg/util/iptables/save_restore.go (MakeChainLine).
//
// There is one printer: the write* functions below put a line's pieces, in order, into a
// TextOut (rule-kernel.ts). A piece is either text that varies (a chain, an address, a comment)
// or a registered constant (an option's fixed text), which the WebAssembly kernel's streams
// copy without a loop over its characters. The string functions (ruleLine, chainLine,
// printRule, printRestoreText, ...) are the same printer writing into a string (StringOut); the
// kernel's text session and TextBytes (text-bytes.ts) are the byte outputs. The fixed texts
// that the faster paths join ahead of time (endpointChainTemplate, statisticJumpText, JUMP_TEXT)
// are printed by it too, at module load.

import type { L4Protocol, Match, Rule, Ruleset, Target } from '../ruleset.js';
import { flat } from '@kubesvc/proxy';
import { registerConstant, type Constant, type TextOut } from '../rule-kernel.js';

const WHITESPACE = /\s/;

/** Whether every code unit of `text` is ASCII. */
export function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) > 0x7f) return false;
  return true;
}

/**
 * WHITESPACE.test(text), scanning ASCII by hand: two comments per endpoint are tested, and a
 * regular expression call costs more than the scan. Text with other code units goes to the
 * expression, which knows Unicode's spaces.
 */
export function hasWhitespace(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 32 || (c >= 9 && c <= 13)) return true;
    if (c > 0x7f) return WHITESPACE.test(text);
  }
  return false;
}

const C = {
  commentQuoted: registerConstant(' -m comment --comment "'),
  comment: registerConstant(' -m comment --comment '),
  dport: registerConstant(' --dport '),
  notSource: registerConstant(' ! -s '),
  source: registerConstant(' -s '),
  notDestination: registerConstant(' ! -d '),
  destination: registerConstant(' -d '),
  srcType: registerConstant(' -m addrtype --src-type '),
  dstType: registerConstant(' -m addrtype --dst-type '),
  statistic: registerConstant(' -m statistic --mode random --probability '),
  recentName: registerConstant(' -m recent --name '),
  rcheck: registerConstant(' --rcheck --seconds '),
  reap: registerConstant(' --reap'),
  set: registerConstant(' --set'),
  notMark: registerConstant(' -m mark ! --mark '),
  mark: registerConstant(' -m mark --mark '),
  notCtstate: registerConstant(' -m conntrack ! --ctstate '),
  ctstate: registerConstant(' -m conntrack --ctstate '),
  nfacct: registerConstant(' -m nfacct --nfacct-name '),
  jump: registerConstant(' -j '),
  accept: registerConstant(' -j ACCEPT\n'),
  drop: registerConstant(' -j DROP\n'),
  reject: registerConstant(' -j REJECT\n'),
  return: registerConstant(' -j RETURN\n'),
  dnat: registerConstant(' -j DNAT --to-destination '),
  setXmark: registerConstant(' -j MARK --set-xmark '),
  orMark: registerConstant(' -j MARK --or-mark '),
  xorMark: registerConstant(' -j MARK --xor-mark '),
  masqueradeFully: registerConstant(' -j MASQUERADE --random-fully\n'),
  masquerade: registerConstant(' -j MASQUERADE\n'),
  chainTail: registerConstant(' - [0:0]\n'),
  head: registerConstant('-A '),
  services: registerConstant('KUBE-SERVICES'),
  markMasq: registerConstant('KUBE-MARK-MASQ'),
};

const PROTOCOL_TEXT: Readonly<Record<L4Protocol, Constant>> = {
  tcp: registerConstant(' -m tcp -p tcp'),
  udp: registerConstant(' -m udp -p udp'),
  sctp: registerConstant(' -m sctp -p sctp'),
};

/** Chains most rules name, copied as constants. */
const FIXED_CHAINS: ReadonlyMap<string, Constant> = new Map([
  ['KUBE-SERVICES', C.services],
  ['KUBE-MARK-MASQ', C.markMasq],
]);

function writeChain(out: TextOut, chain: string): void {
  const fixed = chain.length === 13 || chain.length === 14 ? FIXED_CHAINS.get(chain) : undefined;
  if (fixed !== undefined) out.constant(fixed);
  else out.text(chain);
}

/**
 * A match, preceded by a space. kube-proxy writes the quote characters of a comment itself,
 * and only for comments with spaces (`"ns/svc:p cluster IP"`); a bare service port name goes
 * unquoted (`ns/svc:p`).
 */
function writeMatch(out: TextOut, match: Match): void {
  switch (match.kind) {
    case 'comment':
      if (hasWhitespace(match.text)) {
        out.constant(C.commentQuoted);
        out.text(match.text);
        out.text('"');
      } else {
        out.constant(C.comment);
        out.text(match.text);
      }
      return;
    case 'protocol':
      out.constant(PROTOCOL_TEXT[match.protocol]);
      return;
    case 'dport':
      out.constant(C.dport);
      out.text(String(match.port));
      return;
    case 'source':
      out.constant(match.negated ? C.notSource : C.source);
      out.text(match.address);
      return;
    case 'destination':
      out.constant(match.negated ? C.notDestination : C.destination);
      out.text(match.address);
      return;
    case 'addrtype':
      out.constant(match.direction === 'src' ? C.srcType : C.dstType);
      out.text(match.addressType);
      return;
    case 'statistic':
      out.constant(C.statistic);
      out.text(match.probability);
      return;
    case 'recent-check':
      out.constant(C.recentName);
      out.text(match.name);
      out.constant(C.rcheck);
      out.text(String(match.seconds));
      out.constant(C.reap);
      return;
    case 'recent-set':
      out.constant(C.recentName);
      out.text(match.name);
      out.constant(C.set);
      return;
    case 'mark':
      out.constant(match.negated ? C.notMark : C.mark);
      out.text(match.value);
      out.text('/');
      out.text(match.mask);
      return;
    case 'conntrack':
      out.constant(match.negated ? C.notCtstate : C.ctstate);
      out.text(match.states.join(','));
      return;
    case 'nfacct':
      out.constant(C.nfacct);
      out.text(match.name);
      return;
  }
}

/** A target, preceded by a space, and the end of the line (only the end for a rule without one). */
function writeTargetLine(out: TextOut, target: Target | undefined): void {
  if (target === undefined) {
    out.text('\n');
    return;
  }
  switch (target.kind) {
    case 'jump':
      out.constant(C.jump);
      writeChain(out, target.chain);
      out.text('\n');
      return;
    case 'accept':
      out.constant(C.accept);
      return;
    case 'drop':
      out.constant(C.drop);
      return;
    case 'reject':
      out.constant(C.reject);
      return;
    case 'return':
      out.constant(C.return);
      return;
    case 'dnat':
      out.constant(C.dnat);
      out.text(target.destination);
      out.text('\n');
      return;
    case 'mark':
      if (target.op === 'or' && target.spelling === 'set-xmark') {
        out.constant(C.setXmark);
        out.text(target.value);
        out.text('/');
        out.text(target.value);
        out.text('\n');
        return;
      }
      out.constant(target.op === 'or' ? C.orMark : C.xorMark);
      out.text(target.value);
      out.text('\n');
      return;
    case 'masquerade':
      out.constant(target.randomFully ? C.masqueradeFully : C.masquerade);
      return;
  }
}

/** The start of every rule line of `chain`, `-A CHAIN`. */
function writeRuleHead(out: TextOut, chain: string): void {
  out.constant(C.head);
  writeChain(out, chain);
}

/** One rule line, `-A CHAIN ...`, with its newline. */
export function writeRuleLine(out: TextOut, chain: string, matches: readonly Match[], target: Target | undefined): void {
  writeRuleHead(out, chain);
  for (const match of matches) writeMatch(out, match);
  writeTargetLine(out, target);
}

/** A chain's declaration line, `:CHAIN - [0:0]`, with its newline (upstream: pkg/util/iptables/save_restore.go MakeChainLine). */
export function writeChainLine(out: TextOut, chain: string): void {
  out.text(':');
  out.text(chain);
  out.constant(C.chainTail);
}

/** The line that deletes a chain, `-X CHAIN`, with its newline. */
function writeDeleteChainLine(out: TextOut, chain: string): void {
  out.text('-X ');
  out.text(chain);
  out.text('\n');
}

/** The line that opens a table, `*name`, with its newline. */
function writeTableLine(out: TextOut, table: string): void {
  out.text('*');
  out.text(table);
  out.text('\n');
}

/** The printer's string output: the pieces joined by concatenation (see StringOut.text). */
class StringOut implements TextOut {
  /** The text written since the last take(). */
  private written = '';

  /**
   * Text is built by concatenation throughout: V8 makes ropes of it and flattens a whole
   * service or batch of services once, which is about twice as fast as joining arrays of
   * small pieces.
   */
  text(text: string): void {
    this.written += text;
  }

  constant(constant: Constant): void {
    this.written += constant.text;
  }

  /** Starts the next text with `text` (a head printed before, or nothing). */
  start(text: string): void {
    this.written = text;
  }

  /** How many characters were written since the last take(). */
  get length(): number {
    return this.written.length;
  }

  /** The text written, and a fresh start. */
  take(): string {
    const text = this.written;
    this.written = '';
    return text;
  }
}

/**
 * The one string output: every string function starts it afresh (a call that threw left
 * its pieces), writes into it and takes the text.
 */
const OUT = new StringOut();

/** A chain's declaration line, `:CHAIN - [0:0]`, with its newline. */
export function chainLine(chain: string): string {
  OUT.start('');
  writeChainLine(OUT, chain);
  return OUT.take();
}

/** The line that deletes a chain, with its newline. */
export function deleteChainLine(chain: string): string {
  OUT.start('');
  writeDeleteChainLine(OUT, chain);
  return OUT.take();
}

/** The line that opens a table, `*name`, with its newline. */
export function tableLine(table: string): string {
  OUT.start('');
  writeTableLine(OUT, table);
  return OUT.take();
}

/** The line that ends a table. */
export const COMMIT_LINE = 'COMMIT\n';

/** One rule line, `-A CHAIN ...`, with its newline (possibly a rope: flatten before keeping it). */
export function ruleLine(chain: string, matches: readonly Match[], target: Target | undefined): string {
  OUT.start('');
  writeRuleLine(OUT, chain, matches, target);
  return OUT.take();
}

/** The start of every rule line of `chain`: callers printing many lines of one chain make it once. */
export function ruleHead(chain: string): string {
  OUT.start('');
  writeRuleHead(OUT, chain);
  return OUT.take();
}

/** ruleLine, given ruleHead(chain). */
export function ruleLineAfter(head: string, matches: readonly Match[], target: Target | undefined): string {
  OUT.start(head);
  for (const match of matches) writeMatch(OUT, match);
  writeTargetLine(OUT, target);
  return OUT.take();
}

/** A match's text, preceded by a space. */
function spacedMatch(match: Match): string {
  OUT.start('');
  writeMatch(OUT, match);
  return OUT.take();
}

/** A target's text, preceded by a space, and the newline. */
function spacedTargetLine(target: Target | undefined): string {
  OUT.start('');
  writeTargetLine(OUT, target);
  return OUT.take();
}

/** What a target line prints before its value: the line of the target with an empty value, without its newline. */
function beforeValue(target: Target): string {
  return spacedTargetLine(target).slice(0, -1);
}

/** ` -s `: what a source match prints before its address. */
const SOURCE_TEXT = spacedMatch({ kind: 'source', address: '', negated: false });
/** ` -j DNAT --to-destination `: what a DNAT target prints before its destination. */
const DNAT_TEXT = beforeValue({ kind: 'dnat', destination: '' });
/** ` -m tcp -p tcp` and the others: a protocol match. */
const PROTOCOL_MATCH_TEXT: Readonly<Record<L4Protocol, string>> = {
  tcp: spacedMatch({ kind: 'protocol', protocol: 'tcp' }),
  udp: spacedMatch({ kind: 'protocol', protocol: 'udp' }),
  sctp: spacedMatch({ kind: 'protocol', protocol: 'sctp' }),
};
/** ` -j `: what a jump prints before its chain. */
export const JUMP_TEXT = beforeValue({ kind: 'jump', chain: '' });
/** The end of a KUBE-SEP- chain's hairpin rule and the start of the next rule line. */
const MASQ_THEN_HEAD = spacedTargetLine({ kind: 'jump', chain: 'KUBE-MARK-MASQ' }) + ruleHead('');
/** `-A `: what every rule line prints before its chain. */
const HEAD_TEXT = ruleHead('');

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
    beforeIP: flat(spacedComment + SOURCE_TEXT),
    beforeHostPort: flat(spacedComment + PROTOCOL_MATCH_TEXT[protocol] + DNAT_TEXT),
  };
}

/** The two lines of `chain` (see EndpointChainTemplate), with their newlines. */
export function endpointChainLines(template: EndpointChainTemplate, chain: string, ip: string, hostPort: string): string {
  return HEAD_TEXT + chain + template.beforeIP + ip + MASQ_THEN_HEAD + chain + template.beforeHostPort + hostPort + '\n';
}

/**
 * ` -m statistic --mode random --probability P -j `: what a large cluster's load-balancing rule
 * prints between its chain and the endpoint's chain (the rule's only match and its jump).
 */
export function statisticJumpText(statistic: Match): string {
  return flat(spacedMatch(statistic) + JUMP_TEXT);
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
  OUT.start('');
  for (const table of ruleset.tables) {
    writeTableLine(OUT, table.name);
    for (const chain of table.chains) writeChainLine(OUT, chain);
    for (const rule of table.rules) {
      writeRuleLine(OUT, rule.chain, rule.matches, rule.target);
      if (OUT.length >= CHARS_PER_CHUNK) chunks.push(flat(OUT.take()));
    }
    for (const chain of table.deletedChains) writeDeleteChainLine(OUT, chain);
    OUT.text(COMMIT_LINE);
  }
  if (chunks.length === 0) return flat(OUT.take());
  chunks.push(OUT.take());
  return chunks.join('');
}

const CHARS_PER_CHUNK = 1 << 20;

// Reading an iptables-restore text (kube-proxy's input, or iptables-save output) into the
// typed Ruleset the tracer interprets. The text is parsed by save/parse-restore.ts, then each
// rule is mapped onto the Match/Target unions; whatever those unions cannot express (an
// interface match, a port range, multiport, `-g`, a MARK that is neither an OR nor an XOR, ...)
// is refused with the line, never dropped: a tracer that skipped a match would report a path
// the kernel does not take. Rules in built-in chains (PREROUTING, INPUT, ...) are kept; the
// tracer then uses them instead of its model of kube-proxy's jump rules.

import type { Err, Result } from '@kubesvc/api-types';
import { canonicalRule, PROTOCOL_NAMES } from '../save/canonical-rule.js';
import { printSaveRule } from '../save/print-rule.js';
import { parseIptablesRestore, type RestoreStatement } from '../save/parse-restore.js';
import type { RuleOption, RuleSpec } from '../save/rule-spec.js';
import { hex, parseMarkAndMask } from '../save/match-extensions.js';
import type { L4Protocol, Match, Rule, Ruleset, Table, TableName, Target } from '../ruleset.js';
import { BUILTIN_CHAINS } from './builtin-jumps.js';
import type { ErrTrace } from './trace-types.js';

export type ParseResult<T> = Result<T, ErrTrace>;

function err(message: string, line?: number): Err<ErrTrace> {
  return { ok: false, error: line === undefined ? { _tag: 'ErrTrace', message } : { _tag: 'ErrTrace', message, line } };
}

type Converted<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly message: string };
const no = (message: string): { readonly ok: false; readonly message: string } => ({ ok: false, message });

/** The protocols a Rule can match, by any name or number `-p` takes (canonical-rule.ts). */
function l4Protocol(text: string): L4Protocol | undefined {
  const name = PROTOCOL_NAMES.get(text.toLowerCase());
  return name === 'tcp' || name === 'udp' || name === 'sctp' ? name : undefined;
}

function single(options: readonly RuleOption[], name: string): RuleOption | undefined {
  return options.find((o) => o.name === name);
}

function only(options: readonly RuleOption[], allowed: readonly string[], module: string): Converted<true> {
  for (const o of options) if (!allowed.includes(o.name)) return no(`-m ${module} ${o.name} cannot be traced`);
  return { ok: true, value: true };
}

function convertMatch(module: string, options: readonly RuleOption[], protocol: L4Protocol | undefined): Converted<Match[]> {
  const arg = (name: string): string | undefined => single(options, name)?.args[0];
  switch (module) {
    case 'comment': {
      const text = arg('--comment');
      return text === undefined ? no('-m comment without --comment') : { ok: true, value: [{ kind: 'comment', text }] };
    }
    case 'tcp':
    case 'udp':
    case 'sctp': {
      const ok = only(options, ['--dport'], module);
      if (!ok.ok) return ok;
      if (protocol !== module) return no(`-m ${module} needs -p ${module}`);
      const dport = single(options, '--dport');
      if (dport === undefined) return { ok: true, value: [] };
      const text = dport.args[0] ?? '';
      if (dport.negated || !/^[0-9]{1,5}$/.test(text) || Number(text) > 65535) return no(`--dport ${dport.negated ? '! ' : ''}${text} cannot be traced (one port only)`);
      return { ok: true, value: [{ kind: 'dport', port: Number(text) }] };
    }
    case 'addrtype': {
      const ok = only(options, ['--src-type', '--dst-type'], module);
      if (!ok.ok) return ok;
      const out: Match[] = [];
      for (const o of options) {
        if (o.negated || o.args[0] !== 'LOCAL') return no(`-m addrtype ${o.negated ? '! ' : ''}${o.name} ${o.args[0] ?? ''}: only LOCAL can be traced`);
        out.push({ kind: 'addrtype', direction: o.name === '--src-type' ? 'src' : 'dst', addressType: 'LOCAL' });
      }
      return { ok: true, value: out };
    }
    case 'statistic': {
      const ok = only(options, ['--mode', '--probability'], module);
      if (!ok.ok) return ok;
      const probability = single(options, '--probability');
      if (arg('--mode') !== 'random' || probability === undefined || probability.negated) return no('-m statistic: only --mode random --probability P can be traced');
      const p = probability.args[0] ?? '';
      return { ok: true, value: [{ kind: 'statistic', probability: p, denominator: 0 }] };
    }
    case 'recent': {
      const ok = only(options, ['--name', '--rcheck', '--set', '--seconds', '--reap', '--rsource', '--mask'], module);
      if (!ok.ok) return ok;
      const name = arg('--name') ?? 'DEFAULT';
      const mask = arg('--mask');
      if (mask !== undefined && mask !== '255.255.255.255' && mask !== 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff') return no(`-m recent --mask ${mask} cannot be traced`);
      const rcheck = single(options, '--rcheck');
      const set = single(options, '--set');
      if (rcheck?.negated === true || set?.negated === true) return no('-m recent: a negated --rcheck/--set cannot be traced');
      if (set !== undefined && rcheck === undefined && single(options, '--seconds') === undefined) {
        return { ok: true, value: [{ kind: 'recent-set', name }] };
      }
      const seconds = arg('--seconds');
      if (rcheck !== undefined && set === undefined && seconds !== undefined && /^[0-9]+$/.test(seconds)) {
        return { ok: true, value: [{ kind: 'recent-check', name, seconds: Number(seconds) }] };
      }
      return no('-m recent: only --set, or --rcheck --seconds S, can be traced');
    }
    case 'mark': {
      const m = single(options, '--mark');
      const parsed = m === undefined ? undefined : parseMarkAndMask(m.args[0] ?? '');
      if (m === undefined || parsed === undefined) return no('-m mark needs --mark VALUE[/MASK]');
      return { ok: true, value: [{ kind: 'mark', value: hex(parsed.value), mask: hex(parsed.mask), negated: m.negated }] };
    }
    case 'conntrack': {
      const ok = only(options, ['--ctstate'], module);
      if (!ok.ok) return ok;
      const s = single(options, '--ctstate');
      if (s === undefined) return no('-m conntrack needs --ctstate');
      return { ok: true, value: [{ kind: 'conntrack', states: (s.args[0] ?? '').split(','), negated: s.negated }] };
    }
    case 'nfacct': {
      const name = arg('--nfacct-name');
      return name === undefined ? no('-m nfacct needs --nfacct-name') : { ok: true, value: [{ kind: 'nfacct', name }] };
    }
    default:
      return no(`-m ${module} cannot be traced`);
  }
}

function convertTarget(spec: RuleSpec): Converted<Target | undefined> {
  const target = spec.target;
  if (target === undefined) return { ok: true, value: undefined };
  if (target.goto) return no(`-g ${target.name} cannot be traced`);
  const arg = (name: string): string | undefined => single(target.options, name)?.args[0];
  const none = (kind: 'accept' | 'drop' | 'return'): Converted<Target> =>
    target.options.length > 0 ? no(`-j ${target.name} takes no options`) : { ok: true, value: { kind } };
  switch (target.name) {
    case 'ACCEPT':
      return none('accept');
    case 'DROP':
      return none('drop');
    case 'RETURN':
      return none('return');
    case 'REJECT':
      // The ICMP type sent back does not change the packet's fate.
      return { ok: true, value: { kind: 'reject' } };
    case 'DNAT': {
      const to = arg('--to-destination');
      if (to === undefined || target.options.length !== 1) return no('-j DNAT: only --to-destination HOST:PORT can be traced');
      return { ok: true, value: { kind: 'dnat', destination: to } };
    }
    case 'MASQUERADE': {
      if (target.options.some((o) => o.name !== '--random-fully')) return no('-j MASQUERADE: only --random-fully can be traced');
      return { ok: true, value: { kind: 'masquerade', randomFully: target.options.length > 0 } };
    }
    case 'MARK': {
      const [op, ...more] = target.options;
      if (op === undefined || more.length > 0) return no('-j MARK needs one operation');
      const parsed = parseMarkAndMask(op.args[0] ?? '');
      if (parsed === undefined) return no(`-j MARK ${op.name}: bad value`);
      if (op.name === '--or-mark' && !(op.args[0] ?? '').includes('/')) return { ok: true, value: { kind: 'mark', op: 'or', value: hex(parsed.value) } };
      if (op.name === '--xor-mark' && !(op.args[0] ?? '').includes('/')) return { ok: true, value: { kind: 'mark', op: 'xor', value: hex(parsed.value) } };
      // iptables-save prints --or-mark V as --set-xmark V/V and --xor-mark V as --set-xmark V/0x0.
      if (op.name === '--set-xmark' && parsed.mask === parsed.value) return { ok: true, value: { kind: 'mark', op: 'or', value: hex(parsed.value) } };
      if (op.name === '--set-xmark' && parsed.mask === 0) return { ok: true, value: { kind: 'mark', op: 'xor', value: hex(parsed.value) } };
      return no(`-j MARK ${op.name} ${op.args[0] ?? ''} cannot be traced (only an OR or an XOR of the mark)`);
    }
    default:
      // Any other name is a jump; the tracer refuses one to a chain the table does not declare
      // (so an unmodelled target such as LOG or SNAT is an error there, not a no-op).
      if (target.options.length > 0) return no(`-j ${target.name}: a jump takes no options`);
      return { ok: true, value: { kind: 'jump', chain: target.name } };
  }
}

/** One rule of the text as a Rule, or why it cannot be traced. */
export function ruleFromSpec(chain: string, spec: RuleSpec): Converted<Rule> {
  if (spec.inInterface !== undefined || spec.outInterface !== undefined) return no('-i/-o interface matches cannot be traced');
  const matches: Match[] = [];
  let protocol: L4Protocol | undefined;
  // The kernel checks the header (-s, -d, -p) before any -m match.
  if (spec.source !== undefined) matches.push({ kind: 'source', address: spec.source.value, negated: spec.source.negated });
  if (spec.destination !== undefined) matches.push({ kind: 'destination', address: spec.destination.value, negated: spec.destination.negated });
  if (spec.protocol !== undefined) {
    protocol = l4Protocol(spec.protocol.value);
    if (protocol === undefined || spec.protocol.negated) return no(`-p ${spec.protocol.negated ? '! ' : ''}${spec.protocol.value} cannot be traced`);
    matches.push({ kind: 'protocol', protocol });
  }
  for (const m of spec.matches) {
    const converted = convertMatch(m.module, m.options, protocol);
    if (!converted.ok) return converted;
    matches.push(...converted.value);
  }
  const target = convertTarget(spec);
  if (!target.ok) return target;
  return { ok: true, value: target.value === undefined ? { chain, matches } : { chain, matches, target: target.value } };
}

/** The iptables-save line of each Rule read from a text (MatchedRule.text). */
const savedLines = new WeakMap<Rule, string>();

/**
 * The line iptables-save prints for a rule read from a restore text, or undefined for a rule
 * that was not (a generated one, whose text is kube-proxy's own line).
 */
export function savedRuleLine(rule: Rule): string | undefined {
  return savedLines.get(rule);
}

/**
 * What iptables-save prints for the rule once loaded: the kernel's canonical form (addresses
 * with their prefix, options in the extension's print order, the comment quoted as
 * iptables-save quotes it), as the save view prints it with the legacy backend, whose rule
 * text is the same as nft's for every rule the tracer takes.
 */
function saveLine(chain: string, spec: RuleSpec, table: TableName, family: 4 | 6): string {
  const canonical = canonicalRule(spec, family, table, 'legacy');
  return printSaveRule(chain, canonical.ok ? canonical.value : spec);
}

interface MutableTable {
  name: TableName;
  chains: string[];
  rules: Rule[];
  deleted: string[];
}

function applyStatement(table: MutableTable, statement: RestoreStatement, family: 4 | 6): Converted<true> {
  const builtin = BUILTIN_CHAINS[table.name];
  switch (statement.kind) {
    case 'declare-chain':
      if (!builtin.includes(statement.chain) && !table.chains.includes(statement.chain)) table.chains.push(statement.chain);
      table.rules = table.rules.filter((r) => r.chain !== statement.chain);
      return { ok: true, value: true };
    case 'new-chain':
      // -N of a chain the table has, built-in or not, fails in iptables-restore (libiptc
      // TC_CREATE_CHAIN sets EEXIST: "Chain already exists"), as it does in load-restore.ts.
      if (builtin.includes(statement.chain) || table.chains.includes(statement.chain)) return no(`Chain '${statement.chain}' already exists`);
      table.chains.push(statement.chain);
      return { ok: true, value: true };
    case 'append':
    case 'insert': {
      if (!builtin.includes(statement.chain) && !table.chains.includes(statement.chain)) return no(`Chain '${statement.chain}' does not exist`);
      const rule = ruleFromSpec(statement.chain, statement.rule);
      if (!rule.ok) return rule;
      savedLines.set(rule.value, saveLine(statement.chain, statement.rule, table.name, family));
      if (statement.kind === 'append') {
        table.rules.push(rule.value);
      } else {
        let seen = 0;
        let at = table.rules.length;
        for (let i = 0; i < table.rules.length; i++) {
          if (table.rules[i]?.chain !== statement.chain) continue;
          seen++;
          if (seen === statement.position) {
            at = i;
            break;
          }
        }
        // Not found: `seen` is the chain's rule count. iptables-restore inserts at 1 .. that
        // count + 1 and refuses any later position (libiptc TC_INSERT_ENTRY: E2BIG), as
        // load-restore.ts does.
        if (at === table.rules.length && statement.position > seen + 1) return no('Index of insertion too big.');
        table.rules.splice(at, 0, rule.value);
      }
      return { ok: true, value: true };
    }
    case 'flush':
      // Flushing or deleting a chain the table does not have fails in iptables-restore (libiptc
      // ENOENT, "No chain/target/match by that name."), as it does in load-restore.ts.
      if (statement.chain !== undefined && !builtin.includes(statement.chain) && !table.chains.includes(statement.chain)) {
        return no(`No chain/target/match by that name: '${statement.chain}'`);
      }
      table.rules = statement.chain === undefined ? [] : table.rules.filter((r) => r.chain !== statement.chain);
      return { ok: true, value: true };
    case 'delete-chain': {
      if (statement.chain !== undefined && builtin.includes(statement.chain)) return no(`Can't delete built-in chain '${statement.chain}'`);
      if (statement.chain !== undefined && !table.chains.includes(statement.chain)) return no(`No chain/target/match by that name: '${statement.chain}'`);
      const doomed = statement.chain === undefined ? table.chains.slice() : [statement.chain];
      for (const chain of doomed) {
        if (table.rules.some((r) => r.chain === chain)) return no(`cannot delete chain '${chain}': it has rules`);
        // A chain another chain still jumps to is busy (libiptc CHAIN_DEL: EBUSY).
        const user = table.rules.find((r) => r.target?.kind === 'jump' && r.target.chain === chain);
        if (user !== undefined) return no(`cannot delete chain '${chain}': chain '${user.chain}' jumps to it`);
        table.chains = table.chains.filter((c) => c !== chain);
        table.deleted.push(chain);
      }
      return { ok: true, value: true };
    }
  }
}

/**
 * A restore text as a Ruleset (filter and nat tables; an absent table is empty). `family`
 * says how to read the addresses (default 4); other tables than filter and nat are refused.
 */
export function rulesetFromRestoreText(text: string, family: 4 | 6 = 4): ParseResult<Ruleset> {
  // The edge: called from JavaScript too.
  const given: unknown = text;
  if (typeof given !== 'string') return { ok: false, error: { _tag: 'ErrTrace', message: `text: expected an iptables-restore text, got ${given === null ? 'null' : typeof given}`, field: 'text' } };
  const familyGiven: unknown = family;
  if (familyGiven !== 4 && familyGiven !== 6) return { ok: false, error: { _tag: 'ErrTrace', message: 'family: expected 4 or 6', field: 'family' } };
  const document = parseIptablesRestore(text);
  if (!document.ok) return err(document.error.message, document.error.line);
  const tables: Record<TableName, MutableTable> = {
    filter: { name: 'filter', chains: [], rules: [], deleted: [] },
    nat: { name: 'nat', chains: [], rules: [], deleted: [] },
  };
  for (const block of document.value.tables) {
    if (block.name !== 'filter' && block.name !== 'nat') return err(`table ${block.name} is not traced (only filter and nat)`, block.line);
    const table = tables[block.name];
    for (const statement of block.statements) {
      const applied = applyStatement(table, statement, family);
      if (!applied.ok) return err(applied.message, statement.line);
    }
  }
  const freeze = (t: MutableTable): Table => ({ name: t.name, chains: t.chains, rules: t.rules, deletedChains: t.deleted });
  return { ok: true, value: { family, tables: [freeze(tables.filter), freeze(tables.nat)] } };
}

// The normal form upstream's tests compare kube-proxy output in: sortIPTablesRules, as
// called by assertIPTablesRulesEqual (upstream: pkg/proxy/iptables/proxier_test.go), over
// ParseIPTablesDump / IPTablesDump.String (pkg/util/iptables/testing/parse.go).
//
// What it normalises, exactly:
// - lines are trimmed; blank lines and `#` lines are dropped (save/tokenize.ts reads the lines
//   and words, in its kube-proxy-test dialect);
// - tables are sorted by name (filter < mangle < nat);
// - chain declarations are sorted: KUBE-NODEPORTS, KUBE-SERVICES, the other KUBE-* chains
//   by name, then every other chain by name; their counters are kept;
// - rules are regrouped by chain in that order, each chain keeping its own rule order,
//   except that the KUBE-NODEPORTS and KUBE-SERVICES chains of the filter and nat tables are
//   stable-sorted by the service name in the rule's comment (the comment up to the first
//   space or ':'), the nat KUBE-SERVICES "must be the last rule" rule(s) staying last;
// - `-X` lines come after all the rules of their table, in chain order.
// Rule text itself is not touched.

import { err, ok, type Result } from '@kubesvc/api-types';
import { readRestoreLines, restoreWords } from './save/tokenize.js';

/** Text that is not iptables-restore input; the messages are upstream's. */
export interface ErrRestoreText {
  readonly _tag: 'ErrRestoreText';
  readonly message: string;
}

/** Thrown inside the parser only; normalizeRestoreText turns it into an ErrRestoreText. */
class RestoreTextError extends Error {
  override readonly name = 'RestoreTextError';
}

interface DumpChain {
  readonly name: string;
  readonly counters: string;
  readonly rules: string[];
  deleted: boolean;
}

interface DumpTable {
  readonly name: string;
  readonly chains: DumpChain[];
  readonly byName: Map<string, DumpChain>;
}

const DECLARE_TABLE = /^\*(.*)$/;
const DECLARE_CHAIN = /^:([^ ]*) - \[([0-9]*):([0-9]*)\]$/;
const ADD_RULE = /^-A ([^ ]*) (.*)$/;
const DELETE_CHAIN = /^-X (.*)$/;

function parseDump(data: string): DumpTable[] {
  const tables: DumpTable[] = [];
  let state: 'table' | 'chains' | 'rules' = 'table';
  let table: DumpTable | undefined;
  const chainOf = (t: DumpTable, name: string, line: string): DumpChain => {
    const chain = t.byName.get(name);
    if (chain === undefined) throw new RestoreTextError(`error parsing rule "${line}": no such chain "${name}"`);
    return chain;
  };
  for (const { text: line, kind } of readRestoreLines(data, 'kube-proxy-test').lines) {
    if (state === 'table') {
      const match = kind === 'table' ? DECLARE_TABLE.exec(line) : null;
      if (match === null) {
        throw new RestoreTextError(
          `could not parse iptables data (table ${tables.length + 1} starts with "${line}" not a table name)`,
        );
      }
      table = { name: match[1] ?? '', chains: [], byName: new Map() };
      tables.push(table);
      state = 'chains';
      continue;
    }
    if (table === undefined) throw new RestoreTextError('could not parse iptables data');
    if (state === 'chains') {
      const match = kind === 'chain' ? DECLARE_CHAIN.exec(line) : null;
      if (match !== null) {
        const chain: DumpChain = {
          name: match[1] ?? '',
          counters: `[${Number(match[2] || 0)}:${Number(match[3] || 0)}]`,
          rules: [],
          deleted: false,
        };
        table.chains.push(chain);
        // Like upstream's GetChain, the first declaration of a name is the one rules go to.
        if (!table.byName.has(chain.name)) table.byName.set(chain.name, chain);
        continue;
      }
      state = 'rules';
    }
    const add = ADD_RULE.exec(line);
    if (add !== null) {
      const chain = chainOf(table, add[1] ?? '', line);
      if (chain.deleted) throw new RestoreTextError(`cannot add rules to deleted chain "${chain.name}"`);
      checkRule(line);
      chain.rules.push(line);
      continue;
    }
    const del = DELETE_CHAIN.exec(line);
    if (del !== null) {
      const chain = chainOf(table, del[1] ?? '', line);
      if (chain.rules.length !== 0) throw new RestoreTextError(`cannot delete chain "${chain.name}" after adding rules`);
      chain.deleted = true;
      continue;
    }
    if (kind === 'commit') {
      state = 'table';
      continue;
    }
    throw new RestoreTextError(`error parsing rule "${line}"`);
  }
  if (state !== 'table') throw new RestoreTextError('could not parse iptables data (no COMMIT line?)');
  return tables;
}

/** The words of a rule as upstream's ParseRule splits them (a quoted string is one word). */
function words(rule: string): readonly string[] {
  return restoreWords(rule, 'kube-proxy-test').value;
}

// upstream ParseRule's parameters: those taking a value, and whether "!" may precede them.
const VALUE_PARAMS: ReadonlyMap<string, boolean> = new Map([
  ['-A', false],
  ['--comment', false],
  ['-p', true],
  ['-s', true],
  ['--src-type', true],
  ['--sport', true],
  ['-d', true],
  ['--dst-type', true],
  ['--dport', true],
  ['--match-set', true],
  ['-j', false],
  ['--probability', false],
  ['--to-destination', false],
  ['--mark', true],
  ['--ctstate', true],
  ['--name', false],
  ['--seconds', false],
  ['--mode', false],
]);
const FLAG_PARAMS: ReadonlyMap<string, boolean> = new Map([
  ['--random-fully', false],
  ['--rcheck', true],
  ['--set', true],
  ['--reap', false],
]);

/** upstream ParseRule (non-strict): the checks that can fail. */
function checkRule(rule: string): void {
  const w = words(rule);
  if (w.length < 2 || w[0] !== '-A') throw new RestoreTextError('bad iptables rule (does not start with "-A CHAIN")');
  if (w.length < 3) throw new RestoreTextError('bad iptables rule (no match rules)');
  let negated = false;
  for (let i = 0; i < w.length; ) {
    const word = w[i] ?? '';
    if (word === '-m' && i < w.length - 1) {
      i += 2;
      continue;
    }
    if (word === '!') {
      negated = true;
      i++;
      continue;
    }
    const valueNegatable = VALUE_PARAMS.get(word);
    const flagNegatable = FLAG_PARAMS.get(word);
    const negatable = valueNegatable ?? flagNegatable;
    if (negatable !== undefined) {
      if (negated && !negatable) throw new RestoreTextError(`cannot negate parameter "${word}"`);
      if (valueNegatable !== undefined && i === w.length - 1) {
        throw new RestoreTextError(`parameter "${word}" requires an argument`);
      }
      i += valueNegatable !== undefined ? 2 : 1;
    } else {
      i++;
    }
    negated = false;
  }
}

function ruleComment(rule: string): string | undefined {
  const w = words(rule);
  const i = w.indexOf('--comment');
  return i >= 0 && i + 1 < w.length ? w[i + 1] : undefined;
}

function commentServiceName(text: string): string {
  const i = text.search(/[ :]/);
  return i === -1 ? text : text.slice(0, i);
}

interface SortKey {
  readonly rule: string;
  readonly index: number;
  /** The service name of the comment; undefined without a comment. */
  readonly name: string | undefined;
  readonly last: boolean;
}

function sortKey(rule: string, index: number): SortKey {
  const text = ruleComment(rule);
  return { rule, index, name: text === undefined ? undefined : commentServiceName(text), last: text?.includes('must be the last rule') ?? false };
}

/** upstream orderByCommentServiceName, as a "less" relation (false when either has no comment). */
function lessByName(a: SortKey, b: SortKey): boolean {
  return a.name !== undefined && b.name !== undefined && a.name < b.name;
}

/**
 * sort.SliceStable with a "less" relation. For the relations here and rules that all carry a
 * comment (all kube-proxy writes in these chains) this is a strict weak order, so any stable
 * sort gives Go's result.
 */
function stableSort(rules: string[], less: (a: SortKey, b: SortKey) => boolean): void {
  const keys = rules.map(sortKey);
  keys.sort((x, y) => (less(x, y) ? -1 : less(y, x) ? 1 : x.index - y.index));
  keys.forEach((key, i) => {
    rules[i] = key.rule;
  });
}

function chainRank(name: string): [number, string] {
  if (name === 'KUBE-NODEPORTS') return [0, ''];
  if (name === 'KUBE-SERVICES') return [1, ''];
  return [name.startsWith('KUBE-') ? 2 : 3, name];
}

function compareChains(a: DumpChain, b: DumpChain): number {
  const [ra, na] = chainRank(a.name);
  const [rb, nb] = chainRank(b.name);
  if (ra !== rb) return ra - rb;
  return na < nb ? -1 : na > nb ? 1 : 0;
}

/**
 * upstream sortIPTablesRules: the form in which upstream's tests write their expected
 * output. Apply it to both sides to compare. Throws RestoreTextError for malformed text.
 */
export function normalizeRestoreText(text: string): Result<string, ErrRestoreText> {
  try {
    return ok(normalize(text));
  } catch (e) {
    if (e instanceof RestoreTextError) return err({ _tag: 'ErrRestoreText', message: e.message });
    throw e;
  }
}

function normalize(text: string): string {
  const tables = parseDump(text);
  tables.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const table of tables) {
    table.chains.sort(compareChains);
    const isKnownTable = table.name === 'filter' || table.name === 'nat';
    if (!isKnownTable) continue;
    const nodePorts = table.chains.find((c) => c.name === 'KUBE-NODEPORTS');
    if (nodePorts !== undefined) stableSort(nodePorts.rules, lessByName);
    const servicesChain = table.chains.find((c) => c.name === 'KUBE-SERVICES');
    if (servicesChain !== undefined) {
      if (table.name === 'filter') {
        stableSort(servicesChain.rules, lessByName);
      } else {
        stableSort(servicesChain.rules, (a, b) => {
          if (a.last) return false;
          if (b.last) return true;
          return lessByName(a, b);
        });
      }
    }
  }
  let out = '';
  for (const table of tables) {
    out += `*${table.name}\n`;
    for (const chain of table.chains) out += `:${chain.name} - ${chain.counters}\n`;
    for (const chain of table.chains) for (const rule of chain.rules) out += `${rule}\n`;
    for (const chain of table.chains) if (chain.deleted) out += `-X ${chain.name}\n`;
    out += 'COMMIT\n';
  }
  return out;
}

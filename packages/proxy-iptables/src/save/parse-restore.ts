// Reading iptables-restore input into a document: table blocks (`*nat` … `COMMIT`), each a
// list of statements in input order: chain declarations (`:NAME POLICY [packets:bytes]`),
// `-A`/`-I` rules, and `-N`, `-F`, `-X`. Lines and words are read by tokenize.ts in its
// iptables-restore dialect (blank lines and `#` lines skipped, as iptables-restore skips them). The document keeps rules as written; loading it (load-restore.ts)
// applies the statements and canonicalises the rules as the kernel stores them.
// upstream: iptables iptables/iptables-restore.c (ios_restore), pkg/util/iptables/testing/parse.go
// (kube-proxy's own test parser reads the same shape, with a simpler quoting rule).

import type { ErrIptablesRestore, RestoreResult } from './errors.js';
import { restoreError } from './errors.js';
import { parseRuleWords } from './parse-rule.js';
import type { RuleCache } from './rule-cache.js';
import type { RuleSpec } from './rule-spec.js';
import { readRestoreLines, restoreWords } from './tokenize.js';

export type RestoreStatement =
  /** `:NAME POLICY [p:b]`: creates a user chain (policy `-`) or sets a built-in chain's policy. */
  | { readonly kind: 'declare-chain'; readonly line: number; readonly chain: string; readonly policy: string }
  | { readonly kind: 'append'; readonly line: number; readonly chain: string; readonly rule: RuleSpec }
  /** `-I CHAIN [N]`: N is 1-based, 1 when absent. */
  | { readonly kind: 'insert'; readonly line: number; readonly chain: string; readonly position: number; readonly rule: RuleSpec }
  | { readonly kind: 'new-chain'; readonly line: number; readonly chain: string }
  /** `-F [CHAIN]`: without a chain, every chain of the table. */
  | { readonly kind: 'flush'; readonly line: number; readonly chain?: string }
  /** `-X [CHAIN]`: without a chain, every user chain of the table. */
  | { readonly kind: 'delete-chain'; readonly line: number; readonly chain?: string };

export interface RestoreTableBlock {
  readonly name: string;
  /** The line of `*name`. */
  readonly line: number;
  readonly statements: readonly RestoreStatement[];
}

export interface IptablesRestoreDocument {
  readonly tables: readonly RestoreTableBlock[];
}

/** XT_EXTENSION_MAXNAMELEN is 29 with the NUL. */
export const MAX_CHAIN_NAME_LENGTH = 28;

function checkChainName(name: string): string | undefined {
  if (name.length > MAX_CHAIN_NAME_LENGTH) return `Invalid chain name \`${name}' (28 chars max)`;
  if (name === '' || name.startsWith('-') || name === '!' || /\s/.test(name)) return `Invalid chain name \`${name}'`;
  return undefined;
}

const COUNTERS = /^\[[0-9]+:[0-9]+\]$/;

function parseStatement(words: readonly string[], line: number): RestoreResult<RestoreStatement> {
  const [command, chain, ...rest] = words;
  const withChain = (): RestoreResult<string> => {
    if (chain === undefined) return restoreError(line, `option "${command ?? ''}" requires an argument`);
    const bad = checkChainName(chain);
    return bad === undefined ? { ok: true, value: chain } : restoreError(line, bad);
  };
  switch (command) {
    case '-A':
    case '--append':
    case '-I':
    case '--insert': {
      const name = withChain();
      if (!name.ok) return name;
      let position = 1;
      let ruleWords = rest;
      const isInsert = command === '-I' || command === '--insert';
      if (isInsert && rest[0] !== undefined && /^[0-9]+$/.test(rest[0])) {
        position = Number(rest[0]);
        if (position < 1) return restoreError(line, `Invalid rule number \`${rest[0]}'`);
        ruleWords = rest.slice(1);
      }
      const rule = parseRuleWords(ruleWords);
      if (!rule.ok) return restoreError(line, rule.message);
      return {
        ok: true,
        value: isInsert
          ? { kind: 'insert', line, chain: name.value, position, rule: rule.value }
          : { kind: 'append', line, chain: name.value, rule: rule.value },
      };
    }
    case '-N':
    case '--new-chain': {
      const name = withChain();
      if (!name.ok) return name;
      if (rest.length > 0) return restoreError(line, `Bad argument \`${rest[0] ?? ''}'`);
      return { ok: true, value: { kind: 'new-chain', line, chain: name.value } };
    }
    case '-F':
    case '--flush':
    case '-X':
    case '--delete-chain': {
      if (rest.length > 0) return restoreError(line, `Bad argument \`${rest[0] ?? ''}'`);
      const kind = command === '-F' || command === '--flush' ? 'flush' : 'delete-chain';
      if (chain === undefined) return { ok: true, value: { kind, line } };
      const name = withChain();
      if (!name.ok) return name;
      return { ok: true, value: { kind, line, chain: name.value } };
    }
    default:
      return restoreError(line, `unknown or unmodelled command \`${command ?? ''}'`);
  }
}

/**
 * The table blocks that end (COMMIT) before the first error, and that error if there is one.
 * iptables-restore reads its input line by line and commits each block at its COMMIT, so the
 * blocks before a malformed line have been applied when it stops; the table model needs them.
 */
export interface RestorePrefix {
  readonly tables: readonly RestoreTableBlock[];
  readonly error?: ErrIptablesRestore;
}

export function parseIptablesRestorePrefix(text: string, cache?: RuleCache): RestorePrefix {
  const tables: RestoreTableBlock[] = [];
  const failed = (result: { readonly ok: false; readonly error: ErrIptablesRestore }): RestorePrefix => ({ tables, error: result.error });
  let current: { name: string; line: number; statements: RestoreStatement[] } | undefined;
  const { lines, count } = readRestoreLines(text, 'iptables-restore');
  for (const { number: line, text: raw, kind } of lines) {
    if (kind === 'table') {
      if (current !== undefined) return failed(restoreError(line, `COMMIT expected at line ${line}`));
      const name = raw.slice(1).trim();
      if (name === '') return failed(restoreError(line, 'empty table name'));
      current = { name, line, statements: [] };
      continue;
    }
    if (current === undefined) return failed(restoreError(line, `line ${line}: expected a table (\`*name')`));
    if (kind === 'commit') {
      tables.push({ name: current.name, line: current.line, statements: current.statements });
      current = undefined;
      continue;
    }
    if (kind === 'chain') {
      const [chain = '', policy, counters, ...extra] = raw.slice(1).trim().split(/[ \t]+/);
      const bad = checkChainName(chain);
      if (bad !== undefined) return failed(restoreError(line, bad));
      if (policy === undefined) return failed(restoreError(line, `no policy for chain \`${chain}'`));
      if ((counters !== undefined && !COUNTERS.test(counters)) || extra.length > 0) {
        return failed(restoreError(line, `invalid chain line \`${raw}'`));
      }
      current.statements.push({ kind: 'declare-chain', line, chain, policy });
      continue;
    }
    const known = cache?.appends.get(raw);
    if (known !== undefined) {
      current.statements.push({ kind: 'append', line, chain: known.chain, rule: known.rule });
      continue;
    }
    const words = restoreWords(raw, 'iptables-restore');
    if (!words.ok) return failed(restoreError(line, words.error.message));
    const statement = parseStatement(words.value, line);
    if (!statement.ok) return failed(statement);
    if (cache !== undefined && statement.value.kind === 'append') cache.appends.set(raw, statement.value);
    current.statements.push(statement.value);
  }
  if (current !== undefined) return failed(restoreError(count, `COMMIT expected at line ${count}`));
  return { tables };
}

export function parseIptablesRestore(text: string): RestoreResult<IptablesRestoreDocument> {
  const parsed = parseIptablesRestorePrefix(text);
  if (parsed.error !== undefined) return { ok: false, error: parsed.error };
  return { ok: true, value: { tables: parsed.tables } };
}

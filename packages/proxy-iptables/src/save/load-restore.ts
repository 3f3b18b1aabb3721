// Applying an iptables-restore document to empty tables, as `iptables-restore` (without
// --noflush) does in a fresh network namespace, and keeping what the kernel then holds:
// per table, the built-in chains with their policies, the user chains, and each chain's
// rules in canonical form (canonical-rule.ts). Each `*table` block starts from an empty
// table. Errors are the ones iptables-restore reports: a rule in an unknown chain, a jump
// to a chain that does not exist yet, deleting a chain that still has rules or references.
// Not modelled: counters (all [0:0]), jump loops, hook restrictions of targets in user chains.
// upstream: iptables iptables/iptables-restore.c, libiptc/libiptc.c, iptables/nft.c.

import type { IptFamily } from './address.js';
import { canonicalRule } from './canonical-rule.js';
import type { RestoreResult } from './errors.js';
import { restoreError } from './errors.js';
import type { IptablesRestoreDocument, RestoreStatement, RestoreTableBlock } from './parse-restore.js';
import { parseIptablesRestore } from './parse-restore.js';
import type { RuleCache } from './rule-cache.js';
import type { RuleSpec } from './rule-spec.js';
import type { SaveBackend } from './print-save.js';
import { STANDARD_VERDICTS, TARGET_EXTENSIONS } from './target-extensions.js';

/** The built-in chains of each table, in the order iptables-save lists them. */
export const BUILTIN_CHAINS: ReadonlyMap<string, readonly string[]> = new Map([
  ['filter', ['INPUT', 'FORWARD', 'OUTPUT']],
  ['nat', ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING']],
  ['mangle', ['PREROUTING', 'INPUT', 'FORWARD', 'OUTPUT', 'POSTROUTING']],
  ['raw', ['PREROUTING', 'OUTPUT']],
  ['security', ['INPUT', 'FORWARD', 'OUTPUT']],
]);

const BUILTIN_POLICIES = ['ACCEPT', 'DROP'];

export interface KernelChain {
  readonly name: string;
  readonly builtin: boolean;
  /** ACCEPT or DROP for a built-in chain, `-` for a user chain. */
  readonly policy: string;
  readonly rules: readonly RuleSpec[];
}

export interface KernelTable {
  readonly name: string;
  /** Built-in chains first (in BUILTIN_CHAINS order), then user chains in creation order. */
  readonly chains: readonly KernelChain[];
  /** The table's last block had statements: iptables-nft only creates a table then. */
  readonly hasStatements: boolean;
}

export interface KernelRuleset {
  readonly family: IptFamily;
  readonly backend: SaveBackend;
  /** In the order the tables were first named in the text. */
  readonly tables: readonly KernelTable[];
}

export interface LoadOptions {
  /** The address family: iptables-restore (4, default) or ip6tables-restore (6). */
  readonly family?: IptFamily;
  /**
   * The backend (default nft). iptables-nft keeps tcp/udp ports as nftables comparisons and
   * reads `! --dport 0:N` back as `--dport N+1:65535`; legacy keeps the xtables match.
   */
  readonly backend?: SaveBackend;
}

interface MutableChain {
  readonly name: string;
  readonly builtin: boolean;
  policy: string;
  rules: RuleSpec[];
  /** The rules array belongs to an earlier table value: copy it before changing it. */
  shared: boolean;
}

function ownRules(chain: MutableChain): RuleSpec[] {
  if (chain.shared) {
    chain.rules = [...chain.rules];
    chain.shared = false;
  }
  return chain.rules;
}

/** What a `:CHAIN` line does to a user chain that already exists. */
export type Redeclare = 'flush' | 'error';

function references(rule: RuleSpec, chain: string): boolean {
  return rule.target !== undefined && rule.target.name === chain && !TARGET_EXTENSIONS.has(chain) && !STANDARD_VERDICTS.includes(chain);
}

/** A table's chains by name, in the order iptables lists them (a re-created chain goes last). */
type MutableChains = Map<string, MutableChain>;

function applyStatement(
  chains: MutableChains,
  statement: RestoreStatement,
  family: IptFamily,
  table: string,
  backend: SaveBackend,
  redeclare: Redeclare,
  canonical: WeakMap<RuleSpec, RuleSpec> | undefined,
): RestoreResult<undefined> {
  const line = statement.line;
  const ok: RestoreResult<undefined> = { ok: true, value: undefined };
  switch (statement.kind) {
    case 'declare-chain': {
      const existing = chains.get(statement.chain);
      if (existing?.builtin === true) {
        if (!BUILTIN_POLICIES.includes(statement.policy)) {
          return restoreError(line, `Can't set policy \`${statement.policy}' on \`${statement.chain}'`);
        }
        existing.policy = statement.policy;
        return ok;
      }
      if (statement.policy !== '-') {
        return restoreError(line, `Can't set policy \`${statement.policy}' on \`${statement.chain}': Built-in chains only`);
      }
      // Without --noflush iptables-legacy refuses a second declaration; iptables-nft, and both
      // with --noflush, flush the chain (it keeps its place).
      if (existing !== undefined) {
        if (redeclare === 'error') return restoreError(line, `error creating chain '${statement.chain}':File exists`);
        existing.rules = [];
        existing.shared = false;
        return ok;
      }
      chains.set(statement.chain, { name: statement.chain, builtin: false, policy: '-', rules: [], shared: false });
      return ok;
    }
    case 'new-chain':
      if (chains.has(statement.chain)) return restoreError(line, 'Chain already exists.');
      chains.set(statement.chain, { name: statement.chain, builtin: false, policy: '-', rules: [], shared: false });
      return ok;
    case 'append':
    case 'insert': {
      const chain = chains.get(statement.chain);
      if (chain === undefined) return restoreError(line, 'No chain/target/match by that name.');
      // iptables itself refuses interfaces a built-in chain can never see.
      if (statement.rule.outInterface !== undefined && chain.builtin && ['PREROUTING', 'INPUT'].includes(chain.name)) {
        return restoreError(line, `Can't use -o with ${chain.name}`);
      }
      if (statement.rule.inInterface !== undefined && chain.builtin && ['POSTROUTING', 'OUTPUT'].includes(chain.name)) {
        return restoreError(line, `Can't use -i with ${chain.name}`);
      }
      const known = canonical?.get(statement.rule);
      const rule = known === undefined ? canonicalRule(statement.rule, family, table, backend) : { ok: true as const, value: known };
      if (!rule.ok) return restoreError(line, rule.message);
      if (known === undefined) canonical?.set(statement.rule, rule.value);
      const target = rule.value.target;
      if (target !== undefined && !TARGET_EXTENSIONS.has(target.name) && !STANDARD_VERDICTS.includes(target.name)) {
        const jumped = chains.get(target.name);
        if (jumped === undefined || jumped.builtin) return restoreError(line, `Chain '${target.name}' does not exist`);
      }
      if (statement.kind === 'append') {
        ownRules(chain).push(rule.value);
      } else {
        if (statement.position > chain.rules.length + 1) return restoreError(line, 'Index of insertion too big.');
        ownRules(chain).splice(statement.position - 1, 0, rule.value);
      }
      return ok;
    }
    case 'flush': {
      if (statement.chain === undefined) {
        for (const chain of chains.values()) {
          chain.rules = [];
          chain.shared = false;
        }
        return ok;
      }
      const chain = chains.get(statement.chain);
      if (chain === undefined) return restoreError(line, 'No chain/target/match by that name.');
      chain.rules = [];
      chain.shared = false;
      return ok;
    }
    case 'delete-chain': {
      const doomed = statement.chain === undefined ? [...chains.values()].filter((c) => !c.builtin) : [chains.get(statement.chain)];
      for (const chain of doomed) {
        if (chain === undefined) return restoreError(line, 'No chain/target/match by that name.');
        if (chain.builtin) return restoreError(line, `Can't delete built-in chain \`${chain.name}'`);
        if (chain.rules.length > 0) return restoreError(line, `CHAIN_DEL failed (Device or resource busy): chain ${chain.name}`);
        const stillUsed = [...chains.values()].some((c) => !doomed.includes(c) && c.rules.some((r) => references(r, chain.name)));
        if (stillUsed) return restoreError(line, `CHAIN_DEL failed (Device or resource busy): chain ${chain.name}`);
      }
      for (const chain of doomed) if (chain !== undefined) chains.delete(chain.name);
      return ok;
    }
  }
}

export interface TableBlockOptions {
  readonly family: IptFamily;
  readonly backend: SaveBackend;
  readonly redeclare: Redeclare;
  /** A memo of stored rule forms (rule-cache.ts). */
  readonly cache?: RuleCache;
}

/**
 * Applies one `*table` block to `base` (undefined: the table as a fresh namespace has it, its
 * built-in chains empty with policy ACCEPT), all or nothing, as iptables-restore commits a
 * block. `base` is not changed: unchanged chains keep their rule arrays, changed ones get new
 * arrays, so old table values stay valid.
 */
export function applyTableBlock(base: KernelTable | undefined, block: RestoreTableBlock, options: TableBlockOptions): RestoreResult<KernelTable> {
  const builtins = BUILTIN_CHAINS.get(block.name);
  if (builtins === undefined) {
    return restoreError(block.line, `can't initialize iptables table \`${block.name}': Table does not exist`);
  }
  const chains: MutableChains =
    base === undefined
      ? new Map(builtins.map((name) => [name, { name, builtin: true, policy: 'ACCEPT', rules: [], shared: false }]))
      : new Map(base.chains.map((c) => [c.name, { name: c.name, builtin: c.builtin, policy: c.policy, rules: c.rules as RuleSpec[], shared: true }]));
  let canonical: WeakMap<RuleSpec, RuleSpec> | undefined;
  if (options.cache !== undefined) {
    const key = `${options.family} ${options.backend} ${block.name}`;
    canonical = options.cache.canonical.get(key);
    if (canonical === undefined) {
      canonical = new WeakMap();
      options.cache.canonical.set(key, canonical);
    }
  }
  for (const statement of block.statements) {
    const applied = applyStatement(chains, statement, options.family, block.name, options.backend, options.redeclare, canonical);
    if (!applied.ok) return applied;
  }
  return {
    ok: true,
    value: {
      name: block.name,
      chains: [...chains.values()].map((c) => ({ name: c.name, builtin: c.builtin, policy: c.policy, rules: c.rules })),
      hasStatements: (base?.hasStatements ?? false) || block.statements.length > 0,
    },
  };
}

export function loadIptablesDocument(document: IptablesRestoreDocument, options: LoadOptions = {}): RestoreResult<KernelRuleset> {
  const family = options.family ?? 4;
  const backend = options.backend ?? 'nft';
  const tables: KernelTable[] = [];
  for (const block of document.tables) {
    const applied = applyTableBlock(undefined, block, { family, backend, redeclare: 'error' });
    if (!applied.ok) return applied;
    const table = applied.value;
    const earlier = tables.findIndex((t) => t.name === block.name);
    if (earlier === -1) tables.push(table);
    else tables[earlier] = table;
  }
  return { ok: true, value: { family, backend, tables } };
}

/** parseIptablesRestore then loadIptablesDocument. */
export function loadIptablesRestore(text: string, options: LoadOptions = {}): RestoreResult<KernelRuleset> {
  const document = parseIptablesRestore(text);
  if (!document.ok) return document;
  return loadIptablesDocument(document.value, options);
}

// The tables as the kernel holds them between iptables-restore runs: per table its built-in
// chains (with policies) and user chains in creation order, each with its rules in the
// stored (iptables-save) form. A value, never changed in place: applying a restore text gives
// a new one and shares every chain it did not touch with the old one.
// The printed form is exactly what iptables-save prints (print-save.ts), which makes it the
// canonical form: user chains sorted by name, rules in stored form, counters [0:0].

import type { IptFamily } from '../save/address.js';
import type { KernelRuleset, KernelTable } from '../save/load-restore.js';
import type { SaveBackend } from '../save/print-save.js';
import { printSaveRule } from '../save/print-rule.js';
import { printIptablesSave } from '../save/print-save.js';

/**
 * What the kernel holds. The same shape as a loaded `KernelRuleset`, so the save-view printer
 * prints it; `tables` are in order of first creation (legacy iptables-save prints them in
 * reverse of that order). With the nft backend a table whose `hasStatements` is false does
 * not exist in the kernel (iptables-nft only creates a table for a block with statements).
 */
export type TableState = KernelRuleset;

export interface EmptyTablesOptions {
  /** nft (the default) or legacy: they differ in a few stored forms and in the table order printed. */
  readonly backend?: SaveBackend;
}

/** A fresh network namespace: no table has been used yet. */
export function emptyTables(family: IptFamily, options: EmptyTablesOptions = {}): TableState {
  return { family, backend: options.backend ?? 'nft', tables: [] };
}

function present(state: TableState): readonly KernelTable[] {
  return state.backend === 'nft' ? state.tables.filter((t) => t.hasStatements) : state.tables;
}

/** The canonical printed form: what iptables-save (of the state's backend) prints, without its comment lines. */
export function printTables(state: TableState): string {
  return printIptablesSave(state);
}

/**
 * Same tables, same chains with the same policies and the same rules in the same order. Chain
 * creation order and table order are not compared: iptables-save does not show the first and
 * a kernel's behaviour depends on neither.
 */
export function tablesEqual(a: TableState, b: TableState): boolean {
  if (a.family !== b.family || a.backend !== b.backend) return false;
  const left = present(a);
  const right = new Map(present(b).map((t) => [t.name, t]));
  if (left.length !== right.size) return false;
  for (const table of left) {
    const other = right.get(table.name);
    if (other === undefined || !sameChains(table, other)) return false;
  }
  return true;
}

function sameChains(a: KernelTable, b: KernelTable): boolean {
  if (a.chains.length !== b.chains.length) return false;
  const chains = new Map(b.chains.map((c) => [c.name, c]));
  for (const chain of a.chains) {
    const other = chains.get(chain.name);
    if (other === undefined || other.builtin !== chain.builtin || other.policy !== chain.policy) return false;
    if (other.rules.length !== chain.rules.length) return false;
    for (let i = 0; i < chain.rules.length; i++) {
      const rule = chain.rules[i];
      const otherRule = other.rules[i];
      // Rules loaded through one RuleCache share their values; otherwise compare the stored form.
      if (rule === otherRule) continue;
      if (rule === undefined || otherRule === undefined || printSaveRule(chain.name, rule) !== printSaveRule(chain.name, otherRule)) return false;
    }
  }
  return true;
}

// `iptables-restore [--noflush]` applied to a TableState. Each `*table … COMMIT` block is
// applied all or nothing, and committed at its COMMIT, so when a later block or line fails
// the blocks before it stay applied and the run stops there, as the real tool does.
// Per block:
// - without --noflush the table is flushed first: user chains deleted, built-in chains
//   emptied and their policies back to ACCEPT (iptables-nft deletes and re-creates the
//   table, so a block without statements leaves no table at all);
// - `:CHAIN - [p:b]` creates a user chain or flushes an existing one (it keeps its place);
//   `:BUILTIN POLICY` sets the policy;
// - `-A`/`-I` add a rule to an existing chain; a `-j`/`-g` to a user chain needs that chain;
// - `-X CHAIN` deletes a user chain that exists, has no rules and no other chain's rule
//   jumps to it; kube-proxy first flushes a stale chain with `:CHAIN` and then deletes it;
// - `-N`, `-F` as iptables does.
// Checked against iptables-nft-restore --noflush in a network namespace
// (apply-restore.real.test.ts).
// upstream: iptables iptables/iptables-restore.c (ios_restore, the noflush branches),
// iptables/nft.c (nft_chain_user_del: CHAIN_DEL fails with EBUSY when referenced or not empty),
// kubernetes pkg/proxy/iptables/proxier.go (RestoreAll with NoFlushTables).

import { err, ok, type Result } from '@kubesvc/api-types';
import type { ErrIptablesRestore } from '../save/errors.js';
import type { KernelTable } from '../save/load-restore.js';
import { applyTableBlock } from '../save/load-restore.js';
import { parseIptablesRestorePrefix } from '../save/parse-restore.js';
import type { RuleCache } from '../save/rule-cache.js';
import type { TableState } from './table-state.js';

export interface ApplyRestoreOptions {
  /** `--noflush`: keep what the tables hold and apply the statements on top (kube-proxy always does). */
  readonly noflush?: boolean;
  /**
   * A memo shared by many calls (createRuleCache): each distinct rule line is parsed and
   * canonicalised once, and tables loaded through one cache compare fast. Same results without it.
   */
  readonly cache?: RuleCache;
}

/** A failed run: the restore error, and what the kernel holds after it. */
export interface ErrApplyRestore extends ErrIptablesRestore {
  /** The blocks committed before the error stay applied. */
  readonly tables: TableState;
}

/** The tables after the run. */
export type ApplyRestoreResult = Result<TableState, ErrApplyRestore>;

export function applyRestore(tables: TableState, restoreText: string, options: ApplyRestoreOptions = {}): ApplyRestoreResult {
  const noflush = options.noflush ?? false;
  const parsed = parseIptablesRestorePrefix(restoreText, options.cache);
  let current: readonly KernelTable[] = tables.tables;
  const state = (): TableState => (current === tables.tables ? tables : { ...tables, tables: current });
  for (const block of parsed.tables) {
    const index = current.findIndex((t) => t.name === block.name);
    const existing = current[index];
    const applied = applyTableBlock(noflush ? existing : undefined, block, {
      family: tables.family,
      backend: tables.backend,
      // iptables-legacy-restore without --noflush refuses to declare a chain twice.
      redeclare: !noflush && tables.backend === 'legacy' ? 'error' : 'flush',
      ...(options.cache === undefined ? {} : { cache: options.cache }),
    });
    if (!applied.ok) return err({ ...applied.error, tables: state() });
    current = index === -1 ? [...current, applied.value] : current.map((t, i) => (i === index ? applied.value : t));
  }
  if (parsed.error !== undefined) return err({ ...parsed.error, tables: state() });
  return ok(state());
}

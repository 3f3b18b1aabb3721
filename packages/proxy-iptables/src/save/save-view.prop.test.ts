// INV-IPT-SAVE: the iptables-save view parses back to the same rules, modulo the documented
// normalisations (README, "The iptables-save view"). Checked over restore texts that spell
// every modelled option in the ways iptables-restore accepts, for both families.
import { fc, test } from '@fast-check/vitest';
import { endpointSliceArb, serviceArb } from '@kubesvc/testkit';
import { describe, expect } from 'vitest';
import { generateRules } from '../backend.js';
import { clusterArb } from '../real-parser/clusters.fixtures.js';
import type { KernelRuleset } from './load-restore.js';
import { loadIptablesRestore } from './load-restore.js';
import { storedComment } from './match-extensions.js';
import type { RestoreTableBlock } from './parse-restore.js';
import { parseIptablesRestore } from './parse-restore.js';
import { restoreTextArb } from './restore-text.fixtures.js';
import type { RuleSpec } from './rule-spec.js';
import { iptablesSaveView, iptablesSaveViewOfRuleset } from './save-view.js';

function unwrap<T>(r: { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: { readonly message: string; readonly line: number } }): T {
  if (!r.ok) throw new Error(`line ${r.error.line}: ${r.error.message}`);
  return r.value;
}

function tableBlocks(text: string): string[] {
  return text.split(/(?=^\*)/m).filter((b) => b !== '');
}

/** Table → chain → rules, ignoring table and chain order (the view sorts both). */
function byChain(ruleset: KernelRuleset): Record<string, Record<string, { policy: string; rules: readonly RuleSpec[] }>> {
  const out: Record<string, Record<string, { policy: string; rules: readonly RuleSpec[] }>> = {};
  for (const table of ruleset.tables) {
    if (!table.hasStatements) continue;
    const chains: Record<string, { policy: string; rules: readonly RuleSpec[] }> = {};
    for (const chain of table.chains) chains[chain.name] = { policy: chain.policy, rules: chain.rules };
    out[table.name] = chains;
  }
  return out;
}

/** The rules a block puts in each chain, as written (no canonicalisation), -A and -I applied in order. */
function writtenRules(block: RestoreTableBlock): Record<string, RuleSpec[]> {
  const chains: Record<string, RuleSpec[]> = {};
  for (const statement of block.statements) {
    if (statement.kind === 'append') (chains[statement.chain] ??= []).push(statement.rule);
    if (statement.kind === 'insert') (chains[statement.chain] ??= []).splice(statement.position - 1, 0, statement.rule);
  }
  return chains;
}

/** What no normalisation may change: target, modules in order, negations, comment text. */
function skeleton(rule: RuleSpec): unknown {
  return {
    target: rule.target === undefined ? null : `${rule.target.goto ? 'goto' : 'jump'} ${rule.target.name}`,
    modules: rule.matches.map((m) => m.module),
    comments: rule.matches.flatMap((m) => m.options.filter((o) => o.name === '--comment').map((o) => storedComment(o.args[0] ?? ''))),
    negated: [rule.source, rule.destination, rule.inInterface, rule.outInterface, rule.protocol].map((h) => h?.negated === true),
  };
}

describe('INV-IPT-SAVE', () => {
  for (const family of [4, 6] as const) {
    for (const backend of ['nft', 'legacy'] as const) {
      test.prop([restoreTextArb(family)])(
        `INV-IPT-SAVE: the iptables-save view parses back to the same rules, modulo the documented normalisations (IPv${family}, ${backend})`,
        (text) => {
          const original = unwrap(loadIptablesRestore(text, { family, backend }));
          const view = unwrap(iptablesSaveView(text, { family, backend }));

          // Loading the view gives the kernel the same tables, chains, policies and rules.
          const reloaded = unwrap(loadIptablesRestore(view, { family, backend }));
          expect(byChain(reloaded)).toStrictEqual(byChain(original));

          // The view is already in stored form: parsed as written, without canonicalising,
          // it holds exactly the stored rules, chain by chain.
          const parsedView = Object.fromEntries(unwrap(parseIptablesRestore(view)).tables.map((b) => [b.name, writtenRules(b)]));
          for (const [table, chains] of Object.entries(byChain(original))) {
            for (const [chain, { rules }] of Object.entries(chains)) {
              expect(parsedView[table]?.[chain] ?? []).toStrictEqual(rules);
            }
          }

          // The view of the view is the view (for legacy, with the tables in reverse: its
          // order is the reverse of first use, and the view names them in its own order).
          const again = unwrap(iptablesSaveView(view, { family, backend }));
          expect(backend === 'nft' ? again : tableBlocks(again).reverse().join('')).toBe(view);

          // Rule by rule, targets, modules, negations and comments survive the normalisations.
          const written = unwrap(parseIptablesRestore(text));
          for (const block of written.tables) {
            const stored = byChain(original)[block.name];
            for (const [chain, rules] of Object.entries(writtenRules(block))) {
              expect((stored?.[chain]?.rules ?? []).map(skeleton)).toStrictEqual(rules.map(skeleton));
            }
          }
        },
      );
    }
  }
});

describe('INV-IPT-SAVE over generated clusters', () => {
  for (const family of [4, 6] as const) {
    test.prop([clusterArb(serviceArb(), endpointSliceArb(), family), fc.constantFrom('nft' as const, 'legacy' as const)])(
      `INV-IPT-SAVE: the save view of a generated ruleset parses back to the same rules (IPv${family})`,
      (cluster, backend) => {
        const { ruleset, restoreText } = generateRules(cluster.services, cluster.slices, cluster.config);
        const view = unwrap(iptablesSaveViewOfRuleset(ruleset, backend));
        expect(unwrap(iptablesSaveView(restoreText, { family, backend }))).toBe(view);
        const original = unwrap(loadIptablesRestore(restoreText, { family, backend }));
        const reloaded = unwrap(loadIptablesRestore(view, { family, backend }));
        expect(byChain(reloaded)).toStrictEqual(byChain(original));
        // Every rule kube-proxy wrote is in the view, once per chain, in its order.
        const written = unwrap(parseIptablesRestore(restoreText));
        for (const block of written.tables) {
          const stored = byChain(original)[block.name];
          for (const [chain, rules] of Object.entries(writtenRules(block))) {
            expect((stored?.[chain]?.rules ?? []).map(skeleton)).toStrictEqual(rules.map(skeleton));
          }
          // Chains kube-proxy deletes (-X) are gone.
          for (const statement of block.statements) {
            if (statement.kind === 'delete-chain' && statement.chain !== undefined) expect(stored?.[statement.chain]).toBeUndefined();
          }
        }
      },
    );
  }
});

// A table written back as the transaction of `add` operations that makes it, in the order
// knftables' fake prints its `Dump()` (sigs.k8s.io/knftables fake.go): the table, then each
// chain by name with its rules in order, then each set by name with its elements, then each
// map by name with its elements. Upstream's proxier tests compare a sync's result in this
// form; printed (model/print.ts), it is the text of their expected rulesets.

import type { NftOperation, NftSet, NftTable, NftTransaction } from './types.js';

/** Names in Go's `sort.Strings` order (byte order; the same as `<` for the ASCII names nft allows). */
function sortedNames<V>(entries: ReadonlyMap<string, V>): string[] {
  return [...entries.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

function setOperations(set: NftSet, out: NftOperation[]): void {
  out.push({ verb: 'add', object: { kind: set.kind, set: set.spec } });
  for (const element of set.elements.values()) {
    out.push({ verb: 'add', object: { kind: 'element', of: set.kind, element: { set: set.spec.name, ...element } } });
  }
}

/** `table` as the `add` operations that make it, in knftables' Dump order (rules without handles). */
export function dumpTransaction(table: NftTable): NftTransaction {
  const operations: NftOperation[] = [{ verb: 'add', object: { kind: 'table', table: table.spec } }];
  for (const name of sortedNames(table.chains)) {
    const chain = table.chains.get(name);
    if (chain === undefined) continue;
    operations.push({ verb: 'add', object: { kind: 'chain', chain: chain.spec } });
    for (const rule of chain.rules) {
      operations.push({
        verb: 'add',
        object: { kind: 'rule', rule: { chain: name, rule: rule.rule, ...(rule.comment === undefined ? {} : { comment: rule.comment }) } },
      });
    }
  }
  for (const kind of ['set', 'map'] as const) {
    for (const name of sortedNames(table.sets)) {
      const set = table.sets.get(name);
      if (set?.kind === kind) setOperations(set, operations);
    }
  }
  return { family: table.family, table: table.name, operations };
}

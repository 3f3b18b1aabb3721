// applyTransaction against the real kernel (INV-NFT-APPLY): random sequences of
// transactions over a small table (two regular chains and a base chain, rules with and without
// positions, a set, a verdict map, their elements, the table itself) are applied by the model
// and, printed, by `nft -f` in a throwaway network namespace. For every transaction the kernel
// accepts it exactly when the model does, and at the end the kernel's table (`nft -j list
// ruleset`) holds what the model's does: the same chains with the same rules in the same order
// (each rule carries a distinct comment), and the same set and map elements.
// Left out, because the model does not check them (model/apply.ts): rules that jump to a chain
// or look up a set, whose references make a delete EBUSY.
// @needs-root: loads transactions with the real nft in a throwaway network namespace (real-nft.fixtures.ts); testkit root-only.ts refuses a run without root that selects it.
import { fc } from '@fast-check/vitest';
import { describe, expect, test } from 'vitest';
import { applyTransaction } from '../model/apply.js';
import { printTransaction } from '../model/print.js';
import type { NftObject, NftOperation, NftTable, NftTransaction, NftVerb } from '../model/types.js';
import { runNft } from '../node/real-nft.fixtures.js';

const TABLE = 'kube-proxy';
const RUNS = 80;

const ruleTexts = ['ip daddr 10.0.0.1 drop', 'ip saddr 10.0.0.2 accept', 'meta l4proto tcp drop', 'ip daddr 10.0.0.0/8 accept'];

const tableOpArb: fc.Arbitrary<NftOperation> = fc.record({
  verb: fc.constantFrom<NftVerb>('add', 'create', 'flush', 'delete'),
  object: fc.constant<NftObject>({ kind: 'table', table: { comment: 'rules for kube-proxy' } }),
});

const chainOpArb: fc.Arbitrary<NftOperation> = fc.record({
  verb: fc.constantFrom<NftVerb>('add', 'create', 'flush', 'delete'),
  object: fc.constantFrom<NftObject>(
    { kind: 'chain', chain: { name: 'c1' } },
    { kind: 'chain', chain: { name: 'c2' } },
    { kind: 'chain', chain: { name: 'filter-input', type: 'filter', hook: 'input', priority: '-110' } },
  ),
});

const ruleOpArb: fc.Arbitrary<NftOperation> = fc
  .record({
    verb: fc.constantFrom<NftVerb>('add', 'insert'),
    chain: fc.constantFrom('c1', 'c2', 'filter-input', 'nope'),
    text: fc.constantFrom(...ruleTexts),
    index: fc.option(fc.integer({ min: 0, max: 3 }), { nil: undefined }),
  })
  .map(({ verb, chain, text, index }) => ({
    verb,
    object: { kind: 'rule', rule: { chain, rule: text, ...(index === undefined ? {} : { index }) } } as const,
  }));

const setOpArb: fc.Arbitrary<NftOperation> = fc.record({
  verb: fc.constantFrom<NftVerb>('add', 'create', 'flush', 'delete'),
  object: fc.constantFrom<NftObject>(
    { kind: 'set', set: { name: 's', type: 'ipv4_addr', comment: 'a set' } },
    { kind: 'map', set: { name: 'm', type: 'ipv4_addr : verdict' } },
  ),
});

const elementOpArb: fc.Arbitrary<NftOperation> = fc
  .record({
    verb: fc.constantFrom<NftVerb>('add', 'create', 'delete'),
    map: fc.boolean(),
    key: fc.constantFrom('10.0.0.1', '10.0.0.2'),
    value: fc.constantFrom('accept', 'drop'),
  })
  .map(({ verb, map, key, value }) => ({
    verb,
    object: map
      ? ({ kind: 'element', of: 'map', element: { set: 'm', key: [key], value: [value] } } as const)
      : ({ kind: 'element', of: 'set', element: { set: 's', key: [key] } } as const),
  }));

const opArb: fc.Arbitrary<NftOperation> = fc.oneof(
  { weight: 1, arbitrary: tableOpArb },
  { weight: 2, arbitrary: chainOpArb },
  { weight: 3, arbitrary: ruleOpArb },
  { weight: 1, arbitrary: setOpArb },
  { weight: 4, arbitrary: elementOpArb },
);

const SETUP: readonly NftOperation[] = [
  { verb: 'add', object: { kind: 'table', table: { comment: 'rules for kube-proxy' } } },
  { verb: 'add', object: { kind: 'chain', chain: { name: 'c1' } } },
  { verb: 'add', object: { kind: 'chain', chain: { name: 'c2' } } },
  { verb: 'add', object: { kind: 'chain', chain: { name: 'filter-input', type: 'filter', hook: 'input', priority: '-110' } } },
  { verb: 'add', object: { kind: 'rule', rule: { chain: 'c1', rule: 'ip daddr 10.0.0.1 drop' } } },
  { verb: 'add', object: { kind: 'rule', rule: { chain: 'c1', rule: 'ip saddr 10.0.0.2 accept' } } },
  { verb: 'add', object: { kind: 'set', set: { name: 's', type: 'ipv4_addr', comment: 'a set' } } },
  { verb: 'add', object: { kind: 'map', set: { name: 'm', type: 'ipv4_addr : verdict' } } },
  { verb: 'add', object: { kind: 'element', of: 'set', element: { set: 's', key: ['10.0.0.1'] } } },
  { verb: 'add', object: { kind: 'element', of: 'map', element: { set: 'm', key: ['10.0.0.1'], value: ['accept'] } } },
];

/**
 * Sequences of 1 to 6 transactions of 1 to 4 operations; most start from a table that has
 * every kind of object (so that later operations meet populated chains, sets and maps),
 * some from an empty or absent table.
 */
const sequenceArb: fc.Arbitrary<NftTransaction[]> = fc
  .tuple(
    fc.constantFrom<'setup' | 'table' | 'none'>('setup', 'setup', 'setup', 'table', 'none'),
    fc.array(fc.array(opArb, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 6 }),
  )
  .map(([start, transactions]) => {
    const first: NftOperation[][] = start === 'setup' ? [[...SETUP]] : start === 'table' ? [SETUP.slice(0, 1)] : [];
    // Distinct comments, so that the kernel's listing says which rule is which.
    let n = 0;
    return [...first, ...transactions].map((operations) => ({
      family: 'ip' as const,
      table: TABLE,
      operations: operations.map((o) =>
        o.object.kind === 'rule' ? { ...o, object: { kind: 'rule' as const, rule: { ...o.object.rule, comment: `r${n++}` } } } : o,
      ),
    }));
  });

interface Summary {
  readonly chains: Record<string, string[]>;
  readonly sets: Record<string, string[]>;
}

function modelSummary(table: NftTable | undefined): Summary | undefined {
  if (table === undefined) return undefined;
  const chains: Record<string, string[]> = {};
  for (const [name, chain] of table.chains) chains[name] = chain.rules.map((r) => r.comment ?? '');
  const sets: Record<string, string[]> = {};
  for (const [name, set] of table.sets) {
    sets[name] = [...set.elements.values()].map((e) => (e.value === undefined ? e.key.join(' . ') : `${e.key.join(' . ')} : ${e.value.join(' ')}`)).sort();
  }
  return { chains, sets };
}

type JsonObject = Record<string, unknown>;

function elementText(e: unknown): string {
  if (Array.isArray(e)) return `${String(e[0])} : ${Object.keys(e[1] as JsonObject)[0] ?? ''}`;
  return String(e);
}

function kernelSummary(json: string): Summary | undefined {
  const items = (JSON.parse(json) as { nftables: JsonObject[] }).nftables;
  if (!items.some((i) => 'table' in i)) return undefined;
  const chains: Record<string, string[]> = {};
  const sets: Record<string, string[]> = {};
  for (const item of items) {
    if ('chain' in item) chains[(item['chain'] as JsonObject)['name'] as string] = [];
  }
  for (const item of items) {
    if ('rule' in item) {
      const rule = item['rule'] as JsonObject;
      chains[rule['chain'] as string]?.push((rule['comment'] as string | undefined) ?? '');
    }
    for (const kind of ['set', 'map']) {
      if (kind in item) {
        const set = item[kind] as JsonObject;
        sets[set['name'] as string] = ((set['elem'] as unknown[] | undefined) ?? []).map(elementText).sort();
      }
    }
  }
  return { chains, sets };
}

describe('INV-NFT-APPLY: applyTransaction accepts and refuses what the kernel does, and ends where the kernel ends', () => {
  test('random transaction sequences on a small table', () => {
    const sequences = fc.sample(sequenceArb, { seed: 35_001, numRuns: RUNS });
    let refusedByBoth = 0;
    // One namespace for all: each sequence starts from an empty ruleset and is listed at its end.
    const texts = sequences.map((sequence) =>
      sequence.map((t) => {
        const printed = printTransaction(t);
        if (!printed.ok) throw new Error(printed.error.message);
        return printed.value;
      }),
    );
    const kernel = runNft(texts.flatMap((seq) => seq.map((script, i) => ({ script, reset: i === 0, list: i === seq.length - 1 }))));
    let at = 0;
    sequences.forEach((sequence, s) => {
      const seqTexts = texts[s] ?? [];
      let table: NftTable | undefined;
      sequence.forEach((transaction, i) => {
        const applied = applyTransaction(table, transaction);
        const step = kernel.steps[at++];
        expect(step?.status === 0, `transaction ${i} of\n${seqTexts.join('---\n')}\nkernel: ${step?.stderr ?? ''}\nmodel: ${applied.ok ? 'ok' : applied.error.message}`).toBe(applied.ok);
        if (applied.ok) table = applied.value;
        else refusedByBoth++;
      });
      expect(kernelSummary(kernel.steps[at - 1]?.json ?? '{"nftables":[]}'), seqTexts.join('---\n')).toEqual(modelSummary(table));
    });
    // The sequences are not trivial: some transactions were refused by both.
    expect(refusedByBoth).toBeGreaterThan(5);
  });
});

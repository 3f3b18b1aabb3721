import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { parseListRuleset } from '../read/parse-list-ruleset.js';
import { parseTransaction } from '../read/parse-transaction.js';
import { compileRule } from './rule-program.js';

const fixtures = new URL('../read/fixtures/', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, fixtures), 'utf8');

describe('compileRule reads every rule of the fixtures, as written and as nft lists them', () => {
  for (const name of readdirSync(fixtures).filter((f) => f.endsWith('.nft'))) {
    test(name, () => {
      const tx = parseTransaction(read(name));
      if (!tx.ok) throw new Error(tx.error.message);
      const family = tx.value.family === 'ip' ? 4 : 6;
      const written = tx.value.operations.flatMap((op) => (op.object.kind === 'rule' ? [op.object.rule.rule] : []));
      const table = parseListRuleset(read(name.replace(/\.nft$/, '.list')));
      if (!table.ok) throw new Error(table.error.message);
      const listed = [...table.value.chains.values()].flatMap((c) => c.rules.map((r) => r.rule));
      expect(written.length).toBeGreaterThan(0);
      expect(listed).toHaveLength(written.length);
      for (const rule of [...written, ...listed]) expect(compileRule(rule, family)).not.toBeTypeOf('string');
    });
  }
});

describe('the words nft lists compile to what knftables wrote', () => {
  const same: [string, string][] = [
    ['mark set mark or 0x4000', 'meta mark set meta mark | 0x00004000'],
    ['mark set mark xor 0x4000', 'meta mark set meta mark ^ 0x00004000'],
    ['mark and 0x4000 == 0 return', 'meta mark & 0x00004000 == 0x00000000 return'],
    ['ip saddr != { 203.0.113.0/25 } drop', 'ip saddr != 203.0.113.0/25 drop'],
    ['ip daddr { 172.30.0.0/16,10.96.0.0/12 } drop', 'ip daddr { 10.96.0.0/12, 172.30.0.0/16 } drop'],
    ['numgen random mod 2 vmap { 0 : goto a , 1 : goto b }', 'numgen random mod 2 vmap { 0 : goto a, 1 : goto b }'],
  ];
  for (const [written, listed] of same) {
    test(listed, () => {
      const a = compileRule(written, 4);
      const b = compileRule(listed, 4);
      expect(a).not.toBeTypeOf('string');
      if (typeof a === 'string' || typeof b === 'string') return;
      // The same statements, whatever order an anonymous set lists its members in.
      const canonical = (s: unknown): string => JSON.stringify(s, (_, v: unknown) => (typeof v === 'bigint' ? v.toString() : v));
      const sortAny = (x: typeof a): string[] =>
        x.map((st) => (st.kind === 'compare' ? canonical({ ...st, any: [...st.any].map(canonical).sort() }) : canonical(st)));
      expect(sortAny(b)).toEqual(sortAny(a));
    });
  }
});

describe('compileRule', () => {
  test('tcp dport carries its protocol', () => {
    expect(compileRule('tcp dport 80 drop', 4)).toEqual([
      { kind: 'compare', field: 'l4proto', negated: false, any: [{ kind: 'number', value: 6 }] },
      { kind: 'compare', field: 'dport', negated: false, any: [{ kind: 'number', value: 80 }] },
      { kind: 'verdict', verdict: { kind: 'drop' } },
    ]);
  });

  test('dnat to an IPv6 endpoint', () => {
    expect(compileRule('meta l4proto tcp dnat to [fd00:10:180::2:1]:80', 6)).toEqual([
      { kind: 'compare', field: 'l4proto', negated: false, any: [{ kind: 'number', value: 6 }] },
      { kind: 'dnat', address: 'fd00:10:180::2:1', port: 80 },
    ]);
  });

  test('an affinity update and lookup', () => {
    expect(compileRule('update @affinity-X { ip saddr }', 4)).toEqual([{ kind: 'update', set: 'affinity-X', fields: ['saddr'] }]);
    expect(compileRule('ip saddr @affinity-X goto e', 4)).toEqual([
      { kind: 'lookup', fields: ['saddr'], set: 'affinity-X', negated: false },
      { kind: 'verdict', verdict: { kind: 'goto', chain: 'e' } },
    ]);
  });

  const refused: [string, 4 | 6][] = [
    ['fib oif != "lo" drop', 4],
    ['ip daddr 10.0.0.256 drop', 4],
    ['ip6 daddr fd00::1 drop', 4],
    ['ip daddr 10.0.0.0/33 drop', 4],
    ['numgen random mod 0 vmap { 0 : goto a }', 4],
    ['numgen inc mod 2 vmap { 0 : goto a , 1 : goto b }', 4],
    ['log prefix "x" accept', 4],
    ['ct state bogus accept', 4],
    ['dnat to 10.0.0.1:99999', 4],
    ['jump', 4],
  ];
  for (const [rule, family] of refused) {
    test(`cannot evaluate: ${rule}`, () => {
      const r = compileRule(rule, family);
      expect(r).toBeTypeOf('string');
      expect(r).toMatch(/cannot evaluate|unterminated/);
    });
  }
});

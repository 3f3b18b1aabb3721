// The listing reader against what nft 1.0.6 really listed for a transaction
// (fixtures/*.nft loaded by fixtures/regenerate.sh, listed into *.list): every object the
// transaction added is in the table read from the listing, with the same spec, in knftables'
// written form where nft prints another (priorities, timeouts).
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { durationSeconds, numericPriority, parseListRuleset } from './parse-list-ruleset.js';
import { parseTransaction } from './parse-transaction.js';

const fixtures = new URL('./fixtures/', import.meta.url);
const read = (name: string): string => readFileSync(new URL(name, fixtures), 'utf8');
const inputs = readdirSync(fixtures).filter((f) => f.endsWith('.nft'));

function value<T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

/** The rewrites nft's listing makes of kube-proxy's rule words (seen in the fixtures). */
function asListed(rule: string): string {
  return rule
    .replace('mark set mark or 0x4000', 'meta mark set meta mark | 0x00004000')
    .replace('mark set mark xor 0x4000', 'meta mark set meta mark ^ 0x00004000')
    .replace('mark and 0x4000 == 0', 'meta mark & 0x00004000 == 0x00000000')
    .replace(/ , /g, ', ');
}

/** An anonymous set's addresses in one order, and without braces when it has one (as nft lists it). */
function canonicalSets(rule: string): string {
  return rule.replace(/\{ ((?:(?! : )[^{}])*) \}/g, (_, body: string) => {
    const items = body.split(',').map((x) => x.trim()).sort();
    return items.length === 1 ? (items[0] ?? '') : `{ ${items.join(', ')} }`;
  });
}

describe('parseListRuleset reads what nft listed for each fixture transaction', () => {
  test('there are fixtures for both families', () => {
    expect(inputs.some((f) => f.includes('.v4.'))).toBe(true);
    expect(inputs.some((f) => f.includes('.v6.'))).toBe(true);
  });

  for (const input of inputs) {
    test(input, () => {
      const tx = value(parseTransaction(read(input)));
      const table = value(parseListRuleset(read(input.replace(/\.nft$/, '.list'))));
      expect(table.family).toBe(tx.family);
      expect(table.name).toBe('kube-proxy');
      const rulesSeen = new Map<string, number>();
      let chainsAdded = 0;
      for (const op of tx.operations) {
        const o = op.object;
        switch (o.kind) {
          case 'table':
            expect(table.spec).toEqual(o.table);
            break;
          case 'chain':
            chainsAdded++;
            expect(table.chains.get(o.chain.name)?.spec).toEqual(o.chain);
            break;
          case 'rule': {
            const at = rulesSeen.get(o.rule.chain) ?? 0;
            rulesSeen.set(o.rule.chain, at + 1);
            const listed = table.chains.get(o.rule.chain)?.rules[at];
            expect(canonicalSets(listed?.rule ?? '')).toBe(canonicalSets(asListed(o.rule.rule)));
            expect(listed?.comment).toBe(o.rule.comment);
            break;
          }
          case 'set':
          case 'map': {
            const set = table.sets.get(o.set.name);
            expect(set?.kind).toBe(o.kind);
            expect(set?.spec).toEqual(o.set);
            break;
          }
          case 'element': {
            const e = table.sets.get(o.element.set)?.elements.get(o.element.key.join(' . '));
            expect(e?.key).toEqual(o.element.key);
            expect(e?.value).toEqual(o.element.value);
            expect(e?.comment).toBe(o.element.comment);
            break;
          }
        }
      }
      expect(table.chains.size).toBe(chainsAdded);
      for (const [chain, n] of rulesSeen) expect(table.chains.get(chain)?.rules).toHaveLength(n);
    });
  }

  for (const input of inputs) {
    const base = input.replace(/\.nft$/, '');
    test(`${base}: nft -a's listing reads as the plain one, with nft's handles`, () => {
      const plain = value(parseListRuleset(read(`${base}.list`)));
      const text = read(`${base}.handles`);
      const handled = value(parseListRuleset(text));
      const strip = (t: typeof plain): unknown => ({
        ...t,
        nextHandle: 0,
        chains: [...t.chains].map(([name, c]) => [name, { ...c, rules: c.rules.map((r) => ({ ...r, handle: 0 })) }]),
      });
      expect(strip(handled)).toEqual(strip(plain));
      // Each rule has the handle printed after it.
      for (const chain of handled.chains.values()) {
        for (const r of chain.rules) {
          const printed = `${r.rule}${r.comment === undefined ? '' : ` comment "${r.comment}"`} # handle ${r.handle}`;
          expect(text).toContain(printed);
        }
      }
      const handles = [...handled.chains.values()].flatMap((c) => c.rules.map((r) => r.handle));
      expect(new Set(handles).size).toBe(handles.length);
      expect(handled.nextHandle).toBe(Math.max(...handles) + 1);
    });
  }

  test('rules get handles 1, 2, ... in listing order, and nextHandle follows them', () => {
    const table = value(parseListRuleset(read('v1-33-checks.v4.list')));
    const handles = [...table.chains.values()].flatMap((c) => c.rules.map((r) => r.handle));
    expect(handles).toEqual([1, 2, 3, 4, 5]);
    expect(table.nextHandle).toBe(6);
  });
});

describe('parseListRuleset on hand-written listings', () => {
  test('nft -a handles are kept; other tables are skipped; an affinity entry keeps its key without its expiry', () => {
    const text = [
      'table inet filter { # handle 1',
      '\tchain input { # handle 1',
      '\t\ttype filter hook input priority filter; policy accept;',
      '\t\tiifname "lo" accept # handle 4',
      '\t}',
      '}',
      'table ip kube-proxy { # handle 2',
      '\tset affinity-X {',
      '\t\ttype ipv4_addr',
      '\t\tsize 65535',
      '\t\tflags dynamic,timeout',
      '\t\ttimeout 3h',
      '\t\telements = { 10.0.0.2 timeout 3h expires 2h59m58s }',
      '\t}',
      '\tchain c { # handle 3',
      '\t\tip saddr @affinity-X goto d # handle 9',
      '\t}',
      '\tchain d { # handle 5',
      '\t}',
      '}',
    ].join('\n');
    const table = value(parseListRuleset(text));
    expect(table.chains.get('c')?.rules).toEqual([{ rule: 'ip saddr @affinity-X goto d', handle: 9 }]);
    expect(table.nextHandle).toBe(10);
    const set = table.sets.get('affinity-X');
    expect(set?.spec).toEqual({ name: 'affinity-X', type: 'ipv4_addr', flags: ['dynamic', 'timeout'], timeout: '10800s' });
    expect([...(set?.elements.keys() ?? [])]).toEqual(['10.0.0.2']);
  });

  test('a table in both families needs the family option', () => {
    const text = 'table ip kube-proxy {\n}\ntable ip6 kube-proxy {\n}\n';
    const r = parseListRuleset(text);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/both ip and ip6/);
    expect(value(parseListRuleset(text, { family: 'ip6' })).family).toBe('ip6');
  });

  test('refusals name the line', () => {
    const cases: [string, number, RegExp][] = [
      ['table ip other {\n}\n', 2, /no table kube-proxy/],
      ['table ip kube-proxy {\n\tchain c {\n\t\ttype filter hook input priority foo; policy accept;\n\t}\n}', 3, /unknown priority foo/],
      ['table ip kube-proxy {\n\tchain c {\n\t\ttype filter hook input priority 0; policy drop;\n\t}\n}', 3, /unsupported chain policy drop/],
      ['table ip kube-proxy {\n\tflowtable f {\n\t}\n}', 2, /unsupported object flowtable/],
      ['table ip kube-proxy {\n\tchain c {\n', 2, /missing } of chain c/],
      ['chain c {\n}', 1, /expected "table <family> <name> \{"/],
    ];
    for (const [text, line, message] of cases) {
      const r = parseListRuleset(text);
      expect(r.ok).toBe(false);
      if (r.ok) continue;
      expect(r.error.line).toBe(line);
      expect(r.error.message).toMatch(message);
    }
  });
});

describe('the normal forms', () => {
  test("priorities as knftables' ParsePriority numbers them", () => {
    expect(numericPriority('dstnat - 10')).toBe('-110');
    expect(numericPriority('dstnat+10')).toBe('-90');
    expect(numericPriority('srcnat')).toBe('100');
    expect(numericPriority('-110')).toBe('-110');
    expect(numericPriority('filter')).toBe('0');
    expect(numericPriority('bogus')).toBeUndefined();
  });
  test('durations in seconds', () => {
    expect(durationSeconds('3h')).toBe('10800s');
    expect(durationSeconds('1d2h3m4s')).toBe('93784s');
    expect(durationSeconds('10800s')).toBe('10800s');
    expect(durationSeconds('3x')).toBeUndefined();
  });
});

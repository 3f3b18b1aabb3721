import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import type { NftObject, NftOperation } from '../model/types.js';
import { parseTransaction } from './parse-transaction.js';

const fixture = (name: string): string => readFileSync(new URL(`./fixtures/${name}`, import.meta.url), 'utf8');

function value<T>(r: { ok: true; value: T } | { ok: false; error: unknown }): T {
  if (!r.ok) throw new Error(`expected ok, got ${JSON.stringify(r.error)}`);
  return r.value;
}

const objects = (ops: readonly NftOperation[]): NftObject[] => ops.map((op) => op.object);

describe('parseTransaction reads knftables transaction lines', () => {
  test('the objects of a line, as knftables writes them (objects.go writeOperation)', () => {
    const tx = value(
      parseTransaction(
        [
          'add table ip kube-proxy { comment "rules for kube-proxy" ; }',
          'add chain ip kube-proxy filter-input { type filter hook input priority -110 ; }',
          'add chain ip kube-proxy reject-chain { comment "helper for @no-endpoint-services / @no-endpoint-nodeports" ; }',
          'add chain ip kube-proxy services',
          'add map ip kube-proxy service-ips { type ipv4_addr . inet_proto . inet_service : verdict ; comment "ClusterIP, ExternalIP and LoadBalancer IP traffic" ; }',
          'add set ip kube-proxy affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80 { type ipv4_addr ; flags dynamic,timeout ; timeout 10800s ; }',
          'add rule ip kube-proxy services ip daddr . meta l4proto . th dport vmap @service-ips',
          'add rule ip kube-proxy external-42NFTM6N-ns2/svc2/tcp/p80 ip saddr 10.0.0.0/8 goto service-42NFTM6N-ns2/svc2/tcp/p80 comment "short-circuit pod traffic"',
          'add element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 : goto service-ULMVA6XW-ns1/svc1/tcp/p80 }',
          'add element ip kube-proxy no-endpoint-services { 1.2.3.4 . tcp . 80 comment "ns2/svc2:p80" : drop }',
          'add element ip kube-proxy cluster-ips { 172.30.0.41 }',
        ].join('\n'),
      ),
    );
    expect(tx.family).toBe('ip');
    expect(tx.table).toBe('kube-proxy');
    expect(tx.operations.every((op) => op.verb === 'add')).toBe(true);
    expect(objects(tx.operations)).toEqual([
      { kind: 'table', table: { comment: 'rules for kube-proxy' } },
      { kind: 'chain', chain: { name: 'filter-input', type: 'filter', hook: 'input', priority: '-110' } },
      { kind: 'chain', chain: { name: 'reject-chain', comment: 'helper for @no-endpoint-services / @no-endpoint-nodeports' } },
      { kind: 'chain', chain: { name: 'services' } },
      {
        kind: 'map',
        set: { name: 'service-ips', type: 'ipv4_addr . inet_proto . inet_service : verdict', comment: 'ClusterIP, ExternalIP and LoadBalancer IP traffic' },
      },
      {
        kind: 'set',
        set: { name: 'affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80', type: 'ipv4_addr', flags: ['dynamic', 'timeout'], timeout: '10800s' },
      },
      { kind: 'rule', rule: { chain: 'services', rule: 'ip daddr . meta l4proto . th dport vmap @service-ips' } },
      {
        kind: 'rule',
        rule: {
          chain: 'external-42NFTM6N-ns2/svc2/tcp/p80',
          rule: 'ip saddr 10.0.0.0/8 goto service-42NFTM6N-ns2/svc2/tcp/p80',
          comment: 'short-circuit pod traffic',
        },
      },
      {
        kind: 'element',
        of: 'map',
        element: { set: 'service-ips', key: ['172.30.0.41', 'tcp', '80'], value: ['goto service-ULMVA6XW-ns1/svc1/tcp/p80'] },
      },
      { kind: 'element', of: 'map', element: { set: 'no-endpoint-services', key: ['1.2.3.4', 'tcp', '80'], value: ['drop'], comment: 'ns2/svc2:p80' } },
      { kind: 'element', of: 'set', element: { set: 'cluster-ips', key: ['172.30.0.41'] } },
    ]);
  });

  test('the other verbs: flush, delete, insert and replace by handle, add at an index (knftables TestFakeAddInsertReplace forms)', () => {
    const tx = value(
      parseTransaction(
        [
          'flush chain ip kube-proxy services',
          'flush map ip kube-proxy service-ips',
          'delete chain ip kube-proxy service-ULMVA6XW-ns1/svc1/tcp/p80',
          'delete set ip kube-proxy affinity-X',
          'delete element ip kube-proxy service-ips { 172.30.0.41 . tcp . 80 }',
          'delete rule ip kube-proxy chain handle 5',
          'insert rule ip kube-proxy test index 5 eighth',
          'add rule ip kube-proxy test handle 3 fifth',
          'replace rule ip kube-proxy test handle 4 ninth',
          'create table ip kube-proxy',
          'delete table ip kube-proxy',
        ].join('\n'),
      ),
    );
    expect(tx.operations.map((op) => op.verb)).toEqual(['flush', 'flush', 'delete', 'delete', 'delete', 'delete', 'insert', 'add', 'replace', 'create', 'delete']);
    expect(objects(tx.operations)).toEqual([
      { kind: 'chain', chain: { name: 'services' } },
      { kind: 'map', set: { name: 'service-ips' } },
      { kind: 'chain', chain: { name: 'service-ULMVA6XW-ns1/svc1/tcp/p80' } },
      { kind: 'set', set: { name: 'affinity-X' } },
      // Declared as a map earlier in the same transaction (the flush).
      { kind: 'element', of: 'map', element: { set: 'service-ips', key: ['172.30.0.41', 'tcp', '80'] } },
      { kind: 'rule', rule: { chain: 'chain', rule: '', handle: 5 } },
      { kind: 'rule', rule: { chain: 'test', rule: 'eighth', index: 5 } },
      { kind: 'rule', rule: { chain: 'test', rule: 'fifth', handle: 3 } },
      { kind: 'rule', rule: { chain: 'test', rule: 'ninth', handle: 4 } },
      { kind: 'table', table: {} },
      { kind: 'table', table: {} },
    ]);
  });

  test('blank and # lines are skipped, lines are trimmed (upstream writes its expectations indented)', () => {
    const tx = value(parseTransaction('\n\t\t# svc1\n\t\tadd chain ip6 kube-proxy services\n   \n'));
    expect(tx.family).toBe('ip6');
    expect(objects(tx.operations)).toEqual([{ kind: 'chain', chain: { name: 'services' } }]);
  });

  test('an empty text is an empty transaction on the options\' table', () => {
    expect(value(parseTransaction(''))).toEqual({ family: 'ip', table: 'kube-proxy', operations: [] });
    expect(value(parseTransaction('# nothing', { family: 'ip6', table: 't' }))).toEqual({ family: 'ip6', table: 't', operations: [] });
  });

  test("upstream's TestTracePacketV4 and V6 rulesets read whole: one operation per add line", () => {
    // 105 and 64 `add` lines (grep -c '^add').
    for (const [name, family, count] of [
      ['trace-packet.v4.nft', 'ip', 105],
      ['trace-packet.v6.nft', 'ip6', 64],
    ] as const) {
      const tx = value(parseTransaction(fixture(name)));
      expect(tx.family).toBe(family);
      expect(tx.operations).toHaveLength(count);
    }
  });

  test('a comment keeps its escaped quotes', () => {
    const tx = value(parseTransaction('add rule ip kube-proxy c drop comment "say \\"hi\\""'));
    expect(objects(tx.operations)).toEqual([{ kind: 'rule', rule: { chain: 'c', rule: 'drop', comment: 'say "hi"' } }]);
  });
});

describe('parseTransaction refuses what it cannot read, naming the line', () => {
  const refusals: [string, string, number, RegExp][] = [
    ['an unknown verb', 'add table ip kube-proxy\nfrobnicate chain ip kube-proxy x', 2, /unknown verb "frobnicate"/],
    ['an object kube-proxy does not write', 'add flowtable ip kube-proxy ft', 1, /unsupported object "flowtable"/],
    ['another family', 'add table ip kube-proxy\n\nadd chain ip6 kube-proxy x', 3, /family ip6, but the transaction is on family ip/],
    ['another table', 'add chain ip kube-proxy x\nadd chain ip other y', 2, /table other/],
    ['inet', 'add table inet kube-proxy', 1, /unsupported family "inet"/],
    ['a short line', 'add chain ip', 1, /expected "<verb> <kind>/],
    ['insert on a chain', 'insert chain ip kube-proxy x', 1, /insert is not implemented for chains/],
    ['a rule without text', 'add rule ip kube-proxy services', 1, /no rule specified/],
    ['replace without a handle', 'replace rule ip kube-proxy c drop', 1, /must specify handle with replace/],
    ['a quote inside a rule', 'add rule ip kube-proxy c fib oif != "lo" drop', 1, /failed parsing rule/],
    ['a map element without a value', 'add map ip kube-proxy m { type inet_proto . inet_service : verdict ; }\nadd element ip kube-proxy m { tcp . 80 }', 2, /no map value/],
    ['a set with a value type', 'add set ip kube-proxy s { type ipv4_addr : verdict ; }', 1, /a set has no value type/],
    ['a set with no type', 'add set ip kube-proxy s { comment "x" ; }', 1, /needs a type or a typeof/],
    ['an unterminated comment', 'add table ip kube-proxy { comment "x ; }', 1, /unterminated string/],
    ['a chain policy other than accept', 'add chain ip kube-proxy c { type filter hook input priority 0 ; policy drop ; }', 1, /unsupported chain policy drop/],
    ['a body that does not close', 'add chain ip kube-proxy c { type filter hook input priority 0 ;', 1, /missing }/],
  ];
  for (const [what, text, line, message] of refusals) {
    test(what, () => {
      const r = parseTransaction(text);
      expect(r.ok).toBe(false);
      if (r.ok) return;
      expect(r.error._tag).toBe('ErrNftParse');
      expect(r.error.line).toBe(line);
      expect(r.error.message).toMatch(message);
      expect(r.error.message.startsWith(`line ${line}: `)).toBe(true);
    });
  }
});

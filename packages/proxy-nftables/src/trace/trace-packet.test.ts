// The tracer's semantics on TestOverallNFTablesRules' v1.33 ruleset (fixtures/overall-rules.v4)
// and on small hand-written tables: the hooks a packet takes and the base chains' order by
// priority, conntrack, affinity, numgen's probabilities, and the errors.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { reduceRational, type Packet, type Rational } from '@kubesvc/proxy';
import { applyTransaction } from '../model/apply.js';
import type { NftTable } from '../model/types.js';
import { parseTransaction } from '../read/parse-transaction.js';
import { tracePacket } from './trace-packet.js';
import { traceSteps, type Trace, type TraceOptions } from './trace-types.js';
import { TEST_NODE_IP, TEST_NODE_IPS } from './upstream.fixtures.js';

const fixture = (name: string): string => readFileSync(new URL(`../read/fixtures/${name}`, import.meta.url), 'utf8');

function tableOf(text: string): NftTable {
  const tx = parseTransaction(text);
  if (!tx.ok) throw new Error(tx.error.message);
  const t = applyTransaction(undefined, tx.value);
  if (!t.ok) throw new Error(t.error.message);
  if (t.value === undefined) throw new Error('no table');
  return t.value;
}

const overall = tableOf(fixture('overall-rules.v4.nft'));
const options: TraceOptions = { localAddresses: TEST_NODE_IPS };

function trace(table: NftTable | string, packet: Packet, opts: TraceOptions = options): Trace {
  const r = tracePacket(table, packet, opts);
  if (!r.ok) throw new Error(r.error.message);
  return r.value;
}

const tcp = (source: string, destination: string, port: number, entry: Packet['entry']): Packet => ({ source, destination, protocol: 'tcp', destinationPort: port, entry });

/** The hooks an outcome's run took, as `hook:chain`. */
function hooks(t: Trace, i = 0): string[] {
  const o = t.outcomes[i];
  if (o === undefined) return [];
  return traceSteps(o).flatMap((s) => (s.kind === 'hook' ? [`${s.hook}:${s.chain}`] : []));
}

describe('the hooks of a packet, base chains by priority', () => {
  test('from a pod to a ClusterIP: prerouting (filter -110, nat -100), forward, postrouting', () => {
    const t = trace(overall, tcp('10.0.0.2', '172.30.0.41', 80, 'pod'));
    expect(hooks(t)).toEqual(['prerouting:filter-prerouting', 'prerouting:nat-prerouting', 'forward:filter-forward', 'postrouting:nat-postrouting']);
    expect(t.outcomes.map((o) => [o.kind, o.dnat, o.delivery])).toEqual([['dnat', '10.180.0.1:80', 'forward']]);
  });

  test('from the host to a ClusterIP: output (filter -110, nat -100, filter-output-post-dnat -90), postrouting', () => {
    const t = trace(overall, tcp(TEST_NODE_IP, '172.30.0.41', 80, 'host'));
    expect(hooks(t)).toEqual(['output:filter-output', 'output:nat-output', 'output:filter-output-post-dnat', 'postrouting:nat-postrouting']);
    // Masqueraded: the host is not in the pod CIDR (ip saddr != 10.0.0.0/8 jump mark-for-masquerade).
    expect(t.outcomes.map((o) => [o.kind, o.dnat, o.masqueraded])).toEqual([['dnat', '10.180.0.1:80', true]]);
  });

  test('from the host to an unallocated ClusterIP: dropped by filter-output-post-dnat, after nat-output found no service', () => {
    const t = trace(overall, tcp(TEST_NODE_IP, '172.30.0.50', 80, 'host'));
    expect(t.outcomes.map((o) => o.kind)).toEqual(['drop']);
    const o = t.outcomes[0];
    expect(o?.matched.map((m) => `${m.chain}#${m.index}`)).toEqual([
      'filter-output#0',
      'filter-output#1',
      'nat-output#0',
      'filter-output-post-dnat#0',
      'cluster-ips-check#1',
    ]);
  });

  test('to a node address: input; a health-check-like port nobody serves is no-match', () => {
    const t = trace(overall, tcp('203.0.113.2', TEST_NODE_IP, 10256, 'outside'));
    expect(hooks(t)).toEqual(['prerouting:filter-prerouting', 'prerouting:nat-prerouting', 'input:filter-input']);
    expect(t.outcomes.map((o) => [o.kind, o.delivery])).toEqual([['no-match', 'local']]);
  });

  test('a ping to a ClusterIP is rejected by cluster-ips-check (no service port matches ICMP)', () => {
    const t = trace(overall, { source: '10.0.0.2', destination: '172.30.0.41', protocol: 'icmp', entry: 'pod' });
    expect(t.outcomes.map((o) => o.kind)).toEqual(['reject']);
    expect(t.outcomes[0]?.matched.at(-1)?.text).toBe('ip daddr @cluster-ips reject');
  });

  test('an established connection: the nat chains are not consulted, and ct state new does not match', () => {
    const t = trace(overall, tcp('10.0.0.2', '172.30.0.41', 80, 'pod'), { ...options, conntrack: 'ESTABLISHED' });
    expect(t.outcomes.map((o) => [o.kind, o.dnat])).toEqual([['no-match', undefined]]);
    const o = t.outcomes[0];
    expect(o === undefined ? [] : traceSteps(o).filter((s) => s.kind === 'skip')).toHaveLength(2);
    expect(o?.matched).toEqual([]);
  });
});

describe('session affinity (svc5: ClientIP, 10800 s)', () => {
  const AFFINITY = 'affinity-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80';
  const packet = tcp('10.0.0.2', '172.30.0.45', 80, 'pod');

  test('a new client takes the numgen branch, and the endpoint chain records it', () => {
    const t = trace(overall, packet, { ...options, now: 5000 });
    expect(t.outcomes).toHaveLength(1);
    const o = t.outcomes[0];
    expect(o?.dnat).toBe('10.180.0.3:80');
    expect(o?.affinityUpdates).toEqual([{ name: AFFINITY, source: '10.0.0.2', lastSeen: 5000 }]);
    expect(o === undefined ? [] : traceSteps(o).filter((s) => s.kind === 'branch')).toHaveLength(1);
  });

  test('a client in the affinity set goes straight to its endpoint, until the timeout', () => {
    const recent = [{ name: AFFINITY, source: '10.0.0.2', lastSeen: 1000 }];
    const within = trace(overall, packet, { ...options, recent, now: 1000 + 10800 * 1000 - 1 });
    const o = within.outcomes[0];
    expect(o?.matched.map((m) => m.text)).toContain(`ip saddr @${AFFINITY} goto endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80`);
    expect(o === undefined ? [] : traceSteps(o).filter((s) => s.kind === 'branch')).toHaveLength(0);
    const expired = trace(overall, packet, { ...options, recent, now: 1000 + 10800 * 1000 });
    const e = expired.outcomes[0];
    expect(e?.matched.map((m) => m.text)).not.toContain(`ip saddr @${AFFINITY} goto endpoint-GTK6MW7G-ns5/svc5/tcp/p80__10.180.0.3/80`);
    expect(e === undefined ? [] : traceSteps(e).filter((s) => s.kind === 'branch')).toHaveLength(1);
  });
});

const SMALL = (rules: string): string =>
  [
    'add table ip kube-proxy',
    'add chain ip kube-proxy nat-prerouting { type nat hook prerouting priority -100 ; }',
    'add chain ip kube-proxy filter-input { type filter hook input priority -110 ; }',
    'add chain ip kube-proxy svc',
    'add chain ip kube-proxy a',
    'add chain ip kube-proxy b',
    'add chain ip kube-proxy c',
    'add rule ip kube-proxy a meta l4proto tcp dnat to 10.1.0.1:80',
    'add rule ip kube-proxy b meta l4proto tcp dnat to 10.1.0.2:80',
    'add rule ip kube-proxy c meta l4proto tcp dnat to 10.1.0.3:80',
    rules,
  ].join('\n');

describe('numgen random mod N', () => {
  test('three branches: 1/3 each as written; as the kernel draws, the share of 2^32 reciprocal_scale maps to each', () => {
    const t = trace(
      tableOf(SMALL(['add rule ip kube-proxy nat-prerouting jump svc', 'add rule ip kube-proxy svc numgen random mod 3 vmap { 0 : goto a , 1 : goto b , 2 : goto c }'].join('\n'))),
      tcp('10.0.0.2', '172.30.0.1', 80, 'pod'),
    );
    expect(t.outcomes.map((o) => o.dnat)).toEqual(['10.1.0.1:80', '10.1.0.2:80', '10.1.0.3:80']);
    const third: Rational = reduceRational(1n, 3n);
    expect(t.outcomes.map((o) => o.probability.written)).toEqual([third, third, third]);
    // (v·3) >> 32 = k for v in [ceil(k·2^32/3), ceil((k+1)·2^32/3)): 1431655766, 1431655765, 1431655765 values.
    expect(t.outcomes.map((o) => o.probability.kernel)).toEqual([
      reduceRational(1431655766n, 1n << 32n),
      reduceRational(1431655765n, 1n << 32n),
      reduceRational(1431655765n, 1n << 32n),
    ]);
  });

  test('a value the map lacks ends the rule, and the next rule runs', () => {
    const t = trace(
      tableOf(SMALL(['add rule ip kube-proxy nat-prerouting numgen random mod 2 vmap { 0 : goto a }', 'add rule ip kube-proxy nat-prerouting goto b'].join('\n'))),
      tcp('10.0.0.2', '172.30.0.1', 80, 'pod'),
    );
    expect(t.outcomes.map((o) => [o.dnat, o.probability.written])).toEqual([
      ['10.1.0.1:80', reduceRational(1n, 2n)],
      ['10.1.0.2:80', reduceRational(1n, 2n)],
    ]);
  });
});

describe('verdicts', () => {
  test('accept in a filter chain is reported; the next base chain still runs', () => {
    const table = tableOf(
      [
        'add table ip kube-proxy',
        'add chain ip kube-proxy filter-input { type filter hook input priority -110 ; }',
        'add chain ip kube-proxy later { type filter hook input priority 0 ; }',
        'add rule ip kube-proxy filter-input tcp dport 10256 accept',
        'add rule ip kube-proxy later tcp dport 10256 drop',
      ].join('\n'),
    );
    const t = trace(table, tcp('203.0.113.2', TEST_NODE_IP, 10256, 'outside'));
    expect(t.outcomes.map((o) => o.kind)).toEqual(['drop']);
    const onlyFirst = tableOf(
      ['add table ip kube-proxy', 'add chain ip kube-proxy filter-input { type filter hook input priority -110 ; }', 'add rule ip kube-proxy filter-input tcp dport 10256 accept'].join('\n'),
    );
    expect(trace(onlyFirst, tcp('203.0.113.2', TEST_NODE_IP, 10256, 'outside')).outcomes.map((o) => o.kind)).toEqual(['accept']);
  });

  test('goto returns to the chain that jumped to the chain that did the goto', () => {
    const table = tableOf(
      [
        'add table ip kube-proxy',
        'add chain ip kube-proxy filter-input { type filter hook input priority 0 ; }',
        'add chain ip kube-proxy x',
        'add chain ip kube-proxy y',
        'add rule ip kube-proxy filter-input jump x',
        'add rule ip kube-proxy filter-input drop',
        'add rule ip kube-proxy x goto y',
        'add rule ip kube-proxy x accept',
      ].join('\n'),
    );
    const t = trace(table, tcp('203.0.113.2', TEST_NODE_IP, 80, 'outside'));
    expect(t.outcomes.map((o) => [o.kind, o.chains])).toEqual([['drop', ['x', 'y']]]);
  });
});

describe('inputs and rules the tracer refuses', () => {
  const bad = (rules: string): NftTable => tableOf(['add table ip kube-proxy', 'add chain ip kube-proxy filter-input { type filter hook input priority 0 ; }', 'add chain ip kube-proxy loop', rules].join('\n'));
  const packet = tcp('203.0.113.2', TEST_NODE_IP, 80, 'outside');

  test('a rule it cannot evaluate, naming the chain and the rule', () => {
    const r = tracePacket(bad('add rule ip kube-proxy filter-input meta skuid 0 drop'), packet, options);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/^chain filter-input rule 0: cannot evaluate "meta skuid 0 drop"/);
  });

  test('a loop of jumps', () => {
    const r = tracePacket(bad('add rule ip kube-proxy filter-input jump loop\nadd rule ip kube-proxy loop jump loop'), packet, options);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/deeper than 64/);
  });

  test('dnat outside a nat chain', () => {
    const r = tracePacket(bad('add rule ip kube-proxy filter-input dnat to 10.0.0.1:80'), packet, options);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.message).toMatch(/dnat is only valid in a nat chain/);
  });

  test('input of the wrong shape names the field', () => {
    const cases: [unknown, unknown, unknown, string][] = [
      [42, packet, options, 'table'],
      [{ family: 'inet', chains: new Map(), sets: new Map() }, packet, options, 'table.family'],
      [overall, { ...packet, protocol: 'gre' }, options, 'packet.protocol'],
      [overall, { ...packet, source: 'fd00::1' }, options, 'packet.source'],
      [overall, packet, { localAddresses: ['nope'] }, 'options.localAddresses[0]'],
    ];
    for (const [table, p, o, field] of cases) {
      const r = tracePacket(table as NftTable, p as Packet, o as TraceOptions);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.field).toBe(field);
    }
  });

  test('a listing text is read first; its errors carry the line', () => {
    const listing = fixture('overall-rules.v4.list');
    const t = trace(listing, tcp('10.0.0.2', '172.30.0.41', 80, 'pod'));
    expect(t.outcomes.map((o) => o.dnat)).toEqual(['10.180.0.1:80']);
    const r = tracePacket('table ip kube-proxy {\n\tchain c {\n', tcp('10.0.0.2', '172.30.0.41', 80, 'pod'), options);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.line).toBe(2);
  });

  test('a transaction text is read and applied to an empty table; its errors carry the line', () => {
    const t = trace(fixture('overall-rules.v4.nft'), tcp('10.0.0.2', '172.30.0.41', 80, 'pod'));
    expect(t.outcomes.map((o) => o.dnat)).toEqual(['10.180.0.1:80']);
    const r = tracePacket('add table ip kube-proxy\nadd bogus ip kube-proxy x', tcp('10.0.0.2', '172.30.0.41', 80, 'pod'), options);
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.error.line).toBe(2);
    const missing = tracePacket('add table ip kube-proxy\nadd rule ip kube-proxy nochain drop', tcp('10.0.0.2', '172.30.0.41', 80, 'pod'), options);
    expect(missing.ok).toBe(false);
  });

  test('onOutcome takes the outcomes as they are found', () => {
    const seen: string[] = [];
    const r = tracePacket(overall, tcp('10.0.0.2', '172.30.0.44', 80, 'pod'), { ...options, onOutcome: (o) => seen.push(o.dnat ?? '') });
    expect(r.ok && r.value.outcomes.length).toBe(0);
    expect(r.ok && r.value.outcomeCount).toBe(2);
    expect(seen).toEqual(['10.180.0.4:80', '10.180.0.5:80']);
  });
});

// The built-in chains' rules the tracer assumes. The expected lists are written by hand from
// upstream's iptablesJumpChains and iptablesKubeletJumpChains (in that order) and from
// syncProxyRules, which ensures each with EnsureRule(Prepend, ...) after the jump's extra
// arguments (`-m conntrack --ctstate NEW`) and before `-m comment` (left out when the comment
// is empty): a later entry of the list lands above an earlier one in the same chain.
// upstream: pkg/proxy/iptables/proxier.go (v1.26).
import { describe, expect, it } from 'vitest';
import type { Match, Rule, Ruleset, Table } from '../ruleset.js';
import { BUILTIN_CHAINS, builtinRules } from './builtin-jumps.js';

const NEW: Match = { kind: 'conntrack', states: ['NEW'], negated: false };

function jump(from: string, to: string, comment: string, ctstateNew: boolean): Rule {
  const matches: Match[] = [];
  if (ctstateNew) matches.push(NEW);
  if (comment !== '') matches.push({ kind: 'comment', text: comment });
  return { chain: from, matches, target: { kind: 'jump', chain: to } };
}

function table(name: 'filter' | 'nat', chains: readonly string[], rules: readonly Rule[] = []): Table {
  return { name, chains, rules, deletedChains: [] };
}

function ruleset(filter: Table, nat: Table): Ruleset {
  return { family: 4, tables: [filter, nat] };
}

/** The map as an ordered list of [chain, rules], so the chains' order is checked too. */
function entries(map: ReadonlyMap<string, readonly Rule[]>): [string, readonly Rule[]][] {
  return [...map.entries()];
}

const FILTER_CHAINS = ['KUBE-SERVICES', 'KUBE-EXTERNAL-SERVICES', 'KUBE-FORWARD', 'KUBE-NODEPORTS', 'KUBE-PROXY-FIREWALL'];
const NAT_CHAINS = ['KUBE-SERVICES', 'KUBE-NODEPORTS', 'KUBE-POSTROUTING', 'KUBE-MARK-MASQ'];

const EXT = 'kubernetes externally-visible service portals';
const HEALTH = 'kubernetes health check service ports';
const PORTALS = 'kubernetes service portals';
const FORWARDING = 'kubernetes forwarding rules';
const LB_FIREWALL = 'kubernetes load balancer firewall';
const POSTROUTING = 'kubernetes postrouting rules';

describe('BUILTIN_CHAINS', () => {
  it("lists each table's built-in chains in netfilter's hook order", () => {
    expect(BUILTIN_CHAINS).toEqual({ filter: ['INPUT', 'FORWARD', 'OUTPUT'], nat: ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING'] });
  });
});

describe('builtinRules: kube-proxy jumps', () => {
  it('filter, every kube-proxy chain declared, no KUBE-FIREWALL (IPv6, or localhost NodePorts off)', () => {
    const rs = ruleset(table('filter', FILTER_CHAINS), table('nat', NAT_CHAINS));
    expect(entries(builtinRules(rs, 'filter'))).toEqual([
      ['INPUT', [jump('INPUT', 'KUBE-PROXY-FIREWALL', LB_FIREWALL, true), jump('INPUT', 'KUBE-NODEPORTS', HEALTH, false), jump('INPUT', 'KUBE-EXTERNAL-SERVICES', EXT, true)]],
      [
        'FORWARD',
        [
          jump('FORWARD', 'KUBE-PROXY-FIREWALL', LB_FIREWALL, true),
          jump('FORWARD', 'KUBE-FORWARD', FORWARDING, false),
          jump('FORWARD', 'KUBE-SERVICES', PORTALS, true),
          jump('FORWARD', 'KUBE-EXTERNAL-SERVICES', EXT, true),
        ],
      ],
      ['OUTPUT', [jump('OUTPUT', 'KUBE-PROXY-FIREWALL', LB_FIREWALL, true), jump('OUTPUT', 'KUBE-SERVICES', PORTALS, true)]],
    ]);
  });

  it("filter with KUBE-FIREWALL declared: kubelet's comment-less jumps come first in INPUT and OUTPUT, none in FORWARD", () => {
    const rs = ruleset(table('filter', [...FILTER_CHAINS, 'KUBE-FIREWALL']), table('nat', NAT_CHAINS));
    expect(entries(builtinRules(rs, 'filter'))).toEqual([
      [
        'INPUT',
        [
          { chain: 'INPUT', matches: [], target: { kind: 'jump', chain: 'KUBE-FIREWALL' } },
          jump('INPUT', 'KUBE-PROXY-FIREWALL', LB_FIREWALL, true),
          jump('INPUT', 'KUBE-NODEPORTS', HEALTH, false),
          jump('INPUT', 'KUBE-EXTERNAL-SERVICES', EXT, true),
        ],
      ],
      [
        'FORWARD',
        [
          jump('FORWARD', 'KUBE-PROXY-FIREWALL', LB_FIREWALL, true),
          jump('FORWARD', 'KUBE-FORWARD', FORWARDING, false),
          jump('FORWARD', 'KUBE-SERVICES', PORTALS, true),
          jump('FORWARD', 'KUBE-EXTERNAL-SERVICES', EXT, true),
        ],
      ],
      [
        'OUTPUT',
        [
          { chain: 'OUTPUT', matches: [], target: { kind: 'jump', chain: 'KUBE-FIREWALL' } },
          jump('OUTPUT', 'KUBE-PROXY-FIREWALL', LB_FIREWALL, true),
          jump('OUTPUT', 'KUBE-SERVICES', PORTALS, true),
        ],
      ],
    ]);
  });

  it('nat: KUBE-SERVICES from OUTPUT and PREROUTING, KUBE-POSTROUTING from POSTROUTING, no ctstate match, INPUT empty', () => {
    const rs = ruleset(table('filter', FILTER_CHAINS), table('nat', NAT_CHAINS));
    expect(entries(builtinRules(rs, 'nat'))).toEqual([
      ['PREROUTING', [jump('PREROUTING', 'KUBE-SERVICES', PORTALS, false)]],
      ['INPUT', []],
      ['OUTPUT', [jump('OUTPUT', 'KUBE-SERVICES', PORTALS, false)]],
      ['POSTROUTING', [jump('POSTROUTING', 'KUBE-POSTROUTING', POSTROUTING, false)]],
    ]);
  });

  it("nat ignores filter's KUBE-FIREWALL and the filter-only chains even when nat declares them", () => {
    const rs = ruleset(
      table('filter', [...FILTER_CHAINS, 'KUBE-FIREWALL']),
      table('nat', ['KUBE-FIREWALL', 'KUBE-FORWARD', 'KUBE-EXTERNAL-SERVICES', 'KUBE-PROXY-FIREWALL', 'KUBE-POSTROUTING']),
    );
    expect(entries(builtinRules(rs, 'nat'))).toEqual([
      ['PREROUTING', []],
      ['INPUT', []],
      ['OUTPUT', []],
      ['POSTROUTING', [jump('POSTROUTING', 'KUBE-POSTROUTING', POSTROUTING, false)]],
    ]);
  });

  it('only the jumps to chains the table declares: filter with KUBE-SERVICES and KUBE-NODEPORTS, nat with neither of its own', () => {
    // KUBE-SERVICES is declared in filter only: nat's jumps to it must not appear in filter, nor
    // filter's in nat; KUBE-NODEPORTS in nat has no jump from a built-in chain.
    const rs = ruleset(table('filter', ['KUBE-NODEPORTS', 'KUBE-SERVICES']), table('nat', ['KUBE-NODEPORTS', 'KUBE-MARK-MASQ']));
    expect(entries(builtinRules(rs, 'filter'))).toEqual([
      ['INPUT', [jump('INPUT', 'KUBE-NODEPORTS', HEALTH, false)]],
      ['FORWARD', [jump('FORWARD', 'KUBE-SERVICES', PORTALS, true)]],
      ['OUTPUT', [jump('OUTPUT', 'KUBE-SERVICES', PORTALS, true)]],
    ]);
    expect(entries(builtinRules(rs, 'nat'))).toEqual([
      ['PREROUTING', []],
      ['INPUT', []],
      ['OUTPUT', []],
      ['POSTROUTING', []],
    ]);
  });

  it('nat with only KUBE-SERVICES declared: the two portal jumps, POSTROUTING empty', () => {
    const rs = ruleset(table('filter', []), table('nat', ['KUBE-SERVICES']));
    expect(entries(builtinRules(rs, 'nat'))).toEqual([
      ['PREROUTING', [jump('PREROUTING', 'KUBE-SERVICES', PORTALS, false)]],
      ['INPUT', []],
      ['OUTPUT', [jump('OUTPUT', 'KUBE-SERVICES', PORTALS, false)]],
      ['POSTROUTING', []],
    ]);
    expect(entries(builtinRules(rs, 'filter'))).toEqual([
      ['INPUT', []],
      ['FORWARD', []],
      ['OUTPUT', []],
    ]);
  });

  it('rules in user chains only do not count as the built-in chains being carried', () => {
    const rs = ruleset(
      table('filter', ['KUBE-FORWARD'], [{ chain: 'KUBE-FORWARD', matches: [], target: { kind: 'accept' } }]),
      table('nat', ['KUBE-POSTROUTING'], [{ chain: 'KUBE-POSTROUTING', matches: [], target: { kind: 'return' } }]),
    );
    expect(entries(builtinRules(rs, 'filter'))).toEqual([
      ['INPUT', []],
      ['FORWARD', [jump('FORWARD', 'KUBE-FORWARD', FORWARDING, false)]],
      ['OUTPUT', []],
    ]);
    expect(entries(builtinRules(rs, 'nat'))).toEqual([
      ['PREROUTING', []],
      ['INPUT', []],
      ['OUTPUT', []],
      ['POSTROUTING', [jump('POSTROUTING', 'KUBE-POSTROUTING', POSTROUTING, false)]],
    ]);
  });
});

describe("builtinRules: a ruleset's own built-in-chain rules", () => {
  it('are returned as they are, grouped per chain in their order, the other built-in chains empty, with no kube-proxy jump added', () => {
    const custom1: Rule = { chain: 'OUTPUT', matches: [{ kind: 'comment', text: 'mine' }], target: { kind: 'jump', chain: 'KUBE-SERVICES' } };
    const custom2: Rule = { chain: 'PREROUTING', matches: [], target: { kind: 'jump', chain: 'KUBE-SERVICES' } };
    const user: Rule = { chain: 'KUBE-SERVICES', matches: [], target: { kind: 'return' } };
    const custom3: Rule = { chain: 'OUTPUT', matches: [], target: { kind: 'accept' } };
    const rs = ruleset(table('filter', FILTER_CHAINS), table('nat', NAT_CHAINS, [custom1, user, custom2, custom3]));
    const nat = builtinRules(rs, 'nat');
    expect(entries(nat)).toEqual([
      ['PREROUTING', [custom2]],
      ['INPUT', []],
      ['OUTPUT', [custom1, custom3]],
      ['POSTROUTING', []],
    ]);
    // The same objects, not copies.
    expect(nat.get('OUTPUT')?.[0]).toBe(custom1);
    // The other table still gets kube-proxy's jumps.
    expect(builtinRules(rs, 'filter').get('OUTPUT')).toEqual([jump('OUTPUT', 'KUBE-PROXY-FIREWALL', LB_FIREWALL, true), jump('OUTPUT', 'KUBE-SERVICES', PORTALS, true)]);
  });

  it("filter's own INPUT rule stands alone even with KUBE-FIREWALL declared", () => {
    const own: Rule = { chain: 'INPUT', matches: [{ kind: 'conntrack', states: ['ESTABLISHED'], negated: true }], target: { kind: 'drop' } };
    const rs = ruleset(table('filter', [...FILTER_CHAINS, 'KUBE-FIREWALL'], [own]), table('nat', NAT_CHAINS));
    expect(entries(builtinRules(rs, 'filter'))).toEqual([
      ['INPUT', [own]],
      ['FORWARD', []],
      ['OUTPUT', []],
    ]);
  });
});

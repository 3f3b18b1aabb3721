// Reading an iptables-restore / iptables-save text into the tracer's Ruleset, one construct at a
// time: each match and target the Match/Target unions express, each one they cannot (refused
// with its line, never dropped), and the table commands (`:CHAIN`, -N, -A, -I, -F, -X).
// Facts: iptables(8) (-I's rulenum is 1-based and defaults to 1; -F without a chain flushes the
// whole table; -X without a chain deletes every user chain, and a chain must be empty to go),
// iptables-extensions(8) (recent: the list is DEFAULT without --name, --seconds goes with
// --rcheck/--update; MARK: --or-mark V is --set-xmark V/V, --xor-mark V is --set-xmark V/0;
// mark: a value without /mask compares all 32 bits; tcp/udp/sctp are loaded for -p of that
// protocol), iptables iptables/iptables-restore.c and its shell testcases (under --noflush, as
// kube-proxy restores, a `:CHAIN - [0:0]` line for a chain that exists flushes it),
// kubernetes pkg/proxy/iptables/proxier.go (the recent, nfacct, statistic and MARK lines).
import { describe, expect, it } from 'vitest';
import type { Match, Rule, Ruleset, Table, Target } from '../ruleset.js';
import { chainRules } from '../ruleset.js';
import { rulesetFromRestoreText } from './ruleset-from-text.js';
import type { ErrTrace } from './trace-types.js';

function parsed(text: string, family?: 4 | 6): Ruleset {
  const result = rulesetFromRestoreText(text, family);
  if (!result.ok) throw new Error(`refused: line ${result.error.line ?? '?'}: ${result.error.message}`);
  return result.value;
}

function refused(text: string, family?: 4 | 6): ErrTrace {
  const result = rulesetFromRestoreText(text, family);
  if (result.ok) throw new Error('read, not refused');
  return result.error;
}

/** The one rule of `-A C <words>`, chain C declared in that table. */
function rule(words: string, table: 'filter' | 'nat' = 'filter', family?: 4 | 6): Rule {
  const ruleset = parsed(`*${table}\n:C - [0:0]\n-A C ${words}\nCOMMIT\n`, family);
  const rules = ruleset.tables[table === 'filter' ? 0 : 1].rules;
  expect(rules).toHaveLength(1);
  return rules[0] as Rule;
}

const matchesOf = (words: string, table: 'filter' | 'nat' = 'filter', family?: 4 | 6): readonly Match[] => rule(words, table, family).matches;
const targetOf = (words: string, table: 'filter' | 'nat' = 'filter'): Target | undefined => rule(words, table).target;

/** The refusal of `-A C <words>` (line 3 of the text). */
function refusal(words: string, table: 'filter' | 'nat' = 'filter'): ErrTrace {
  return refused(`*${table}\n:C - [0:0]\n-A C ${words}\nCOMMIT\n`);
}

const at3 = (message: string): ErrTrace => ({ _tag: 'ErrTrace', message, line: 3 });

const sources = (table: Table, chain: string): (string | undefined)[] =>
  chainRules(table, chain).map((r) => r.matches.find((m) => m.kind === 'source')?.address);

describe('the rule header', () => {
  it('-s, -d and -p come first, in that order, whatever order they are written in (the kernel checks the header before any -m match)', () => {
    expect(rule('-m comment --comment "x y" -p tcp -d 10.96.0.1 ! -s 10.0.0.0/8 -j ACCEPT')).toStrictEqual({
      chain: 'C',
      matches: [
        { kind: 'source', address: '10.0.0.0/8', negated: true },
        { kind: 'destination', address: '10.96.0.1', negated: false },
        { kind: 'protocol', protocol: 'tcp' },
        { kind: 'comment', text: 'x y' },
      ],
      target: { kind: 'accept' },
    });
  });

  it('a rule without a target only counts: it has no target key at all', () => {
    expect(rule('-s 10.0.0.1')).toStrictEqual({ chain: 'C', matches: [{ kind: 'source', address: '10.0.0.1', negated: false }] });
  });

  it('-p takes udp and sctp by name, number or any case', () => {
    expect(matchesOf('-p udp')).toEqual([{ kind: 'protocol', protocol: 'udp' }]);
    expect(matchesOf('-p 17')).toEqual([{ kind: 'protocol', protocol: 'udp' }]);
    expect(matchesOf('-p SCTP')).toEqual([{ kind: 'protocol', protocol: 'sctp' }]);
    expect(matchesOf('-p 132')).toEqual([{ kind: 'protocol', protocol: 'sctp' }]);
    expect(matchesOf('-p 6')).toEqual([{ kind: 'protocol', protocol: 'tcp' }]);
  });

  it('refuses -p icmp, -p all and a negated -p: a Rule matches only tcp, udp or sctp', () => {
    expect(refusal('-p icmp -j ACCEPT')).toStrictEqual(at3('-p icmp cannot be traced'));
    expect(refusal('-p all -j ACCEPT')).toStrictEqual(at3('-p all cannot be traced'));
    expect(refusal('! -p tcp -j ACCEPT')).toStrictEqual(at3('-p ! tcp cannot be traced'));
  });

  it('refuses -i and -o', () => {
    expect(refusal('-i eth0 -j ACCEPT')).toStrictEqual(at3('-i/-o interface matches cannot be traced'));
    expect(refusal('-o eth0 -j ACCEPT')).toStrictEqual(at3('-i/-o interface matches cannot be traced'));
  });
});

describe('port matches', () => {
  it('-m tcp, -m udp and -m sctp --dport N are one dport match after the protocol', () => {
    expect(matchesOf('-p tcp -m tcp --dport 80')).toEqual([{ kind: 'protocol', protocol: 'tcp' }, { kind: 'dport', port: 80 }]);
    expect(matchesOf('-p udp -m udp --dport 53')).toEqual([{ kind: 'protocol', protocol: 'udp' }, { kind: 'dport', port: 53 }]);
    expect(matchesOf('-p sctp -m sctp --dport 7777')).toEqual([{ kind: 'protocol', protocol: 'sctp' }, { kind: 'dport', port: 7777 }]);
    // -p udp --dport loads -m udp itself, as iptables does for an option it does not know yet.
    expect(matchesOf('-p udp --dport 0')).toEqual([{ kind: 'protocol', protocol: 'udp' }, { kind: 'dport', port: 0 }]);
  });

  it('65535 is the highest port; 65536 is refused', () => {
    expect(matchesOf('-p tcp --dport 65535')).toEqual([{ kind: 'protocol', protocol: 'tcp' }, { kind: 'dport', port: 65535 }]);
    expect(refusal('-p tcp --dport 65536 -j ACCEPT')).toStrictEqual(at3('--dport 65536 cannot be traced (one port only)'));
  });

  it('a port match with no option matches the protocol only', () => {
    expect(matchesOf('-p tcp -m tcp')).toEqual([{ kind: 'protocol', protocol: 'tcp' }]);
  });

  it('refuses a range, a negated port and --sport, naming what it saw', () => {
    expect(refusal('-p tcp -m tcp --dport 80:90 -j ACCEPT')).toStrictEqual(at3('--dport 80:90 cannot be traced (one port only)'));
    expect(refusal('-p tcp -m tcp ! --dport 80 -j ACCEPT')).toStrictEqual(at3('--dport ! 80 cannot be traced (one port only)'));
    expect(refusal('-p tcp -m tcp --sport 1000 -j ACCEPT')).toStrictEqual(at3('-m tcp --sport cannot be traced'));
    expect(refusal('-p udp -m udp --sport 53 --dport 53 -j ACCEPT')).toStrictEqual(at3('-m udp --sport cannot be traced'));
  });

  it('refuses a port match without -p of its protocol (the kernel only loads tcp for protocol 6)', () => {
    expect(refusal('-m tcp --dport 80 -j ACCEPT')).toStrictEqual(at3('-m tcp needs -p tcp'));
    expect(refusal('-p udp -m tcp --dport 80 -j ACCEPT')).toStrictEqual(at3('-m tcp needs -p tcp'));
  });
});

describe('the other matches', () => {
  it('addrtype LOCAL: --src-type is the source, --dst-type the destination', () => {
    expect(matchesOf('-m addrtype --src-type LOCAL')).toEqual([{ kind: 'addrtype', direction: 'src', addressType: 'LOCAL' }]);
    expect(matchesOf('-m addrtype --dst-type LOCAL')).toEqual([{ kind: 'addrtype', direction: 'dst', addressType: 'LOCAL' }]);
    expect(matchesOf('-m addrtype --src-type LOCAL --dst-type LOCAL')).toEqual([
      { kind: 'addrtype', direction: 'src', addressType: 'LOCAL' },
      { kind: 'addrtype', direction: 'dst', addressType: 'LOCAL' },
    ]);
  });

  it('refuses another address type, or LOCAL negated', () => {
    expect(refusal('-m addrtype --dst-type UNICAST -j ACCEPT')).toStrictEqual(at3('-m addrtype --dst-type UNICAST: only LOCAL can be traced'));
    expect(refusal('-m addrtype ! --src-type LOCAL -j ACCEPT')).toStrictEqual(at3('-m addrtype ! --src-type LOCAL: only LOCAL can be traced'));
  });

  it('a comment needs its text', () => {
    expect(refusal('-m comment -j ACCEPT')).toStrictEqual(at3('-m comment without --comment'));
  });

  it('statistic --mode random --probability P keeps the written text of P', () => {
    expect(matchesOf('-m statistic --mode random --probability 0.3333333333')).toEqual([{ kind: 'statistic', probability: '0.3333333333', denominator: 0 }]);
  });

  it.each([
    ['-m statistic --mode nth --probability 0.5'],
    ['-m statistic --mode random'],
    ['-m statistic --probability 0.5'],
    ['-m statistic --mode random ! --probability 0.5'],
  ])('refuses statistic other than random with a plain probability: %s', (words) => {
    expect(refusal(`${words} -j ACCEPT`)).toStrictEqual(at3('-m statistic: only --mode random --probability P can be traced'));
  });

  it('recent as kube-proxy writes it (session affinity) and as iptables-save prints it', () => {
    expect(matchesOf('-m recent --name KUBE-SEP-X --rcheck --seconds 10800 --reap')).toEqual([{ kind: 'recent-check', name: 'KUBE-SEP-X', seconds: 10800 }]);
    expect(matchesOf('-m recent --rcheck --seconds 10800 --reap --name KUBE-SEP-X --mask 255.255.255.255 --rsource')).toEqual([
      { kind: 'recent-check', name: 'KUBE-SEP-X', seconds: 10800 },
    ]);
    expect(matchesOf('-m recent --set --name KUBE-SEP-X --mask 255.255.255.255 --rsource')).toEqual([{ kind: 'recent-set', name: 'KUBE-SEP-X' }]);
    expect(matchesOf('-m recent --set --name KUBE-SEP-X --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff --rsource', 'filter', 6)).toEqual([
      { kind: 'recent-set', name: 'KUBE-SEP-X' },
    ]);
  });

  it('recent without --name uses the list DEFAULT', () => {
    expect(matchesOf('-m recent --set')).toEqual([{ kind: 'recent-set', name: 'DEFAULT' }]);
    expect(matchesOf('-m recent --rcheck --seconds 60')).toEqual([{ kind: 'recent-check', name: 'DEFAULT', seconds: 60 }]);
  });

  it('refuses a recent mask that is not all ones (the tracer keys the list by the whole address)', () => {
    expect(refusal('-m recent --set --name N --mask 255.255.255.0 -j ACCEPT')).toStrictEqual(at3('-m recent --mask 255.255.255.0 cannot be traced'));
  });

  it('refuses a negated --rcheck or --set', () => {
    const message = '-m recent: a negated --rcheck/--set cannot be traced';
    expect(refusal('-m recent --name N ! --rcheck --seconds 10 -j ACCEPT')).toStrictEqual(at3(message));
    expect(refusal('-m recent --name N ! --set -j ACCEPT')).toStrictEqual(at3(message));
  });

  const onlySetOrCheck = '-m recent: only --set, or --rcheck --seconds S, can be traced';
  it.each([
    ['--update, which refreshes the entry', '-m recent --name N --update --seconds 10', '-m recent --update cannot be traced'],
    ['--hitcount', '-m recent --name N --rcheck --seconds 10 --hitcount 2', '-m recent --hitcount cannot be traced'],
    ['no command', '-m recent --name N', onlySetOrCheck],
    ['--rcheck without --seconds', '-m recent --name N --rcheck', onlySetOrCheck],
    ['--seconds without --rcheck', '-m recent --name N --seconds 10', onlySetOrCheck],
    ['--set with --seconds', '-m recent --name N --set --seconds 10', onlySetOrCheck],
    ['--set and --rcheck together', '-m recent --name N --set --rcheck', onlySetOrCheck],
    ['--set and --rcheck --seconds together', '-m recent --name N --set --rcheck --seconds 10', onlySetOrCheck],
    ['seconds that are not a number (before)', '-m recent --name N --rcheck --seconds x10', onlySetOrCheck],
    ['seconds that are not a number (after)', '-m recent --name N --rcheck --seconds 10x', onlySetOrCheck],
  ])('refuses recent with %s', (_what, words, message) => {
    expect(refusal(`${words} -j ACCEPT`)).toStrictEqual(at3(message));
  });

  it('mark: value and mask in hex, the mask all ones when absent, negation kept', () => {
    expect(matchesOf('-m mark ! --mark 0x4000/0x4000')).toEqual([{ kind: 'mark', value: '0x4000', mask: '0x4000', negated: true }]);
    expect(matchesOf('-m mark --mark 16')).toEqual([{ kind: 'mark', value: '0x10', mask: '0xffffffff', negated: false }]);
  });

  it('refuses mark without --mark or with a value that does not parse', () => {
    expect(refusal('-m mark -j ACCEPT')).toStrictEqual(at3('-m mark needs --mark VALUE[/MASK]'));
    expect(refusal('-m mark --mark zz -j ACCEPT')).toStrictEqual(at3('-m mark needs --mark VALUE[/MASK]'));
    expect(refusal('-m mark --mark 0x100000000 -j ACCEPT')).toStrictEqual(at3('-m mark needs --mark VALUE[/MASK]'));
  });

  it('conntrack: the states of --ctstate, and its negation', () => {
    expect(matchesOf('-m conntrack --ctstate INVALID')).toEqual([{ kind: 'conntrack', states: ['INVALID'], negated: false }]);
    expect(matchesOf('-m conntrack ! --ctstate NEW,RELATED')).toEqual([{ kind: 'conntrack', states: ['NEW', 'RELATED'], negated: true }]);
    expect(refusal('-m conntrack -j ACCEPT')).toStrictEqual(at3('-m conntrack needs --ctstate'));
  });

  it('nfacct: the counter kube-proxy names for localhost NodePorts', () => {
    expect(matchesOf('-m nfacct --nfacct-name localhost_nps_accepted_pkts')).toEqual([{ kind: 'nfacct', name: 'localhost_nps_accepted_pkts' }]);
    expect(refusal('-m nfacct -j ACCEPT')).toStrictEqual(at3('-m nfacct needs --nfacct-name'));
  });
});

describe('targets', () => {
  it('the verdicts, REJECT whatever it sends back, and a jump', () => {
    expect(targetOf('-j ACCEPT')).toEqual({ kind: 'accept' });
    expect(targetOf('-j DROP')).toEqual({ kind: 'drop' });
    expect(targetOf('-j RETURN')).toEqual({ kind: 'return' });
    expect(targetOf('-j REJECT --reject-with icmp-port-unreachable')).toEqual({ kind: 'reject' });
    expect(targetOf('-j KUBE-SERVICES')).toEqual({ kind: 'jump', chain: 'KUBE-SERVICES' });
  });

  it('refuses -g', () => {
    expect(refusal('-g KUBE-SERVICES')).toStrictEqual(at3('-g KUBE-SERVICES cannot be traced'));
  });

  it('DNAT --to-destination alone', () => {
    expect(targetOf('-p tcp -j DNAT --to-destination 10.180.0.1:80', 'nat')).toEqual({ kind: 'dnat', destination: '10.180.0.1:80' });
    const message = '-j DNAT: only --to-destination HOST:PORT can be traced';
    expect(refusal('-p tcp -j DNAT --to-destination 10.180.0.1:80 --persistent', 'nat')).toStrictEqual(at3(message));
    expect(refusal('-p tcp -j DNAT --random', 'nat')).toStrictEqual(at3(message));
  });

  it('MASQUERADE, with or without --random-fully', () => {
    expect(targetOf('-j MASQUERADE', 'nat')).toEqual({ kind: 'masquerade', randomFully: false });
    expect(targetOf('-j MASQUERADE --random-fully', 'nat')).toEqual({ kind: 'masquerade', randomFully: true });
    const message = '-j MASQUERADE: only --random-fully can be traced';
    expect(refusal('-p tcp -j MASQUERADE --to-ports 1024', 'nat')).toStrictEqual(at3(message));
    expect(refusal('-j MASQUERADE --random-fully --random', 'nat')).toStrictEqual(at3(message));
  });

  it('MARK: --or-mark and --xor-mark as written, and their iptables-save spellings', () => {
    expect(targetOf('-j MARK --or-mark 0x4000')).toEqual({ kind: 'mark', op: 'or', value: '0x4000' });
    expect(targetOf('-j MARK --xor-mark 0x4000')).toEqual({ kind: 'mark', op: 'xor', value: '0x4000' });
    expect(targetOf('-j MARK --set-xmark 0x4000/0x4000')).toEqual({ kind: 'mark', op: 'or', value: '0x4000' });
    expect(targetOf('-j MARK --set-xmark 0x4000/0x0')).toEqual({ kind: 'mark', op: 'xor', value: '0x4000' });
  });

  it.each([
    ['--set-xmark 0x1/0xff', '-j MARK --set-xmark 0x1/0xff cannot be traced (only an OR or an XOR of the mark)'],
    ['--set-mark 0x1', '-j MARK --set-mark 0x1 cannot be traced (only an OR or an XOR of the mark)'],
    ['--and-mark 0x1', '-j MARK --and-mark 0x1 cannot be traced (only an OR or an XOR of the mark)'],
    // --or-mark and --xor-mark take bits, not value/mask.
    ['--or-mark 0x4000/0x4000', '-j MARK --or-mark 0x4000/0x4000 cannot be traced (only an OR or an XOR of the mark)'],
    ['--xor-mark 0x4000/0x4000', '-j MARK --xor-mark 0x4000/0x4000 cannot be traced (only an OR or an XOR of the mark)'],
    ['--or-mark zz', '-j MARK --or-mark: bad value'],
    ['--or-mark 0x1 --xor-mark 0x2', '-j MARK needs one operation'],
  ])('refuses MARK %s', (options, message) => {
    expect(refusal(`-j MARK ${options}`)).toStrictEqual(at3(message));
  });

  it('refuses MARK with no operation', () => {
    expect(refusal('-j MARK')).toStrictEqual(at3('-j MARK needs one operation'));
  });
});

describe('the table commands', () => {
  it('an empty text is two empty tables, in the family asked for', () => {
    const empty = { chains: [], rules: [], deletedChains: [] };
    expect(parsed('')).toStrictEqual({ family: 4, tables: [{ name: 'filter', ...empty }, { name: 'nat', ...empty }] });
    expect(parsed('*nat\nCOMMIT\n', 6)).toStrictEqual({ family: 6, tables: [{ name: 'filter', ...empty }, { name: 'nat', ...empty }] });
  });

  it('declares user chains once, not the built-in ones; a chain line for a declared chain flushes it (kube-proxy relies on this with --noflush)', () => {
    const ruleset = parsed(
      [
        '*filter',
        ':INPUT ACCEPT [0:0]',
        ':FORWARD DROP [5:300]',
        ':A - [0:0]',
        ':B - [0:0]',
        '-A A -s 10.0.0.1 -j ACCEPT',
        '-A B -s 10.0.0.2 -j ACCEPT',
        '-A INPUT -j A',
        ':A - [0:0]',
        '-A A -s 10.0.0.3 -j ACCEPT',
        'COMMIT',
        '',
      ].join('\n'),
    );
    const filter = ruleset.tables[0];
    expect(filter.chains).toEqual(['A', 'B']);
    expect(filter.rules).toEqual([
      { chain: 'B', matches: [{ kind: 'source', address: '10.0.0.2', negated: false }], target: { kind: 'accept' } },
      { chain: 'INPUT', matches: [], target: { kind: 'jump', chain: 'A' } },
      { chain: 'A', matches: [{ kind: 'source', address: '10.0.0.3', negated: false }], target: { kind: 'accept' } },
    ]);
  });

  it('-N creates a chain rules can then be appended to', () => {
    const filter = parsed('*filter\n-N A\n-A A -j DROP\nCOMMIT\n').tables[0];
    expect(filter.chains).toEqual(['A']);
    expect(filter.rules).toEqual([{ chain: 'A', matches: [], target: { kind: 'drop' } }]);
  });

  it('a rule goes into a built-in chain without a declaration, but not into an undeclared user chain', () => {
    expect(parsed('*nat\n-A PREROUTING -j ACCEPT\nCOMMIT\n').tables[1].rules).toEqual([{ chain: 'PREROUTING', matches: [], target: { kind: 'accept' } }]);
    expect(refused('*filter\n:A - [0:0]\n-A B -j ACCEPT\nCOMMIT\n')).toStrictEqual(at3("Chain 'B' does not exist"));
    expect(refused('*filter\n:A - [0:0]\n-I B -j ACCEPT\nCOMMIT\n')).toStrictEqual(at3("Chain 'B' does not exist"));
  });

  it('-I N puts the rule before the Nth rule of its chain (1 when absent), or at its end when N is one past the last', () => {
    const text = [
      '*filter',
      ':A - [0:0]',
      ':B - [0:0]',
      '-A B -s 10.0.0.9 -j ACCEPT',
      '-A A -s 10.0.0.1 -j ACCEPT',
      '-A A -s 10.0.0.2 -j ACCEPT',
      '-I A 2 -s 10.0.0.3 -j ACCEPT',
      '-I A -s 10.0.0.4 -j ACCEPT',
      '-I A 5 -s 10.0.0.5 -j ACCEPT',
      '-I B 1 -s 10.0.0.8 -j ACCEPT',
      'COMMIT',
      '',
    ].join('\n');
    const filter = parsed(text).tables[0];
    expect(sources(filter, 'A')).toEqual(['10.0.0.4', '10.0.0.1', '10.0.0.3', '10.0.0.2', '10.0.0.5']);
    expect(sources(filter, 'B')).toEqual(['10.0.0.8', '10.0.0.9']);
  });

  it('-I into an empty table', () => {
    expect(parsed('*filter\n:A - [0:0]\n-I A -j ACCEPT\nCOMMIT\n').tables[0].rules).toEqual([{ chain: 'A', matches: [], target: { kind: 'accept' } }]);
  });

  it('-F CHAIN empties that chain, -F the whole table and no other; the chains stay', () => {
    const lines = ['*filter', ':A - [0:0]', ':B - [0:0]', '-A A -s 10.0.0.1 -j ACCEPT', '-A B -s 10.0.0.2 -j ACCEPT'];
    const one = parsed([...lines, '-F A', 'COMMIT', ''].join('\n')).tables[0];
    expect(one.chains).toEqual(['A', 'B']);
    expect(one.rules).toEqual([{ chain: 'B', matches: [{ kind: 'source', address: '10.0.0.2', negated: false }], target: { kind: 'accept' } }]);
    const all = parsed(['*nat', ':N - [0:0]', '-A N -j RETURN', 'COMMIT', ...lines, '-F', 'COMMIT', ''].join('\n'));
    expect(all.tables[0].chains).toEqual(['A', 'B']);
    expect(all.tables[0].rules).toEqual([]);
    expect(all.tables[1].rules).toEqual([{ chain: 'N', matches: [], target: { kind: 'return' } }]);
  });

  it('-X CHAIN deletes that empty chain and records it; -X deletes every user chain', () => {
    const one = parsed('*filter\n:A - [0:0]\n:B - [0:0]\n:C - [0:0]\n-A C -j ACCEPT\n-X A\nCOMMIT\n').tables[0];
    expect(one.chains).toEqual(['B', 'C']);
    expect(one.deletedChains).toEqual(['A']);
    expect(one.rules).toEqual([{ chain: 'C', matches: [], target: { kind: 'accept' } }]);
    const alone = parsed('*filter\n:A - [0:0]\n-X A\nCOMMIT\n').tables[0];
    expect(alone.chains).toEqual([]);
    expect(alone.deletedChains).toEqual(['A']);
    const all = parsed('*nat\n:A - [0:0]\n:B - [0:0]\n-A PREROUTING -j ACCEPT\n-X\nCOMMIT\n').tables[1];
    expect(all.chains).toEqual([]);
    expect(all.deletedChains).toEqual(['A', 'B']);
    expect(all.rules).toEqual([{ chain: 'PREROUTING', matches: [], target: { kind: 'accept' } }]);
  });

  it('-X beside a rule that only counts (no -j, as the last rule of a KUBE-FW- chain): that rule jumps nowhere, so the chain goes', () => {
    const table = parsed('*filter\n:A - [0:0]\n:B - [0:0]\n-A B -m comment --comment count\n-X A\nCOMMIT\n').tables[0];
    expect(table.chains).toEqual(['B']);
    expect(table.deletedChains).toEqual(['A']);
    expect(table.rules).toEqual([{ chain: 'B', matches: [{ kind: 'comment', text: 'count' }] }]);
  });

  it('refuses to delete a chain that has rules, naming it and the line', () => {
    const text = '*filter\n:A - [0:0]\n:B - [0:0]\n-A A -j ACCEPT\n-A B -j ACCEPT\n-X A\nCOMMIT\n';
    expect(refused(text)).toStrictEqual({ _tag: 'ErrTrace', message: "cannot delete chain 'A': it has rules", line: 6 });
    expect(refused('*filter\n:A - [0:0]\n:B - [0:0]\n-A B -j ACCEPT\n-X\nCOMMIT\n')).toStrictEqual({
      _tag: 'ErrTrace',
      message: "cannot delete chain 'B': it has rules",
      line: 5,
    });
  });

  it('refuses a table other than filter and nat at its *line', () => {
    expect(refused('*filter\nCOMMIT\n*mangle\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n')).toStrictEqual(at3('table mangle is not traced (only filter and nat)'));
  });

  it('a text iptables-restore cannot read is an ErrTrace at the line of the fault', () => {
    expect(refused('*filter\n:A - [0:0]\n-A\nCOMMIT\n')).toStrictEqual(at3('option "-A" requires an argument'));
  });
});

describe('the arguments, from JavaScript', () => {
  it('a text that is not a string names what it got', () => {
    expect(rulesetFromRestoreText(null as never)).toStrictEqual({
      ok: false,
      error: { _tag: 'ErrTrace', message: 'text: expected an iptables-restore text, got null', field: 'text' },
    });
    expect(rulesetFromRestoreText(42 as never)).toStrictEqual({
      ok: false,
      error: { _tag: 'ErrTrace', message: 'text: expected an iptables-restore text, got number', field: 'text' },
    });
  });

  it('a family that is neither 4 nor 6', () => {
    expect(rulesetFromRestoreText('', 5 as never)).toStrictEqual({ ok: false, error: { _tag: 'ErrTrace', message: 'family: expected 4 or 6', field: 'family' } });
  });
});

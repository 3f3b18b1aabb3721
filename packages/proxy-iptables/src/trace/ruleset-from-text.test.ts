// Reading a restore text into the Ruleset the tracer runs, rule by rule: each match module and
// target as the Match/Target it becomes, each form the tracer cannot express refused with its
// reason and line (never dropped), and the statements (-N, -I N, -F, -X, a chain line) applied
// as iptables-restore applies them. The texts are written here, in iptables' syntax
// (iptables(8), iptables-extensions(8)); the expected Rules are written by hand.
import { describe, expect, it } from 'vitest';
import type { Match, Rule, Ruleset, Target } from '../ruleset.js';
import type { RuleSpec } from '../save/rule-spec.js';
import { ruleFromSpec, rulesetFromRestoreText, savedRuleLine } from './ruleset-from-text.js';

interface Refusal {
  readonly message: string;
  readonly line?: number;
}

function refusalOf(result: ReturnType<typeof rulesetFromRestoreText>): Refusal | Ruleset {
  if (result.ok) return result.value;
  const { _tag, ...rest } = result.error;
  expect(_tag).toBe('ErrTrace');
  return rest;
}

/** The rules of chain KUBE-X read from `lines` (in `table`), or the refusal. */
function rules(lines: readonly string[], table: 'filter' | 'nat' = 'nat', family: 4 | 6 = 4): readonly Rule[] | Refusal {
  const text = [`*${table}`, ':KUBE-X - [0:0]', ...lines, 'COMMIT', ''].join('\n');
  const result = rulesetFromRestoreText(text, family);
  if (!result.ok) return refusalOf(result) as Refusal;
  return result.value.tables[table === 'filter' ? 0 : 1].rules;
}

/** The matches and target of the one rule `-A KUBE-X <words>`, or the refusal (line 3). */
function one(words: string, table: 'filter' | 'nat' = 'nat', family: 4 | 6 = 4): { matches: readonly Match[]; target?: Target } | Refusal {
  const read = rules([`-A KUBE-X ${words}`], table, family);
  if (!Array.isArray(read)) return read as Refusal;
  const [rule] = read as readonly Rule[];
  expect(read).toHaveLength(1);
  expect(rule?.chain).toBe('KUBE-X');
  return rule?.target === undefined ? { matches: rule?.matches ?? [] } : { matches: rule.matches, target: rule.target };
}

const refused = (message: string, line = 3): Refusal => ({ message, line });

describe('the edge', () => {
  it.each([
    [undefined, 'undefined'],
    [null, 'null'],
    [42, 'number'],
    [['*nat'], 'object'],
  ])('refuses the text %j', (text, shown) => {
    const result = rulesetFromRestoreText(text as never);
    expect(result).toEqual({ ok: false, error: { _tag: 'ErrTrace', message: `text: expected an iptables-restore text, got ${shown}`, field: 'text' } });
  });

  it.each([[5], ['6'], [null]])('refuses the family %j', (family) => {
    const result = rulesetFromRestoreText('', family as never);
    expect(result).toEqual({ ok: false, error: { _tag: 'ErrTrace', message: 'family: expected 4 or 6', field: 'family' } });
  });

  it('an empty text is an empty ruleset of the family asked, IPv4 by default', () => {
    const empty = (family: 4 | 6): Ruleset => ({
      family,
      tables: [
        { name: 'filter', chains: [], rules: [], deletedChains: [] },
        { name: 'nat', chains: [], rules: [], deletedChains: [] },
      ],
    });
    expect(rulesetFromRestoreText('')).toEqual({ ok: true, value: empty(4) });
    expect(rulesetFromRestoreText('', 6)).toEqual({ ok: true, value: empty(6) });
    expect(rulesetFromRestoreText('*nat\nCOMMIT\n*filter\nCOMMIT\n', 4)).toEqual({ ok: true, value: empty(4) });
  });

  it("passes on the parser's error with its line", () => {
    expect(refusalOf(rulesetFromRestoreText('*nat\n:KUBE-X - [0:0]\n-A KUBE-X -s\nCOMMIT\n'))).toEqual(refused('option "-s" requires an argument'));
  });

  it.each([['mangle'], ['raw'], ['security']])('refuses the %s table, at its line', (table) => {
    const text = `*nat\n:KUBE-X - [0:0]\nCOMMIT\n*${table}\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n`;
    expect(refusalOf(rulesetFromRestoreText(text))).toEqual(refused(`table ${table} is not traced (only filter and nat)`, 4));
  });
});

describe('the header', () => {
  it('is read before the matches, in the order -s, -d, -p, as the kernel checks it', () => {
    expect(one('-m comment --comment x -p tcp ! -d 10.96.0.1/32 -s 10.0.0.0/8 -j ACCEPT')).toEqual({
      matches: [
        { kind: 'source', address: '10.0.0.0/8', negated: false },
        { kind: 'destination', address: '10.96.0.1/32', negated: true },
        { kind: 'protocol', protocol: 'tcp' },
        { kind: 'comment', text: 'x' },
      ],
      target: { kind: 'accept' },
    });
    expect(one('! -s 10.0.0.1')).toEqual({ matches: [{ kind: 'source', address: '10.0.0.1', negated: true }] });
  });

  it.each([
    ['tcp', 'tcp'],
    ['6', 'tcp'],
    ['TCP', 'tcp'],
    ['udp', 'udp'],
    ['17', 'udp'],
    ['Udp', 'udp'],
    ['sctp', 'sctp'],
    ['132', 'sctp'],
  ])('-p %s is %s', (written, protocol) => {
    expect(one(`-p ${written}`)).toEqual({ matches: [{ kind: 'protocol', protocol }] });
  });

  it.each([
    ['-p icmp', '-p icmp cannot be traced'],
    ['-p 1', '-p 1 cannot be traced'],
    ['-p all', '-p all cannot be traced'],
    ['-p gre', '-p gre cannot be traced'],
    ['! -p tcp', '-p ! tcp cannot be traced'],
    ['-i eth0', '-i/-o interface matches cannot be traced'],
    ['-o eth0', '-i/-o interface matches cannot be traced'],
    ['! -i lo -s 10.0.0.1', '-i/-o interface matches cannot be traced'],
  ])('refuses %s', (words, message) => {
    expect(one(words)).toEqual(refused(message));
  });
});

describe('matches', () => {
  it.each([
    ['-m comment --comment "ns1/svc1:p80 cluster IP"', [{ kind: 'comment', text: 'ns1/svc1:p80 cluster IP' }]],
    ['-p tcp -m tcp --dport 80', [{ kind: 'protocol', protocol: 'tcp' }, { kind: 'dport', port: 80 }]],
    ['-p tcp --dport 80', [{ kind: 'protocol', protocol: 'tcp' }, { kind: 'dport', port: 80 }]],
    ['-p udp -m udp --dport 0', [{ kind: 'protocol', protocol: 'udp' }, { kind: 'dport', port: 0 }]],
    ['-p sctp -m sctp --dport 65535', [{ kind: 'protocol', protocol: 'sctp' }, { kind: 'dport', port: 65535 }]],
    ['-p 6 -m tcp --dport 00443', [{ kind: 'protocol', protocol: 'tcp' }, { kind: 'dport', port: 443 }]],
    ['-p tcp -m tcp', [{ kind: 'protocol', protocol: 'tcp' }]],
    ['-m addrtype --src-type LOCAL', [{ kind: 'addrtype', direction: 'src', addressType: 'LOCAL' }]],
    [
      '-m addrtype --dst-type LOCAL --src-type LOCAL',
      [
        { kind: 'addrtype', direction: 'dst', addressType: 'LOCAL' },
        { kind: 'addrtype', direction: 'src', addressType: 'LOCAL' },
      ],
    ],
    ['-m statistic --mode random --probability 0.3333333333', [{ kind: 'statistic', probability: '0.3333333333', denominator: 0 }]],
    ['-m statistic --probability 0.5 --mode random', [{ kind: 'statistic', probability: '0.5', denominator: 0 }]],
    ['-m recent --set --name KUBE-SEP-A --mask 255.255.255.255 --rsource', [{ kind: 'recent-set', name: 'KUBE-SEP-A' }]],
    ['-m recent --set', [{ kind: 'recent-set', name: 'DEFAULT' }]],
    [
      '-m recent --name KUBE-SEP-A --rcheck --seconds 10800 --reap --mask 255.255.255.255 --rsource',
      [{ kind: 'recent-check', name: 'KUBE-SEP-A', seconds: 10800 }],
    ],
    ['-m recent --rcheck --seconds 0', [{ kind: 'recent-check', name: 'DEFAULT', seconds: 0 }]],
    ['-m mark --mark 0x4000/0x4000', [{ kind: 'mark', value: '0x4000', mask: '0x4000', negated: false }]],
    ['-m mark ! --mark 16384/0x4000', [{ kind: 'mark', value: '0x4000', mask: '0x4000', negated: true }]],
    ['-m mark --mark 0x1', [{ kind: 'mark', value: '0x1', mask: '0xffffffff', negated: false }]],
    ['-m conntrack --ctstate NEW', [{ kind: 'conntrack', states: ['NEW'], negated: false }]],
    ['-m conntrack ! --ctstate RELATED,ESTABLISHED', [{ kind: 'conntrack', states: ['RELATED', 'ESTABLISHED'], negated: true }]],
    ['-m nfacct --nfacct-name ct_state_invalid_dropped_pkts', [{ kind: 'nfacct', name: 'ct_state_invalid_dropped_pkts' }]],
  ])('%s', (words, matches) => {
    expect(one(words)).toEqual({ matches });
  });

  it('reads an IPv6 text with the IPv6 full mask of recent', () => {
    expect(one('-s fd00::/64 -m recent --set --name X --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff --rsource', 'nat', 6)).toEqual({
      matches: [
        { kind: 'source', address: 'fd00::/64', negated: false },
        { kind: 'recent-set', name: 'X' },
      ],
    });
  });

  it.each([
    ['-m comment', '-m comment without --comment'],
    ['-m tcp --dport 80', '-m tcp needs -p tcp'],
    ['-p udp -m tcp --dport 80', '-m tcp needs -p tcp'],
    ['-p tcp -m udp', '-m udp needs -p udp'],
    ['-p tcp -m sctp --dport 80', '-m sctp needs -p sctp'],
    ['-p tcp -m tcp --sport 80', '-m tcp --sport cannot be traced'],
    ['-p udp -m udp --dport 53 --sport 53', '-m udp --sport cannot be traced'],
    ['-p tcp -m tcp --dport 80:90', '--dport 80:90 cannot be traced (one port only)'],
    ['-p tcp -m tcp ! --dport 80', '--dport ! 80 cannot be traced (one port only)'],
    ['-p tcp -m tcp --dport http', '--dport http cannot be traced (one port only)'],
    ['-p tcp -m tcp --dport 65536', '--dport 65536 cannot be traced (one port only)'],
    ['-p tcp -m tcp --dport 000080', '--dport 000080 cannot be traced (one port only)'],
    ['-p tcp -m tcp --dport 8a', '--dport 8a cannot be traced (one port only)'],
    ['-p tcp -m tcp --dport a8', '--dport a8 cannot be traced (one port only)'],
    ['-m addrtype --dst-type UNICAST', '-m addrtype --dst-type UNICAST: only LOCAL can be traced'],
    ['-m addrtype ! --dst-type LOCAL', '-m addrtype ! --dst-type LOCAL: only LOCAL can be traced'],
    ['-m addrtype --src-type LOCAL --dst-type local', '-m addrtype --dst-type local: only LOCAL can be traced'],
    ['-m statistic --mode nth', '-m statistic: only --mode random --probability P can be traced'],
    ['-m statistic --mode random', '-m statistic: only --mode random --probability P can be traced'],
    ['-m statistic --probability 0.5', '-m statistic: only --mode random --probability P can be traced'],
    ['-m statistic --mode random ! --probability 0.5', '-m statistic: only --mode random --probability P can be traced'],
    ['-m recent --update --seconds 10 --name X', '-m recent --update cannot be traced'],
    ['-m recent --rcheck --seconds 10 --hitcount 2', '-m recent --hitcount cannot be traced'],
    ['-m recent --set --rdest', '-m recent --rdest cannot be traced'],
    ['-m recent --set --mask 255.255.255.0', '-m recent --mask 255.255.255.0 cannot be traced'],
    ['-m recent ! --set', '-m recent: a negated --rcheck/--set cannot be traced'],
    ['-m recent ! --rcheck --seconds 10', '-m recent: a negated --rcheck/--set cannot be traced'],
    ['-m recent --set --seconds 10', '-m recent: only --set, or --rcheck --seconds S, can be traced'],
    ['-m recent --rcheck', '-m recent: only --set, or --rcheck --seconds S, can be traced'],
    ['-m recent --rcheck --set --seconds 10', '-m recent: only --set, or --rcheck --seconds S, can be traced'],
    ['-m recent --rcheck --set', '-m recent: only --set, or --rcheck --seconds S, can be traced'],
    ['-m recent --rcheck --seconds 1.5', '-m recent: only --set, or --rcheck --seconds S, can be traced'],
    ['-m recent --rcheck --seconds 10s', '-m recent: only --set, or --rcheck --seconds S, can be traced'],
    ['-m recent --rcheck --seconds x10', '-m recent: only --set, or --rcheck --seconds S, can be traced'],
    ['-m recent --name X --reap', '-m recent: only --set, or --rcheck --seconds S, can be traced'],
    ['-m mark', '-m mark needs --mark VALUE[/MASK]'],
    ['-m mark --mark 0x4000/zz', '-m mark needs --mark VALUE[/MASK]'],
    ['-m conntrack', '-m conntrack needs --ctstate'],
    ['-m nfacct', '-m nfacct needs --nfacct-name'],
    ['-m multiport -p tcp --dports 80,443', '-m multiport cannot be traced'],
  ])('refuses %s', (words, message) => {
    expect(one(words)).toEqual(refused(message));
  });

  it('refuses a partial IPv6 recent mask: the tracer keys recent entries by the whole source address', () => {
    expect(one('-m recent --set --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:0', 'nat', 6)).toEqual(refused('-m recent --mask ffff:ffff:ffff:ffff:ffff:ffff:ffff:0 cannot be traced'));
  });
});

describe('targets', () => {
  it.each([
    ['-j ACCEPT', 'filter', { kind: 'accept' }],
    ['-j DROP', 'filter', { kind: 'drop' }],
    ['-j RETURN', 'nat', { kind: 'return' }],
    ['-j REJECT', 'filter', { kind: 'reject' }],
    ['-j REJECT --reject-with icmp-port-unreachable', 'filter', { kind: 'reject' }],
    ['-j DNAT --to-destination 10.180.0.1:80', 'nat', { kind: 'dnat', destination: '10.180.0.1:80' }],
    ['-j MASQUERADE', 'nat', { kind: 'masquerade', randomFully: false }],
    ['-j MASQUERADE --random-fully', 'nat', { kind: 'masquerade', randomFully: true }],
    ['-j MARK --or-mark 0x4000', 'nat', { kind: 'mark', op: 'or', value: '0x4000' }],
    ['-j MARK --xor-mark 16384', 'nat', { kind: 'mark', op: 'xor', value: '0x4000' }],
    ['-j MARK --set-xmark 0x4000/0x4000', 'nat', { kind: 'mark', op: 'or', value: '0x4000' }],
    ['-j MARK --set-xmark 0x4000/0x0', 'nat', { kind: 'mark', op: 'xor', value: '0x4000' }],
    ['-j MARK --set-xmark 0x0/0x0', 'nat', { kind: 'mark', op: 'or', value: '0x0' }],
    ['-j KUBE-X', 'nat', { kind: 'jump', chain: 'KUBE-X' }],
    ['-j LOG', 'filter', { kind: 'jump', chain: 'LOG' }],
  ] as const)('%s in %s', (words, table, target) => {
    expect(one(words, table)).toEqual({ matches: [], target });
  });

  it.each([
    ['-g KUBE-X', '-g KUBE-X cannot be traced'],
    ['-j DNAT', '-j DNAT: only --to-destination HOST:PORT can be traced'],
    ['-j DNAT --to-destination 10.180.0.1:80 --random', '-j DNAT: only --to-destination HOST:PORT can be traced'],
    ['-j DNAT --persistent', '-j DNAT: only --to-destination HOST:PORT can be traced'],
    ['-j MASQUERADE --to-ports 8080', '-j MASQUERADE: only --random-fully can be traced'],
    ['-j MASQUERADE --random-fully --random', '-j MASQUERADE: only --random-fully can be traced'],
    ['-j MARK', '-j MARK needs one operation'],
    ['-j MARK --or-mark 0x1 --and-mark 0x2', '-j MARK needs one operation'],
    ['-j MARK --or-mark zz', '-j MARK --or-mark: bad value'],
    ['-j MARK --set-mark 0x1', '-j MARK --set-mark 0x1 cannot be traced (only an OR or an XOR of the mark)'],
    ['-j MARK --set-xmark 0x1/0xff', '-j MARK --set-xmark 0x1/0xff cannot be traced (only an OR or an XOR of the mark)'],
    ['-j MARK --set-xmark 0x1', '-j MARK --set-xmark 0x1 cannot be traced (only an OR or an XOR of the mark)'],
    ['-j MARK --or-mark 0x1/0x1', '-j MARK --or-mark 0x1/0x1 cannot be traced (only an OR or an XOR of the mark)'],
    ['-j MARK --xor-mark 0x1/0x0', '-j MARK --xor-mark 0x1/0x0 cannot be traced (only an OR or an XOR of the mark)'],
    ['-j MARK --and-mark 0x1', '-j MARK --and-mark 0x1 cannot be traced (only an OR or an XOR of the mark)'],
  ])('refuses %s', (words, message) => {
    expect(one(words)).toEqual(refused(message));
  });
});

describe('what iptables-restore cannot hand over, given as a RuleSpec', () => {
  // The parser refuses these options before the reader sees them; a RuleSpec built in code
  // can still carry them, and the reader refuses rather than drops them.
  const spec = (s: Partial<RuleSpec>): RuleSpec => ({ matches: [], ...s });
  it.each([
    [spec({ target: { name: 'ACCEPT', goto: false, options: [{ name: '--x', negated: false, args: [] }] } }), '-j ACCEPT takes no options'],
    [spec({ target: { name: 'DROP', goto: false, options: [{ name: '--x', negated: false, args: [] }] } }), '-j DROP takes no options'],
    [spec({ target: { name: 'RETURN', goto: false, options: [{ name: '--x', negated: false, args: [] }] } }), '-j RETURN takes no options'],
    [spec({ target: { name: 'KUBE-Y', goto: false, options: [{ name: '--x', negated: false, args: [] }] } }), '-j KUBE-Y: a jump takes no options'],
    [spec({ matches: [{ module: 'statistic', options: [{ name: '--every', negated: false, args: ['2'] }] }] }), '-m statistic --every cannot be traced'],
    [spec({ matches: [{ module: 'addrtype', options: [{ name: '--limit-iface-in', negated: false, args: [] }] }] }), '-m addrtype --limit-iface-in cannot be traced'],
    [spec({ matches: [{ module: 'conntrack', options: [{ name: '--ctstate', negated: false, args: [] }] }] }), 'accepted'],
    [spec({ matches: [{ module: 'conntrack', options: [{ name: '--ctstatus', negated: false, args: ['DNAT'] }] }] }), '-m conntrack --ctstatus cannot be traced'],
    [spec({ matches: [{ module: 'tcp', options: [{ name: '--tcp-flags', negated: false, args: ['SYN', 'SYN'] }] }], protocol: { value: 'tcp', negated: false } }), '-m tcp --tcp-flags cannot be traced'],
    [spec({ target: { name: 'MARK', goto: false, options: [{ name: '--or-mark', negated: false, args: [] }] } }), '-j MARK --or-mark: bad value'],
  ])('%j: %s', (given, message) => {
    const result = ruleFromSpec('KUBE-X', given);
    expect(result.ok ? 'accepted' : result.message).toBe(message);
  });

  it('an option without its argument reads as an empty text', () => {
    expect(ruleFromSpec('KUBE-X', spec({ matches: [{ module: 'conntrack', options: [{ name: '--ctstate', negated: false, args: [] }] }] }))).toEqual({
      ok: true,
      value: { chain: 'KUBE-X', matches: [{ kind: 'conntrack', states: [''], negated: false }] },
    });
    expect(ruleFromSpec('KUBE-X', spec({ matches: [{ module: 'comment', options: [{ name: '--comment', negated: false, args: [] }] }] }))).toEqual({
      ok: false,
      message: '-m comment without --comment',
    });
    expect(ruleFromSpec('KUBE-X', spec({ target: { name: 'DNAT', goto: false, options: [{ name: '--to-destination', negated: false, args: [] }] } }))).toEqual({
      ok: false,
      message: '-j DNAT: only --to-destination HOST:PORT can be traced',
    });
  });

  it('an addrtype type or a statistic probability without its argument reads as an empty text', () => {
    expect(ruleFromSpec('KUBE-X', spec({ matches: [{ module: 'addrtype', options: [{ name: '--dst-type', negated: false, args: [] }] }] }))).toEqual({
      ok: false,
      message: '-m addrtype --dst-type : only LOCAL can be traced',
    });
    // The tracer then refuses the empty probability with the rule (trace-packet.ts).
    const statistic = { module: 'statistic', options: [{ name: '--mode', negated: false, args: ['random'] }, { name: '--probability', negated: false, args: [] }] };
    expect(ruleFromSpec('KUBE-X', spec({ matches: [statistic] }))).toEqual({ ok: true, value: { chain: 'KUBE-X', matches: [{ kind: 'statistic', probability: '', denominator: 0 }] } });
  });

  it('a --dport or --seconds without its argument is refused, not read as a value', () => {
    expect(ruleFromSpec('KUBE-X', spec({ matches: [{ module: 'tcp', options: [{ name: '--dport', negated: false, args: [] }] }], protocol: { value: 'tcp', negated: false } }))).toEqual({
      ok: false,
      message: '--dport  cannot be traced (one port only)',
    });
    expect(ruleFromSpec('KUBE-X', spec({ matches: [{ module: 'recent', options: [{ name: '--rcheck', negated: false, args: [] }, { name: '--seconds', negated: false, args: [] }] }] }))).toEqual({
      ok: false,
      message: '-m recent: only --set, or --rcheck --seconds S, can be traced',
    });
  });
});

describe('statements', () => {
  const chains = (text: string, table: 0 | 1 = 1): unknown => {
    const result = rulesetFromRestoreText(text);
    if (!result.ok) return refusalOf(result);
    const t = result.value.tables[table];
    return { chains: t.chains, rules: t.rules.map((r) => `${r.chain} ${r.target?.kind === 'jump' ? r.target.chain : (r.target?.kind ?? '-')}`), deleted: t.deletedChains };
  };

  it('a chain line declares a user chain once, and the built-in chains are not listed', () => {
    expect(chains('*nat\n:PREROUTING ACCEPT [0:0]\n:KUBE-A - [0:0]\n:KUBE-B - [0:0]\n:KUBE-A - [0:0]\n-N KUBE-C\nCOMMIT\n')).toEqual({
      chains: ['KUBE-A', 'KUBE-B', 'KUBE-C'],
      rules: [],
      deleted: [],
    });
    expect(chains('*filter\n:INPUT ACCEPT [0:0]\n:FORWARD DROP [0:0]\n:OUTPUT ACCEPT [0:0]\n-A INPUT -j DROP\nCOMMIT\n', 0)).toEqual({ chains: [], rules: ['INPUT drop'], deleted: [] });
  });

  it("a chain line flushes the chain's rules (iptables-restore)", () => {
    expect(chains('*nat\n:KUBE-A - [0:0]\n:KUBE-B - [0:0]\n-A KUBE-A -j RETURN\n-A KUBE-B -j RETURN\n:KUBE-A - [0:0]\n-A KUBE-A -j KUBE-B\nCOMMIT\n')).toEqual({
      chains: ['KUBE-A', 'KUBE-B'],
      rules: ['KUBE-B return', 'KUBE-A KUBE-B'],
      deleted: [],
    });
    // A built-in chain's line resets it too.
    expect(chains('*nat\n:KUBE-A - [0:0]\n-A PREROUTING -j KUBE-A\n:PREROUTING ACCEPT [0:0]\nCOMMIT\n')).toEqual({ chains: ['KUBE-A'], rules: [], deleted: [] });
  });

  it('-N of a chain the table has is refused at its line, as iptables-restore refuses it; -N after -X is not', () => {
    expect(chains('*nat\n:KUBE-A - [0:0]\n-A KUBE-A -j RETURN\n-N KUBE-A\nCOMMIT\n')).toEqual(refused("Chain 'KUBE-A' already exists", 4));
    expect(chains('*nat\n-N KUBE-A\n-N KUBE-A\nCOMMIT\n')).toEqual(refused("Chain 'KUBE-A' already exists", 3));
    expect(chains('*nat\n-N PREROUTING\nCOMMIT\n')).toEqual(refused("Chain 'PREROUTING' already exists", 2));
    expect(chains('*filter\n-N FORWARD\nCOMMIT\n', 0)).toEqual(refused("Chain 'FORWARD' already exists", 2));
    // A chain of the other table is not this one's.
    expect(chains('*filter\n:KUBE-A - [0:0]\nCOMMIT\n*nat\n-N KUBE-A\n-N FORWARD\nCOMMIT\n')).toEqual({ chains: ['KUBE-A', 'FORWARD'], rules: [], deleted: [] });
    expect(chains('*nat\n-N KUBE-A\n-X KUBE-A\n-N KUBE-A\nCOMMIT\n')).toEqual({ chains: ['KUBE-A'], rules: [], deleted: ['KUBE-A'] });
  });

  it('a rule in a chain that was not declared is refused at its line', () => {
    expect(chains('*nat\n:KUBE-A - [0:0]\n-A KUBE-B -j RETURN\nCOMMIT\n')).toEqual(refused("Chain 'KUBE-B' does not exist"));
    expect(chains('*nat\n:KUBE-A - [0:0]\n-I KUBE-B -j RETURN\nCOMMIT\n')).toEqual(refused("Chain 'KUBE-B' does not exist"));
    // nat has no FORWARD chain (its built-in chains are PREROUTING, INPUT, OUTPUT and POSTROUTING).
    expect(chains('*nat\n-A FORWARD -j RETURN\nCOMMIT\n')).toEqual(refused("Chain 'FORWARD' does not exist", 2));
    expect(chains('*nat\n-A INPUT -j RETURN\nCOMMIT\n')).toEqual({ chains: [], rules: ['INPUT return'], deleted: [] });
    expect(chains('*filter\n-A PREROUTING -j RETURN\nCOMMIT\n', 0)).toEqual(refused("Chain 'PREROUTING' does not exist", 2));
    // A rule that cannot be traced is refused at its own line.
    expect(chains('*nat\n:KUBE-A - [0:0]\n-A KUBE-A -j RETURN\n\n-A KUBE-A -i eth0\nCOMMIT\n')).toEqual(refused('-i/-o interface matches cannot be traced', 5));
  });

  it('-I N inserts before the Nth rule of its chain, counting only that chain; one past its last rule appends, and further is refused as iptables-restore refuses it', () => {
    const base = '*nat\n:KUBE-A - [0:0]\n:KUBE-B - [0:0]\n-A KUBE-B -j DROP\n-A KUBE-A -j ACCEPT\n-A KUBE-B -j REJECT\n-A KUBE-A -j RETURN\n';
    expect(chains(`${base}-I KUBE-A -j KUBE-B\nCOMMIT\n`)).toMatchObject({ rules: ['KUBE-B drop', 'KUBE-A KUBE-B', 'KUBE-A accept', 'KUBE-B reject', 'KUBE-A return'] });
    expect(chains(`${base}-I KUBE-A 1 -j KUBE-B\nCOMMIT\n`)).toMatchObject({ rules: ['KUBE-B drop', 'KUBE-A KUBE-B', 'KUBE-A accept', 'KUBE-B reject', 'KUBE-A return'] });
    expect(chains(`${base}-I KUBE-A 2 -j KUBE-B\nCOMMIT\n`)).toMatchObject({ rules: ['KUBE-B drop', 'KUBE-A accept', 'KUBE-B reject', 'KUBE-A KUBE-B', 'KUBE-A return'] });
    expect(chains(`${base}-I KUBE-B 2 -j KUBE-A\nCOMMIT\n`)).toMatchObject({ rules: ['KUBE-B drop', 'KUBE-A accept', 'KUBE-B KUBE-A', 'KUBE-B reject', 'KUBE-A return'] });
    expect(chains(`${base}-I KUBE-A 3 -j KUBE-B\nCOMMIT\n`)).toMatchObject({ rules: ['KUBE-B drop', 'KUBE-A accept', 'KUBE-B reject', 'KUBE-A return', 'KUBE-A KUBE-B'] });
    // KUBE-A has two rules: 3 is the last place, 4 is libiptc's E2BIG ("Index of insertion too big.").
    expect(chains(`${base}-I KUBE-A 4 -j KUBE-B\nCOMMIT\n`)).toEqual(refused('Index of insertion too big.', 8));
    expect(chains(`${base}-I KUBE-A 9 -j KUBE-B\nCOMMIT\n`)).toEqual(refused('Index of insertion too big.', 8));
    expect(chains(`*nat\n:KUBE-A - [0:0]\n-I KUBE-A 2 -j RETURN\nCOMMIT\n`)).toEqual(refused('Index of insertion too big.', 3));
    // Into an empty chain.
    expect(chains('*nat\n:KUBE-A - [0:0]\n:KUBE-B - [0:0]\n-A KUBE-B -j DROP\n-I KUBE-A -j RETURN\nCOMMIT\n')).toMatchObject({ rules: ['KUBE-B drop', 'KUBE-A return'] });
  });

  it('-F CHAIN empties that chain, -F every chain; the chains stay', () => {
    const base = '*nat\n:KUBE-A - [0:0]\n:KUBE-B - [0:0]\n-A KUBE-A -j ACCEPT\n-A KUBE-B -j DROP\n-A PREROUTING -j KUBE-A\n';
    expect(chains(`${base}-F KUBE-A\nCOMMIT\n`)).toEqual({ chains: ['KUBE-A', 'KUBE-B'], rules: ['KUBE-B drop', 'PREROUTING KUBE-A'], deleted: [] });
    expect(chains(`${base}-F\nCOMMIT\n`)).toEqual({ chains: ['KUBE-A', 'KUBE-B'], rules: [], deleted: [] });
  });

  it('-X CHAIN deletes an empty chain and records it, -X every user chain; a chain with rules is refused', () => {
    const base = '*nat\n:KUBE-A - [0:0]\n:KUBE-B - [0:0]\n:KUBE-C - [0:0]\n-A KUBE-B -j DROP\n';
    expect(chains(`${base}-X KUBE-A\nCOMMIT\n`)).toEqual({ chains: ['KUBE-B', 'KUBE-C'], rules: ['KUBE-B drop'], deleted: ['KUBE-A'] });
    expect(chains(`${base}-X KUBE-B\nCOMMIT\n`)).toEqual(refused("cannot delete chain 'KUBE-B': it has rules", 6));
    expect(chains(`${base}-X\nCOMMIT\n`)).toEqual(refused("cannot delete chain 'KUBE-B': it has rules", 6));
    expect(chains(`${base}-F\n-X\nCOMMIT\n`)).toEqual({ chains: [], rules: [], deleted: ['KUBE-A', 'KUBE-B', 'KUBE-C'] });
    // What iptables-restore refuses (libiptc: ENOENT for a chain the table lacks, a built-in
    // chain is never deleted, EBUSY for a chain another chain jumps to).
    expect(chains(`${base}-X KUBE-NONE\nCOMMIT\n`)).toEqual(refused("No chain/target/match by that name: 'KUBE-NONE'", 6));
    expect(chains(`${base}-F KUBE-NONE\nCOMMIT\n`)).toEqual(refused("No chain/target/match by that name: 'KUBE-NONE'", 6));
    expect(chains(`${base}-X KUBE-A\n-X KUBE-A\nCOMMIT\n`)).toEqual(refused("No chain/target/match by that name: 'KUBE-A'", 7));
    expect(chains(`${base}-X PREROUTING\nCOMMIT\n`)).toEqual(refused("Can't delete built-in chain 'PREROUTING'", 6));
    expect(chains(`${base}-A KUBE-C -j KUBE-A\n-X KUBE-A\nCOMMIT\n`)).toEqual(refused("cannot delete chain 'KUBE-A': chain 'KUBE-C' jumps to it", 7));
    // Only a jump to the chain itself makes it busy: a jump to another chain does not.
    expect(chains(`${base}-A KUBE-C -j KUBE-B\n-X KUBE-A\nCOMMIT\n`)).toEqual({ chains: ['KUBE-B', 'KUBE-C'], rules: ['KUBE-B drop', 'KUBE-C KUBE-B'], deleted: ['KUBE-A'] });
    expect(chains(`${base}-A OUTPUT -j KUBE-A\n-X KUBE-A\nCOMMIT\n`)).toEqual(refused("cannot delete chain 'KUBE-A': chain 'OUTPUT' jumps to it", 7));
    expect(chains(`${base}-A OUTPUT -j KUBE-A\n-F KUBE-B\n-X\nCOMMIT\n`)).toEqual(refused("cannot delete chain 'KUBE-A': chain 'OUTPUT' jumps to it", 8));
    expect(chains(`${base}-A KUBE-C -j KUBE-A\n-F KUBE-B\n-X\nCOMMIT\n`)).toEqual(refused("cannot delete chain 'KUBE-A': chain 'KUBE-C' jumps to it", 8));
    expect(chains(`${base}-F KUBE-B\n-X\n-N KUBE-A\nCOMMIT\n`)).toEqual({ chains: ['KUBE-A'], rules: [], deleted: ['KUBE-A', 'KUBE-B', 'KUBE-C'] });
    expect(chains(`${base}-F OUTPUT\n-F\nCOMMIT\n`)).toEqual({ chains: ['KUBE-A', 'KUBE-B', 'KUBE-C'], rules: [], deleted: [] });
    expect(chains(`${base}-X KUBE-C\n-X KUBE-A\n-N KUBE-A\nCOMMIT\n`)).toEqual({ chains: ['KUBE-B', 'KUBE-A'], rules: ['KUBE-B drop'], deleted: ['KUBE-C', 'KUBE-A'] });
  });

  it('keeps filter and nat apart, in that order, whichever comes first in the text', () => {
    const result = rulesetFromRestoreText('*nat\n:KUBE-N - [0:0]\n-A KUBE-N -j RETURN\nCOMMIT\n*filter\n:KUBE-F - [0:0]\n-A KUBE-F -j DROP\nCOMMIT\n');
    expect(result.ok && result.value.tables.map((t) => [t.name, t.chains, t.rules.map((r) => r.chain)])).toEqual([
      ['filter', ['KUBE-F'], ['KUBE-F']],
      ['nat', ['KUBE-N'], ['KUBE-N']],
    ]);
  });
});

describe('a rule without a target', () => {
  it('has no target field at all, not one that is undefined', () => {
    const read = rules(['-A KUBE-X -m comment --comment count']);
    const [rule] = Array.isArray(read) ? (read as readonly Rule[]) : [];
    expect(rule === undefined ? 'none' : Object.keys(rule)).toEqual(['chain', 'matches']);
    expect(ruleFromSpec('KUBE-X', { matches: [] })).toStrictEqual({ ok: true, value: { chain: 'KUBE-X', matches: [] } });
  });
});

describe('savedRuleLine', () => {
  it('is the line iptables-save prints for a rule read from a text, and nothing for another rule', () => {
    const text = '*nat\n:KUBE-X - [0:0]\n-A KUBE-X -m comment --comment "a b" -p tcp -d 10.96.0.1 --dport 80 -j DNAT --to-destination 10.1.1.1:8080\nCOMMIT\n';
    const result = rulesetFromRestoreText(text);
    const [rule] = result.ok ? result.value.tables[1].rules : [];
    expect(rule === undefined ? 'none' : savedRuleLine(rule)).toBe('-A KUBE-X -d 10.96.0.1/32 -p tcp -m comment --comment "a b" -m tcp --dport 80 -j DNAT --to-destination 10.1.1.1:8080');
    expect(savedRuleLine({ chain: 'KUBE-X', matches: [] })).toBeUndefined();
  });

  it('reads the addresses of the family it was given (an IPv6 prefix is /128)', () => {
    const result = rulesetFromRestoreText('*nat\n:KUBE-X - [0:0]\n-A KUBE-X -d fd00::1 -j RETURN\nCOMMIT\n', 6);
    const [rule] = result.ok ? result.value.tables[1].rules : [];
    expect(rule === undefined ? 'none' : savedRuleLine(rule)).toBe('-A KUBE-X -d fd00::1/128 -j RETURN');
  });

  it('prints a rule iptables would refuse as written (the tracer still reports its line)', () => {
    // DNAT in filter: iptables refuses it at load; the reader keeps the rule and its text.
    const result = rulesetFromRestoreText('*filter\n:KUBE-X - [0:0]\n-A KUBE-X -j DNAT --to-destination 10.1.1.1:80\nCOMMIT\n');
    const [rule] = result.ok ? result.value.tables[0].rules : [];
    expect(rule === undefined ? 'none' : savedRuleLine(rule)).toBe('-A KUBE-X -j DNAT --to-destination 10.1.1.1:80');
  });
});

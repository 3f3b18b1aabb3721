// The shape checks at the tracer's edge, one by one: every refusal names its field and says
// what was expected and what came (the message is `field: what`), and the edges of what is
// accepted (ports 0 and 65535, marks 0 and 0xffffffff, any case of a protocol, ICMP without
// a port, the other family's local addresses and recent sources, each match and target kind).
// The expected texts are written here from the rules the README states ("an ErrTrace whose
// field names the argument at fault"), not read back from the code.
import { describe, expect, it } from 'vitest';
import type { Match, Ruleset, Target } from '../ruleset.js';
import { generateRules } from '../backend.js';
import { fakeProxierConfig, makeService, simpleSlice, tcp80 } from '../upstream.fixtures.js';
import { checkFamily, checkOptions, checkPacket, checkRuleset } from './trace-input.js';
import { tracePacket } from './trace-packet.js';

interface Refused {
  readonly field: string;
  readonly message: string;
}

/** The refusal as { field, message }, or 'accepted'. */
function refusal(result: { readonly ok: boolean; readonly error?: unknown }): Refused | 'accepted' {
  if (result.ok) return 'accepted';
  const { _tag, field, message } = result.error as { _tag: string; field: string; message: string };
  expect(_tag).toBe('ErrTrace');
  return { field, message };
}

const refused = (field: string, what: string): Refused => ({ field, message: `${field}: ${what}` });

const packet = { source: '10.0.0.2', destination: '172.30.0.41', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
const packet6 = { source: 'fd00::2', destination: 'fd00:30::41', protocol: 'udp', destinationPort: 53, entry: 'node' };

describe('checkPacket', () => {
  it.each([
    [null, 'expected an object, got null'],
    [undefined, 'expected an object, got undefined'],
    [[packet], 'expected an object, got an array'],
    ['10.0.0.2', 'expected an object, got "10.0.0.2"'],
    [80, 'expected an object, got number 80'],
    [true, 'expected an object, got boolean true'],
    [80n, 'expected an object, got bigint 80'],
    [() => packet, 'expected an object, got function'],
  ])('refuses the packet %s: %s', (value, what) => {
    expect(refusal(checkPacket(value, 4))).toEqual(refused('packet', what));
  });

  it.each([
    ['source', 'pod-a', 4, '"pod-a" is not an IPv4 address'],
    ['source', '10.0.0.256', 4, '"10.0.0.256" is not an IPv4 address'],
    ['source', 'fd00::2', 4, '"fd00::2" is not an IPv4 address'],
    ['source', 167772162, 4, 'number 167772162 is not an IPv4 address'],
    ['source', undefined, 4, 'undefined is not an IPv4 address'],
    ['source', '10.0.0.2', 6, '"10.0.0.2" is not an IPv6 address'],
    ['destination', '172.30.0.41/32', 4, '"172.30.0.41/32" is not an IPv4 address'],
    ['destination', null, 4, 'null is not an IPv4 address'],
    ['destination', 'fd00:30::41', 4, '"fd00:30::41" is not an IPv4 address'],
    ['destination', '172.30.0.41', 6, '"172.30.0.41" is not an IPv6 address'],
  ] as const)('refuses packet.%s %j under IPv%d', (field, value, family, what) => {
    const base = family === 4 ? packet : packet6;
    expect(refusal(checkPacket({ ...base, [field]: value }, family))).toEqual(refused(`packet.${field}`, what));
  });

  it('checks the source before the destination, and both before the protocol', () => {
    expect(refusal(checkPacket({ ...packet, source: 'a', destination: 'b', protocol: 'gre' }, 4))).toEqual(refused('packet.source', '"a" is not an IPv4 address'));
    expect(refusal(checkPacket({ ...packet, destination: 'b', protocol: 'gre' }, 4))).toEqual(refused('packet.destination', '"b" is not an IPv4 address'));
  });

  it('reads the addresses of the family it is given', () => {
    expect(checkPacket(packet6, 6)).toEqual({ ok: true, value: packet6 });
    expect(checkPacket(packet, 4)).toEqual({ ok: true, value: packet });
  });

  it.each([
    ['gre', 'unknown protocol "gre" (expected tcp, udp, sctp or icmp)'],
    ['tcp ', 'unknown protocol "tcp " (expected tcp, udp, sctp or icmp)'],
    ['', 'unknown protocol "" (expected tcp, udp, sctp or icmp)'],
    [6, 'unknown protocol number 6 (expected tcp, udp, sctp or icmp)'],
    [undefined, 'unknown protocol undefined (expected tcp, udp, sctp or icmp)'],
  ])('refuses the protocol %j', (protocol, what) => {
    expect(refusal(checkPacket({ ...packet, protocol }, 4))).toEqual(refused('packet.protocol', what));
  });

  it.each([
    ['tcp', 'tcp'],
    ['TCP', 'tcp'],
    ['Udp', 'udp'],
    ['UDP', 'udp'],
    ['sctp', 'sctp'],
    ['SCTP', 'sctp'],
  ])('reads the protocol %s as %s', (protocol, lower) => {
    expect(checkPacket({ ...packet, protocol }, 4)).toEqual({ ok: true, value: { ...packet, protocol: lower } });
  });

  it.each([['pod'], ['node'], ['outside'], ['host']])('takes the entry point %s', (entry) => {
    expect(checkPacket({ ...packet, entry }, 4)).toEqual({ ok: true, value: { ...packet, entry } });
  });

  it.each([
    ['Pod', 'unknown entry point "Pod" (expected pod, node, outside or host)'],
    ['', 'unknown entry point "" (expected pod, node, outside or host)'],
    [1, 'unknown entry point number 1 (expected pod, node, outside or host)'],
    [['pod'], 'unknown entry point an array (expected pod, node, outside or host)'],
    [undefined, 'unknown entry point undefined (expected pod, node, outside or host)'],
  ])('refuses the entry point %j', (entry, what) => {
    expect(refusal(checkPacket({ ...packet, entry }, 4))).toEqual(refused('packet.entry', what));
  });

  it('checks the protocol before the entry point, and the entry point before the port', () => {
    expect(refusal(checkPacket({ ...packet, protocol: 'gre', entry: 'x' }, 4))).toEqual(
      refused('packet.protocol', 'unknown protocol "gre" (expected tcp, udp, sctp or icmp)'),
    );
    expect(refusal(checkPacket({ ...packet, entry: 'x', destinationPort: -1 }, 4))).toEqual(
      refused('packet.entry', 'unknown entry point "x" (expected pod, node, outside or host)'),
    );
  });

  it('takes an ICMP echo request without a port, in any case, and gives it no port field', () => {
    const { destinationPort, ...ping } = { ...packet, protocol: 'icmp' };
    void destinationPort;
    for (const protocol of ['icmp', 'ICMP', 'Icmp']) {
      const result = checkPacket({ ...ping, protocol }, 4);
      expect(result).toEqual({ ok: true, value: { ...ping, protocol: 'icmp' } });
      expect(result.ok && Object.keys(result.value).sort()).toEqual(['destination', 'entry', 'protocol', 'source']);
    }
    // An explicit undefined is no port.
    expect(checkPacket({ ...ping, destinationPort: undefined }, 4)).toEqual({ ok: true, value: { ...ping, protocol: 'icmp' } });
  });

  it.each([[0], [80], [null], ['80']])('refuses any port %j on an ICMP packet', (destinationPort) => {
    expect(refusal(checkPacket({ ...packet, protocol: 'ICMP', destinationPort }, 4))).toEqual(refused('packet.destinationPort', 'an ICMP echo request has no port'));
  });

  it.each([[0], [1], [65534], [65535]])('takes the port %d', (destinationPort) => {
    expect(checkPacket({ ...packet, destinationPort }, 4)).toEqual({ ok: true, value: { ...packet, destinationPort } });
  });

  it.each([
    [-1, 'number -1'],
    [65536, 'number 65536'],
    [80.5, 'number 80.5'],
    [Number.NaN, 'number NaN'],
    [Number.POSITIVE_INFINITY, 'number Infinity'],
    ['80', '"80"'],
    [80n, 'bigint 80'],
    [undefined, 'undefined'],
    [null, 'null'],
  ])('refuses the port %s', (destinationPort, shown) => {
    expect(refusal(checkPacket({ ...packet, destinationPort }, 4))).toEqual(
      refused('packet.destinationPort', `bad destination port ${shown} (expected an integer 0-65535)`),
    );
  });

  it('keeps only the packet fields, not whatever else the object carries', () => {
    const result = checkPacket({ ...packet, protocol: 'TCP', ttl: 64 }, 4);
    expect(result.ok && Object.keys(result.value).sort()).toEqual(['destination', 'destinationPort', 'entry', 'protocol', 'source']);
  });
});

const options = { localAddresses: ['192.168.0.2'] };

describe('checkOptions', () => {
  it.each([
    [null, 'null'],
    [undefined, 'undefined'],
    [[], 'an array'],
    ['x', '"x"'],
  ])('refuses the options %j', (value, shown) => {
    expect(refusal(checkOptions(value))).toEqual(refused('options', `expected an object, got ${shown}`));
  });

  it('accepts the options object itself, unchanged', () => {
    const full = {
      localAddresses: [],
      recent: [],
      now: 0,
      masqueradeMark: 0x4000,
      mark: 0,
      conntrack: 'NEW',
      family: 6,
      onOutcome: () => undefined,
    };
    const result = checkOptions(full);
    expect(result.ok && result.value).toBe(full);
  });

  it.each([
    [undefined, 'undefined'],
    ['192.168.0.2', '"192.168.0.2"'],
    [{ 0: '192.168.0.2' }, 'object'],
  ])('refuses localAddresses %j', (localAddresses, shown) => {
    expect(refusal(checkOptions({ localAddresses }))).toEqual(refused('options.localAddresses', `expected an array of addresses, got ${shown}`));
  });

  it("takes both families' addresses: a node's list holds both", () => {
    expect(refusal(checkOptions({ localAddresses: ['192.168.0.2', 'fd00::2', '::1', '127.0.0.1'] }))).toBe('accepted');
    expect(refusal(checkOptions({ localAddresses: ['fd00::2'] }))).toBe('accepted');
    expect(refusal(checkOptions({ localAddresses: ['192.168.0.2'] }))).toBe('accepted');
  });

  it.each([
    [['node-1'], 0, '"node-1"'],
    [['192.168.0.2', '192.168.0.300'], 1, '"192.168.0.300"'],
    [['192.168.0.2', 'fd00::2', 'fd00::2::1'], 2, '"fd00::2::1"'],
    [['192.168.0.0/24'], 0, '"192.168.0.0/24"'],
    [[3232235522], 0, 'number 3232235522'],
    [[null], 0, 'null'],
  ])('refuses the local addresses %j at [%d]', (localAddresses, i, shown) => {
    expect(refusal(checkOptions({ localAddresses }))).toEqual(refused(`options.localAddresses[${i}]`, `${shown} is not an IP address`));
  });

  describe('recent', () => {
    const entry = { name: 'KUBE-SEP-X', source: '10.0.0.2', lastSeen: 0 };
    it.each([
      [[], 'accepted'],
      [[entry, { ...entry, source: 'fd00::2' }], 'accepted'],
      [[{ ...entry, name: '', lastSeen: -1.5 }], 'accepted'],
    ])('takes %j', (recent, expected) => {
      expect(refusal(checkOptions({ ...options, recent }))).toBe(expected);
    });

    it.each([
      ['x', 'expected an array, got "x"'],
      [null, 'expected an array, got null'],
      [{ 0: entry }, 'expected an array, got object'],
    ])('refuses recent %j', (recent, what) => {
      expect(refusal(checkOptions({ ...options, recent }))).toEqual(refused('options.recent', what));
    });

    it.each([
      [[null], 0, 'expected { name, source, lastSeen }, got null'],
      [[entry, [entry]], 1, 'expected { name, source, lastSeen }, got an array'],
      [[{ ...entry, name: 5 }], 0, 'name: expected a string, got number 5'],
      [[entry, entry, { source: '10.0.0.2', lastSeen: 0 }], 2, 'name: expected a string, got undefined'],
      [[{ ...entry, source: 'pod-a' }], 0, 'source: "pod-a" is not an IP address'],
      [[{ ...entry, source: 5 }], 0, 'source: number 5 is not an IP address'],
      [[{ ...entry, lastSeen: Number.NaN }], 0, 'lastSeen: expected a finite number, got number NaN'],
      [[{ ...entry, lastSeen: Number.NEGATIVE_INFINITY }], 0, 'lastSeen: expected a finite number, got number -Infinity'],
      [[{ ...entry, lastSeen: '0' }], 0, 'lastSeen: expected a finite number, got "0"'],
    ])('refuses the entries %j at [%d]', (recent, i, what) => {
      expect(refusal(checkOptions({ ...options, recent }))).toEqual(refused(`options.recent[${i}]`, what));
    });
  });

  it.each([[0], [-1], [1.5], [Date.UTC(2026, 0, 1)]])('takes now = %d', (now) => {
    expect(refusal(checkOptions({ ...options, now }))).toBe('accepted');
  });

  it.each([
    [Number.NaN, 'number NaN'],
    [Number.POSITIVE_INFINITY, 'number Infinity'],
    ['0', '"0"'],
    [null, 'null'],
  ])('refuses now = %s', (now, shown) => {
    expect(refusal(checkOptions({ ...options, now }))).toEqual(refused('options.now', `expected a finite number of milliseconds, got ${shown}`));
  });

  describe.each([['mark'], ['masqueradeMark']])('%s', (name) => {
    it.each([[0], [0x4000], [0xffffffff]])('takes %d', (m) => {
      expect(refusal(checkOptions({ ...options, [name]: m }))).toBe('accepted');
    });
    it.each([
      [-1, 'number -1'],
      [0x100000000, 'number 4294967296'],
      [0.5, 'number 0.5'],
      [Number.NaN, 'number NaN'],
      ['0x4000', '"0x4000"'],
      [null, 'null'],
    ])('refuses %s', (m, shown) => {
      expect(refusal(checkOptions({ ...options, [name]: m }))).toEqual(refused(`options.${name}`, `expected a 32-bit mark, got ${shown}`));
    });
  });

  it.each([['NEW'], ['ESTABLISHED'], ['RELATED'], ['INVALID'], ['UNTRACKED']])('takes the conntrack state %s', (conntrack) => {
    expect(refusal(checkOptions({ ...options, conntrack }))).toBe('accepted');
  });

  it.each([
    ['new', '"new"'],
    ['SNAT', '"SNAT"'],
    [1, 'number 1'],
    [null, 'null'],
  ])('refuses the conntrack state %j', (conntrack, shown) => {
    expect(refusal(checkOptions({ ...options, conntrack }))).toEqual(
      refused('options.conntrack', `unknown conntrack state ${shown} (expected NEW, ESTABLISHED, RELATED, INVALID, UNTRACKED)`),
    );
  });

  it.each([
    ['f', '"f"'],
    [null, 'null'],
    [{}, 'object'],
  ])('refuses onOutcome %j', (onOutcome, shown) => {
    expect(refusal(checkOptions({ ...options, onOutcome }))).toEqual(refused('options.onOutcome', `expected a function, got ${shown}`));
  });

  it('reports the first bad field in the order localAddresses, recent, now, masqueradeMark, mark, conntrack, onOutcome', () => {
    const bad = { localAddresses: [1], recent: [null], now: 'x', masqueradeMark: -1, mark: -1, conntrack: 'x', onOutcome: 'x' };
    const order = ['options.localAddresses[0]', 'options.recent[0]', 'options.now', 'options.masqueradeMark', 'options.mark', 'options.conntrack', 'options.onOutcome'];
    const fixes: Record<string, unknown>[] = [{ localAddresses: [] }, { recent: [] }, { now: 0 }, { masqueradeMark: 0 }, { mark: 0 }, { conntrack: 'NEW' }, { onOutcome: undefined }];
    let value: Record<string, unknown> = bad;
    const seen: string[] = [];
    for (const fix of fixes) {
      const r = refusal(checkOptions(value));
      seen.push(r === 'accepted' ? 'accepted' : r.field);
      value = { ...value, ...fix };
    }
    seen.push(refusal(checkOptions(value)) === 'accepted' ? 'accepted' : 'refused');
    expect(seen).toEqual([...order, 'accepted']);
  });
});

describe('checkFamily', () => {
  it.each([
    [undefined, 4],
    [null, 4],
    ['x', 4],
    [[6], 4],
    [{}, 4],
    [{ family: undefined }, 4],
    [{ family: 4 }, 4],
    [{ family: 6 }, 6],
  ])('reads %j as IPv%d', (value, family) => {
    expect(checkFamily(value)).toEqual({ ok: true, value: family });
  });

  it.each([
    [{ family: 5 }, 'number 5'],
    [{ family: '6' }, '"6"'],
    [{ family: 'IPv6' }, '"IPv6"'],
    [{ family: null }, 'null'],
  ])('refuses %j', (value, shown) => {
    expect(refusal(checkFamily(value))).toEqual(refused('options.family', `expected 4 or 6, got ${shown}`));
  });
});

/** A Ruleset with one nat rule, in a chain the nat table declares. */
function oneRule(rule: unknown, family: unknown = 4): Record<string, unknown> {
  return {
    family,
    tables: [
      { name: 'filter', chains: [], rules: [], deletedChains: [] },
      { name: 'nat', chains: ['KUBE-X'], rules: [rule], deletedChains: [] },
    ],
  };
}

const rule = (matches: readonly unknown[], target?: unknown): Record<string, unknown> => (target === undefined ? { chain: 'KUBE-X', matches } : { chain: 'KUBE-X', matches, target });

/** One valid Match of each kind (ruleset.ts). */
const MATCHES: readonly Match[] = [
  { kind: 'comment', text: 'ns1/svc1:p80' },
  { kind: 'protocol', protocol: 'tcp' },
  { kind: 'dport', port: 80 },
  { kind: 'source', address: '10.0.0.0/8', negated: false },
  { kind: 'destination', address: '172.30.0.41/32', negated: true },
  { kind: 'addrtype', direction: 'dst', addressType: 'LOCAL' },
  { kind: 'statistic', probability: '0.5000000000', denominator: 2 },
  { kind: 'recent-check', name: 'KUBE-SEP-X', seconds: 10800 },
  { kind: 'recent-set', name: 'KUBE-SEP-X' },
  { kind: 'mark', value: '0x4000', mask: '0x4000', negated: true },
  { kind: 'conntrack', states: ['NEW', 'RELATED'], negated: false },
  { kind: 'nfacct', name: 'ct_entries' },
];

/** One valid Target of each kind. */
const TARGETS: readonly Target[] = [
  { kind: 'jump', chain: 'KUBE-X' },
  { kind: 'accept' },
  { kind: 'drop' },
  { kind: 'reject' },
  { kind: 'return' },
  { kind: 'dnat', destination: '10.180.0.1:80' },
  { kind: 'mark', op: 'or', value: '0x4000' },
  { kind: 'masquerade', randomFully: true },
];

/** A value of the wrong type for a field of the given type. */
function wrongFor(value: unknown): readonly unknown[] {
  if (typeof value === 'string') return [5, undefined, null, [value]];
  if (typeof value === 'number') return [String(value), undefined, null];
  if (typeof value === 'boolean') return ['false', 0, undefined];
  // An array of strings.
  return ['NEW', ['NEW', 5], [5, 'NEW'], [null], undefined];
}

describe('checkRuleset', () => {
  const generated = generateRules(
    [makeService('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] })],
    [simpleSlice('ns1', 'svc1', tcp80(), [{ addresses: ['10.180.0.1'] }])],
    fakeProxierConfig(),
  );

  it('takes what generateRules makes, as it is', () => {
    const result = checkRuleset(generated.ruleset);
    expect(result.ok && result.value).toBe(generated.ruleset);
  });

  it.each([
    [42, 'number 42'],
    [null, 'null'],
    [undefined, 'undefined'],
    [[], 'an array'],
    ['*nat', '"*nat"'],
  ])('refuses %j', (value, shown) => {
    expect(refusal(checkRuleset(value))).toEqual(refused('ruleset', `expected a Ruleset or a restore text, got ${shown}`));
  });

  const [filter, nat] = generated.ruleset.tables;
  const problems: readonly (readonly [string, unknown, string])[] = [
    ['family 5', { ...generated.ruleset, family: 5 }, 'family: expected 4 or 6, got number 5'],
    ['family "4"', { ...generated.ruleset, family: '4' }, 'family: expected 4 or 6, got "4"'],
    ['no family', { tables: generated.ruleset.tables }, 'family: expected 4 or 6, got undefined'],
    ['no tables', { family: 4 }, 'tables: expected [filter, nat]'],
    ['tables an object', { family: 4, tables: { filter, nat } }, 'tables: expected [filter, nat]'],
    ['one table', { family: 4, tables: [filter] }, 'tables: expected [filter, nat]'],
    ['three tables', { family: 4, tables: [filter, nat, nat] }, 'tables: expected [filter, nat]'],
    ['nat first', { family: 4, tables: [nat, filter] }, 'tables[0]: expected the filter table'],
    ['two filter tables', { family: 4, tables: [filter, filter] }, 'tables[1]: expected the nat table'],
    ['a null table', { family: 4, tables: [filter, null] }, 'tables[1]: expected the nat table'],
    ['chains missing', { family: 4, tables: [{ ...filter, chains: undefined }, nat] }, 'tables[0].chains: expected an array of chain names'],
    ['a chain that is a number', { family: 4, tables: [filter, { ...nat, chains: [...nat.chains, 5] }] }, 'tables[1].chains: expected an array of chain names'],
    ['a number chain first', { family: 4, tables: [filter, { ...nat, chains: [5, ...nat.chains] }] }, 'tables[1].chains: expected an array of chain names'],
    ['rules missing', { family: 4, tables: [filter, { ...nat, rules: undefined }] }, 'tables[1].rules: expected an array of rules'],
    ['rules a string', { family: 4, tables: [{ ...filter, rules: '-A X' }, nat] }, 'tables[0].rules: expected an array of rules'],
    ['a null rule', { family: 4, tables: [filter, { ...nat, rules: [...nat.rules.slice(0, 2), null] }] }, 'tables[1].rules[2]: expected { chain, matches, target? }'],
    ['a rule without a chain', oneRule({ matches: [] }), 'tables[1].rules[0]: expected { chain, matches, target? }'],
    ['a rule whose chain is a number', oneRule({ chain: 1, matches: [] }), 'tables[1].rules[0]: expected { chain, matches, target? }'],
    ['matches missing', oneRule({ chain: 'KUBE-X' }), 'tables[1].rules[0].matches: expected an array of matches'],
    ['a null match', oneRule(rule([MATCHES[0], null])), 'tables[1].rules[0].matches[1]: not a Match'],
    ['a match without a kind', oneRule(rule([{ text: 'x' }])), 'tables[1].rules[0].matches[0]: not a Match'],
    ['a match kind that is a number', oneRule(rule([{ kind: 1 }])), 'tables[1].rules[0].matches[0]: not a Match'],
    ['an unknown match kind', oneRule(rule([{ kind: 'multiport', ports: '80,443' }])), 'tables[1].rules[0].matches[0]: not a Match'],
    // A name every object inherits is not a kind.
    ['the match kind toString', oneRule(rule([{ kind: 'toString' }])), 'tables[1].rules[0].matches[0]: not a Match'],
    ['the match kind constructor', oneRule(rule([{ kind: 'constructor' }])), 'tables[1].rules[0].matches[0]: not a Match'],
    // A kind that is not a string but reads as one when used as a key.
    ['a match kind that is a one-element array', oneRule(rule([{ kind: ['comment'], text: 'x' }])), 'tables[1].rules[0].matches[0]: not a Match'],
    ['a target kind that is an object naming a kind', oneRule(rule([], { kind: { toString: () => 'accept' } })), 'tables[1].rules[0].target: not a Target'],
    ['a target that is a string', oneRule(rule([], 'ACCEPT')), 'tables[1].rules[0].target: not a Target'],
    ['a null target', oneRule(rule([], null)), 'tables[1].rules[0].target: not a Target'],
    ['an unknown target kind', oneRule(rule([], { kind: 'snat', source: '1.2.3.4' })), 'tables[1].rules[0].target: not a Target'],
    ['the target kind hasOwnProperty', oneRule(rule([], { kind: 'hasOwnProperty' })), 'tables[1].rules[0].target: not a Target'],
    ['deletedChains a string', { family: 4, tables: [{ ...filter, deletedChains: 'KUBE-OLD' }, nat] }, 'tables[0].deletedChains: expected an array'],
    ['deletedChains null', { family: 4, tables: [filter, { ...nat, deletedChains: null }] }, 'tables[1].deletedChains: expected an array'],
  ];

  it.each(problems)('refuses %s, saying where', (_, value, what) => {
    expect(refusal(checkRuleset(value))).toEqual(refused('ruleset', what));
  });

  it('a Ruleset checked twice gets the same answer: refused twice, or accepted twice as the same object', () => {
    const bad = { family: 4, tables: [filter, { ...nat, rules: [{ chain: 'KUBE-X', matches: 'oops' }] }] };
    const first = refusal(checkRuleset(bad));
    expect(first).toEqual(refused('ruleset', 'tables[1].rules[0].matches: expected an array of matches'));
    expect(refusal(checkRuleset(bad))).toEqual(first);
    const good = oneRule(rule([MATCHES[0]]));
    expect(checkRuleset(good)).toEqual({ ok: true, value: good });
    const again = checkRuleset(good);
    expect(again.ok && again.value).toBe(good);
  });

  it.each([
    ['an IPv6 ruleset', oneRule(rule([]), 6)],
    ['a rule without a target', oneRule(rule([MATCHES[0]]))],
    ['no deletedChains', { family: 4, tables: [{ name: 'filter', chains: [], rules: [] }, { name: 'nat', chains: [], rules: [] }] }],
    ['deletedChains listed', { family: 4, tables: [{ ...filter, deletedChains: ['KUBE-OLD'] }, nat] }],
    ['every match kind in one rule', oneRule(rule(MATCHES))],
    ['an empty conntrack state list', oneRule(rule([{ kind: 'conntrack', states: [], negated: false }]))],
    ['more fields than the kind has', oneRule(rule([{ kind: 'comment', text: 'x', extra: 1 }], { kind: 'accept', extra: 1 }))],
  ])('takes %s', (_, value) => {
    expect(refusal(checkRuleset(value))).toBe('accepted');
  });

  it.each(TARGETS.map((t) => [t.kind, t] as const))('takes the target kind %s', (_, target) => {
    expect(refusal(checkRuleset(oneRule(rule([], target))))).toBe('accepted');
  });

  // Each field of each kind, with a value of another type: refused, at that match or target.
  const badMatches = MATCHES.flatMap((m) =>
    Object.entries(m)
      .filter(([name]) => name !== 'kind' && !(m.kind === 'statistic' && name === 'denominator'))
      .flatMap(([name, value]) => wrongFor(value).map((wrong) => [`${m.kind}.${name} = ${JSON.stringify(wrong) ?? 'undefined'}`, { ...m, [name]: wrong }] as const)),
  );
  it.each(badMatches)('refuses the match %s', (_, match) => {
    expect(refusal(checkRuleset(oneRule(rule([MATCHES[0], match]))))).toEqual(refused('ruleset', 'tables[1].rules[0].matches[1]: not a Match'));
  });

  const badTargets = TARGETS.flatMap((t) =>
    Object.entries(t)
      .filter(([name]) => name !== 'kind' && !(t.kind === 'masquerade' && name === 'randomFully'))
      .flatMap(([name, value]) => wrongFor(value).map((wrong) => [`${t.kind}.${name} = ${JSON.stringify(wrong) ?? 'undefined'}`, { ...t, [name]: wrong }] as const)),
  );
  it.each(badTargets)('refuses the target %s', (_, target) => {
    expect(refusal(checkRuleset(oneRule(rule([MATCHES[0]], target))))).toEqual(refused('ruleset', 'tables[1].rules[0].target: not a Target'));
  });

  it('refuses each bad field of every kind (the lists are not empty)', () => {
    // comment 1, protocol 1, dport 1, source 2, destination 2, addrtype 2, statistic 1,
    // recent-check 2, recent-set 1, mark 3, conntrack 2, nfacct 1; jump 1, dnat 1, mark 2.
    expect(new Set(badMatches.map(([name]) => name.split(' ')[0])).size).toBe(19);
    expect(new Set(badTargets.map(([name]) => name.split(' ')[0])).size).toBe(4);
  });
});

describe('through tracePacket', () => {
  it('checks the packet with the family of the ruleset, and the options after the packet', () => {
    const v6: Ruleset = { family: 6, tables: [{ name: 'filter', chains: [], rules: [], deletedChains: [] }, { name: 'nat', chains: [], rules: [], deletedChains: [] }] };
    expect(refusal(tracePacket(v6, packet as never, options))).toEqual(refused('packet.source', '"10.0.0.2" is not an IPv6 address'));
    expect(refusal(tracePacket(v6, packet6 as never, { localAddresses: ['192.168.0.2', 'fd00::1'] }))).toBe('accepted');
    expect(refusal(tracePacket(v6, { ...packet6, entry: 'x' } as never, null as never))).toEqual(
      refused('packet.entry', 'unknown entry point "x" (expected pod, node, outside or host)'),
    );
    expect(refusal(tracePacket(v6, packet6 as never, null as never))).toEqual(refused('options', 'expected an object, got null'));
  });
});

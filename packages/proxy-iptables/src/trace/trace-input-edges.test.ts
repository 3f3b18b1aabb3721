// The Ruleset check at the tracer's edge, and the order of the checks through tracePacket:
// every refusal names its field and says what was expected and what came (the message is
// `field: what`), and each match and target kind is accepted. The checks of the packet and
// the options alone are @kubesvc/proxy's (trace/packet-input.test.ts there).
// The expected texts are written here from the rules the README states ("an ErrTrace whose
// field names the argument at fault"), not read back from the code.
import { describe, expect, it } from 'vitest';
import { fieldRefusal, refusedField, type FieldRefusal } from '@kubesvc/testkit';
import type { Match, Ruleset, Target } from '../ruleset.js';
import { generateRules } from '../backend.js';
import { fakeProxierConfig, makeService, simpleSlice, tcp80 } from '../upstream.fixtures.js';
import { checkRuleset } from './trace-input.js';
import { tracePacket } from './trace-packet.js';

const refusal = fieldRefusal;
const refused = (field: string, what: string): FieldRefusal => refusedField('ErrTrace', field, what);

const packet = { source: '10.0.0.2', destination: '172.30.0.41', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
const options = { localAddresses: ['192.168.0.2'] };
const packet6 = { source: 'fd00::2', destination: 'fd00:30::41', protocol: 'udp', destinationPort: 53, entry: 'node' };

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

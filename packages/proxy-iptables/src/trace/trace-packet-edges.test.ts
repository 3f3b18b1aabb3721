// The interpreter's corners that the generated-rules tests do not reach: which netfilter hooks
// a packet takes for each entry point and conntrack state, the targets and matches one at a
// time on small rulesets, the placements iptables refuses, the statistic match at 0, 1 and
// where the kernel's fixed point rounds a probability to 0 or 1, and DNAT destinations.
// Facts: linux net/netfilter (nat only for NEW packets; locally generated packets take
// OUTPUT then POSTROUTING, and INPUT when looped back; DNAT and MASQUERADE end the nat chain
// walk), iptables extensions/libxt_statistic.c (stored = lround(p·2^31)), xt_recent.c.
import { describe, expect, it } from 'vitest';
import type { Match, Rule, Ruleset, Target } from '../ruleset.js';
import { RATIONAL_ZERO as ZERO, reduceRational as reduce } from '@kubesvc/proxy';
import { tracePacket, traceSteps } from './trace-packet.js';
import type { Packet, TraceOptions, TraceOutcome } from './trace-types.js';

const FILTER_HEAD = ':INPUT ACCEPT [0:0]\n:FORWARD ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]';
const NAT_HEAD = ':PREROUTING ACCEPT [0:0]\n:INPUT ACCEPT [0:0]\n:OUTPUT ACCEPT [0:0]\n:POSTROUTING ACCEPT [0:0]';

/** A restore text with the built-in chains declared and the given lines in each table. */
function restore(filter: readonly string[], nat: readonly string[]): string {
  return ['*filter', FILTER_HEAD, ...filter, 'COMMIT', '*nat', NAT_HEAD, ...nat, 'COMMIT', ''].join('\n');
}

/** One counting rule in every built-in chain a packet can take: the matched rules are the hooks. */
const probe = restore(
  ['-A INPUT -m comment --comment probe', '-A FORWARD -m comment --comment probe', '-A OUTPUT -m comment --comment probe'],
  ['-A PREROUTING -m comment --comment probe', '-A OUTPUT -m comment --comment probe', '-A POSTROUTING -m comment --comment probe'],
);

const NODE = '192.168.0.2';
const options: TraceOptions = { localAddresses: [NODE] };
const toRemote: Packet = { source: '10.0.0.2', destination: '10.0.1.5', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
const toNode: Packet = { ...toRemote, destination: NODE };

function outcomes(ruleset: Ruleset | string, packet: Packet, opts: TraceOptions = options): readonly TraceOutcome[] {
  const result = tracePacket(ruleset, packet, opts);
  if (!result.ok) throw new Error(result.error.message);
  return result.value.outcomes;
}

function only(ruleset: Ruleset | string, packet: Packet, opts: TraceOptions = options): TraceOutcome {
  const all = outcomes(ruleset, packet, opts);
  expect(all).toHaveLength(1);
  const [first] = all;
  if (first === undefined) throw new Error('no outcome');
  return first;
}

const hooks = (o: TraceOutcome): string[] => o.matched.map((m) => `${m.table} ${m.chain}`);

/** A Ruleset value, for what a restore text cannot say (or iptables-restore would refuse). */
function ruleset(nat: readonly Rule[], filter: readonly Rule[] = [], natChains: readonly string[] = [], family: 4 | 6 = 4): Ruleset {
  return {
    family,
    tables: [
      { name: 'filter', chains: ['INPUT', 'FORWARD', 'OUTPUT'], rules: filter, deletedChains: [] },
      { name: 'nat', chains: ['PREROUTING', 'INPUT', 'OUTPUT', 'POSTROUTING', ...natChains], rules: nat, deletedChains: [] },
    ],
  };
}
const rule = (chain: string, matches: readonly Match[], target?: Target): Rule => (target === undefined ? { chain, matches } : { chain, matches, target });

describe('the hooks a packet takes', () => {
  it('NEW, from a pod: nat PREROUTING, then filter FORWARD and nat POSTROUTING, or filter INPUT when it is for this node', () => {
    expect(hooks(only(probe, toRemote))).toEqual(['nat PREROUTING', 'filter FORWARD', 'nat POSTROUTING']);
    expect(only(probe, toRemote).delivery).toBe('forward');
    expect(hooks(only(probe, toNode))).toEqual(['nat PREROUTING', 'filter INPUT']);
    expect(only(probe, toNode).delivery).toBe('local');
  });

  it('NEW, from this host: nat OUTPUT, filter OUTPUT, nat POSTROUTING, and filter INPUT when it loops back', () => {
    const host = { ...toRemote, source: NODE, entry: 'host' } as const;
    expect(hooks(only(probe, host))).toEqual(['nat OUTPUT', 'filter OUTPUT', 'nat POSTROUTING']);
    expect(only(probe, host).delivery).toBe('forward');
    expect(hooks(only(probe, { ...host, destination: '127.0.0.1' }))).toEqual(['nat OUTPUT', 'filter OUTPUT', 'nat POSTROUTING', 'filter INPUT']);
    expect(hooks(only(probe, { ...host, destination: NODE }))).toEqual(['nat OUTPUT', 'filter OUTPUT', 'nat POSTROUTING', 'filter INPUT']);
  });

  it('not NEW: nat is skipped, and the trail says so first', () => {
    const established = { ...options, conntrack: 'ESTABLISHED' } as const;
    expect(hooks(only(probe, toRemote, established))).toEqual(['filter FORWARD']);
    expect(hooks(only(probe, toNode, established))).toEqual(['filter INPUT']);
    const host = { ...toRemote, source: NODE, entry: 'host' } as const;
    expect(hooks(only(probe, host, established))).toEqual(['filter OUTPUT']);
    expect(hooks(only(probe, { ...host, destination: NODE }, established))).toEqual(['filter OUTPUT', 'filter INPUT']);
    const steps = traceSteps(only(probe, toRemote, established));
    expect(steps[0]).toEqual({ kind: 'skip', reason: 'conntrack ESTABLISHED: the nat table is not consulted' });
    expect(steps.filter((s) => s.kind === 'hook')).toEqual([{ kind: 'hook', table: 'filter', chain: 'FORWARD' }]);
  });

  it('traceSteps lists a NEW run from its first hook, in order', () => {
    expect(traceSteps(only(probe, toNode)).map((s) => (s.kind === 'hook' ? `hook ${s.table} ${s.chain}` : s.kind))).toEqual([
      'hook nat PREROUTING',
      'rule',
      'hook filter INPUT',
      'rule',
    ]);
  });

  it('an IPv6 packet: ::1 and the listed addresses are local, other addresses are not', () => {
    const six: TraceOptions = { localAddresses: ['fd00::2'], family: 6 };
    const p6: Packet = { source: 'fd00::9', destination: 'fd00::5', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
    expect(only(probe, p6, six).delivery).toBe('forward');
    expect(only(probe, { ...p6, destination: '::1' }, six).delivery).toBe('local');
    expect(only(probe, { ...p6, destination: 'fd00::2' }, six).delivery).toBe('local');
    // 127.0.0.0/8 is IPv4's loopback only: ::7f00:1 is not local.
    expect(only(probe, { ...p6, destination: '::7f00:1' }, six).delivery).toBe('forward');
  });
});

describe('outcomes and their fields', () => {
  it('one outcome per run, counted; a DNAT-free outcome carries no dnat field; matched rules carry their 0-based index', () => {
    const result = tracePacket(probe, toRemote, options);
    expect(result.ok && result.value.outcomeCount).toBe(1);
    const o = only(probe, toRemote);
    expect('dnat' in o).toBe(false);
    expect(o.kind).toBe('no-match');
    const text = restore([], ['-A PREROUTING -m comment --comment first', '-A PREROUTING -m comment --comment second']);
    expect(only(text, toRemote).matched.map((m) => m.index)).toEqual([0, 1]);
    const counted: TraceOutcome[] = [];
    const streamed = tracePacket(probe, toRemote, { ...options, onOutcome: (x) => counted.push(x) });
    expect(streamed.ok && [streamed.value.outcomeCount, streamed.value.outcomes.length]).toEqual([1, 0]);
    expect(counted).toHaveLength(1);
  });

  it('markedForMasquerade reads the mark against the masqueradeMark option; the starting mark is the mark option', () => {
    const mark = restore([], ['-A PREROUTING -j MARK --or-mark 0x1']);
    expect(only(mark, toRemote)).toMatchObject({ markedForMasquerade: false, masqueraded: false });
    expect(only(mark, toRemote, { ...options, masqueradeMark: 0x1 })).toMatchObject({ markedForMasquerade: true, masqueraded: false });
    expect(only(probe, toRemote, { ...options, mark: 0x4000 }).markedForMasquerade).toBe(true);
    // XOR flips the bit it is given; OR leaves a set bit set.
    const xor = restore([], ['-A PREROUTING -j MARK --xor-mark 0x4000']);
    const or = restore([], ['-A PREROUTING -j MARK --or-mark 0x4000']);
    expect(only(xor, toRemote, { ...options, mark: 0x4000 }).markedForMasquerade).toBe(false);
    expect(only(or, toRemote, { ...options, mark: 0x4000 }).markedForMasquerade).toBe(true);
    expect(only(xor, toRemote).markedForMasquerade).toBe(true);
  });

  it('a host packet rejected in filter OUTPUT, before routing decided, is reported towards where it was going', () => {
    const reject = restore(['-A OUTPUT -j REJECT'], []);
    const host = { ...toRemote, source: NODE, entry: 'host' } as const;
    expect(only(reject, host)).toMatchObject({ kind: 'reject', delivery: 'forward' });
    expect(only(reject, { ...host, destination: NODE })).toMatchObject({ kind: 'reject', delivery: 'local' });
  });

  it('ACCEPT in nat only ends the nat chain; ACCEPT in filter makes the outcome "accept"', () => {
    expect(only(restore([], ['-A PREROUTING -j ACCEPT', '-A PREROUTING -j DNAT --to-destination 10.9.9.9:80']), toRemote).kind).toBe('no-match');
    expect(only(restore(['-A FORWARD -j ACCEPT', '-A FORWARD -j DROP'], []), toRemote).kind).toBe('accept');
  });

  it('RETURN goes back to the rule after the jump, with a return step; RETURN in a built-in chain ends it', () => {
    const text = restore(
      [],
      [
        ':SUB - [0:0]',
        '-A PREROUTING -j SUB',
        '-A PREROUTING -m comment --comment after',
        '-A SUB -j RETURN',
        '-A SUB -j DNAT --to-destination 10.9.9.9:80',
      ],
    );
    const o = only(text, toRemote);
    expect(o.kind).toBe('no-match');
    expect(o.chains).toEqual(['SUB']);
    expect(o.matched.map((m) => `${m.chain} ${m.index}`)).toEqual(['PREROUTING 0', 'SUB 0', 'PREROUTING 1']);
    expect(traceSteps(o).filter((s) => s.kind === 'return')).toEqual([{ kind: 'return', table: 'nat', chain: 'PREROUTING' }]);
    const builtin = only(restore([], ['-A PREROUTING -j RETURN', '-A PREROUTING -j DNAT --to-destination 10.9.9.9:80']), toRemote);
    expect(builtin.kind).toBe('no-match');
    expect(traceSteps(builtin).filter((s) => s.kind === 'return')).toEqual([]);
  });

  it('the user chains entered are listed in order', () => {
    const text = restore([], [':A - [0:0]', ':B - [0:0]', '-A PREROUTING -j A', '-A A -j B', '-A PREROUTING -j B']);
    expect(only(text, toRemote).chains).toEqual(['A', 'B', 'B']);
  });

  it('jumps may nest 31 chains below a built-in chain; a 32nd is refused as a likely loop', () => {
    const nest = (n: number): string =>
      restore(
        [],
        [...Array.from({ length: n }, (_, i) => `:C${i} - [0:0]`), '-A PREROUTING -j C0', ...Array.from({ length: n - 1 }, (_, i) => `-A C${i} -j C${i + 1}`)],
      );
    expect(only(nest(31), toRemote).chains).toHaveLength(31);
    const deep = tracePacket(nest(32), toRemote, options);
    expect(deep.ok ? 'traced' : deep.error.message).toBe('nat C30: jumps nest deeper than 32 (a loop?)');
  });
});

describe('DNAT', () => {
  const filterSees = ['-A FORWARD -p tcp -m tcp --dport 8080 -m comment --comment to-8080', '-A FORWARD -m conntrack --ctstate DNAT -m comment --comment dnat-state'];
  const comments = (o: TraceOutcome): string[] => o.matched.flatMap((m) => m.rule.matches.flatMap((x) => (x.kind === 'comment' ? [x.text] : [])));

  it('sets the destination, the port when one is given, and the DNAT conntrack state', () => {
    const withPort = only(restore(filterSees, ['-A PREROUTING -j DNAT --to-destination 10.9.9.9:8080']), toRemote);
    expect(withPort).toMatchObject({ kind: 'dnat', dnat: '10.9.9.9:8080', delivery: 'forward' });
    expect(comments(withPort)).toEqual(['to-8080', 'dnat-state']);
    // Without a port the packet keeps its own (80).
    const to80 = '-A FORWARD -p tcp -m tcp --dport 80 -m comment --comment to-80';
    const noPort = only(restore([...filterSees, to80], ['-A PREROUTING -j DNAT --to-destination 10.9.9.9']), toRemote);
    expect(noPort.dnat).toBe('10.9.9.9');
    expect(comments(noPort)).toEqual(['dnat-state', 'to-80']);
    // To this node: delivered locally.
    expect(only(restore([], [`-A PREROUTING -j DNAT --to-destination ${NODE}:80`]), toRemote).delivery).toBe('local');
  });

  it('IPv6 destinations are bracketed, with or without a port', () => {
    const six: TraceOptions = { localAddresses: [], family: 6 };
    const p6: Packet = { source: 'fd00::9', destination: 'fd00::5', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
    const filter = ['-A FORWARD -p tcp -m tcp --dport 8080 -m comment --comment to-8080'];
    const withPort = only(restore(filter, ['-A PREROUTING -j DNAT --to-destination [fd00::7]:8080']), p6, six);
    expect(withPort.dnat).toBe('[fd00::7]:8080');
    expect(withPort.matched.map((m) => m.chain)).toEqual(['PREROUTING', 'FORWARD']);
    const bare = only(ruleset([rule('PREROUTING', [], { kind: 'dnat', destination: 'fd00::7' })], [], [], 6), p6, six);
    expect(bare.dnat).toBe('fd00::7');
    // Without a port the packet keeps its own (80), which a filter rule then sees.
    const port80 = rule('FORWARD', [{ kind: 'dport', port: 80 }, { kind: 'comment', text: 'to-80' }]);
    const bracketOnly = only(ruleset([rule('PREROUTING', [], { kind: 'dnat', destination: '[fd00::7]' })], [port80], [], 6), p6, six);
    expect(bracketOnly.dnat).toBe('[fd00::7]');
    expect(bracketOnly.matched.map((m) => m.chain)).toEqual(['PREROUTING', 'FORWARD']);
  });

  it.each([['nope'], ['10.9.9.9:x80'], ['10.9.9.9:80x'], ['10.9.9.9:123456'], ['10.9.9.9:']])('refuses the destination %s', (destination) => {
    const result = tracePacket(ruleset([rule('PREROUTING', [], { kind: 'dnat', destination })]), toRemote, options);
    expect(result).toEqual({ ok: false, error: { _tag: 'ErrTrace', message: `PREROUTING: bad DNAT destination ${destination}` } });
  });

  it.each([['x[fd00::7]:80'], ['[fd00::7]:80x'], ['[fd00::7]x']])('refuses the IPv6 destination %s', (destination) => {
    const p6: Packet = { source: 'fd00::9', destination: 'fd00::5', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
    const result = tracePacket(ruleset([rule('PREROUTING', [], { kind: 'dnat', destination })], [], [], 6), p6, { localAddresses: [], family: 6 });
    expect(result).toEqual({ ok: false, error: { _tag: 'ErrTrace', message: `PREROUTING: bad DNAT destination ${destination}` } });
  });
});

describe('what iptables refuses, and values a Ruleset can hold that the tracer cannot read', () => {
  const refused = (rs: Ruleset, packet: Packet = toRemote): string => {
    const result = tracePacket(rs, packet, options);
    return result.ok ? 'traced' : `${result.error._tag}: ${result.error.message}`;
  };
  const host = { ...toRemote, source: NODE, entry: 'host' } as const;

  it('REJECT outside filter, DNAT outside nat PREROUTING and OUTPUT, MASQUERADE outside nat POSTROUTING', () => {
    expect(refused(ruleset([rule('PREROUTING', [], { kind: 'reject' })]))).toBe('ErrTrace: nat PREROUTING: REJECT is only valid in the filter table');
    expect(refused(ruleset([], [rule('FORWARD', [], { kind: 'dnat', destination: '10.9.9.9:80' })]))).toBe(
      'ErrTrace: filter FORWARD: DNAT is only valid in nat PREROUTING and OUTPUT',
    );
    expect(refused(ruleset([rule('POSTROUTING', [], { kind: 'dnat', destination: '10.9.9.9:80' })]))).toBe(
      'ErrTrace: nat POSTROUTING: DNAT is only valid in nat PREROUTING and OUTPUT',
    );
    expect(refused(ruleset([rule('OUTPUT', [], { kind: 'dnat', destination: '10.9.9.9:80' })]), host)).toBe('traced');
    expect(refused(ruleset([], [rule('OUTPUT', [], { kind: 'dnat', destination: '10.9.9.9:80' })]), host)).toBe(
      'ErrTrace: filter OUTPUT: DNAT is only valid in nat PREROUTING and OUTPUT',
    );
    expect(refused(ruleset([rule('PREROUTING', [], { kind: 'masquerade', randomFully: false })]))).toBe(
      'ErrTrace: nat PREROUTING: MASQUERADE is only valid in nat POSTROUTING',
    );
    expect(refused(ruleset([], [rule('FORWARD', [], { kind: 'masquerade', randomFully: false })]))).toBe(
      'ErrTrace: filter FORWARD: MASQUERADE is only valid in nat POSTROUTING',
    );
  });

  it('a bad mark target, and each match value it cannot evaluate, named with its rule', () => {
    expect(refused(ruleset([rule('PREROUTING', [], { kind: 'mark', op: 'or', value: 'zz' })]))).toBe('ErrTrace: PREROUTING: bad mark zz');
    const at = (match: Match): string => refused(ruleset([rule('PREROUTING', [{ kind: 'comment', text: 'x' }]), rule('PREROUTING', [match])]));
    expect(at({ kind: 'source', address: 'nope', negated: false })).toBe('ErrTrace: nat PREROUTING rule 2: bad address nope');
    expect(at({ kind: 'addrtype', direction: 'dst', addressType: 'UNICAST' as 'LOCAL' })).toBe('ErrTrace: nat PREROUTING rule 2: addrtype UNICAST cannot be traced');
    expect(at({ kind: 'mark', value: 'zz', mask: '0x1', negated: false })).toBe('ErrTrace: nat PREROUTING rule 2: bad mark zz/0x1');
    expect(at({ kind: 'conntrack', states: ['NEW', 'BOGUS'], negated: false })).toBe('ErrTrace: nat PREROUTING rule 2: unknown conntrack state BOGUS');
    expect(at({ kind: 'statistic', probability: 'abc', denominator: 2 })).toBe('ErrTrace: nat PREROUTING rule 2: bad --probability abc');
    expect(at({ kind: 'statistic', probability: '1.5', denominator: 2 })).toBe('ErrTrace: nat PREROUTING rule 2: bad --probability 1.5');
    // Read as a double this is 1; as written it is more than 1, which no probability is.
    expect(at({ kind: 'statistic', probability: '1.00000000000000000001', denominator: 1 })).toBe(
      'ErrTrace: nat PREROUTING rule 2: bad --probability 1.00000000000000000001',
    );
  });

  it('a rule in a chain the table does not declare is kept out of reach, not an error', () => {
    const rs = ruleset([rule('GHOST', [], { kind: 'drop' }), rule('PREROUTING', [{ kind: 'comment', text: 'x' }])]);
    expect(only(rs, toRemote).kind).toBe('no-match');
  });

  it('an ICMP packet has no port: a port match never matches it', () => {
    const ping: Packet = { source: '10.0.0.2', destination: '10.0.1.5', protocol: 'icmp', entry: 'pod' };
    expect(only(ruleset([rule('PREROUTING', [{ kind: 'dport', port: 1 }], { kind: 'drop' })]), ping).kind).toBe('no-match');
    expect(only(ruleset([rule('PREROUTING', [{ kind: 'dport', port: 80 }], { kind: 'drop' })]), toRemote).kind).toBe('drop');
  });

  it('MASQUERADE marks the connection SNAT, which a later hook sees', () => {
    const rs = ruleset(
      [rule('POSTROUTING', [], { kind: 'masquerade', randomFully: false })],
      [rule('INPUT', [{ kind: 'conntrack', states: ['SNAT'], negated: false }, { kind: 'comment', text: 'snat' }])],
    );
    const o = only(rs, { ...host, destination: NODE });
    expect(o.masqueraded).toBe(true);
    expect(o.matched.map((m) => `${m.table} ${m.chain}`)).toEqual(['nat POSTROUTING', 'filter INPUT']);
  });
});

describe('the statistic match at its edges', () => {
  const stat = (probability: string): string => restore([], [`-A PREROUTING -m statistic --mode random --probability ${probability} -j DNAT --to-destination 10.9.9.9:80`]);

  it('0 never matches and 1 always does: one outcome, no branch', () => {
    const never = only(stat('0.0000000000'), toRemote);
    expect(never.kind).toBe('no-match');
    const always = only(stat('1.0000000000'), toRemote);
    expect(always.kind).toBe('dnat');
    expect(traceSteps(always).some((s) => s.kind === 'branch')).toBe(false);
  });

  it('1e-10 is stored as 0 (lround(2^31·1e-10)): two runs, the taken one with kernel probability 0', () => {
    const [taken, notTaken] = outcomes(stat('0.0000000001'), toRemote);
    expect(taken?.kind).toBe('dnat');
    expect(taken?.probability).toEqual({ written: reduce(1n, 10_000_000_000n), kernel: ZERO });
    expect(notTaken?.kind).toBe('no-match');
    expect(notTaken?.probability.kernel).toEqual(reduce(1n, 1n));
  });

  it('0.9999999999 is stored as 2^31: two runs, the one not taken with kernel probability 0', () => {
    const [taken, notTaken] = outcomes(stat('0.9999999999'), toRemote);
    expect(taken?.probability.kernel).toEqual(reduce(1n, 1n));
    expect(notTaken?.probability).toEqual({ written: reduce(1n, 10_000_000_000n), kernel: ZERO });
  });

  it('a branch step names its rule by 0-based index', () => {
    const text = restore([], ['-A PREROUTING -m comment --comment first', '-A PREROUTING -m statistic --mode random --probability 0.5000000000 -j DNAT --to-destination 10.9.9.9:80']);
    const [taken] = outcomes(text, toRemote);
    const branch = traceSteps(taken as TraceOutcome).find((s) => s.kind === 'branch');
    expect(branch?.kind === 'branch' && [branch.branch.index, branch.rule.index, branch.branch.taken]).toEqual([1, 1, true]);
  });
});

describe('xt_recent within one run', () => {
  it('--rcheck sees an entry this run --set, by name, within its seconds', () => {
    const text = (name: string, seconds: number): string =>
      restore([], [`-A PREROUTING -m recent --set --name A --rsource`, `-A PREROUTING -m recent --rcheck --seconds ${seconds} --reap --name ${name} --rsource -j DNAT --to-destination 10.9.9.9:80`]);
    expect(only(text('A', 10), toRemote, { ...options, now: 5000 }).kind).toBe('dnat');
    expect(only(text('A', 0), toRemote, { ...options, now: 5000 }).kind).toBe('dnat');
    expect(only(text('B', 10), toRemote, { ...options, now: 5000 }).kind).toBe('no-match');
    expect(only(text('A', 10), toRemote, { ...options, now: 5000 }).recentUpdates).toEqual([{ name: 'A', source: '10.0.0.2', lastSeen: 5000 }]);
  });
});

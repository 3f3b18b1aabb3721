// explain's text, line by line, on small rulesets whose every outcome is worked out here by
// hand: the header (protocol, addresses, entry point, conntrack state), the verdict of each
// outcome kind, the probabilities, the recent updates, chains printed before their first
// matched rule (again after a RETURN), statistic branches taken and skipped, the nat skip of
// a packet that is not NEW, and the note on a ping to a cluster IP.
import { describe, expect, it } from 'vitest';
import type { Match, Rule, Ruleset, Target } from '../ruleset.js';
import { explain } from './explain.js';
import type { Packet, TraceOptions } from './trace-types.js';

const FILTER_HEAD = [':INPUT ACCEPT [0:0]', ':FORWARD ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]'];
const NAT_HEAD = [':PREROUTING ACCEPT [0:0]', ':INPUT ACCEPT [0:0]', ':OUTPUT ACCEPT [0:0]', ':POSTROUTING ACCEPT [0:0]'];

/**
 * A restore text with the built-in chains declared, so that the tracer runs the text's own
 * built-in rules (none matches by default: a rule for INVALID packets in each filter chain).
 */
function restore(filter: readonly string[], nat: readonly string[]): string {
  const quiet = ['-A INPUT -m conntrack --ctstate INVALID -j DROP', '-A FORWARD -m conntrack --ctstate INVALID -j DROP', '-A OUTPUT -m conntrack --ctstate INVALID -j DROP'];
  return ['*filter', ...FILTER_HEAD, ...quiet, ...filter, 'COMMIT', '*nat', ...NAT_HEAD, ...nat, 'COMMIT', ''].join('\n');
}

const NODE = '192.168.0.2';
const options: TraceOptions = { localAddresses: [NODE] };
const toVip: Packet = { source: '10.0.0.2', destination: '10.96.0.10', protocol: 'tcp', destinationPort: 80, entry: 'pod' };

function text(ruleset: Ruleset | string, packet: Packet, opts: TraceOptions = options): string {
  const result = explain(ruleset, packet, opts);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

/** The line after "outcome N: " of each outcome. */
function verdicts(ruleset: Ruleset | string, packet: Packet, opts: TraceOptions = options): string[] {
  return text(ruleset, packet, opts)
    .split('\n')
    .filter((l) => l.startsWith('outcome '))
    .map((l) => l.replace(/^outcome \d+: /, ''));
}

describe('the whole text', () => {
  it('a service of two endpoints behind a statistic rule, masqueraded: each branch, each chain once before its rules', () => {
    const rs = restore(
      [],
      [
        ':KUBE-SVC - [0:0]',
        ':KUBE-SEP-A - [0:0]',
        '-A PREROUTING -d 10.96.0.10/32 -p tcp -m tcp --dport 80 -j KUBE-SVC',
        '-A KUBE-SVC -m statistic --mode random --probability 0.3333333333 -j KUBE-SEP-A',
        '-A KUBE-SVC -j DNAT --to-destination 10.1.0.2:8080',
        '-A KUBE-SEP-A -j DNAT --to-destination 10.1.0.1:8080',
        '-A POSTROUTING -j MASQUERADE',
      ],
    );
    // stored = lround(0.3333333333·2^31) = lround(715827882.595...) = 715827883; the branch not
    // taken has 2^31 − 715827883 = 1431655765 (libxt_statistic.c); iptables-save prints the
    // stored value back with %.11f: 715827883/2^31 = 0.33333333349.
    expect(text(rs, toVip)).toBe(
      [
        'tcp 10.0.0.2 -> 10.96.0.10:80 from a pod on this node (conntrack NEW)',
        '2 possible outcomes',
        '',
        'outcome 1: DNAT to 10.1.0.1:8080 (forwarded, masqueraded)',
        '  probability: written 3333333333/10000000000 ≈ 0.333333333300, kernel 715827883/2147483648 ≈ 0.333333333489',
        '  nat PREROUTING',
        '    -A PREROUTING -d 10.96.0.10/32 -p tcp -m tcp --dport 80 -j KUBE-SVC',
        '  nat KUBE-SVC',
        '    statistic --probability 0.3333333333 (kernel 715827883/2^31) matched: written 3333333333/10000000000, kernel 715827883/2147483648',
        '    -A KUBE-SVC -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-A',
        '  nat KUBE-SEP-A',
        '    -A KUBE-SEP-A -j DNAT --to-destination 10.1.0.1:8080',
        '  nat POSTROUTING',
        '    -A POSTROUTING -j MASQUERADE',
        '',
        'outcome 2: DNAT to 10.1.0.2:8080 (forwarded, masqueraded)',
        '  probability: written 6666666667/10000000000 ≈ 0.666666666700, kernel 1431655765/2147483648 ≈ 0.666666666511',
        '  nat PREROUTING',
        '    -A PREROUTING -d 10.96.0.10/32 -p tcp -m tcp --dport 80 -j KUBE-SVC',
        '  nat KUBE-SVC',
        '    statistic --probability 0.3333333333 (kernel 715827883/2^31) did not match: written 6666666667/10000000000, kernel 1431655765/2147483648; skipped -A KUBE-SVC -m statistic --mode random --probability 0.33333333349 -j KUBE-SEP-A',
        '    -A KUBE-SVC -j DNAT --to-destination 10.1.0.2:8080',
        '  nat POSTROUTING',
        '    -A POSTROUTING -j MASQUERADE',
        '',
      ].join('\n'),
    );
  });

  it('after a RETURN, the calling chain is named again before its next matched rule; a recent --set is listed', () => {
    const rs = restore(
      [],
      [
        ':KUBE-A - [0:0]',
        ':KUBE-B - [0:0]',
        '-A PREROUTING -j KUBE-A',
        '-A KUBE-A -j KUBE-B',
        '-A KUBE-B -m recent --set --name KUBE-B --rsource',
        '-A KUBE-B -j RETURN',
        '-A KUBE-A -m comment --comment after',
      ],
    );
    expect(text(rs, toVip, { ...options, now: 1234 })).toBe(
      [
        'tcp 10.0.0.2 -> 10.96.0.10:80 from a pod on this node (conntrack NEW)',
        '1 possible outcome',
        '',
        'outcome 1: no rule decided: the packet goes on to 10.96.0.10:80, not DNATed (forwarded)',
        '  probability: written 1 ≈ 1.000000000000, kernel 1 ≈ 1.000000000000',
        '  recent list KUBE-B: 10.0.0.2 seen at 1234',
        '  nat PREROUTING',
        '    -A PREROUTING -j KUBE-A',
        '  nat KUBE-A',
        '    -A KUBE-A -j KUBE-B',
        '  nat KUBE-B',
        '    -A KUBE-B -m recent --set --name KUBE-B --mask 255.255.255.255 --rsource',
        '    -A KUBE-B -j RETURN',
        '  nat KUBE-A',
        '    -A KUBE-A -m comment --comment after',
        '',
      ].join('\n'),
    );
  });

  it('a packet that is not NEW: the nat skip in parentheses, the state in the header', () => {
    const rs = restore(['-A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT'], ['-A PREROUTING -j DNAT --to-destination 10.1.0.1:80']);
    expect(text(rs, { ...toVip, entry: 'node' }, { ...options, conntrack: 'ESTABLISHED' })).toBe(
      [
        'tcp 10.0.0.2 -> 10.96.0.10:80 from another node (conntrack ESTABLISHED)',
        '1 possible outcome',
        '',
        'outcome 1: ACCEPT (forwarded)',
        '  probability: written 1 ≈ 1.000000000000, kernel 1 ≈ 1.000000000000',
        '  (conntrack ESTABLISHED: the nat table is not consulted)',
        '  filter FORWARD',
        '    -A FORWARD -m conntrack --ctstate ESTABLISHED -j ACCEPT',
        '',
      ].join('\n'),
    );
  });
});

describe('the header', () => {
  const first = (packet: Packet, opts: TraceOptions = options, rs: string = restore([], [])): string => text(rs, packet, opts).split('\n')[0] ?? '';

  it.each([
    ['pod', 'from a pod on this node'],
    ['node', 'from another node'],
    ['outside', 'from outside the cluster'],
    ['host', 'from this host'],
  ] as const)('entry %s reads "%s"', (entry, words) => {
    expect(first({ ...toVip, entry })).toBe(`tcp 10.0.0.2 -> 10.96.0.10:80 ${words} (conntrack NEW)`);
  });

  it('names the protocol in lower case, an ICMP packet without a port, and IPv6 with brackets', () => {
    expect(first({ ...toVip, protocol: 'UDP', destinationPort: 53 } as unknown as Packet)).toBe('udp 10.0.0.2 -> 10.96.0.10:53 from a pod on this node (conntrack NEW)');
    expect(first({ ...toVip, protocol: 'SCTP', destinationPort: 0 } as unknown as Packet)).toBe('sctp 10.0.0.2 -> 10.96.0.10:0 from a pod on this node (conntrack NEW)');
    expect(first({ source: '10.0.0.2', destination: '10.96.0.10', protocol: 'Icmp', entry: 'pod' } as unknown as Packet)).toBe(
      'icmp echo request 10.0.0.2 -> 10.96.0.10 from a pod on this node (conntrack NEW)',
    );
    const six: TraceOptions = { localAddresses: [], family: 6 };
    expect(first({ source: 'fd00::2', destination: 'fd00:96::10', protocol: 'tcp', destinationPort: 443, entry: 'outside' }, six)).toBe(
      'tcp fd00::2 -> [fd00:96::10]:443 from outside the cluster (conntrack NEW)',
    );
    expect(first({ source: 'fd00::2', destination: 'fd00:96::10', protocol: 'icmp', entry: 'outside' }, six)).toBe(
      'icmp echo request fd00::2 -> fd00:96::10 from outside the cluster (conntrack NEW)',
    );
  });

  it.each([['NEW'], ['ESTABLISHED'], ['RELATED'], ['INVALID'], ['UNTRACKED']] as const)('shows conntrack %s', (conntrack) => {
    expect(first(toVip, { ...options, conntrack })).toBe(`tcp 10.0.0.2 -> 10.96.0.10:80 from a pod on this node (conntrack ${conntrack})`);
  });
});

describe('the verdicts', () => {
  it('DNAT: forwarded, or delivered to this host, masqueraded or not', () => {
    expect(verdicts(restore([], ['-A PREROUTING -j DNAT --to-destination 10.1.0.1:8080']), toVip)).toEqual(['DNAT to 10.1.0.1:8080 (forwarded)']);
    expect(verdicts(restore([], [`-A PREROUTING -j DNAT --to-destination ${NODE}:8080`]), toVip)).toEqual([`DNAT to ${NODE}:8080 (delivered to this host)`]);
    expect(verdicts(restore([], ['-A PREROUTING -j DNAT --to-destination 10.1.0.1:8080', '-A POSTROUTING -j MASQUERADE']), toVip)).toEqual([
      'DNAT to 10.1.0.1:8080 (forwarded, masqueraded)',
    ]);
    expect(verdicts(restore([], ['-A PREROUTING -j DNAT --to-destination [fd00::5]:8080']), { ...toVip, source: 'fd00::2', destination: 'fd00:96::10' }, { localAddresses: [], family: 6 })).toEqual([
      'DNAT to [fd00::5]:8080 (forwarded)',
    ]);
  });

  it('ACCEPT: forwarded or delivered, masqueraded or not', () => {
    expect(verdicts(restore(['-A FORWARD -j ACCEPT'], []), toVip)).toEqual(['ACCEPT (forwarded)']);
    expect(verdicts(restore(['-A FORWARD -j ACCEPT'], ['-A POSTROUTING -j MASQUERADE']), toVip)).toEqual(['ACCEPT (forwarded, masqueraded)']);
    expect(verdicts(restore(['-A INPUT -j ACCEPT'], []), { ...toVip, destination: NODE })).toEqual(['ACCEPT (delivered to this host)']);
  });

  it('no rule decided: forwarded or delivered, with the destination and port', () => {
    expect(verdicts(restore([], []), toVip)).toEqual(['no rule decided: the packet goes on to 10.96.0.10:80, not DNATed (forwarded)']);
    expect(verdicts(restore([], []), { ...toVip, destination: NODE })).toEqual([`no rule decided: the packet goes on to ${NODE}:80, not DNATed (delivered to this host)`]);
  });

  it('DROP and REJECT, with the DNAT before them when there was one', () => {
    expect(verdicts(restore(['-A FORWARD -j DROP'], []), toVip)).toEqual(['DROP']);
    expect(verdicts(restore(['-A FORWARD -j REJECT'], []), toVip)).toEqual(['REJECT']);
    expect(verdicts(restore(['-A FORWARD -j DROP'], ['-A PREROUTING -j DNAT --to-destination 10.1.0.1:8080']), toVip)).toEqual(['DROP (after DNAT to 10.1.0.1:8080)']);
    expect(verdicts(restore(['-A FORWARD -j REJECT'], ['-A PREROUTING -j DNAT --to-destination 10.1.0.1:8080']), toVip)).toEqual(['REJECT (after DNAT to 10.1.0.1:8080)']);
  });

  it('an ICMP echo request: delivered, or leaving the node, unchanged; its other fates read as any packet', () => {
    const ping: Packet = { source: '10.0.0.2', destination: '10.96.0.10', protocol: 'icmp', entry: 'pod' };
    expect(verdicts(restore([], []), ping)).toEqual(['no rule decided: not DNATed, the packet leaves the node unchanged towards 10.96.0.10 (forwarded)']);
    expect(verdicts(restore([], []), { ...ping, destination: NODE })).toEqual([`no rule decided: not DNATed, the packet is delivered to this host unchanged (${NODE})`]);
    expect(verdicts(restore(['-A FORWARD -j ACCEPT'], []), ping)).toEqual(['ACCEPT (forwarded)']);
    expect(verdicts(restore(['-A FORWARD -j DROP'], []), ping)).toEqual(['DROP']);
    expect(verdicts(restore([], ['-A PREROUTING -j DNAT --to-destination 10.1.0.1']), ping)).toEqual(['DNAT to 10.1.0.1 (forwarded)']);
  });
});

describe('the note on a ping to a cluster IP', () => {
  const ping: Packet = { source: '10.0.0.2', destination: '10.96.0.10', protocol: 'icmp', entry: 'pod' };
  const TAIL =
    ': a virtual IP that no interface owns and no route is for. ' +
    'kube-proxy DNATs only the ports above (its rules test -p tcp, udp or sctp), so no rule matches an ICMP echo request: ' +
    'it leaves the node towards an address nothing answers for, and the ping gets no reply';

  /** The line after the verdict of the first outcome: the note, or the probability line. */
  function second(rs: Ruleset | string, packet: Packet = ping, opts: TraceOptions = options): string {
    return text(rs, packet, opts).split('\n')[4] ?? '';
  }

  const services = (lines: readonly string[]): string => restore([], [':KUBE-SERVICES - [0:0]', ':KUBE-SVC-A - [0:0]', ':KUBE-NODEPORTS - [0:0]', '-A PREROUTING -j KUBE-SERVICES', ...lines]);

  it("names every port whose KUBE-SERVICES rule is for the address, by the rule's comment, protocol and port", () => {
    const rs = services([
      '-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "ns/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-A',
      '-A KUBE-SERVICES -d 10.96.0.11/32 -p tcp -m comment --comment "ns/other:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-A',
      '-A KUBE-SERVICES -m comment --comment "ns/web:dns cluster IP" -p udp -d 10.96.0.10 --dport 53 -j KUBE-SVC-A',
      '-A KUBE-SERVICES -d 10.96.0.10/32 -p sctp -m comment --comment "ns/web:any cluster IP" -j KUBE-SVC-A',
    ]);
    expect(second(rs)).toBe(`  10.96.0.10 is the cluster IP of ns/web:http (tcp 80), ns/web:dns (udp 53), ns/web:any (sctp)${TAIL}`);
  });

  it('leaves out rules that are not a cluster IP jump for exactly this address', () => {
    const rs = services([
      // not for this address: negated, a wider prefix, another address
      '-A KUBE-SERVICES ! -d 10.96.0.10/32 -p tcp -m comment --comment "ns/a:p cluster IP" -m tcp --dport 80 -j KUBE-SVC-A',
      '-A KUBE-SERVICES -d 10.96.0.0/16 -p tcp -m comment --comment "ns/b:p cluster IP" -m tcp --dport 80 -j KUBE-SVC-A',
      '-A KUBE-SERVICES -d 10.96.0.100/32 -p tcp -m comment --comment "ns/c:p cluster IP" -m tcp --dport 80 -j KUBE-SVC-A',
      // not a cluster IP: another comment, none, or " cluster IP" not at the end
      '-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "ns/d:p external IP" -m tcp --dport 80 -j KUBE-SVC-A',
      '-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m tcp --dport 80 -j KUBE-SVC-A',
      '-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "ns/e:p cluster IPs" -m tcp --dport 80 -j KUBE-SVC-A',
      '-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "ns/f:p cluster ip" -m tcp --dport 80 -j KUBE-SVC-A',
      // not KUBE-SERVICES
      '-A KUBE-NODEPORTS -d 10.96.0.10/32 -p tcp -m comment --comment "ns/g:p cluster IP" -m tcp --dport 80 -j KUBE-SVC-A',
      // without a destination
      '-A KUBE-SERVICES -p tcp -m comment --comment "ns/h:p cluster IP" -m tcp --dport 80 -j KUBE-SVC-A',
    ]);
    expect(second(rs)).toBe('  probability: written 1 ≈ 1.000000000000, kernel 1 ≈ 1.000000000000');
  });

  it('a rule for a subnet is not a cluster IP rule, even for the address that starts the subnet', () => {
    const rs = services(['-A KUBE-SERVICES -d 10.96.0.0/16 -p tcp -m comment --comment "ns/b:p cluster IP" -m tcp --dport 80 -j KUBE-SVC-A']);
    expect(second(rs, { ...ping, destination: '10.96.0.0' })).toBe('  probability: written 1 ≈ 1.000000000000, kernel 1 ≈ 1.000000000000');
    const host = services(['-A KUBE-SERVICES -d 10.96.0.0/32 -p tcp -m comment --comment "ns/b:p cluster IP" -m tcp --dport 80 -j KUBE-SVC-A']);
    expect(second(host, { ...ping, destination: '10.96.0.0' })).toBe(`  10.96.0.0 is the cluster IP of ns/b:p (tcp 80)${TAIL}`);
  });

  it('a rule without -p names no protocol (kube-proxy always writes one)', () => {
    // The ping matches this rule and goes through the empty service chain, unanswered.
    const rs = services(['-A KUBE-SERVICES -d 10.96.0.10/32 -m comment --comment "ns/z:p cluster IP" -j KUBE-SVC-A']);
    expect(second(rs)).toBe(`  10.96.0.10 is the cluster IP of ns/z:p ()${TAIL}`);
  });

  it('over a restore text, with the family option given as 4 or left out', () => {
    const rs = services(['-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "ns/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-A']);
    expect(second(rs, ping, { ...options, family: 4 })).toBe(`  10.96.0.10 is the cluster IP of ns/web:http (tcp 80)${TAIL}`);
    expect(second(rs, ping, options)).toBe(`  10.96.0.10 is the cluster IP of ns/web:http (tcp 80)${TAIL}`);
  });

  it('the comment alone names the port (a comment of just " cluster IP" names nothing)', () => {
    const rs = services(['-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment " cluster IP" -m tcp --dport 80 -j KUBE-SVC-A']);
    expect(second(rs)).toBe(`  10.96.0.10 is the cluster IP of  (tcp 80)${TAIL}`);
  });

  it('over a Ruleset value, a destination that does not parse is no cluster IP (the rule never matches a ping)', () => {
    const r = (chain: string, matches: readonly Match[], target?: Target): Rule => (target === undefined ? { chain, matches } : { chain, matches, target });
    const rs: Ruleset = {
      family: 4,
      tables: [
        { name: 'filter', chains: [], rules: [], deletedChains: [] },
        {
          name: 'nat',
          chains: ['KUBE-SERVICES', 'KUBE-SVC-A'],
          rules: [
            r('PREROUTING', [], { kind: 'jump', chain: 'KUBE-SERVICES' }),
            // -p tcp first: the ping fails it before its destination is read.
            r('KUBE-SERVICES', [{ kind: 'protocol', protocol: 'tcp' }, { kind: 'destination', address: 'fd00::10', negated: false }, { kind: 'comment', text: 'ns/x:p cluster IP' }], { kind: 'jump', chain: 'KUBE-SVC-A' }),
            r('KUBE-SERVICES', [{ kind: 'protocol', protocol: 'tcp' }, { kind: 'destination', address: '10.96.0.10', negated: false }, { kind: 'comment', text: 'ns/y:p cluster IP' }], { kind: 'jump', chain: 'KUBE-SVC-A' }),
          ],
          deletedChains: [],
        },
      ],
    };
    expect(second(rs)).toBe(`  10.96.0.10 is the cluster IP of ns/y:p (tcp)${TAIL}`);
  });

  it('under IPv6, a /128 rule is for the address', () => {
    const rs = services([
      '-A KUBE-SERVICES -d fd00:96::10/128 -p tcp -m comment --comment "ns/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-A',
      '-A KUBE-SERVICES -d fd00:96::10/32 -p tcp -m comment --comment "ns/wide:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-A',
    ]);
    const six: TraceOptions = { localAddresses: [], family: 6 };
    expect(second(rs, { ...ping, source: 'fd00::2', destination: 'fd00:96::10' }, six)).toBe(`  fd00:96::10 is the cluster IP of ns/web:http (tcp 80)${TAIL}`);
  });

  it('only for a ping that leaves unanswered: not a TCP packet, not a ping delivered here, not a ping that a rule decided', () => {
    const rule = '-A KUBE-SERVICES -d 10.96.0.10/32 -p tcp -m comment --comment "ns/web:http cluster IP" -m tcp --dport 80 -j KUBE-SVC-A';
    const probability = '  probability: written 1 ≈ 1.000000000000, kernel 1 ≈ 1.000000000000';
    // A TCP packet to another port of the cluster IP matches no rule either.
    expect(second(services([rule]), { ...toVip, destinationPort: 81 })).toBe(probability);
    expect(second(restore(['-A FORWARD -j DROP'], [':KUBE-SERVICES - [0:0]', ':KUBE-SVC-A - [0:0]', '-A PREROUTING -j KUBE-SERVICES', rule]))).toBe(probability);
    // The node owns the address (a cloud's local route): delivered, no note.
    expect(second(services([rule]), ping, { localAddresses: ['10.96.0.10'] })).toBe(probability);
  });
});

describe('options', () => {
  it("ignores the caller's onOutcome: the text lists the outcomes, and onOutcome is not called", () => {
    const seen: unknown[] = [];
    const result = text(restore([], []), toVip, { ...options, onOutcome: (o) => seen.push(o) });
    expect(result.split('\n').slice(1, 4)).toEqual(['1 possible outcome', '', 'outcome 1: no rule decided: the packet goes on to 10.96.0.10:80, not DNATed (forwarded)']);
    expect(seen).toEqual([]);
  });

  it('refuses what tracePacket refuses, with the same error', () => {
    expect(explain(restore([], []), toVip, null as never)).toEqual({ ok: false, error: { _tag: 'ErrTrace', message: 'options: expected an object, got null', field: 'options' } });
    expect(explain(restore([], []), toVip, 'x' as never)).toEqual({ ok: false, error: { _tag: 'ErrTrace', message: 'options: expected an object, got "x"', field: 'options' } });
    expect(explain(restore([], []), toVip, { ...options, family: 5 as never })).toEqual({
      ok: false,
      error: { _tag: 'ErrTrace', message: 'options.family: expected 4 or 6, got number 5', field: 'options.family' },
    });
    expect(explain('*nat\n-A NOPE -j RETURN\nCOMMIT\n', toVip, options)).toEqual({ ok: false, error: { _tag: 'ErrTrace', message: "Chain 'NOPE' does not exist", line: 2 } });
    expect(explain(restore([], []), { ...toVip, entry: 'x' } as never, options)).toEqual({
      ok: false,
      error: { _tag: 'ErrTrace', message: 'packet.entry: unknown entry point "x" (expected pod, node, outside or host)', field: 'packet.entry' },
    });
  });

  it('reads a text with the family option, IPv4 by default', () => {
    const v6 = restore([], ['-A PREROUTING -d fd00:96::10 -j DNAT --to-destination [fd00::5]:80']);
    const p6: Packet = { source: 'fd00::2', destination: 'fd00:96::10', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
    expect(verdicts(v6, p6, { localAddresses: [], family: 6 })).toEqual(['DNAT to [fd00::5]:80 (forwarded)']);
    expect(explain(v6, p6, { localAddresses: [] })).toMatchObject({ ok: false, error: { _tag: 'ErrTrace' } });
    expect(verdicts(restore([], ['-A PREROUTING -d 10.96.0.10 -j DNAT --to-destination 10.1.0.1:80']), toVip, { localAddresses: [], family: 4 })).toEqual(['DNAT to 10.1.0.1:80 (forwarded)']);
  });
});

// The tracer's edge: ICMP packets, the protocol's case, refused input, and which line
// MatchedRule.text holds.
import { describe, expect, it } from 'vitest';
import { generateRules } from '../backend.js';
import { iptablesSaveView } from '../save/save-view.js';
import { fakeProxierConfig, makeService, simpleSlice, tcp80 } from '../upstream.fixtures.js';
import { explain } from './explain.js';
import { rulesetFromRestoreText } from './ruleset-from-text.js';
import { tracePacket } from './trace-packet.js';
import type { Packet, TraceResult } from './trace-types.js';

const service = makeService('ns1', 'svc1', { type: 'NodePort', clusterIP: '172.30.0.41', ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }] });
const slice = simpleSlice('ns1', 'svc1', tcp80(), [{ addresses: ['10.180.0.1'] }, { addresses: ['10.180.0.2'] }]);
const generated = generateRules([service], [slice], fakeProxierConfig());
const toClusterIP: Packet = { source: '10.0.0.2', destination: '172.30.0.41', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
const ping: Packet = { source: '10.0.0.2', destination: '172.30.0.41', protocol: 'icmp', entry: 'pod' };
const local = { localAddresses: ['192.168.0.2'] };

function refusal(result: { readonly ok: boolean; readonly error?: unknown }): unknown {
  return result.ok ? 'traced' : result.error;
}

describe('ICMP', () => {
  it('a ping to a cluster IP matches no service rule: one outcome, not DNATed, forwarded', () => {
    const result = tracePacket(generated.ruleset, ping, local);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.value.outcomes).toHaveLength(1);
    const [outcome] = result.value.outcomes;
    expect(outcome?.kind).toBe('no-match');
    expect(outcome?.dnat).toBeUndefined();
    expect(outcome?.delivery).toBe('forward');
    // Only the built-in jumps and KUBE-POSTROUTING's RETURN match: no KUBE-SVC- or KUBE-SEP- chain.
    expect(outcome?.chains.filter((c) => /^KUBE-(SVC|SEP|EXT)-/.test(c))).toEqual([]);
  });

  it('explain says the packet leaves unchanged towards a virtual IP nothing owns, with no port', () => {
    const text = explain(generated.ruleset, ping, local);
    expect(text.ok).toBe(true);
    if (!text.ok) return;
    const [head, outcome] = text.value.split('\n\n');
    expect(head).toBe('icmp echo request 10.0.0.2 -> 172.30.0.41 from a pod on this node (conntrack NEW)\n1 possible outcome');
    expect(outcome?.split('\n').slice(0, 2)).toEqual([
      'outcome 1: no rule decided: not DNATed, the packet leaves the node unchanged towards 172.30.0.41 (forwarded)',
      '  172.30.0.41 is the cluster IP of ns1/svc1:p80 (tcp 80): a virtual IP that no interface owns and no route is for. ' +
        "kube-proxy DNATs only the ports above (its rules test -p tcp, udp or sctp), so no rule matches an ICMP echo request: " +
        'it leaves the node towards an address nothing answers for, and the ping gets no reply',
    ]);
    expect(text.value).not.toMatch(/172\.30\.0\.41:/);
  });

  it('the same from the restore text', () => {
    const fromText = explain(generated.restoreText, ping, local);
    const fromRuleset = explain(generated.ruleset, ping, local);
    expect(fromText.ok && fromText.value.split('\n').slice(0, 5)).toEqual(fromRuleset.ok && fromRuleset.value.split('\n').slice(0, 5));
  });

  it('a ping to a node IP is delivered to the host, with no cluster IP note', () => {
    const text = explain(generated.ruleset, { ...ping, destination: '192.168.0.2' }, local);
    expect(text.ok && text.value).toContain('outcome 1: no rule decided: not DNATed, the packet is delivered to this host unchanged (192.168.0.2)\n  probability');
  });

  it('an ICMP packet with a port is refused', () => {
    const withPort = { ...ping, destinationPort: 80 } as unknown as Packet;
    expect(refusal(tracePacket(generated.ruleset, withPort, local))).toMatchObject({ _tag: 'ErrTrace', field: 'packet.destinationPort' });
  });
});

describe('the protocol and the entry point', () => {
  it("Kubernetes' upper-case TCP is tcp: the same outcomes, and the trace carries it in lower case", () => {
    const upper = { ...toClusterIP, protocol: 'TCP' } as unknown as Packet;
    const result = tracePacket(generated.ruleset, upper, local);
    const lower = tracePacket(generated.ruleset, toClusterIP, local);
    expect(result.ok && result.value.outcomes.map((o) => o.dnat)).toEqual(['10.180.0.1:80', '10.180.0.2:80']);
    expect(result.ok && result.value.outcomes.map((o) => o.probability)).toEqual(lower.ok && lower.value.outcomes.map((o) => o.probability));
    expect(result.ok && result.value.packet.protocol).toBe('tcp');
    expect(refusal(tracePacket(generated.ruleset, { ...ping, protocol: 'ICMP' } as unknown as Packet, local))).toBe('traced');
  });

  it.each([['gre'], ['TCPX'], [''], [6], [undefined], [null]])('refuses the protocol %j with an error, never a no-match trace', (protocol) => {
    const packet = { ...toClusterIP, protocol } as unknown as Packet;
    expect(refusal(tracePacket(generated.ruleset, packet, local))).toMatchObject({ _tag: 'ErrTrace', field: 'packet.protocol' });
    expect(refusal(explain(generated.ruleset, packet, local))).toMatchObject({ _tag: 'ErrTrace', field: 'packet.protocol' });
  });

  it.each([['pods'], ['Pod'], ['external'], [1], [undefined]])('refuses the entry point %j', (entry) => {
    const packet = { ...toClusterIP, entry } as unknown as Packet;
    const result = tracePacket(generated.ruleset, packet, local);
    expect(refusal(result)).toMatchObject({ _tag: 'ErrTrace', field: 'packet.entry' });
    expect(result.ok ? '' : result.error.message).toMatch(/^packet\.entry: unknown entry point .* \(expected pod, node, outside or host\)$/);
  });
});

describe('input of the wrong shape is an error value', () => {
  const cases: readonly (readonly [string, () => TraceResult, string])[] = [
    ['a null packet', () => tracePacket(generated.ruleset, null as unknown as Packet, local), 'packet'],
    ['a port that is a string', () => tracePacket(generated.ruleset, { ...toClusterIP, destinationPort: '80' } as unknown as Packet, local), 'packet.destinationPort'],
    ['a port out of range', () => tracePacket(generated.ruleset, { ...toClusterIP, destinationPort: 70000 }, local), 'packet.destinationPort'],
    ['a source that is not an address', () => tracePacket(generated.ruleset, { ...toClusterIP, source: 'pod-a' }, local), 'packet.source'],
    ['options missing', () => tracePacket(generated.ruleset, toClusterIP, undefined as never), 'options'],
    ['localAddresses a string', () => tracePacket(generated.ruleset, toClusterIP, { localAddresses: '192.168.0.2' as never }), 'options.localAddresses'],
    ['a local address that does not parse', () => tracePacket(generated.ruleset, toClusterIP, { localAddresses: ['192.168.0.2', 'node-1'] }), 'options.localAddresses[1]'],
    ['an unknown conntrack state', () => tracePacket(generated.ruleset, toClusterIP, { ...local, conntrack: 'new' as never }), 'options.conntrack'],
    ['family 5', () => tracePacket(generated.restoreText, toClusterIP, { ...local, family: 5 as never }), 'options.family'],
    ['a ruleset that is a number', () => tracePacket(42 as never, toClusterIP, local), 'ruleset'],
    ['a ruleset without tables', () => tracePacket({ family: 4 } as never, toClusterIP, local), 'ruleset'],
    [
      'a rule whose matches are not a list',
      () => {
        const [filter, nat] = generated.ruleset.tables;
        const rules = nat.rules.map((r, i) => (i === 0 ? { ...r, matches: 'oops' } : r));
        return tracePacket({ family: 4, tables: [filter, { ...nat, rules }] } as never, toClusterIP, local);
      },
      'ruleset',
    ],
  ];
  it.each(cases)('%s', (_, run, field) => {
    expect(refusal(run())).toMatchObject({ _tag: 'ErrTrace', field });
  });

  it('rulesetFromRestoreText refuses a text that is not a string', () => {
    expect(refusal(rulesetFromRestoreText(undefined as never))).toMatchObject({ _tag: 'ErrTrace', field: 'text' });
  });
});

describe('MatchedRule.text', () => {
  const restoreLines = new Set(generated.restoreText.split('\n'));

  it("over generated rules, is kube-proxy's own line of the restore text", () => {
    const result = tracePacket(generated.ruleset, toClusterIP, local);
    const texts = result.ok ? result.value.outcomes.flatMap((o) => o.matched.filter((m) => m.chain.startsWith('KUBE-')).map((m) => m.text)) : [];
    expect(texts.length).toBeGreaterThan(4);
    for (const text of texts) expect(restoreLines).toContain(text);
    expect(texts).toContain('-A KUBE-SEP-SXIVWICOYRO3J4NJ -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80');
  });

  it('over loaded text, is the line iptables-save prints for the rule', () => {
    const save = iptablesSaveView(generated.restoreText, { backend: 'legacy' });
    expect(save.ok).toBe(true);
    if (!save.ok) return;
    const saveLines = new Set(save.value.split('\n'));
    const result = tracePacket(save.value, toClusterIP, local);
    const texts = result.ok ? result.value.outcomes.flatMap((o) => o.matched.filter((m) => m.chain.startsWith('KUBE-')).map((m) => m.text)) : [];
    expect(texts.length).toBeGreaterThan(4);
    for (const text of texts) expect(saveLines).toContain(text);
    expect(texts).toContain('-A KUBE-SEP-SXIVWICOYRO3J4NJ -p tcp -m comment --comment "ns1/svc1:p80" -m tcp -j DNAT --to-destination 10.180.0.1:80');
    // The restore text itself (kube-proxy's lines) reads the same: the rule as iptables-save prints it.
    const fromRestore = tracePacket(generated.restoreText, toClusterIP, local);
    expect(fromRestore.ok && fromRestore.value.outcomes.flatMap((o) => o.matched.filter((m) => m.chain.startsWith('KUBE-')).map((m) => m.text))).toEqual(texts);
  });

  it('an iptables-save line of a 2017 node comes back as it was written', () => {
    const lines = [
      '-A PREROUTING -m comment --comment "kubernetes service portals" -j KUBE-SERVICES',
      '-A KUBE-SERVICES -d 192.168.255.1/32 -p tcp -m comment --comment "default/kubernetes:https cluster IP" -m tcp --dport 443 -j KUBE-SVC-NPX46M4PTMTKRN6Y',
      '-A KUBE-SVC-NPX46M4PTMTKRN6Y -m comment --comment "default/kubernetes:https" -j KUBE-SEP-23Y66C2VAJ3WDEMI',
      '-A KUBE-SEP-23Y66C2VAJ3WDEMI -p tcp -m comment --comment "default/kubernetes:https" -m recent --set --name KUBE-SEP-23Y66C2VAJ3WDEMI --mask 255.255.255.255 --rsource -m tcp -j DNAT --to-destination 172.16.0.11:6443',
    ];
    const text = ['*nat', ':PREROUTING ACCEPT [0:0]', ':KUBE-SERVICES - [0:0]', ':KUBE-SVC-NPX46M4PTMTKRN6Y - [0:0]', ':KUBE-SEP-23Y66C2VAJ3WDEMI - [0:0]', ...lines, 'COMMIT', ''].join('\n');
    const result = tracePacket(text, { source: '10.0.0.2', destination: '192.168.255.1', protocol: 'tcp', destinationPort: 443, entry: 'pod' }, local);
    expect(result.ok && result.value.outcomes.map((o) => o.matched.map((m) => m.text))).toEqual([lines]);
  });
});

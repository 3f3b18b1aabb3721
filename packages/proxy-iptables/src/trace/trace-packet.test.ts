// The tracer on restore text, its refusals, and the hooks and state it models.
import { describe, expect, it } from 'vitest';
import { generateRules } from '../backend.js';
import { fakeProxierConfig, makeService, simpleSlice, tcp80 } from '../upstream.fixtures.js';
import { RATIONAL_ONE as ONE, reduceRational as reduce } from '@kubesvc/proxy';
import { rulesetFromRestoreText } from './ruleset-from-text.js';
import { tracePacket } from './trace-packet.js';
import type { Packet } from './trace-types.js';

const service = makeService('ns1', 'svc1', { type: 'NodePort', clusterIP: '172.30.0.41', ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }] });
const slice = simpleSlice('ns1', 'svc1', tcp80(), [{ addresses: ['10.180.0.1'] }, { addresses: ['10.180.0.2'] }]);
const generated = generateRules([service], [slice], fakeProxierConfig());
const toClusterIP: Packet = { source: '10.0.0.2', destination: '172.30.0.41', protocol: 'tcp', destinationPort: 80, entry: 'pod' };
const local = { localAddresses: ['192.168.0.2'] };

function summary(result: ReturnType<typeof tracePacket>): unknown {
  if (!result.ok) return result.error;
  return result.value.outcomes.map((o) => ({ kind: o.kind, dnat: o.dnat, masq: o.masqueraded, p: o.probability, chains: o.chains }));
}

describe('restore text input', () => {
  it('the restore text kube-proxy writes traces exactly as the Ruleset it was printed from', () => {
    const fromText = tracePacket(generated.restoreText, toClusterIP, local);
    expect(fromText.ok).toBe(true);
    expect(summary(fromText)).toEqual(summary(tracePacket(generated.ruleset, toClusterIP, local)));
    expect(summary(fromText)).toMatchObject([
      { kind: 'dnat', dnat: '10.180.0.1:80', p: { written: reduce(1n, 2n), kernel: reduce(1n, 2n) } },
      { kind: 'dnat', dnat: '10.180.0.2:80', p: { written: reduce(1n, 2n), kernel: reduce(1n, 2n) } },
    ]);
  });

  it('reads iptables-save forms: MARK --set-xmark V/V is an OR, V/0x0 an XOR', () => {
    const text = generated.restoreText
      .replace('-j MARK --or-mark 0x4000', '-j MARK --set-xmark 0x4000/0x4000')
      .replace('-j MARK --xor-mark 0x4000', '-j MARK --set-xmark 0x4000/0x0');
    const parsed = rulesetFromRestoreText(text);
    expect(parsed.ok && parsed.value.tables[1].rules.filter((r) => r.target?.kind === 'mark').map((r) => r.target)).toEqual([
      { kind: 'mark', op: 'xor', value: '0x4000' },
      { kind: 'mark', op: 'or', value: '0x4000' },
    ]);
    // A host client is masqueraded (not from the pod CIDR) either way.
    const host: Packet = { ...toClusterIP, source: '192.168.0.2', entry: 'host' };
    expect(summary(tracePacket(text, host, local))).toEqual(summary(tracePacket(generated.ruleset, host, local)));
  });

  it.each([
    ['-A KUBE-SERVICES -m multiport --dports 80,443 -j ACCEPT', /multiport cannot be traced/],
    ['-A KUBE-SERVICES -i eth0 -j ACCEPT', /interface matches cannot be traced/],
    ['-A KUBE-SERVICES -p tcp -m tcp --dport 80:90 -j ACCEPT', /one port only/],
    ['-A KUBE-SERVICES -j MARK --set-xmark 0x1/0xff', /only an OR or an XOR/],
    ['-A KUBE-SERVICES -m statistic --mode nth -j ACCEPT', /only --mode random/],
    ['-A KUBE-SERVICES -m addrtype --dst-type UNICAST -j ACCEPT', /only LOCAL/],
    ['-A KUBE-SERVICES -g KUBE-NODEPORTS', /-g KUBE-NODEPORTS cannot be traced/],
  ])('refuses what the tracer cannot express, with its line: %s', (line, message) => {
    const text = `*filter\n:KUBE-SERVICES - [0:0]\n:KUBE-NODEPORTS - [0:0]\n${line}\nCOMMIT\n`;
    const result = tracePacket(text, toClusterIP, local);
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.error.message).toMatch(message);
      expect(result.error.line).toBe(4);
    }
  });

  it('an unknown target is a jump to a chain that does not exist: an error, not a no-op', () => {
    const text = '*nat\n:KUBE-SERVICES - [0:0]\n-A KUBE-SERVICES -j LOG\nCOMMIT\n';
    const result = tracePacket(text, toClusterIP, local);
    expect(result.ok ? 'traced' : result.error.message).toMatch(/jump to LOG, which the nat table does not declare/);
  });

  it('uses the built-in chains of the text when it has them, not the modelled kube-proxy jumps', () => {
    // Without a PREROUTING → KUBE-SERVICES jump, nothing in nat sees the packet.
    const text = '*nat\n:PREROUTING ACCEPT [0:0]\n:KUBE-SERVICES - [0:0]\n-A PREROUTING -d 10.9.9.9 -j ACCEPT\n-A KUBE-SERVICES -j DNAT --to-destination 10.1.1.1:80\nCOMMIT\n';
    expect(summary(tracePacket(text, toClusterIP, local))).toMatchObject([{ kind: 'no-match', chains: [] }]);
  });
});

describe('hooks and state', () => {
  it('a NodePort packet from outside is DNATed in PREROUTING, accepted by KUBE-FORWARD (marked) and masqueraded in POSTROUTING', () => {
    const packet: Packet = { source: '203.0.113.2', destination: '192.168.0.2', protocol: 'tcp', destinationPort: 3001, entry: 'outside' };
    const result = tracePacket(generated.ruleset, packet, local);
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    const [first] = result.value.outcomes;
    expect(first?.masqueraded).toBe(true);
    expect(first?.delivery).toBe('forward');
    expect(first?.matched.map((m) => `${m.table} ${m.chain}`)).toEqual([
      'nat PREROUTING',
      'nat KUBE-SERVICES',
      'nat KUBE-NODEPORTS',
      'nat KUBE-EXT-XPGD46QRK7WJZT7O',
      'nat KUBE-MARK-MASQ',
      'nat KUBE-EXT-XPGD46QRK7WJZT7O',
      'nat KUBE-SVC-XPGD46QRK7WJZT7O',
      expect.stringMatching(/^nat KUBE-SEP-/) as unknown as string,
      // The jumps to KUBE-PROXY-FIREWALL and KUBE-FORWARD; KUBE-FORWARD accepts the marked
      // packet, which ends filter FORWARD before its KUBE-SERVICES jumps.
      'filter FORWARD',
      'filter FORWARD',
      'filter KUBE-FORWARD',
      'nat POSTROUTING',
      'nat KUBE-POSTROUTING',
      'nat KUBE-POSTROUTING',
    ]);
  });

  it('an ESTABLISHED packet skips nat: no DNAT, and KUBE-FORWARD accepts it', () => {
    const result = tracePacket(generated.ruleset, toClusterIP, { ...local, conntrack: 'ESTABLISHED' });
    expect(summary(result)).toMatchObject([{ kind: 'accept', dnat: undefined, p: { written: ONE, kernel: ONE } }]);
  });

  it('an INVALID forwarded packet is dropped by KUBE-FORWARD', () => {
    const result = tracePacket(generated.ruleset, toClusterIP, { ...local, conntrack: 'INVALID' });
    expect(summary(result)).toMatchObject([{ kind: 'drop' }]);
  });

  it('a packet from outside to 127.0.0.1 is dropped by KUBE-FIREWALL (route_localnet), one from this host is not', () => {
    const outside: Packet = { source: '203.0.113.2', destination: '127.0.0.1', protocol: 'tcp', destinationPort: 3001, entry: 'outside' };
    // The localhost NodePort rule DNATs it first, and a DNATed packet is spared (ctstate DNAT).
    const dnat = tracePacket(generated.ruleset, outside, local);
    expect(dnat.ok && dnat.value.outcomes.every((o) => o.kind === 'dnat')).toBe(true);
    const other: Packet = { ...outside, destinationPort: 9999 };
    expect(summary(tracePacket(generated.ruleset, other, local))).toMatchObject([{ kind: 'drop' }]);
    expect(summary(tracePacket(generated.ruleset, { ...other, source: '127.0.0.1', entry: 'host' }, local))).toMatchObject([{ kind: 'no-match' }]);
  });

  it('bad input is an error value', () => {
    expect(tracePacket(generated.ruleset, { ...toClusterIP, source: 'nope' }, local)).toMatchObject({ ok: false, error: { _tag: 'ErrTrace' } });
    expect(tracePacket(generated.ruleset, { ...toClusterIP, destination: '2001:db8::1' }, local)).toMatchObject({ ok: false });
  });
});

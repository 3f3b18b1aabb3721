// Exact-text checks whose expected text is upstream's own, re-typed from
// pkg/proxy/iptables/proxier_test.go (v1.31 line): TestSyncProxyRulesRepeated (its first,
// full sync), TestMasqueradeRule, TestDropInvalidRule, TestNodePorts (the KUBE-FIREWALL
// check) and TestSyncProxyRulesLargeClusterMode (its exact DNAT lines and counts).
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { generateRules } from './backend.js';
import { normalizeRestoreText } from './normalize-restore.js';
import { chainRules, type Rule } from './ruleset.js';
import { printRule } from './generate/print-restore.js';
import { dedent, fakeProxierConfig, makeService, simpleSlice } from './upstream.fixtures.js';

/** The normal form of a text this test knows to be valid. */
function normalized(text: string): string {
  const result = normalizeRestoreText(text);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function chainText(rules: readonly Rule[]): string {
  return rules.map((rule) => `${printRule(rule)}\n`).join('');
}

describe('TestSyncProxyRulesRepeated, initial full sync', () => {
  it('matches upstream', () => {
    const services = [
      makeService('ns1', 'svc1', { type: 'ClusterIP', clusterIP: '172.30.0.41', ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] }),
      makeService('ns2', 'svc2', {
        type: 'ClusterIP',
        clusterIP: '172.30.0.42',
        ports: [{ name: 'p8080', port: 8080, protocol: 'TCP' }],
      }),
    ];
    const slices = [
      simpleSlice('ns1', 'svc1', { name: 'p80', port: 80, protocol: 'TCP' }, [{ addresses: ['10.0.1.1'] }]),
      simpleSlice('ns2', 'svc2', { name: 'p8080', port: 8080, protocol: 'TCP' }, [{ addresses: ['10.0.2.1'] }]),
    ];
    const expected = dedent(`
      *filter
      :KUBE-NODEPORTS - [0:0]
      :KUBE-SERVICES - [0:0]
      :KUBE-EXTERNAL-SERVICES - [0:0]
      :KUBE-FIREWALL - [0:0]
      :KUBE-FORWARD - [0:0]
      :KUBE-PROXY-FIREWALL - [0:0]
      -A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
      -A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP
      -A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
      -A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
      COMMIT
      *nat
      :KUBE-NODEPORTS - [0:0]
      :KUBE-SERVICES - [0:0]
      :KUBE-MARK-MASQ - [0:0]
      :KUBE-POSTROUTING - [0:0]
      :KUBE-SEP-SNQ3ZNILQDEJNDQO - [0:0]
      :KUBE-SEP-UHEGFW77JX3KXTOV - [0:0]
      :KUBE-SVC-2VJB64SDSIJUP5T6 - [0:0]
      :KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]
      -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O
      -A KUBE-SERVICES -m comment --comment "ns2/svc2:p8080 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 8080 -j KUBE-SVC-2VJB64SDSIJUP5T6
      -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS
      -A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
      -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
      -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
      -A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
      -A KUBE-SEP-SNQ3ZNILQDEJNDQO -m comment --comment ns1/svc1:p80 -s 10.0.1.1 -j KUBE-MARK-MASQ
      -A KUBE-SEP-SNQ3ZNILQDEJNDQO -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.1.1:80
      -A KUBE-SEP-UHEGFW77JX3KXTOV -m comment --comment ns2/svc2:p8080 -s 10.0.2.1 -j KUBE-MARK-MASQ
      -A KUBE-SEP-UHEGFW77JX3KXTOV -m comment --comment ns2/svc2:p8080 -m tcp -p tcp -j DNAT --to-destination 10.0.2.1:8080
      -A KUBE-SVC-2VJB64SDSIJUP5T6 -m comment --comment "ns2/svc2:p8080 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 8080 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
      -A KUBE-SVC-2VJB64SDSIJUP5T6 -m comment --comment "ns2/svc2:p8080 -> 10.0.2.1:8080" -j KUBE-SEP-UHEGFW77JX3KXTOV
      -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
      -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.0.1.1:80" -j KUBE-SEP-SNQ3ZNILQDEJNDQO
      COMMIT
    `);
    expect(normalized(generateRules(services, slices, fakeProxierConfig()).restoreText)).toBe(expected);
  });
});

describe('TestMasqueradeRule', () => {
  it.each([false, true])('randomFully %s', (randomFully) => {
    const { ruleset } = generateRules([], [], fakeProxierConfig({ randomFully }));
    expect(chainText(chainRules(ruleset.tables[1], 'KUBE-POSTROUTING'))).toBe(
      dedent(`
        -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
        -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
        -A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE${randomFully ? ' --random-fully' : ''}
      `),
    );
  });
});

describe('TestDropInvalidRule', () => {
  const forwardRules = dedent(`
    -A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
    -A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
  `);
  it.each([
    [false, false, '-A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP\n'],
    [true, false, '-A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP\n'],
    [false, true, ''],
  ])('nfacct %s, tcpLiberal %s', (nfacctCounters, conntrackTCPLiberal, dropRule) => {
    const { ruleset } = generateRules([], [], fakeProxierConfig({ nfacctCounters, conntrackTCPLiberal }));
    expect(chainText(chainRules(ruleset.tables[0], 'KUBE-FORWARD'))).toBe(dropRule + forwardRules);
  });
});

describe('TestNodePorts, the KUBE-FIREWALL chain', () => {
  const firewall =
    '-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP\n';
  it.each([
    ['ipv4, localhost-nodeports enabled', 4, true, undefined, true],
    ['ipv4, localhost-nodeports disabled', 4, false, undefined, false],
    ['ipv4, localhost-nodeports disabled, localhost in nodeport-addresses', 4, false, ['192.168.0.0/24', '127.0.0.1/32'], false],
    ['ipv4, multiple nodeport-addresses', 4, false, ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'], false],
    ['ipv6, localhost-nodeports enabled', 6, true, undefined, false],
    ['ipv6, localhost-nodeports disabled', 6, false, undefined, false],
  ] as const)('%s', (_name, family, localhostNodePorts, addresses, expectFirewall) => {
    const config = fakeProxierConfig({
      family,
      localhostNodePorts,
      ...(addresses === undefined ? {} : { nodePortAddresses: addresses }),
    });
    const { ruleset } = generateRules([], [], config);
    expect(chainText(chainRules(ruleset.tables[0], 'KUBE-FIREWALL'))).toBe(expectFirewall ? firewall : '');
    expect(ruleset.tables[0].chains.includes('KUBE-FIREWALL')).toBe(expectFirewall);
  });
});

describe('TestSyncProxyRulesLargeClusterMode (full syncs)', () => {
  const threshold = 1000;
  const clusterIP = (name: string, ip: string, port: number): Service =>
    makeService(name.replace('svc', 'ns'), name, { type: 'ClusterIP', clusterIP: ip, ports: [{ name: `p${port}`, port, protocol: 'TCP' }] });
  const services = [clusterIP('svc1', '172.30.0.41', 80), clusterIP('svc2', '172.30.0.42', 8080), clusterIP('svc3', '172.30.0.43', 8081)];
  const many = (prefix: string): { addresses: string[] }[] =>
    Array.from({ length: threshold / 2 - 1 }, (_, i) => ({ addresses: [`${prefix}.${i % 256}.${Math.floor(i / 256)}`] }));
  const slices: EndpointSlice[] = [
    simpleSlice('ns1', 'svc1', { name: 'p80', port: 80, protocol: 'TCP' }, many('10.0')),
    simpleSlice('ns2', 'svc2', { name: 'p8080', port: 8080, protocol: 'TCP' }, many('10.1')),
  ];
  const svc3Slice = simpleSlice('ns3', 'svc3', { name: 'p8081', port: 8081, protocol: 'TCP' }, [
    { addresses: ['203.0.113.4'] },
    { addresses: ['203.0.113.8'] },
    { addresses: ['203.0.113.12'] },
  ]);
  const dnatLines = (text: string): string[] => text.split('\n').filter((l) => l.startsWith('-A KUBE-SEP-') && l.includes('-j DNAT'));

  it('keeps comments at 998 endpoints', () => {
    const { restoreText, stats } = generateRules(services, slices, fakeProxierConfig({ masqueradeAll: true }));
    const lines = dnatLines(restoreText);
    expect(stats.largeClusterMode).toBe(false);
    expect(lines).toHaveLength(998);
    expect(lines.filter((l) => l.includes('--comment'))).toHaveLength(998);
    expect(lines).toContain('-A KUBE-SEP-DKGQUZGBKLTPAR56 -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.0.0:80');
  });

  it('drops the per-endpoint comments above 1000 endpoints', () => {
    const { restoreText, stats } = generateRules(services, [...slices, svc3Slice], fakeProxierConfig({ masqueradeAll: true }));
    const lines = dnatLines(restoreText);
    expect(stats.largeClusterMode).toBe(true);
    expect(lines).toHaveLength(1001);
    expect(lines.filter((l) => l.includes('--comment'))).toHaveLength(0);
    expect(lines).toContain('-A KUBE-SEP-DKGQUZGBKLTPAR56 -m tcp -p tcp -j DNAT --to-destination 10.0.0.0:80');
    expect(lines).toContain('-A KUBE-SEP-RUVVH7YV3PHQBDOS -m tcp -p tcp -j DNAT --to-destination 203.0.113.4:8081');
    // Service-level rules keep theirs.
    expect(restoreText).toContain(
      '-A KUBE-SERVICES -m comment --comment "ns3/svc3:p8081 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 8081 -j KUBE-SVC-',
    );
  });

  it('adds svc4 as upstream does', () => {
    const svc4 = makeService('ns4', 'svc4', { type: 'ClusterIP', clusterIP: '172.30.0.44', ports: [{ name: 'p8082', port: 8082, protocol: 'TCP' }] });
    const slice4 = simpleSlice('ns4', 'svc4', { name: 'p8082', port: 8082, protocol: 'TCP' }, [{ addresses: ['10.4.0.1'] }]);
    const { restoreText } = generateRules([...services, svc4], [...slices, svc3Slice, slice4], fakeProxierConfig({ masqueradeAll: true }));
    expect(dnatLines(restoreText)).toContain('-A KUBE-SEP-SU5STNODRYEWJAUF -m tcp -p tcp -j DNAT --to-destination 10.4.0.1:8082');
    expect(restoreText).toContain(':KUBE-SVC-EBDQOQU5SJFXRIL3 - [0:0]');
  });
});

// upstream's TestSyncProxyRulesRepeated (pkg/proxy/iptables/proxier_test.go, the version with
// MinimizeIPTablesRestore always on and before the nfacct counters, ~v1.28–v1.29): the same
// sequence of changes and syncs, and its exact restore texts, compared as upstream compares
// them (assertIPTablesRulesEqual → normalizeRestoreText). nfacct counters are off so that the
// KUBE-FORWARD rule is that version's.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { normalizeRestoreText } from '../normalize-restore.js';
import { fakeProxierConfig, makeService, simpleSlice } from '../upstream.fixtures.js';
import { sync } from '../backend.js';

/** The normal form of a text this test knows to be valid. */
function normalized(text: string): string {
  const result = normalizeRestoreText(text);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const config = fakeProxierConfig({ nfacctCounters: false });

const clusterIPService = (ns: string, name: string, ip: string, portName: string, port: number): Service =>
  makeService(ns, name, { type: 'ClusterIP', clusterIP: ip, ports: [{ name: portName, port, protocol: 'TCP' }] });
const slice = (ns: string, name: string, portName: string, port: number, addresses: string[]): EndpointSlice =>
  simpleSlice(ns, name, { name: portName, port, protocol: 'TCP' }, addresses.map((a) => ({ addresses: [a] })));

const FILTER = `
  *filter
  :KUBE-NODEPORTS - [0:0]
  :KUBE-SERVICES - [0:0]
  :KUBE-EXTERNAL-SERVICES - [0:0]
  :KUBE-FIREWALL - [0:0]
  :KUBE-FORWARD - [0:0]
  :KUBE-PROXY-FIREWALL - [0:0]
  -A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP
  -A KUBE-FORWARD -m conntrack --ctstate INVALID -j DROP
  -A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
  -A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
  COMMIT`;
const NAT_FIXED_RULES = `
  -A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
  -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
  -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
  -A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE`;
const NAT_HEAD = `
  *nat
  :KUBE-NODEPORTS - [0:0]
  :KUBE-SERVICES - [0:0]
  :KUBE-MARK-MASQ - [0:0]
  :KUBE-POSTROUTING - [0:0]`;
const SVC1_CLUSTER_IP = `
  -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O`;
const SVC2_CLUSTER_IP = `
  -A KUBE-SERVICES -m comment --comment "ns2/svc2:p8080 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 8080 -j KUBE-SVC-2VJB64SDSIJUP5T6`;
const SVC3_CLUSTER_IP = `
  -A KUBE-SERVICES -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 -j KUBE-SVC-X27LE4BHSL4DOUIK`;
const SVC4_CLUSTER_IP = `
  -A KUBE-SERVICES -m comment --comment "ns4/svc4:p80 cluster IP" -m tcp -p tcp -d 172.30.0.44 --dport 80 -j KUBE-SVC-4SW47YFZTEDKD3PK`;
const NODEPORTS_LAST = `
  -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS`;

/** The parts' lines, trimmed, as dedent.Dedent leaves upstream's expected text. */
const text = (...parts: string[]): string =>
  `${parts
    .join('\n')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .join('\n')}\n`;

describe('TestSyncProxyRulesRepeated (upstream proxier_test.go)', () => {
  const svc1 = clusterIPService('ns1', 'svc1', '172.30.0.41', 'p80', 80);
  const svc2 = clusterIPService('ns2', 'svc2', '172.30.0.42', 'p8080', 8080);
  const svc3 = clusterIPService('ns3', 'svc3', '172.30.0.43', 'p80', 80);
  const svc4 = clusterIPService('ns4', 'svc4', '172.30.0.44', 'p80', 80);
  const eps1 = slice('ns1', 'svc1', 'p80', 80, ['10.0.1.1']);
  const eps2 = slice('ns2', 'svc2', 'p8080', 8080, ['10.0.2.1']);
  const eps3 = slice('ns3', 'svc3', 'p80', 80, ['10.0.3.1']);
  const eps3update = slice('ns3', 'svc3', 'p80', 80, ['10.0.3.2']);
  const eps3update2 = slice('ns3', 'svc3', 'p80', 80, ['10.0.3.2', '10.0.3.3']);
  const eps4 = slice('ns4', 'svc4', 'p80', 80, ['10.0.4.1']);

  it('writes what upstream writes at every step', () => {
    // Initial state: a full sync.
    const r1 = sync(undefined, [svc1, svc2], [eps1, eps2], config);
    expect(r1.stats.full).toBe(true);
    expect(normalized(r1.restoreText)).toBe(
      text(
        FILTER,
        NAT_HEAD,
        `
        :KUBE-SEP-SNQ3ZNILQDEJNDQO - [0:0]
        :KUBE-SEP-UHEGFW77JX3KXTOV - [0:0]
        :KUBE-SVC-2VJB64SDSIJUP5T6 - [0:0]
        :KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]`,
        SVC1_CLUSTER_IP,
        SVC2_CLUSTER_IP,
        NODEPORTS_LAST,
        NAT_FIXED_RULES,
        `
        -A KUBE-SEP-SNQ3ZNILQDEJNDQO -m comment --comment ns1/svc1:p80 -s 10.0.1.1 -j KUBE-MARK-MASQ
        -A KUBE-SEP-SNQ3ZNILQDEJNDQO -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.1.1:80
        -A KUBE-SEP-UHEGFW77JX3KXTOV -m comment --comment ns2/svc2:p8080 -s 10.0.2.1 -j KUBE-MARK-MASQ
        -A KUBE-SEP-UHEGFW77JX3KXTOV -m comment --comment ns2/svc2:p8080 -m tcp -p tcp -j DNAT --to-destination 10.0.2.1:8080
        -A KUBE-SVC-2VJB64SDSIJUP5T6 -m comment --comment "ns2/svc2:p8080 cluster IP" -m tcp -p tcp -d 172.30.0.42 --dport 8080 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-2VJB64SDSIJUP5T6 -m comment --comment "ns2/svc2:p8080 -> 10.0.2.1:8080" -j KUBE-SEP-UHEGFW77JX3KXTOV
        -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.0.1.1:80" -j KUBE-SEP-SNQ3ZNILQDEJNDQO
        COMMIT`,
      ),
    );

    // Add a new service and its endpoints: only its SVC and SEP chains are written.
    const r2 = sync(r1.state, [svc1, svc2, svc3], [eps1, eps2, eps3], config);
    expect(r2.stats.full).toBe(false);
    expect(normalized(r2.restoreText)).toBe(
      text(
        FILTER,
        NAT_HEAD,
        `
        :KUBE-SEP-BSWRHOQ77KEXZLNL - [0:0]
        :KUBE-SVC-X27LE4BHSL4DOUIK - [0:0]`,
        SVC1_CLUSTER_IP,
        SVC2_CLUSTER_IP,
        SVC3_CLUSTER_IP,
        NODEPORTS_LAST,
        NAT_FIXED_RULES,
        `
        -A KUBE-SEP-BSWRHOQ77KEXZLNL -m comment --comment ns3/svc3:p80 -s 10.0.3.1 -j KUBE-MARK-MASQ
        -A KUBE-SEP-BSWRHOQ77KEXZLNL -m comment --comment ns3/svc3:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.3.1:80
        -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 -> 10.0.3.1:80" -j KUBE-SEP-BSWRHOQ77KEXZLNL
        COMMIT`,
      ),
    );

    // Delete a service (its slice stays): its chains are flushed and deleted, nothing else is rewritten.
    const r3 = sync(r2.state, [svc1, svc3], [eps1, eps2, eps3], config);
    expect(normalized(r3.restoreText)).toBe(
      text(
        FILTER,
        NAT_HEAD,
        `
        :KUBE-SEP-UHEGFW77JX3KXTOV - [0:0]
        :KUBE-SVC-2VJB64SDSIJUP5T6 - [0:0]`,
        SVC1_CLUSTER_IP,
        SVC3_CLUSTER_IP,
        NODEPORTS_LAST,
        NAT_FIXED_RULES,
        `
        -X KUBE-SEP-UHEGFW77JX3KXTOV
        -X KUBE-SVC-2VJB64SDSIJUP5T6
        COMMIT`,
      ),
    );

    // Add a service without endpoints: only its REJECT rule.
    const r4 = sync(r3.state, [svc1, svc3, svc4], [eps1, eps2, eps3], config);
    expect(normalized(r4.restoreText)).toBe(
      text(
        FILTER.replace(
          '-A KUBE-FIREWALL',
          '-A KUBE-SERVICES -m comment --comment "ns4/svc4:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.44 --dport 80 -j REJECT\n  -A KUBE-FIREWALL',
        ),
        NAT_HEAD,
        SVC1_CLUSTER_IP,
        SVC3_CLUSTER_IP,
        NODEPORTS_LAST,
        NAT_FIXED_RULES,
        `
        COMMIT`,
      ),
    );

    // Then its endpoints: now its chains are written.
    const r5 = sync(r4.state, [svc1, svc3, svc4], [eps1, eps2, eps3, eps4], config);
    expect(normalized(r5.restoreText)).toBe(
      text(
        FILTER,
        NAT_HEAD,
        `
        :KUBE-SEP-AYCN5HPXMIRJNJXU - [0:0]
        :KUBE-SVC-4SW47YFZTEDKD3PK - [0:0]`,
        SVC1_CLUSTER_IP,
        SVC3_CLUSTER_IP,
        SVC4_CLUSTER_IP,
        NODEPORTS_LAST,
        NAT_FIXED_RULES,
        `
        -A KUBE-SEP-AYCN5HPXMIRJNJXU -m comment --comment ns4/svc4:p80 -s 10.0.4.1 -j KUBE-MARK-MASQ
        -A KUBE-SEP-AYCN5HPXMIRJNJXU -m comment --comment ns4/svc4:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.4.1:80
        -A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 cluster IP" -m tcp -p tcp -d 172.30.0.44 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-4SW47YFZTEDKD3PK -m comment --comment "ns4/svc4:p80 -> 10.0.4.1:80" -j KUBE-SEP-AYCN5HPXMIRJNJXU
        COMMIT`,
      ),
    );

    // Change an endpoint of an existing service: its SVC and SEP chains are rewritten, the old SEP deleted.
    const r6 = sync(r5.state, [svc1, svc3, svc4], [eps1, eps2, eps3update, eps4], config);
    expect(normalized(r6.restoreText)).toBe(
      text(
        FILTER,
        NAT_HEAD,
        `
        :KUBE-SEP-BSWRHOQ77KEXZLNL - [0:0]
        :KUBE-SEP-DKCFIS26GWF2WLWC - [0:0]
        :KUBE-SVC-X27LE4BHSL4DOUIK - [0:0]`,
        SVC1_CLUSTER_IP,
        SVC3_CLUSTER_IP,
        SVC4_CLUSTER_IP,
        NODEPORTS_LAST,
        NAT_FIXED_RULES,
        `
        -A KUBE-SEP-DKCFIS26GWF2WLWC -m comment --comment ns3/svc3:p80 -s 10.0.3.2 -j KUBE-MARK-MASQ
        -A KUBE-SEP-DKCFIS26GWF2WLWC -m comment --comment ns3/svc3:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.3.2:80
        -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 -> 10.0.3.2:80" -j KUBE-SEP-DKCFIS26GWF2WLWC
        -X KUBE-SEP-BSWRHOQ77KEXZLNL
        COMMIT`,
      ),
    );

    // Add an endpoint to a service: its SVC and SEP chains are rewritten.
    const r7 = sync(r6.state, [svc1, svc3, svc4], [eps1, eps2, eps3update2, eps4], config);
    const afterEps3update2 = `
        -A KUBE-SEP-DKCFIS26GWF2WLWC -m comment --comment ns3/svc3:p80 -s 10.0.3.2 -j KUBE-MARK-MASQ
        -A KUBE-SEP-DKCFIS26GWF2WLWC -m comment --comment ns3/svc3:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.3.2:80
        -A KUBE-SEP-JVVZVJ7BSEPPRNBS -m comment --comment ns3/svc3:p80 -s 10.0.3.3 -j KUBE-MARK-MASQ
        -A KUBE-SEP-JVVZVJ7BSEPPRNBS -m comment --comment ns3/svc3:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.3.3:80`;
    const svc3Chain = `
        -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 -> 10.0.3.2:80" -m statistic --mode random --probability 0.5000000000 -j KUBE-SEP-DKCFIS26GWF2WLWC
        -A KUBE-SVC-X27LE4BHSL4DOUIK -m comment --comment "ns3/svc3:p80 -> 10.0.3.3:80" -j KUBE-SEP-JVVZVJ7BSEPPRNBS`;
    expect(normalized(r7.restoreText)).toBe(
      text(
        FILTER,
        NAT_HEAD,
        `
        :KUBE-SEP-DKCFIS26GWF2WLWC - [0:0]
        :KUBE-SEP-JVVZVJ7BSEPPRNBS - [0:0]
        :KUBE-SVC-X27LE4BHSL4DOUIK - [0:0]`,
        SVC1_CLUSTER_IP,
        SVC3_CLUSTER_IP,
        SVC4_CLUSTER_IP,
        NODEPORTS_LAST,
        NAT_FIXED_RULES,
        afterEps3update2,
        svc3Chain,
        `
        COMMIT`,
      ),
    );

    // Sync with no new changes: no SVC or SEP chain is rewritten.
    const r8 = sync(r7.state, [svc1, svc3, svc4], [eps1, eps2, eps3update2, eps4], config);
    expect(r8.stats.servicesChanged).toBe(0);
    expect(normalized(r8.restoreText)).toBe(
      text(FILTER, NAT_HEAD, SVC1_CLUSTER_IP, SVC3_CLUSTER_IP, SVC4_CLUSTER_IP, NODEPORTS_LAST, NAT_FIXED_RULES, `
        COMMIT`),
    );

    // Upstream then makes a partial restore fail (a foreign rule still jumps to svc4's endpoint
    // chain) and retries with a full sync. Here a failed restore means the caller keeps the
    // state it had (r8.state); the retry is a full sync from it, which deletes svc4's chains.
    const failed = sync(r8.state, [svc1, svc3], [eps1, eps2, eps3update2, eps4], config);
    expect(failed.stats.full).toBe(false);
    expect(failed.restoreText).toContain('-X KUBE-SEP-AYCN5HPXMIRJNJXU\n');
    const r9 = sync(r8.state, [svc1, svc3], [eps1, eps2, eps3update2, eps4], config, { full: true });
    expect(r9.stats.full).toBe(true);
    expect(normalized(r9.restoreText)).toBe(
      text(
        FILTER,
        NAT_HEAD,
        `
        :KUBE-SEP-AYCN5HPXMIRJNJXU - [0:0]
        :KUBE-SEP-DKCFIS26GWF2WLWC - [0:0]
        :KUBE-SEP-JVVZVJ7BSEPPRNBS - [0:0]
        :KUBE-SEP-SNQ3ZNILQDEJNDQO - [0:0]
        :KUBE-SVC-4SW47YFZTEDKD3PK - [0:0]
        :KUBE-SVC-X27LE4BHSL4DOUIK - [0:0]
        :KUBE-SVC-XPGD46QRK7WJZT7O - [0:0]`,
        SVC1_CLUSTER_IP,
        SVC3_CLUSTER_IP,
        NODEPORTS_LAST,
        NAT_FIXED_RULES,
        afterEps3update2,
        `
        -A KUBE-SEP-SNQ3ZNILQDEJNDQO -m comment --comment ns1/svc1:p80 -s 10.0.1.1 -j KUBE-MARK-MASQ
        -A KUBE-SEP-SNQ3ZNILQDEJNDQO -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.0.1.1:80`,
        svc3Chain,
        `
        -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
        -A KUBE-SVC-XPGD46QRK7WJZT7O -m comment --comment "ns1/svc1:p80 -> 10.0.1.1:80" -j KUBE-SEP-SNQ3ZNILQDEJNDQO
        -X KUBE-SEP-AYCN5HPXMIRJNJXU
        -X KUBE-SVC-4SW47YFZTEDKD3PK
        COMMIT`,
      ),
    );
  });
});

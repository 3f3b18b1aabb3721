// Exact-text scenarios reconstructed from upstream. The inputs are those of upstream tests
// (pkg/proxy/iptables/proxier_test.go, v1.31 line) whose checks are packet-flow traces, not
// text: TestLoadBalancer, TestNodePorts, TestExternalTrafficPolicyLocal,
// TestTerminatingEndpointsTrafficPolicyCluster/-Local, TestInternalExternalMasquerade
// (svc3, internalTrafficPolicy Local), TestNoEndpointsReject, TestClusterIPGeneral. The
// expected texts were written by hand from upstream's syncProxyRules (proxier.go) in
// upstream's normal form; chain names come from an independent node:crypto oracle, and each
// text agrees with the packet-flow outcome the upstream test asserts (noted per case).
import { createHash } from 'node:crypto';
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { generateRules } from './backend.js';
import { normalizeRestoreText } from './normalize-restore.js';
import { type ProxierConfigOptions } from './proxier-config.js';
import { validConfig } from './proxier-config.fixtures.js';
import { dedent, fakeProxierConfig, makeService, simpleSlice, TEST_NODE_NAME } from './upstream.fixtures.js';

/** The normal form of a text this test knows to be valid. */
function normalized(text: string): string {
  const result = normalizeRestoreText(text);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
function hash16(text: string): string {
  const bits = [...createHash('sha256').update(text).digest()].map((b) => b.toString(2).padStart(8, '0')).join('');
  let out = '';
  for (let i = 0; i < 80; i += 5) out += B32[parseInt(bits.slice(i, i + 5), 2)];
  return out;
}
const H = (spn: string, proto = 'tcp'): string => hash16(spn + proto);
const SEP = (spn: string, endpoint: string, proto = 'tcp'): string => `KUBE-SEP-${hash16(spn + proto + endpoint)}`;

const FILTER_HEAD = dedent(`
  *filter
  :KUBE-NODEPORTS - [0:0]
  :KUBE-SERVICES - [0:0]
  :KUBE-EXTERNAL-SERVICES - [0:0]
  :KUBE-FIREWALL - [0:0]
  :KUBE-FORWARD - [0:0]
  :KUBE-PROXY-FIREWALL - [0:0]
`);
const FIREWALL_RULE =
  '-A KUBE-FIREWALL -m comment --comment "block incoming localnet connections" -d 127.0.0.0/8 ! -s 127.0.0.0/8 -m conntrack ! --ctstate RELATED,ESTABLISHED,DNAT -j DROP\n';
const FORWARD_RULES = dedent(`
  -A KUBE-FORWARD -m conntrack --ctstate INVALID -m nfacct --nfacct-name ct_state_invalid_dropped_pkts -j DROP
  -A KUBE-FORWARD -m comment --comment "kubernetes forwarding rules" -m mark --mark 0x4000/0x4000 -j ACCEPT
  -A KUBE-FORWARD -m comment --comment "kubernetes forwarding conntrack rule" -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT
`);
const NAT_FIXED = dedent(`
  -A KUBE-MARK-MASQ -j MARK --or-mark 0x4000
  -A KUBE-POSTROUTING -m mark ! --mark 0x4000/0x4000 -j RETURN
  -A KUBE-POSTROUTING -j MARK --xor-mark 0x4000
  -A KUBE-POSTROUTING -m comment --comment "kubernetes service traffic requiring SNAT" -j MASQUERADE
`);
const LAST_RULE =
  '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL -j KUBE-NODEPORTS\n';

function run(services: Service[], slices: EndpointSlice[], overrides: Partial<ProxierConfigOptions> = {}): string {
  return normalized(generateRules(services, slices, fakeProxierConfig(overrides)).restoreText);
}

describe('TestLoadBalancer: two LB IPs, loadBalancerSourceRanges that include the node IP', () => {
  it('writes the KUBE-FW chain, LB-IP sources and KUBE-PROXY-FIREWALL drops', () => {
    const spn = 'ns1/svc1:p80';
    const h = H(spn);
    const sep = SEP(spn, '10.180.0.1:80');
    const services = [
      makeService(
        'ns1',
        'svc1',
        {
          type: 'LoadBalancer',
          clusterIP: '172.30.0.41',
          ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }],
          loadBalancerSourceRanges: ['192.168.0.0/24', ' 203.0.113.0/25'],
        },
        { loadBalancer: { ingress: [{ ip: '1.2.3.4' }, { ip: '5.6.7.8' }] } },
      ),
    ];
    const slices = [simpleSlice('ns1', 'svc1', { name: 'p80', port: 80, protocol: 'TCP' }, [{ addresses: ['10.180.0.1'] }])];
    // Flows upstream asserts: external client in 203.0.113.0/25 and the node (192.168.0.2)
    // reach the endpoint through KUBE-FW; 203.0.113.130 and pods are dropped by
    // KUBE-PROXY-FIREWALL; a source equal to an LB IP is allowed; NodePort ignores the ranges.
    expect(run(services, slices)).toBe(
      FILTER_HEAD +
        FIREWALL_RULE +
        FORWARD_RULES +
        dedent(`
          -A KUBE-PROXY-FIREWALL -m comment --comment "ns1/svc1:p80 traffic not accepted by KUBE-FW-${h}" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP
          -A KUBE-PROXY-FIREWALL -m comment --comment "ns1/svc1:p80 traffic not accepted by KUBE-FW-${h}" -m tcp -p tcp -d 5.6.7.8 --dport 80 -j DROP
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-EXT-${h} - [0:0]
          :KUBE-FW-${h} - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
          :${sep} - [0:0]
          :KUBE-SVC-${h} - [0:0]
          -A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3001 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-${h}
          -A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j KUBE-FW-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 loadbalancer IP" -m tcp -p tcp -d 5.6.7.8 --dport 80 -j KUBE-FW-${h}
        `) +
        LAST_RULE +
        dedent(`
          -A KUBE-EXT-${h} -m comment --comment "masquerade traffic for ns1/svc1:p80 external destinations" -j KUBE-MARK-MASQ
          -A KUBE-EXT-${h} -j KUBE-SVC-${h}
          -A KUBE-FW-${h} -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 192.168.0.0/24 -j KUBE-EXT-${h}
          -A KUBE-FW-${h} -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 203.0.113.0/25 -j KUBE-EXT-${h}
          -A KUBE-FW-${h} -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 1.2.3.4 -j KUBE-EXT-${h}
          -A KUBE-FW-${h} -m comment --comment "ns1/svc1:p80 loadbalancer IP" -s 5.6.7.8 -j KUBE-EXT-${h}
          -A KUBE-FW-${h} -m comment --comment "other traffic to ns1/svc1:p80 will be dropped by KUBE-PROXY-FIREWALL"
        `) +
        NAT_FIXED +
        dedent(`
          -A ${sep} -m comment --comment ns1/svc1:p80 -s 10.180.0.1 -j KUBE-MARK-MASQ
          -A ${sep} -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination 10.180.0.1:80
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -j ${sep}
          COMMIT
        `),
    );
  });
});

describe('TestNodePorts', () => {
  const nodePortService = (ip: string): Service =>
    makeService('ns1', 'svc1', { type: 'NodePort', clusterIP: ip, ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }] });
  const spn = 'ns1/svc1:p80';
  const h = H(spn);

  it('IPv4 with localhost NodePorts disabled: no KUBE-FIREWALL, "! -d 127.0.0.0/8" on the jump', () => {
    const slices = [
      simpleSlice('ns1', 'svc1', { name: 'p80', port: 80, protocol: 'TCP' }, [
        { addresses: ['10.180.0.1'] },
        { addresses: ['10.180.2.1'], nodeName: TEST_NODE_NAME },
      ]),
    ];
    const sep1 = SEP(spn, '10.180.0.1:80');
    const sep2 = SEP(spn, '10.180.2.1:80');
    const [first, second] = [sep1, sep2].sort();
    expect(run([nodePortService('172.30.0.41')], slices, { localhostNodePorts: false })).toBe(
      dedent(`
        *filter
        :KUBE-NODEPORTS - [0:0]
        :KUBE-SERVICES - [0:0]
        :KUBE-EXTERNAL-SERVICES - [0:0]
        :KUBE-FORWARD - [0:0]
        :KUBE-PROXY-FIREWALL - [0:0]
      `) +
        FORWARD_RULES +
        dedent(`
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-EXT-${h} - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
          :${first} - [0:0]
          :${second} - [0:0]
          :KUBE-SVC-${h} - [0:0]
          -A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-${h}
          -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL ! -d 127.0.0.0/8 -j KUBE-NODEPORTS
          -A KUBE-EXT-${h} -m comment --comment "masquerade traffic for ns1/svc1:p80 external destinations" -j KUBE-MARK-MASQ
          -A KUBE-EXT-${h} -j KUBE-SVC-${h}
        `) +
        NAT_FIXED +
        [
          [sep1, '10.180.0.1'],
          [sep2, '10.180.2.1'],
        ]
          .sort((a, b) => ((a[0] ?? '') < (b[0] ?? '') ? -1 : 1))
          .map(
            ([sep, ip]) =>
              `-A ${sep} -m comment --comment ns1/svc1:p80 -s ${ip} -j KUBE-MARK-MASQ\n` +
              `-A ${sep} -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination ${ip}:80\n`,
          )
          .join('') +
        dedent(`
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m statistic --mode random --probability 0.5000000000 -j ${sep1}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.2.1:80" -j ${sep2}
          COMMIT
        `),
    );
  });

  it('IPv6: bracketed endpoints, "! -d ::1/128", no localhost NodePort rule, no KUBE-FIREWALL', () => {
    const slices = [
      simpleSlice(
        'ns1',
        'svc1',
        { name: 'p80', port: 80, protocol: 'TCP' },
        [{ addresses: ['fd00:10:180::1'] }, { addresses: ['fd00:10:180::2:1'], nodeName: TEST_NODE_NAME }],
        'IPv6',
      ),
    ];
    const sep1 = SEP(spn, '[fd00:10:180::1]:80');
    const sep2 = SEP(spn, '[fd00:10:180::2:1]:80');
    const sepRules = [
      [sep1, 'fd00:10:180::1', '[fd00:10:180::1]:80'],
      [sep2, 'fd00:10:180::2:1', '[fd00:10:180::2:1]:80'],
    ]
      .sort((a, b) => ((a[0] ?? '') < (b[0] ?? '') ? -1 : 1))
      .map(
        ([sep, ip, hostPort]) =>
          `-A ${sep} -m comment --comment ns1/svc1:p80 -s ${ip} -j KUBE-MARK-MASQ\n` +
          `-A ${sep} -m comment --comment ns1/svc1:p80 -m tcp -p tcp -j DNAT --to-destination ${hostPort}\n`,
      )
      .join('');
    const [first, second] = [sep1, sep2].sort();
    // Upstream flows: pod → cluster IP and external → NodePort reach both endpoints;
    // localhost (::1) → NodePort is ignored.
    expect(run([nodePortService('fd00:172:30::41')], slices, { family: 6 })).toBe(
      dedent(`
        *filter
        :KUBE-NODEPORTS - [0:0]
        :KUBE-SERVICES - [0:0]
        :KUBE-EXTERNAL-SERVICES - [0:0]
        :KUBE-FORWARD - [0:0]
        :KUBE-PROXY-FIREWALL - [0:0]
      `) +
        FORWARD_RULES +
        dedent(`
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-EXT-${h} - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
          :${first} - [0:0]
          :${second} - [0:0]
          :KUBE-SVC-${h} - [0:0]
          -A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d fd00:172:30::41 --dport 80 -j KUBE-SVC-${h}
          -A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL ! -d ::1/128 -j KUBE-NODEPORTS
          -A KUBE-EXT-${h} -m comment --comment "masquerade traffic for ns1/svc1:p80 external destinations" -j KUBE-MARK-MASQ
          -A KUBE-EXT-${h} -j KUBE-SVC-${h}
        `) +
        NAT_FIXED +
        sepRules +
        dedent(`
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d fd00:172:30::41 --dport 80 ! -s fd00:10::/64 -j KUBE-MARK-MASQ
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> [fd00:10:180::1]:80" -m statistic --mode random --probability 0.5000000000 -j ${sep1}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> [fd00:10:180::2:1]:80" -j ${sep2}
          COMMIT
        `),
    );
  });

  it('nodePortAddresses: one jump per selected node IP; loopback skipped when localhost NodePorts are off', () => {
    const slices = [simpleSlice('ns1', 'svc1', { name: 'p80', port: 80, protocol: 'TCP' }, [{ addresses: ['10.180.0.1'] }])];
    const single = run([nodePortService('172.30.0.41')], slices, {
      localhostNodePorts: false,
      nodePortAddresses: ['192.168.0.0/24', '127.0.0.1/32'],
    });
    const jumps = (text: string): string[] => text.split('\n').filter((l) => l.includes('must be the last rule'));
    expect(jumps(single)).toEqual([
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.168.0.2 -j KUBE-NODEPORTS',
    ]);
    const multiple = run([nodePortService('172.30.0.41')], slices, {
      localhostNodePorts: false,
      nodePortAddresses: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'],
    });
    expect(jumps(multiple)).toEqual([
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.168.0.2 -j KUBE-NODEPORTS',
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 192.168.1.2 -j KUBE-NODEPORTS',
    ]);
    const ipv6 = run([nodePortService('fd00:172:30::41')], [], {
      family: 6,
      nodePortAddresses: ['192.168.0.0/24', '192.168.1.0/24', '2001:db8::/64'],
    });
    expect(jumps(ipv6)).toEqual([
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -d 2001:db8::1 -j KUBE-NODEPORTS',
    ]);
    // No CIDR of the family: all addresses (upstream NewNodePortAddresses adds ::/0).
    const ipv6OnlyV4Cidrs = run([nodePortService('fd00:172:30::41')], [], { family: 6, nodePortAddresses: ['192.168.0.0/24'] });
    expect(jumps(ipv6OnlyV4Cidrs)).toEqual([
      '-A KUBE-SERVICES -m comment --comment "kubernetes service nodeports; NOTE: this must be the last rule in this chain" -m addrtype --dst-type LOCAL ! -d ::1/128 -j KUBE-NODEPORTS',
    ]);
  });
});

/** The two rules of an endpoint chain. */
function sepRules(sep: string, spn: string, ip: string, port: number, affinity = false): string {
  const comment = spn.includes(' ') ? `"${spn}"` : spn;
  const recent = affinity ? ` -m recent --name ${sep} --set` : '';
  return (
    `-A ${sep} -m comment --comment ${comment} -s ${ip} -j KUBE-MARK-MASQ\n` +
    `-A ${sep} -m comment --comment ${comment}${recent} -m tcp -p tcp -j DNAT --to-destination ${ip}:${port}\n`
  );
}

/** Endpoint chains in normal form (sorted by chain name). */
function sepBlock(spn: string, endpoints: readonly (readonly [string, number])[], affinity = false): { decl: string; rules: string } {
  const entries = endpoints.map(([ip, port]) => [SEP(spn, `${ip}:${port}`), ip, port] as const).sort((a, b) => (a[0] < b[0] ? -1 : 1));
  return {
    decl: entries.map(([sep]) => `:${sep} - [0:0]\n`).join(''),
    rules: entries.map(([sep, ip, port]) => sepRules(sep, spn, ip, port, affinity)).join(''),
  };
}

describe('TestExternalTrafficPolicyLocal: eTP Local with a local endpoint', () => {
  it('short-circuits pod and LOCAL traffic to KUBE-SVC, sends the rest to KUBE-SVL', () => {
    const spn = 'ns1/svc1:p80';
    const h = H(spn);
    const services = [
      makeService(
        'ns1',
        'svc1',
        {
          type: 'LoadBalancer',
          externalTrafficPolicy: 'Local',
          clusterIP: '172.30.0.41',
          externalIPs: ['192.168.99.11'],
          ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001, targetPort: 80 }],
          healthCheckNodePort: 30000,
        },
        { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
      ),
    ];
    const slices = [
      simpleSlice('ns1', 'svc1', { name: 'p80', port: 80, protocol: 'TCP' }, [
        { addresses: ['10.180.0.1'] },
        { addresses: ['10.180.2.1'], nodeName: TEST_NODE_NAME },
      ]),
    ];
    const seps = sepBlock(spn, [
      ['10.180.0.1', 80],
      ['10.180.2.1', 80],
    ]);
    // Upstream flows: pods reach both endpoints unmasqueraded via every address; external
    // clients reach only the local 10.180.2.1, unmasqueraded.
    expect(run(services, slices)).toBe(
      FILTER_HEAD +
        '-A KUBE-NODEPORTS -m comment --comment "ns1/svc1:p80 health check node port" -m tcp -p tcp --dport 30000 -j ACCEPT\n' +
        FIREWALL_RULE +
        FORWARD_RULES +
        dedent(`
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-EXT-${h} - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
        `) +
        seps.decl +
        dedent(`
          :KUBE-SVC-${h} - [0:0]
          :KUBE-SVL-${h} - [0:0]
          -A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3001 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-${h}
          -A KUBE-NODEPORTS -m comment --comment ns1/svc1:p80 -m tcp -p tcp --dport 3001 -j KUBE-EXT-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 external IP" -m tcp -p tcp -d 192.168.99.11 --dport 80 -j KUBE-EXT-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j KUBE-EXT-${h}
        `) +
        LAST_RULE +
        dedent(`
          -A KUBE-EXT-${h} -m comment --comment "pod traffic for ns1/svc1:p80 external destinations" -s 10.0.0.0/8 -j KUBE-SVC-${h}
          -A KUBE-EXT-${h} -m comment --comment "masquerade LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
          -A KUBE-EXT-${h} -m comment --comment "route LOCAL traffic for ns1/svc1:p80 external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-${h}
          -A KUBE-EXT-${h} -j KUBE-SVL-${h}
        `) +
        NAT_FIXED +
        seps.rules +
        dedent(`
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m statistic --mode random --probability 0.5000000000 -j ${SEP(spn, '10.180.0.1:80')}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.2.1:80" -j ${SEP(spn, '10.180.2.1:80')}
          -A KUBE-SVL-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.2.1:80" -j ${SEP(spn, '10.180.2.1:80')}
          COMMIT
        `),
    );
  });
});

describe('terminating endpoints (TestTerminatingEndpointsTrafficPolicyCluster / -Local)', () => {
  const endpointsOnlyTerminating = [
    { addresses: ['10.0.1.2'], conditions: { ready: false, serving: true, terminating: true }, nodeName: TEST_NODE_NAME },
    { addresses: ['10.0.1.3'], conditions: { ready: false, serving: true, terminating: true }, nodeName: TEST_NODE_NAME },
    { addresses: ['10.0.1.4'], conditions: { ready: false, serving: false, terminating: true }, nodeName: 'another-node' },
    { addresses: ['10.0.1.5'], conditions: { ready: false, serving: true, terminating: true }, nodeName: 'another-node' },
  ];
  const lb = (etp: 'Cluster' | 'Local'): Service =>
    makeService(
      'ns1',
      'svc1',
      {
        type: 'LoadBalancer',
        externalTrafficPolicy: etp,
        clusterIP: '172.30.1.1',
        ports: [{ name: '', port: 80, protocol: 'TCP', targetPort: 80 }],
        healthCheckNodePort: 30000,
      },
      { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
    );
  const slice = (endpoints: typeof endpointsOnlyTerminating): EndpointSlice =>
    simpleSlice('ns1', 'svc1', { name: '', port: 80, protocol: 'TCP' }, endpoints);
  const spn = 'ns1/svc1';
  const h = H(spn);

  it('Cluster policy, only terminating endpoints: the serving ones are used (unnamed port: comment "ns1/svc1")', () => {
    const seps = sepBlock(spn, [
      ['10.0.1.2', 80],
      ['10.0.1.3', 80],
      ['10.0.1.5', 80],
    ]);
    // Upstream flows: pod → clusterIP and external → LB both reach 10.0.1.2, .3 and .5.
    expect(run([lb('Cluster')], [slice(endpointsOnlyTerminating)])).toBe(
      FILTER_HEAD +
        FIREWALL_RULE +
        FORWARD_RULES +
        dedent(`
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-EXT-${h} - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
        `) +
        seps.decl +
        dedent(`
          :KUBE-SVC-${h} - [0:0]
          -A KUBE-SERVICES -m comment --comment "ns1/svc1 cluster IP" -m tcp -p tcp -d 172.30.1.1 --dport 80 -j KUBE-SVC-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j KUBE-EXT-${h}
        `) +
        LAST_RULE +
        dedent(`
          -A KUBE-EXT-${h} -m comment --comment "masquerade traffic for ns1/svc1 external destinations" -j KUBE-MARK-MASQ
          -A KUBE-EXT-${h} -j KUBE-SVC-${h}
        `) +
        NAT_FIXED +
        seps.rules +
        dedent(`
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1 cluster IP" -m tcp -p tcp -d 172.30.1.1 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1 -> 10.0.1.2:80" -m statistic --mode random --probability 0.3333333333 -j ${SEP(spn, '10.0.1.2:80')}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1 -> 10.0.1.3:80" -m statistic --mode random --probability 0.5000000000 -j ${SEP(spn, '10.0.1.3:80')}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1 -> 10.0.1.5:80" -j ${SEP(spn, '10.0.1.5:80')}
          COMMIT
        `),
    );
  });

  it('Local policy, local endpoints only terminating: KUBE-SVL takes the local serving ones, KUBE-SVC the ready remote one', () => {
    const endpoints = [
      ...endpointsOnlyTerminating.slice(0, 3).map((ep) => ({ ...ep, nodeName: TEST_NODE_NAME })),
      { addresses: ['10.0.1.5'], conditions: { ready: true, serving: true, terminating: false }, nodeName: 'node-1' },
    ];
    const seps = sepBlock(spn, [
      ['10.0.1.2', 80],
      ['10.0.1.3', 80],
      ['10.0.1.5', 80],
    ]);
    // Upstream flows: pod → clusterIP reaches 10.0.1.5; external → LB reaches 10.0.1.2 and .3.
    expect(run([lb('Local')], [slice(endpoints)])).toBe(
      FILTER_HEAD +
        '-A KUBE-NODEPORTS -m comment --comment "ns1/svc1 health check node port" -m tcp -p tcp --dport 30000 -j ACCEPT\n' +
        FIREWALL_RULE +
        FORWARD_RULES +
        dedent(`
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-EXT-${h} - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
        `) +
        seps.decl +
        dedent(`
          :KUBE-SVC-${h} - [0:0]
          :KUBE-SVL-${h} - [0:0]
          -A KUBE-SERVICES -m comment --comment "ns1/svc1 cluster IP" -m tcp -p tcp -d 172.30.1.1 --dport 80 -j KUBE-SVC-${h}
          -A KUBE-SERVICES -m comment --comment "ns1/svc1 loadbalancer IP" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j KUBE-EXT-${h}
        `) +
        LAST_RULE +
        dedent(`
          -A KUBE-EXT-${h} -m comment --comment "pod traffic for ns1/svc1 external destinations" -s 10.0.0.0/8 -j KUBE-SVC-${h}
          -A KUBE-EXT-${h} -m comment --comment "masquerade LOCAL traffic for ns1/svc1 external destinations" -m addrtype --src-type LOCAL -j KUBE-MARK-MASQ
          -A KUBE-EXT-${h} -m comment --comment "route LOCAL traffic for ns1/svc1 external destinations" -m addrtype --src-type LOCAL -j KUBE-SVC-${h}
          -A KUBE-EXT-${h} -j KUBE-SVL-${h}
        `) +
        NAT_FIXED +
        seps.rules +
        dedent(`
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1 cluster IP" -m tcp -p tcp -d 172.30.1.1 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1 -> 10.0.1.5:80" -j ${SEP(spn, '10.0.1.5:80')}
          -A KUBE-SVL-${h} -m comment --comment "ns1/svc1 -> 10.0.1.2:80" -m statistic --mode random --probability 0.5000000000 -j ${SEP(spn, '10.0.1.2:80')}
          -A KUBE-SVL-${h} -m comment --comment "ns1/svc1 -> 10.0.1.3:80" -j ${SEP(spn, '10.0.1.3:80')}
          COMMIT
        `),
    );
  });

  it('Local policy, terminating endpoints only on a remote node: external traffic is dropped, not rejected', () => {
    const endpoints = [{ addresses: ['10.0.1.5'], conditions: { ready: false, serving: true, terminating: true }, nodeName: 'node-1' }];
    const text = run([lb('Local')], [slice(endpoints)]);
    expect(text).toContain(
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1 has no local endpoints" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j DROP\n',
    );
    expect(text).toContain(`-A KUBE-SVC-${h} -m comment --comment "ns1/svc1 -> 10.0.1.5:80" -j ${SEP(spn, '10.0.1.5:80')}\n`);
    expect(text).not.toContain(`KUBE-SVL-${h}`);
    expect(text).not.toContain('REJECT');
  });

  it('no usable endpoint on any node: REJECT for the cluster IP and the LB IP, no nat chains', () => {
    const endpoints = [
      { addresses: ['10.0.1.5'], conditions: { ready: false, serving: false, terminating: true }, nodeName: TEST_NODE_NAME },
    ];
    const text = run([lb('Local')], [slice(endpoints)]);
    expect(text).toContain('-A KUBE-SERVICES -m comment --comment "ns1/svc1 has no endpoints" -m tcp -p tcp -d 172.30.1.1 --dport 80 -j REJECT\n');
    expect(text).toContain(
      '-A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1 has no endpoints" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j REJECT\n',
    );
    expect(text).not.toContain(h);
  });
});

describe('internalTrafficPolicy Local (TestInternalExternalMasquerade, svc3)', () => {
  const spn = 'ns3/svc3:p80';
  const h = H(spn);
  const service = makeService(
    'ns3',
    'svc3',
    {
      type: 'LoadBalancer',
      clusterIP: '172.30.0.43',
      ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3003 }],
      healthCheckNodePort: 30003,
      internalTrafficPolicy: 'Local',
    },
    { loadBalancer: { ingress: [{ ip: '9.10.11.12' }] } },
  );

  it('with a local endpoint: the cluster IP goes to KUBE-SVL (masquerade rule there), external addresses to KUBE-SVC', () => {
    const slices = [
      simpleSlice('ns3', 'svc3', { name: 'p80', port: 80, protocol: 'TCP' }, [
        { addresses: ['10.180.0.3'], nodeName: TEST_NODE_NAME },
        { addresses: ['10.180.1.3'], nodeName: 'remote' },
      ]),
    ];
    const seps = sepBlock(spn, [
      ['10.180.0.3', 80],
      ['10.180.1.3', 80],
    ]);
    // Upstream flows: pod → cluster IP reaches only 10.180.0.3; NodePort and LB reach both.
    expect(run([service], slices)).toBe(
      FILTER_HEAD +
        FIREWALL_RULE +
        FORWARD_RULES +
        dedent(`
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-EXT-${h} - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
        `) +
        seps.decl +
        dedent(`
          :KUBE-SVC-${h} - [0:0]
          :KUBE-SVL-${h} - [0:0]
          -A KUBE-NODEPORTS -m comment --comment ns3/svc3:p80 -m tcp -p tcp -d 127.0.0.0/8 --dport 3003 -m nfacct --nfacct-name localhost_nps_accepted_pkts -j KUBE-EXT-${h}
          -A KUBE-NODEPORTS -m comment --comment ns3/svc3:p80 -m tcp -p tcp --dport 3003 -j KUBE-EXT-${h}
          -A KUBE-SERVICES -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 -j KUBE-SVL-${h}
          -A KUBE-SERVICES -m comment --comment "ns3/svc3:p80 loadbalancer IP" -m tcp -p tcp -d 9.10.11.12 --dport 80 -j KUBE-EXT-${h}
        `) +
        LAST_RULE +
        dedent(`
          -A KUBE-EXT-${h} -m comment --comment "masquerade traffic for ns3/svc3:p80 external destinations" -j KUBE-MARK-MASQ
          -A KUBE-EXT-${h} -j KUBE-SVC-${h}
        `) +
        NAT_FIXED +
        seps.rules +
        dedent(`
          -A KUBE-SVC-${h} -m comment --comment "ns3/svc3:p80 -> 10.180.0.3:80" -m statistic --mode random --probability 0.5000000000 -j ${SEP(spn, '10.180.0.3:80')}
          -A KUBE-SVC-${h} -m comment --comment "ns3/svc3:p80 -> 10.180.1.3:80" -j ${SEP(spn, '10.180.1.3:80')}
          -A KUBE-SVL-${h} -m comment --comment "ns3/svc3:p80 cluster IP" -m tcp -p tcp -d 172.30.0.43 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
          -A KUBE-SVL-${h} -m comment --comment "ns3/svc3:p80 -> 10.180.0.3:80" -j ${SEP(spn, '10.180.0.3:80')}
          COMMIT
        `),
    );
  });

  it('a ClusterIP service with iTP Local and no local endpoint: DROP "has no local endpoints", no nat chains', () => {
    const clusterOnly = makeService('ns1', 'svc1', {
      clusterIP: '172.30.1.1',
      internalTrafficPolicy: 'Local',
      ports: [{ name: '', port: 80, protocol: 'TCP' }],
    });
    const slices = [
      simpleSlice('ns1', 'svc1', { name: '', port: 80, protocol: 'TCP' }, [
        { addresses: ['10.0.1.1'], nodeName: 'node0' },
        { addresses: ['10.0.1.2'], nodeName: 'node1' },
      ]),
    ];
    expect(run([clusterOnly], slices)).toBe(
      FILTER_HEAD +
        '-A KUBE-SERVICES -m comment --comment "ns1/svc1 has no local endpoints" -m tcp -p tcp -d 172.30.1.1 --dport 80 -j DROP\n' +
        FIREWALL_RULE +
        FORWARD_RULES +
        dedent(`
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
        `) +
        LAST_RULE +
        NAT_FIXED +
        'COMMIT\n',
    );
  });
});

describe('ClientIP affinity over several endpoints', () => {
  it('writes every rcheck rule, with the timeout, before the statistic rules; each SEP sets the recent list', () => {
    const spn = 'ns1/svc1:p80';
    const h = H(spn);
    const service = makeService('ns1', 'svc1', {
      clusterIP: '172.30.0.41',
      ports: [{ name: 'p80', port: 80, protocol: 'TCP' }],
      sessionAffinity: 'ClientIP',
      sessionAffinityConfig: { clientIP: { timeoutSeconds: 300 } },
    });
    const endpoints = ['10.180.0.1', '10.180.0.2', '10.180.0.10'];
    const slices = [simpleSlice('ns1', 'svc1', { name: 'p80', port: 80, protocol: 'TCP' }, endpoints.map((ip) => ({ addresses: [ip] })))];
    const seps = sepBlock(
      spn,
      endpoints.map((ip) => [ip, 80] as const),
      true,
    );
    // Endpoints are ordered by their "ip:port" string: "10.180.0.10:80" < "10.180.0.1:80".
    const s10 = SEP(spn, '10.180.0.10:80');
    const s1 = SEP(spn, '10.180.0.1:80');
    const s2 = SEP(spn, '10.180.0.2:80');
    expect(run([service], slices)).toBe(
      FILTER_HEAD +
        FIREWALL_RULE +
        FORWARD_RULES +
        dedent(`
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
        `) +
        seps.decl +
        dedent(`
          :KUBE-SVC-${h} - [0:0]
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-${h}
        `) +
        LAST_RULE +
        NAT_FIXED +
        seps.rules +
        dedent(`
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 ! -s 10.0.0.0/8 -j KUBE-MARK-MASQ
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.0.10:80" -m recent --name ${s10} --rcheck --seconds 300 --reap -j ${s10}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m recent --name ${s1} --rcheck --seconds 300 --reap -j ${s1}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.0.2:80" -m recent --name ${s2} --rcheck --seconds 300 --reap -j ${s2}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.0.10:80" -m statistic --mode random --probability 0.3333333333 -j ${s10}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m statistic --mode random --probability 0.5000000000 -j ${s1}
          -A KUBE-SVC-${h} -m comment --comment "ns1/svc1:p80 -> 10.180.0.2:80" -j ${s2}
          COMMIT
        `),
    );
  });
});

describe('TestNoEndpointsReject', () => {
  it('rejects the cluster IP, external IP, LB IP and NodePort; writes no nat chain', () => {
    const service = makeService(
      'ns1',
      'svc1',
      {
        type: 'LoadBalancer',
        clusterIP: '172.30.0.41',
        externalIPs: ['192.168.99.11'],
        ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }],
      },
      { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } },
    );
    expect(run([service], [])).toBe(
      FILTER_HEAD +
        dedent(`
          -A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j REJECT
          -A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 192.168.99.11 --dport 80 -j REJECT
          -A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m tcp -p tcp -d 1.2.3.4 --dport 80 -j REJECT
          -A KUBE-EXTERNAL-SERVICES -m comment --comment "ns1/svc1:p80 has no endpoints" -m addrtype --dst-type LOCAL -m tcp -p tcp --dport 3001 -j REJECT
        `) +
        FIREWALL_RULE +
        FORWARD_RULES +
        dedent(`
          COMMIT
          *nat
          :KUBE-NODEPORTS - [0:0]
          :KUBE-SERVICES - [0:0]
          :KUBE-MARK-MASQ - [0:0]
          :KUBE-POSTROUTING - [0:0]
        `) +
        LAST_RULE +
        NAT_FIXED +
        'COMMIT\n',
    );
  });
});

describe('TestClusterIPGeneral: TCP, UDP and SCTP ports, target ports', () => {
  it('gives each protocol its own chains, "-m udp -p udp", "-m sctp -p sctp"', () => {
    const services = [
      makeService('ns2', 'svc2', {
        clusterIP: '172.30.0.42',
        ports: [
          { name: 'https', port: 443, protocol: 'TCP', targetPort: 8443 },
          { name: 'dns-udp', port: 53, protocol: 'UDP' },
          { name: 'dns-sctp', port: 53, protocol: 'SCTP' },
        ],
      }),
    ];
    const slices = [
      {
        ...simpleSlice('ns2', 'svc2', { name: 'https', port: 8443, protocol: 'TCP' }, [
          { addresses: ['10.180.0.1'], nodeName: TEST_NODE_NAME },
          { addresses: ['10.180.2.1'], nodeName: 'node2' },
        ]),
        ports: [
          { name: 'https', port: 8443, protocol: 'TCP' as const },
          { name: 'dns-udp', port: 53, protocol: 'UDP' as const },
          { name: 'dns-sctp', port: 53, protocol: 'SCTP' as const },
        ],
      },
    ];
    const text = run(services, slices);
    const udp = H('ns2/svc2:dns-udp', 'udp');
    const sctp = H('ns2/svc2:dns-sctp', 'sctp');
    const https = H('ns2/svc2:https');
    expect(text).toContain(
      `-A KUBE-SERVICES -m comment --comment "ns2/svc2:dns-udp cluster IP" -m udp -p udp -d 172.30.0.42 --dport 53 -j KUBE-SVC-${udp}\n`,
    );
    expect(text).toContain(
      `-A KUBE-SERVICES -m comment --comment "ns2/svc2:dns-sctp cluster IP" -m sctp -p sctp -d 172.30.0.42 --dport 53 -j KUBE-SVC-${sctp}\n`,
    );
    expect(text).toContain(
      `-A ${SEP('ns2/svc2:dns-udp', '10.180.2.1:53', 'udp')} -m comment --comment ns2/svc2:dns-udp -m udp -p udp -j DNAT --to-destination 10.180.2.1:53\n`,
    );
    expect(text).toContain(
      `-A KUBE-SVC-${https} -m comment --comment "ns2/svc2:https -> 10.180.0.1:8443" -m statistic --mode random --probability 0.5000000000 -j ${SEP('ns2/svc2:https', '10.180.0.1:8443')}\n`,
    );
    expect(text.split('\n').filter((l) => l.startsWith(':KUBE-SEP-'))).toHaveLength(6);
  });
});

describe('settings', () => {
  const spn = 'ns1/svc1:p80';
  const service = makeService('ns1', 'svc1', { clusterIP: '172.30.0.41', ports: [{ name: 'p80', port: 80, protocol: 'TCP' }] });
  const slices = [
    simpleSlice(
      'ns1',
      'svc1',
      { name: 'p80', port: 80, protocol: 'TCP' },
      ['10.180.0.1', '10.180.0.2', '10.180.0.3'].map((ip) => ({ addresses: [ip] })),
    ),
  ];
  it('the old %0.5f probability format', () => {
    expect(run([service], slices, { probabilityFormat: 'old' })).toContain(
      `-A KUBE-SVC-${H(spn)} -m comment --comment "ns1/svc1:p80 -> 10.180.0.1:80" -m statistic --mode random --probability 0.33333 -j ${SEP(spn, '10.180.0.1:80')}\n`,
    );
  });
  it('masqueradeAll masquerades every cluster IP packet; no detector and no masqueradeAll writes no masquerade rule', () => {
    const masqAll = run([service], slices, { masqueradeAll: true });
    expect(masqAll).toContain(
      `-A KUBE-SVC-${H(spn)} -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-MARK-MASQ\n`,
    );
    const none = run([service], slices, { localDetector: { kind: 'none' } });
    expect(none).not.toContain(`-A KUBE-SVC-${H(spn)} -m comment --comment "ns1/svc1:p80 cluster IP"`);
  });
  it('the production mark is %#08x of 1 << masqueradeBit', () => {
    const text = generateRules([], [], validConfig({ nodeName: TEST_NODE_NAME })).restoreText;
    expect(text).toContain('-A KUBE-MARK-MASQ -j MARK --or-mark 0x00004000\n');
    expect(text).toContain('-A KUBE-POSTROUTING -m mark ! --mark 0x00004000/0x00004000 -j RETURN\n');
  });
  it('a lower large-cluster threshold drops the per-endpoint comments', () => {
    const text = run([service], slices, { largeClusterThreshold: 2 });
    expect(text).toContain(`-A KUBE-SVC-${H(spn)} -m statistic --mode random --probability 0.3333333333 -j ${SEP(spn, '10.180.0.1:80')}\n`);
    expect(text).toContain(`-A ${SEP(spn, '10.180.0.1:80')} -s 10.180.0.1 -j KUBE-MARK-MASQ\n`);
  });
});

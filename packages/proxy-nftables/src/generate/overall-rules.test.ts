// upstream TestOverallNFTablesRules (pkg/proxy/nftables/proxier_test.go): six services
// covering ClusterIP, LoadBalancer with eTP Local and no local endpoint, NodePort,
// externalIPs, LoadBalancer with source ranges and ClientIP affinity, and no endpoints. The
// transaction is applied to an empty table and the table dumped as knftables' fake dumps
// it; both sides are compared after helpers_test.go's sortNFTablesTransaction, as upstream's
// assertNFTablesTransactionEqual compares them.
import { makeService, makeSlice } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { applyTransaction } from '../model/apply.js';
import { dumpTransaction } from '../model/dump.js';
import { printTransaction } from '../model/print.js';
import { generateNftablesRules } from './generate.js';
import {
  badIPsServices,
  badIPsSlices,
  fakeNftablesConfig,
  overallServices,
  overallSlices,
  sortNFTablesTransaction,
  TEST_BAD_IPS_RULES,
  TEST_OVERALL_NFTABLES_RULES,
} from './upstream.fixtures.js';

function dumped(result: ReturnType<typeof generateNftablesRules>): string {
  const applied = applyTransaction(undefined, result.transaction);
  if (!applied.ok) throw new Error(applied.error.message);
  if (applied.value === undefined) throw new Error('no table');
  const printed = printTransaction(dumpTransaction(applied.value));
  if (!printed.ok) throw new Error(printed.error.message);
  return printed.value;
}

describe('TestOverallNFTablesRules', () => {
  const result = generateNftablesRules(overallServices, overallSlices, fakeNftablesConfig());

  it("makes upstream's expected ruleset", () => {
    expect(sortNFTablesTransaction(dumped(result))).toBe(sortNFTablesTransaction(TEST_OVERALL_NFTABLES_RULES));
  });

  it("writes a first sync's transaction: the table, the base chains added and deleted, then added with their hooks", () => {
    const lines = result.text.split('\n');
    expect(lines.slice(0, 5)).toEqual([
      'add table ip kube-proxy { comment "rules for kube-proxy" ; }',
      'add chain ip kube-proxy filter-prerouting',
      'delete chain ip kube-proxy filter-prerouting',
      'add chain ip kube-proxy filter-input',
      'delete chain ip kube-proxy filter-input',
    ]);
    expect(lines).toContain('add chain ip kube-proxy filter-output-post-dnat { type filter hook output priority -90 ; }');
    expect(lines).toContain('flush map ip kube-proxy service-ips');
    expect(result.text.endsWith('\n')).toBe(true);
  });

  it('counts what the ruleset holds', () => {
    const expectedLines = TEST_OVERALL_NFTABLES_RULES.split('\n');
    const count = (kind: string): number => expectedLines.filter((line) => line.startsWith(`add ${kind} `)).length;
    expect(result.stats).toEqual({ chains: count('chain'), rules: count('rule'), sets: count('set') + count('map'), elements: count('element') });
  });
});

describe('TestBadIPs', () => {
  it('writes addresses with leading zeros canonically, as upstream expects', () => {
    const result = generateNftablesRules(badIPsServices, badIPsSlices, fakeNftablesConfig());
    expect(sortNFTablesTransaction(dumped(result))).toBe(sortNFTablesTransaction(TEST_BAD_IPS_RULES));
  });
});

describe('TestProxier_OnServiceCIDRsChanged', () => {
  // upstream checks the proxier's comma-joined serviceCIDRs; here, the rule they make.
  const dropRule = (family: 4 | 6, serviceCIDRs: string[]): string | undefined =>
    generateNftablesRules([], [], fakeNftablesConfig({ family, serviceCIDRs }))
      .text.split('\n')
      .find((line) => line.includes('Drop traffic to unallocated ClusterIPs'));
  it("keeps the ServiceCIDRs of the proxier's family, joined by commas", () => {
    expect(dropRule(4, ['172.30.0.0/16', 'fd00:10:96::/112'])).toContain('ip daddr { 172.30.0.0/16 } drop');
    expect(dropRule(4, ['172.30.0.0/16', '172.50.0.0/16', 'fd00:10:96::/112', 'fd00:172:30::/112'])).toContain('ip daddr { 172.30.0.0/16,172.50.0.0/16 } drop');
    expect(dropRule(6, ['172.30.0.0/16', 'fd00:10:96::/112'])).toContain('ip6 daddr { fd00:10:96::/112 } drop');
    expect(dropRule(6, ['172.30.0.0/16', '172.50.0.0/16', 'fd00:10:96::/112', 'fd00:172:30::/112'])).toContain(
      'ip6 daddr { fd00:10:96::/112,fd00:172:30::/112 } drop',
    );
    expect(dropRule(4, [])).toBeUndefined();
  });
});

describe('TestLoadBalancerIngressRouteTypeProxy', () => {
  // LoadBalancerIPMode is on in v1.33: an ingress IP of mode Proxy gets no service-ips element.
  it.each([
    { name: 'ipMode Proxy', svcIP: '10.20.30.41', lbIP: '1.2.3.4', ipMode: 'Proxy' as const, expectedRule: false },
    { name: 'ipMode VIP', svcIP: '10.20.30.42', lbIP: '1.2.3.5', ipMode: 'VIP' as const, expectedRule: true },
    { name: 'ipMode nil', svcIP: '10.20.30.43', lbIP: '1.2.3.6', ipMode: undefined, expectedRule: true },
  ])('LoadBalancerIPMode enabled, $name', ({ svcIP, lbIP, ipMode, expectedRule }) => {
    const service = makeService(
      'ns1',
      'svc1',
      { type: 'LoadBalancer', clusterIP: svcIP, ports: [{ name: 'p80', port: 80, protocol: 'TCP', nodePort: 3001 }] },
      { loadBalancer: { ingress: [{ ip: lbIP, ...(ipMode === undefined ? {} : { ipMode }) }] } },
    );
    const slice = makeSlice('ns1', 'svc1', 1, 'IPv4', [{ addresses: ['10.180.0.1'] }], [{ name: 'p80', port: 80, protocol: 'TCP' }]);
    const table = applyTransaction(undefined, generateNftablesRules([service], [slice], fakeNftablesConfig()).transaction);
    if (!table.ok || table.value === undefined) throw new Error('the sync did not apply');
    expect(table.value.sets.get('service-ips')?.elements.has(`${lbIP} . tcp . 80`)).toBe(expectedRule);
  });
});

describe('TestNoEndpointsMetric', () => {
  // upstream reads the sync_proxy_rules_no_local_endpoints_total gauge; here, the sync's count.
  const endpoints = (nodes: string[]) =>
    makeSlice(
      'ns1',
      'svc1',
      1,
      'IPv4',
      nodes.map((nodeName, i) => ({ addresses: [`10.0.1.${i + 1}`], conditions: { ready: true }, nodeName })),
      [{ name: '', port: 80, protocol: 'TCP' }],
    );
  const withLocal = ['test-node', 'node1', 'node2'];
  const withoutLocal = ['node0', 'node1', 'node2'];
  it.each([
    { name: 'internalTrafficPolicy is set and there are local endpoints', itp: 'Local' as const, etp: undefined, nodes: withLocal, internal: 0, external: 0 },
    { name: 'externalTrafficPolicy is set and there are local endpoints', itp: undefined, etp: 'Local' as const, nodes: withLocal, internal: 0, external: 0 },
    { name: 'both policies are set and there are local endpoints', itp: 'Local' as const, etp: 'Local' as const, nodes: withLocal, internal: 0, external: 0 },
    { name: 'internalTrafficPolicy is set and there are no local endpoints', itp: 'Local' as const, etp: undefined, nodes: withoutLocal, internal: 1, external: 0 },
    { name: 'externalTrafficPolicy is set and there are no local endpoints', itp: undefined, etp: 'Local' as const, nodes: withoutLocal, internal: 0, external: 1 },
    { name: 'both policies are set and there are no local endpoints', itp: 'Local' as const, etp: 'Local' as const, nodes: withoutLocal, internal: 1, external: 1 },
    { name: 'both policies are set and there are no endpoints at all', itp: 'Local' as const, etp: 'Local' as const, nodes: [], internal: 0, external: 0 },
  ])('$name', ({ itp, etp, nodes, internal, external }) => {
    const service = makeService('ns1', 'svc1', {
      clusterIP: '172.30.1.1',
      selector: { foo: 'bar' },
      ports: [{ name: '', port: 80, protocol: 'TCP', nodePort: 123 }],
      ...(itp === undefined ? {} : { internalTrafficPolicy: itp }),
      ...(etp === undefined ? {} : { type: 'NodePort' as const, externalTrafficPolicy: etp }),
    });
    const result = generateNftablesRules([service], [endpoints(nodes)], fakeNftablesConfig());
    expect(result.noLocalEndpoints).toEqual({ internal, external });
  });
});

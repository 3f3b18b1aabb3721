// upstream TestOverallNFTablesRules (pkg/proxy/nftables/proxier_test.go): six services
// covering ClusterIP, LoadBalancer with eTP Local and no local endpoint, NodePort,
// externalIPs, LoadBalancer with source ranges and ClientIP affinity, and no endpoints. The
// transaction is applied to an empty table and the table dumped as knftables' fake dumps
// it; both sides are compared after helpers_test.go's sortNFTablesTransaction, as upstream's
// assertNFTablesTransactionEqual compares them.
import { describe, expect, it } from 'vitest';
import { applyTransaction } from '../model/apply.js';
import { dumpTransaction } from '../model/dump.js';
import { printTransaction } from '../model/print.js';
import { generateNftablesRules } from './generate.js';
import { fakeNftablesConfig, overallServices, overallSlices, sortNFTablesTransaction, TEST_OVERALL_NFTABLES_RULES } from './upstream.fixtures.js';

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

// INV-IPT-RULECOUNT: rule counts, against upstream's TestNumberIptablesRules
// (pkg/proxy/iptables/number_generated_rules_test.go, the v1.29-era version: KUBE-FIREWALL
// present, loadBalancerSourceRanges trimmed, no nfacct counters yet).
import { formatIP, ipv4FromNumber, type EndpointSlice, type Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { generateRules } from './backend.js';
import { fakeProxierConfig } from './upstream.fixtures.js';

function ipv4(base: number, offset: number): string {
  return formatIP(ipv4FromNumber(base + offset));
}

/** upstream generateServiceEndpoints. */
function generateServiceEndpoints(
  nServices: number,
  nEndpoints: number,
  loadBalancer: boolean,
): { services: Service[]; slices: EndpointSlice[] } {
  const services: Service[] = [];
  const slices: EndpointSlice[] = [];
  const endpoints = Array.from({ length: nEndpoints }, (_, j) => ({ addresses: [ipv4(0xac100001, j)] }));
  for (let i = 0; i < nServices; i++) {
    const name = `svc${i}`;
    services.push({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'namespace', name },
      spec: {
        type: loadBalancer ? 'LoadBalancer' : 'ClusterIP',
        clusterIP: ipv4(0x0a000001, i),
        ports: [{ name: '8080', protocol: 'TCP', port: 80 + i, targetPort: 8080, ...(loadBalancer ? { nodePort: 30000 + i } : {}) }],
        ...(loadBalancer
          ? { externalIPs: ['1.2.3.4'], loadBalancerSourceRanges: [' 1.2.3.4/28'], healthCheckNodePort: 32000 + nServices + i }
          : {}),
      },
      status: loadBalancer ? { loadBalancer: { ingress: [{ ip: '1.2.3.4' }] } } : {},
    });
    slices.push({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'namespace', name, labels: { 'kubernetes.io/service-name': name } },
      addressType: 'IPv4',
      endpoints,
      ports: [{ name: '8080', port: 8080, protocol: 'TCP' }],
    });
  }
  return { services, slices };
}

describe('TestNumberIptablesRules', () => {
  const config = fakeProxierConfig({ nfacctCounters: false });
  it.each([
    // services, endpoints per service, LoadBalancer, filter rules, nat rules
    [0, 0, false, 4, 5],
    [1, 0, false, 5, 5],
    [1, 1, false, 4, 10],
    [1, 2, false, 4, 13],
    [1, 10, false, 4, 37],
    [10, 0, false, 14, 5],
    [10, 1, false, 4, 55],
    [10, 2, false, 4, 85],
    [10, 10, false, 4, 325],
    [0, 0, true, 4, 5],
    [1, 0, true, 8, 5],
    [1, 1, true, 5, 17],
    [1, 2, true, 5, 20],
    [1, 10, true, 5, 44],
    [10, 0, true, 44, 5],
    [10, 1, true, 14, 125],
    [10, 2, true, 14, 155],
    [10, 10, true, 14, 395],
  ])('%i services × %i endpoints (LoadBalancer %s): %i filter, %i nat rules', (s, e, lb, filterRules, natRules) => {
    const { services, slices } = generateServiceEndpoints(s, e, lb);
    const { stats, ruleset } = generateRules(services, slices, config);
    expect(stats.filterRules).toBe(filterRules);
    expect(stats.natRules).toBe(natRules);
    expect(ruleset.tables[1].rules.length).toBe(natRules);
  });

  test.prop([fc.integer({ min: 0, max: 12 }), fc.integer({ min: 1, max: 12 })])(
    'INV-IPT-RULECOUNT: a ClusterIP-only cluster of S services with E ready endpoints each has 5 + S(2 + 3E) nat rules',
    (s, e) => {
      const { services, slices } = generateServiceEndpoints(s, e, false);
      expect(generateRules(services, slices, config).stats.natRules).toBe(5 + s * (2 + 3 * e));
    },
  );
});

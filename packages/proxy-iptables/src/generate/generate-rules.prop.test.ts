// Properties of generateRules over generated clusters: INV-IPT-DETERMINISTIC, INV-IPT-NAMES,
// INV-IPT-NOEP, INV-IPT-AFFINITY, plus upstream's checkIPTablesRuleJumps consistency check
// (pkg/proxy/iptables/proxier_test.go) and "inputs are never mutated".
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { endpointSliceArb, serviceArb } from '@kubesvc/testkit';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { generateRules } from '../backend.js';
import { clusterArb, configArb } from '../generated-clusters.fixtures.js';
import { printRestoreText, printRule } from './print-restore.js';
import { validConfig } from '../proxier-config.fixtures.js';
import { sync } from '../backend.js';
import type { Rule, Table } from '../ruleset.js';

function spnOf(namespace: string, name: string, port: string): string {
  return port === '' ? `${namespace}/${name}` : `${namespace}/${name}:${port}`;
}

function comment(rule: Rule): string | undefined {
  for (const m of rule.matches) if (m.kind === 'comment') return m.text;
  return undefined;
}

function jumpTargets(table: Table): Set<string> {
  const out = new Set<string>();
  for (const rule of table.rules) if (rule.target?.kind === 'jump') out.add(rule.target.chain);
  return out;
}

describe('generateRules properties', () => {
  test.prop([clusterArb, configArb, fc.infiniteStream(fc.nat())])(
    'INV-IPT-DETERMINISTIC: the same input gives byte-identical output, whatever the order of the inputs, and inputs are not mutated',
    (cluster, config, randomness) => {
      const before = structuredClone({ services: cluster.services, slices: cluster.slices });
      const first = generateRules(cluster.services, cluster.slices, config);
      const again = generateRules(cluster.services, cluster.slices, config);
      expect(again.restoreText).toBe(first.restoreText);
      const shuffle = <T>(xs: readonly T[]): T[] => {
        const out = xs.slice();
        const it = randomness[Symbol.iterator]();
        for (let i = out.length - 1; i > 0; i--) {
          const j = (it.next().value ?? 0) % (i + 1);
          [out[i], out[j]] = [out[j] as T, out[i] as T];
        }
        return out;
      };
      const shuffled = generateRules(shuffle(cluster.services), shuffle(cluster.slices), config);
      expect(shuffled.restoreText).toBe(first.restoreText);
      expect({ services: cluster.services, slices: cluster.slices }).toStrictEqual(before);
    },
  );

  test.prop([clusterArb, configArb])(
    'INV-IPT-DETERMINISTIC: the text printed straight from the builder is exactly printRestoreText of the typed ruleset (built lazily), and the stats count that ruleset',
    (cluster, config) => {
      const result = generateRules(cluster.services, cluster.slices, config);
      const [filter, nat] = result.ruleset.tables;
      expect(result.restoreText).toBe(printRestoreText(result.ruleset));
      expect(result.ruleset).toBe(result.ruleset);
      expect([result.stats.filterRules, result.stats.natRules, result.stats.filterChains, result.stats.natChains]).toEqual([
        filter.rules.length,
        nat.rules.length,
        filter.chains.length,
        nat.chains.length,
      ]);
    },
  );

  test.prop([clusterArb, configArb])(
    'INV-IPT-NAMES: every chain name is at most 28 characters and declared once per table; every jump has a declared, non-empty chain',
    (cluster, config) => {
      const { ruleset } = generateRules(cluster.services, cluster.slices, config);
      for (const table of ruleset.tables) {
        expect(new Set(table.chains).size).toBe(table.chains.length);
        for (const chain of table.chains) expect(chain.length).toBeLessThanOrEqual(28);
        const declared = new Set(table.chains);
        const filled = new Set(table.rules.map((r) => r.chain));
        for (const chain of filled) expect(declared.has(chain)).toBe(true);
        for (const target of jumpTargets(table)) {
          expect(declared.has(target)).toBe(true);
          // upstream's checkIPTablesRuleJumps: KUBE-NODEPORTS may be jumped to while empty.
          if (target !== 'KUBE-NODEPORTS') expect(filled.has(target)).toBe(true);
        }
        const used = jumpTargets(table);
        for (const chain of table.chains) {
          if (chain.startsWith('KUBE-SVC-') || chain.startsWith('KUBE-SVL-') || chain.startsWith('KUBE-SEP-') || chain.startsWith('KUBE-EXT-') || chain.startsWith('KUBE-FW-')) {
            expect(used.has(chain)).toBe(true);
          }
        }
      }
    },
  );

  test.prop([clusterArb, configArb])(
    'INV-IPT-NOEP: a service port with no usable endpoints is rejected, one with no local endpoints under Local policy is dropped, and neither is DNATed',
    (cluster, config) => {
      const { ruleset } = generateRules(cluster.services, cluster.slices, config);
      const [filter, nat] = ruleset.tables;
      for (const s of cluster.specs) {
        for (const port of s.ports) {
          const spn = spnOf(s.namespace, s.name, port.name);
          const usable = s.endpoints.filter((e) => e.ready || (e.serving && e.terminating));
          const usableLocal = usable.filter((e) => e.local);
          const natForPort = nat.rules.filter((r) => comment(r)?.startsWith(`${spn} `) === true || comment(r) === spn);
          const clusterIPRule = (rules: readonly Rule[]): Rule | undefined =>
            rules.find(
              (r) =>
                r.chain === 'KUBE-SERVICES' &&
                r.matches.some((m) => m.kind === 'destination' && m.address === s.clusterIP) &&
                r.matches.some((m) => m.kind === 'dport' && m.port === port.port) &&
                r.matches.some((m) => m.kind === 'protocol' && m.protocol === port.protocol.toLowerCase()),
            );
          if (usable.length === 0) {
            expect(clusterIPRule(filter.rules)?.target).toEqual({ kind: 'reject' });
            expect(comment(clusterIPRule(filter.rules) ?? { chain: '', matches: [] })).toBe(`${spn} has no endpoints`);
            expect(natForPort.filter((r) => r.target?.kind === 'dnat' || r.chain === 'KUBE-SERVICES')).toEqual([]);
            expect(nat.rules.filter((r) => r.chain.startsWith('KUBE-SEP-') && comment(r) === spn)).toEqual([]);
          } else if (s.itpLocal && usableLocal.length === 0) {
            expect(clusterIPRule(filter.rules)?.target).toEqual({ kind: 'drop' });
            expect(clusterIPRule(nat.rules)).toBeUndefined();
          } else {
            expect(clusterIPRule(filter.rules)).toBeUndefined();
            expect(clusterIPRule(nat.rules)?.target?.kind).toBe('jump');
          }
        }
      }
    },
  );

  test.prop([clusterArb, configArb])(
    'INV-IPT-AFFINITY: every ClientIP service has its rcheck rules, with its timeout, before any statistic rule, and each endpoint chain sets its own recent list',
    (cluster, config) => {
      const { ruleset } = generateRules(cluster.services, cluster.slices, config);
      const nat = ruleset.tables[1];
      const chains = new Set(nat.chains);
      for (const s of cluster.specs) {
        for (const port of s.ports) {
          const spn = spnOf(s.namespace, s.name, port.name);
          for (const prefix of ['KUBE-SVC-', 'KUBE-SVL-']) {
            const svcChain = nat.chains.find(
              (c) => c.startsWith(prefix) && nat.rules.some((r) => r.chain === c && comment(r)?.startsWith(`${spn} -> `) === true),
            );
            const rules = nat.rules.filter((r) => r.chain === svcChain && (r.target?.kind === 'jump' && r.target.chain.startsWith('KUBE-SEP-')));
            if (svcChain === undefined || config.largeClusterThreshold < 1000) continue;
            const checks = rules.filter((r) => r.matches.some((m) => m.kind === 'recent-check'));
            if (s.affinity === undefined) {
              expect(checks).toEqual([]);
              continue;
            }
            const lastCheck = rules.reduce((acc, r, i) => (r.matches.some((m) => m.kind === 'recent-check') ? i : acc), -1);
            const firstBalance = rules.findIndex((r) => !r.matches.some((m) => m.kind === 'recent-check'));
            expect(checks.length).toBe(rules.length - checks.length);
            expect(lastCheck).toBeLessThan(firstBalance);
            for (const r of checks) {
              const check = r.matches.find((m) => m.kind === 'recent-check');
              expect(check).toEqual({ kind: 'recent-check', name: r.target?.kind === 'jump' ? r.target.chain : '', seconds: s.affinity });
            }
          }
        }
      }
      for (const rule of nat.rules) {
        if (rule.target?.kind !== 'dnat') continue;
        const set = rule.matches.find((m) => m.kind === 'recent-set');
        if (set !== undefined) {
          expect(set).toEqual({ kind: 'recent-set', name: rule.chain });
          expect(chains.has(set.name)).toBe(true);
        }
      }
    },
  );

  test.prop([fc.array(serviceArb(), { maxLength: 5 }), fc.array(endpointSliceArb(), { maxLength: 5 }), configArb, fc.constantFrom<4 | 6>(4, 6)])(
    'any valid Services and EndpointSlices give well-formed restore text that prints every rule of the ruleset',
    (services, slices, config, family) => {
      const result = generateRules(services, slices, { ...config, family });
      const lines = result.restoreText.split('\n');
      expect(lines[0]).toBe('*filter');
      for (const table of result.ruleset.tables) for (const rule of table.rules) expect(lines).toContain(printRule(rule));
      expect(lines.filter((l) => l === 'COMMIT')).toHaveLength(2);
    },
  );
});

describe('endpoints read a service port at a time', () => {
  // Slices that list some endpoints twice, or with addresses that do not parse, so that the
  // endpoints' count is below what the slices hold: around a threshold of 3, the count and the
  // bound can fall on either side of it.
  const messyCluster = fc
    .array(
      fc.record(
        {
          addresses: fc.array(fc.constantFrom('10.1.0.1', '10.1.0.2', '10.1.0.3', '10.1.0.4', 'not-an-ip', '010.1.0.2'), { maxLength: 5 }),
          split: fc.boolean(),
        },
        { noNullPrototype: true },
      ),
      { minLength: 1, maxLength: 3 },
    )
    .map((specs) => {
      const services = specs.map(
        (_, i): Service => ({
          apiVersion: 'v1',
          kind: 'Service',
          metadata: { namespace: 'ns', name: `svc${i}` },
          spec: { clusterIP: `10.96.0.${i + 1}`, ports: [{ name: 'http', port: 80, protocol: 'TCP' }] },
        }),
      );
      const slices = specs.flatMap((spec, i) => {
        const parts = spec.split ? [spec.addresses.slice(0, 2), spec.addresses.slice(2)] : [spec.addresses];
        return parts.map(
          (addresses, j): EndpointSlice => ({
            apiVersion: 'discovery.k8s.io/v1',
            kind: 'EndpointSlice',
            metadata: { namespace: 'ns', name: `svc${i}-${j}`, labels: { 'kubernetes.io/service-name': `svc${i}` } },
            addressType: 'IPv4',
            endpoints: addresses.map((ip) => ({ addresses: [ip], conditions: { ready: true } })),
            ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
          }),
        );
      });
      return { services, slices };
    });

  test.prop([messyCluster, fc.constantFrom(0, 2, 3, 4, 6)])(
    'the large-cluster mode follows the endpoints counted, not what the slices hold; the text is a first sync’s',
    ({ services, slices }, threshold) => {
      const config = validConfig({ nodeName: 'node-a', largeClusterThreshold: threshold });
      const rules = generateRules(services, slices, config);
      const first = sync(undefined, services, slices, config);
      expect(rules.stats.largeClusterMode).toBe(rules.stats.endpoints > threshold);
      expect(rules.stats.endpoints).toBe(first.stats.rules.endpoints);
      expect(rules.restoreText).toBe(first.restoreText);
      expect(rules.restoreText).toBe(printRestoreText(rules.ruleset));
    },
  );
});

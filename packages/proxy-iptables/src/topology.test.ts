// Topology hints in the iptables proxier: each node's rules reach the endpoints hinted for its
// zone (or, with PreferSameTrafficDistribution, for itself), and a change of the node's zone
// label is a full sync. upstream (v1.33): pkg/proxy/topology.go (CategorizeEndpoints),
// pkg/proxy/iptables/proxier.go (OnTopologyChange: needFullSync).
import { hintedEndpoint, hintedZoneCluster, makeSlice } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import { generateRules, sync } from './backend.js';
import { proxierConfig, type ProxierConfigOptions } from './proxier-config.js';
import { fakeProxierConfig } from './upstream.fixtures.js';

const ZONE = 'topology.kubernetes.io/zone';

const endpoint = hintedEndpoint;
const { services, slices } = hintedZoneCluster();

/** The endpoints the rules DNAT to, in the text's order. */
function destinations(text: string): string[] {
  return [...text.matchAll(/--to-destination (\S+)/g)].map((m) => m[1] ?? '');
}

const config = (overrides: Partial<ProxierConfigOptions>) => fakeProxierConfig(overrides);

describe('topology hints (iptables)', () => {
  it("a node's rules reach only its zone's endpoints; a node without a zone label reaches all", () => {
    expect(destinations(generateRules(services, slices, config({ nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a' } })).restoreText)).toEqual([
      '10.0.1.1:80',
      '10.0.1.2:80',
    ]);
    expect(destinations(generateRules(services, slices, config({ nodeName: 'node-b', topologyLabels: { [ZONE]: 'zone-b' } })).restoreText)).toEqual([
      '10.0.2.1:80',
    ]);
    expect(destinations(generateRules(services, slices, config({ nodeName: 'node-c' })).restoreText)).toEqual(['10.0.1.1:80', '10.0.1.2:80', '10.0.2.1:80']);
  });

  it('with PreferSameTrafficDistribution, node hints pick the endpoint on the node', () => {
    const on = config({ nodeName: 'node-a2', topologyLabels: { [ZONE]: 'zone-a' }, preferSameTrafficDistribution: true });
    expect(destinations(generateRules(services, slices, on).restoreText)).toEqual(['10.0.1.2:80']);
  });

  it('a change of the zone label is a full sync; the same labels again are not', () => {
    const first = sync(undefined, services, slices, config({ nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a' } }));
    const same = sync(first.state, services, slices, config({ nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a', other: 'x' } }));
    expect(same.stats.full).toBe(false);
    const moved = sync(same.state, services, slices, config({ nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-b' } }));
    expect(moved.stats.full).toBe(true);
    expect(destinations(moved.restoreText)).toEqual(['10.0.2.1:80']);
  });

  it('a partial sync rewrites a service whose endpoints changed only their hints', () => {
    const zoneA = config({ nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a' } });
    const first = sync(undefined, services, slices, zoneA);
    // 10.0.2.1 is now hinted for zone-a too.
    const rehinted = [
      makeSlice(
        'ns1',
        'web',
        1,
        'IPv4',
        [endpoint('10.0.1.1', 'zone-a', 'node-a'), endpoint('10.0.1.2', 'zone-a', 'node-a2'), { ...endpoint('10.0.2.1', 'zone-b', 'node-b'), hints: { forZones: [{ name: 'zone-a' }] } }],
        [{ name: 'p80', port: 80, protocol: 'TCP' }],
      ),
    ];
    // Unchanged, a partial sync writes none of the service's endpoint chains.
    expect(destinations(sync(first.state, services, slices, zoneA).restoreText)).toEqual([]);
    const next = sync(first.state, services, rehinted, zoneA);
    expect(next.stats.full).toBe(false);
    // The service's chains are written again, now with the three endpoints of zone-a.
    expect(destinations(next.restoreText)).toEqual(['10.0.1.1:80', '10.0.1.2:80', '10.0.2.1:80']);
  });

  it('kube-proxy 1.8 predates hints: topology labels and the gate are refused', () => {
    const refused = proxierConfig({ nodeName: 'n', kubeProxyVersion: '1.8', topologyLabels: { [ZONE]: 'z' }, preferSameTrafficDistribution: true });
    expect(refused.ok ? '' : refused.error.message).toBe(
      '[topologyLabels: Forbidden: kube-proxy 1.8 has no such setting (added in v1.21), preferSameTrafficDistribution: Forbidden: kube-proxy 1.8 has no such setting (added in v1.33)]',
    );
    expect(proxierConfig({ nodeName: 'n', kubeProxyVersion: '1.8', topologyLabels: {} }).ok).toBe(true);
  });
});

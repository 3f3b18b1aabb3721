// Topology hints in the nftables proxier: each node's rules reach the endpoints hinted for its
// zone (or, with PreferSameTrafficDistribution, for itself), and a change of the node's zone
// label makes the next sync full. upstream (v1.33): pkg/proxy/topology.go (CategorizeEndpoints),
// pkg/proxy/nftables/proxier.go (OnTopologyChange: needFullSync).
import { hintedEndpoint, hintedZoneCluster, makeSlice } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';
import type { NftablesProxierConfigOptions } from '../config.js';
import { generateNftablesRules } from './generate.js';
import { INITIAL_NFTABLES_SYNC_STATE, syncNftables, type NftablesSync, type NftablesSyncState } from './sync.js';
import { fakeNftablesConfig } from './upstream.fixtures.js';

const ZONE = 'topology.kubernetes.io/zone';

const endpoint = hintedEndpoint;
const { services, slices } = hintedZoneCluster();

/** The endpoints the rules DNAT to, in the text's order. */
function destinations(text: string): string[] {
  return [...text.matchAll(/dnat to (\S+)/g)].map((m) => m[1] ?? '');
}

const config = (overrides: Partial<NftablesProxierConfigOptions>) => fakeNftablesConfig(overrides);

function synced(state: NftablesSyncState, overrides: Partial<NftablesProxierConfigOptions>): NftablesSync {
  const result = syncNftables(state, services, slices, config(overrides), { now: 1_000_000 });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

describe('topology hints (nftables)', () => {
  it("a node's rules reach only its zone's endpoints; a node without a zone label reaches all", () => {
    expect(destinations(generateNftablesRules(services, slices, config({ nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a' } })).text)).toEqual([
      '10.0.1.1:80',
      '10.0.1.2:80',
    ]);
    expect(destinations(generateNftablesRules(services, slices, config({ nodeName: 'node-b', topologyLabels: { [ZONE]: 'zone-b' } })).text)).toEqual([
      '10.0.2.1:80',
    ]);
    expect(destinations(generateNftablesRules(services, slices, config({ nodeName: 'node-c' })).text)).toEqual(['10.0.1.1:80', '10.0.1.2:80', '10.0.2.1:80']);
  });

  it('with PreferSameTrafficDistribution, node hints pick the endpoint on the node', () => {
    const on = config({ nodeName: 'node-a2', topologyLabels: { [ZONE]: 'zone-a' }, preferSameTrafficDistribution: true });
    expect(destinations(generateNftablesRules(services, slices, on).text)).toEqual(['10.0.1.2:80']);
  });

  it('a change of the zone label is a full sync; the same zone again (other labels aside) is not', () => {
    const first = synced(INITIAL_NFTABLES_SYNC_STATE, { nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a' } });
    expect(first.full).toBe(true);
    const same = synced(first.state, { nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a', other: 'x' } });
    expect(same.full).toBe(false);
    const moved = synced(same.state, { nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-b' } });
    expect(moved.full).toBe(true);
    expect(destinations(moved.text)).toEqual(['10.0.2.1:80']);
    const unlabelled = synced(moved.state, { nodeName: 'node-a' });
    expect(unlabelled.full).toBe(true);
  });

  it('a partial sync rewrites a service whose endpoints changed only their hints', () => {
    const first = synced(INITIAL_NFTABLES_SYNC_STATE, { nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a' } });
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
    expect(destinations(synced(first.state, { nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a' } }).text)).toEqual([]);
    const result = syncNftables(first.state, services, rehinted, config({ nodeName: 'node-a', topologyLabels: { [ZONE]: 'zone-a' } }), { now: 1_000_001 });
    if (!result.ok) throw new Error(result.error.message);
    expect(result.value.full).toBe(false);
    // The service's chains are written again, now with the three endpoints of zone-a.
    expect(destinations(result.value.text)).toEqual(['10.0.1.1:80', '10.0.1.2:80', '10.0.2.1:80']);
  });
});

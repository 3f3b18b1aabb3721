// Properties of the topology-aware endpoint choice, and how hints come from EndpointSlices.
import { fc, test } from '@fast-check/vitest';
import { describe, expect, it } from 'vitest';
import { sameEndpoints } from './changes.js';
import { endpointInfo, endpointsMap, readEndpointHints, servicePortKey, type EndpointInfo } from './endpoints.js';
import { makeSlice } from './model.fixtures.js';
import type { ServicePortInfo } from './service-ports.js';
import { NO_TOPOLOGY, categorizeEndpoints, nodeTopology, type NodeTopology } from './topology.js';

const ZONES = ['zone-a', 'zone-b', 'zone-c', ''];
const NODES = ['node-1', 'node-2', 'node-3'];

const hintsArb = fc.option(
  fc.record({ zones: fc.uniqueArray(fc.constantFrom(...ZONES), { maxLength: 2 }), nodes: fc.uniqueArray(fc.constantFrom(...NODES), { maxLength: 2 }) }),
  { nil: undefined },
);
const conditionsArb = fc.record({ local: fc.boolean(), ready: fc.boolean(), serving: fc.boolean(), terminating: fc.boolean() });

function endpointsArb(withHints: boolean): fc.Arbitrary<EndpointInfo[]> {
  return fc
    .uniqueArray(fc.integer({ min: 1, max: 40 }), { maxLength: 8 })
    .chain((octets) =>
      fc.tuple(...octets.map((o) => fc.tuple(fc.constant(o), conditionsArb, withHints ? hintsArb : fc.constant(undefined)))),
    )
    .map((rows) =>
      rows.map(([o, c, hints]) => endpointInfo(`10.0.0.${o}`, 80, c.local, c.ready, c.serving, c.terminating, hints)),
    );
}

const topologyArb: fc.Arbitrary<NodeTopology> = fc
  .tuple(fc.constantFrom(...NODES), fc.option(fc.constantFrom(...ZONES), { nil: undefined }), fc.boolean())
  .map(([node, zone, gate]) => nodeTopology(node, zone === undefined ? {} : { 'topology.kubernetes.io/zone': zone }, gate));

const portArb: fc.Arbitrary<ServicePortInfo> = fc
  .record({ internalPolicyLocal: fc.boolean(), externalPolicyLocal: fc.boolean(), nodePort: fc.constantFrom(0, 30080) })
  .map((p) => ({
    namespace: 'ns',
    name: 'svc',
    portName: '',
    nameString: 'ns/svc',
    protocol: 'tcp',
    clusterIP: '172.30.0.1',
    port: 80,
    nodePort: p.nodePort,
    externalIPs: [],
    loadBalancerVIPs: [],
    loadBalancerSourceRanges: [],
    healthCheckNodePort: 0,
    clientIPAffinity: false,
    stickyMaxAgeSeconds: 0,
    externalPolicyLocal: p.externalPolicyLocal,
    internalPolicyLocal: p.internalPolicyLocal,
    chains: undefined,
  }));

const withoutHints = (list: readonly EndpointInfo[]): EndpointInfo[] =>
  list.map((ep) => endpointInfo(ep.ip, ep.port, ep.isLocal, ep.ready, ep.serving, ep.terminating));

const texts = (list: readonly EndpointInfo[]): string[] => list.map((ep) => ep.hostPort);

describe('categorizeEndpoints with topology', () => {
  test.prop([endpointsArb(false), portArb, topologyArb])(
    'INV-TOPO-NOHINTS: with no hints anywhere, every node gets the hint-less categorization',
    (endpoints, svc, topology) => {
      const got = categorizeEndpoints(endpoints, svc, topology);
      const plain = categorizeEndpoints(endpoints, svc, NO_TOPOLOGY);
      expect(texts(got.clusterEndpoints)).toEqual(texts(plain.clusterEndpoints));
      expect(texts(got.localEndpoints)).toEqual(texts(plain.localEndpoints));
      expect(texts(got.allReachableEndpoints)).toEqual(texts(plain.allReachableEndpoints));
      expect(got.hasAnyEndpoints).toBe(plain.hasAnyEndpoints);
    },
  );

  test.prop([endpointsArb(true), portArb, topologyArb])(
    'INV-TOPO-NARROW: topology never empties the Cluster list while a ready endpoint exists, and only narrows the ready ones',
    (endpoints, svc, topology) => {
      const got = categorizeEndpoints(endpoints, svc, topology);
      // The same endpoints without their hints. Not NO_TOPOLOGY: that is a node without a zone
      // label, for which upstream honours hints for the zone "" (a valid label value).
      const plain = categorizeEndpoints(withoutHints(endpoints), svc, topology);
      const usesCluster = !svc.internalPolicyLocal || svc.nodePort !== 0;
      if (usesCluster && endpoints.some((ep) => ep.ready)) {
        expect(got.clusterEndpoints.length).toBeGreaterThan(0);
        expect(got.clusterEndpoints.every((ep) => ep.ready)).toBe(true);
      }
      const plainSet = new Set(texts(plain.clusterEndpoints));
      expect(texts(got.clusterEndpoints).every((t) => plainSet.has(t))).toBe(true);
      // Local endpoints and whether any endpoint exists do not depend on topology.
      expect(texts(got.localEndpoints)).toEqual(texts(plain.localEndpoints));
      expect(got.hasAnyEndpoints).toBe(plain.hasAnyEndpoints);
      // The reachable endpoints are the union of both lists.
      const union = new Set([...texts(got.clusterEndpoints), ...texts(got.localEndpoints)]);
      expect(new Set(texts(got.allReachableEndpoints))).toEqual(union);
    },
  );

  it('a node without a zone label reads its zone as "", and a hint for the zone "" (a valid label value) counts for it, as in upstream', () => {
    const eps = [
      endpointInfo('10.0.0.28', 80, false, true, false, false, { zones: ['zone-a'], nodes: [] }),
      endpointInfo('10.0.0.33', 80, false, true, false, false, { zones: [''], nodes: [] }),
    ];
    const [sampled] = fc.sample(portArb, { numRuns: 1, seed: 1 });
    if (sampled === undefined) throw new Error('fc.sample gave no port');
    const svc = { ...sampled, internalPolicyLocal: false, externalPolicyLocal: false, nodePort: 0 };
    expect(texts(categorizeEndpoints(eps, svc, nodeTopology('n', {}, false)).clusterEndpoints)).toEqual(['10.0.0.33:80']);
    expect(texts(categorizeEndpoints(eps, svc, NO_TOPOLOGY).clusterEndpoints)).toEqual(['10.0.0.33:80']);
    expect(texts(categorizeEndpoints(eps, svc, nodeTopology('n', { 'topology.kubernetes.io/zone': 'zone-a' }, false)).clusterEndpoints)).toEqual(['10.0.0.28:80']);
  });

  it('the zone comes from topology.kubernetes.io/zone only', () => {
    expect(nodeTopology('n', { 'topology.kubernetes.io/zone': 'z1', 'topology.kubernetes.io/region': 'r' }, false)).toEqual({
      nodeName: 'n',
      zone: 'z1',
      preferSameTrafficDistribution: false,
    });
    expect(nodeTopology('n', { 'failure-domain.beta.kubernetes.io/zone': 'z1' }, true).zone).toBe('');
  });
});

describe('hints from EndpointSlices', () => {
  it('reads forZones and forNodes names, shares them across ports, and leaves endpoints without hints without', () => {
    const hinted = { addresses: ['10.0.0.1'], hints: { forZones: [{ name: 'zone-a' }, { name: 'zone-a' }], forNodes: [{ name: 'node-1' }] } };
    const ports = [
      { name: 'a', port: 80, protocol: 'TCP' as const },
      { name: 'b', port: 81, protocol: 'TCP' as const },
    ];
    const map = endpointsMap([makeSlice('ns', 'web', 1, 'IPv4', [hinted, { addresses: ['10.0.0.2'] }, { addresses: ['10.0.0.3'], hints: {} }], ports)], 4, 'node-1');
    const a = map.get(servicePortKey('ns', 'web', 'a', 'tcp')) ?? [];
    const b = map.get(servicePortKey('ns', 'web', 'b', 'tcp')) ?? [];
    expect(a.map((ep) => ep.hints)).toEqual([{ zones: ['zone-a'], nodes: ['node-1'] }, undefined, undefined]);
    expect(b[0]?.hints).toBe(a[0]?.hints);
    expect(readEndpointHints({ forZones: [] })).toBeUndefined();
  });

  it('a change of hints alone is a change of the endpoints (the change tracker compares them)', () => {
    const before = [endpointInfo('10.0.0.1', 80, false, true, true, false, { zones: ['zone-a'], nodes: [] })];
    const same = [endpointInfo('10.0.0.1', 80, false, true, true, false, { zones: ['zone-a'], nodes: [] })];
    const moved = [endpointInfo('10.0.0.1', 80, false, true, true, false, { zones: ['zone-b'], nodes: [] })];
    const none = [endpointInfo('10.0.0.1', 80, false, true, true, false)];
    expect(sameEndpoints(before, same)).toBe(true);
    expect(sameEndpoints(before, moved)).toBe(false);
    expect(sameEndpoints(before, none)).toBe(false);
  });
});

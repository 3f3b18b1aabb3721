// upstream (v1.33): staging/src/k8s.io/endpointslice/trafficdist/trafficdist_test.go
// (TestReconcileHints, TestReconcileHints_doesNotMutateUnchangedSlices), transcribed: each
// slice is written as its endpoints, the only field upstream's cases set.
import type { DiscoveryEndpoint, EndpointSlice } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { reconcileTrafficDistributionHints } from './traffic-distribution.js';

type Slices = readonly (readonly DiscoveryEndpoint[])[];

interface Case {
  readonly name: string;
  readonly trafficDistribution: string | undefined;
  readonly slicesToCreate?: Slices;
  readonly slicesToUpdate?: Slices;
  readonly slicesUnchanged?: Slices;
  readonly wantSlicesToCreate?: Slices;
  readonly wantSlicesToUpdate?: Slices;
  readonly wantSlicesUnchanged?: Slices;
}

const toSlices = (slices: Slices | undefined): EndpointSlice[] =>
  (slices ?? []).map((endpoints) => ({ apiVersion: 'discovery.k8s.io/v1', kind: 'EndpointSlice', metadata: {}, addressType: 'IPv4', endpoints: [...endpoints] }));

const endpointsOf = (slices: readonly EndpointSlice[]): DiscoveryEndpoint[][] => slices.map((s) => [...(s.endpoints ?? [])]);

const cases: readonly Case[] = [
  {
    name: 'should set zone hints with PreferClose',
    trafficDistribution: 'PreferClose',
    slicesToCreate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}},
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-a', nodeName: 'node-3', conditions: {ready: true}},
        {addresses: ['10.0.0.4'], zone: 'zone-b', nodeName: 'node-4', conditions: {ready: true}},
      ],
    ],
    slicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}},
        {addresses: ['10.0.0.6'], zone: 'zone-a', nodeName: 'node-6', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.7'], zone: 'zone-b', nodeName: 'node-7', conditions: {ready: true}},
        {addresses: ['10.0.0.8'], zone: 'zone-c', nodeName: 'node-8', conditions: {ready: true}},
      ],
    ],
    wantSlicesToCreate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-a', nodeName: 'node-3', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
        {addresses: ['10.0.0.4'], zone: 'zone-b', nodeName: 'node-4', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
      ],
    ],
    wantSlicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
        {addresses: ['10.0.0.6'], zone: 'zone-a', nodeName: 'node-6', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
      ],
      [
        {addresses: ['10.0.0.7'], zone: 'zone-b', nodeName: 'node-7', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
        {addresses: ['10.0.0.8'], zone: 'zone-c', nodeName: 'node-8', conditions: {ready: true}, hints: {forZones: [{name: 'zone-c'}]}},
      ],
    ],
  },
  {
    name: 'should set zone hints with PreferSameZone',
    trafficDistribution: 'PreferSameZone',
    slicesToCreate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}},
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-a', nodeName: 'node-3', conditions: {ready: true}},
        {addresses: ['10.0.0.4'], zone: 'zone-b', nodeName: 'node-4', conditions: {ready: true}},
      ],
    ],
    slicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}},
        {addresses: ['10.0.0.6'], zone: 'zone-a', nodeName: 'node-6', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.7'], zone: 'zone-b', nodeName: 'node-7', conditions: {ready: true}},
        {addresses: ['10.0.0.8'], zone: 'zone-c', nodeName: 'node-8', conditions: {ready: true}},
      ],
    ],
    wantSlicesToCreate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-a', nodeName: 'node-3', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
        {addresses: ['10.0.0.4'], zone: 'zone-b', nodeName: 'node-4', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
      ],
    ],
    wantSlicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
        {addresses: ['10.0.0.6'], zone: 'zone-a', nodeName: 'node-6', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
      ],
      [
        {addresses: ['10.0.0.7'], zone: 'zone-b', nodeName: 'node-7', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
        {addresses: ['10.0.0.8'], zone: 'zone-c', nodeName: 'node-8', conditions: {ready: true}, hints: {forZones: [{name: 'zone-c'}]}},
      ],
    ],
  },
  {
    name: 'should set zone and node hints with PreferSameNode',
    trafficDistribution: 'PreferSameNode',
    slicesToCreate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}},
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-a', nodeName: 'node-3', conditions: {ready: true}},
        {addresses: ['10.0.0.4'], zone: 'zone-b', nodeName: 'node-4', conditions: {ready: true}},
      ],
    ],
    slicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}},
        {addresses: ['10.0.0.6'], zone: 'zone-a', nodeName: 'node-6', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.7'], zone: 'zone-b', nodeName: 'node-7', conditions: {ready: true}},
        {addresses: ['10.0.0.8'], zone: 'zone-c', nodeName: 'node-8', conditions: {ready: true}},
      ],
    ],
    wantSlicesToCreate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}], forNodes: [{name: 'node-1'}]}},
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}], forNodes: [{name: 'node-2'}]}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-a', nodeName: 'node-3', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}], forNodes: [{name: 'node-3'}]}},
        {addresses: ['10.0.0.4'], zone: 'zone-b', nodeName: 'node-4', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}], forNodes: [{name: 'node-4'}]}},
      ],
    ],
    wantSlicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}], forNodes: [{name: 'node-5'}]}},
        {addresses: ['10.0.0.6'], zone: 'zone-a', nodeName: 'node-6', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}], forNodes: [{name: 'node-6'}]}},
      ],
      [
        {addresses: ['10.0.0.7'], zone: 'zone-b', nodeName: 'node-7', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}], forNodes: [{name: 'node-7'}]}},
        {addresses: ['10.0.0.8'], zone: 'zone-c', nodeName: 'node-8', conditions: {ready: true}, hints: {forZones: [{name: 'zone-c'}], forNodes: [{name: 'node-8'}]}},
      ],
    ],
  },
  {
    name: 'should correct incorrect hints with PreferClose',
    trafficDistribution: 'PreferClose',
    slicesToUpdate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
      ],
    ],
    slicesUnchanged: [
      [
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}, hints: {forZones: [{name: 'zone-c'}]}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-c', nodeName: 'node-3', conditions: {ready: true}},
      ],
    ],
    wantSlicesToUpdate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
      ],
      [
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-c', nodeName: 'node-3', conditions: {ready: true}, hints: {forZones: [{name: 'zone-c'}]}},
      ],
    ],
  },
  {
    name: 'should not create hints with PreferClose if there are no zones',
    trafficDistribution: 'PreferClose',
    slicesToCreate: [
      [
        {addresses: ['10.0.0.1'], nodeName: 'node-1', conditions: {ready: true}},
        {addresses: ['10.0.0.2'], nodeName: 'node-2', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.3'], nodeName: 'node-3', conditions: {ready: true}},
        {addresses: ['10.0.0.4'], nodeName: 'node-4', conditions: {ready: true}},
      ],
    ],
    slicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], nodeName: 'node-5', conditions: {ready: true}},
        {addresses: ['10.0.0.6'], nodeName: 'node-6', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.7'], nodeName: 'node-7', conditions: {ready: true}},
        {addresses: ['10.0.0.8'], nodeName: 'node-8', conditions: {ready: true}},
      ],
    ],
    wantSlicesToCreate: [
      [
        {addresses: ['10.0.0.1'], nodeName: 'node-1', conditions: {ready: true}},
        {addresses: ['10.0.0.2'], nodeName: 'node-2', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.3'], nodeName: 'node-3', conditions: {ready: true}},
        {addresses: ['10.0.0.4'], nodeName: 'node-4', conditions: {ready: true}},
      ],
    ],
    wantSlicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], nodeName: 'node-5', conditions: {ready: true}},
        {addresses: ['10.0.0.6'], nodeName: 'node-6', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.7'], nodeName: 'node-7', conditions: {ready: true}},
        {addresses: ['10.0.0.8'], nodeName: 'node-8', conditions: {ready: true}},
      ],
    ],
  },
  {
    name: 'should create only node hints with PreferSameNode if there are no zones',
    trafficDistribution: 'PreferSameNode',
    slicesToCreate: [
      [
        {addresses: ['10.0.0.1'], nodeName: 'node-1', conditions: {ready: true}},
        {addresses: ['10.0.0.2'], nodeName: 'node-2', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.3'], nodeName: 'node-3', conditions: {ready: true}},
        {addresses: ['10.0.0.4'], nodeName: 'node-4', conditions: {ready: true}},
      ],
    ],
    slicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], nodeName: 'node-5', conditions: {ready: true}},
        {addresses: ['10.0.0.6'], nodeName: 'node-6', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.7'], nodeName: 'node-7', conditions: {ready: true}},
        {addresses: ['10.0.0.8'], nodeName: 'node-8', conditions: {ready: true}},
      ],
    ],
    wantSlicesToCreate: [
      [
        {addresses: ['10.0.0.1'], nodeName: 'node-1', conditions: {ready: true}, hints: {forNodes: [{name: 'node-1'}]}},
        {addresses: ['10.0.0.2'], nodeName: 'node-2', conditions: {ready: true}, hints: {forNodes: [{name: 'node-2'}]}},
      ],
      [
        {addresses: ['10.0.0.3'], nodeName: 'node-3', conditions: {ready: true}, hints: {forNodes: [{name: 'node-3'}]}},
        {addresses: ['10.0.0.4'], nodeName: 'node-4', conditions: {ready: true}, hints: {forNodes: [{name: 'node-4'}]}},
      ],
    ],
    wantSlicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], nodeName: 'node-5', conditions: {ready: true}, hints: {forNodes: [{name: 'node-5'}]}},
        {addresses: ['10.0.0.6'], nodeName: 'node-6', conditions: {ready: true}, hints: {forNodes: [{name: 'node-6'}]}},
      ],
      [
        {addresses: ['10.0.0.7'], nodeName: 'node-7', conditions: {ready: true}, hints: {forNodes: [{name: 'node-7'}]}},
        {addresses: ['10.0.0.8'], nodeName: 'node-8', conditions: {ready: true}, hints: {forNodes: [{name: 'node-8'}]}},
      ],
    ],
  },
  {
    name: 'unready endpoints should not trigger updates',
    trafficDistribution: 'PreferClose',
    slicesUnchanged: [
      [
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: false}},
      ],
    ],
    wantSlicesUnchanged: [
      [
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: false}},
      ],
    ],
  },
  {
    name: 'should remove hints when trafficDistribution is unrecognized',
    trafficDistribution: 'Unknown',
    slicesToCreate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-a', nodeName: 'node-3', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
      ],
    ],
    slicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
      ],
    ],
    wantSlicesToCreate: [
      [
        {addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: {ready: true}},
        {addresses: ['10.0.0.2'], zone: 'zone-b', nodeName: 'node-2', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.3'], zone: 'zone-a', nodeName: 'node-3', conditions: {ready: true}},
      ],
    ],
    wantSlicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}},
      ],
    ],
  },
  {
    name: 'should remove hints when trafficDistribution is unset',
    trafficDistribution: undefined,
    slicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}, hints: {forZones: [{name: 'zone-a'}]}},
      ],
    ],
    slicesUnchanged: [
      [
        {addresses: ['10.0.0.6'], zone: 'zone-b', nodeName: 'node-6', conditions: {ready: true}, hints: {forZones: [{name: 'zone-b'}]}},
      ],
    ],
    wantSlicesToUpdate: [
      [
        {addresses: ['10.0.0.5'], zone: 'zone-a', nodeName: 'node-5', conditions: {ready: true}},
      ],
      [
        {addresses: ['10.0.0.6'], zone: 'zone-b', nodeName: 'node-6', conditions: {ready: true}},
      ],
    ],
  },
];

describe('trafficdist ReconcileHints (upstream TestReconcileHints)', () => {
  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const got = reconcileTrafficDistributionHints(c.trafficDistribution, {
      toCreate: toSlices(c.slicesToCreate),
      toUpdate: toSlices(c.slicesToUpdate),
      unchanged: toSlices(c.slicesUnchanged),
    });
    expect(endpointsOf(got.toCreate)).toEqual(c.wantSlicesToCreate ?? []);
    expect(endpointsOf(got.toUpdate)).toEqual(c.wantSlicesToUpdate ?? []);
    expect(endpointsOf(got.unchanged)).toEqual(c.wantSlicesUnchanged ?? []);
  });

  it('TestReconcileHints_doesNotMutateUnchangedSlices', () => {
    const original = toSlices([[{ addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: { ready: true } }]]);
    const copy = structuredClone(original);
    const got = reconcileTrafficDistributionHints('PreferClose', { toCreate: [], toUpdate: [], unchanged: original });
    expect(original).toEqual(copy);
    // The slice did need its hint: it moved to the updates, hinted, as a new object.
    expect(endpointsOf(got.toUpdate)).toEqual([[{ addresses: ['10.0.0.1'], zone: 'zone-a', nodeName: 'node-1', conditions: { ready: true }, hints: { forZones: [{ name: 'zone-a' }] } }]]);
  });
});

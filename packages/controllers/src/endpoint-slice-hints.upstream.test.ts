// The hint cases of upstream (v1.33) staging/src/k8s.io/endpointslice/reconciler_test.go,
// through the whole controller: TestReconcileTopology and TestReconcile_TrafficDistribution.
// Each case is one sync of the Service; the counts are upstream's numCreated / numUpdated /
// numDeleted and actualSlices metrics, the hints are counted per zone (and node) as upstream
// counts them.
//
// Not transcribed: "no change, topologyCache disabled, annotation == auto" and "feature gate
// disabled; trafficDistribution=PreferClose, topologyAnnotation=Disabled". Both switch off
// something a v1.33 kube-controller-manager always has (the topology cache, and the
// ServiceTrafficDistribution gate, GA and locked on in v1.33); kubesvc models neither switch.
import type { DiscoveryEndpoint, EndpointSlice, Node, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel } from './cluster-model.fixtures.js';
import type { ReconcileAction } from './contract.js';
import { endpointPorts, endpointSliceController, podToEndpoint } from './endpoint-slice-controller.js';
import { NOW, pod, service } from './objects.fixtures.js';

function zonedNode(name: string, zone: string, cpu = '100m'): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, 'topology.kubernetes.io/zone': zone } },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: 'True' }], allocatable: { cpu } },
  };
}

interface World {
  readonly model: ClusterModel;
  readonly svc: Service;
}

/** A model with the nodes, the Service and the pods (each pod `name@node`), read back with their uids. */
function world(nodes: readonly Node[], svc: Service, pods: readonly Pod[]): World {
  const model = new ClusterModel();
  for (const n of nodes) model.put('nodes', n, NOW);
  model.put('services', svc, NOW);
  for (const p of pods) model.put('pods', p, NOW);
  return { model, svc: model.get<Service>('services', 'default', svc.metadata.name ?? '') ?? svc };
}

/** An existing slice the controller manages, holding the endpoints the controller would write for these pods. */
function existingSlice(w: World, name: string, podNames: readonly string[]): EndpointSlice {
  const pods = podNames.map((n) => w.model.get<Pod>('pods', 'default', n)).filter((p): p is Pod => p !== undefined);
  const endpoints = pods.map((p) => podToEndpoint(p, w.model.get<Node>('nodes', '', p.spec?.nodeName ?? ''), w.svc, 'IPv4'));
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: {
      name,
      namespace: 'default',
      labels: { 'kubernetes.io/service-name': w.svc.metadata.name ?? '', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' },
      ownerReferences: [{ apiVersion: 'v1', kind: 'Service', name: w.svc.metadata.name ?? '', uid: w.svc.metadata.uid ?? '', controller: true, blockOwnerDeletion: true }],
    },
    addressType: 'IPv4',
    endpoints,
    ports: pods[0] === undefined ? [] : endpointPorts(w.svc, pods[0]),
  };
}

interface Synced {
  readonly actions: readonly ReconcileAction[];
  readonly slices: readonly EndpointSlice[];
}

/** One sync of the Service, its writes carried out. */
function syncOnce(w: World, preferSameTrafficDistribution = false): Synced {
  const controller = endpointSliceController({ preferSameTrafficDistribution });
  const actions = controller.reconcile(`default/${w.svc.metadata.name ?? ''}`, w.model, NOW);
  for (const a of actions) expect(w.model.apply(a, NOW).outcome).toBe('ok');
  expect(w.model.invalidWrites).toEqual([]);
  return { actions, slices: w.model.list<EndpointSlice>('endpointslices', 'default') };
}

const count = (actions: readonly ReconcileAction[], kind: ReconcileAction['kind']): number => actions.filter((a) => a.kind === kind).length;

const allEndpoints = (slices: readonly EndpointSlice[]): DiscoveryEndpoint[] => slices.flatMap((s) => s.endpoints ?? []);

describe('reconciler_test TestReconcileTopology', () => {
  // 3 zones, 10 nodes and pods per zone; pod i*100+j on node-<zone>-<j>.
  const zones = ['zone-a', 'zone-b', 'zone-c'];
  const nodes = zones.flatMap((zone) => Array.from({ length: 10 }, (_, j) => zonedNode(`node-${zone}-${j}`, zone)));
  const pods = zones.flatMap((zone, i) => Array.from({ length: 10 }, (_, j) => pod(`pod${i * 100 + j}`, { ip: `10.0.${i}.${j + 1}`, node: `node-${zone}-${j}` })));
  const podName = (index: number): string => pods[index]?.metadata.name ?? '';
  const slicePods: Readonly<Record<string, readonly string[]>> = {
    'zone-a-b': [7, 8, 16, 17, 18].map(podName),
    'zone-a-c': [5, 6, 25, 26].map(podName),
    'zone-c': [27, 28, 29].map(podName),
  };

  const cases = [
    {
      name: 'enabling topologyCache, hintsAnnotation == auto',
      hintsAnnotation: 'auto',
      existing: ['zone-c'],
      expectedHints: { 'zone-a': 1, 'zone-b': 1, 'zone-c': 1 },
      expectedCrossZoneHints: 2,
      created: 0,
      updated: 1,
      deleted: 0,
      actualSlices: 1,
    },
    {
      name: 'topology enabled,  hintsAnnotation==auto, ratio beyond threshold',
      hintsAnnotation: 'auto',
      existing: ['zone-a-c'],
      expectedHints: null,
      expectedCrossZoneHints: 0,
      created: 0,
      updated: 0,
      deleted: 0,
      actualSlices: 1,
    },
    {
      name: 'topology enabled, hintsAnnotation==Auto, more slices and endpoints',
      hintsAnnotation: 'Auto',
      existing: ['zone-a-c', 'zone-a-b'],
      expectedHints: { 'zone-a': 3, 'zone-b': 3, 'zone-c': 3 },
      expectedCrossZoneHints: 1,
      created: 0,
      updated: 2,
      deleted: 0,
      actualSlices: 2,
    },
    {
      name: 'topology enabled, hintsAnnotation==disabled, more slices and endpoints',
      hintsAnnotation: 'disabled',
      existing: ['zone-a-c', 'zone-a-b'],
      expectedHints: null,
      expectedCrossZoneHints: 0,
      created: 0,
      updated: 0,
      deleted: 0,
      actualSlices: 2,
    },
  ] as const;

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const svc = service('foo', { selector: { app: 'web' } });
    const chosen = new Set(c.existing.flatMap((s) => slicePods[s] ?? []));
    const w = world(nodes, { ...svc, metadata: { ...svc.metadata, annotations: { 'service.kubernetes.io/topology-aware-hints': c.hintsAnnotation } } }, pods.filter((p) => chosen.has(p.metadata.name ?? '')));
    for (const name of c.existing) w.model.put('endpointslices', existingSlice(w, name, slicePods[name] ?? []), NOW);
    const { actions, slices } = syncOnce(w);
    expect([count(actions, 'create'), count(actions, 'update'), count(actions, 'delete')]).toEqual([c.created, c.updated, c.deleted]);
    expect(slices).toHaveLength(c.actualSlices);
    const endpoints = allEndpoints(slices);
    if (c.expectedHints === null) {
      expect(endpoints.filter((ep) => (ep.hints?.forZones ?? []).length > 0)).toEqual([]);
      return;
    }
    const hints: Record<string, number> = {};
    let crossZone = 0;
    for (const ep of endpoints) {
      const zones = ep.hints?.forZones ?? [];
      expect(zones).toHaveLength(1);
      const hint = zones[0]?.name ?? '';
      hints[hint] = (hints[hint] ?? 0) + 1;
      if (ep.zone !== hint) crossZone++;
    }
    expect(hints).toEqual(c.expectedHints);
    expect(crossZone).toBe(c.expectedCrossZoneHints);
  });
});

describe('reconciler_test TestReconcile_TrafficDistribution', () => {
  // node-0 in zone-a holds pod0; node-1 in zone-b pod1..pod3; node-2 in zone-c pod4, pod5.
  const nodes = [0, 1, 2].map((i) => zonedNode(`node-${i}`, `zone-${'abc'[i] ?? ''}`));
  const nodeOf = ['node-0', 'node-1', 'node-1', 'node-1', 'node-2', 'node-2'];
  const pods = nodeOf.map((n, i) => pod(`pod${i}`, { ip: `10.0.0.${i + 1}`, node: n }));

  const cases = [
    {
      name: 'trafficDistribution=PreferClose, topologyAnnotation=Disabled',
      preferSame: false,
      trafficDistribution: 'PreferClose',
      topologyAnnotation: 'Disabled',
      wantHintsDistributionByZone: { 'zone-a': 1, 'zone-b': 3, 'zone-c': 2 },
      wantHintsDistributionByNode: null,
      wantEndpointsWithCrossZoneHints: 0,
    },
    {
      name: 'trafficDistribution=PreferClose, topologyAnnotation=Auto',
      preferSame: false,
      trafficDistribution: 'PreferClose',
      topologyAnnotation: 'Auto',
      wantHintsDistributionByZone: { 'zone-a': 2, 'zone-b': 2, 'zone-c': 2 },
      wantHintsDistributionByNode: null,
      wantEndpointsWithCrossZoneHints: 1,
    },
    {
      name: 'trafficDistribution=nil, topologyAnnotation=<empty>',
      preferSame: false,
      trafficDistribution: undefined,
      topologyAnnotation: '',
      wantHintsDistributionByZone: { '': 6 },
      wantHintsDistributionByNode: null,
      wantEndpointsWithCrossZoneHints: 0,
    },
    {
      name: 'trafficDistribution=PreferSameNode, PSTD enabled',
      preferSame: true,
      trafficDistribution: 'PreferSameNode',
      topologyAnnotation: 'Disabled',
      wantHintsDistributionByZone: { 'zone-a': 1, 'zone-b': 3, 'zone-c': 2 },
      wantHintsDistributionByNode: { 'node-0': 1, 'node-1': 3, 'node-2': 2 },
      wantEndpointsWithCrossZoneHints: 0,
    },
    {
      name: 'trafficDistribution=PreferSameZone, PSTD disabled',
      preferSame: false,
      trafficDistribution: 'PreferSameZone',
      topologyAnnotation: 'Disabled',
      wantHintsDistributionByZone: { '': 6 },
      wantHintsDistributionByNode: null,
      wantEndpointsWithCrossZoneHints: 0,
    },
  ] as const;

  it.each(cases.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const svc = service('foo', { selector: { app: 'web' }, ...(c.trafficDistribution === undefined ? {} : { trafficDistribution: c.trafficDistribution }) });
    // The cluster model validates what the controller writes, not the Service a test puts.
    const w = world(nodes, { ...svc, metadata: { ...svc.metadata, annotations: { 'service.kubernetes.io/topology-aware-hints': c.topologyAnnotation } } }, pods);
    const { actions, slices } = syncOnce(w, c.preferSame);
    // One slice created, as upstream's metrics count (numCreated 1, actualSlices 1).
    expect([count(actions, 'create'), count(actions, 'update'), count(actions, 'delete')]).toEqual([1, 0, 0]);
    expect(slices).toHaveLength(1);
    const byZone: Record<string, number> = {};
    const byNode: Record<string, number> = {};
    let crossZone = 0;
    for (const ep of allEndpoints(slices)) {
      const zones = ep.hints?.forZones ?? [];
      const hint = zones.length === 1 ? (zones[0]?.name ?? '') : '';
      byZone[hint] = (byZone[hint] ?? 0) + 1;
      if (hint !== '' && ep.zone !== hint) crossZone++;
      for (const { name } of ep.hints?.forNodes ?? []) byNode[name] = (byNode[name] ?? 0) + 1;
    }
    expect(byZone).toEqual(c.wantHintsDistributionByZone);
    expect(byNode).toEqual(c.wantHintsDistributionByNode ?? {});
    expect(crossZone).toBe(c.wantEndpointsWithCrossZoneHints);
  });
});

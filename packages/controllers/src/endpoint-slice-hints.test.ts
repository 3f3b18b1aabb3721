// The EndpointSlice controller's hints over time: the events topology-aware routing records,
// the Node changes that bring a Service back, quiet fixpoints; and, over random clusters, the
// invariants of both kinds of hints (INV-EPS-HINTS in docs/invariants.md).
// upstream (v1.33): staging/src/k8s.io/endpointslice/reconciler.go, topologycache/,
//           trafficdist/, pkg/controller/endpointslice/endpointslice_controller.go (the node
//           handlers, checkNodeTopologyDistribution)
import { fc, test } from '@fast-check/vitest';
import type { EndpointSlice, Node, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { endpointSliceController } from './endpoint-slice-controller.js';
import { quantityMilliValue } from './topology-hints.js';
import { NOW, pod, service } from './objects.fixtures.js';

function zonedNode(name: string, zone: string | undefined, cpu: string | undefined, ready = true): Node {
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: { name, labels: { 'kubernetes.io/hostname': name, ...(zone === undefined ? {} : { 'topology.kubernetes.io/zone': zone }) } },
    spec: {},
    status: { conditions: [{ type: 'Ready', status: ready ? 'True' : 'False' }], ...(cpu === undefined ? {} : { allocatable: { cpu } }) },
  };
}

function withAnnotations(svc: Service, annotations: Record<string, string>): Service {
  return { ...svc, metadata: { ...svc.metadata, annotations } };
}

function setup(objects: readonly (Node | Service | Pod)[], preferSameTrafficDistribution = false): { model: ClusterModel; loop: ControllerLoop } {
  const model = new ClusterModel();
  for (const o of objects) model.put(o.kind === 'Pod' ? 'pods' : o.kind === 'Service' ? 'services' : 'nodes', o, NOW);
  const loop = new ControllerLoop(model, [endpointSliceController({ preferSameTrafficDistribution })], NOW);
  loop.start();
  loop.run();
  expect(model.invalidWrites).toEqual([]);
  return { model, loop };
}

const slices = (model: ClusterModel): EndpointSlice[] => [...model.list<EndpointSlice>('endpointslices', 'default')];
const zoneHints = (model: ClusterModel): string[][] => slices(model).flatMap((s) => (s.endpoints ?? []).map((ep) => (ep.hints?.forZones ?? []).map((z) => z.name)));
const eventsOf = (model: ClusterModel): [string, string, string][] => model.events.map((e) => [e.type, e.reason, e.message]);
/** The distinct events: upstream records a Warning again at every sync that cannot hint (the model syncs again after its own write). */
const distinctEvents = (model: ClusterModel): [string, string, string][] => [...new Map(eventsOf(model).map((e) => [e.join('|'), e])).values()];

// Two zones of equal CPU, two pods in each.
const NODES = [zonedNode('n-a', 'zone-a', '2'), zonedNode('n-b', 'zone-b', '2000m')];
const PODS = [pod('a1', { ip: '10.0.0.1', node: 'n-a' }), pod('a2', { ip: '10.0.0.2', node: 'n-a' }), pod('b1', { ip: '10.0.1.1', node: 'n-b' }), pod('b2', { ip: '10.0.1.2', node: 'n-b' })];
const AUTO = { 'service.kubernetes.io/topology-mode': 'Auto' };

describe('topology-aware hints over time', () => {
  it('records TopologyAwareHintsEnabled once, on the Service, when it first hints; a further pass writes and records nothing', () => {
    const { model, loop } = setup([...NODES, withAnnotations(service('web', { selector: { app: 'web' } }), AUTO), ...PODS]);
    expect(zoneHints(model)).toEqual([['zone-a'], ['zone-a'], ['zone-b'], ['zone-b']]);
    expect(eventsOf(model)).toEqual([['Normal', 'TopologyAwareHintsEnabled', 'Topology Aware Hints has been enabled, addressType: IPv4']]);
    expect(model.events[0]?.regarding).toEqual({ resource: 'services', apiVersion: 'v1', kind: 'Service', namespace: 'default', name: 'web' });
    expect(model.events[0]?.reportingController).toBe('endpoint-slice-controller');
    loop.start();
    expect(loop.run().writes).toBe(0);
    expect(model.events).toHaveLength(1);
  });

  it('writes no hints and says why when a ready node has no allocatable CPU', () => {
    const { model } = setup([...NODES, zonedNode('n-c', 'zone-c', undefined), withAnnotations(service('web', { selector: { app: 'web' } }), AUTO), ...PODS]);
    expect(zoneHints(model)).toEqual([[], [], [], []]);
    expect(distinctEvents(model)).toEqual([['Warning', 'TopologyAwareHintsDisabled', 'Insufficient Node information: allocatable CPU or zone not specified on one or more nodes, addressType: IPv4']]);
  });

  it('needs as many endpoints as zones, and says how many there are', () => {
    const { model } = setup([...NODES, zonedNode('n-c', 'zone-c', '2'), withAnnotations(service('web', { selector: { app: 'web' } }), AUTO), ...PODS.slice(0, 2)]);
    expect(zoneHints(model)).toEqual([[], []]);
    expect(distinctEvents(model)).toEqual([['Warning', 'TopologyAwareHintsDisabled', 'Insufficient number of endpoints (2 endpoints, 3 zones), addressType: IPv4']]);
  });

  it('removes the hints with TopologyAwareHintsDisabled when the annotation goes; trafficDistribution then keeps its own', () => {
    const { model, loop } = setup([...NODES, withAnnotations(service('web', { selector: { app: 'web' } }), AUTO), ...PODS]);
    const svc = model.get<Service>('services', 'default', 'web');
    if (svc === undefined) throw new Error('no Service');
    loop.put('services', withAnnotations(svc, {}));
    loop.run();
    expect(zoneHints(model)).toEqual([[], [], [], []]);
    expect(eventsOf(model).slice(1)).toEqual([['Warning', 'TopologyAwareHintsDisabled', 'Topology Aware Hints has been disabled, addressType: IPv4']]);
    // trafficDistribution: zone hints again, and no further topology event.
    loop.put('services', { ...withAnnotations(svc, {}), spec: { ...svc.spec, trafficDistribution: 'PreferClose' } });
    loop.run();
    expect(zoneHints(model)).toEqual([['zone-a'], ['zone-a'], ['zone-b'], ['zone-b']]);
    expect(model.events).toHaveLength(2);
  });

  it('the annotation wins over trafficDistribution', () => {
    // 3 zones of equal CPU, all four endpoints in zone-a: the allocation moves some of them.
    const nodes = [zonedNode('n-a', 'zone-a', '1'), zonedNode('n-b', 'zone-b', '1'), zonedNode('n-c', 'zone-c', '1')];
    const pods = ['1', '2', '3', '4', '5', '6'].map((i) => pod(`p${i}`, { ip: `10.0.0.${i}`, node: 'n-a' }));
    const { model } = setup([...nodes, withAnnotations(service('web', { selector: { app: 'web' }, trafficDistribution: 'PreferClose' }), AUTO), ...pods]);
    expect(zoneHints(model).flat().sort()).toEqual(['zone-a', 'zone-a', 'zone-b', 'zone-b', 'zone-c', 'zone-c']);
  });

  it('a Node whose zone changes brings back the Services it leaves short of their share', () => {
    const { model, loop } = setup([...NODES, withAnnotations(service('web', { selector: { app: 'web' } }), AUTO), ...PODS]);
    expect(zoneHints(model)).toEqual([['zone-a'], ['zone-a'], ['zone-b'], ['zone-b']]);
    // A third zone with a node as big as the other two: zone-c now needs endpoints it has none of.
    loop.put('nodes', zonedNode('n-c', 'zone-c', '4'));
    loop.run();
    const hints = zoneHints(model).flat();
    expect(hints).toHaveLength(4);
    expect(hints.filter((z) => z === 'zone-c').length).toBeGreaterThanOrEqual(1);
  });

  it('a Node change that leaves every zone its minimum does not resync the Service', () => {
    const { model, loop } = setup([...NODES, withAnnotations(service('web', { selector: { app: 'web' } }), AUTO), ...PODS]);
    const writes = model.changes.length;
    // Only the CPU changes: upstream's updateNode looks at readiness and the zone label only.
    loop.put('nodes', zonedNode('n-a', 'zone-a', '3'));
    const { writes: after } = loop.run();
    expect(after).toBe(0);
    expect(model.changes.length).toBe(writes + 1);
  });
});

describe('trafficDistribution hints', () => {
  it('PreferSameNode gives node hints too, with the gate on; with it off, nothing', () => {
    const svc = service('web', { selector: { app: 'web' }, trafficDistribution: 'PreferSameNode' });
    const on = setup([...NODES, svc, ...PODS.slice(0, 1)], true);
    expect(slices(on.model)[0]?.endpoints?.map((ep) => ep.hints)).toEqual([{ forZones: [{ name: 'zone-a' }], forNodes: [{ name: 'n-a' }] }]);
    const off = setup([...NODES, svc, ...PODS.slice(0, 1)], false);
    expect(slices(off.model)[0]?.endpoints?.map((ep) => ep.hints)).toEqual([undefined]);
  });

  it('hints nothing for an endpoint without a zone, and only ready endpoints', () => {
    const nodes = [...NODES, zonedNode('n-x', undefined, '1')];
    const pods = [pod('x', { ip: '10.0.2.1', node: 'n-x' }), pod('slow', { ip: '10.0.0.9', node: 'n-a', ready: false })];
    const { model, loop } = setup([...nodes, service('web', { selector: { app: 'web' }, trafficDistribution: 'PreferClose' }), ...pods]);
    expect(slices(model)[0]?.endpoints?.map((ep) => [ep.addresses[0], ep.hints])).toEqual([
      ['10.0.0.9', undefined],
      ['10.0.2.1', undefined],
    ]);
    loop.start();
    expect(loop.run().writes).toBe(0);
  });
});

// upstream: staging/src/k8s.io/apimachinery/pkg/api/resource/quantity.go (MilliValue rounds up).
describe('allocatable CPU as millicores', () => {
  it.each([
    ['4', 4000n],
    ['250m', 250n],
    ['1.5', 1500n],
    ['0.0001', 1n],
    ['1k', 1_000_000n],
    ['2Ki', 2_048_000n],
    ['1e3', 1_000_000n],
    ['100u', 1n],
    ['', undefined],
    ['four', undefined],
  ] as const)('%j is %s', (text, want) => {
    expect(quantityMilliValue(text)).toBe(want);
  });
});

// --- INV-EPS-HINTS --------------------------------------------------------------------------

const ZONES = ['zone-a', 'zone-b', 'zone-c'] as const;

interface ClusterSpec {
  readonly nodes: readonly { readonly zone: number | undefined; readonly cpu: number; readonly ready: boolean }[];
  readonly pods: readonly { readonly node: number; readonly ready: boolean }[];
  readonly mode: 'PreferClose' | 'Auto' | 'both';
}

const clusterArb: fc.Arbitrary<ClusterSpec> = fc.record({
  nodes: fc.array(fc.record({ zone: fc.option(fc.integer({ min: 0, max: 2 }), { nil: undefined, freq: 8 }), cpu: fc.integer({ min: 0, max: 8 }), ready: fc.boolean() }), { minLength: 1, maxLength: 5 }),
  pods: fc.array(fc.record({ node: fc.nat(4), ready: fc.boolean() }), { minLength: 0, maxLength: 14 }),
  mode: fc.constantFrom('PreferClose', 'Auto', 'both'),
});

function build(spec: ClusterSpec): { model: ClusterModel; loop: ControllerLoop } {
  const nodes = spec.nodes.map((n, i) => zonedNode(`n${i}`, n.zone === undefined ? undefined : ZONES[n.zone], n.cpu === 0 ? undefined : String(n.cpu), n.ready));
  const pods = spec.pods.map((p, i) => pod(`p${i}`, { ip: `10.0.0.${i + 1}`, node: `n${p.node % spec.nodes.length}`, ready: p.ready }));
  const svc = service('web', { selector: { app: 'web' }, ...(spec.mode === 'Auto' ? {} : { trafficDistribution: 'PreferClose' }) });
  return setup([...nodes, spec.mode === 'PreferClose' ? svc : withAnnotations(svc, AUTO), ...pods]);
}

test.prop([clusterArb])(
  'INV-EPS-HINTS: with PreferClose every ready endpoint with a zone is hinted for exactly its own zone and one without a zone has no hint; with topology-mode Auto (which wins over trafficDistribution) either every ready endpoint has exactly one zone hint, for its own zone or one with a ready Node, or none has any; another pass writes nothing',
  (spec) => {
    const { model, loop } = build(spec);
    // The fixpoint is quiet: another full pass writes nothing.
    loop.start();
    expect(loop.run().writes).toBe(0);
    const ready = slices(model).flatMap((s) => s.endpoints ?? []).filter((ep) => ep.conditions?.ready === true);
    if (spec.mode === 'PreferClose') {
      for (const ep of ready) expect(ep.hints?.forZones ?? []).toEqual(ep.zone === undefined ? [] : [{ name: ep.zone }]);
      return;
    }
    const hinted = ready.filter((ep) => (ep.hints?.forZones ?? []).length > 0);
    if (hinted.length === 0) return;
    expect(hinted).toHaveLength(ready.length);
    const readyZones = new Set(model.list<Node>('nodes').filter((n) => n.status?.conditions?.[0]?.status === 'True').map((n) => n.metadata.labels?.['topology.kubernetes.io/zone']));
    for (const ep of ready) {
      expect(ep.hints?.forZones).toHaveLength(1);
      // Upstream keeps an endpoint's own zone even when no ready Node is in it; only zones with ready Nodes receive others.
      const hint = ep.hints?.forZones?.[0]?.name;
      expect(hint === ep.zone || readyZones.has(hint)).toBe(true);
    }
  },
);

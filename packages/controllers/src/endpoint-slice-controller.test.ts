// The EndpointSlice controller against upstream's behaviour (staging/src/k8s.io/endpointslice
// reconciler.go and utils.go, and their tests): slice shape, conditions, the 100-endpoint cap,
// address types, the placeholder, and no churn at a fixpoint.
import type { EndpointSlice, Node, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { endpointSliceController } from './endpoint-slice-controller.js';
import { node, NOW, pod, service } from './objects.fixtures.js';

function setup(objects: readonly (Pod | Service | Node)[], max?: number): { model: ClusterModel; loop: ControllerLoop } {
  const model = new ClusterModel();
  for (const o of objects) model.put(o.kind === 'Pod' ? 'pods' : o.kind === 'Service' ? 'services' : 'nodes', o, NOW);
  const loop = new ControllerLoop(model, [endpointSliceController(max === undefined ? {} : { maxEndpointsPerSlice: max })], NOW);
  loop.start();
  loop.run();
  expect(model.invalidWrites).toEqual([]);
  return { model, loop };
}

function slicesOf(model: ClusterModel, service: string): EndpointSlice[] {
  return model.list<EndpointSlice>('endpointslices', 'default').filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === service);
}

const NODES = [node('node-a', 'zone-1'), node('node-b')];

describe('EndpointSlice controller', () => {
  it('writes one slice named from the Service, labelled, owned by it, with each pod\'s conditions, node and zone', () => {
    const { model } = setup([
      ...NODES,
      service('web', { selector: { app: 'web' } }, { tier: 'front' }),
      pod('a', { ip: '10.244.0.5' }),
      pod('b', { ip: '10.244.0.6', ready: false, node: 'node-b' }),
    ]);
    const svc = model.get<Service>('services', 'default', 'web');
    const uidOf = (name: string): string => model.get<Pod>('pods', 'default', name)?.metadata.uid ?? '';
    const [slice, ...more] = slicesOf(model, 'web');
    expect(more).toEqual([]);
    expect(slice?.metadata.name).toMatch(/^web-/);
    expect(slice?.metadata.labels).toEqual({ tier: 'front', 'kubernetes.io/service-name': 'web', 'endpointslice.kubernetes.io/managed-by': 'endpointslice-controller.k8s.io' });
    expect(slice?.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Service', name: 'web', uid: svc?.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(slice?.addressType).toBe('IPv4');
    expect(slice?.ports).toEqual([{ name: '', port: 8080, protocol: 'TCP' }]);
    expect(slice?.endpoints).toEqual([
      {
        addresses: ['10.244.0.5'],
        conditions: { ready: true, serving: true, terminating: false },
        targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: uidOf('a') },
        nodeName: 'node-a',
        zone: 'zone-1',
      },
      {
        addresses: ['10.244.0.6'],
        conditions: { ready: false, serving: false, terminating: false },
        targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: uidOf('b') },
        nodeName: 'node-b',
      },
    ]);
  });

  it('keeps terminating pods as serving but not ready, unless the Service publishes not-ready addresses', () => {
    const objects = [...NODES, pod('going', { ip: '10.244.0.8', deleting: true }), pod('done', { ip: '10.244.0.9', phase: 'Failed' })];
    const plain = setup([service('web', { selector: { app: 'web' } }), ...objects]);
    expect(slicesOf(plain.model, 'web')[0]?.endpoints?.map((e) => [e.addresses[0], e.conditions])).toEqual([['10.244.0.8', { ready: false, serving: true, terminating: true }]]);
    const tolerant = setup([service('web', { selector: { app: 'web' }, publishNotReadyAddresses: true }), ...objects]);
    expect(slicesOf(tolerant.model, 'web')[0]?.endpoints?.map((e) => e.conditions)).toEqual([{ ready: true, serving: true, terminating: true }]);
  });

  it('puts at most 100 endpoints in a slice, and changes only the slice a removed pod was in', () => {
    const pods: Pod[] = [];
    for (let i = 0; i < 250; i++) pods.push(pod(`p${String(i).padStart(3, '0')}`, { ip: `10.244.${Math.floor(i / 200)}.${(i % 200) + 1}` }));
    const { model, loop } = setup([...NODES, service('web', { selector: { app: 'web' } }), ...pods]);
    const before = slicesOf(model, 'web');
    expect(before.map((s) => s.endpoints?.length)).toEqual([100, 100, 50]);
    const ips = before.flatMap((s) => (s.endpoints ?? []).map((e) => e.addresses[0]));
    expect(new Set(ips).size).toBe(250);
    loop.remove('pods', 'default', 'p000');
    const { writes } = loop.run();
    expect(writes).toBe(1);
    expect(slicesOf(model, 'web').map((s) => s.endpoints?.length)).toEqual([99, 100, 50]);
  });

  it('fills a new pod into the slice it fits best rather than creating one', () => {
    const pods: Pod[] = [];
    for (let i = 0; i < 150; i++) pods.push(pod(`p${String(i).padStart(3, '0')}`, { ip: `10.244.0.${i + 1}` }));
    const { model, loop } = setup([...NODES, service('web', { selector: { app: 'web' } }), ...pods]);
    loop.put('pods', pod('extra', { ip: '10.244.1.1' }));
    expect(loop.run().writes).toBe(1);
    expect(slicesOf(model, 'web').map((s) => s.endpoints?.length)).toEqual([100, 51]);
  });

  it('writes one set of slices per IP family of a dual-stack Service', () => {
    const { model } = setup([
      ...NODES,
      service('web', { selector: { app: 'web' }, ipFamilies: ['IPv4', 'IPv6'], clusterIPs: ['10.96.0.10', 'fd00::a'] }),
      pod('a', { ip: ['10.244.0.5', 'fd00:10:244:0:0:0:0:5'] }),
    ]);
    const slices = slicesOf(model, 'web');
    expect(slices.map((s) => [s.addressType, s.endpoints?.map((e) => e.addresses)])).toEqual(
      expect.arrayContaining([
        ['IPv4', [['10.244.0.5']]],
        // The address is written canonically.
        ['IPv6', [['fd00:10:244::5']]],
      ]),
    );
    expect(slices).toHaveLength(2);
  });

  it('writes a placeholder slice without endpoints or ports when no pod is selected', () => {
    const { model, loop } = setup([...NODES, service('web', { selector: { app: 'web' } })]);
    const [placeholder, ...more] = slicesOf(model, 'web');
    expect(more).toEqual([]);
    expect(placeholder?.endpoints ?? []).toEqual([]);
    expect(placeholder?.ports ?? []).toEqual([]);
    // A pod arrives: the placeholder is reused, not deleted and created again.
    loop.put('pods', pod('a', { ip: '10.244.0.5' }));
    loop.run();
    const [slice, ...others] = slicesOf(model, 'web');
    expect(others).toEqual([]);
    expect(slice?.metadata.name).toBe(placeholder?.metadata.name);
    expect(slice?.endpoints?.map((e) => e.addresses[0])).toEqual(['10.244.0.5']);
    // And it goes back to a placeholder, still the same object, when the pod leaves.
    loop.remove('pods', 'default', 'a');
    loop.run();
    expect(slicesOf(model, 'web').map((s) => [s.metadata.name, s.endpoints?.length ?? 0])).toEqual([[placeholder?.metadata.name, 0]]);
  });

  it('groups pods by the ports they resolve', () => {
    const { model } = setup([
      ...NODES,
      service('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }] }),
      pod('a', { ip: '10.244.0.5', ports: [{ name: 'http', containerPort: 8080 }] }),
      pod('b', { ip: '10.244.0.6', ports: [{ name: 'http', containerPort: 9090 }] }),
    ]);
    const view = slicesOf(model, 'web').map((s) => [s.ports?.map((p) => p.port), s.endpoints?.map((e) => e.addresses[0])]);
    expect(view).toEqual(
      expect.arrayContaining([
        [[8080], ['10.244.0.5']],
        [[9090], ['10.244.0.6']],
      ]),
    );
    expect(view).toHaveLength(2);
  });

  it('leaves out pods on a node it does not know until the node appears', () => {
    const { model, loop } = setup([node('node-a'), service('web', { selector: { app: 'web' } }), pod('a', { ip: '10.244.0.5' }), pod('b', { ip: '10.244.0.6', node: 'node-late' })]);
    expect(slicesOf(model, 'web')[0]?.endpoints?.map((e) => e.addresses[0])).toEqual(['10.244.0.5']);
    // Each sync reports it, as the reconciler's error becomes a warning on the Service.
    const reported = model.events.map((e) => [e.reportingController, e.type, e.reason, e.message]);
    expect(reported.length).toBeGreaterThan(0);
    for (const event of reported) {
      expect(event).toEqual(['endpoint-slice-controller', 'Warning', 'FailedToUpdateEndpointSlices', 'Error updating Endpoint Slices for Service default/web: skipping Pod b for Service default/web: Node node-late Not Found']);
    }
    loop.put('nodes', node('node-late'));
    loop.run();
    expect(slicesOf(model, 'web')[0]?.endpoints?.map((e) => e.addresses[0])).toEqual(['10.244.0.5', '10.244.0.6']);
  });

  it('stamps last-change-trigger-time on the slices it writes: the Service\'s creation first, then the earliest pod readiness change since', () => {
    const TRIGGER = 'endpoints.kubernetes.io/last-change-trigger-time';
    const { model, loop } = setup([...NODES, service('web', { selector: { app: 'web' } }), pod('a', { ip: '10.244.0.5', readySince: '2025-01-02T03:00:00Z' })]);
    expect(slicesOf(model, 'web')[0]?.metadata.annotations).toEqual({ [TRIGGER]: '2025-01-02T03:04:05Z' });
    loop.put('pods', pod('b', { ip: '10.244.0.6', readySince: '2025-01-02T03:30:00.25Z' }));
    loop.run();
    const [slice] = slicesOf(model, 'web');
    expect(slice?.endpoints?.map((e) => e.addresses[0])).toEqual(['10.244.0.5', '10.244.0.6']);
    expect(slice?.metadata.annotations).toEqual({ [TRIGGER]: '2025-01-02T03:30:00.25Z' });
  });

  it('labels the slices of a headless Service, and leaves Services without a selector alone', () => {
    const { model } = setup([
      ...NODES,
      service('db', { selector: { app: 'web' }, clusterIP: 'None', clusterIPs: ['None'] }),
      service('manual', {}),
      pod('a', { ip: '10.244.0.5' }),
    ]);
    expect(slicesOf(model, 'db')[0]?.metadata.labels?.['service.kubernetes.io/headless']).toBe('');
    expect(slicesOf(model, 'manual')).toEqual([]);
  });

  it('deletes the slices of a deleted Service', () => {
    const { model, loop } = setup([...NODES, service('web', { selector: { app: 'web' } }), pod('a', { ip: '10.244.0.5' })]);
    expect(slicesOf(model, 'web')).toHaveLength(1);
    loop.remove('services', 'default', 'web');
    loop.run();
    expect(slicesOf(model, 'web')).toEqual([]);
  });

  it('puts a hand-edited slice back and otherwise writes nothing', () => {
    const { model, loop } = setup([...NODES, service('web', { selector: { app: 'web' } }), pod('a', { ip: '10.244.0.5' })]);
    const [slice] = slicesOf(model, 'web');
    if (slice === undefined) throw new Error('no slice');
    loop.put('endpointslices', { ...slice, endpoints: [] });
    loop.run();
    expect(slicesOf(model, 'web')[0]?.endpoints?.map((e) => e.addresses[0])).toEqual(['10.244.0.5']);
    const a = model.get<Pod>('pods', 'default', 'a');
    if (a === undefined) throw new Error('pod');
    loop.put('pods', { ...a, metadata: { ...a.metadata, annotations: { note: 'x' } } });
    expect(loop.run().writes).toBe(0);
  });
});

// The mirroring controller against upstream's behaviour (pkg/controller/endpointslicemirroring
// and its tests): what is mirrored, what is skipped, and the slice it writes.
import type { EndpointSlice, Endpoints, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { endpointSliceMirroringController } from './endpoint-slice-mirroring-controller.js';
import { NOW, service } from './objects.fixtures.js';

function endpoints(name: string, subsets: Endpoints['subsets'], meta: Partial<Endpoints['metadata']> = {}): Endpoints {
  return { apiVersion: 'v1', kind: 'Endpoints', metadata: { name, namespace: 'default', ...meta }, subsets };
}

function setup(objects: readonly (Service | Endpoints)[]): { model: ClusterModel; loop: ControllerLoop } {
  const model = new ClusterModel();
  for (const o of objects) model.put(o.kind === 'Service' ? 'services' : 'endpoints', o, NOW);
  const loop = new ControllerLoop(model, [endpointSliceMirroringController()], NOW);
  loop.start();
  loop.run();
  expect(model.invalidWrites).toEqual([]);
  return { model, loop };
}

function slicesOf(model: ClusterModel, name: string, namespace = 'default'): EndpointSlice[] {
  return model.list<EndpointSlice>('endpointslices', namespace).filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === name);
}

const EXTERNAL = service('ext', { ports: [{ port: 80, protocol: 'TCP', targetPort: 9376 }] });
const EXT_ENDPOINTS = endpoints('ext', [{ addresses: [{ ip: '1.2.3.4' }], ports: [{ port: 9376, protocol: 'TCP' }] }], {
  labels: { team: 'a' },
  annotations: { note: 'kept', 'kubectl.kubernetes.io/last-applied-configuration': '{}', 'endpoints.kubernetes.io/last-change-trigger-time': '2025-01-02T03:04:05Z' },
});

describe('EndpointSlice mirroring controller', () => {
  it('mirrors the hand-written Endpoints of a Service without a selector', () => {
    const { model } = setup([EXTERNAL, EXT_ENDPOINTS]);
    const ep = model.get<Endpoints>('endpoints', 'default', 'ext');
    const [slice, ...more] = slicesOf(model, 'ext');
    expect(more).toEqual([]);
    expect(slice?.metadata.name).toMatch(/^ext-/);
    expect(slice?.metadata.labels).toEqual({ team: 'a', 'kubernetes.io/service-name': 'ext', 'endpointslice.kubernetes.io/managed-by': 'endpointslicemirroring-controller.k8s.io' });
    // Annotations are copied except the trigger time and kubectl's last-applied record.
    expect(slice?.metadata.annotations).toEqual({ note: 'kept' });
    expect(slice?.metadata.ownerReferences).toEqual([{ apiVersion: 'v1', kind: 'Endpoints', name: 'ext', uid: ep?.metadata.uid, controller: true, blockOwnerDeletion: true }]);
    expect(slice?.addressType).toBe('IPv4');
    expect(slice?.ports).toEqual([{ name: '', port: 9376, protocol: 'TCP' }]);
    expect(slice?.endpoints).toEqual([{ addresses: ['1.2.3.4'], conditions: { ready: true } }]);
  });

  it('mirrors not-ready addresses as not ready, with their node, hostname and target', () => {
    const { model } = setup([
      EXTERNAL,
      endpoints('ext', [
        {
          addresses: [{ ip: '10.0.0.1', hostname: 'one', nodeName: 'node-a' }],
          notReadyAddresses: [{ ip: '10.0.0.2', targetRef: { kind: 'Pod', namespace: 'default', name: 'p2' } }],
          ports: [{ name: 'http', port: 80, protocol: 'TCP' }],
        },
      ]),
    ]);
    expect(slicesOf(model, 'ext')[0]?.endpoints).toEqual([
      { addresses: ['10.0.0.1'], conditions: { ready: true }, nodeName: 'node-a', hostname: 'one' },
      { addresses: ['10.0.0.2'], conditions: { ready: false }, targetRef: { kind: 'Pod', namespace: 'default', name: 'p2' } },
    ]);
  });

  it('writes one slice per address type and port set', () => {
    const { model } = setup([
      EXTERNAL,
      endpoints('ext', [
        { addresses: [{ ip: '10.0.0.1' }, { ip: 'fd00::1' }], ports: [{ port: 80, protocol: 'TCP' }] },
        { addresses: [{ ip: '10.0.0.2' }], ports: [{ port: 443, protocol: 'TCP' }] },
      ]),
    ]);
    const view = slicesOf(model, 'ext').map((s) => [s.addressType, s.ports?.[0]?.port, s.endpoints?.map((e) => e.addresses[0])]);
    expect(view).toEqual(
      expect.arrayContaining([
        ['IPv4', 80, ['10.0.0.1']],
        ['IPv6', 80, ['fd00::1']],
        ['IPv4', 443, ['10.0.0.2']],
      ]),
    );
    expect(view).toHaveLength(3);
  });

  it('skips addresses that are not IPs and mirrors at most 1000 per subset, with a warning for each', () => {
    const many = Array.from({ length: 1005 }, (_, i) => ({ ip: `10.1.${Math.floor(i / 250)}.${(i % 250) + 1}` }));
    const { model } = setup([EXTERNAL, endpoints('ext', [{ addresses: [{ ip: 'not-an-ip' }, ...many], ports: [{ port: 80, protocol: 'TCP' }] }])]);
    const [slice] = slicesOf(model, 'ext');
    expect(slice?.endpoints).toHaveLength(1000);
    expect(slice?.endpoints?.[0]?.addresses).toEqual(['10.1.0.1']);
    // Both are reported on the Endpoints: 1 invalid address, and 6 of the 1,006 not mirrored.
    const reported = new Set(model.events.map((e) => `${e.reportingController} ${e.regarding.kind}/${e.regarding.name} ${e.type} ${e.reason}: ${e.message}`));
    expect([...reported]).toEqual([
      'endpoint-slice-mirroring-controller Endpoints/ext Warning InvalidIPAddress: Skipped 1 invalid IP addresses when mirroring to EndpointSlices',
      'endpoint-slice-mirroring-controller Endpoints/ext Warning TooManyAddressesToMirror: A max of 1000 addresses can be mirrored to EndpointSlices per Endpoints subset. 6 addresses were skipped',
    ]);
  });

  it('leaves alone Endpoints labelled skip-mirror, such as default/kubernetes, and leader-election locks', () => {
    const { model } = setup([
      { ...service('kubernetes', { ports: [{ name: 'https', port: 443, protocol: 'TCP', targetPort: 6443 }] }) },
      endpoints('kubernetes', [{ addresses: [{ ip: '192.168.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }], { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } }),
      service('lock', {}),
      endpoints('lock', [{ addresses: [{ ip: '192.168.0.3' }], ports: [{ port: 1, protocol: 'TCP' }] }], { annotations: { 'control-plane.alpha.kubernetes.io/leader': '{}' } }),
    ]);
    expect(slicesOf(model, 'kubernetes')).toEqual([]);
    expect(slicesOf(model, 'lock')).toEqual([]);
  });

  it('removes the mirrored slices when the Endpoints gets skip-mirror, is deleted, or the Service gets a selector or goes', () => {
    const cases: ((loop: ControllerLoop) => void)[] = [
      (loop) => loop.put('endpoints', { ...EXT_ENDPOINTS, metadata: { ...EXT_ENDPOINTS.metadata, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } }),
      (loop) => loop.remove('endpoints', 'default', 'ext'),
      (loop) => loop.put('services', { ...EXTERNAL, spec: { ...EXTERNAL.spec, selector: { app: 'x' } } }),
      (loop) => loop.remove('services', 'default', 'ext'),
    ];
    for (const change of cases) {
      const { model, loop } = setup([EXTERNAL, EXT_ENDPOINTS]);
      expect(slicesOf(model, 'ext')).toHaveLength(1);
      change(loop);
      loop.run();
      expect(slicesOf(model, 'ext')).toEqual([]);
    }
  });

  it('does not mirror the Endpoints of a Service with a selector', () => {
    const { model } = setup([service('web', { selector: { app: 'web' } }), endpoints('web', [{ addresses: [{ ip: '10.0.0.1' }], ports: [{ port: 80, protocol: 'TCP' }] }])]);
    expect(slicesOf(model, 'web')).toEqual([]);
  });

  it('follows Endpoints changes in place, and writes nothing when the slice already matches', () => {
    const { model, loop } = setup([EXTERNAL, EXT_ENDPOINTS]);
    const [before] = slicesOf(model, 'ext');
    loop.put('endpoints', { ...EXT_ENDPOINTS, subsets: [{ addresses: [{ ip: '1.2.3.4' }, { ip: '1.2.3.5' }], ports: [{ port: 9376, protocol: 'TCP' }] }] });
    loop.run();
    const [after, ...more] = slicesOf(model, 'ext');
    expect(more).toEqual([]);
    expect(after?.metadata.name).toBe(before?.metadata.name);
    expect(after?.endpoints?.map((e) => e.addresses[0])).toEqual(['1.2.3.4', '1.2.3.5']);
    // The same addresses in another order: nothing to write.
    loop.put('endpoints', { ...EXT_ENDPOINTS, subsets: [{ addresses: [{ ip: '1.2.3.5' }, { ip: '1.2.3.4' }], ports: [{ port: 9376, protocol: 'TCP' }] }] });
    expect(loop.run().writes).toBe(0);
  });

  it('recycles a slice when the ports change instead of deleting and creating', () => {
    const { model, loop } = setup([EXTERNAL, EXT_ENDPOINTS]);
    const [before] = slicesOf(model, 'ext');
    loop.put('endpoints', { ...EXT_ENDPOINTS, subsets: [{ addresses: [{ ip: '1.2.3.4' }], ports: [{ port: 9377, protocol: 'TCP' }] }] });
    loop.run();
    const [after, ...more] = slicesOf(model, 'ext');
    expect(more).toEqual([]);
    expect(after?.metadata.name).toBe(before?.metadata.name);
    expect(after?.ports?.map((p) => p.port)).toEqual([9377]);
  });
  // upstream (v1.33): pkg/controller/endpointslicemirroring/reconciler.go (totalChanges
  // compares with EndpointsEqualBeyondHash, which leaves hints out; a changed slice is written
  // anew by newEndpointSlice, which sets none). Endpoints carry no hints, and the mirroring
  // controller reads neither trafficDistribution nor the topology annotations.
  it('writes no hints, whatever the Service asks for; hints added to a mirrored slice stay until the Endpoints change', () => {
    const asking = { ...EXTERNAL, metadata: { ...EXTERNAL.metadata, annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } }, spec: { ...EXTERNAL.spec, trafficDistribution: 'PreferClose' } };
    const withZone = endpoints('ext', [{ addresses: [{ ip: '1.2.3.4', nodeName: 'node-a' }], ports: [{ port: 9376, protocol: 'TCP' }] }]);
    const { model, loop } = setup([asking, withZone]);
    const [slice] = slicesOf(model, 'ext');
    if (slice === undefined) throw new Error('no slice');
    expect(slice.endpoints?.map((ep) => ep.hints)).toEqual([undefined]);
    // Someone hints the mirrored endpoint by hand: a resync leaves it, as upstream's compare ignores hints.
    loop.put('endpointslices', { ...slice, endpoints: (slice.endpoints ?? []).map((ep) => ({ ...ep, hints: { forZones: [{ name: 'zone-x' }] } })) });
    loop.start();
    expect(loop.run().writes).toBe(0);
    expect(slicesOf(model, 'ext')[0]?.endpoints?.map((ep) => ep.hints)).toEqual([{ forZones: [{ name: 'zone-x' }] }]);
    // The Endpoints change: the slice is written anew, without hints.
    const ep = model.get<Endpoints>('endpoints', 'default', 'ext');
    if (ep === undefined) throw new Error('no Endpoints');
    loop.put('endpoints', { ...ep, subsets: [{ addresses: [{ ip: '1.2.3.4', nodeName: 'node-a' }, { ip: '1.2.3.5' }], ports: [{ port: 9376, protocol: 'TCP' }] }] });
    loop.run();
    expect(slicesOf(model, 'ext')[0]?.endpoints?.map((e) => [e.addresses[0], e.hints])).toEqual([
      ['1.2.3.4', undefined],
      ['1.2.3.5', undefined],
    ]);
  });
});

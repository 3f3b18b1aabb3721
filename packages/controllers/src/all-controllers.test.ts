// The four controllers together, as the host runs them: pods created without a node or an IP
// are bound and started by the simulated kubelet, and the Endpoints and EndpointSlices follow
// their readiness; a selector-less Service's hand-written Endpoints reach a slice.
import type { EndpointSlice, Endpoints, Pod } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { endpointSliceController } from './endpoint-slice-controller.js';
import { endpointSliceMirroringController } from './endpoint-slice-mirroring-controller.js';
import { endpointsController } from './endpoints-controller.js';
import { NOW, service } from './objects.fixtures.js';
import { simulatedKubelet } from './simulated-kubelet.js';

function bare(name: string): Pod {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace: 'default', labels: { app: 'web' } },
    spec: { containers: [{ name: 'app', image: 'nginx', ports: [{ name: 'http', containerPort: 8080 }] }] },
    status: { phase: 'Pending' },
  } as Pod;
}

describe('the controllers together', () => {
  it('takes pods from created to endpoints, ready after the kubelet\'s delay', () => {
    const model = new ClusterModel();
    const loop = new ControllerLoop(
      model,
      [simulatedKubelet({ hostName: 'h', nodes: [{ name: 'n1' }, { name: 'n2' }], readyAfterMs: 3000 }), endpointsController(), endpointSliceController(), endpointSliceMirroringController()],
      NOW,
    );
    loop.put('services', service('web', { selector: { app: 'web' }, ports: [{ name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' }] }));
    for (const name of ['a', 'b', 'c']) loop.put('pods', bare(name));
    loop.start();
    const first = loop.run();
    expect(model.invalidWrites).toEqual([]);
    expect([...first.timers.values()]).toEqual([NOW + 3000, NOW + 3000]);

    const ep = (): Endpoints | undefined => model.get<Endpoints>('endpoints', 'default', 'web');
    const slice = (): EndpointSlice | undefined => model.list<EndpointSlice>('endpointslices', 'default')[0];
    expect(ep()?.subsets).toEqual([
      {
        notReadyAddresses: [
          expect.objectContaining({ ip: '10.244.0.2', nodeName: 'n1' }),
          expect.objectContaining({ ip: '10.244.0.3', nodeName: 'n1' }),
          expect.objectContaining({ ip: '10.244.1.2', nodeName: 'n2' }),
        ],
        ports: [{ name: 'http', port: 8080, protocol: 'TCP' }],
      },
    ]);
    expect(slice()?.endpoints?.map((e) => [e.addresses[0], e.conditions?.ready]).sort()).toEqual([
      ['10.244.0.2', false],
      ['10.244.0.3', false],
      ['10.244.1.2', false],
    ]);

    loop.run({ until: NOW + 3000 });
    expect(ep()?.subsets?.[0]?.addresses?.map((a) => a.ip)).toEqual(['10.244.0.2', '10.244.0.3', '10.244.1.2']);
    expect(ep()?.subsets?.[0]?.notReadyAddresses).toBeUndefined();
    expect(slice()?.endpoints?.every((e) => e.conditions?.ready === true)).toBe(true);

    // Someone marks pod b not ready on the status subresource: the kubelet leaves it, the
    // Endpoints and the slice follow.
    const b = model.get<Pod>('pods', 'default', 'b');
    if (b?.status?.conditions === undefined) throw new Error('b not started');
    loop.put('pods', { ...b, status: { ...b.status, conditions: b.status.conditions.map((c) => (c.type === 'Ready' ? { ...c, status: 'False' } : c)) } });
    loop.run({ until: NOW + 60_000 });
    expect(ep()?.subsets?.flatMap((s) => (s.notReadyAddresses ?? []).map((a) => a.ip))).toEqual([b.status.podIP]);
    expect(slice()?.endpoints?.filter((e) => e.conditions?.ready === false).map((e) => e.addresses[0])).toEqual([b.status.podIP]);
    expect(model.invalidWrites).toEqual([]);
  });

  it('gives a selector-less Service with Endpoints 1.2.3.4:9376 a slice kube-proxy can read', () => {
    const model = new ClusterModel();
    const loop = new ControllerLoop(model, [endpointsController(), endpointSliceController(), endpointSliceMirroringController()], NOW);
    loop.put('services', service('my-service', { ports: [{ port: 80, protocol: 'TCP', targetPort: 9376 }] }));
    loop.put('endpoints', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'my-service', namespace: 'default' }, subsets: [{ addresses: [{ ip: '1.2.3.4' }], ports: [{ port: 9376, protocol: 'TCP' }] }] });
    loop.start();
    loop.run();
    const slices = model.list<EndpointSlice>('endpointslices', 'default');
    expect(slices.map((s) => [s.metadata.labels?.['kubernetes.io/service-name'], s.addressType, s.endpoints?.map((e) => e.addresses[0]), s.ports?.map((p) => p.port)])).toEqual([
      ['my-service', 'IPv4', ['1.2.3.4'], [9376]],
    ]);
    // The endpoints controller left the hand-written Endpoints as it was.
    expect(model.get<Endpoints>('endpoints', 'default', 'my-service')?.metadata.resourceVersion).toBe('2');
  });
});

// The endpoints controller against upstream's behaviour (pkg/controller/endpoint/
// endpoints_controller.go and its tests): which pods become addresses, in which list, with
// which fields, and when nothing is written.
import type { Endpoints, Pod, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { NOW, pod, service } from './objects.fixtures.js';
import { endpointsController, truncateSubsets } from './endpoints-controller.js';

function setup(objects: readonly (Pod | Service | Endpoints)[]): { model: ClusterModel; loop: ControllerLoop } {
  const model = new ClusterModel();
  for (const o of objects) model.put(o.kind === 'Pod' ? 'pods' : o.kind === 'Service' ? 'services' : 'endpoints', o, NOW);
  const loop = new ControllerLoop(model, [endpointsController()], NOW);
  loop.start();
  loop.run();
  expect(model.invalidWrites).toEqual([]);
  return { model, loop };
}

function endpointsOf(model: ClusterModel, name: string): Endpoints | undefined {
  return model.get<Endpoints>('endpoints', 'default', name);
}

describe('endpoints controller', () => {
  it('lists ready pods in addresses and unready ones in notReadyAddresses, with targetRef and nodeName', () => {
    const { model } = setup([
      service('web', { selector: { app: 'web' } }),
      pod('a', { ip: '10.244.0.5' }),
      pod('b', { ip: '10.244.0.6', ready: false, node: 'node-b' }),
      pod('other', { ip: '10.244.0.7', labels: { app: 'db' } }),
    ]);
    const ep = endpointsOf(model, 'web');
    const uidOf = (name: string): string => model.get<Pod>('pods', 'default', name)?.metadata.uid ?? '';
    expect(ep?.subsets).toEqual([
      {
        addresses: [{ ip: '10.244.0.5', nodeName: 'node-a', targetRef: { kind: 'Pod', namespace: 'default', name: 'a', uid: uidOf('a') } }],
        notReadyAddresses: [{ ip: '10.244.0.6', nodeName: 'node-b', targetRef: { kind: 'Pod', namespace: 'default', name: 'b', uid: uidOf('b') } }],
        ports: [{ port: 8080, protocol: 'TCP' }],
      },
    ]);
  });

  it('leaves out terminal pods, pods without an IP and, unless publishNotReadyAddresses, pods being deleted', () => {
    const pods = [
      pod('ok', { ip: '10.244.0.5' }),
      pod('done', { ip: '10.244.0.6', phase: 'Succeeded' }),
      pod('failed', { ip: '10.244.0.7', phase: 'Failed' }),
      pod('pending', {}),
      pod('going', { ip: '10.244.0.8', deleting: true }),
    ];
    const { model } = setup([service('web', { selector: { app: 'web' } }), ...pods]);
    expect(endpointsOf(model, 'web')?.subsets?.flatMap((s) => [...(s.addresses ?? []), ...(s.notReadyAddresses ?? [])].map((a) => a.ip))).toEqual(['10.244.0.5']);

    // publishNotReadyAddresses: the unready and the terminating pod are published as ready.
    const tolerant = setup([service('web', { selector: { app: 'web' }, publishNotReadyAddresses: true }), ...pods, pod('slow', { ip: '10.244.0.9', ready: false })]);
    const subsets = endpointsOf(tolerant.model, 'web')?.subsets ?? [];
    expect(subsets.flatMap((s) => (s.addresses ?? []).map((a) => a.ip))).toEqual(['10.244.0.5', '10.244.0.8', '10.244.0.9']);
    expect(subsets.flatMap((s) => s.notReadyAddresses ?? [])).toEqual([]);
  });

  it('sets hostname only when the pod names one and its subdomain is the service', () => {
    const { model } = setup([
      service('web', { selector: { app: 'web' }, clusterIP: 'None', clusterIPs: ['None'] }),
      pod('a', { ip: '10.244.0.5', hostname: 'a', subdomain: 'web' }),
      pod('b', { ip: '10.244.0.6', hostname: 'b', subdomain: 'other' }),
      pod('c', { ip: '10.244.0.7', subdomain: 'web' }),
    ]);
    const addrs = endpointsOf(model, 'web')?.subsets?.[0]?.addresses ?? [];
    expect(addrs.map((a) => [a.ip, a.hostname])).toEqual([
      ['10.244.0.5', 'a'],
      ['10.244.0.6', undefined],
      ['10.244.0.7', undefined],
    ]);
  });

  it('resolves a named targetPort per pod and skips a pod for a port it does not name', () => {
    const { model } = setup([
      service('web', {
        selector: { app: 'web' },
        ports: [
          { name: 'http', port: 80, protocol: 'TCP', targetPort: 'http' },
          { name: 'dns', port: 53, protocol: 'UDP', targetPort: 'dns' },
        ],
      }),
      pod('a', { ip: '10.244.0.5', ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 5353, protocol: 'UDP' }] }),
      pod('b', { ip: '10.244.0.6', ports: [{ name: 'http', containerPort: 9090 }] }),
      // Same name, wrong protocol: FindPort wants the Service port's protocol.
      pod('c', { ip: '10.244.0.7', ports: [{ name: 'http', containerPort: 8080 }, { name: 'dns', containerPort: 5353, protocol: 'TCP' }] }),
    ]);
    const subsets = endpointsOf(model, 'web')?.subsets ?? [];
    const view = subsets.map((s) => ({ ips: (s.addresses ?? []).map((a) => a.ip), ports: (s.ports ?? []).map((p) => `${p.name}:${p.port}/${p.protocol}`) }));
    expect(view).toEqual([
      { ips: ['10.244.0.5'], ports: ['dns:5353/UDP'] },
      { ips: ['10.244.0.5', '10.244.0.7'], ports: ['http:8080/TCP'] },
      { ips: ['10.244.0.6'], ports: ['http:9090/TCP'] },
    ]);
  });

  it('labels a headless Service\'s Endpoints, copies the Service labels, and keeps port-less headless addresses', () => {
    const { model } = setup([
      service('db', { selector: { app: 'web' }, clusterIP: 'None', clusterIPs: ['None'], ports: [] }, { tier: 'data' }),
      pod('a', { ip: '10.244.0.5' }),
    ]);
    const ep = endpointsOf(model, 'db');
    expect(ep?.metadata.labels).toEqual({ tier: 'data', 'service.kubernetes.io/headless': '' });
    expect(ep?.subsets).toEqual([{ addresses: [expect.objectContaining({ ip: '10.244.0.5' })] }]);
  });

  it('takes the pod IP of the Service\'s first IP family', () => {
    const { model } = setup([
      service('v6', { selector: { app: 'web' }, ipFamilies: ['IPv6', 'IPv4'], clusterIP: 'fd00::a', clusterIPs: ['fd00::a', '10.96.0.10'] }),
      pod('a', { ip: ['10.244.0.5', 'fd00:10:244::5'] }),
      pod('v4only', { ip: '10.244.0.6' }),
    ]);
    expect(endpointsOf(model, 'v6')?.subsets?.[0]?.addresses?.map((a) => a.ip)).toEqual(['fd00:10:244::5']);
  });

  it('leaves selector-less and ExternalName Services alone, hand-written Endpoints included', () => {
    const manual: Endpoints = { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'ext', namespace: 'default' }, subsets: [{ addresses: [{ ip: '1.2.3.4' }], ports: [{ port: 9376 }] }] };
    const { model } = setup([
      service('ext', { ports: [{ port: 80, protocol: 'TCP', targetPort: 9376 }] }),
      service('empty', { selector: {} }),
      service('name', { type: 'ExternalName', externalName: 'example.com', selector: { app: 'web' } }),
      manual,
      pod('a', { ip: '10.244.0.5' }),
    ]);
    expect(endpointsOf(model, 'ext')?.subsets).toEqual(manual.subsets);
    expect(endpointsOf(model, 'ext')?.metadata.resourceVersion).toBe('4');
    expect(endpointsOf(model, 'empty')).toBeUndefined();
    expect(endpointsOf(model, 'name')).toBeUndefined();
  });

  it('deletes the Endpoints of a deleted Service, and at start the Endpoints left without a Service', () => {
    const { model, loop } = setup([
      service('web', { selector: { app: 'web' } }),
      pod('a', { ip: '10.244.0.5' }),
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'orphan', namespace: 'default' } },
      { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'lock', namespace: 'default', annotations: { 'control-plane.alpha.kubernetes.io/leader': '{}' } } },
    ]);
    expect(endpointsOf(model, 'orphan')).toBeUndefined();
    expect(endpointsOf(model, 'lock')).toBeDefined();
    expect(endpointsOf(model, 'web')).toBeDefined();
    loop.remove('services', 'default', 'web');
    loop.run();
    expect(endpointsOf(model, 'web')).toBeUndefined();
  });

  it('writes nothing when the Endpoints already say what it would write', () => {
    const { model, loop } = setup([service('web', { selector: { app: 'web' } }), pod('a', { ip: '10.244.0.5' }), pod('b', { ip: '10.244.0.6', ready: false })]);
    const rv = endpointsOf(model, 'web')?.metadata.resourceVersion;
    // A pod change that does not touch the endpoints (a new annotation).
    const a = model.get<Pod>('pods', 'default', 'a');
    if (a === undefined) throw new Error('pod a');
    loop.put('pods', { ...a, metadata: { ...a.metadata, annotations: { note: 'x' } } });
    expect(loop.run().writes).toBe(0);
    expect(endpointsOf(model, 'web')?.metadata.resourceVersion).toBe(rv);
  });

  it('follows readiness and label changes', () => {
    const { model, loop } = setup([service('web', { selector: { app: 'web' } }), pod('a', { ip: '10.244.0.5', ready: false })]);
    expect(endpointsOf(model, 'web')?.subsets?.[0]?.notReadyAddresses?.map((a) => a.ip)).toEqual(['10.244.0.5']);
    loop.put('pods', pod('a', { ip: '10.244.0.5' }));
    loop.run();
    expect(model.invalidWrites).toEqual([]);
    expect(endpointsOf(model, 'web')?.subsets?.[0]?.addresses?.map((a) => a.ip)).toEqual(['10.244.0.5']);
    loop.put('pods', pod('a', { ip: '10.244.0.5', labels: { app: 'moved' } }));
    loop.run();
    expect(endpointsOf(model, 'web')?.subsets).toBeUndefined();
  });

  it('writes the Endpoints again when someone deletes it', () => {
    const { model, loop } = setup([service('web', { selector: { app: 'web' } }), pod('a', { ip: '10.244.0.5' })]);
    loop.remove('endpoints', 'default', 'web');
    loop.run();
    expect(endpointsOf(model, 'web')?.subsets?.[0]?.addresses?.map((a) => a.ip)).toEqual(['10.244.0.5']);
  });

  it('stamps last-change-trigger-time: the Service\'s creation at its first sync, then the earliest pod readiness change since; no write for the time alone', () => {
    const TRIGGER = 'endpoints.kubernetes.io/last-change-trigger-time';
    // The model stamps the Service's creationTimestamp with its clock: 2025-01-02T03:04:05Z.
    const { model, loop } = setup([service('web', { selector: { app: 'web' } }), pod('a', { ip: '10.244.0.5', readySince: '2025-01-02T03:00:00Z' })]);
    expect(endpointsOf(model, 'web')?.metadata.annotations).toEqual({ [TRIGGER]: '2025-01-02T03:04:05Z' });

    loop.put('pods', pod('b', { ip: '10.244.0.6', readySince: '2025-01-02T03:10:00Z' }));
    loop.put('pods', pod('c', { ip: '10.244.0.7', readySince: '2025-01-02T03:12:30Z' }));
    loop.run();
    expect(endpointsOf(model, 'web')?.metadata.annotations).toEqual({ [TRIGGER]: '2025-01-02T03:10:00Z' });

    // A pod change that moves no address (a label the selector does not read) writes nothing.
    const before = endpointsOf(model, 'web')?.metadata.resourceVersion;
    loop.put('pods', pod('a', { ip: '10.244.0.5', readySince: '2025-01-02T03:00:00Z', labels: { app: 'web', extra: 'x' } }));
    loop.run();
    expect(endpointsOf(model, 'web')?.metadata.resourceVersion).toBe(before);

    // b turns unready: it moves to notReadyAddresses, stamped with that change.
    loop.put('pods', pod('b', { ip: '10.244.0.6', ready: false, readySince: '2025-01-02T03:20:00Z' }));
    loop.run();
    const ep = endpointsOf(model, 'web');
    expect(ep?.metadata.annotations).toEqual({ [TRIGGER]: '2025-01-02T03:20:00Z' });
    expect(ep?.subsets?.[0]?.notReadyAddresses?.map((a) => a.ip)).toEqual(['10.244.0.6']);
  });

  it('truncates at 1000 addresses, ready ones first, and says so in an annotation', () => {
    const pods: Pod[] = [];
    for (let i = 0; i < 1001; i++) pods.push(pod(`p${i}`, { ip: `10.244.${Math.floor(i / 250)}.${(i % 250) + 1}` }));
    const { model, loop } = setup([service('web', { selector: { app: 'web' } }), ...pods]);
    const ep = endpointsOf(model, 'web');
    // The first sync of the Service stamps its creation time (the model's clock at the start).
    expect(ep?.metadata.annotations).toEqual({ 'endpoints.kubernetes.io/last-change-trigger-time': '2025-01-02T03:04:05Z', 'endpoints.kubernetes.io/over-capacity': 'truncated' });
    expect(ep?.subsets?.[0]?.addresses).toHaveLength(1000);
    // Back under capacity: the annotation goes.
    loop.remove('pods', 'default', 'p0');
    loop.run();
    expect(endpointsOf(model, 'web')?.metadata.annotations).toBeUndefined();
    expect(endpointsOf(model, 'web')?.subsets?.[0]?.addresses).toHaveLength(1000);
  });
});

describe('truncateSubsets: upstream TestTruncateEndpoints', () => {
  const addrs = (n: number, prefix: string): { ip: string }[] => Array.from({ length: n }, (_, i) => ({ ip: `${prefix}.${i}` }));
  const cases = [
    { desc: 'total endpoints < max capacity', ready: [50, 100, 100, 100, 100], notReady: [50, 100, 100, 100, 100], wantReady: [50, 100, 100, 100, 100], wantNotReady: [50, 100, 100, 100, 100] },
    { desc: 'total endpoints = max capacity', ready: [100, 100, 100, 100, 100], notReady: [100, 100, 100, 100, 100], wantReady: [100, 100, 100, 100, 100], wantNotReady: [100, 100, 100, 100, 100] },
    {
      desc: 'total ready endpoints < max capacity, but total endpoints > max capacity',
      ready: [90, 110, 50, 10, 20],
      notReady: [101, 200, 200, 201, 298],
      wantReady: [90, 110, 50, 10, 20],
      wantNotReady: [73, 144, 144, 145, 214],
    },
    { desc: 'total ready endpoints > max capacity', ready: [205, 400, 402, 400, 693], notReady: [100, 200, 200, 200, 300], wantReady: [98, 191, 192, 191, 328], wantNotReady: [0, 0, 0, 0, 0] },
  ];
  for (const c of cases) {
    it(c.desc, () => {
      const subsets = c.ready.map((n, i) => ({ addresses: addrs(n, `r${i}`), notReadyAddresses: addrs(c.notReady[i] ?? 0, `n${i}`) }));
      const r = truncateSubsets(subsets);
      expect(r.subsets.map((s) => s.addresses?.length ?? 0)).toEqual(c.wantReady);
      expect(r.subsets.map((s) => s.notReadyAddresses?.length ?? 0)).toEqual(c.wantNotReady);
      expect(r.truncated).toBe(c.wantReady.reduce((a, b) => a + b, 0) + c.wantNotReady.reduce((a, b) => a + b, 0) < c.ready.reduce((a, b) => a + b, 0) + c.notReady.reduce((a, b) => a + b, 0));
    });
  }
});

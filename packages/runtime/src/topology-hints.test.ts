// The EndpointSlice controller's hints and events through the control plane: the registry
// validates trafficDistribution with the PreferSameTrafficDistribution gate, the controller
// hints with the same gate, and the controller runner records the controller's events as
// core/v1 Events on the Service.
import type { EndpointSlice, Event, Node, Pod, Service } from '@kubesvc/api-types';
import { endpointSliceController } from '@kubesvc/controllers';
import { describe, expect, it } from 'vitest';
import { startControlPlane } from './control-plane.js';
import { cleanups, memory, must } from './runtime.fixtures.js';

const node = (name: string, zone: string): Node => ({
  apiVersion: 'v1',
  kind: 'Node',
  metadata: { name, labels: { 'topology.kubernetes.io/zone': zone } },
  spec: {},
  status: { allocatable: { cpu: '4' }, conditions: [{ type: 'Ready', status: 'True' }] },
});

const service = (name: string, extra: { readonly annotations?: Record<string, string>; readonly trafficDistribution?: string }): Service => ({
  apiVersion: 'v1',
  kind: 'Service',
  metadata: { name, namespace: 'default', ...(extra.annotations === undefined ? {} : { annotations: extra.annotations }) },
  spec: { selector: { app: 'web' }, ports: [{ port: 80, protocol: 'TCP', targetPort: 8080 }], ...(extra.trafficDistribution === undefined ? {} : { trafficDistribution: extra.trafficDistribution }) },
});

describe('topology hints through the control plane', () => {
  it('PreferSameNode is accepted and hinted with the gate on; topology-mode Auto records TopologyAwareHintsEnabled on the Service', async () => {
    const { store, clock } = memory();
    const plane = must(
      await startControlPlane({
        store,
        clock,
        seed: 3,
        serviceClusterIPRange: '10.96.0.0/24',
        advertiseAddress: '192.0.2.10',
        preferSameTrafficDistribution: true,
        controllers: [endpointSliceController({ preferSameTrafficDistribution: true })],
      }),
    );
    cleanups.push(() => plane.kill());
    await plane.whenReady();
    await plane.idle();
    const r = plane.registry;
    must(await r.create<Node>('nodes', '', node('node-a', 'zone-a')));
    must(await r.create<Node>('nodes', '', node('node-b', 'zone-b')));
    for (const [name, nodeName, ip] of [
      ['web-a', 'node-a', '10.244.0.2'],
      ['web-b', 'node-b', '10.244.1.2'],
    ] as const) {
      const made = must(
        await r.create<Pod>('pods', 'default', { apiVersion: 'v1', kind: 'Pod', metadata: { name, namespace: 'default', labels: { app: 'web' } }, spec: { nodeName, containers: [{ name: 'app', image: 'nginx' }] } } as Pod),
      );
      must(await r.updateStatus<Pod>('pods', 'default', name, { ...made, status: { phase: 'Running', podIP: ip, podIPs: [{ ip }], conditions: [{ type: 'Ready', status: 'True' }] } }));
    }
    must(await r.create<Service>('services', 'default', service('near', { trafficDistribution: 'PreferSameNode' })));
    must(await r.create<Service>('services', 'default', service('auto', { annotations: { 'service.kubernetes.io/topology-mode': 'Auto' } })));

    // Poll: the controller's writes land asynchronously.
    const hintsOf = async (svc: string): Promise<unknown> => {
      const slices = must(await r.list<EndpointSlice>('endpointslices', 'default')).items.filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === svc);
      return slices.flatMap((s) => (s.endpoints ?? []).map((ep) => [ep.addresses[0], ep.hints]));
    };
    const want = {
      near: [
        ['10.244.0.2', { forZones: [{ name: 'zone-a' }], forNodes: [{ name: 'node-a' }] }],
        ['10.244.1.2', { forZones: [{ name: 'zone-b' }], forNodes: [{ name: 'node-b' }] }],
      ],
      auto: [
        ['10.244.0.2', { forZones: [{ name: 'zone-a' }] }],
        ['10.244.1.2', { forZones: [{ name: 'zone-b' }] }],
      ],
    };
    let seen: unknown;
    for (let i = 0; i < 200; i++) {
      await plane.idle();
      seen = { near: await hintsOf('near'), auto: await hintsOf('auto') };
      if (JSON.stringify(seen) === JSON.stringify(want)) break;
      clock.advance(100);
    }
    expect(seen, `last seen: ${JSON.stringify(seen)}`).toEqual(want);
    const events = must(await r.list<Event>('events', 'default')).items.filter((e) => e.involvedObject.name === 'auto');
    expect(events.map((e) => [e.type, e.reason, e.message, e.source?.component, e.involvedObject.kind])).toEqual([
      ['Normal', 'TopologyAwareHintsEnabled', 'Topology Aware Hints has been enabled, addressType: IPv4', 'endpoint-slice-controller', 'Service'],
    ]);
  });

  it('refuses PreferSameNode with the gate off', async () => {
    const { store, clock } = memory();
    const plane = must(await startControlPlane({ store, clock, seed: 3, serviceClusterIPRange: '10.96.0.0/24', advertiseAddress: '192.0.2.10' }));
    cleanups.push(() => plane.kill());
    await plane.whenReady();
    await plane.idle();
    const made = await plane.registry.create<Service>('services', 'default', service('near', { trafficDistribution: 'PreferSameNode' }));
    expect(made.ok || made.error.message).toBe('Service "near" is invalid: spec.trafficDistribution: Unsupported value: "PreferSameNode": supported values: "PreferClose"');
  });
});

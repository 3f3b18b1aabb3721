// INV-SYS-INVINCIBLE (docs/invariants.md): INV-BOOT-INVINCIBLE again, over the whole system.
// A control plane on the memory store and a virtual clock is hit with random deletes of the
// kubernetes Service, its Endpoints and EndpointSlice and the system namespaces (deleting a
// namespace makes it Terminating; the namespace controller then empties and removes it), mixed
// with user Services and the passing of time. One system-namespaces interval after the last
// hit, everything is back: default/kubernetes at the first IP with https 443 → 6443, its
// Endpoints at the advertise address, and the four namespaces, active.
import { fc, test } from '@fast-check/vitest';
import type { Endpoints, Namespace, Service } from '@kubesvc/api-types';
import { DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS } from '@kubesvc/bootstrap-controller';
import { expect } from 'vitest';
import { startControlPlane, type ControlPlane } from './control-plane.js';
import { silentLogger } from '@kubesvc/apiserver';
import { openMemoryStore, virtualClock, type VirtualClock } from '@kubesvc/store';

const ADVERTISE = '192.168.1.10';
const NAMESPACES = ['default', 'kube-system', 'kube-public', 'kube-node-lease'] as const;

type Command =
  | { readonly op: 'delete-service' }
  | { readonly op: 'delete-endpoints' }
  | { readonly op: 'delete-endpointslice' }
  | { readonly op: 'delete-namespace'; readonly name: (typeof NAMESPACES)[number] }
  | { readonly op: 'create-service'; readonly name: string }
  | { readonly op: 'wait'; readonly ms: number };

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  fc.constant({ op: 'delete-service' as const }),
  fc.constant({ op: 'delete-endpoints' as const }),
  fc.constant({ op: 'delete-endpointslice' as const }),
  fc.record({ op: fc.constant('delete-namespace' as const), name: fc.constantFrom(...NAMESPACES) }),
  fc.record({ op: fc.constant('create-service' as const), name: fc.constantFrom('web', 'db', 'cache') }),
  fc.record({ op: fc.constant('wait' as const), ms: fc.integer({ min: 0, max: 15_000 }) }),
);

async function run(clock: VirtualClock, plane: ControlPlane, ms: number): Promise<void> {
  await plane.idle();
  for (let left = ms; left > 0; left -= 1000) {
    clock.advance(Math.min(1000, left));
    await plane.idle();
  }
}

async function apply(plane: ControlPlane, clock: VirtualClock, c: Command): Promise<void> {
  const r = plane.registry;
  // Each may fail (already deleted, namespace terminating): the user's request is refused, as kubectl's would be.
  switch (c.op) {
    case 'delete-service':
      await r.delete('services', 'default', 'kubernetes');
      return;
    case 'delete-endpoints':
      await r.delete('endpoints', 'default', 'kubernetes');
      return;
    case 'delete-endpointslice':
      await r.delete('endpointslices', 'default', 'kubernetes');
      return;
    case 'delete-namespace':
      await r.delete('namespaces', '', c.name);
      return;
    case 'create-service':
      await r.create('services', 'default', { apiVersion: 'v1', kind: 'Service', metadata: { name: c.name }, spec: { ports: [{ port: 80 }], selector: { app: c.name } } });
      return;
    case 'wait':
      await run(clock, plane, c.ms);
      return;
  }
}

test.prop([fc.array(commandArb, { minLength: 1, maxLength: 12 })])(
  'INV-SYS-INVINCIBLE: whatever is deleted, one interval later default/kubernetes is back at the first IP with 443 → 6443, its Endpoints and the four namespaces',
  async (commands) => {
    const clock = virtualClock(Date.UTC(2025, 0, 2));
    const store = openMemoryStore({ clock });
    const started = await startControlPlane({ store, clock, logger: silentLogger, seed: 1, hostname: 'prop', serviceClusterIPRange: '10.96.0.0/16', advertiseAddress: ADVERTISE });
    if (!started.ok) throw new Error(started.error.message);
    const plane = started.value;
    try {
      await plane.whenReady();
      for (const c of commands) await apply(plane, clock, c);
      // The next pass of every loop: the Service loop every 10 s, the namespaces every minute.
      await run(clock, plane, DEFAULT_SYSTEM_NAMESPACES_INTERVAL_MS + 1000);

      const svc = await plane.registry.get<Service>('services', 'default', 'kubernetes');
      expect(svc.ok && svc.value.spec?.clusterIP).toBe('10.96.0.1');
      expect(svc.ok && svc.value.spec?.ports).toEqual([{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 }]);
      const ep = await plane.registry.get<Endpoints>('endpoints', 'default', 'kubernetes');
      expect(ep.ok && ep.value.subsets).toEqual([{ addresses: [{ ip: ADVERTISE }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
      const namespaces = await plane.registry.list<Namespace>('namespaces');
      const active = namespaces.ok ? namespaces.value.items.filter((n) => n.status?.phase === 'Active').map((n) => n.metadata.name) : [];
      expect(active).toEqual(expect.arrayContaining([...NAMESPACES]));
      expect(plane.fatalError()).toBeUndefined();
    } finally {
      await plane.kill();
      await store.close();
    }
  },
);

// The ServiceCIDR controller on the keyed-controller contract: the runner's writes, one per
// reconcile, over the cache as it then is; the keys its informer events give.
// upstream (v1.33): pkg/controller/servicecidrs/servicecidrs_controller.go
import type { IPAddress, KubeObject, ResourceName, ServiceCIDR } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import type { CacheView, ReconcileAction } from './contract.js';
import { SERVICE_CIDR_READY_MESSAGE, SERVICE_CIDR_TERMINATING_MESSAGE } from './service-cidr-controller.js';
import { serviceCIDRKeyedController } from './service-cidr-keyed-controller.js';

const NOW = Date.UTC(2025, 0, 2, 3, 4, 5);
const FINALIZER = 'networking.k8s.io/service-cidr-finalizer';

function cidr(name: string, cidrs: string[], meta: Partial<ServiceCIDR['metadata']> = {}, status?: ServiceCIDR['status']): ServiceCIDR {
  return { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name, resourceVersion: '7', ...meta }, spec: { cidrs }, ...(status === undefined ? {} : { status }) };
}

function ip(name: string): IPAddress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: { name, labels: { 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' } },
    spec: { parentRef: { resource: 'services', namespace: 'default', name: 'web' } },
  };
}

function cache(cidrs: ServiceCIDR[], ips: IPAddress[] = []): CacheView {
  const of = (resource: ResourceName): KubeObject[] => (resource === 'servicecidrs' ? cidrs : resource === 'ipaddresses' ? ips : []) as KubeObject[];
  return {
    list: <T extends KubeObject>(resource: ResourceName) => of(resource) as T[],
    get: <T extends KubeObject>(resource: ResourceName, _namespace: string, name: string) => of(resource).find((o) => (o as ServiceCIDR).metadata.name === name) as T | undefined,
  };
}

const ready = { conditions: [{ type: 'Ready', status: 'True', reason: '', message: SERVICE_CIDR_READY_MESSAGE, lastTransitionTime: '2025-01-02T03:04:05Z' }] };
const controller = serviceCIDRKeyedController();

describe('serviceCIDRKeyedController', () => {
  it('watches servicecidrs and ipaddresses under the upstream controller name', () => {
    expect(controller.name).toBe('service-cidr-controller');
    expect(controller.watches).toEqual(['servicecidrs', 'ipaddresses']);
  });

  it('makes the finalizer write first, over the cached resourceVersion, and the status write on the next reconcile, without one', () => {
    const fresh = cidr('extra', ['10.100.0.0/24']);
    const first = controller.reconcile('extra', cache([fresh]), NOW);
    expect(first).toEqual<ReconcileAction[]>([{ kind: 'update', resource: 'servicecidrs', namespace: '', object: { ...fresh, metadata: { ...fresh.metadata, finalizers: [FINALIZER] } } as KubeObject }]);
    const finalized = cidr('extra', ['10.100.0.0/24'], { resourceVersion: '8', finalizers: [FINALIZER] });
    const second = controller.reconcile('extra', cache([finalized]), NOW);
    expect(second).toEqual<ReconcileAction[]>([
      {
        kind: 'update',
        resource: 'servicecidrs',
        namespace: '',
        subresource: 'status',
        object: { ...finalized, metadata: { name: 'extra', finalizers: [FINALIZER] }, status: ready } as KubeObject,
      },
    ]);
    expect(controller.reconcile('extra', cache([{ ...finalized, status: ready }]), NOW)).toEqual([]);
  });

  it('leaves a deleted ServiceCIDR holding an allocator IPAddress Terminating, and removes the finalizer 10 s after its deletion once none is left', () => {
    const deleting = cidr('extra', ['10.100.0.0/24'], { finalizers: [FINALIZER], deletionTimestamp: '2025-01-02T03:04:05Z' }, ready);
    const [terminating] = controller.reconcile('extra', cache([deleting], [ip('10.100.0.5')]), NOW);
    expect(terminating).toMatchObject({ kind: 'update', subresource: 'status' });
    const condition = ((terminating as { object: ServiceCIDR }).object.status?.conditions ?? [])[0];
    expect(condition).toMatchObject({ type: 'Ready', status: 'False', reason: 'Terminating', message: SERVICE_CIDR_TERMINATING_MESSAGE });
    expect(controller.reconcile('extra', cache([deleting]), NOW + 4_000)).toEqual([{ kind: 'requeue-after', key: 'extra', afterMs: 6_000 }]);
    const released = controller.reconcile('extra', cache([deleting]), NOW + 10_000);
    expect(released).toHaveLength(1);
    expect((released[0] as { object: ServiceCIDR }).object.metadata.finalizers).toBeUndefined();
    expect((released[0] as { object: ServiceCIDR }).object.metadata.resourceVersion).toBe('7');
  });

  it('queues the ServiceCIDRs holding an IPAddress that comes or goes, and nothing for other resources', () => {
    const view = cache([cidr('extra', ['10.100.0.0/24']), cidr('kubernetes', ['10.96.0.0/24'])], [ip('10.100.0.5')]);
    expect(controller.keysFor({ resource: 'ipaddresses', type: 'DELETED', object: ip('10.100.0.5') as KubeObject }, view)).toEqual(['extra']);
    expect(controller.keysFor({ resource: 'services', type: 'ADDED', object: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } } as KubeObject }, view)).toEqual([]);
  });
});

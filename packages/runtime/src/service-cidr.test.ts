// The control plane with the IPAddress allocator (v1.33's default) over the memory store on a
// virtual clock: the default ServiceCIDR created from the flags and Ready before the apiserver
// is ready, RepairIPAddress restoring a ClusterIP's IPAddress and removing an orphan one after
// its grace period, the ServiceCIDR controller's finalizer, Ready and Terminating conditions;
// and the bitmap allocator, which runs none of it.
// upstream (v1.33): pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go,
//           pkg/controlplane/instance.go (the start-kubernetes-service-cidr-controller hook),
//           pkg/registry/core/service/ipallocator/controller/repairip.go,
//           pkg/controller/servicecidrs/servicecidrs_controller.go
import {
  BITMAP_CLUSTER_IP_ALLOCATION,
  type Event,
  type IPAddress,
  type KubeObject,
  type Service,
  type ServiceCIDR,
} from '@kubesvc/api-types';
import { createRegistry, recordingLogger, type RecordingLogger } from '@kubesvc/apiserver';
import { SERVICE_CIDR_READY_MESSAGE, SERVICE_CIDR_TERMINATING_MESSAGE } from '@kubesvc/controllers';
import { newServiceIPAddress } from '@kubesvc/ipallocator';
import { type Store, type TxnOp, type VirtualClock } from '@kubesvc/store';
import { describe, expect, it } from 'vitest';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.js';
import { cleanups, memory, must, runClock, T0 } from './runtime.fixtures.js';

const A = '192.168.1.10';
const DEFAULT_SERVICE_CIDR_KEY = '/registry/servicecidrs/kubernetes';




async function start(store: Store, clock: VirtualClock, options: Partial<ControlPlaneOptions> = {}): Promise<{ plane: ControlPlane; logger: RecordingLogger }> {
  const logger = recordingLogger();
  const plane = must(
    await startControlPlane({ store, clock, logger, seed: 11, hostname: 'test-host', serviceClusterIPRange: '10.96.0.0/24', advertiseAddress: A, repairIntervalMs: 30_000, ...options }),
  );
  cleanups.push(() => plane.kill());
  return { plane, logger };
}

/** Moves the virtual clock `ms` forward a second at a time, letting the control plane settle after each step. */
function run(clock: VirtualClock, ms: number, plane: ControlPlane): Promise<void> {
  return runClock(clock, ms, [plane]);
}

/** Advances the clock a second at a time until `check` holds; fails with `show()` after `boundMs`. */
async function eventually(clock: VirtualClock, plane: ControlPlane, check: () => Promise<boolean>, show: () => Promise<unknown>, boundMs = 120_000): Promise<void> {
  await plane.idle();
  for (let waited = 0; !(await check()); waited += 1000) {
    if (waited >= boundMs) throw new Error(`no convergence after ${boundMs} ms; last state: ${JSON.stringify(await show())}`);
    await run(clock, 1000, plane);
  }
}

async function serviceCIDR(plane: ControlPlane, name: string): Promise<ServiceCIDR | undefined> {
  const r = await plane.registry.get<ServiceCIDR>('servicecidrs', '', name);
  return r.ok ? r.value : undefined;
}

async function ipAddresses(plane: ControlPlane): Promise<IPAddress[]> {
  return [...must(await plane.registry.list<IPAddress>('ipaddresses')).items];
}

async function events(plane: ControlPlane, namespace: string): Promise<Event[]> {
  return [...must(await plane.registry.list<Event>('events', namespace)).items];
}

function userService(name: string): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], selector: { app: name } } };
}

function readyCondition(cidr: ServiceCIDR | undefined) {
  return cidr?.status?.conditions?.find((c) => c.type === 'Ready');
}

/** The store, with every write to `key` failing while `blocked.on` holds (an etcd that refuses that key, say). */
function blockingWrites(store: Store, key: string): { store: Store; blocked: { on: boolean } } {
  const blocked = { on: true };
  const wrapped = new Proxy(store, {
    get(target, prop, receiver) {
      if (prop === 'txn') {
        return (compares: Parameters<Store['txn']>[0], ops: readonly TxnOp[], onFailure?: readonly TxnOp[]) => {
          if (blocked.on && ops.some((op) => op.key === key)) return Promise.reject(new Error('etcdserver: request timed out'));
          return target.txn(compares, ops, onFailure);
        };
      }
      const value: unknown = Reflect.get(target, prop, receiver);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
  return { store: wrapped, blocked };
}

describe('the IPAddress allocator (default)', () => {
  it('creates the default ServiceCIDR from the flags, Ready, and is ready (the kubernetes Service created) only once it is', async () => {
    const memoryStore = memory();
    const { clock } = memoryStore;
    const { store, blocked } = blockingWrites(memoryStore.store, DEFAULT_SERVICE_CIDR_KEY);
    const { plane, logger } = await start(store, clock, { serviceClusterIPRange: '10.96.0.0/24,fd00:10:96::/112' });
    await run(clock, 5_000, plane);
    expect(plane.isReady()).toBe(false);
    expect(plane.defaultServiceCIDR?.isInitialized()).toBe(false);
    expect(await serviceCIDR(plane, 'kubernetes')).toBeUndefined();
    expect(must(await plane.registry.list<Service>('services')).items).toEqual([]);
    // Start keeps trying (every 100 ms, at the earliest); each failure's Warning is about the empty object the
    // failed create returned, which names nothing, so the apiserver would refuse it: dropped.
    expect(plane.defaultServiceCIDR?.state().syncs).toBeGreaterThan(1);
    expect((await events(plane, 'default')).filter((e) => e.reason === 'KubernetesDefaultServiceCIDRError')).toEqual([]);
    expect(logger.lines).toContainEqual({ level: 'error', message: 'Server rejected event (will not retry!): KubernetesDefaultServiceCIDRError: The default ServiceCIDR can not be created: the event names no object' });

    blocked.on = false;
    let readyAt: number | undefined;
    void plane.whenReady().then(() => (readyAt = clock.now()));
    await eventually(clock, plane, async () => readyAt !== undefined, async () => ({ cidr: await serviceCIDR(plane, 'kubernetes') }));
    const cidr = await serviceCIDR(plane, 'kubernetes');
    expect(cidr?.spec?.cidrs).toEqual(['10.96.0.0/24', 'fd00:10:96::/112']);
    // Ready=True: the apiserver's controller sets it, then kube-controller-manager's ServiceCIDR
    // controller writes its own message over it; it also holds the finalizer.
    expect(readyCondition(cidr)?.status).toBe('True');
    expect([SERVICE_CIDR_READY_MESSAGE, 'Kubernetes default Service CIDR is ready']).toContain(readyCondition(cidr)?.message);
    await plane.idle();
    const settled = await serviceCIDR(plane, 'kubernetes');
    expect(readyCondition(settled)?.message).toBe(SERVICE_CIDR_READY_MESSAGE);
    expect(settled?.metadata.finalizers).toEqual(['networking.k8s.io/service-cidr-finalizer']);
    // The kubernetes Service came after: its ClusterIP has an IPAddress inside the ServiceCIDR.
    const { kv: cidrKv } = await memoryStore.store.get(DEFAULT_SERVICE_CIDR_KEY);
    const { kv: svcKv } = await memoryStore.store.get('/registry/services/specs/default/kubernetes');
    expect(cidrKv?.createRevision).toBeLessThan(svcKv?.createRevision ?? 0);
    expect(plane.isReady()).toBe(true);
    expect((await ipAddresses(plane)).map((ip) => [ip.metadata.name, ip.spec?.parentRef])).toEqual([['10.96.0.1', { resource: 'services', namespace: 'default', name: 'kubernetes' }]]);
  });

  it('reports a ServiceCIDR `kubernetes` that does not match the flags once, as a core/v1 Warning about it, and never rewrites it', async () => {
    const { store, clock } = memory();
    // Left by an apiserver started with other flags.
    const before = must(createRegistry({ store, clock, seed: 3, serviceClusterIPRanges: ['10.200.0.0/24'] }));
    must(await before.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }));
    must(await before.create('servicecidrs', '', { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'kubernetes' }, spec: { cidrs: ['10.200.0.0/24'] } } as ServiceCIDR & KubeObject));
    const { plane, logger } = await start(store, clock);
    await run(clock, 25_000, plane);
    expect(plane.defaultServiceCIDR?.isInitialized()).toBe(true);
    expect((await serviceCIDR(plane, 'kubernetes'))?.spec?.cidrs).toEqual(['10.200.0.0/24']);
    const reports = (await events(plane, 'default')).filter((e) => e.involvedObject.kind === 'ServiceCIDR');
    expect(reports.map((e) => [e.type, e.reason, e.message, e.source, e.count, e.involvedObject.name, e.involvedObject.apiVersion])).toEqual([
      ['Warning', 'KubernetesDefaultServiceCIDRInconsistent', 'The default ServiceCIDR [10.200.0.0/24] does not match the flag configurations [10.96.0.0/24]', { component: 'kubernetes-service-cidr-controller' }, 1, 'kubernetes', 'networking.k8s.io/v1'],
    ]);
    expect(logger.lines.filter((l) => l.message.startsWith('inconsistent ServiceCIDR status'))).toEqual([
      {
        level: 'info',
        message:
          'inconsistent ServiceCIDR status, global configuration: [10.200.0.0/24] local configuration: [10.96.0.0/24], configure the flags to match current ServiceCIDR or manually delete the default ServiceCIDR',
      },
    ]);
  });

  it("recreates an IPAddress deleted under a live Service at the next resync, with upstream's Warning", async () => {
    const { store, clock } = memory();
    const { plane, logger } = await start(store, clock);
    await plane.whenReady();
    must(await plane.registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
    const web = must(await plane.registry.create('services', 'team', userService('web')));
    must(await plane.registry.create('services', 'team', userService('db')));
    const ip = web.spec?.clusterIP ?? '';
    const named = async (svc: string) => (await ipAddresses(plane)).filter((a) => a.spec?.parentRef?.namespace === 'team' && a.spec.parentRef.name === svc).map((a) => a.metadata.name);
    await eventually(clock, plane, async () => (await named('web')).length === 1 && (await named('db')).length === 1, () => ipAddresses(plane));
    expect(await named('web')).toEqual([ip]);
    const before = new Set((await events(plane, 'team')).map((e) => e.metadata.name));

    must(await plane.registry.delete('ipaddresses', '', ip));
    await plane.idle();
    // Nothing syncs a Service when an IPAddress goes; the resync (the repair interval) does.
    expect(await named('web')).toEqual([]);
    await run(clock, 30_000, plane);
    const back = must(await plane.registry.get<IPAddress>('ipaddresses', '', ip));
    expect(back.spec?.parentRef).toEqual({ resource: 'services', namespace: 'team', name: 'web' });
    expect(back.metadata.labels).toEqual({ 'ipaddress.kubernetes.io/ip-family': 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' });
    const fresh = (await events(plane, 'team')).filter((e) => !before.has(e.metadata.name));
    expect(fresh).toHaveLength(1);
    const event = fresh[0];
    expect(event?.type).toBe('Warning');
    expect(event?.reason).toBe('ClusterIPNotAllocated');
    expect(event?.message).toBe(`Cluster IP [IPv4]: ${ip} is not allocated; repairing`);
    expect(event?.action).toBe('ClusterIPAllocation');
    expect(event?.involvedObject).toMatchObject({ kind: 'Service', namespace: 'team', name: 'web', apiVersion: 'v1', uid: web.metadata.uid });
    expect(event?.reportingComponent).toBe('ipallocator-repair-controller');
    expect(event?.reportingInstance).toBe('ipallocator-repair-controller-test-host');
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('deletes an orphan IPAddress once it is older than the 60 s grace period, with a Warning about it', async () => {
    const { store, clock } = memory();
    const { plane } = await start(store, clock);
    await plane.whenReady();
    must(await plane.registry.create('ipaddresses', '', newServiceIPAddress('10.96.0.200', { metadata: { namespace: 'default', name: 'ghost' } }) as IPAddress & KubeObject));
    await run(clock, 58_000, plane);
    expect((await ipAddresses(plane)).map((a) => a.metadata.name)).toContain('10.96.0.200');
    await eventually(clock, plane, async () => !(await ipAddresses(plane)).some((a) => a.metadata.name === '10.96.0.200'), () => ipAddresses(plane), 10_000);
    expect(clock.now() - T0).toBeGreaterThan(60_000);
    const leaked = (await events(plane, 'default')).filter((e) => e.reason === 'IPAddressNotAllocated');
    expect(leaked.map((e) => [e.message, e.action, e.involvedObject.kind, e.involvedObject.name])).toEqual([
      ['IPAddress: 10.96.0.200 for Service default/ghost appears to have leaked: cleaning up', 'IPAddressAllocation', 'IPAddress', '10.96.0.200'],
    ]);
  });

  it('the ServiceCIDR controller gives a new ServiceCIDR its finalizer and Ready, and a deleted one in use the Terminating condition until its IPAddress goes', async () => {
    const { store, clock } = memory();
    const { plane } = await start(store, clock);
    await plane.whenReady();
    must(
      await plane.registry.create('servicecidrs', '', { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'extra' }, spec: { cidrs: ['10.100.0.0/24'] } } as ServiceCIDR & KubeObject),
    );
    await eventually(clock, plane, async () => readyCondition(await serviceCIDR(plane, 'extra'))?.status === 'True', () => serviceCIDR(plane, 'extra'));
    const extra = await serviceCIDR(plane, 'extra');
    expect(extra?.metadata.finalizers).toEqual(['networking.k8s.io/service-cidr-finalizer']);
    expect(readyCondition(extra)).toMatchObject({ status: 'True', reason: '', message: SERVICE_CIDR_READY_MESSAGE });

    // A Service whose ClusterIP only this ServiceCIDR holds. The allocator hands out IPs of the
    // flags' range here, so the IP is written into the stored Service, as an allocator over
    // every ServiceCIDR would have given it; RepairIPAddress then creates its IPAddress.
    must(await plane.registry.create('services', 'default', userService('pinned')));
    const servicePath = '/registry/services/specs/default/pinned';
    const svc = JSON.parse((await store.get(servicePath)).kv?.value ?? '{}') as Service;
    await store.txn([], [{ kind: 'put', key: servicePath, value: JSON.stringify({ ...svc, spec: { ...svc.spec, clusterIP: '10.100.0.5', clusterIPs: ['10.100.0.5'] } }) }]);
    const pinnedIP = async () => (await ipAddresses(plane)).find((a) => a.metadata.name === '10.100.0.5');
    await eventually(clock, plane, async () => (await pinnedIP())?.spec?.parentRef?.name === 'pinned', () => ipAddresses(plane));

    // The deletion as the generic store records it for an object with finalizers: a
    // deletionTimestamp, the object kept (written to the store here, as the registry would).
    const cidrPath = '/registry/servicecidrs/extra';
    const stored = JSON.parse((await store.get(cidrPath)).kv?.value ?? '{}') as ServiceCIDR;
    const deletedAt = new Date(Math.floor(clock.now() / 1000) * 1000).toISOString().replace('.000Z', 'Z');
    await store.txn([], [{ kind: 'put', key: cidrPath, value: JSON.stringify({ ...stored, metadata: { ...stored.metadata, deletionTimestamp: deletedAt } }) }]);
    await run(clock, 20_000, plane);
    const terminating = await serviceCIDR(plane, 'extra');
    expect(terminating?.metadata.finalizers).toEqual(['networking.k8s.io/service-cidr-finalizer']);
    expect(readyCondition(terminating)).toMatchObject({ status: 'False', reason: 'Terminating', message: SERVICE_CIDR_TERMINATING_MESSAGE });

    // The Service goes, then its IPAddress (released, or removed as an orphan after its grace
    // period), then the finalizer.
    must(await plane.registry.delete('services', 'default', 'pinned'));
    await eventually(clock, plane, async () => (await pinnedIP()) === undefined && (await serviceCIDR(plane, 'extra'))?.metadata.finalizers === undefined, async () => ({ ip: await pinnedIP(), cidr: await serviceCIDR(plane, 'extra') }));
  });
});

describe('the bitmap allocator', () => {
  it('runs no default ServiceCIDR controller, no RepairIPAddress and no ServiceCIDR controller: ClusterIPs stay bits of the range', async () => {
    const { store, clock } = memory();
    const { plane, logger } = await start(store, clock, { clusterIPAllocation: BITMAP_CLUSTER_IP_ALLOCATION });
    await plane.whenReady();
    must(await plane.registry.create('services', 'default', userService('web')));
    await run(clock, 60_000, plane);
    expect(plane.defaultServiceCIDR).toBeUndefined();
    expect(plane.ipAddressRepair).toBeUndefined();
    expect(plane.informer.resources).not.toContain('servicecidrs');
    expect(plane.bootstrap.state().loops.ipRepair.runs).toBeGreaterThan(0);
    expect(must(await plane.registry.list<ServiceCIDR>('servicecidrs')).items).toEqual([]);
    expect(await ipAddresses(plane)).toEqual([]);
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });
});

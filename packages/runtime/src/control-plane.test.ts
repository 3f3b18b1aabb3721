// The control plane over real stores: the memory store on a virtual clock for everything that
// depends on time, SQLite (real timers) for a start, a restart and a clean stop.
// The expectations are upstream's: the kubernetes Service at the first IP of the range with
// https 443 → the secure port, the four system namespaces, the lease reconciler's sorted
// address list and its TTL, master-count's agreement with the right count and its flapping
// with a wrong one, the repair loops' third-run leak cleanup and their Warning events, and the
// namespace controller's finalization.
// upstream: pkg/controlplane/controller.go, pkg/controlplane/reconcilers/{lease,instancecount}.go,
//           pkg/registry/core/service/ipallocator/controller/repair.go,
//           pkg/controller/namespace/deletion/namespaced_resources_deleter.go
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BITMAP_CLUSTER_IP_ALLOCATION, formatIP, parseIPSloppy, parseServiceNetworking, type Endpoints, type EndpointSlice, type Event, type Namespace, type RangeAllocation, type Service } from '@kubesvc/api-types';
import { allocatedIPs, ipAllocatorFromSnapshot, releaseIP, snapshotIPAllocator } from '@kubesvc/ipallocator';
import { describe, expect, it } from 'vitest';
import { type Clock, type Store, systemClock } from '@kubesvc/store';
import { startControlPlane, type ControlPlane, type ControlPlaneOptions } from './control-plane.js';
import { recordingLogger, type RecordingLogger, crashAt, isSimulatedCrash, createRegistry, masterLeaseKey, SERVICE_IPS_KEY } from '@kubesvc/apiserver';
import { openSqliteStore } from '@kubesvc/store/sqlite';
import { cleanups, memory, must, runClock } from './runtime.fixtures.js';

const A = '192.168.1.10';
const B = '192.168.1.11';
const C = '192.168.1.12';
const NO_MASTER_IPS = 'no master IPs were listed in storage, refusing to erase all endpoints for the kubernetes service';



interface Started {
  readonly plane: ControlPlane;
  readonly logger: RecordingLogger;
}

/** Options over the test's defaults; an explicit `undefined` removes a default. */
type Overrides = { readonly [K in keyof ControlPlaneOptions]?: ControlPlaneOptions[K] | undefined };

async function start(store: Store, clock: Clock, options: Overrides = {}): Promise<Started> {
  const logger = recordingLogger();
  const merged = { store, clock, logger, seed: 11, hostname: 'test-host', serviceClusterIPRange: '10.96.0.0/12', advertiseAddress: A, ...options };
  const plane = must(await startControlPlane(Object.fromEntries(Object.entries(merged).filter(([, v]) => v !== undefined)) as unknown as ControlPlaneOptions));
  cleanups.push(() => plane.kill());
  return { plane, logger };
}


const run = runClock;

async function kubernetesService(plane: ControlPlane): Promise<Service | undefined> {
  const r = await plane.registry.get<Service>('services', 'default', 'kubernetes');
  return r.ok ? r.value : undefined;
}

async function endpointIPs(plane: ControlPlane): Promise<string[] | undefined> {
  const r = await plane.registry.get<Endpoints>('endpoints', 'default', 'kubernetes');
  if (!r.ok) return undefined;
  return (r.value.subsets ?? []).flatMap((s) => (s.addresses ?? []).map((a) => a.ip));
}

async function namespaceNames(plane: ControlPlane): Promise<string[]> {
  return must(await plane.registry.list<Namespace>('namespaces')).items.map((n) => n.metadata.name ?? '');
}

async function rangeIPs(store: Store): Promise<string[]> {
  const { kv } = await store.get(SERVICE_IPS_KEY);
  if (kv === undefined) return [];
  return allocatedIPs(must(ipAllocatorFromSnapshot(JSON.parse(kv.value) as RangeAllocation))).map(formatIP);
}

function userService(name: string, spec: Service['spec'] = {}): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { name }, spec: { ports: [{ port: 80 }], selector: { app: name }, ...spec } };
}

describe('startControlPlane', () => {
  it('creates default/kubernetes at the first IP, https 443 → 6443, its Endpoints and EndpointSlice at the advertise address, and the four system namespaces', async () => {
    const { store, clock } = memory();
    const { plane, logger } = await start(store, clock);
    await plane.whenReady();
    await plane.idle();
    expect(plane.isReady()).toBe(true);
    const svc = await kubernetesService(plane);
    expect(svc?.spec?.clusterIP).toBe('10.96.0.1');
    expect(svc?.spec?.type).toBe('ClusterIP');
    expect(svc?.spec?.ports).toEqual([{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 }]);
    expect(svc?.metadata.labels).toEqual({ provider: 'kubernetes', component: 'apiserver' });
    const ep = must(await plane.registry.get<Endpoints>('endpoints', 'default', 'kubernetes'));
    expect(ep.subsets).toEqual([{ addresses: [{ ip: A }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }]);
    const slice = must(await plane.registry.get<EndpointSlice>('endpointslices', 'default', 'kubernetes'));
    expect((slice.endpoints ?? []).map((e) => e.addresses)).toEqual([[A]]);
    expect((await namespaceNames(plane)).sort()).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    // The lease reconciler's key, on a store lease.
    const { kv } = await store.get(masterLeaseKey(A));
    expect(kv?.lease).toBeDefined();
    expect(JSON.parse(kv?.value ?? '{}')).toEqual({ kind: 'Endpoints', apiVersion: 'v1', metadata: { generation: 1 }, subsets: [{ addresses: [{ ip: A }] }] });
    expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
  });

  it('uses upstream default range 10.0.0.0/24 when none is given, and a NodePort kubernetes Service when asked', async () => {
    const { store, clock } = memory();
    const { plane } = await start(store, clock, { serviceClusterIPRange: undefined, kubernetesServiceNodePort: 30443 });
    await plane.whenReady();
    const svc = await kubernetesService(plane);
    expect(svc?.spec?.clusterIP).toBe('10.0.0.1');
    expect(svc?.spec?.type).toBe('NodePort');
    expect(svc?.spec?.ports?.[0]?.nodePort).toBe(30443);
  });

  it('takes the parsed Service networking and hands the same value to the bootstrap controller and the registry', async () => {
    const { store, clock } = memory();
    const parsed = parseServiceNetworking({ serviceClusterIPRange: '10.100.0.0/24,fd00:100::/112', serviceNodePortRange: '31000-31999' });
    if (!parsed.ok) throw new Error(parsed.error.message);
    const { plane } = await start(store, clock, { serviceClusterIPRange: 'ignored', serviceNetworking: parsed.value });
    await plane.whenReady();
    expect(plane.config.serviceNetworking).toBe(parsed.value);
    const svc = await kubernetesService(plane);
    expect(svc?.spec?.clusterIP).toBe('10.100.0.1');
    const created = await plane.registry.create<Service>('services', 'default', {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web' },
      spec: { type: 'NodePort', ipFamilyPolicy: 'RequireDualStack', ports: [{ port: 80 }] },
    });
    if (!created.ok) throw new Error(created.error.message);
    expect(created.value.spec?.ipFamilies).toEqual(['IPv4', 'IPv6']);
    const nodePort = created.value.spec?.ports?.[0]?.nodePort ?? 0;
    expect(nodePort >= 31000 && nodePort <= 31999).toBe(true);
  });

  it("answers bad flags with kube-apiserver's messages, all at once, and starts nothing", async () => {
    const { store, clock } = memory();
    const one = await startControlPlane({ store, clock, serviceClusterIPRange: '10.0.0.0/30', advertiseAddress: A });
    expect(one.ok).toBe(false);
    // upstream: getServiceIPAndRanges wraps ServiceIPRange's refusal of the primary.
    if (!one.ok) expect(one.error.message).toBe('error determining service IP ranges for primary service cidr: the service cluster IP range must be at least 8 IP addresses');
    const two = await startControlPlane({ store, clock, advertiseAddress: A, kubernetesServiceNodePort: 80, masterCount: 0 });
    expect(two.ok).toBe(false);
    if (!two.ok) {
      expect(two.error.message).toBe(
        "[--apiserver-count should be a positive number, but value '0' provided, kubernetes service node port range 30000-32767 doesn't contain 80]",
      );
    }
    expect(await store.revision()).toBe(0);
  });

  it('brings a deleted kubernetes Service back at the same IP within the endpoint interval, after 50 other Services took their IPs', async () => {
    const { store, clock } = memory();
    const { plane } = await start(store, clock);
    await plane.whenReady();
    for (let i = 0; i < 50; i++) must(await plane.registry.create('services', 'default', userService(`svc-${i}`)));
    const before = await kubernetesService(plane);
    must(await plane.registry.delete('services', 'default', 'kubernetes'));
    await plane.idle();
    expect(await kubernetesService(plane)).toBeUndefined();
    const deletedAt = clock.now();
    let backAt: number | undefined;
    await run(clock, 10_000, [plane], async () => {
      if (backAt === undefined && (await kubernetesService(plane)) !== undefined) backAt = clock.now();
    });
    expect(backAt).toBeDefined();
    expect((backAt ?? Infinity) - deletedAt).toBeLessThanOrEqual(10_000);
    const after = await kubernetesService(plane);
    expect(after?.spec?.clusterIP).toBe('10.96.0.1');
    expect(after?.metadata.uid).not.toBe(before?.metadata.uid);
    expect(await endpointIPs(plane)).toEqual([A]);
    // None of the 50 took the first IP: automatic allocation prefers the dynamic band.
    const ips = must(await plane.registry.list<Service>('services', 'default')).items.map((s) => s.spec?.clusterIP);
    expect(ips.filter((ip) => ip === '10.96.0.1')).toHaveLength(1);
  });

  describe('the lease reconciler', () => {
    it('lists every live apiserver, sorted; a stopped one leaves at once, a killed one when its lease runs out', async () => {
      const { store, clock } = memory();
      // B starts first: the list is sorted by address, not by age.
      const b = await start(store, clock, { advertiseAddress: B, seed: 2 });
      await b.plane.whenReady();
      const a = await start(store, clock, { advertiseAddress: A, seed: 3 });
      await a.plane.whenReady();
      await run(clock, 10_000, [a.plane, b.plane]);
      expect(await endpointIPs(a.plane)).toEqual([A, B]);

      await b.plane.stop();
      expect(await endpointIPs(a.plane)).toEqual([A]);
      expect((await store.get(masterLeaseKey(B))).kv).toBeUndefined();

      const c = await start(store, clock, { advertiseAddress: C, seed: 4 });
      await c.plane.whenReady();
      await run(clock, 10_000, [a.plane, c.plane]);
      expect(await endpointIPs(a.plane)).toEqual([A, C]);
      await c.plane.kill();
      const killedAt = clock.now();
      // Its lease was renewed at most one endpoint interval ago and lives 15 s from then.
      await run(clock, 1_000, [a.plane]);
      expect(await endpointIPs(a.plane)).toEqual([A, C]);
      let leaseGoneAt: number | undefined;
      let droppedAt: number | undefined;
      await run(clock, 30_000, [a.plane], async () => {
        if (leaseGoneAt === undefined && (await store.get(masterLeaseKey(C))).kv === undefined) leaseGoneAt = clock.now();
        if (droppedAt === undefined && !(await endpointIPs(a.plane))?.includes(C)) droppedAt = clock.now();
      });
      expect(leaseGoneAt).toBeDefined();
      expect((leaseGoneAt ?? 0) - killedAt).toBeLessThanOrEqual(15_000);
      expect((leaseGoneAt ?? 0) - killedAt).toBeGreaterThan(5_000);
      // A's next pass after the expiry drops it.
      expect((droppedAt ?? Infinity) - (leaseGoneAt ?? 0)).toBeLessThanOrEqual(10_000);
      expect(await endpointIPs(a.plane)).toEqual([A]);
    });

    it('stopping the last apiserver removes its lease but refuses to erase the Endpoints, as upstream', async () => {
      const { store, clock } = memory();
      const { plane, logger } = await start(store, clock);
      await plane.whenReady();
      const before = await store.revision();
      await plane.stop();
      expect((await store.get(masterLeaseKey(A))).kv).toBeUndefined();
      expect(await endpointIPs(plane)).toEqual([A]);
      expect(logger.lines.map((l) => l.message)).toContain(`Unable to remove endpoints from kubernetes service: ${NO_MASTER_IPS}`);
      // Nothing is written after stop(): the one write was the lease's delete.
      const after = await store.revision();
      expect(after).toBe(before + 1);
      clock.advance(600_000);
      await new Promise((resolve) => setTimeout(resolve, 20));
      expect(await store.revision()).toBe(after);
    });
  });

  describe('the master-count reconciler', () => {
    it('with --apiserver-count 2, two apiservers agree on both addresses and stop writing', async () => {
      const { store, clock } = memory();
      const opts = { endpointReconcilerType: 'master-count', masterCount: 2 } as const;
      const b = await start(store, clock, { ...opts, advertiseAddress: B, seed: 2 });
      await b.plane.whenReady();
      const a = await start(store, clock, { ...opts, advertiseAddress: A, seed: 3 });
      await a.plane.whenReady();
      await run(clock, 10_000, [a.plane, b.plane]);
      expect(await endpointIPs(a.plane)).toEqual([A, B]);
      const settled = must(await a.plane.registry.get<Endpoints>('endpoints', 'default', 'kubernetes')).metadata.resourceVersion;
      await run(clock, 60_000, [a.plane, b.plane]);
      expect(must(await a.plane.registry.get<Endpoints>('endpoints', 'default', 'kubernetes')).metadata.resourceVersion).toBe(settled);
      // Stop removes our own address (instancecount.go RemoveEndpoints).
      await b.plane.stop();
      expect(await endpointIPs(a.plane)).toEqual([A]);
      // No lease is written in this mode.
      expect((await store.range('/registry/masterleases/')).kvs).toEqual([]);
    });

    it('with --apiserver-count 1 and two apiservers, the Endpoints flap between them every pass (the known flapping)', async () => {
      const { store, clock } = memory();
      const opts = { endpointReconcilerType: 'master-count', masterCount: 1 } as const;
      const a = await start(store, clock, { ...opts, advertiseAddress: A, seed: 2 });
      await a.plane.whenReady();
      await run(clock, 3_000, [a.plane]);
      const seen: string[] = [(await endpointIPs(a.plane))?.join(',') ?? ''];
      const b = await start(store, clock, { ...opts, advertiseAddress: B, seed: 3 });
      await b.plane.whenReady();
      seen.push((await endpointIPs(a.plane))?.join(',') ?? '');
      await run(clock, 40_000, [a.plane, b.plane], async () => {
        const ips = (await endpointIPs(a.plane))?.join(',') ?? '';
        if (seen.at(-1) !== ips) seen.push(ips);
      });
      // Each pass replaces the other's address with its own: A at 0, 10, 20 s; B at 3, 13, 23 s.
      expect(seen.length).toBeGreaterThanOrEqual(7);
      for (const [i, ips] of seen.entries()) expect(ips).toBe(i % 2 === 0 ? A : B);
    });
  });

  describe('the repair loops of the bitmap allocator', () => {
    it('free a leaked ClusterIP on the third run that finds it, at the configured interval', async () => {
      const { store, clock } = memory();
      const { plane, logger } = await start(store, clock, { repairIntervalMs: 30_000, clusterIPAllocation: BITMAP_CLUSTER_IP_ALLOCATION });
      await plane.whenReady();
      // Another apiserver dies between allocating 10.96.0.77 and storing its Service.
      const crashed = must(createRegistry({ store, clock, seed: 5, serviceClusterIPRanges: ['10.96.0.0/12'], clusterIPAllocation: BITMAP_CLUSTER_IP_ALLOCATION, crashHook: crashAt('service-create:after-allocate') }));
      await expect(crashed.create('services', 'default', userService('lost', { clusterIP: '10.96.0.77' }))).rejects.toSatisfy(isSimulatedCrash);
      expect(await rangeIPs(store)).toContain('10.96.0.77');
      await run(clock, 30_000, [plane]); // run 2 of the loop, the first to see the leak
      expect(await rangeIPs(store)).toContain('10.96.0.77');
      await run(clock, 30_000, [plane]); // run 3
      expect(await rangeIPs(store)).toContain('10.96.0.77');
      await run(clock, 30_000, [plane]); // run 4: the third that finds it
      expect(await rangeIPs(store)).toEqual(['10.96.0.1']);
      expect(plane.bootstrap.state().loops.ipRepair.runs).toBe(4);
      // A leak is logged by upstream, not recorded as an event.
      expect(must(await plane.registry.list<Event>('events')).items).toEqual([]);
      expect(logger.lines.filter((l) => l.level === 'error')).toEqual([]);
    });

    it("record a Warning as a v1 Event in the Service's namespace when a ClusterIP is not allocated, and allocate it again", async () => {
      const { store, clock } = memory();
      const { plane } = await start(store, clock, { repairIntervalMs: 30_000, clusterIPAllocation: BITMAP_CLUSTER_IP_ALLOCATION });
      await plane.whenReady();
      must(await plane.registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
      const web = must(await plane.registry.create('services', 'team', userService('web', { clusterIP: '10.96.0.50' })));
      // The range loses 10.96.0.50 (a restored backup, say).
      const { kv } = await store.get(SERVICE_IPS_KEY);
      const stored = JSON.parse(kv?.value ?? '') as RangeAllocation;
      const without = releaseIP(must(ipAllocatorFromSnapshot(stored)), must(parseIPSloppy('10.96.0.50')));
      const { resourceVersion: _rv, ...meta } = snapshotIPAllocator(without, stored).metadata;
      await store.txn([], [{ kind: 'put', key: SERVICE_IPS_KEY, value: JSON.stringify({ ...snapshotIPAllocator(without, stored), metadata: meta }) }]);
      expect(await rangeIPs(store)).not.toContain('10.96.0.50');
      await run(clock, 30_000, [plane]);
      expect(await rangeIPs(store)).toContain('10.96.0.50');
      const events = must(await plane.registry.list<Event>('events', 'team')).items;
      expect(events).toHaveLength(1);
      const event = events[0];
      expect(event?.type).toBe('Warning');
      expect(event?.reason).toBe('ClusterIPNotAllocated');
      // The dual-stack repair names the family (upstream: "Cluster IP [%v]:%s is not allocated; repairing").
      expect(event?.message).toBe('Cluster IP [IPv4]:10.96.0.50 is not allocated; repairing');
      expect(event?.involvedObject).toEqual({ kind: 'Service', namespace: 'team', name: 'web', apiVersion: 'v1', uid: web.metadata.uid, resourceVersion: web.metadata.resourceVersion });
      expect(event?.action).toBe('ClusterIPAllocation');
      expect(event?.reportingComponent).toBe('ipallocator-repair-controller');
      expect(event?.reportingInstance).toBe('ipallocator-repair-controller-test-host');
      expect(event?.eventTime).toBe(new Date(clock.now()).toISOString().replace('.000Z', '.000000Z'));
      // events/v1 names: <regarding name>.<UnixNano in hex>
      expect(event?.metadata.name).toBe(`web.${(BigInt(clock.now()) * 1_000_000n).toString(16)}`);
      expect(must(await plane.registry.list<Event>('events', 'default')).items).toEqual([]);
    });
  });

  it('exits with upstream\'s fatal error when the first repairs cannot succeed within a minute, and writes nothing after', async () => {
    const { store, clock } = memory();
    // The stored ClusterIP range does not parse (a damaged store): every repair run fails to restore it.
    await store.txn([], [{ kind: 'put', key: SERVICE_IPS_KEY, value: JSON.stringify({ apiVersion: 'v1', kind: 'RangeAllocation', metadata: {}, range: 'not-a-range', data: '' }) }]);
    const fatal: string[] = [];
    const { plane, logger } = await start(store, clock, { onFatal: (m) => fatal.push(m), clusterIPAllocation: BITMAP_CLUSTER_IP_ALLOCATION });
    await plane.idle();
    await run(clock, 59_000, [plane]);
    expect(fatal).toEqual([]);
    await run(clock, 1_000, [plane]);
    expect(fatal).toEqual(['Unable to perform initial IP and Port allocation check']);
    expect(plane.fatalError()).toBe('Unable to perform initial IP and Port allocation check');
    expect(logger.lines.at(-1)).toEqual({ level: 'error', message: 'Unable to perform initial IP and Port allocation check' });
    expect(plane.isReady()).toBe(false);
    await expect(plane.whenReady()).rejects.toThrow();
    const revision = await store.revision();
    await run(clock, 60_000, [plane]);
    expect(await store.revision()).toBe(revision);
  });

  it("deletes a Terminating namespace's Services, giving back their IPs, and then the namespace", async () => {
    const { store, clock } = memory();
    const { plane } = await start(store, clock);
    await plane.whenReady();
    must(await plane.registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
    const ips: string[] = [];
    for (const name of ['a', 'b', 'c']) ips.push(must(await plane.registry.create('services', 'team', userService(name))).spec?.clusterIP ?? '');
    expect(await rangeIPs(store)).toEqual(expect.arrayContaining(ips));
    const deleted = must(await plane.registry.delete('namespaces', '', 'team'));
    expect(deleted.deleted).toBe(false);
    await plane.idle();
    expect(must(await plane.registry.list('services', 'team')).items).toEqual([]);
    expect((await plane.registry.get('namespaces', '', 'team')).ok).toBe(false);
    expect(await rangeIPs(store)).toEqual(['10.96.0.1']);
    expect(await kubernetesService(plane)).toBeDefined();
  });

  it('keeps a Terminating namespace while finalizers keep an object in it, and removes it once the last one is taken off', async () => {
    const { clock, store } = memory();
    const { plane, logger } = await start(store, clock);
    await plane.whenReady();
    must(await plane.registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'team' } }));
    must(await plane.registry.create<Endpoints>('endpoints', 'team', { apiVersion: 'v1', kind: 'Endpoints', metadata: { name: 'held', finalizers: ['example.com/hold'] } }));
    must(await plane.registry.delete('namespaces', '', 'team'));
    await run(clock, 2000, [plane]);
    expect((await plane.registry.get('namespaces', '', 'team')).ok).toBe(true);
    const held = must(await plane.registry.get<Endpoints>('endpoints', 'team', 'held'));
    expect(held.metadata.deletionTimestamp).toBeDefined();
    expect(logger.lines.some((l) => l.message.includes('namespace "team" still has 1 object(s) that finalizers keep'))).toBe(true);
    must(await plane.registry.update('endpoints', 'team', 'held', { ...held, metadata: { ...held.metadata, finalizers: [] } }));
    // The namespace controller's next try, after its backoff, finds it empty.
    await run(clock, 60_000, [plane]);
    expect((await plane.registry.get('namespaces', '', 'team')).ok).toBe(false);
  });

  it("compacts the store's history every --etcd-compaction-interval, to the revision of the round before, and not at all with 0", async () => {
    const { store, clock } = memory();
    const { plane, logger } = await start(store, clock, { compactionIntervalMs: 300_000 });
    await plane.whenReady();
    must(await plane.registry.create('services', 'default', userService('old')));
    const early = await store.revision();
    // The first round (at 5 min) only records the revision; the second (at 10 min) compacts to it.
    await run(clock, 300_000, [plane]);
    expect((await store.get(SERVICE_IPS_KEY, { revision: early })).kv).toBeDefined();
    await run(clock, 300_000, [plane]);
    await expect(store.get(SERVICE_IPS_KEY, { revision: early })).rejects.toThrow(/compacted/);
    expect(logger.lines.some((l) => l.level === 'info' && /^compactor: compacted the store to revision \d+$/.test(l.message))).toBe(true);
    // The live state is untouched.
    expect(must(await plane.registry.get<Service>('services', 'default', 'old')).metadata.name).toBe('old');

    const off = memory();
    const second = await start(off.store, off.clock, { compactionIntervalMs: 0 });
    await second.plane.whenReady();
    await run(off.clock, 900_000, [second.plane]);
    // Revision 1 (the first write) still reads after three intervals: nothing was compacted.
    await expect(off.store.get(SERVICE_IPS_KEY, { revision: 1 })).resolves.toMatchObject({ revision: 1 });
    expect(second.logger.lines.some((l) => l.message.startsWith('compactor:'))).toBe(false);
  });
});

describe('startControlPlane on SQLite', () => {
  it('starts, serves, stops, and after a restart on the same file keeps every ClusterIP and the one kubernetes Service', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kubesvc-control-plane-'));
    cleanups.push(() => rmSync(dir, { recursive: true, force: true }));
    const path = join(dir, 'state.db');

    let store = openSqliteStore({ path });
    const first = await start(store, systemClock);
    await first.plane.whenReady();
    const created: Record<string, string> = {};
    for (const name of ['web', 'db', 'cache']) created[name] = must(await first.plane.registry.create('services', 'default', userService(name))).spec?.clusterIP ?? '';
    const kubernetes = await kubernetesService(first.plane);
    await first.plane.stop();
    await store.close();

    store = openSqliteStore({ path });
    const reopened = store;
    cleanups.push(() => reopened.close());
    const second = await start(store, systemClock);
    await second.plane.whenReady();
    await second.plane.idle();
    const services = must(await second.plane.registry.list<Service>('services')).items;
    expect(services.filter((s) => s.metadata.name === 'kubernetes')).toHaveLength(1);
    const again = await kubernetesService(second.plane);
    expect(again?.metadata.uid).toBe(kubernetes?.metadata.uid);
    expect(again?.spec?.clusterIP).toBe('10.96.0.1');
    for (const [name, ip] of Object.entries(created)) expect(services.find((s) => s.metadata.name === name)?.spec?.clusterIP).toBe(ip);
    expect((await rangeIPs(store)).sort()).toEqual(['10.96.0.1', ...Object.values(created)].sort());
    expect(await endpointIPs(second.plane)).toEqual([A]);
    expect(second.logger.lines.filter((l) => l.level === 'error')).toEqual([]);
    await second.plane.stop();
  });
});

// Whole-system properties of the registry over random sequences of Service creates, updates,
// deletes, crashes, restarts and repair runs, on the memory store with a virtual clock.
// INV-SYS-UNIQUE, INV-SYS-NOLEAK-ON-ERROR and INV-SYS-LEAK3 in docs/invariants.md.
import { fc, test } from '@fast-check/vitest';
import { formatIP, type RangeAllocation, type Service } from '@kubesvc/api-types';
import { allocatedIPs, ipAllocatorFromSnapshot, snapshotIPAllocator } from '@kubesvc/ipallocator';
import { allocatedPorts, portAllocatorFromSnapshot, snapshotPortAllocator } from '@kubesvc/portallocator';
import { expect } from 'vitest';
import { openMemoryStore, type Store, virtualClock } from '@kubesvc/store';
import { crashAt, isSimulatedCrash, type CrashHook, type CrashPoint } from './crash.js';
import { createRegistry, type Registry } from './registry.js';
import { NO_LEAKS, repairOnce, type RepairLeaks } from './repair.js';
import { SERVICE_IPS_KEY, SERVICE_NODE_PORTS_KEY } from './resources.js';

const CIDR = '10.96.0.0/27'; // 30 addresses: collisions and a full range happen
const PORTS = '30000-30011'; // 12 ports
const NAMES = ['a', 'b', 'c', 'd', 'e', 'f'] as const;
const TYPES = ['ClusterIP', 'NodePort', 'LoadBalancer', 'ExternalName', 'Headless'] as const;
type SvcType = (typeof TYPES)[number];

type Command =
  | { readonly op: 'create'; readonly name: string; readonly type: SvcType; readonly ip?: number | undefined; readonly port?: number | undefined; readonly crash?: boolean }
  | { readonly op: 'update'; readonly name: string; readonly type: SvcType; readonly crash?: boolean }
  | { readonly op: 'delete'; readonly name: string; readonly crash?: boolean }
  | { readonly op: 'repair' }
  | { readonly op: 'restart' };

const nameArb = fc.constantFrom(...NAMES);
const typeArb = fc.constantFrom(...TYPES);
const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('create' as const), name: nameArb, type: typeArb, ip: fc.option(fc.integer({ min: 1, max: 34 }), { nil: undefined }), port: fc.option(fc.integer({ min: 29998, max: 30013 }), { nil: undefined }), crash: fc.boolean() }, { requiredKeys: ['op', 'name', 'type'] }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('update' as const), name: nameArb, type: typeArb, crash: fc.boolean() }, { requiredKeys: ['op', 'name', 'type'] }) },
  { weight: 3, arbitrary: fc.record({ op: fc.constant('delete' as const), name: nameArb, crash: fc.boolean() }, { requiredKeys: ['op', 'name'] }) },
  { weight: 1, arbitrary: fc.constant({ op: 'repair' as const }) },
  { weight: 1, arbitrary: fc.constant({ op: 'restart' as const }) },
);

function serviceOf(c: { name: string; type: SvcType; ip?: number | undefined; port?: number | undefined }): Service {
  const spec: NonNullable<Service['spec']> = { selector: { app: c.name }, ports: [{ port: 80 }, { port: 53, protocol: 'UDP' }] };
  if (c.type === 'ExternalName') return { apiVersion: 'v1', kind: 'Service', metadata: { name: c.name }, spec: { type: 'ExternalName', externalName: 'example.com' } };
  if (c.type === 'Headless') spec.clusterIP = 'None';
  else spec.type = c.type;
  if (c.ip !== undefined && c.type !== 'Headless') spec.clusterIP = `10.96.0.${c.ip}`;
  if (c.port !== undefined && (c.type === 'NodePort' || c.type === 'LoadBalancer')) spec.ports = [{ port: 80, nodePort: c.port }];
  return { apiVersion: 'v1', kind: 'Service', metadata: { name: c.name }, spec };
}

/** A "process": a registry whose crash hook can be armed for the next operation only. */
class Harness {
  registry!: Registry;
  private armed: CrashHook | undefined;
  private seed = 1;
  leaks: RepairLeaks = NO_LEAKS;
  constructor(readonly store: Store) {
    this.restart();
  }
  restart(): void {
    const clock = virtualClock(0);
    const r = createRegistry({ store: this.store, clock, seed: this.seed++, serviceClusterIPRanges: [CIDR], serviceNodePortRange: PORTS, crashHook: (ctx) => this.armed?.(ctx) });
    if (!r.ok) throw new Error(r.error.message);
    this.registry = r.value;
  }
  /** Runs `fn` with a crash armed at `point`; a crash restarts the "process". Returns whether it crashed. */
  async run<T>(point: CrashPoint | undefined, fn: (r: Registry) => Promise<T>): Promise<{ crashed: true } | { crashed: false; value: T }> {
    this.armed = point === undefined ? undefined : crashAt(point);
    try {
      return { crashed: false, value: await fn(this.registry) };
    } catch (e) {
      if (!isSimulatedCrash(e)) throw e;
      this.restart();
      return { crashed: true };
    } finally {
      this.armed = undefined;
    }
  }
}

async function held(store: Store): Promise<{ ips: string[]; ports: number[]; raw: string }> {
  const ip = (await store.get(SERVICE_IPS_KEY)).kv;
  const port = (await store.get(SERVICE_NODE_PORTS_KEY)).kv;
  const ips = ip === undefined ? { ok: true as const, value: undefined } : ipAllocatorFromSnapshot(JSON.parse(ip.value) as RangeAllocation);
  const ports = port === undefined ? { ok: true as const, value: undefined } : portAllocatorFromSnapshot(JSON.parse(port.value) as RangeAllocation);
  if (!ips.ok || !ports.ok) throw new Error('unreadable range');
  return {
    ips: ips.value === undefined ? [] : allocatedIPs(ips.value).map(formatIP),
    ports: ports.value === undefined ? [] : allocatedPorts(ports.value),
    raw: `${ip?.value ?? ''}|${port?.value ?? ''}`,
  };
}

async function liveServices(registry: Registry): Promise<Service[]> {
  const list = await registry.list<Service>('services', 'default');
  if (!list.ok) throw new Error(list.error.message);
  return [...list.value.items];
}

function ipsOf(s: Service): string[] {
  const ip = s.spec?.clusterIP ?? '';
  return s.spec?.type === 'ExternalName' || ip === '' || ip === 'None' ? [] : (s.spec?.clusterIPs ?? [ip]);
}

function portsOf(s: Service): { port: number; protocol: string }[] {
  return (s.spec?.ports ?? []).filter((p) => (p.nodePort ?? 0) !== 0).map((p) => ({ port: p.nodePort ?? 0, protocol: p.protocol ?? 'TCP' }));
}

async function newHarness(): Promise<Harness> {
  const store = openMemoryStore({ clock: virtualClock(0) });
  const h = new Harness(store);
  await h.registry.initRanges();
  const ns = await h.registry.create('namespaces', '', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } });
  if (!ns.ok) throw new Error(ns.error.message);
  return h;
}

async function step(h: Harness, c: Command): Promise<void> {
  switch (c.op) {
    case 'create': {
      const before = await held(h.store);
      const r = await h.run(c.crash ? 'service-create:after-allocate' : undefined, (reg) => reg.create('services', 'default', serviceOf(c)));
      // INV-SYS-NOLEAK-ON-ERROR: a refused create leaves the range objects byte for byte.
      if (!r.crashed && !r.value.ok) expect((await held(h.store)).raw).toBe(before.raw);
      return;
    }
    case 'update': {
      const current = await h.registry.get<Service>('services', 'default', c.name);
      if (!current.ok) return;
      const next = serviceOf({ name: c.name, type: c.type });
      const body: Service = { ...next, metadata: current.value.metadata };
      const before = await held(h.store);
      const point: CrashPoint = c.type === 'ClusterIP' ? 'service-update:after-persist' : 'service-update:after-allocate';
      const r = await h.run(c.crash ? point : undefined, (reg) => reg.update('services', 'default', c.name, body));
      if (!r.crashed && !r.value.ok) expect((await held(h.store)).raw).toBe(before.raw);
      return;
    }
    case 'delete':
      await h.run(c.crash ? 'service-delete:after-persist' : undefined, (reg) => reg.delete('services', 'default', c.name));
      return;
    case 'repair': {
      const run = await repairOnce(h.store, h.registry.net, h.leaks);
      expect(run.error).toBeUndefined();
      expect(run.written).toBe(true);
      h.leaks = run.leaks;
      return;
    }
    case 'restart':
      h.restart();
      return;
  }
}

async function checkUnique(h: Harness): Promise<void> {
  const services = await liveServices(h.registry);
  const ips = services.flatMap(ipsOf);
  expect(new Set(ips).size).toBe(ips.length);
  // A node port is shared by the ports of one Service (TCP and UDP), never by two Services.
  const owner = new Map<string, string>();
  for (const s of services) {
    for (const p of portsOf(s)) {
      const key = `${p.port}/${p.protocol}`;
      const was = owner.get(key);
      expect(was === undefined || was === s.metadata.name).toBe(true);
      owner.set(key, s.metadata.name ?? '');
    }
  }
  // Everything a live Service holds is allocated in the range objects.
  const range = await held(h.store);
  // The registry writes the snapshot bytes it keeps bit by bit: they are the allocator's own encoding.
  const ipKv = (await h.store.get(SERVICE_IPS_KEY)).kv;
  const portKv = (await h.store.get(SERVICE_NODE_PORTS_KEY)).kv;
  const ipA = ipAllocatorFromSnapshot(JSON.parse(ipKv?.value ?? '') as RangeAllocation);
  const portA = portAllocatorFromSnapshot(JSON.parse(portKv?.value ?? '') as RangeAllocation);
  expect(ipA.ok && JSON.stringify(snapshotIPAllocator(ipA.value))).toBe(ipKv?.value);
  expect(portA.ok && JSON.stringify(snapshotPortAllocator(portA.value))).toBe(portKv?.value);
  for (const ip of ips) expect(range.ips).toContain(ip);
  for (const p of services.flatMap(portsOf)) expect(range.ports).toContain(p.port);
}

test.prop([fc.array(commandArb, { minLength: 1, maxLength: 30 })])(
  'INV-SYS-UNIQUE and INV-SYS-NOLEAK-ON-ERROR: no two live Services share a ClusterIP or a NodePort, and a refused create or update leaves the ranges as they were',
  async (commands) => {
    const h = await newHarness();
    for (const c of commands) {
      await step(h, c);
      await checkUnique(h);
    }
  },
);

const cleanArb: fc.Arbitrary<Command> = fc.oneof(
  fc.record({ op: fc.constant('create' as const), name: nameArb, type: typeArb }),
  fc.record({ op: fc.constant('delete' as const), name: nameArb }),
);

test.prop([
  fc.array(cleanArb, { maxLength: 10 }),
  fc.constantFrom('ClusterIP', 'NodePort', 'LoadBalancer') as fc.Arbitrary<SvcType>,
  fc.array(fc.array(cleanArb, { maxLength: 3 }), { minLength: 3, maxLength: 3 }),
])(
  'INV-SYS-LEAK3: an IP or port allocated by a create that crashed before persisting is free after exactly the 3rd repair run, never sooner; one in use is never freed',
  async (before, crashedType, between) => {
    const h = await newHarness();
    for (const c of before) await step(h, c);
    const ranges0 = await held(h.store);
    const r = await h.run('service-create:after-allocate', (reg) => reg.create('services', 'default', serviceOf({ name: 'crashed', type: crashedType })));
    if (!r.crashed) {
      // The range was full: nothing was allocated, nothing can leak.
      expect((await held(h.store)).raw).toBe(ranges0.raw);
      return;
    }
    const ranges1 = await held(h.store);
    const leakedIPs = ranges1.ips.filter((ip) => !ranges0.ips.includes(ip));
    const leakedPorts = ranges1.ports.filter((p) => !ranges0.ports.includes(p));
    expect(leakedIPs.length).toBe(1);
    expect((await h.registry.get('services', 'default', 'crashed')).ok).toBe(false);
    for (let run = 1; run <= 3; run++) {
      // Other clients keep working between runs; they cannot take what is still held.
      for (const c of between[run - 1] ?? []) await step(h, c);
      const result = await repairOnce(h.store, h.registry.net, h.leaks);
      h.leaks = result.leaks;
      expect(result.written).toBe(true);
      const now = await held(h.store);
      for (const ip of leakedIPs) expect(now.ips.includes(ip)).toBe(run < 3);
      for (const p of leakedPorts) expect(now.ports.includes(p)).toBe(run < 3);
      const services = await liveServices(h.registry);
      for (const ip of services.flatMap(ipsOf)) expect(now.ips).toContain(ip);
      for (const p of services.flatMap(portsOf)) expect(now.ports).toContain(p.port);
    }
  },
);

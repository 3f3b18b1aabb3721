// Properties of the IPAddress repair loop over random views: Services holding IPs in and out
// of the ServiceCIDRs, IPAddresses with right and wrong references, labels and ages. The
// oracles are written here from the relation upstream's repairip.go keeps (Service.clusterIPs
// == IPAddress.name and IPAddress.parentRef == the Service), not from the implementation.
import { fc, test } from '@fast-check/vitest';
import type { IPAddress, Service, ServiceCIDR } from '@kubesvc/api-types';
import { expect } from 'vitest';
import {
  applyIPAddressWrites,
  ipAddressRepairListers,
  repairIPAddresses,
  syncIPAddress,
  syncServiceIPAddresses,
  type IPAddressRepairIPAddress,
  type IPAddressRepairPass,
  type IPAddressRepairView,
} from './repair-ip.js';

const NOW = Date.parse('2012-01-01T01:00:00Z');
const GRACE_MS = 60_000;
const KUBERNETES: ServiceCIDR = { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata: { name: 'kubernetes' }, spec: { cidrs: ['10.0.0.0/28', '2001:db8::/64'] } };

/** ClusterIPs inside 10.0.0.0/28 or 2001:db8::/64, in canonical form. */
const IN_RANGE = ['10.0.0.1', '10.0.0.2', '10.0.0.3', '10.0.0.4', '10.0.0.5', '2001:db8::1', '2001:db8::2'];
/** Outside every ServiceCIDR: network and broadcast addresses, other networks. */
const OUT_OF_RANGE = ['10.0.0.0', '10.0.0.15', '192.168.0.1', '2001:db8::', '2001:db9::1'];
const NAMES = ['a', 'b', 'c', 'd'];
const NAMESPACES = ['bar', 'baz'];
const FAMILY = 'ipaddress.kubernetes.io/ip-family';
const MANAGED_BY = 'ipaddress.kubernetes.io/managed-by';

const familyOf = (ip: string) => (ip.includes(':') ? 'IPv6' : 'IPv4');

function service(namespace: string, name: string, clusterIPs: string[]): Service {
  return { apiVersion: 'v1', kind: 'Service', metadata: { namespace, name }, spec: { clusterIP: clusterIPs[0] ?? '', clusterIPs } };
}

/** The IPAddress the allocator writes for `ip` of the Service namespace/name, made `ageMs` old. */
function allocated(ip: string, namespace: string, name: string, ageMs: number): IPAddress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: {
      name: ip,
      creationTimestamp: new Date(NOW - ageMs).toISOString(),
      labels: { [FAMILY]: familyOf(ip), [MANAGED_BY]: 'ipallocator.k8s.io' },
    },
    spec: { parentRef: { resource: 'services', namespace, name } },
  };
}

/** Other spellings of in-range IPs, which ParseIPSloppy reads as the IP. */
const ALIASES: Record<string, string> = { '010.0.0.1': '10.0.0.1', '::ffff:10.0.0.2': '10.0.0.2' };

const clusterIPArb = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...IN_RANGE) },
  { weight: 2, arbitrary: fc.constantFrom(...OUT_OF_RANGE) },
  { weight: 1, arbitrary: fc.constantFrom('not-an-ip', ...Object.keys(ALIASES)) },
);

const serviceArb = fc
  .record({
    namespace: fc.constantFrom(...NAMESPACES),
    name: fc.constantFrom(...NAMES),
    clusterIPs: fc.oneof(
      { weight: 8, arbitrary: fc.array(clusterIPArb, { minLength: 1, maxLength: 2 }) },
      { weight: 1, arbitrary: fc.constant<string[]>(['None']) },
      { weight: 1, arbitrary: fc.constant<string[]>([]) },
    ),
  })
  .map(({ namespace, name, clusterIPs }) => service(namespace, name, clusterIPs));

const ipAddressArb = fc
  .record({
    name: fc.constantFrom(...IN_RANGE, ...OUT_OF_RANGE),
    group: fc.constantFrom('', '', '', 'gateway.networking.k8s.io'),
    resource: fc.constantFrom('services', 'services', 'services', 'gateways'),
    namespace: fc.constantFrom(...NAMESPACES),
    parent: fc.constantFrom(...NAMES, 'gone'),
    managedBy: fc.constantFrom('ipallocator.k8s.io', 'ipallocator.k8s.io', 'ipallocator.k8s.io', 'other-controller', undefined),
    familyLabel: fc.constantFrom('right', 'right', 'right', 'wrong', 'absent'),
    ageS: fc.option(fc.integer({ min: 0, max: 120 }), { nil: undefined }),
  })
  .map((g): IPAddress => {
    const labels: Record<string, string> = {};
    if (g.familyLabel !== 'absent') labels[FAMILY] = g.familyLabel === 'right' ? familyOf(g.name) : familyOf(g.name) === 'IPv4' ? 'IPv6' : 'IPv4';
    if (g.managedBy !== undefined) labels[MANAGED_BY] = g.managedBy;
    return {
      apiVersion: 'networking.k8s.io/v1',
      kind: 'IPAddress',
      metadata: { name: g.name, labels, ...(g.ageS === undefined ? {} : { creationTimestamp: new Date(NOW - g.ageS * 1000).toISOString() }) },
      spec: { parentRef: { group: g.group, resource: g.resource, namespace: g.namespace, name: g.parent } },
    };
  });

const viewArb = fc.record({
  services: fc.uniqueArray(serviceArb, { maxLength: 6, selector: (s) => `${s.metadata.namespace}/${s.metadata.name}` }),
  ipAddresses: fc.uniqueArray(ipAddressArb, { maxLength: 8, selector: (a) => a.metadata.name }),
});

function viewOf(v: { services: Service[]; ipAddresses: IPAddressRepairIPAddress[] }): IPAddressRepairView {
  return { services: v.services, ipAddresses: v.ipAddresses, serviceCIDRs: [KUBERNETES] };
}

function pass(view: IPAddressRepairView): IPAddressRepairPass {
  const result = repairIPAddresses(view, NOW);
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

// ---- the oracle: the relation as upstream states it ----

const managedByAllocator = (a: IPAddressRepairIPAddress) => a.metadata.labels?.[MANAGED_BY] === 'ipallocator.k8s.io';
const ageOf = (a: IPAddressRepairIPAddress) => {
  const stamp = a.metadata.creationTimestamp;
  return typeof stamp === 'string' ? NOW - Date.parse(stamp) : Number.POSITIVE_INFINITY;
};
const clusterIPsOf = (s: Service) => s.spec?.clusterIPs ?? [];
const hasClusterIP = (s: Service) => s.spec?.clusterIP !== undefined && s.spec.clusterIP !== '' && s.spec.clusterIP !== 'None';

/** The Service the IPAddress's parentRef names, when it names a Service that exists. */
function parentService(a: IPAddressRepairIPAddress, services: readonly Service[]): Service | undefined {
  const ref = a.spec?.parentRef;
  if (!ref || (ref.group ?? '') !== '' || ref.resource !== 'services') return undefined;
  return services.find((s) => s.metadata.namespace === (ref.namespace ?? '') && s.metadata.name === (ref.name ?? ''));
}

/** Whether the IPAddress refers to an existing Service that holds its IP. */
function heldByParent(a: IPAddressRepairIPAddress, services: readonly Service[]): boolean {
  const parent = parentService(a, services);
  return parent !== undefined && clusterIPsOf(parent).includes(a.metadata.name ?? '');
}

/** The allocator's labels: managed-by and the family of the name. */
const allocatorLabelled = (a: IPAddressRepairIPAddress) => managedByAllocator(a) && a.metadata.labels?.[FAMILY] === familyOf(a.metadata.name ?? '');

/**
 * Every ClusterIP inside a ServiceCIDR of a Service with a cluster IP, written canonically,
 * that no Service spells otherwise: syncService looks an IPAddress up by the canonical name
 * but syncIPAddress compares that name with clusterIPs as written, so an IP some Service
 * spells as 010.0.0.1 has its IPAddress created and deleted in turn (repair-ip.test.ts shows it).
 */
function coveredIPs(services: readonly Service[]): string[] {
  const respelled = new Set(services.flatMap(clusterIPsOf).flatMap((ip) => (ALIASES[ip] === undefined ? [] : [ALIASES[ip]])));
  return [...new Set(services.filter(hasClusterIP).flatMap(clusterIPsOf).filter((ip) => IN_RANGE.includes(ip) && !respelled.has(ip)))];
}

test.prop([viewArb])(
  'INV-REPAIRIP-ORPHAN: after a pass, no IPAddress of the allocator older than the grace period refers to a Service that does not exist or does not hold its IP',
  (v) => {
    const result = pass(viewOf(v));
    for (const a of result.ipAddresses) {
      if (!managedByAllocator(a) || ageOf(a) <= GRACE_MS) continue;
      expect(heldByParent(a, v.services), `IPAddress ${a.metadata.name} survives the pass`).toBe(true);
    }
  },
);

test.prop([viewArb])(
  'INV-REPAIRIP-COVERED: every in-range ClusterIP of a Service has its IPAddress, referring to a Service holding it, after two passes; after one unless its IPAddress named another existing Service that does not hold it',
  (v) => {
    const first = pass(viewOf(v));
    const byName = (list: readonly IPAddressRepairIPAddress[], ip: string) => list.find((a) => a.metadata.name === ip);
    for (const ip of coveredIPs(v.services)) {
      const before = byName(v.ipAddresses, ip);
      // upstream's syncService keeps such an IPAddress, and syncIPAddress then deletes it
      const leftToIPLoop =
        before !== undefined && allocatorLabelled(before) && parentService(before, v.services) !== undefined && !heldByParent(before, v.services);
      const after = byName(first.ipAddresses, ip);
      if (leftToIPLoop) expect(after, `${ip} after one pass`).toBeUndefined();
      else expect(after !== undefined && heldByParent(after, v.services), `${ip} after one pass`).toBe(true);
    }
    const second = pass(viewOf({ services: v.services, ipAddresses: [...first.ipAddresses] }));
    for (const ip of coveredIPs(v.services)) {
      const after = byName(second.ipAddresses, ip);
      expect(after !== undefined && heldByParent(after, v.services), `${ip} after two passes`).toBe(true);
    }
  },
);

/** A consistent cluster: every in-range IP held by at most one Service, each with its IPAddress, and IPAddresses of other controllers. */
const consistentArb = fc
  .record({
    owners: fc.array(fc.option(fc.integer({ min: 0, max: 7 }), { nil: undefined }), { minLength: IN_RANGE.length, maxLength: IN_RANGE.length }),
    ages: fc.array(fc.integer({ min: 0, max: 600 }), { minLength: IN_RANGE.length, maxLength: IN_RANGE.length }),
    headless: fc.boolean(),
    foreign: fc.subarray(OUT_OF_RANGE),
  })
  .map(({ owners, ages, headless, foreign }) => {
    const keys = NAMESPACES.flatMap((ns) => NAMES.map((name) => [ns, name] as const));
    const held = new Map<number, string[]>();
    owners.forEach((owner, i) => {
      const ip = IN_RANGE[i];
      if (owner !== undefined && ip !== undefined) held.set(owner, [...(held.get(owner) ?? []), ip]);
    });
    const services: Service[] = [];
    const ipAddresses: IPAddress[] = [];
    for (const [owner, ips] of held) {
      const [ns = 'bar', name = 'a'] = keys[owner] ?? [];
      services.push(service(ns, name, ips));
      for (const ip of ips) ipAddresses.push(allocated(ip, ns, name, (ages[IN_RANGE.indexOf(ip)] ?? 0) * 1000));
    }
    if (headless) services.push({ ...service('bar', 'headless', ['None']), spec: { clusterIP: 'None', clusterIPs: ['None'] } });
    for (const ip of foreign) {
      ipAddresses.push({
        apiVersion: 'networking.k8s.io/v1',
        kind: 'IPAddress',
        metadata: { name: ip, labels: { [FAMILY]: familyOf(ip), [MANAGED_BY]: 'gateway-controller' } },
        spec: { parentRef: { group: 'gateway.networking.k8s.io', resource: 'gateways', namespace: 'bar', name: 'gw' } },
      });
    }
    return { services, ipAddresses };
  });

test.prop([consistentArb])('INV-REPAIRIP-FIXPOINT: a pass over a consistent view writes nothing, requeues nothing and emits nothing', (v) => {
  const view = viewOf(v);
  const copy = structuredClone(view);
  const result = pass(view);
  expect(result.writes).toEqual([]);
  expect(result.requeues).toEqual([]);
  expect(result.events).toEqual([]);
  expect(result.ipAddresses).toEqual(view.ipAddresses);
  expect(view).toEqual(copy);
});

test.prop([viewArb])(
  'INV-REPAIRIP-KEYWISE: the pass is syncService for each Service key then syncIPAddress for each IPAddress of the allocator, each seeing the writes before it; its input is untouched',
  (v) => {
    const view = viewOf(v);
    const copy = structuredClone(view);
    const whole = pass(view);
    expect(view).toEqual(copy);

    let ipAddresses: IPAddressRepairIPAddress[] = [...view.ipAddresses];
    const writes: unknown[] = [];
    const requeues: unknown[] = [];
    const events: unknown[] = [];
    const listersNow = () => {
      const l = ipAddressRepairListers({ ...view, ipAddresses });
      if (!l.ok) throw new Error(l.error.message);
      return l.value;
    };
    const take = (r: ReturnType<typeof syncIPAddress>) => {
      if (!r.ok) throw new Error(r.error.message);
      ipAddresses = applyIPAddressWrites(ipAddresses, r.value.writes);
      writes.push(...r.value.writes);
      requeues.push(...r.value.requeues);
      events.push(...r.value.events);
    };
    for (const s of view.services) take(syncServiceIPAddresses(listersNow(), `${s.metadata.namespace}/${s.metadata.name}`));
    for (const name of ipAddresses.filter(managedByAllocator).map((a) => a.metadata.name ?? '')) take(syncIPAddress(listersNow(), name, NOW));
    expect({ writes, requeues, events, ipAddresses }).toEqual(whole);
  },
);

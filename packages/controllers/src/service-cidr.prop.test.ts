// Properties of the ServiceCIDR controller over random sets of overlapping ServiceCIDRs (some
// being deleted, some already marked) and IPAddresses, run key by key to a fixpoint with the
// clock moved to each requeue (INV-SVCCIDR-ORPHAN, INV-SVCCIDR-READY, INV-SVCCIDR-RELEASE,
// INV-SVCCIDR-KEYS). Rows in docs/invariants.md. The oracle of "held" is written here from
// the rule upstream states (pkg/api/servicecidr/servicecidr.go PrefixContainsIP: inside the
// prefix, not its network address, not its IPv4 broadcast address), not from the controller.
import { fc, test } from '@fast-check/vitest';
import { cidrContains, cidrSize, parseCIDRSloppy, parseIPSloppy, type IPAddress, type ServiceCIDR } from '@kubesvc/api-types';
import { expect } from 'vitest';
import {
  SERVICE_CIDR_DELETION_GRACE_PERIOD_MS,
  applyServiceCIDRAction,
  canDeleteServiceCIDR,
  serviceCIDRController,
  type ServiceCIDRAction,
  type ServiceCIDRView,
} from './service-cidr-controller.js';

const FINALIZER = 'networking.k8s.io/service-cidr-finalizer';
const NOW = Date.UTC(2025, 0, 2, 3, 4, 5);
const NAMES = ['a', 'b', 'c', 'd'] as const;
const V4 = ['10.0.0.0/24', '10.0.0.0/16', '10.0.0.0/28', '10.0.1.0/24', '10.0.0.128/25'] as const;
const V6 = ['fd00::/64', 'fd00::/112', 'fd00:1::/64', 'fd00::/48'] as const;
const IPS = ['10.0.0.1', '10.0.0.5', '10.0.0.20', '10.0.0.129', '10.0.0.255', '10.0.0.0', '10.0.1.7', 'fd00::1', 'fd00::1:0', 'fd00:1::9', 'fd00::'] as const;

const rfc3339 = (ms: number): string => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

const cidrArb = fc.record({
  cidrs: fc.oneof(
    fc.constantFrom(...V4).map((a) => [a]),
    fc.constantFrom(...V6).map((a) => [a]),
    fc.tuple(fc.constantFrom(...V4), fc.constantFrom(...V6)).map(([a, b]) => [a, b]),
    fc.tuple(fc.constantFrom(...V6), fc.constantFrom(...V4)).map(([a, b]) => [a, b]),
  ),
  deletedAgoMs: fc.option(fc.integer({ min: 0, max: 30_000 }), { nil: undefined }),
  finalizer: fc.boolean(),
  ready: fc.constantFrom(undefined, 'True', 'False', 'Unknown'),
});

const ipArb = fc.record({ name: fc.constantFrom(...IPS), managed: fc.boolean(), labelled: fc.boolean() });

const clusterArb = fc.record({
  cidrs: fc.uniqueArray(fc.tuple(fc.constantFrom(...NAMES), cidrArb), { minLength: 1, maxLength: 4, selector: ([n]) => n }),
  ips: fc.uniqueArray(ipArb, { maxLength: 6, selector: (ip) => ip.name }),
});

type Cluster = typeof clusterArb extends fc.Arbitrary<infer T> ? T : never;

function build(cluster: Cluster): { serviceCIDRs: ServiceCIDR[]; ipAddresses: IPAddress[] } {
  const serviceCIDRs = cluster.cidrs.map(([name, c]): ServiceCIDR => {
    const metadata: ServiceCIDR['metadata'] = { name };
    // A ServiceCIDR being deleted carries a finalizer, or the store would have removed it.
    if (c.deletedAgoMs !== undefined) {
      metadata.deletionTimestamp = rfc3339(NOW - c.deletedAgoMs);
      metadata.finalizers = c.finalizer ? [FINALIZER] : ['example.com/other'];
    } else if (c.finalizer) {
      metadata.finalizers = [FINALIZER];
    }
    const status = c.ready === undefined ? {} : { status: { conditions: [{ type: 'Ready', status: c.ready, reason: '', message: 'm', lastTransitionTime: rfc3339(NOW - 60_000) }] } };
    return { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', metadata, spec: { cidrs: c.cidrs }, ...status };
  });
  const ipAddresses = cluster.ips.map((ip): IPAddress => {
    const labels: Record<string, string> = {};
    if (ip.labelled) labels['ipaddress.kubernetes.io/ip-family'] = ip.name.includes(':') ? 'IPv6' : 'IPv4';
    if (ip.managed) labels['ipaddress.kubernetes.io/managed-by'] = 'ipallocator.k8s.io';
    return { apiVersion: 'networking.k8s.io/v1', kind: 'IPAddress', metadata: { name: ip.name, labels } };
  });
  return { serviceCIDRs, ipAddresses };
}

/** The oracle: an entry of the ServiceCIDR holds the IP (inside, not network, not IPv4 broadcast). */
function holds(cidr: ServiceCIDR, ipText: string): boolean {
  const ip = parseIPSloppy(ipText);
  if (!ip.ok) return false;
  return (cidr.spec?.cidrs ?? []).some((text) => {
    const parsed = parseCIDRSloppy(text);
    if (!parsed.ok) return false;
    const block = parsed.value.cidr;
    if (!cidrContains(block, ip.value)) return false;
    const offset = ip.value.value - block.network.value;
    return offset !== 0n && (ip.value.family === 6 || offset !== cidrSize(block) - 1n);
  });
}

/** IPAddresses the allocator made (both labels) that `cidr` holds and no other ServiceCIDR in the view holds. */
function orphansIfDeleted(cidr: ServiceCIDR, view: ServiceCIDRView): string[] {
  return view.ipAddresses
    .filter((ip) => ip.metadata.labels?.['ipaddress.kubernetes.io/managed-by'] === 'ipallocator.k8s.io' && ip.metadata.labels['ipaddress.kubernetes.io/ip-family'] !== undefined)
    .map((ip) => ip.metadata.name ?? '')
    .filter((ip) => holds(cidr, ip) && !view.serviceCIDRs.some((other) => other.metadata.name !== cidr.metadata.name && holds(other, ip)));
}

const deleting = (c: ServiceCIDR): boolean => c.metadata.deletionTimestamp != null;
const hasOurFinalizer = (c: ServiceCIDR): boolean => (c.metadata.finalizers ?? []).includes(FINALIZER);

/** Applies the writes; a ServiceCIDR being deleted whose last finalizer goes is removed, as the store does. */
function applyAll(view: ServiceCIDRView, actions: readonly ServiceCIDRAction[]): ServiceCIDRView {
  let serviceCIDRs = [...view.serviceCIDRs];
  for (const action of actions) {
    if (action.kind === 'requeue-after') continue;
    serviceCIDRs = serviceCIDRs.flatMap((c) => {
      if (c.metadata.name !== action.name) return [c];
      const next = applyServiceCIDRAction(c, action);
      return deleting(next) && (next.metadata.finalizers ?? []).length === 0 ? [] : [next];
    });
  }
  return { ...view, serviceCIDRs };
}

/** Every key, again and again, the clock moved to the earliest requeue when nothing else is left. */
function runToFixpoint(start: ServiceCIDRView, check: (key: string, view: ServiceCIDRView, now: number, actions: readonly ServiceCIDRAction[]) => void): ServiceCIDRView {
  let view = start;
  let now = NOW;
  for (let round = 0; round < 20; round++) {
    let wrote = false;
    let wakeAt: number | undefined;
    for (const key of NAMES) {
      const actions = serviceCIDRController.reconcile(key, view, now);
      check(key, view, now, actions);
      for (const a of actions) if (a.kind === 'requeue-after') wakeAt = Math.min(wakeAt ?? Infinity, now + a.afterMs);
      if (actions.some((a) => a.kind !== 'requeue-after')) wrote = true;
      view = applyAll(view, actions);
    }
    if (!wrote && wakeAt === undefined) return view;
    if (!wrote && wakeAt !== undefined) now = wakeAt;
  }
  throw new Error('no fixpoint after 20 rounds');
}

test.prop([clusterArb])(
  'INV-SVCCIDR-ORPHAN: a ServiceCIDR being deleted that alone holds an IPAddress the allocator made never loses its finalizer; it is marked Ready=False, Terminating',
  (cluster) => {
    const end = runToFixpoint(build(cluster), (key, view, _now, actions) => {
      const cidr = view.serviceCIDRs.find((c) => c.metadata.name === key);
      if (cidr === undefined || !deleting(cidr) || orphansIfDeleted(cidr, view).length === 0) return;
      expect(actions.filter((a) => a.kind === 'remove-finalizer')).toEqual([]);
    });
    for (const cidr of end.serviceCIDRs) {
      if (!deleting(cidr) || !hasOurFinalizer(cidr)) continue;
      if (orphansIfDeleted(cidr, end).length === 0) continue;
      const ready = cidr.status?.conditions?.find((c) => c.type === 'Ready');
      expect(ready).toMatchObject({ status: 'False', reason: 'Terminating' });
    }
  },
);

test.prop([clusterArb])(
  'INV-SVCCIDR-READY: a ServiceCIDR not being deleted gets the finalizer and Ready=True, and a second reconcile writes nothing',
  (cluster) => {
    const view = build(cluster);
    for (const cidr of view.serviceCIDRs) {
      if (deleting(cidr)) continue;
      const key = cidr.metadata.name ?? '';
      const after = applyAll(view, serviceCIDRController.reconcile(key, view, NOW));
      const written = after.serviceCIDRs.find((c) => c.metadata.name === key);
      expect(written?.metadata.finalizers).toContain(FINALIZER);
      expect(written?.status?.conditions?.filter((c) => c.type === 'Ready')).toEqual([
        expect.objectContaining({ status: 'True', reason: '', message: 'Kubernetes Service CIDR is ready' }),
      ]);
      expect(serviceCIDRController.reconcile(key, after, NOW + 60_000)).toEqual([]);
    }
  },
);

test.prop([clusterArb, fc.integer({ min: 0, max: 40_000 })])(
  'INV-SVCCIDR-RELEASE: a ServiceCIDR being deleted that would orphan nothing loses its finalizer once the grace period from its deletionTimestamp has passed, and is requeued for the rest of it before',
  (cluster, laterMs) => {
    const view = build(cluster);
    const now = NOW + laterMs;
    for (const cidr of view.serviceCIDRs) {
      if (!deleting(cidr)) continue;
      // The controller's answer is the oracle's.
      expect(canDeleteServiceCIDR(cidr, view)).toBe(orphansIfDeleted(cidr, view).length === 0);
      if (!canDeleteServiceCIDR(cidr, view)) continue;
      const key = cidr.metadata.name ?? '';
      const left = Date.parse(cidr.metadata.deletionTimestamp ?? '') + SERVICE_CIDR_DELETION_GRACE_PERIOD_MS - now;
      const expected: ServiceCIDRAction[] =
        left > 0
          ? [{ kind: 'requeue-after', key, afterMs: left }]
          : hasOurFinalizer(cidr)
            ? [{ kind: 'remove-finalizer', name: key, finalizer: FINALIZER }]
            : [];
      expect(serviceCIDRController.reconcile(key, view, now)).toEqual(expected);
    }
  },
);

test.prop([clusterArb, fc.constantFrom(...IPS), fc.boolean()])(
  'INV-SVCCIDR-KEYS: adding or deleting an IPAddress queues every ServiceCIDR whose deletion it blocks or unblocks, and adding a ServiceCIDR queues every one it unblocks',
  (cluster, ipName, addCIDR) => {
    const full = build(cluster);
    const ip = full.ipAddresses.find((i) => i.metadata.name === ipName) ?? {
      apiVersion: 'networking.k8s.io/v1' as const,
      kind: 'IPAddress' as const,
      metadata: { name: ipName, labels: { 'ipaddress.kubernetes.io/ip-family': ipName.includes(':') ? 'IPv6' : 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' } },
    };
    const without = { ...full, ipAddresses: full.ipAddresses.filter((i) => i.metadata.name !== ipName) };
    const withIt = { ...full, ipAddresses: [...without.ipAddresses, ip] };
    const flipped = (a: ServiceCIDRView, b: ServiceCIDRView): string[] =>
      b.serviceCIDRs.filter((c) => deleting(c) && canDeleteServiceCIDR(c, a) !== canDeleteServiceCIDR(c, b)).map((c) => c.metadata.name ?? '');
    const added = serviceCIDRController.keysFor({ resource: 'ipaddresses', type: 'ADDED', object: ip }, withIt);
    for (const name of flipped(without, withIt)) expect(added).toContain(name);
    const deleted = serviceCIDRController.keysFor({ resource: 'ipaddresses', type: 'DELETED', object: ip }, without);
    for (const name of flipped(withIt, without)) expect(deleted).toContain(name);
    if (addCIDR) {
      const [last, ...rest] = [...full.serviceCIDRs].reverse();
      if (last === undefined) return;
      const before = { ...full, serviceCIDRs: rest.reverse() };
      const keys = serviceCIDRController.keysFor({ resource: 'servicecidrs', type: 'ADDED', object: last }, full);
      expect(keys[0]).toBe(last.metadata.name);
      for (const name of flipped(before, full)) expect(keys).toContain(name);
    }
  },
);

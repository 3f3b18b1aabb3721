// The ServiceCIDR controller against upstream's unit tests, rewritten as vectors: each case's
// ServiceCIDRs, IPAddresses and the key synced, and the client actions upstream expects
// (a patch of the object is a finalizer write, a patch of status is the condition write),
// given here as the exact writes with their conditions and messages.
// upstream (v1.33): pkg/controller/servicecidrs/servicecidrs_controller_test.go
//           (TestControllerSync, TestController_canDeleteCIDR, TestController_ipToCidrs,
//           TestController_cidrToCidrs); messages and constants from servicecidrs_controller.go.
import { DEFAULT_SERVICE_CIDR_NAME, type IPAddress, type ServiceCIDR } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import {
  SERVICE_CIDR_CONTROLLER_NAME,
  applyServiceCIDRAction,
  canDeleteServiceCIDR,
  containingServiceCIDRs,
  overlappingServiceCIDRs,
  serviceCIDRController,
  type ServiceCIDRAction,
  type ServiceCIDRView,
} from './service-cidr-controller.js';

const FINALIZER = 'networking.k8s.io/service-cidr-finalizer';
const READY_MESSAGE = 'Kubernetes Service CIDR is ready';
const TERMINATING_MESSAGE = 'There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR';
/** 2025-01-02T03:04:05Z: the test's "now". */
const NOW = Date.UTC(2025, 0, 2, 3, 4, 5);
const NOW_TEXT = '2025-01-02T03:04:05Z';

function makeServiceCIDR(name: string, primary: string, secondary = ''): ServiceCIDR {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'ServiceCIDR',
    metadata: { name },
    spec: { cidrs: secondary === '' ? [primary] : [primary, secondary] },
  };
}

function makeIPAddress(name: string): IPAddress {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'IPAddress',
    metadata: {
      name,
      labels: { 'ipaddress.kubernetes.io/ip-family': name.includes(':') ? 'IPv6' : 'IPv4', 'ipaddress.kubernetes.io/managed-by': 'ipallocator.k8s.io' },
    },
  };
}

function deleting(cidr: ServiceCIDR, deletedAt: number): ServiceCIDR {
  const t = new Date(deletedAt).toISOString().replace('.000Z', 'Z');
  return { ...cidr, metadata: { ...cidr.metadata, finalizers: [FINALIZER], deletionTimestamp: t } };
}

function view(serviceCIDRs: readonly ServiceCIDR[], ipAddresses: readonly IPAddress[] = []): ServiceCIDRView {
  return { serviceCIDRs, ipAddresses };
}

// A ServiceCIDR just being deleted, and one deleted longer ago than the grace period.
const deletingServiceCIDR = deleting(makeServiceCIDR('deleting-cidr', '192.168.0.0/24', '2001:db2::/64'), NOW);
const deletedServiceCIDR = deleting(makeServiceCIDR('deleted-cidr', '192.168.0.0/24', '2001:db2::/64'), NOW - 10_000 - 1_000);

const addFinalizer = (name: string): ServiceCIDRAction => ({ kind: 'add-finalizer', name, finalizer: FINALIZER });
const removeFinalizer = (name: string): ServiceCIDRAction => ({ kind: 'remove-finalizer', name, finalizer: FINALIZER });
const ready = (name: string): ServiceCIDRAction => ({
  kind: 'update-status',
  name,
  condition: { type: 'Ready', status: 'True', reason: '', message: READY_MESSAGE, lastTransitionTime: NOW_TEXT },
  fieldManager: 'service-cidr-controller',
  eventOnFailure: {
    type: 'Warning',
    reason: 'KubernetesServiceCIDRError',
    message: 'The ServiceCIDR Status can not be set to Ready=True',
    component: 'service-cidr-controller',
    regarding: { apiVersion: 'networking.k8s.io/v1', kind: 'ServiceCIDR', name },
  },
});
const terminating = (name: string): ServiceCIDRAction => ({
  kind: 'update-status',
  name,
  condition: { type: 'Ready', status: 'False', reason: 'Terminating', message: TERMINATING_MESSAGE, lastTransitionTime: NOW_TEXT },
  fieldManager: 'service-cidr-controller',
});

describe('TestControllerSync', () => {
  const cases: readonly {
    name: string;
    cidrs?: readonly ServiceCIDR[];
    ips?: readonly IPAddress[];
    synced: string;
    actions: readonly ServiceCIDRAction[];
  }[] = [
    { name: 'no existing service CIDRs', synced: '', actions: [] },
    {
      name: 'default service CIDR must have finalizer',
      cidrs: [makeServiceCIDR(DEFAULT_SERVICE_CIDR_NAME, '192.168.0.0/24', '2001:db2::/64')],
      synced: DEFAULT_SERVICE_CIDR_NAME,
      actions: [addFinalizer('kubernetes'), ready('kubernetes')],
    },
    {
      name: 'service CIDR must have finalizer',
      cidrs: [makeServiceCIDR('no-finalizer', '192.168.0.0/24', '2001:db2::/64')],
      synced: 'no-finalizer',
      actions: [addFinalizer('no-finalizer'), ready('no-finalizer')],
    },
    {
      name: 'service CIDR being deleted must remove the finalizer',
      cidrs: [deletedServiceCIDR],
      synced: 'deleted-cidr',
      actions: [removeFinalizer('deleted-cidr')],
    },
    {
      // upstream's case expects no client action (with a TODO to assert the requeue).
      name: 'service CIDR being deleted but within the grace period must be requeued not remove the finalizer',
      cidrs: [deletingServiceCIDR],
      synced: 'deleting-cidr',
      actions: [{ kind: 'requeue-after', key: 'deleting-cidr', afterMs: 10_000 }],
    },
    {
      name: 'service CIDR being deleted with IPv4 addresses should update the status',
      cidrs: [deletedServiceCIDR],
      ips: [makeIPAddress('192.168.0.1')],
      synced: 'deleted-cidr',
      actions: [terminating('deleted-cidr')],
    },
    {
      name: 'service CIDR being deleted and overlapping same range and IPv4 addresses should remove the finalizer',
      cidrs: [deletedServiceCIDR, makeServiceCIDR('overlapping', '192.168.0.0/24', '2001:db2::/64')],
      ips: [makeIPAddress('192.168.0.1')],
      synced: 'deleted-cidr',
      actions: [removeFinalizer('deleted-cidr')],
    },
    {
      name: 'service CIDR being deleted and overlapping and IPv4 addresses should remove the finalizer',
      cidrs: [deletedServiceCIDR, makeServiceCIDR('overlapping', '192.168.0.0/16', '2001:db2::/64')],
      ips: [makeIPAddress('192.168.0.1')],
      synced: 'deleted-cidr',
      actions: [removeFinalizer('deleted-cidr')],
    },
    {
      name: 'service CIDR being deleted and not overlapping and IPv4 addresses should update the status',
      cidrs: [deletedServiceCIDR, makeServiceCIDR('overlapping', '192.168.255.0/26', '2001:db2::/64')],
      ips: [makeIPAddress('192.168.0.1')],
      synced: 'deleted-cidr',
      actions: [terminating('deleted-cidr')],
    },
    {
      name: 'service CIDR being deleted with IPv6 addresses should update the status',
      cidrs: [deletedServiceCIDR],
      ips: [makeIPAddress('2001:db2::1')],
      synced: 'deleted-cidr',
      actions: [terminating('deleted-cidr')],
    },
    {
      name: 'service CIDR being deleted and overlapping same range and IPv6 addresses should remove the finalizer',
      cidrs: [deletedServiceCIDR, makeServiceCIDR('overlapping', '192.168.0.0/24', '2001:db2::/64')],
      ips: [makeIPAddress('2001:db2::1')],
      synced: 'deleted-cidr',
      actions: [removeFinalizer('deleted-cidr')],
    },
    {
      name: 'service CIDR being deleted and overlapping and IPv6 addresses should remove the finalizer',
      cidrs: [deletedServiceCIDR, makeServiceCIDR('overlapping', '192.168.0.0/16', '2001:db2::/48')],
      ips: [makeIPAddress('2001:db2::1')],
      synced: 'deleted-cidr',
      actions: [removeFinalizer('deleted-cidr')],
    },
    {
      name: 'service CIDR being deleted and not overlapping and IPv6 addresses should update the status',
      cidrs: [deletedServiceCIDR, makeServiceCIDR('overlapping', '192.168.255.0/26', '2001:db2:a:b::/64')],
      ips: [makeIPAddress('2001:db2::1')],
      synced: 'deleted-cidr',
      actions: [terminating('deleted-cidr')],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(serviceCIDRController.reconcile(c.synced, view(c.cidrs ?? [], c.ips ?? []), NOW)).toEqual(c.actions);
    });
  }

  it('waits out what is left of the grace period, to the millisecond', () => {
    expect(serviceCIDRController.reconcile('deleting-cidr', view([deletingServiceCIDR]), NOW + 9_999)).toEqual([
      { kind: 'requeue-after', key: 'deleting-cidr', afterMs: 1 },
    ]);
    expect(serviceCIDRController.reconcile('deleting-cidr', view([deletingServiceCIDR]), NOW + 10_000)).toEqual([removeFinalizer('deleting-cidr')]);
  });

  it('checks the IPAddresses before the grace period: a blocked ServiceCIDR is marked at once', () => {
    expect(serviceCIDRController.reconcile('deleting-cidr', view([deletingServiceCIDR], [makeIPAddress('192.168.0.1')]), NOW)).toEqual([
      terminating('deleting-cidr'),
    ]);
  });

  it('has nothing to remove from a ServiceCIDR being deleted without its finalizer (removeServiceCIDRFinalizerIfNeeded)', () => {
    const other = { ...deletedServiceCIDR, metadata: { ...deletedServiceCIDR.metadata, finalizers: ['example.com/other'] } };
    expect(serviceCIDRController.reconcile('deleted-cidr', view([other]), NOW)).toEqual([]);
  });

  it('writes only the condition when the finalizer is there (addServiceCIDRFinalizerIfNeeded)', () => {
    const withFinalizer = { ...makeServiceCIDR('a', '10.0.0.0/24'), metadata: { name: 'a', finalizers: [FINALIZER] } };
    expect(serviceCIDRController.reconcile('a', view([withFinalizer]), NOW)).toEqual([ready('a')]);
  });
});

describe('the status write compares first (updateConditionIfNeeded; docs/deviations.md)', () => {
  const stored = (status: string, reason: string, message: string): ServiceCIDR => ({
    ...makeServiceCIDR('a', '10.0.0.0/24'),
    metadata: { name: 'a', finalizers: [FINALIZER] },
    status: { conditions: [{ type: 'Ready', status, reason, message, lastTransitionTime: '2024-01-01T00:00:00Z' }] },
  });

  it('writes nothing when Ready=True with the same reason and message is stored, whatever its time', () => {
    expect(serviceCIDRController.reconcile('a', view([stored('True', '', READY_MESSAGE)]), NOW)).toEqual([]);
  });

  it('writes when the status, the reason or the message differs', () => {
    expect(serviceCIDRController.reconcile('a', view([stored('False', '', READY_MESSAGE)]), NOW)).toEqual([ready('a')]);
    expect(serviceCIDRController.reconcile('a', view([stored('True', 'Other', READY_MESSAGE)]), NOW)).toEqual([ready('a')]);
    expect(serviceCIDRController.reconcile('a', view([stored('True', '', 'other')]), NOW)).toEqual([ready('a')]);
  });

  it('does not write Terminating twice', () => {
    const blocked = { ...deletedServiceCIDR, status: { conditions: [{ type: 'Ready', status: 'False', reason: 'Terminating', message: TERMINATING_MESSAGE, lastTransitionTime: '2024-01-01T00:00:00Z' }] } };
    expect(serviceCIDRController.reconcile('deleted-cidr', view([blocked], [makeIPAddress('192.168.0.1')]), NOW)).toEqual([]);
  });
});

describe('TestController_canDeleteCIDR', () => {
  const def = (): ServiceCIDR => makeServiceCIDR(DEFAULT_SERVICE_CIDR_NAME, '192.168.0.0/24', '2001:db2::/64');
  const cases: readonly { name: string; cidrs?: readonly ServiceCIDR[]; ips?: readonly IPAddress[]; want: boolean }[] = [
    { name: 'empty', want: true },
    { name: 'CIDR and no IPs', cidrs: [def()], want: true },
    { name: 'CIDR with IPs', cidrs: [def()], ips: [makeIPAddress('192.168.0.24')], want: false },
    { name: 'CIDR without IPs', cidrs: [def()], ips: [makeIPAddress('192.168.1.24')], want: true },
    { name: 'CIDR with IPv4 address referencing the subnet address', cidrs: [def()], ips: [makeIPAddress('192.168.0.0')], want: true },
    { name: 'CIDR with IPv4 address referencing the broadcast address', cidrs: [def()], ips: [makeIPAddress('192.168.0.255')], want: true },
    { name: 'CIDR with IPv6 address referencing the broadcast address', cidrs: [def()], ips: [makeIPAddress('2001:0db2::ffff:ffff:ffff:ffff')], want: false },
    {
      name: 'CIDR with same range overlapping and IPs',
      cidrs: [def(), makeServiceCIDR('overlapping', '192.168.0.0/24', '2001:db2::/64')],
      ips: [makeIPAddress('192.168.0.23')],
      want: true,
    },
    {
      name: 'CIDR with smaller range overlapping and IPs',
      cidrs: [def(), makeServiceCIDR('overlapping', '192.168.0.0/26', '2001:db2::/64')],
      ips: [makeIPAddress('192.168.0.23')],
      want: true,
    },
    {
      name: 'CIDR with smaller range overlapping but IPs orphan',
      cidrs: [def(), makeServiceCIDR('overlapping', '192.168.0.0/28', '2001:db2::/64')],
      ips: [makeIPAddress('192.168.0.23')],
      want: false,
    },
    {
      name: 'CIDR with larger range overlapping and IPs',
      cidrs: [def(), makeServiceCIDR('overlapping', '192.168.0.0/16', '2001:db2::/64')],
      ips: [makeIPAddress('192.168.0.23')],
      want: true,
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      expect(canDeleteServiceCIDR(def(), view(c.cidrs ?? [], c.ips ?? []))).toBe(c.want);
    });
  }

  it('reads only the IPAddresses the allocator manages, listed by the family label of each entry', () => {
    const ip = makeIPAddress('192.168.0.24');
    const foreign = { ...ip, metadata: { name: ip.metadata.name, labels: { ...ip.metadata.labels, 'ipaddress.kubernetes.io/managed-by': 'other' } } };
    const unlabelled: IPAddress = { ...ip, metadata: { name: '192.168.0.24' } };
    for (const other of [foreign, unlabelled]) expect(canDeleteServiceCIDR(def(), view([def()], [other]))).toBe(true);
    // The label only selects the list (one per entry of the ServiceCIDR); the name decides
    // who holds the IP, so an IPv4 name labelled IPv6 is found through the IPv6 entry.
    const wrongFamily = { ...ip, metadata: { name: ip.metadata.name, labels: { ...ip.metadata.labels, 'ipaddress.kubernetes.io/ip-family': 'IPv6' } } };
    expect(canDeleteServiceCIDR(def(), view([def()], [wrongFamily]))).toBe(false);
    const v4Only = makeServiceCIDR(DEFAULT_SERVICE_CIDR_NAME, '192.168.0.0/24');
    expect(canDeleteServiceCIDR(v4Only, view([v4Only], [wrongFamily]))).toBe(true);
  });

  it('lets two ServiceCIDRs being deleted over the same IPs go together, as upstream does (each sees the other)', () => {
    const a = deleting(makeServiceCIDR('a', '10.0.0.0/24'), NOW - 60_000);
    const b = deleting(makeServiceCIDR('b', '10.0.0.0/24'), NOW - 60_000);
    const v = view([a, b], [makeIPAddress('10.0.0.7')]);
    expect(serviceCIDRController.reconcile('a', v, NOW)).toEqual([removeFinalizer('a')]);
    expect(serviceCIDRController.reconcile('b', v, NOW)).toEqual([removeFinalizer('b')]);
  });
});

describe('TestController_ipToCidrs (keys of an IPAddress change)', () => {
  const three = (): ServiceCIDR[] => [
    makeServiceCIDR(DEFAULT_SERVICE_CIDR_NAME, '192.168.0.0/24', '2001:db2::/64'),
    makeServiceCIDR('overlapping', '192.168.0.0/24', '2001:db2::/64'),
    makeServiceCIDR('overlapping2', '192.168.0.0/26', '2001:db2::/96'),
    makeServiceCIDR('unrelated', '10.0.0.0/24'),
    makeServiceCIDR('unrelated2', '10.0.0.0/16'),
  ];
  const cases: readonly { name: string; cidrs?: readonly ServiceCIDR[]; ip: string; want: readonly string[] }[] = [
    { name: 'empty', ip: '192.168.0.23', want: [] },
    {
      name: 'one CIDR',
      cidrs: [makeServiceCIDR(DEFAULT_SERVICE_CIDR_NAME, '192.168.0.0/24', '2001:db2::/64'), makeServiceCIDR('unrelated', '10.0.0.0/24'), makeServiceCIDR('unrelated2', '10.0.0.0/16')],
      ip: '192.168.0.23',
      want: ['kubernetes'],
    },
    {
      name: 'two equal CIDR',
      cidrs: [
        makeServiceCIDR(DEFAULT_SERVICE_CIDR_NAME, '192.168.0.0/24', '2001:db2::/64'),
        makeServiceCIDR('overlapping', '192.168.0.0/24', '2001:db2::/96'),
        makeServiceCIDR('unrelated', '10.0.0.0/24'),
        makeServiceCIDR('unrelated2', '10.0.0.0/16'),
      ],
      ip: '192.168.0.23',
      want: ['kubernetes', 'overlapping'],
    },
    { name: 'three CIDR - two same and one larger', cidrs: three(), ip: '192.168.0.23', want: ['kubernetes', 'overlapping', 'overlapping2'] },
    { name: 'three CIDR - two same and one larger - IPv4 subnet address', cidrs: three(), ip: '192.168.0.0', want: [] },
    // the broadcast address of 192.168.0.0/26
    { name: 'three CIDR - two same and one larger - IPv4 broadcast address', cidrs: three(), ip: '192.168.0.63', want: ['kubernetes', 'overlapping'] },
    { name: 'three CIDR - two same and one larger - IPv6 subnet address', cidrs: three(), ip: '2001:db2::', want: [] },
    { name: 'three CIDR - two same and one larger - IPv6 broadcast address', cidrs: three(), ip: '2001:0db2::ffff:ffff:ffff:ffff', want: ['kubernetes', 'overlapping'] },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = view(c.cidrs ?? []);
      expect(containingServiceCIDRs(makeIPAddress(c.ip), v)).toEqual(c.want);
      for (const type of ['ADDED', 'DELETED'] as const) {
        expect(serviceCIDRController.keysFor({ resource: 'ipaddresses', type, object: makeIPAddress(c.ip) }, v)).toEqual(c.want);
      }
    });
  }

  it('queues nothing for an IPAddress update, or for one the allocator does not manage', () => {
    const v = view(three());
    const ip = makeIPAddress('192.168.0.23');
    expect(serviceCIDRController.keysFor({ resource: 'ipaddresses', type: 'MODIFIED', object: ip, old: ip }, v)).toEqual([]);
    const foreign: IPAddress = { ...ip, metadata: { name: '192.168.0.23', labels: { 'ipaddress.kubernetes.io/managed-by': 'someone-else' } } };
    expect(serviceCIDRController.keysFor({ resource: 'ipaddresses', type: 'ADDED', object: foreign }, v)).toEqual([]);
  });
});

describe('TestController_cidrToCidrs (keys of a ServiceCIDR change)', () => {
  const cidr = (): ServiceCIDR => makeServiceCIDR(DEFAULT_SERVICE_CIDR_NAME, '192.168.0.0/24', '2001:db2::/64');
  const cases: readonly { name: string; cidrs?: readonly ServiceCIDR[]; want: readonly string[] }[] = [
    { name: 'empty', want: [] },
    { name: 'one CIDR', cidrs: [cidr(), makeServiceCIDR('unrelated', '10.0.0.0/24'), makeServiceCIDR('unrelated2', '10.0.0.0/16')], want: ['kubernetes'] },
    {
      name: 'two equal CIDR',
      cidrs: [cidr(), makeServiceCIDR('overlapping', '192.168.0.0/24', '2001:db2::/96'), makeServiceCIDR('unrelated', '10.0.0.0/24'), makeServiceCIDR('unrelated2', '10.0.0.0/16')],
      want: ['kubernetes', 'overlapping'],
    },
    {
      name: 'three CIDR - two same and one larger',
      cidrs: [
        cidr(),
        makeServiceCIDR('overlapping', '192.168.0.0/24', '2001:db2::/64'),
        makeServiceCIDR('overlapping2', '192.168.0.0/26', '2001:db2::/96'),
        makeServiceCIDR('unrelated', '10.0.0.0/24'),
        makeServiceCIDR('unrelated2', '10.0.0.0/16'),
      ],
      want: ['kubernetes', 'overlapping', 'overlapping2'],
    },
  ];
  for (const c of cases) {
    it(c.name, () => {
      const v = view(c.cidrs ?? []);
      expect(overlappingServiceCIDRs(cidr(), v)).toEqual(c.want);
      // addServiceCIDR queues the ServiceCIDR itself, then those it overlaps.
      expect(serviceCIDRController.keysFor({ resource: 'servicecidrs', type: 'ADDED', object: cidr() }, v)).toEqual([
        'kubernetes',
        ...c.want.filter((n) => n !== 'kubernetes'),
      ]);
    });
  }

  it('queues only the ServiceCIDR itself on an update or a delete', () => {
    const v = view([cidr(), makeServiceCIDR('overlapping', '192.168.0.0/24')]);
    expect(serviceCIDRController.keysFor({ resource: 'servicecidrs', type: 'MODIFIED', object: cidr(), old: cidr() }, v)).toEqual(['kubernetes']);
    expect(serviceCIDRController.keysFor({ resource: 'servicecidrs', type: 'DELETED', object: cidr() }, v)).toEqual(['kubernetes']);
  });
});

describe('the controller and its writes', () => {
  it('is named and watches as upstream', () => {
    expect(serviceCIDRController.name).toBe(SERVICE_CIDR_CONTROLLER_NAME);
    expect(SERVICE_CIDR_CONTROLLER_NAME).toBe('service-cidr-controller');
    expect(serviceCIDRController.watches).toEqual(['servicecidrs', 'ipaddresses']);
  });

  it('applies a finalizer write as a merge into the list, and its removal as a delete from it', () => {
    const a: ServiceCIDR = { ...makeServiceCIDR('a', '10.0.0.0/24'), metadata: { name: 'a', finalizers: ['example.com/x'] } };
    const added = applyServiceCIDRAction(a, addFinalizer('a'));
    expect(added.metadata.finalizers).toEqual(['example.com/x', FINALIZER]);
    expect(applyServiceCIDRAction(added, addFinalizer('a'))).toBe(added);
    expect(applyServiceCIDRAction(added, removeFinalizer('a')).metadata.finalizers).toEqual(['example.com/x']);
    const only = applyServiceCIDRAction(makeServiceCIDR('b', '10.0.0.0/24'), addFinalizer('b'));
    expect(applyServiceCIDRAction(only, removeFinalizer('b')).metadata).toEqual({ name: 'b' });
    // The input is left as it was.
    expect(a.metadata.finalizers).toEqual(['example.com/x']);
  });

  it('applies a condition write in place of the condition of its type, keeping the others', () => {
    const other = { type: 'Other', status: 'True', reason: 'R', message: 'm', lastTransitionTime: '2024-01-01T00:00:00Z' };
    const old = { type: 'Ready', status: 'False', reason: 'Terminating', message: 'x', lastTransitionTime: '2024-01-01T00:00:00Z' };
    const a: ServiceCIDR = { ...makeServiceCIDR('a', '10.0.0.0/24'), status: { conditions: [old, other] } };
    const written = ready('a');
    if (written.kind !== 'update-status') throw new Error('unreachable');
    expect(applyServiceCIDRAction(a, written).status?.conditions).toEqual([written.condition, other]);
    expect(applyServiceCIDRAction(makeServiceCIDR('b', '10.0.0.0/24'), written).status?.conditions).toEqual([written.condition]);
  });
});

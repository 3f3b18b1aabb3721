// upstream's lease table (pkg/controlplane/reconcilers/lease_test.go, v1.21–v1.26:
// TestLeaseEndpointReconciler, TestLeaseRemoveEndpoints), rewritten. Upstream's fake leases
// never expire, so every key of a case is a live lease here; upstream checks the Endpoints the
// cluster ends with and that exactly our own lease was refreshed.
import type { EndpointPort, Endpoints } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { newEndpointReconciler, reconcileEndpoints, removeEndpoints, stopReconciling } from './endpoint-reconciler.js';
import { listLeases, reconcileLease, removeLease, updateLease } from './lease.js';
import type { Leases, ReconcileOutcome } from './types.js';

const NOW = 1_000;
const TTL = 15_000;

function live(ips: readonly string[]): Leases {
  return new Map(ips.map((ip) => [ip, { ip, expiresAt: NOW + 5_000 }]));
}

function endpoints(name: string, ips: readonly string[], ports: readonly EndpointPort[], skipMirror = true): Endpoints {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, namespace: 'default', ...(skipMirror ? { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } : {}) },
    subsets: [{ addresses: ips.map((ip) => ({ ip })), ports: [...ports] }],
  };
}

/** The Endpoints object the outcome writes, if any. */
function written(o: ReconcileOutcome): Endpoints | undefined {
  const w = o.writes.find((x) => x.kind === 'create-endpoints' || x.kind === 'update-endpoints');
  return w?.kind === 'create-endpoints' || w?.kind === 'update-endpoints' ? w.endpoints : undefined;
}

const foo: EndpointPort[] = [{ name: 'foo', port: 8080, protocol: 'TCP' }];
const two: EndpointPort[] = [...foo, { name: 'bar', port: 1000, protocol: 'TCP' }];
const three: EndpointPort[] = [...two, { name: 'baz', port: 1010, protocol: 'TCP' }];
const five = ['1.2.3.4', '4.3.2.1', '4.3.2.2', '4.3.2.3', '4.3.2.4'];

interface Case {
  readonly name: string;
  readonly ip: string;
  readonly ports: readonly EndpointPort[];
  readonly keys?: readonly string[];
  readonly existing?: Endpoints;
  /** The Endpoints written; undefined: no Endpoints write. */
  readonly expect?: Endpoints;
}

const reconcileCases: readonly Case[] = [
  { name: 'no existing endpoints', ip: '1.2.3.4', ports: foo, expect: endpoints('foo', ['1.2.3.4'], foo) },
  { name: 'existing endpoints satisfy', ip: '1.2.3.4', ports: foo, existing: endpoints('foo', ['1.2.3.4'], foo) },
  { name: 'existing endpoints satisfy + refresh existing key', ip: '1.2.3.4', ports: foo, keys: ['1.2.3.4'], existing: endpoints('foo', ['1.2.3.4'], foo) },
  {
    name: 'existing endpoints satisfy but too many',
    ip: '1.2.3.4',
    ports: foo,
    existing: endpoints('foo', ['1.2.3.4', '4.3.2.1'], foo),
    expect: endpoints('foo', ['1.2.3.4'], foo),
  },
  {
    name: 'existing endpoints satisfy but too many + extra masters',
    ip: '1.2.3.4',
    ports: foo,
    keys: ['1.2.3.4', '4.3.2.2', '4.3.2.3', '4.3.2.4'],
    existing: endpoints('foo', five, foo),
    expect: endpoints('foo', ['1.2.3.4', '4.3.2.2', '4.3.2.3', '4.3.2.4'], foo),
  },
  {
    name: 'existing endpoints satisfy but too many + extra masters + delete first',
    ip: '4.3.2.4',
    ports: foo,
    keys: ['4.3.2.1', '4.3.2.2', '4.3.2.3', '4.3.2.4'],
    existing: endpoints('foo', five, foo),
    expect: endpoints('foo', ['4.3.2.1', '4.3.2.2', '4.3.2.3', '4.3.2.4'], foo),
  },
  {
    name: 'existing endpoints current IP missing',
    ip: '4.3.2.2',
    ports: foo,
    keys: ['4.3.2.1'],
    existing: endpoints('foo', ['4.3.2.1'], foo),
    expect: endpoints('foo', ['4.3.2.1', '4.3.2.2'], foo),
  },
  { name: 'existing endpoints wrong name', ip: '1.2.3.4', ports: foo, existing: endpoints('bar', ['1.2.3.4'], foo), expect: endpoints('foo', ['1.2.3.4'], foo) },
  { name: 'existing endpoints wrong IP', ip: '1.2.3.4', ports: foo, existing: endpoints('foo', ['4.3.2.1'], foo), expect: endpoints('foo', ['1.2.3.4'], foo) },
  {
    name: 'existing endpoints wrong port',
    ip: '1.2.3.4',
    ports: foo,
    existing: endpoints('foo', ['1.2.3.4'], [{ name: 'foo', port: 9090, protocol: 'TCP' }]),
    expect: endpoints('foo', ['1.2.3.4'], foo),
  },
  {
    name: 'existing endpoints wrong protocol',
    ip: '1.2.3.4',
    ports: foo,
    existing: endpoints('foo', ['1.2.3.4'], [{ name: 'foo', port: 8080, protocol: 'UDP' }]),
    expect: endpoints('foo', ['1.2.3.4'], foo),
  },
  {
    name: 'existing endpoints wrong port name',
    ip: '1.2.3.4',
    ports: [{ name: 'baz', port: 8080, protocol: 'TCP' }],
    existing: endpoints('foo', ['1.2.3.4'], foo),
    expect: endpoints('foo', ['1.2.3.4'], [{ name: 'baz', port: 8080, protocol: 'TCP' }]),
  },
  {
    name: 'existing endpoints without skip mirror label',
    ip: '1.2.3.4',
    ports: foo,
    existing: endpoints('foo', ['1.2.3.4'], foo, false),
    expect: endpoints('foo', ['1.2.3.4'], foo),
  },
  { name: 'existing endpoints extra service ports satisfy', ip: '1.2.3.4', ports: three, existing: endpoints('foo', ['1.2.3.4'], three) },
  {
    name: 'existing endpoints extra service ports missing port',
    ip: '1.2.3.4',
    ports: two,
    existing: endpoints('foo', ['1.2.3.4'], foo),
    expect: endpoints('foo', ['1.2.3.4'], two),
  },
];

const nonReconcileCases: readonly Case[] = [
  { name: 'existing endpoints extra service ports missing port no update', ip: '1.2.3.4', ports: two, existing: endpoints('foo', ['1.2.3.4'], foo) },
  {
    name: 'existing endpoints extra service ports, wrong ports, wrong IP',
    ip: '1.2.3.4',
    ports: two,
    existing: endpoints('foo', ['4.3.2.1'], foo),
    expect: endpoints('foo', ['1.2.3.4'], foo),
  },
  { name: 'no existing endpoints', ip: '1.2.3.4', ports: foo, expect: endpoints('foo', ['1.2.3.4'], foo) },
];

function reconcile(c: Case, reconcilePorts: boolean): ReconcileOutcome {
  const r = newEndpointReconciler('lease', { leaseTtlMs: TTL });
  const step = reconcileEndpoints(
    r,
    { serviceName: 'foo', ip: c.ip, endpointPorts: c.ports, reconcilePorts, observed: { endpoints: c.existing, endpointSlice: undefined } },
    live(c.keys ?? []),
    NOW,
  );
  // Our own lease, and only ours, is refreshed: now + TTL.
  expect(step.leaseWrites).toEqual([{ kind: 'put-lease', lease: { ip: c.ip, expiresAt: NOW + TTL }, ttlMs: TTL }]);
  expect(step.leases.get(c.ip)).toEqual({ ip: c.ip, expiresAt: NOW + TTL });
  for (const k of c.keys ?? []) if (k !== c.ip) expect(step.leases.get(k)?.expiresAt).toBe(NOW + 5_000);
  if (!step.outcome.ok) throw new Error(step.outcome.error.message);
  return step.outcome.value;
}

describe('lease ReconcileEndpoints, reconcilePorts = true (upstream table)', () => {
  it.each(reconcileCases)('$name', (c) => {
    const o = reconcile(c, true);
    expect(written(o)).toEqual(c.expect);
    expect(o.action).toBe(c.expect === undefined ? 'none' : c.existing?.metadata.name === 'foo' ? 'update' : 'create');
  });
});

describe('lease ReconcileEndpoints, reconcilePorts = false (upstream table)', () => {
  it.each(nonReconcileCases)('$name', (c) => {
    expect(written(reconcile(c, false))).toEqual(c.expect);
  });
});

describe('lease RemoveEndpoints (upstream TestLeaseRemoveEndpoints)', () => {
  const keys = ['1.2.3.4', '4.3.2.2', '4.3.2.3', '4.3.2.4'];
  const remove = (ip: string, leases: Leases, existing: Endpoints) =>
    removeEndpoints(newEndpointReconciler('lease'), { serviceName: 'foo', ip, endpointPorts: foo, observed: { endpoints: existing, endpointSlice: undefined } }, leases, NOW);

  it('successful stop reconciling: our lease goes, and so does our address', () => {
    const step = remove('1.2.3.4', live(keys), endpoints('foo', keys, foo));
    expect(step.leaseWrites).toEqual([{ kind: 'delete-lease', ip: '1.2.3.4' }]);
    expect(step.leases.has('1.2.3.4')).toBe(false);
    if (!step.outcome.ok) throw new Error(step.outcome.error.message);
    expect(written(step.outcome.value)).toEqual(endpoints('foo', ['4.3.2.2', '4.3.2.3', '4.3.2.4'], foo));
  });

  it('stop reconciling with ip not in endpoint ip list: nothing to write', () => {
    const step = remove('5.6.7.8', live(keys), endpoints('foo', keys, foo));
    expect(step.outcome).toEqual({ ok: true, value: { action: 'none', writes: [] } });
  });

  it('endpoint with no subset: re-made from the live leases (ours having a lease too)', () => {
    const existing: Endpoints = { ...endpoints('foo', [], []), subsets: [] };
    const step = remove('5.6.7.8', live([...keys, '5.6.7.8']), existing);
    if (!step.outcome.ok) throw new Error(step.outcome.error.message);
    expect(written(step.outcome.value)).toEqual(endpoints('foo', keys, foo));
  });

  it('removal resets wrong ports, since it reconciles with reconcilePorts = true', () => {
    const step = remove('1.2.3.4', live(keys), endpoints('foo', keys.slice(1), [{ name: 'foo', port: 9, protocol: 'TCP' }]));
    if (!step.outcome.ok) throw new Error(step.outcome.error.message);
    expect(written(step.outcome.value)).toEqual(endpoints('foo', keys.slice(1), foo));
  });

  it('the last apiserver to leave is refused: its lease is deleted, the Endpoints are not erased', () => {
    const step = remove('1.2.3.4', live(['1.2.3.4']), endpoints('foo', ['1.2.3.4'], foo));
    expect(step.leaseWrites).toEqual([{ kind: 'delete-lease', ip: '1.2.3.4' }]);
    expect(step.outcome).toEqual({
      ok: false,
      error: {
        _tag: 'ErrNoMasterIPs',
        message: 'no master IPs were listed in storage, refusing to erase all endpoints for the kubernetes service',
      },
    });
  });

  it('without a live lease of ours the delete fails upstream (NotFound) and nothing else happens', () => {
    const expired = new Map([...live(keys)].map(([k, v]) => [k, k === '1.2.3.4' ? { ...v, expiresAt: NOW } : v]));
    const step = remove('1.2.3.4', expired, endpoints('foo', keys, foo));
    expect(step).toEqual({ outcome: { ok: true, value: { action: 'none', writes: [] } }, leases: expired, leaseWrites: [] });
  });

  it('removal still works after stopReconciling (upstream calls it on shutdown, after the stop)', () => {
    const r = stopReconciling(newEndpointReconciler('lease'));
    const step = removeEndpoints(r, { serviceName: 'foo', ip: '1.2.3.4', endpointPorts: foo, observed: { endpoints: endpoints('foo', keys, foo), endpointSlice: undefined } }, live(keys), NOW);
    expect(step.leaseWrites).toEqual([{ kind: 'delete-lease', ip: '1.2.3.4' }]);
  });
});

describe('the leases', () => {
  it('a lease is live while expiresAt > now; the list is in storage-key order', () => {
    let leases: Leases = new Map();
    leases = updateLease(leases, '10.0.0.2', 0, 15_000);
    leases = updateLease(leases, '10.0.0.10', 5_000, 15_000);
    leases = updateLease(leases, '9.0.0.1', 1_000, 15_000);
    expect(listLeases(leases, 14_999)).toEqual(['10.0.0.10', '10.0.0.2', '9.0.0.1']);
    expect(listLeases(leases, 15_000)).toEqual(['10.0.0.10', '9.0.0.1']);
    expect(listLeases(leases, 20_000)).toEqual([]);
    expect(listLeases(removeLease(leases, '9.0.0.1'), 0)).toEqual(['10.0.0.10', '10.0.0.2']);
  });

  it('a refresh always moves the expiry, even when nothing else changes (upstream bumps Generation for this)', () => {
    const a = updateLease(new Map(), '1.2.3.4', 0, 15_000);
    const b = updateLease(a, '1.2.3.4', 10_000, 15_000);
    expect(b.get('1.2.3.4')).toEqual({ ip: '1.2.3.4', expiresAt: 25_000 });
  });

  it('an expired lease is not listed: its apiserver drops out of the Endpoints', () => {
    const leases: Leases = new Map([
      ['1.2.3.4', { ip: '1.2.3.4', expiresAt: 20_000 }],
      ['4.3.2.1', { ip: '4.3.2.1', expiresAt: 9_000 }],
    ]);
    const o = reconcileLease(
      { serviceName: 'foo', ip: '1.2.3.4', endpointPorts: foo, reconcilePorts: false, observed: { endpoints: endpoints('foo', ['1.2.3.4', '4.3.2.1'], foo), endpointSlice: undefined } },
      leases,
      10_000,
    );
    if (!o.ok) throw new Error(o.error.message);
    expect(written(o.value)).toEqual(endpoints('foo', ['1.2.3.4'], foo));
  });

  it('reconcileLease with no live lease refuses and writes nothing, even when the Endpoints are missing', () => {
    const o = reconcileLease(
      { serviceName: 'foo', ip: '1.2.3.4', endpointPorts: foo, reconcilePorts: true, observed: { endpoints: undefined, endpointSlice: undefined } },
      new Map([['1.2.3.4', { ip: '1.2.3.4', expiresAt: 5 }]]),
      5,
    );
    expect(o).toEqual({ ok: false, error: { _tag: 'ErrNoMasterIPs', message: 'no master IPs were listed in storage, refusing to erase all endpoints for the kubernetes service' } });
  });
});

describe('deviation: a subset without ports (upstream writes an empty Endpoints, or panics)', () => {
  it('is rebuilt from the live leases, sorted, with the given ports', () => {
    const existing: Endpoints = { ...endpoints('foo', [], []), subsets: [{ addresses: [{ ip: '4.3.2.1' }] }] };
    expect(written(reconcile({ name: '', ip: '1.2.3.4', ports: foo, keys: ['4.3.2.2'], existing }, false))).toEqual(endpoints('foo', ['1.2.3.4', '4.3.2.2'], foo));
  });
});

// Shapes of the stored Endpoints that upstream's table does not list, with what
// checkEndpointSubsetFormatWithLease and doReconcile (lease.go) make of them. The properties
// find these only with thousands of runs; here they run every time.
describe('lease ReconcileEndpoints on Endpoints upstream would call wrongly formatted', () => {
  const keys = ['1.2.3.4', '4.3.2.1'];
  const withSubsets = (subsets: Endpoints['subsets']): Endpoints => ({ ...endpoints('foo', [], foo), subsets });

  it('several subsets: the format is wrong, one subset of the live lease IPs with our ports is written', () => {
    const existing = withSubsets([
      { addresses: [{ ip: '1.2.3.4' }], ports: [...foo] },
      { addresses: [{ ip: '4.3.2.1' }], ports: [...foo] },
    ]);
    expect(written(reconcile({ name: '', ip: '1.2.3.4', ports: foo, keys, existing }, true))).toEqual(endpoints('foo', keys, foo));
    expect(written(reconcile({ name: '', ip: '1.2.3.4', ports: foo, keys, existing }, false))).toEqual(endpoints('foo', keys, foo));
  });

  it('several subsets with other ports: the given ports replace them', () => {
    const other = [{ name: 'other', port: 1, protocol: 'UDP' as const }];
    const existing = withSubsets([
      { addresses: [{ ip: '1.2.3.4' }], ports: other },
      { addresses: [{ ip: '4.3.2.1' }], ports: other },
    ]);
    expect(written(reconcile({ name: '', ip: '1.2.3.4', ports: foo, keys, existing }, false))).toEqual(endpoints('foo', keys, foo));
  });

  it('as many addresses as leases but one listed twice: the IPs are wrong, the lease IPs are written', () => {
    const existing = endpoints('foo', ['1.2.3.4', '1.2.3.4'], foo);
    expect(written(reconcile({ name: '', ip: '1.2.3.4', ports: foo, keys, existing }, true))).toEqual(endpoints('foo', keys, foo));
  });

  it('as many addresses as leases but one without a lease: the lease IPs are written', () => {
    const existing = endpoints('foo', ['1.2.3.4', '9.9.9.9'], foo);
    expect(written(reconcile({ name: '', ip: '1.2.3.4', ports: foo, keys, existing }, true))).toEqual(endpoints('foo', keys, foo));
  });

  it('the lease IPs in another order are correct: nothing is written', () => {
    const existing = endpoints('foo', ['4.3.2.1', '1.2.3.4'], foo);
    const o = reconcile({ name: '', ip: '1.2.3.4', ports: foo, keys, existing }, true);
    expect(written(o)).toBeUndefined();
    expect(o.action).toBe('none');
  });
});

// checkEndpointSubsetFormatWithLease compares ports with Go's `port != sub.Ports[i]`: one
// EndpointPort after the other, name, port, protocol by value and AppProtocol (a *string) by
// pointer, so that a port with an appProtocol never equals the one the apiserver wants.
describe('lease ReconcileEndpoints: which ports are correct', () => {
  const keys = ['1.2.3.4'];
  const check = (existingPorts: readonly EndpointPort[], wanted: readonly EndpointPort[]) =>
    written(reconcile({ name: '', ip: '1.2.3.4', ports: wanted, keys, existing: endpoints('foo', keys, existingPorts) }, true));

  it('the same ports in the same order are correct', () => {
    expect(check(two, two)).toBeUndefined();
  });

  it('an extra port is wrong: the ports are reset', () => {
    expect(check(two, foo)).toEqual(endpoints('foo', keys, foo));
  });

  it('the right number of ports with only the first matching is wrong', () => {
    expect(check([...foo, { name: 'bar', port: 1001, protocol: 'TCP' }], two)).toEqual(endpoints('foo', keys, two));
  });

  it('the same ports in another order are wrong', () => {
    expect(check([...two].reverse(), two)).toEqual(endpoints('foo', keys, two));
  });

  it('a port with the same appProtocol on both sides is still wrong, so the Endpoints are written again', () => {
    const https: EndpointPort[] = [{ name: 'https', port: 6443, protocol: 'TCP', appProtocol: 'https' }];
    expect(check(https, https)).toEqual(endpoints('foo', keys, https));
  });

  it('an appProtocol on either side only is wrong', () => {
    const plain: EndpointPort[] = [{ name: 'https', port: 6443, protocol: 'TCP' }];
    const tagged: EndpointPort[] = [{ ...plain[0], port: 6443, appProtocol: 'https' }];
    expect(check(tagged, plain)).toEqual(endpoints('foo', keys, plain));
    expect(check(plain, tagged)).toEqual(endpoints('foo', keys, tagged));
  });
});

// Get(default, <serviceName>) does not see an object of another namespace or name: the
// reconciler creates its own, as when nothing is stored.
describe('lease ReconcileEndpoints: an Endpoints object that is not default/<serviceName>', () => {
  it('in another namespace it is ignored and default/foo is created', () => {
    const elsewhere: Endpoints = { ...endpoints('foo', ['1.2.3.4'], foo), metadata: { name: 'foo', namespace: 'kube-system' } };
    const o = reconcile({ name: '', ip: '1.2.3.4', ports: foo, existing: elsewhere }, true);
    expect(o.action).toBe('create');
    expect(written(o)).toEqual(endpoints('foo', ['1.2.3.4'], foo));
  });

  it('without a namespace it is taken as default', () => {
    const bare: Endpoints = { ...endpoints('foo', ['1.2.3.4'], foo), metadata: { name: 'foo', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } };
    const o = reconcile({ name: '', ip: '1.2.3.4', ports: foo, existing: bare }, true);
    expect(o.action).toBe('none');
  });
});

describe('lease ReconcileEndpoints: only what is wrong is rewritten', () => {
  // doReconcile re-lists the addresses only when the format or the IPs are wrong; wrong ports
  // alone replace the ports and leave the addresses in their stored order.
  it('right IPs in another order with wrong ports: the ports change, the order stays', () => {
    const existing = endpoints('foo', ['4.3.2.1', '1.2.3.4'], [{ name: 'foo', port: 9090, protocol: 'TCP' }]);
    expect(written(reconcile({ name: '', ip: '1.2.3.4', ports: foo, keys: ['4.3.2.1'], existing }, true))).toEqual(endpoints('foo', ['4.3.2.1', '1.2.3.4'], foo));
  });

  it('ports without a name or protocol equal the same ports (Go compares "" with "")', () => {
    const bare: EndpointPort[] = [{ port: 8080 }];
    expect(written(reconcile({ name: '', ip: '1.2.3.4', ports: bare, existing: endpoints('foo', ['1.2.3.4'], bare) }, true))).toBeUndefined();
  });

  it('a subset without ports, reconciling ports: the given ports are written', () => {
    const existing: Endpoints = { ...endpoints('foo', [], []), subsets: [{ addresses: [{ ip: '1.2.3.4' }] }] };
    expect(written(reconcile({ name: '', ip: '1.2.3.4', ports: foo, existing }, true))).toEqual(endpoints('foo', ['1.2.3.4'], foo));
  });
});

describe('listLeases', () => {
  // ListLeases skips a lease object that holds no address.
  it('skips a live lease without an IP', () => {
    const leases: Leases = new Map([
      ['1.2.3.4', { ip: '1.2.3.4', expiresAt: 10 }],
      ['4.3.2.1', { ip: '', expiresAt: 10 }],
    ]);
    expect(listLeases(leases, 0)).toEqual(['1.2.3.4']);
  });
});

// upstream's master-count table (pkg/controlplane/reconcilers/instancecount_test.go, v1.21–v1.26:
// TestMasterCountEndpointReconciler, TestEmptySubsets), rewritten: each case gives the objects
// in the cluster and the creates and updates upstream's fake client must see, in order. The
// expected objects are built like upstream's makeEndpoints / makeEndpointSlice helpers.
import type { EndpointPort, EndpointSlice, Endpoints } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { newEndpointReconciler, reconcileEndpoints, removeEndpoints } from './endpoint-reconciler.js';
import type { EndpointWrite, ReconcileOutcome } from './types.js';

function makeEndpoints(name: string, ips: readonly string[], ports: readonly EndpointPort[]): Endpoints {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name, namespace: 'default', labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    ...(ips.length > 0 || ports.length > 0 ? { subsets: [{ addresses: ips.map((ip) => ({ ip })), ports: [...ports] }] } : {}),
  };
}

function makeEndpointSlice(name: string, ips: readonly string[], ports: readonly EndpointPort[]): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { name, namespace: 'default', labels: { 'kubernetes.io/service-name': name } },
    addressType: 'IPv4',
    endpoints: ips.length > 0 ? ips.map((ip) => ({ addresses: [ip], conditions: { ready: true } })) : null,
    ports: ports.length > 0 ? ports.map((p) => ({ port: p.port, name: p.name ?? '', protocol: p.protocol ?? 'TCP' })) : null,
  };
}

interface Initial {
  readonly endpoints?: Endpoints;
  readonly slice?: EndpointSlice;
}

function both(name: string, ips: readonly string[], ports: readonly EndpointPort[]): Initial {
  return { endpoints: makeEndpoints(name, ips, ports), slice: makeEndpointSlice(name, ips, ports) };
}

function objectOf(w: EndpointWrite): Endpoints | EndpointSlice | undefined {
  switch (w.kind) {
    case 'create-endpoints':
    case 'update-endpoints':
      return w.endpoints;
    case 'create-endpointslice':
    case 'update-endpointslice':
      return w.endpointSlice;
    case 'delete-endpointslice':
      return undefined;
  }
}

function split(outcome: ReconcileOutcome): { creates: unknown[]; updates: unknown[] } {
  return {
    creates: outcome.writes.filter((w) => w.kind.startsWith('create-')).map(objectOf),
    updates: outcome.writes.filter((w) => w.kind.startsWith('update-')).map(objectOf),
  };
}

function run(initial: Initial, serviceName: string, ip: string, ports: readonly EndpointPort[], masterCount: number, reconcilePorts: boolean): ReconcileOutcome {
  const r = newEndpointReconciler('master-count', { masterCount });
  const step = reconcileEndpoints(
    r,
    { serviceName, ip, endpointPorts: ports, reconcilePorts, observed: { endpoints: initial.endpoints, endpointSlice: initial.slice } },
    new Map(),
    0,
  );
  expect(step.leaseWrites).toEqual([]);
  if (!step.outcome.ok) throw new Error(step.outcome.error.message);
  return step.outcome.value;
}

const foo: EndpointPort[] = [{ name: 'foo', port: 8080, protocol: 'TCP' }];
const three: EndpointPort[] = [
  { name: 'foo', port: 8080, protocol: 'TCP' },
  { name: 'bar', port: 1000, protocol: 'TCP' },
  { name: 'baz', port: 1010, protocol: 'TCP' },
];
const two = three.slice(0, 2);
const five = ['1.2.3.4', '4.3.2.1', '4.3.2.2', '4.3.2.3', '4.3.2.4'];

interface Case {
  readonly name: string;
  readonly serviceName?: string;
  readonly ip: string;
  readonly ports: readonly EndpointPort[];
  readonly additionalMasters?: number;
  readonly initial: Initial;
  readonly creates?: readonly unknown[];
  readonly updates?: readonly unknown[];
}

function array(i: Initial): unknown[] {
  return [i.endpoints, i.slice];
}

const reconcileCases: readonly Case[] = [
  { name: 'no existing endpoints', ip: '1.2.3.4', ports: foo, initial: {}, creates: array(both('foo', ['1.2.3.4'], foo)) },
  { name: 'existing endpoints satisfy', ip: '1.2.3.4', ports: foo, initial: both('foo', ['1.2.3.4'], foo) },
  {
    name: 'existing endpoints satisfy, no endpointslice',
    ip: '1.2.3.4',
    ports: foo,
    initial: { endpoints: makeEndpoints('foo', ['1.2.3.4'], foo) },
    creates: [makeEndpointSlice('foo', ['1.2.3.4'], foo)],
  },
  {
    name: 'existing endpointslice satisfies, no endpoints',
    ip: '1.2.3.4',
    ports: foo,
    initial: { slice: makeEndpointSlice('foo', ['1.2.3.4'], foo) },
    creates: [makeEndpoints('foo', ['1.2.3.4'], foo)],
  },
  {
    name: 'existing endpoints satisfy, endpointslice is wrong',
    ip: '1.2.3.4',
    ports: foo,
    initial: { endpoints: makeEndpoints('foo', ['1.2.3.4'], foo), slice: makeEndpointSlice('foo', ['4.3.2.1'], foo) },
    updates: [makeEndpointSlice('foo', ['1.2.3.4'], foo)],
  },
  {
    name: 'existing endpointslice satisfies, endpoints is wrong',
    ip: '1.2.3.4',
    ports: foo,
    initial: { endpoints: makeEndpoints('foo', ['4.3.2.1'], foo), slice: makeEndpointSlice('foo', ['1.2.3.4'], foo) },
    updates: [makeEndpoints('foo', ['1.2.3.4'], foo)],
  },
  {
    name: 'existing endpoints satisfy but too many',
    ip: '1.2.3.4',
    ports: foo,
    initial: both('foo', ['1.2.3.4', '4.3.2.1'], foo),
    updates: array(both('foo', ['1.2.3.4'], foo)),
  },
  {
    name: 'existing endpoints satisfy but too many + extra masters',
    ip: '1.2.3.4',
    ports: foo,
    additionalMasters: 3,
    initial: both('foo', five, foo),
    updates: array(both('foo', ['1.2.3.4', '4.3.2.2', '4.3.2.3', '4.3.2.4'], foo)),
  },
  {
    name: 'existing endpoints satisfy but too many + extra masters + delete first',
    ip: '4.3.2.4',
    ports: foo,
    additionalMasters: 3,
    initial: both('foo', five, foo),
    updates: array(both('foo', ['4.3.2.1', '4.3.2.2', '4.3.2.3', '4.3.2.4'], foo)),
  },
  {
    name: 'existing endpoints satisfy and endpoint addresses length less than master count',
    ip: '4.3.2.2',
    ports: foo,
    additionalMasters: 3,
    initial: both('foo', ['4.3.2.1', '4.3.2.2'], foo),
  },
  {
    name: 'existing endpoints current IP missing and address length less than master count',
    ip: '4.3.2.2',
    ports: foo,
    additionalMasters: 3,
    initial: both('foo', ['4.3.2.1'], foo),
    updates: array(both('foo', ['4.3.2.1', '4.3.2.2'], foo)),
  },
  {
    name: 'existing endpoints wrong name',
    ip: '1.2.3.4',
    ports: foo,
    initial: both('bar', ['1.2.3.4'], foo),
    creates: array(both('foo', ['1.2.3.4'], foo)),
  },
  {
    name: 'existing endpoints wrong IP',
    ip: '1.2.3.4',
    ports: foo,
    initial: both('foo', ['4.3.2.1'], foo),
    updates: array(both('foo', ['1.2.3.4'], foo)),
  },
  {
    name: 'existing endpoints wrong port',
    ip: '1.2.3.4',
    ports: foo,
    initial: both('foo', ['1.2.3.4'], [{ name: 'foo', port: 9090, protocol: 'TCP' }]),
    updates: array(both('foo', ['1.2.3.4'], foo)),
  },
  {
    name: 'existing endpoints wrong protocol',
    ip: '1.2.3.4',
    ports: foo,
    initial: both('foo', ['1.2.3.4'], [{ name: 'foo', port: 8080, protocol: 'UDP' }]),
    updates: array(both('foo', ['1.2.3.4'], foo)),
  },
  {
    name: 'existing endpoints wrong port name',
    ip: '1.2.3.4',
    ports: [{ name: 'baz', port: 8080, protocol: 'TCP' }],
    initial: both('foo', ['1.2.3.4'], foo),
    updates: array(both('foo', ['1.2.3.4'], [{ name: 'baz', port: 8080, protocol: 'TCP' }])),
  },
  { name: 'existing endpoints extra service ports satisfy', ip: '1.2.3.4', ports: three, initial: both('foo', ['1.2.3.4'], three) },
  {
    name: 'existing endpoints extra service ports missing port',
    ip: '1.2.3.4',
    ports: two,
    initial: both('foo', ['1.2.3.4'], foo),
    updates: array(both('foo', ['1.2.3.4'], two)),
  },
  {
    name: 'no existing sctp endpoints',
    serviceName: 'boo',
    ip: '1.2.3.4',
    ports: [{ name: 'boo', port: 7777, protocol: 'SCTP' }],
    initial: {},
    creates: array(both('boo', ['1.2.3.4'], [{ name: 'boo', port: 7777, protocol: 'SCTP' }])),
  },
];

const nonReconcileCases: readonly Case[] = [
  { name: 'existing endpoints extra service ports missing port no update', ip: '1.2.3.4', ports: two, initial: both('foo', ['1.2.3.4'], foo) },
  {
    name: 'existing endpoints extra service ports, wrong ports, wrong IP',
    ip: '1.2.3.4',
    ports: two,
    initial: both('foo', ['4.3.2.1'], foo),
    updates: array(both('foo', ['1.2.3.4'], foo)),
  },
  { name: 'no existing endpoints', ip: '1.2.3.4', ports: foo, initial: {}, creates: array(both('foo', ['1.2.3.4'], foo)) },
];

describe('master-count ReconcileEndpoints, reconcilePorts = true (upstream table)', () => {
  it.each(reconcileCases)('$name', (c) => {
    const outcome = run(c.initial, c.serviceName ?? 'foo', c.ip, c.ports, (c.additionalMasters ?? 0) + 1, true);
    expect(split(outcome)).toEqual({ creates: c.creates ?? [], updates: c.updates ?? [] });
  });
});

describe('master-count ReconcileEndpoints, reconcilePorts = false (upstream table)', () => {
  it.each(nonReconcileCases)('$name', (c) => {
    const outcome = run(c.initial, c.serviceName ?? 'foo', c.ip, c.ports, (c.additionalMasters ?? 0) + 1, false);
    expect(split(outcome)).toEqual({ creates: c.creates ?? [], updates: c.updates ?? [] });
  });
});

describe('master-count details from instancecount.go', () => {
  it('the reference §7 examples: masterCount 4, five addresses, from 1.2.3.4 and from 4.3.2.4', () => {
    const from = (ip: string): unknown => {
      const o = run(both('kubernetes', five, foo), 'kubernetes', ip, foo, 4, false);
      const w = o.writes[0];
      return w?.kind === 'update-endpoints' ? w.endpoints.subsets?.[0]?.addresses?.map((a) => a.ip) : w?.kind;
    };
    expect(from('1.2.3.4')).toEqual(['1.2.3.4', '4.3.2.2', '4.3.2.3', '4.3.2.4']);
    // The entry after the last one wraps to the first.
    expect(from('4.3.2.4')).toEqual(['4.3.2.1', '4.3.2.2', '4.3.2.3', '4.3.2.4']);
  });

  it('sorts addresses as strings, byte by byte ("10.0.0.10" before "10.0.0.2")', () => {
    const o = run(both('kubernetes', ['10.0.0.2'], foo), 'kubernetes', '10.0.0.10', foo, 3, false);
    expect(o.action).toBe('update');
    expect(o.writes[0]?.kind === 'update-endpoints' && o.writes[0].endpoints.subsets?.[0]?.addresses).toEqual([{ ip: '10.0.0.10' }, { ip: '10.0.0.2' }]);
  });

  it('an update carries the observed resourceVersion as its precondition, and keeps the rest of the metadata', () => {
    const e = makeEndpoints('kubernetes', ['4.3.2.1'], foo);
    const observed = { ...e, metadata: { ...e.metadata, resourceVersion: '42', uid: 'u-1' } };
    const o = run({ endpoints: observed, slice: makeEndpointSlice('kubernetes', ['4.3.2.1'], foo) }, 'kubernetes', '1.2.3.4', foo, 1, false);
    const w = o.writes[0];
    expect(w?.kind).toBe('update-endpoints');
    if (w?.kind !== 'update-endpoints') return;
    expect(w.resourceVersion).toBe('42');
    expect(w.endpoints.metadata).toEqual(observed.metadata);
  });

  it('more than one subset is reset to our IP alone', () => {
    const e: Endpoints = {
      ...makeEndpoints('kubernetes', [], []),
      subsets: [
        { addresses: [{ ip: '4.3.2.1' }], ports: foo },
        { addresses: [{ ip: '4.3.2.2' }], ports: [{ name: 'x', port: 1, protocol: 'TCP' }] },
      ],
    };
    const o = run({ endpoints: e }, 'kubernetes', '1.2.3.4', foo, 3, false);
    expect(o.action).toBe('update');
    expect(o.writes[0]?.kind === 'update-endpoints' && o.writes[0].endpoints.subsets).toEqual([{ addresses: [{ ip: '1.2.3.4' }], ports: foo }]);
  });

  it('one subset with ports and no addresses is kept, and our IP is added to it', () => {
    // checkEndpointSubsetFormat: one subset is the right format; our IP is missing, so
    // ReconcileEndpoints appends it to Subsets[0].Addresses and repacks.
    const e: Endpoints = { ...makeEndpoints('kubernetes', [], []), subsets: [{ ports: foo }] };
    const o = run({ endpoints: e, slice: makeEndpointSlice('kubernetes', [], foo) }, 'kubernetes', '1.2.3.4', foo, 1, false);
    expect(o.action).toBe('update');
    expect(o.writes[0]?.kind === 'update-endpoints' && o.writes[0].endpoints.subsets).toEqual([{ addresses: [{ ip: '1.2.3.4' }], ports: foo }]);
  });

  it('a missing skip-mirror label alone causes an update that adds it, keeping the other labels', () => {
    const e = makeEndpoints('kubernetes', ['1.2.3.4'], foo);
    const unlabelled = { ...e, metadata: { ...e.metadata, labels: { team: 'a' } } };
    const o = run({ endpoints: unlabelled, slice: makeEndpointSlice('kubernetes', ['1.2.3.4'], foo) }, 'kubernetes', '1.2.3.4', foo, 1, true);
    expect(o.writes).toEqual([
      {
        kind: 'update-endpoints',
        endpoints: { ...e, metadata: { ...e.metadata, labels: { team: 'a', 'endpointslice.kubernetes.io/skip-mirror': 'true' } } },
        resourceVersion: undefined,
      },
    ]);
  });
});

describe('master-count RemoveEndpoints', () => {
  const remove = (initial: Initial, ip: string): ReconcileOutcome => {
    const step = removeEndpoints(
      newEndpointReconciler('master-count', { masterCount: 3 }),
      { serviceName: 'foo', ip, endpointPorts: foo, observed: { endpoints: initial.endpoints, endpointSlice: initial.slice } },
      new Map(),
      0,
    );
    if (!step.outcome.ok) throw new Error(step.outcome.error.message);
    return step.outcome.value;
  };

  it('TestEmptySubsets: an Endpoints without subsets needs nothing', () => {
    expect(remove(both('foo', [], []), '1.2.3.4')).toEqual({ action: 'none', writes: [] });
  });

  it('a missing Endpoints needs nothing', () => {
    expect(remove({}, '1.2.3.4')).toEqual({ action: 'none', writes: [] });
  });

  it('drops our IP, keeps the others sorted, and mirrors the slice', () => {
    expect(split(remove(both('foo', ['1.2.3.4', '4.3.2.1', '4.3.2.2'], foo), '1.2.3.4'))).toEqual({
      creates: [],
      updates: array(both('foo', ['4.3.2.1', '4.3.2.2'], foo)),
    });
  });

  it('removing the last IP leaves no subsets and an empty slice', () => {
    const o = remove(both('foo', ['1.2.3.4'], foo), '1.2.3.4');
    expect(o.action).toBe('update');
    // RepackSubsets drops the subset once it has no address left.
    expect(o.writes).toEqual([
      { kind: 'update-endpoints', endpoints: { ...makeEndpoints('foo', [], []), subsets: [] }, resourceVersion: undefined },
      { kind: 'update-endpointslice', endpointSlice: makeEndpointSlice('foo', [], []), resourceVersion: undefined },
    ]);
  });
});

describe('deviation: a subset without ports (upstream panics)', () => {
  it('is rebuilt from our own IP and the given ports', () => {
    const e: Endpoints = { ...makeEndpoints('foo', [], []), subsets: [{ addresses: [{ ip: '4.3.2.1' }] }] };
    const o = run({ endpoints: e }, 'foo', '1.2.3.4', foo, 3, false);
    expect(o.action).toBe('update');
    expect(o.writes[0]).toEqual({ kind: 'update-endpoints', endpoints: makeEndpoints('foo', ['1.2.3.4'], foo), resourceVersion: undefined });
  });
});

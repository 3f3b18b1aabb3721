// The change tracker: which Services may have changed, by position (the same arrays again)
// or by key, and whether what they derive to changed. upstream: pkg/proxy/servicechangetracker.go,
// pkg/proxy/endpointschangetracker.go.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import {
  compareServices,
  matchByKey,
  matchByPosition,
  mostEndpoints,
  objectKey,
  sameEndpoints,
  sameObjects,
  sameServicePortInfo,
  sliceId,
  type TrackedEntry,
  type TrackedState,
} from './changes.js';
import { endpointInfo } from './endpoints.js';
import { servicePortInfos } from './service-ports.js';
import { makeService, makeSlice } from './model.fixtures.js';

const svc = (namespace: string, name: string, port = 80): Service => makeService(namespace, name, { clusterIP: '10.0.0.1', ports: [{ name: 'p', port }] });
const slice = (namespace: string, service: string, n: number, ip: string, addressType: 'IPv4' | 'IPv6' = 'IPv4'): EndpointSlice =>
  makeSlice(namespace, service, n, addressType, [{ addresses: [ip] }], [{ name: 'p', port: 8080 }]);

/** The state a sync of `services` and `slices` leaves, as matchByKey lays it out. */
function stateOf(services: readonly Service[], slices: readonly EndpointSlice[]): TrackedState<TrackedEntry> {
  const matched = matchByKey<TrackedEntry>(undefined, services, slices, 4);
  const entries: TrackedEntry[] = [];
  for (let pos = 0; pos < matched.count; pos++) {
    const c = matched.work.get(pos);
    if (c === undefined) throw new Error(`no candidate at ${pos}`);
    entries.push({ key: c.key, namespace: c.namespace, name: c.name, service: c.service, slices: c.slices });
  }
  return { servicesIn: services, servicePos: matched.servicePos, slicesIn: slices, slicePos: matched.slicePos, entries };
}

describe('keys and order', () => {
  it('keys a Service by namespace/name, the namespace defaulted', () => {
    expect(objectKey('ns', 'a')).toBe('ns/a');
    expect(objectKey(undefined, undefined)).toBe('default/');
  });

  it('orders Services by namespace, then name, in byte order', () => {
    const sorted = [svc('b', 'a'), svc('a', 'b'), svc('a', 'B'), svc('a', 'a')].sort(compareServices);
    expect(sorted.map((s) => objectKey(s.metadata.namespace, s.metadata.name))).toEqual(['a/B', 'a/a', 'a/b', 'b/a']);
  });

  it("tells slices apart by key, the Service they feed and their family", () => {
    const a = slice('ns', 'web', 1, '10.0.0.5');
    expect(sliceId(a)).toBe(sliceId(slice('ns', 'web', 1, '10.0.0.6')));
    expect(sliceId(a)).not.toBe(sliceId(slice('ns', 'web', 2, '10.0.0.5')));
    expect(sliceId(a)).not.toBe(sliceId(slice('ns', 'web', 1, 'fd00::5', 'IPv6')));
    expect(sliceId(a)).not.toBe(sliceId({ ...a, metadata: { ...a.metadata, labels: { 'kubernetes.io/service-name': 'api' } } }));
  });
});

describe('equalities', () => {
  it('sameObjects compares element identity', () => {
    const x = {};
    expect(sameObjects([x], [x])).toBe(true);
    expect(sameObjects([x], [{}])).toBe(false);
    expect(sameObjects([x], [x, x])).toBe(false);
    expect(sameObjects([], [])).toBe(true);
  });

  it('sameServicePortInfo compares what upstream compares, not what a backend attached', () => {
    const [a] = servicePortInfos(svc('ns', 'web'), 4, () => 'one');
    const [b] = servicePortInfos(svc('ns', 'web'), 4, () => 'two');
    const [c] = servicePortInfos(svc('ns', 'web', 81), 4);
    if (a === undefined || b === undefined || c === undefined) throw new Error('no service port');
    expect(sameServicePortInfo(a, b)).toBe(true);
    expect(sameServicePortInfo(a, c)).toBe(false);
    for (const change of [
      { nameString: 'x' },
      { protocol: 'udp' as const },
      { clusterIP: '10.0.0.2' },
      { nodePort: 30000 },
      { healthCheckNodePort: 30001 },
      { clientIPAffinity: true },
      { stickyMaxAgeSeconds: 5 },
      { externalPolicyLocal: true },
      { internalPolicyLocal: true },
      { externalIPs: ['1.2.3.4'] },
      { loadBalancerVIPs: ['1.2.3.5'] },
      { loadBalancerSourceRanges: ['1.2.3.0/24'] },
    ]) {
      expect(sameServicePortInfo(a, { ...a, ...change }), JSON.stringify(change)).toBe(false);
    }
  });

  it('sameEndpoints compares ip:port and every condition, in order', () => {
    const ep = (ip: string, local = false, ready = true, serving = true, terminating = false) => endpointInfo(ip, 80, local, ready, serving, terminating);
    const list = [ep('10.0.0.1'), ep('10.0.0.2')];
    expect(sameEndpoints(list, list)).toBe(true);
    expect(sameEndpoints(list, [ep('10.0.0.1'), ep('10.0.0.2')])).toBe(true);
    expect(sameEndpoints(list, [ep('10.0.0.2'), ep('10.0.0.1')])).toBe(false);
    expect(sameEndpoints(list, [ep('10.0.0.1')])).toBe(false);
    expect(sameEndpoints(list, [ep('10.0.0.1'), endpointInfo('10.0.0.2', 81, false, true, true, false)])).toBe(false);
    expect(sameEndpoints(list, [ep('10.0.0.1'), ep('10.0.0.2', true)])).toBe(false);
    expect(sameEndpoints(list, [ep('10.0.0.1'), ep('10.0.0.2', false, false)])).toBe(false);
    expect(sameEndpoints(list, [ep('10.0.0.1'), ep('10.0.0.2', false, true, false)])).toBe(false);
    expect(sameEndpoints(list, [ep('10.0.0.1'), ep('10.0.0.2', false, true, true, true)])).toBe(false);
  });
});

describe('matchByKey', () => {
  it('sorts the Services, keeps the last listing of each, and gives each its slices of the family', () => {
    const b = svc('ns', 'b');
    const a1 = svc('ns', 'a');
    const a2 = svc('ns', 'a', 81);
    const slices = [slice('ns', 'a', 1, '10.0.0.5'), slice('ns', 'b', 1, 'fd00::5', 'IPv6'), slice('ns', 'gone', 1, '10.0.0.6'), slice('ns', 'a', 1, '10.0.0.7')];
    const m = matchByKey(undefined, [b, a1, a2], slices, 4);
    expect(m.base).toBeUndefined();
    expect(m.count).toBe(2);
    expect([...m.servicePos]).toEqual([1, -1, 0]);
    // The first listing of ns/a-1 lost to the last; the IPv6 slice and the orphan are ignored.
    expect([...m.slicePos]).toEqual([-1, -1, -1, 0]);
    expect(m.work.get(0)?.service).toBe(a2);
    expect(m.work.get(0)?.slices).toEqual([slices[3]]);
    expect(m.work.get(1)?.slices).toEqual([]);
    expect(m.removed).toEqual([]);
  });

  it('pairs entries with the previous ones by key, keeps an unchanged slice list, and reports the removed', () => {
    const services = [svc('ns', 'a'), svc('ns', 'b')];
    const slices = [slice('ns', 'a', 1, '10.0.0.5')];
    const prev = stateOf(services, slices);
    const m = matchByKey(prev, [svc('ns', 'a'), svc('ns', 'c')], [...slices], 4);
    expect(m.work.get(0)?.previous).toBe(prev.entries[0]);
    expect(m.work.get(0)?.slices).toBe(prev.entries[0]?.slices);
    expect(m.work.get(1)?.previous).toBeUndefined();
    expect(m.removed).toEqual([prev.entries[1]]);
  });
});

describe('matchByPosition', () => {
  const services = [svc('ns', 'b'), svc('ns', 'a')];
  const slices = [slice('ns', 'a', 1, '10.0.0.5'), slice('ns', 'b', 1, '10.0.0.6')];
  // Made in each test, not while the file is collected: in a mutation run, a mutant that made
  // this throw during collection left the file's tests unreported and counted as survived.
  const last = () => stateOf(services, slices);

  it('with the same arrays, nothing to look at', () => {
    const prev = last();
    const m = matchByPosition(prev, services, slices);
    expect(m?.base).toBe(prev.entries);
    expect(m?.work.size).toBe(0);
    expect(m?.count).toBe(2);
  });

  it('a replaced Service or slice marks its entry, with the new objects in place of the old', () => {
    const prev = last();
    const newB = svc('ns', 'b', 81);
    const newSlice = slice('ns', 'a', 1, '10.0.0.9');
    const m = matchByPosition(prev, [newB, services[1] as Service], [newSlice, slices[1] as EndpointSlice]);
    expect([...(m?.work.keys() ?? [])].sort()).toEqual([0, 1]);
    expect(m?.work.get(1)?.service).toBe(newB);
    expect(m?.work.get(0)?.slices).toEqual([newSlice]);
    expect(m?.work.get(0)?.previous).toBe(prev.entries[0]);
  });

  it('gives up when a length or a key differs', () => {
    const prev = last();
    expect(matchByPosition(prev, services.slice(1), slices)).toBeUndefined();
    expect(matchByPosition(prev, services, slices.slice(1))).toBeUndefined();
    expect(matchByPosition(prev, [svc('ns', 'x'), services[1] as Service], slices)).toBeUndefined();
    expect(matchByPosition(prev, services, [slice('ns', 'a', 2, '10.0.0.5'), slices[1] as EndpointSlice])).toBeUndefined();
  });
});

describe('mostEndpoints', () => {
  it('bounds any service port of a candidate: endpoints times ports, per Service', () => {
    const two = makeSlice('ns', 'a', 1, 'IPv4', [{ addresses: ['10.0.0.1'] }, { addresses: ['10.0.0.2'] }], [{ port: 1 }, { port: 2 }]);
    const one = slice('ns', 'b', 1, '10.0.0.3');
    const candidate = (slices: readonly EndpointSlice[]) => ({ key: '', namespace: '', name: '', service: svc('ns', 'x'), slices, previous: undefined });
    expect(mostEndpoints([candidate([two]), candidate([one, one])])).toBe(4);
    expect(mostEndpoints([])).toBe(0);
  });
});

// The contract case by case: upstream's trackers key objects by namespace/name, drop slices
// without a service-name label (endpointschangetracker.go, endpointSliceCacheKeys), and keep
// the last update of a name; a change that leaves the derived state as it was is dropped.
const unnamed = (namespace: string | undefined, name: string | undefined): Service => {
  const s = svc('placeholder', 'placeholder');
  const metadata: Service['metadata'] = {};
  if (namespace !== undefined) metadata.namespace = namespace;
  if (name !== undefined) metadata.name = name;
  return { ...s, metadata };
};
const keysOf = (services: readonly Service[]) => services.map((s) => objectKey(s.metadata.namespace, s.metadata.name));
const withoutLabels = (s: EndpointSlice): EndpointSlice => {
  const metadata: EndpointSlice['metadata'] = {};
  if (s.metadata.namespace !== undefined) metadata.namespace = s.metadata.namespace;
  if (s.metadata.name !== undefined) metadata.name = s.metadata.name;
  return { ...s, metadata };
};
const labelled = (s: EndpointSlice, serviceName: string): EndpointSlice => ({ ...s, metadata: { ...s.metadata, labels: { 'kubernetes.io/service-name': serviceName } } });

describe('keys and order: defaults', () => {
  it("defaults each part of a key on its own: the namespace to 'default', the name to ''", () => {
    expect(objectKey(undefined, 'a')).toBe('default/a');
    expect(objectKey('ns', undefined)).toBe('ns/');
    expect(objectKey('', 'a')).toBe('/a');
  });

  it("orders a Service without a namespace as one of 'default', and one without a name before every named one", () => {
    const noNamespace = unnamed(undefined, 'b');
    const inDefault = svc('default', 'a');
    expect(compareServices(noNamespace, inDefault)).toBeGreaterThan(0);
    expect(compareServices(inDefault, noNamespace)).toBeLessThan(0);
    expect(compareServices(noNamespace, svc('default', 'b'))).toBe(0);
    const noName = unnamed('ns', undefined);
    expect(compareServices(noName, svc('ns', 'A'))).toBeLessThan(0);
    expect(compareServices(svc('ns', 'A'), noName)).toBeGreaterThan(0);
    expect(compareServices(noName, svc('ns', ''))).toBe(0);
    const sorted = [svc('b', 'a'), svc('a', 'z'), unnamed(undefined, 'c'), svc('c', 'a')].sort(compareServices);
    expect(keysOf(sorted)).toEqual(['a/z', 'b/a', 'c/a', 'default/c']);
  });

  it('gives a slice that feeds no Service one identity, with no labels, other labels or an empty service name', () => {
    const a = slice('ns', 'web', 1, '10.0.0.5');
    const bare = withoutLabels(a);
    expect(sliceId(bare)).toBe(sliceId(labelled(a, '')));
    expect(sliceId(bare)).toBe(sliceId({ ...a, metadata: { ...bare.metadata, labels: { app: 'web' } } }));
    expect(sliceId(bare)).not.toBe(sliceId(a));
    expect(sliceId(withoutLabels({ ...a, metadata: { name: 'web-1' } }))).toBe(sliceId(withoutLabels({ ...a, metadata: { namespace: 'default', name: 'web-1' } })));
  });
});

describe('equalities: lengths', () => {
  it('sameObjects and sameEndpoints are false when either list is a prefix of the other', () => {
    const x = {};
    const y = {};
    expect(sameObjects([x, y], [x])).toBe(false);
    expect(sameObjects([x], [x, y])).toBe(false);
    expect(sameObjects([], [x])).toBe(false);
    const list = [endpointInfo('10.0.0.1', 80, false, true, true, false), endpointInfo('10.0.0.2', 80, false, true, true, false)];
    expect(sameEndpoints(list.slice(0, 1), list)).toBe(false);
    expect(sameEndpoints([], list)).toBe(false);
    expect(sameEndpoints(list, [])).toBe(false);
    expect(sameEndpoints([], [])).toBe(true);
  });

  it('sameServicePortInfo compares the address lists element by element, not as sets or by length', () => {
    const [a] = servicePortInfos(svc('ns', 'web'), 4);
    if (a === undefined) throw new Error('no service port');
    const two = { ...a, externalIPs: ['1.2.3.4', '1.2.3.5'] };
    expect(sameServicePortInfo(two, { ...a, externalIPs: ['1.2.3.4', '1.2.3.5'] })).toBe(true);
    expect(sameServicePortInfo(two, { ...a, externalIPs: ['1.2.3.5', '1.2.3.4'] })).toBe(false);
    expect(sameServicePortInfo(two, { ...a, externalIPs: ['1.2.3.4'] })).toBe(false);
    expect(sameServicePortInfo({ ...a, port: 81 }, { ...a, port: 81 })).toBe(true);
  });
});

describe('mostEndpoints: the count', () => {
  const candidate = (slices: readonly EndpointSlice[]) => ({ key: '', namespace: '', name: '', service: svc('ns', 'x'), slices, previous: undefined });
  const eps = (n: number) => Array.from({ length: n }, (_, i) => ({ addresses: [`10.0.1.${String(i)}`] }));

  it('counts a slice without endpoints as none, and one without ports (or with an empty list) once per endpoint', () => {
    const noEndpoints: EndpointSlice = { ...makeSlice('ns', 'a', 1, 'IPv4', [], [{ port: 1 }, { port: 2 }]) };
    delete (noEndpoints as { endpoints?: unknown }).endpoints;
    expect(mostEndpoints([candidate([noEndpoints])])).toBe(0);
    const noPorts: EndpointSlice = { ...makeSlice('ns', 'a', 2, 'IPv4', eps(3), []) };
    expect(mostEndpoints([candidate([noPorts])])).toBe(3);
    delete (noPorts as { ports?: unknown }).ports;
    expect(mostEndpoints([candidate([noPorts])])).toBe(3);
    expect(mostEndpoints([candidate([noPorts, noEndpoints])])).toBe(3);
  });

  it("sums a Service's slices and takes the largest Service, wherever it stands", () => {
    const small = makeSlice('ns', 'a', 1, 'IPv4', eps(2), [{ port: 1 }]);
    const big = makeSlice('ns', 'b', 1, 'IPv4', eps(3), [{ port: 1 }, { port: 2 }, { port: 3 }]);
    expect(mostEndpoints([candidate([small]), candidate([big]), candidate([small, small])])).toBe(9);
    expect(mostEndpoints([candidate([big]), candidate([small])])).toBe(9);
    expect(mostEndpoints([candidate([small]), candidate([small, small, small])])).toBe(6);
    expect(mostEndpoints([candidate([])])).toBe(0);
  });
});

describe('matchByKey: grouping', () => {
  it('fills each candidate from its Service: key, namespace and name, defaulted as objectKey defaults them', () => {
    const a = svc('ns', 'a');
    const bare = unnamed(undefined, undefined);
    const m = matchByKey(undefined, [a, bare], [], 4);
    expect(m.count).toBe(2);
    expect(m.work.get(0)).toMatchObject({ key: 'default/', namespace: 'default', name: '', service: bare, previous: undefined });
    expect(m.work.get(1)).toMatchObject({ key: 'ns/a', namespace: 'ns', name: 'a', service: a, previous: undefined });
    expect([...m.servicePos]).toEqual([1, 0]);
  });

  it('sorts by namespace first, then name', () => {
    const services = [svc('b', 'a'), svc('a', 'z'), svc('a', 'b')];
    const m = matchByKey(undefined, services, [], 4);
    expect([...m.servicePos]).toEqual([2, 1, 0]);
    expect([0, 1, 2].map((pos) => m.work.get(pos)?.key)).toEqual(['a/b', 'a/z', 'b/a']);
  });

  it("gives a Service all its slices of the family, each name's last listing, in input order", () => {
    const web = svc('ns', 'web');
    const w1 = slice('ns', 'web', 1, '10.0.0.1');
    const w2 = slice('ns', 'web', 2, '10.0.0.2');
    const w3 = slice('ns', 'web', 3, '10.0.0.3');
    const w1b = slice('ns', 'web', 1, '10.0.0.11');
    const w2b = slice('ns', 'web', 2, '10.0.0.12');
    const v6 = slice('ns', 'web', 4, 'fd00::1', 'IPv6');
    const m = matchByKey(undefined, [web], [w1, w2, v6, w3, w1b, w2b], 4);
    expect(m.work.get(0)?.slices).toEqual([w3, w1b, w2b]);
    expect([...m.slicePos]).toEqual([-1, -1, -1, 0, 0, 0]);
    const m6 = matchByKey(undefined, [web], [w1, w2, v6, w3, w1b, w2b], 6);
    expect(m6.work.get(0)?.slices).toEqual([v6]);
    expect([...m6.slicePos]).toEqual([-1, -1, 0, -1, -1, -1]);
  });

  it('ignores a slice without the service-name label, or with an empty one, even beside a Service with an empty name', () => {
    const nameless = svc('ns', '');
    const named = svc('ns', 'web');
    const bare = withoutLabels(slice('ns', 'x', 1, '10.0.0.1'));
    const empty = labelled(slice('ns', 'y', 1, '10.0.0.2'), '');
    const other = { ...bare, metadata: { ...bare.metadata, name: 'z-1', labels: { app: 'web' } } };
    const m = matchByKey(undefined, [named, nameless], [bare, empty, other], 4);
    expect(m.work.get(0)?.key).toBe('ns/');
    expect(m.work.get(0)?.slices).toEqual([]);
    expect(m.work.get(1)?.slices).toEqual([]);
    expect([...m.slicePos]).toEqual([-1, -1, -1]);
  });

  it('feeds a Service without a namespace the slices of the default namespace', () => {
    const bare = unnamed(undefined, 'web');
    const s = slice('default', 'web', 1, '10.0.0.1');
    const noNamespace = withoutLabels(slice('x', 'web', 2, '10.0.0.2'));
    const labelledNoNamespace: EndpointSlice = { ...noNamespace, metadata: { name: 'web-2', labels: { 'kubernetes.io/service-name': 'web' } } };
    const m = matchByKey(undefined, [bare], [s, labelledNoNamespace, slice('other', 'web', 1, '10.0.0.3')], 4);
    expect(m.work.get(0)?.slices).toEqual([s, labelledNoNamespace]);
    expect([...m.slicePos]).toEqual([0, 0, -1]);
  });

  it('keeps the previous slice list only when it holds the same objects', () => {
    const web = svc('ns', 'web');
    const w1 = slice('ns', 'web', 1, '10.0.0.1');
    const w2 = slice('ns', 'web', 2, '10.0.0.2');
    const prev = stateOf([web], [w1, w2]);
    const same = matchByKey(prev, [web], [w1, w2], 4);
    expect(same.work.get(0)?.slices).toBe(prev.entries[0]?.slices);
    const w2b = slice('ns', 'web', 2, '10.0.0.2');
    const replaced = matchByKey(prev, [web], [w1, w2b], 4);
    expect(replaced.work.get(0)?.slices).toEqual([w1, w2b]);
    expect(replaced.work.get(0)?.slices[1]).toBe(w2b);
    const fewer = matchByKey(prev, [web], [w1], 4);
    expect(fewer.work.get(0)?.slices).toEqual([w1]);
    expect(fewer.work.get(0)?.previous).toBe(prev.entries[0]);
  });

  it('lists every previous entry whose key is gone, and none that stays', () => {
    const services = [svc('ns', 'a'), svc('ns', 'b'), svc('ns', 'c')];
    const prev = stateOf(services, []);
    const m = matchByKey(prev, [svc('ns', 'b'), svc('ns', 'd')], [], 4);
    expect(m.removed).toEqual([prev.entries[0], prev.entries[2]]);
    expect(m.work.get(0)?.previous).toBe(prev.entries[1]);
    expect(matchByKey(prev, services, [], 4).removed).toEqual([]);
    expect(matchByKey(prev, [], [], 4).removed).toEqual(prev.entries);
  });
});

describe('matchByPosition: what it marks', () => {
  const a = svc('ns', 'a');
  const b = svc('ns', 'b');
  const a1 = slice('ns', 'a', 1, '10.0.0.1');
  const a2 = slice('ns', 'a', 2, '10.0.0.2');
  const b1 = slice('ns', 'b', 1, '10.0.0.3');
  // Input order b, a: entry 0 is ns/a, entry 1 is ns/b.
  const services = [b, a];
  const slices = [a1, b1, a2];
  const last = () => stateOf(services, slices);

  it('gives up when either array is a prefix of the last one, or longer', () => {
    const prev = last();
    expect(matchByPosition(prev, services.slice(0, 1), slices)).toBeUndefined();
    expect(matchByPosition(prev, services, slices.slice(0, 2))).toBeUndefined();
    expect(matchByPosition(prev, [...services, svc('ns', 'c')], slices)).toBeUndefined();
    expect(matchByPosition(prev, services, [...slices, slice('ns', 'b', 2, '10.0.0.4')])).toBeUndefined();
  });

  it('gives up when an element became a hole, or a hole an element', () => {
    const prev = last();
    const holeAt0 = new Array<Service>(2);
    holeAt0[1] = a;
    expect(matchByPosition(prev, holeAt0, slices)).toBeUndefined();
    const sliceHole = new Array<EndpointSlice>(3);
    sliceHole[0] = a1;
    sliceHole[2] = a2;
    expect(matchByPosition(prev, services, sliceHole)).toBeUndefined();
    const fromHoles = stateOf(holeAt0, sliceHole);
    expect(fromHoles.entries.map((e) => e.key)).toEqual(['ns/a']);
    expect(matchByPosition(fromHoles, holeAt0, sliceHole)?.work.size).toBe(0);
    expect(matchByPosition(fromHoles, [svc('ns', 'b'), a], sliceHole)).toBeUndefined();
    expect(matchByPosition(fromHoles, holeAt0, [a1, b1, a2])).toBeUndefined();
  });

  it('marks the entry of a replaced Service, at any position, with the new Service and its old slices', () => {
    const prev = last();
    const a2nd = svc('ns', 'a', 81);
    const m = matchByPosition(prev, [b, a2nd], slices);
    expect([...(m?.work.keys() ?? [])]).toEqual([0]);
    expect(m?.work.get(0)).toMatchObject({ key: 'ns/a', namespace: 'ns', name: 'a', service: a2nd, previous: prev.entries[0] });
    expect(m?.work.get(0)?.slices).toBe(prev.entries[0]?.slices);
    expect(m?.base).toBe(prev.entries);
    expect(m?.count).toBe(2);
    expect(m?.servicePos).toBe(prev.servicePos);
    expect(m?.slicePos).toBe(prev.slicePos);
    expect(m?.removed).toEqual([]);
  });

  it('marks the entry of a replaced slice, at any position, with the new slice where the old one was', () => {
    const prev = last();
    const b1new = slice('ns', 'b', 1, '10.0.0.9');
    const m = matchByPosition(prev, services, [a1, b1new, a2]);
    expect([...(m?.work.keys() ?? [])]).toEqual([1]);
    expect(m?.work.get(1)).toMatchObject({ key: 'ns/b', service: b, slices: [b1new], previous: prev.entries[1] });
    expect(m?.removed).toEqual([]);
  });

  it('replaces every changed slice of one entry, and once marks an entry whose Service and slices changed', () => {
    const prev = last();
    const a1new = slice('ns', 'a', 1, '10.0.0.7');
    const a2new = slice('ns', 'a', 2, '10.0.0.8');
    const m = matchByPosition(prev, services, [a1new, b1, a2new]);
    expect([...(m?.work.keys() ?? [])]).toEqual([0]);
    expect(m?.work.get(0)?.slices).toEqual([a1new, a2new]);
    expect(m?.work.get(0)?.slices[0]).toBe(a1new);
    expect(m?.work.get(0)?.slices[1]).toBe(a2new);
    const aNew = svc('ns', 'a', 82);
    const both = matchByPosition(prev, [b, aNew], [a1, b1, a2new]);
    expect([...(both?.work.keys() ?? [])]).toEqual([0]);
    expect(both?.work.get(0)).toMatchObject({ service: aNew, slices: [a1, a2new], previous: prev.entries[0] });
  });

  it('ignores replaced elements that no entry reads: an earlier listing of a Service, a slice of another family or Service', () => {
    const dup = [svc('ns', 'a', 90), b, a];
    const v6 = slice('ns', 'a', 3, 'fd00::1', 'IPv6');
    const orphan = slice('ns', 'gone', 1, '10.0.0.5');
    const withIgnored = stateOf(dup, [a1, v6, orphan]);
    expect([...withIgnored.servicePos]).toEqual([-1, 1, 0]);
    expect([...withIgnored.slicePos]).toEqual([0, -1, -1]);
    const m = matchByPosition(withIgnored, [svc('ns', 'a', 91), b, a], [a1, slice('ns', 'a', 3, 'fd00::2', 'IPv6'), slice('ns', 'gone', 1, '10.0.0.6')]);
    expect(m?.work.size).toBe(0);
    expect(m?.base).toBe(withIgnored.entries);
  });
});

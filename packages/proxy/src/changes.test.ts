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
  const prev = stateOf(services, slices);

  it('with the same arrays, nothing to look at', () => {
    const m = matchByPosition(prev, services, slices);
    expect(m?.base).toBe(prev.entries);
    expect(m?.work.size).toBe(0);
    expect(m?.count).toBe(2);
  });

  it('a replaced Service or slice marks its entry, with the new objects in place of the old', () => {
    const newB = svc('ns', 'b', 81);
    const newSlice = slice('ns', 'a', 1, '10.0.0.9');
    const m = matchByPosition(prev, [newB, services[1] as Service], [newSlice, slices[1] as EndpointSlice]);
    expect([...(m?.work.keys() ?? [])].sort()).toEqual([0, 1]);
    expect(m?.work.get(1)?.service).toBe(newB);
    expect(m?.work.get(0)?.slices).toEqual([newSlice]);
    expect(m?.work.get(0)?.previous).toBe(prev.entries[0]);
  });

  it('gives up when a length or a key differs', () => {
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

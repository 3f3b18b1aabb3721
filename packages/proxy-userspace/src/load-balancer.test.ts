import { describe, expect, it } from 'vitest';
import {
  balancerState,
  cleanupStaleStickySessions,
  createLoadBalancer,
  deleteService,
  newService,
  nextEndpoint,
  resetService,
  serviceHasEndpoints,
  setServicePortEndpoints,
  type LoadBalancer,
} from './load-balancer.js';
import { keepOrder, seededShuffle, type Shuffle } from './shuffle.js';

const spn = { namespace: 'ns', name: 'web', port: 'http' };
const ABC = ['10.0.0.1:80', '10.0.0.2:80', '10.0.0.3:80'];

function pick(lb: LoadBalancer, client: string, now: number, reset = false): { lb: LoadBalancer; got: string } {
  const r = nextEndpoint(lb, spn, client, reset, now);
  return r.ok ? { lb: r.value.balancer, got: r.value.endpoint } : { lb, got: r.error.message };
}

function sticky(ttl: number, endpoints = ABC): LoadBalancer {
  return setServicePortEndpoints(newService(createLoadBalancer({ shuffle: keepOrder }), spn, 'ClientIP', ttl), spn, endpoints);
}

describe('errors', () => {
  it('carries upstream texts', () => {
    const none = nextEndpoint(createLoadBalancer(), spn, '', false, 0);
    expect(none.ok ? '' : none.error).toEqual({ _tag: 'ErrMissingServiceEntry', message: 'missing service entry' });
    const empty = nextEndpoint(newService(createLoadBalancer(), spn, 'None', 0), spn, '', false, 0);
    expect(empty.ok ? '' : empty.error).toEqual({ _tag: 'ErrMissingEndpoints', message: 'missing endpoints' });
  });

  it('reports a source address it cannot split, only when affinity needs it', () => {
    const bad = nextEndpoint(sticky(60), spn, 'nonsense', false, 0);
    expect(bad.ok ? '' : bad.error.message).toBe('malformed source address "nonsense": address nonsense: missing port in address');
    const rr = setServicePortEndpoints(createLoadBalancer({ shuffle: keepOrder }), spn, ABC);
    expect(nextEndpoint(rr, spn, 'nonsense', false, 0).ok).toBe(true);
  });
});

describe('affinity timeout', () => {
  it('sticks while fewer than ttl whole seconds have passed since the last use', () => {
    let lb = sticky(10);
    let r = pick(lb, '1.1.1.1:5', 0);
    expect(r.got).toBe(ABC[0]);
    // 9.999 s truncates to 9 < 10: still sticky, and lastUsed moves to 9999
    r = pick(r.lb, '1.1.1.1:6', 9999);
    expect(r.got).toBe(ABC[0]);
    r = pick(r.lb, '1.1.1.1:7', 9999 + 9999);
    expect(r.got).toBe(ABC[0]);
    // exactly 10 s after the last use: expired, the ring gives the next endpoint
    r = pick(r.lb, '1.1.1.1:8', 9999 + 9999 + 10000);
    expect(r.got).toBe(ABC[1]);
    lb = r.lb;
    expect(balancerState(lb, spn)?.affinity.clients.get('1.1.1.1')).toEqual({ clientIP: '1.1.1.1', endpoint: ABC[1], lastUsed: 29998 });
  });

  it('ttl 0 means upstream default of 10800 s', () => {
    expect(balancerState(sticky(0), spn)?.affinity.ttlSeconds).toBe(10800);
  });

  it('a later NewService changes the affinity type but keeps the ttl of the existing entry (as upstream)', () => {
    const first = setServicePortEndpoints(createLoadBalancer(), spn, ABC);
    const lb = newService(first, spn, 'ClientIP', 60);
    expect(balancerState(lb, spn)?.affinity).toMatchObject({ type: 'ClientIP', ttlSeconds: 10800 });
    expect(balancerState(newService(lb, spn, '', 5), spn)?.affinity.type).toBe('ClientIP');
  });

  it('cleanupStaleStickySessions drops entries idle for ttl seconds or more', () => {
    let r = pick(sticky(10), '1.1.1.1:1', 0);
    r = pick(r.lb, '2.2.2.2:1', 5000);
    const at = (now: number) => [...(balancerState(cleanupStaleStickySessions(r.lb, spn, now), spn)?.affinity.clients.keys() ?? [])].sort();
    expect(at(9999)).toEqual(['1.1.1.1', '2.2.2.2']);
    expect(at(10000)).toEqual(['2.2.2.2']);
    expect(at(15000)).toEqual([]);
  });
});

describe('endpoint updates', () => {
  it('an unchanged set (in any order) keeps order, index and clients', () => {
    const r = pick(sticky(60), '1.1.1.1:1', 0);
    const same = setServicePortEndpoints(r.lb, spn, [...ABC].reverse());
    expect(same).toBe(r.lb);
  });

  it('shuffles from the sorted list when the length is unchanged, from the given order otherwise', () => {
    const seen: string[][] = [];
    const recording: Shuffle = (items, seed) => {
      seen.push([...items]);
      return { items: [...items], seed };
    };
    let lb = createLoadBalancer({ shuffle: recording });
    lb = setServicePortEndpoints(lb, spn, ['10.0.0.9:80', '10.0.0.1:80']);
    lb = setServicePortEndpoints(lb, spn, ['10.0.0.8:80', '10.0.0.2:80']);
    lb = setServicePortEndpoints(lb, spn, ['10.0.0.7:80', '10.0.0.3:80', '10.0.0.5:80']);
    expect(seen).toEqual([
      ['10.0.0.9:80', '10.0.0.1:80'],
      ['10.0.0.2:80', '10.0.0.8:80'],
      ['10.0.0.7:80', '10.0.0.3:80', '10.0.0.5:80'],
    ]);
    expect(balancerState(lb, spn)?.index).toBe(0);
  });

  it('an empty list resets the port: entry kept, endpoints, index and clients cleared', () => {
    const r = pick(sticky(60), '1.1.1.1:1', 0);
    const lb = setServicePortEndpoints(r.lb, spn, []);
    expect(balancerState(lb, spn)).toMatchObject({ endpoints: [], index: 0, affinity: { type: 'ClientIP', ttlSeconds: 60 } });
    expect(balancerState(lb, spn)?.affinity.clients.size).toBe(0);
    expect(serviceHasEndpoints(lb, spn)).toBe(false);
    expect(resetService(createLoadBalancer(), spn).services.size).toBe(0);
  });

  it('deleteService drops the entry', () => {
    const lb = deleteService(sticky(60), spn);
    expect(balancerState(lb, spn)).toBeUndefined();
    const r = nextEndpoint(lb, spn, '1.1.1.1:1', false, 0);
    expect(r.ok ? '' : r.error._tag).toBe('ErrMissingServiceEntry');
  });
});

describe('the seeded shuffle', () => {
  it('is a permutation, and the same seed gives the same order', () => {
    const items = Array.from({ length: 20 }, (_, i) => `10.0.0.${i}:80`);
    const a = seededShuffle(items, 42);
    const b = seededShuffle(items, 42);
    expect(a).toEqual(b);
    expect([...a.items].sort()).toEqual([...items].sort());
    expect(a.items).not.toEqual(items);
    expect(a.seed).not.toBe(42);
  });

  it('the balancer carries the advanced seed', () => {
    const lb = setServicePortEndpoints(createLoadBalancer({ seed: 7 }), spn, ABC);
    expect(lb.seed).toBe(seededShuffle(ABC, 7).seed);
    expect(balancerState(lb, spn)?.endpoints).toEqual(seededShuffle(ABC, 7).items);
  });
});

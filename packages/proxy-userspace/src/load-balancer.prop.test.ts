// INV-US-RR and INV-US-AFFINITY on the pure balancer, with the seeded shuffle.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { createLoadBalancer, newService, nextEndpoint, setServicePortEndpoints, type LoadBalancer } from './load-balancer.js';

const spn = { namespace: 'ns', name: 'svc', port: '' };
const endpointsArb = fc.uniqueArray(
  fc.tuple(fc.integer({ min: 1, max: 254 }), fc.integer({ min: 1, max: 65535 })).map(([a, p]) => `10.0.0.${a}:${p}`),
  { minLength: 1, maxLength: 8 },
);

function picks(lb: LoadBalancer, count: number, client = ''): { lb: LoadBalancer; got: string[] } {
  const got: string[] = [];
  let cur = lb;
  for (let i = 0; i < count; i++) {
    const r = nextEndpoint(cur, spn, client, false, 0);
    if (!r.ok) throw new Error(r.error.message);
    got.push(r.value.endpoint);
    cur = r.value.balancer;
  }
  return { lb: cur, got };
}

test.prop([endpointsArb, fc.integer(), fc.nat({ max: 20 })])(
  'INV-US-RR: without affinity, any n consecutive picks visit each of the n endpoints exactly once',
  (endpoints, seed, before) => {
    const lb = setServicePortEndpoints(createLoadBalancer({ seed }), spn, endpoints);
    const warmed = picks(lb, before).lb;
    const { got } = picks(warmed, endpoints.length);
    expect([...got].sort()).toEqual([...endpoints].sort());
    // and the ring repeats with period n
    const again = picks(warmed, 2 * endpoints.length).got;
    expect(again.slice(endpoints.length)).toEqual(again.slice(0, endpoints.length));
  },
);

const eventArb = fc.record({ client: fc.integer({ min: 1, max: 6 }), dtMs: fc.nat({ max: 30_000 }) }, { noNullPrototype: true });

test.prop([endpointsArb, fc.integer(), fc.integer({ min: 1, max: 20 }), fc.array(eventArb, { maxLength: 40 })])(
  'INV-US-AFFINITY: with ClientIP, a client gets the endpoint it last got until ttl whole seconds pass without it',
  (endpoints, seed, ttl, events) => {
    let lb = setServicePortEndpoints(newService(createLoadBalancer({ seed }), spn, 'ClientIP', ttl), spn, endpoints);
    const last = new Map<number, { endpoint: string; at: number }>();
    let now = 0;
    for (const e of events) {
      now += e.dtMs;
      const r = nextEndpoint(lb, spn, `192.168.0.${e.client}:${1000 + e.client}`, false, now);
      if (!r.ok) throw new Error(r.error.message);
      lb = r.value.balancer;
      const prior = last.get(e.client);
      if (prior !== undefined && Math.floor((now - prior.at) / 1000) < ttl) expect(r.value.endpoint).toBe(prior.endpoint);
      expect(endpoints).toContain(r.value.endpoint);
      last.set(e.client, { endpoint: r.value.endpoint, at: now });
    }
  },
);

test.prop([endpointsArb, fc.integer(), fc.nat({ max: 20 })])(
  'INV-US-AFFINITY: with ClientIP, up to n new clients in a row get n different endpoints',
  (endpoints, seed, before) => {
    let lb = setServicePortEndpoints(newService(createLoadBalancer({ seed }), spn, 'ClientIP', 0), spn, endpoints);
    lb = picks(lb, before, '172.16.0.1:1').lb;
    const got: string[] = [];
    for (let c = 0; c < endpoints.length; c++) {
      const r = nextEndpoint(lb, spn, `10.9.0.${c + 1}:40000`, false, 0);
      if (!r.ok) throw new Error(r.error.message);
      lb = r.value.balancer;
      got.push(r.value.endpoint);
    }
    expect(new Set(got).size).toBe(endpoints.length);
  },
);

// INV-US-UPDATE: whatever sequence of endpoint updates, resets, affinity changes, service
// deletions and picks, a pick returns an endpoint of the current set, or upstream's error when
// there is no entry or no endpoint; and no operation changes the balancer it was given.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import {
  createLoadBalancer,
  deleteService,
  newService,
  nextEndpoint,
  resetService,
  setServicePortEndpoints,
  type LoadBalancer,
} from './load-balancer.js';

const spn = { namespace: 'ns', name: 'svc', port: 'p' };
const POOL = ['10.1.0.1:80', '10.1.0.2:80', '10.1.0.3:80', '10.1.0.4:80', '10.1.0.5:80', '[fd00::6]:80'];

interface Model {
  exists: boolean;
  endpoints: Set<string>;
  now: number;
}
interface Real {
  lb: LoadBalancer;
}

/** A deep, order-preserving picture of a balancer, to prove an old value did not change. */
function picture(lb: LoadBalancer): string {
  return JSON.stringify({
    seed: lb.seed,
    services: [...lb.services].map(([k, s]) => [k, s.endpoints, s.index, s.affinity.type, s.affinity.ttlSeconds, [...s.affinity.clients]]),
  });
}

function step(r: Real, next: LoadBalancer): void {
  const before = r.lb;
  const pic = picture(before);
  r.lb = next;
  expect(picture(before)).toBe(pic);
}

class SetEndpoints implements fc.Command<Model, Real> {
  constructor(readonly list: readonly string[]) {}
  check = () => true;
  run(m: Model, r: Real): void {
    step(r, setServicePortEndpoints(r.lb, spn, this.list));
    if (this.list.length > 0) m.exists = true;
    m.endpoints = new Set(this.list);
  }
  toString = () => `set(${this.list.join(',')})`;
}

class Reset implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real): void {
    step(r, resetService(r.lb, spn));
    m.endpoints = new Set();
  }
  toString = () => 'reset';
}

class Delete implements fc.Command<Model, Real> {
  check = () => true;
  run(m: Model, r: Real): void {
    step(r, deleteService(r.lb, spn));
    m.exists = false;
    m.endpoints = new Set();
  }
  toString = () => 'delete';
}

class Affinity implements fc.Command<Model, Real> {
  constructor(readonly type: string, readonly ttl: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    step(r, newService(r.lb, spn, this.type, this.ttl));
    m.exists = true;
  }
  toString = () => `newService(${this.type},${this.ttl})`;
}

class Pick implements fc.Command<Model, Real> {
  constructor(readonly client: number, readonly reset: boolean, readonly dtMs: number) {}
  check = () => true;
  run(m: Model, r: Real): void {
    m.now += this.dtMs;
    const before = r.lb;
    const pic = picture(before);
    const res = nextEndpoint(r.lb, spn, `192.0.2.${this.client}:5000`, this.reset, m.now);
    expect(picture(before)).toBe(pic);
    if (res.ok) r.lb = res.value.balancer;
    if (!m.exists) expect(res.ok ? res.value.endpoint : res.error._tag).toBe('ErrMissingServiceEntry');
    else if (m.endpoints.size === 0) expect(res.ok ? res.value.endpoint : res.error._tag).toBe('ErrMissingEndpoints');
    else expect(m.endpoints.has(res.ok ? res.value.endpoint : res.error._tag)).toBe(true);
  }
  toString = () => `pick(${this.client},${this.reset},+${this.dtMs})`;
}

const commands = [
  fc.subarray(POOL).chain((s) => fc.shuffledSubarray(s, { minLength: s.length, maxLength: s.length })).map((l) => new SetEndpoints(l)),
  fc.constant(new Reset()),
  fc.constant(new Delete()),
  fc.tuple(fc.constantFrom('None', 'ClientIP', ''), fc.nat({ max: 30 })).map(([t, ttl]) => new Affinity(t, ttl)),
  fc.tuple(fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.nat({ max: 40_000 })).map(([c, reset, dt]) => new Pick(c, reset, dt)),
  fc.tuple(fc.integer({ min: 1, max: 4 }), fc.boolean(), fc.nat({ max: 40_000 })).map(([c, reset, dt]) => new Pick(c, reset, dt)),
];

test.prop([fc.integer(), fc.commands(commands, { maxCommands: 60 })])(
  'INV-US-UPDATE: after any update sequence every pick is a current endpoint, and old balancers stay unchanged',
  (seed, cmds) => {
    fc.modelRun(() => ({ model: { exists: false, endpoints: new Set<string>(), now: 0 }, real: { lb: createLoadBalancer({ seed }) } }), cmds);
  },
);

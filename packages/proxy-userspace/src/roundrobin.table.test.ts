// upstream's roundrobin_test.go, re-typed as data: each case is the upstream test's sequence of
// calls and expected picks. Upstream reads the shuffled order back from the balancer; here the
// shuffle is `keepOrder`, so the expected endpoints are written out.
// upstream: pkg/proxy/userspace/roundrobin_test.go (v1.25 API: OnEndpointsAdd/Update/Delete,
// NextEndpoint(svc, srcAddr, sessionAffinityReset))
import type { Endpoints, Result } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import {
  createLoadBalancer,
  newService,
  nextEndpoint,
  onEndpointsAdd,
  onEndpointsDelete,
  onEndpointsUpdate,
  type LoadBalancer,
} from './load-balancer.js';
import type { ServicePortName } from '@kubesvc/api-types';
import type { ErrUserspaceInput } from './errors.js';
import { keepOrder } from './shuffle.js';

type Subset = { readonly ips: readonly string[]; readonly ports: readonly (readonly [string, number])[] };

function ep(name: string, subsets: readonly Subset[] | undefined): Endpoints {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { namespace: 'testnamespace', name },
    ...(subsets === undefined
      ? {}
      : {
          subsets: subsets.map((s) => ({
            addresses: s.ips.map((ip) => ({ ip })),
            ports: s.ports.map(([n, port]) => (n === '' ? { port } : { name: n, port })),
          })),
        }),
  };
}

const svc = (name: string, port: string): ServicePortName => ({ namespace: 'testnamespace', name, port });
const client = (n: number): string => `127.0.0.${n}:0`;

type Step =
  | { readonly add: Endpoints }
  | { readonly update: readonly [Endpoints, Endpoints] }
  | { readonly del: Endpoints }
  | { readonly sticky: ServicePortName }
  | { readonly pick: ServicePortName; readonly client?: number; readonly reset?: boolean; readonly expect: string };

interface Case {
  readonly upstream: string;
  readonly steps: readonly Step[];
}

const foo = svc('foo', 'p');
const fooQ = svc('foo', 'q');
const bar = svc('bar', 'p');
const fooU = svc('foo', '');
const barU = svc('bar', '');
const picks = (s: ServicePortName, expected: readonly string[], clients?: readonly number[]): Step[] =>
  expected.map((e, i) => {
    const c = clients?.[i];
    return c === undefined ? { pick: s, expect: e } : { pick: s, client: c, expect: e };
  });

const v1Updates = ep('foo', [
  { ips: ['endpoint1'], ports: [['p', 1], ['q', 10]] },
  { ips: ['endpoint2'], ports: [['p', 2], ['q', 20]] },
  { ips: ['endpoint3'], ports: [['p', 3], ['q', 30]] },
]);
const v2Updates = ep('foo', [
  { ips: ['endpoint4'], ports: [['p', 4], ['q', 40]] },
  { ips: ['endpoint5'], ports: [['p', 5], ['q', 50]] },
]);
const foo123 = ep('foo', [{ ips: ['endpoint1', 'endpoint2', 'endpoint3'], ports: [['p', 123]] }]);
const bar456 = ep('bar', [{ ips: ['endpoint4', 'endpoint5', 'endpoint6'], ports: [['p', 456]] }]);
const three = ep('foo', [
  { ips: ['endpoint1'], ports: [['', 1]] },
  { ips: ['endpoint2'], ports: [['', 2]] },
  { ips: ['endpoint3'], ports: [['', 3]] },
]);
const onePortsOf = (name: string, ports: readonly number[]): Endpoints => ep(name, [{ ips: ['endpoint'], ports: ports.map((p) => ['', p] as const) }]);

const cases: readonly Case[] = [
  { upstream: 'TestLoadBalanceFailsWithNoEndpoints', steps: [{ pick: svc('foo', 'does-not-exist'), expect: 'ErrMissingServiceEntry' }] },
  {
    upstream: 'TestLoadBalanceWorksWithSingleEndpoint',
    steps: [
      { pick: foo, expect: 'ErrMissingServiceEntry' },
      { add: ep('foo', [{ ips: ['endpoint1'], ports: [['p', 40]] }]) },
      ...picks(foo, ['endpoint1:40', 'endpoint1:40', 'endpoint1:40', 'endpoint1:40']),
    ],
  },
  {
    upstream: 'TestLoadBalanceWorksWithMultipleEndpoints',
    steps: [
      { pick: foo, expect: 'ErrMissingServiceEntry' },
      { add: ep('foo', [{ ips: ['endpoint'], ports: [['p', 1], ['p', 2], ['p', 3]] }]) },
      ...picks(foo, ['endpoint:1', 'endpoint:2', 'endpoint:3', 'endpoint:1']),
    ],
  },
  {
    upstream: 'TestLoadBalanceWorksWithMultipleEndpointsMultiplePorts',
    steps: [
      { pick: foo, expect: 'ErrMissingServiceEntry' },
      {
        add: ep('foo', [
          { ips: ['endpoint1', 'endpoint2'], ports: [['p', 1], ['q', 2]] },
          { ips: ['endpoint3'], ports: [['p', 3], ['q', 4]] },
        ]),
      },
      ...picks(foo, ['endpoint1:1', 'endpoint2:1', 'endpoint3:3', 'endpoint1:1']),
      ...picks(fooQ, ['endpoint1:2', 'endpoint2:2', 'endpoint3:4', 'endpoint1:2']),
    ],
  },
  {
    upstream: 'TestLoadBalanceWorksWithMultipleEndpointsAndUpdates',
    steps: [
      { pick: foo, expect: 'ErrMissingServiceEntry' },
      { add: v1Updates },
      ...picks(foo, ['endpoint1:1', 'endpoint2:2', 'endpoint3:3', 'endpoint1:1']),
      ...picks(fooQ, ['endpoint1:10', 'endpoint2:20', 'endpoint3:30', 'endpoint1:10']),
      // one fewer endpoint: the round robin starts again at the beginning
      { update: [v1Updates, v2Updates] },
      ...picks(foo, ['endpoint4:4', 'endpoint5:5', 'endpoint4:4', 'endpoint5:5']),
      ...picks(fooQ, ['endpoint4:40', 'endpoint5:50', 'endpoint4:40', 'endpoint5:50']),
      { update: [v2Updates, ep('foo', undefined)] },
      { pick: foo, expect: 'ErrMissingEndpoints' },
    ],
  },
  {
    upstream: 'TestLoadBalanceWorksWithServiceRemoval',
    steps: [
      { pick: foo, expect: 'ErrMissingServiceEntry' },
      { add: foo123 },
      { add: bar456 },
      ...picks(foo, ['endpoint1:123', 'endpoint2:123', 'endpoint3:123', 'endpoint1:123', 'endpoint2:123']),
      ...picks(bar, ['endpoint4:456', 'endpoint5:456', 'endpoint6:456', 'endpoint4:456', 'endpoint5:456']),
      { del: foo123 },
      { pick: foo, expect: 'ErrMissingEndpoints' },
      // bar continues where it left off
      ...picks(bar, ['endpoint6:456', 'endpoint4:456', 'endpoint5:456', 'endpoint6:456']),
    ],
  },
  {
    upstream: 'TestStickyLoadBalanceWorksWithNewServiceCalledFirst',
    steps: [
      { pick: fooU, expect: 'ErrMissingServiceEntry' },
      { sticky: fooU },
      { add: three },
      ...picks(fooU, ['endpoint1:1', 'endpoint1:1', 'endpoint1:1', 'endpoint1:1'], [1, 1, 1, 1]),
      ...picks(fooU, ['endpoint2:2', 'endpoint2:2', 'endpoint2:2', 'endpoint2:2'], [2, 2, 2, 2]),
      ...picks(fooU, ['endpoint3:3', 'endpoint3:3', 'endpoint3:3', 'endpoint3:3'], [3, 3, 3, 3]),
      ...picks(fooU, ['endpoint1:1', 'endpoint2:2', 'endpoint3:3', 'endpoint1:1', 'endpoint2:2', 'endpoint3:3'], [1, 2, 3, 1, 2, 3]),
    ],
  },
  {
    upstream: 'TestStickyLoadBalanceWorksWithNewServiceCalledSecond',
    steps: [
      { pick: fooU, expect: 'ErrMissingServiceEntry' },
      { add: ep('foo', [{ ips: ['endpoint1'], ports: [['', 1]] }, { ips: ['endpoint2'], ports: [['', 2]] }]) },
      { sticky: fooU },
      ...picks(fooU, ['endpoint1:1', 'endpoint1:1', 'endpoint1:1', 'endpoint1:1'], [1, 1, 1, 1]),
      ...picks(fooU, ['endpoint2:2', 'endpoint2:2', 'endpoint2:2', 'endpoint2:2'], [2, 2, 2, 2]),
      // two endpoints: the third client wraps around to the first
      ...picks(fooU, ['endpoint1:1', 'endpoint1:1', 'endpoint1:1', 'endpoint1:1'], [3, 3, 3, 3]),
      ...picks(fooU, ['endpoint1:1', 'endpoint2:2', 'endpoint1:1', 'endpoint1:1', 'endpoint2:2', 'endpoint1:1'], [1, 2, 3, 1, 2, 3]),
    ],
  },
  {
    upstream: 'TestStickyLoadBalanaceWorksWithMultipleEndpointsRemoveOne',
    steps: [
      { pick: fooU, expect: 'ErrMissingServiceEntry' },
      { sticky: fooU },
      { add: onePortsOf('foo', [1, 2, 3]) },
      ...picks(fooU, ['endpoint:1', 'endpoint:1', 'endpoint:2', 'endpoint:2', 'endpoint:3'], [1, 1, 2, 2, 3]),
      // endpoint:3 goes: its client is re-balanced from the start of the new list
      { update: [onePortsOf('foo', [1, 2, 3]), onePortsOf('foo', [1, 2])] },
      ...picks(fooU, ['endpoint:1', 'endpoint:2', 'endpoint:1'], [1, 2, 3]),
      // endpoint:4 arrives: everyone keeps their endpoint, new clients start at index 0
      { update: [onePortsOf('foo', [1, 2]), onePortsOf('foo', [1, 2, 4])] },
      ...picks(fooU, ['endpoint:1', 'endpoint:2', 'endpoint:1', 'endpoint:1', 'endpoint:2', 'endpoint:4'], [1, 2, 3, 4, 5, 6]),
    ],
  },
  {
    upstream: 'TestStickyLoadBalanceWorksWithMultipleEndpointsAndUpdates',
    steps: [
      { pick: fooU, expect: 'ErrMissingServiceEntry' },
      { sticky: fooU },
      { add: onePortsOf('foo', [1, 2, 3]) },
      ...picks(fooU, ['endpoint:1', 'endpoint:1', 'endpoint:2', 'endpoint:2', 'endpoint:3', 'endpoint:1', 'endpoint:2'], [1, 1, 2, 2, 3, 1, 2]),
      { update: [onePortsOf('foo', [1, 2, 3]), onePortsOf('foo', [4, 5])] },
      ...picks(fooU, ['endpoint:4', 'endpoint:5', 'endpoint:4', 'endpoint:4', 'endpoint:5', 'endpoint:5'], [1, 2, 1, 1, 2, 2]),
      { update: [onePortsOf('foo', [4, 5]), ep('foo', undefined)] },
      { pick: fooU, expect: 'ErrMissingEndpoints' },
    ],
  },
  {
    upstream: 'TestStickyLoadBalanceWorksWithServiceRemoval',
    steps: [
      { pick: fooU, expect: 'ErrMissingServiceEntry' },
      { sticky: fooU },
      { sticky: barU },
      { add: onePortsOf('foo', [1, 2, 3]) },
      { add: onePortsOf('bar', [4, 5]) },
      ...picks(
        fooU,
        ['endpoint:1', 'endpoint:2', 'endpoint:3', 'endpoint:1', 'endpoint:1', 'endpoint:2', 'endpoint:2', 'endpoint:3', 'endpoint:3'],
        [1, 2, 3, 1, 1, 2, 2, 3, 3],
      ),
      ...picks(barU, ['endpoint:4', 'endpoint:5', 'endpoint:4', 'endpoint:4', 'endpoint:5', 'endpoint:5'], [1, 2, 1, 1, 2, 2]),
      { del: onePortsOf('foo', [1, 2, 3]) },
      { pick: fooU, expect: 'ErrMissingEndpoints' },
      ...picks(barU, ['endpoint:4', 'endpoint:5', 'endpoint:4', 'endpoint:5', 'endpoint:4', 'endpoint:4'], [1, 2, 1, 2, 1, 1]),
    ],
  },
  {
    upstream: 'TestStickyLoadBalanceWorksWithEndpointFails',
    steps: [
      { pick: fooU, expect: 'ErrMissingServiceEntry' },
      { sticky: fooU },
      { add: three },
      ...picks(fooU, ['endpoint1:1', 'endpoint2:2', 'endpoint3:3'], [1, 2, 3]),
      // a reset (a failed dial) bypasses the client's entry and takes the next in the ring
      { pick: fooU, client: 1, reset: true, expect: 'endpoint1:1' },
      { pick: fooU, client: 1, reset: true, expect: 'endpoint2:2' },
      { pick: fooU, client: 1, reset: true, expect: 'endpoint3:3' },
      { pick: fooU, client: 2, expect: 'endpoint2:2' },
      { pick: fooU, client: 2, reset: true, expect: 'endpoint1:1' },
      { pick: fooU, client: 3, reset: true, expect: 'endpoint2:2' },
      { pick: fooU, client: 1, reset: true, expect: 'endpoint3:3' },
      { pick: fooU, client: 2, reset: true, expect: 'endpoint1:1' },
      { pick: fooU, client: 3, reset: true, expect: 'endpoint2:2' },
    ],
  },
];

/** The balancer a handler returns; upstream's tables only hold well-formed Endpoints. */
function handled(r: Result<LoadBalancer, ErrUserspaceInput>): LoadBalancer {
  if (!r.ok) throw new Error(`handler refused a table's Endpoints: ${JSON.stringify(r.error)}`);
  return r.value;
}

function run(steps: readonly Step[]): void {
  let lb: LoadBalancer = createLoadBalancer({ shuffle: keepOrder });
  for (const [i, step] of steps.entries()) {
    if ('add' in step) lb = handled(onEndpointsAdd(lb, step.add));
    else if ('update' in step) lb = handled(onEndpointsUpdate(lb, step.update[0], step.update[1]));
    else if ('del' in step) lb = handled(onEndpointsDelete(lb, step.del));
    else if ('sticky' in step) lb = newService(lb, step.sticky, 'ClientIP', 10800);
    else {
      const r = nextEndpoint(lb, step.pick, step.client === undefined ? '' : client(step.client), step.reset ?? false, 0);
      if (r.ok) lb = r.value.balancer;
      expect(r.ok ? r.value.endpoint : r.error._tag, `step ${i}`).toBe(step.expect);
    }
  }
}

describe('upstream roundrobin_test.go', () => {
  for (const c of cases) it(c.upstream, () => run(c.steps));
});

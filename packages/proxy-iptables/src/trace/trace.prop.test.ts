// Properties of the traced rules: INV-IPT-UNIFORM (balanced chains give each usable endpoint
// 1/n up to the stated rounding) and INV-IPT-TRACE-SERVICE (a packet to any address of a
// service reaches only that service's endpoints, with probabilities summing to exactly 1, and
// a remembered client sticks to its endpoint until the affinity timeout).
// The expected endpoint sets are derived from the generated cluster description, not from the
// rules: usable = ready endpoints; local = usable ones on this node; Local policies use local.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { describe, expect } from 'vitest';
import { generateRules } from '../backend.js';
import { validConfig } from '../proxier-config.fixtures.js';
import type { L4Protocol } from '../ruleset.js';
import { addRational as add, compareRational as compare, parseDecimalRational as parseDecimal, type Rational, RATIONAL_ONE as ONE, RATIONAL_ZERO as ZERO, rationalDistance as distance, reduceRational as reduce } from '@kubesvc/proxy';
import { tracePacket } from './trace-packet.js';
import type { Packet, RecentEntry, TraceOptions, TraceOutcome } from './trace-types.js';
import { analyticBound, POD, SERVICE_IP, serviceWithEndpoints } from './uniformity.fixtures.js';

const HALF_ULP = reduce(1n, 20_000_000_000n);
const KERNEL_WORST = parseDecimal('2.8173e-10') ?? ONE;
/** The proven bound as a decimal at least as large (the double is rounded up by a relative 1e-9). */
function boundRational(n: number, a: number): Rational {
  return parseDecimal((analyticBound(n, a) * (1 + 1e-9)).toExponential(12)) ?? ONE;
}

function sum(outcomes: readonly TraceOutcome[], key: 'written' | 'kernel'): Rational {
  return outcomes.reduce((acc, o) => add(acc, o.probability[key]), ZERO);
}

describe('INV-IPT-UNIFORM', () => {
  test.prop([fc.integer({ min: 1, max: 160 }), fc.integer({ min: 0, max: 4 })])(
    'INV-IPT-UNIFORM: a service with n usable endpoints (n ≤ 160, plus unusable ones) gives each exactly one DNAT outcome, within 5e-11 of 1/n written (and the proven bound), within 2.8173e-10 in the kernel, summing to exactly 1',
    (n, unusable) => {
      const { ruleset, endpoints } = serviceWithEndpoints(n, unusable);
      const result = tracePacket(ruleset, { source: POD, destination: SERVICE_IP, protocol: 'tcp', destinationPort: 80, entry: 'pod' }, { localAddresses: ['192.168.0.2'] });
      if (!result.ok) throw new Error(result.error.message);
      const outcomes = result.value.outcomes;
      expect(outcomes.map((o) => o.kind)).toEqual(endpoints.map(() => 'dnat'));
      expect(outcomes.map((o) => o.dnat).sort()).toEqual([...endpoints].sort());
      const ideal = reduce(1n, BigInt(n));
      const proven = boundRational(n, 5e-11);
      for (const o of outcomes) {
        const w = o.probability.written;
        const k = o.probability.kernel;
        const dist = (r: Rational): Rational => distance(r, ideal);
        expect(compare(dist(w), HALF_ULP)).toBeLessThanOrEqual(0);
        expect(compare(dist(w), proven)).toBeLessThanOrEqual(0);
        expect(compare(dist(k), KERNEL_WORST)).toBeLessThanOrEqual(0);
      }
      expect(sum(outcomes, 'written')).toEqual(ONE);
      expect(sum(outcomes, 'kernel')).toEqual(ONE);
    },
  );
});

// ---- INV-IPT-TRACE-SERVICE ----------------------------------------------------------------

const NODE = 'node-a';
const NODE_IP = '192.168.0.2';
const CLIENT = '203.0.113.2';
const BLOCKED_CLIENT = '203.0.113.130';

interface PortGen {
  readonly name: string;
  readonly protocol: 'TCP' | 'UDP' | 'SCTP';
  readonly port: number;
}
interface EndpointGen {
  readonly ip: number;
  readonly ready: boolean;
  readonly local: boolean;
}
interface ServiceGen {
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly ports: readonly PortGen[];
  readonly endpoints: readonly EndpointGen[];
  readonly etpLocal: boolean;
  readonly itpLocal: boolean;
  readonly affinity: number | undefined;
  readonly externalIP: boolean;
  readonly sourceRange: boolean;
}

const serviceGenArb: fc.Arbitrary<ServiceGen> = fc.record(
  {
    type: fc.constantFrom<'ClusterIP' | 'NodePort' | 'LoadBalancer'>('ClusterIP', 'NodePort', 'LoadBalancer'),
    ports: fc.uniqueArray(
      fc.record(
        {
          name: fc.constantFrom('http', 'https', 'dns', 'p80'),
          protocol: fc.constantFrom<'TCP' | 'UDP' | 'SCTP'>('TCP', 'UDP', 'SCTP'),
          port: fc.integer({ min: 1, max: 60000 }),
        },
        { noNullPrototype: true },
      ),
      { minLength: 1, maxLength: 2, selector: (p) => p.name },
      // Validation refuses two ports with the same port number and protocol (Duplicate value).
    ).filter((ports) => new Set(ports.map((p) => `${p.protocol}/${p.port}`)).size === ports.length),
    endpoints: fc.uniqueArray(fc.record({ ip: fc.integer({ min: 1, max: 250 }), ready: fc.boolean(), local: fc.boolean() }, { noNullPrototype: true }), {
      maxLength: 4,
      selector: (e) => e.ip,
    }),
    etpLocal: fc.boolean(),
    itpLocal: fc.boolean(),
    affinity: fc.option(fc.integer({ min: 1, max: 86400 }), { nil: undefined }),
    externalIP: fc.boolean(),
    sourceRange: fc.boolean(),
  },
  { noNullPrototype: true },
);

interface Spec extends ServiceGen {
  readonly index: number;
  readonly name: string;
  readonly clusterIP: string;
}

const clusterArb = fc.array(serviceGenArb, { maxLength: 50 }).map((gens) => {
  const specs: Spec[] = gens.map((g, i) => ({ ...g, index: i, name: `svc${i}`, clusterIP: `172.30.${i >> 8}.${(i & 255) + 1}` }));
  const services = specs.map(
    (s): Service => ({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { namespace: 'ns', name: s.name },
      spec: {
        type: s.type,
        clusterIP: s.clusterIP,
        ports: s.ports.map((p, j) => ({ ...p, ...(s.type === 'ClusterIP' ? {} : { nodePort: nodePortOf(s, j) }) })),
        ...(s.etpLocal && s.type !== 'ClusterIP' ? { externalTrafficPolicy: 'Local' as const } : {}),
        ...(s.itpLocal ? { internalTrafficPolicy: 'Local' as const } : {}),
        ...(s.affinity === undefined ? {} : { sessionAffinity: 'ClientIP' as const, sessionAffinityConfig: { clientIP: { timeoutSeconds: s.affinity } } }),
        ...(s.externalIP ? { externalIPs: [externalIPOf(s)] } : {}),
        ...(s.sourceRange && s.type === 'LoadBalancer' ? { loadBalancerSourceRanges: ['203.0.113.0/25'] } : {}),
      },
      status: s.type === 'LoadBalancer' ? { loadBalancer: { ingress: [{ ip: lbIPOf(s) }] } } : {},
    }),
  );
  const slices = specs.map(
    (s): EndpointSlice => ({
      apiVersion: 'discovery.k8s.io/v1',
      kind: 'EndpointSlice',
      metadata: { namespace: 'ns', name: `${s.name}-1`, labels: { 'kubernetes.io/service-name': s.name } },
      addressType: 'IPv4',
      endpoints: s.endpoints.map((e) => ({
        addresses: [endpointAddress(s, e)],
        conditions: { ready: e.ready, serving: e.ready, terminating: false },
        nodeName: e.local ? NODE : 'node-b',
      })),
      ports: s.ports.map((p) => ({ name: p.name, port: p.port + 1000, protocol: p.protocol })),
    }),
  );
  return { specs, services, slices };
});

function nodePortOf(s: Spec, j: number): number {
  return 30000 + s.index * 2 + j;
}
function externalIPOf(s: Spec): string {
  return `192.168.99.${s.index + 1}`;
}
function lbIPOf(s: Spec): string {
  return `1.2.3.${s.index + 1}`;
}
function endpointAddress(s: Spec, e: EndpointGen): string {
  return `10.${180 + (s.index >> 6)}.${s.index & 63}.${e.ip}`;
}

const config = validConfig({ nodeName: NODE, nodeIPs: ['127.0.0.1', NODE_IP], localDetector: { kind: 'cidr', cidr: '10.0.0.0/8' } });
const options: TraceOptions = { localAddresses: [NODE_IP] };

type Expectation = { readonly kind: 'endpoints'; readonly endpoints: readonly string[] } | { readonly kind: 'drop' } | { readonly kind: 'reject' };

function expectOutcomes(outcomes: readonly TraceOutcome[], expected: Expectation, what: string): void {
  if (expected.kind !== 'endpoints') {
    expect(outcomes.map((o) => o.kind), what).toEqual([expected.kind]);
    expect(outcomes[0]?.probability.written, what).toEqual(ONE);
    return;
  }
  for (const o of outcomes) {
    expect(o.kind, what).toBe('dnat');
    expect(expected.endpoints, what).toContain(o.dnat);
  }
  // Every usable endpoint is reachable (each has a positive probability).
  expect(new Set(outcomes.map((o) => o.dnat)), what).toEqual(new Set(expected.endpoints));
  expect(sum(outcomes, 'written'), what).toEqual(ONE);
  expect(sum(outcomes, 'kernel'), what).toEqual(ONE);
}

function trace(ruleset: Parameters<typeof tracePacket>[0], packet: Packet, extra: Partial<TraceOptions> = {}): readonly TraceOutcome[] {
  const result = tracePacket(ruleset, packet, { ...options, ...extra });
  if (!result.ok) throw new Error(result.error.message);
  return result.value.outcomes;
}

describe('INV-IPT-TRACE-SERVICE', () => {
  test.prop([clusterArb])(
    'INV-IPT-TRACE-SERVICE: a packet to a ClusterIP, NodePort, externalIP or LoadBalancer IP reaches only its service\'s usable endpoints (local ones under Local policy), with probabilities summing to exactly 1; otherwise it is dropped or rejected',
    ({ specs, services, slices }) => {
      const { ruleset } = generateRules(services, slices, config);
      for (const s of specs) {
        for (const p of s.ports) {
          const protocol = p.protocol.toLowerCase() as L4Protocol;
          const usable = s.endpoints.filter((e) => e.ready);
          const local = usable.filter((e) => e.local);
          const addresses = (eps: readonly EndpointGen[]): string[] => eps.map((e) => `${endpointAddress(s, e)}:${p.port + 1000}`);
          const policy = (localPolicy: boolean): Expectation =>
            usable.length === 0 ? { kind: 'reject' } : localPolicy ? (local.length === 0 ? { kind: 'drop' } : { kind: 'endpoints', endpoints: addresses(local) }) : { kind: 'endpoints', endpoints: addresses(usable) };
          const internal = policy(s.itpLocal);
          const external = policy(s.etpLocal && s.type !== 'ClusterIP');

          const at = (source: string, destination: string, port: number, entry: Packet['entry']): Packet => ({ source, destination, protocol, destinationPort: port, entry });
          expectOutcomes(trace(ruleset, at(POD, s.clusterIP, p.port, 'pod')), internal, `${s.name}:${p.name} cluster IP`);
          if (s.type !== 'ClusterIP') {
            const np = nodePortOf(s, s.ports.indexOf(p));
            const out = trace(ruleset, at(CLIENT, NODE_IP, np, 'outside'));
            expectOutcomes(out, external, `${s.name}:${p.name} node port`);
            if (external.kind === 'endpoints') {
              // Cluster policy masquerades outside traffic; Local keeps the client's address.
              for (const o of out) expect(o.masqueraded).toBe(!s.etpLocal);
            }
          }
          if (s.externalIP) expectOutcomes(trace(ruleset, at(CLIENT, externalIPOf(s), p.port, 'outside')), external, `${s.name}:${p.name} external IP`);
          // A pod going to an external address is treated like going out and back in, under
          // neither traffic policy: all usable endpoints (upstream: "pod traffic for ... external
          // destinations"), except that loadBalancerSourceRanges still apply to LB IPs.
          const fromPod: Expectation = usable.length === 0 ? { kind: 'reject' } : { kind: 'endpoints', endpoints: addresses(usable) };
          if (s.externalIP) expectOutcomes(trace(ruleset, at(POD, externalIPOf(s), p.port, 'pod')), fromPod, `${s.name}:${p.name} external IP from a pod`);
          if (s.type === 'LoadBalancer') {
            const podToLB: Expectation = s.sourceRange && usable.length > 0 ? { kind: 'drop' } : fromPod;
            expectOutcomes(trace(ruleset, at(POD, lbIPOf(s), p.port, 'pod')), podToLB, `${s.name}:${p.name} LB IP from a pod`);
          }
          if (s.type === 'LoadBalancer') {
            expectOutcomes(trace(ruleset, at(CLIENT, lbIPOf(s), p.port, 'outside')), external, `${s.name}:${p.name} LB IP`);
            if (s.sourceRange) {
              // Outside loadBalancerSourceRanges: dropped (rejected when there is no endpoint at all).
              const blocked: Expectation = usable.length === 0 ? { kind: 'reject' } : { kind: 'drop' };
              expectOutcomes(trace(ruleset, at(BLOCKED_CLIENT, lbIPOf(s), p.port, 'outside')), blocked, `${s.name}:${p.name} LB IP, blocked source`);
            }
          }
        }
      }
    },
  );

  test.prop([clusterArb, fc.nat(), fc.integer({ min: 0, max: 10_000_000 })])(
    'INV-IPT-TRACE-SERVICE: with a recent entry for the client, a ClientIP service sends it to the remembered endpoint with probability 1 until the timeout, and balances again after it',
    ({ specs, services, slices }, pick, lastSeen) => {
      const { ruleset } = generateRules(services, slices, config);
      for (const s of specs) {
        if (s.affinity === undefined) continue;
        const timeout = s.affinity;
        for (const p of s.ports) {
          const protocol = p.protocol.toLowerCase() as L4Protocol;
          const packet: Packet = { source: POD, destination: s.clusterIP, protocol, destinationPort: p.port, entry: 'pod' };
          const fresh = trace(ruleset, packet, { now: lastSeen });
          const dnats = fresh.filter((o) => o.kind === 'dnat');
          if (dnats.length === 0) continue;
          const remembered = dnats[pick % dnats.length];
          if (remembered === undefined) continue;
          // The endpoint chain's DNAT rule records the client in its own list.
          expect(remembered.recentUpdates).toEqual([{ name: expect.stringMatching(/^KUBE-SEP-/) as unknown as string, source: POD, lastSeen }]);
          const list = remembered.recentUpdates[0]?.name ?? '';
          const entry: RecentEntry = { name: list, source: POD, lastSeen };
          for (const now of [lastSeen, lastSeen + timeout * 1000]) {
            const sticky = trace(ruleset, packet, { now, recent: [entry] });
            expect(sticky.map((o) => [o.kind, o.dnat, o.probability.written, o.probability.kernel])).toEqual([['dnat', remembered.dnat, ONE, ONE]]);
            expect(sticky[0]?.recentUpdates).toEqual([{ name: list, source: POD, lastSeen: now }]);
          }
          // One millisecond after the timeout the entry no longer matches: balanced again.
          const expired = trace(ruleset, packet, { now: lastSeen + timeout * 1000 + 1, recent: [entry] });
          expect(expired.map((o) => [o.dnat, o.probability.written])).toEqual(fresh.map((o) => [o.dnat, o.probability.written]));
          // Another client's entry does not count.
          const other = trace(ruleset, packet, { now: lastSeen, recent: [{ ...entry, source: '10.0.0.3' }] });
          expect(other.map((o) => o.dnat)).toEqual(fresh.map((o) => o.dnat));
        }
      }
    },
  );
});

// Generators shared by the sync properties (INV-IPT-PARTIAL, INV-IPT-EVENTS): a cluster of up
// to 50 Services with 0–6 endpoints each, the changes made to it, the proxier configs, and the
// iptables-restore --noflush model that applies each sync's text to the tables the previous
// syncs left.
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc } from '@fast-check/vitest';
import { validConfig } from '../proxier-config.fixtures.js';
import { applyRestore } from '../restore-model/apply-restore.js';
import type { TableState } from '../restore-model/table-state.js';
import type { RuleCache } from '../save/rule-cache.js';
import type { SyncConfig } from './index.js';

export const NODE = 'node-a';
export const KEYS = 50;

export type Protocol = 'TCP' | 'UDP' | 'SCTP';

export interface PortGen {
  readonly name: string;
  readonly protocol: Protocol;
  readonly port: number;
}

export interface ServiceGen {
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly ports: readonly PortGen[];
  readonly etpLocal: boolean;
  readonly itpLocal: boolean;
  readonly affinity: boolean;
  readonly externalIP: boolean;
}

export interface EndpointGen {
  readonly ip: number;
  readonly ready: boolean;
  readonly terminating: boolean;
  readonly local: boolean;
}

export interface SliceGen {
  readonly endpoints: readonly EndpointGen[];
  /** The slice's port protocol per name; a mismatch with the service port means no endpoints for it. */
  readonly protocol: Protocol;
  readonly targetPort: number;
}

export type Op =
  | { readonly kind: 'put-service'; readonly key: number; readonly service: ServiceGen }
  | { readonly kind: 'delete-service'; readonly key: number }
  | { readonly kind: 'recreate-service'; readonly key: number }
  | { readonly kind: 'put-slice'; readonly key: number; readonly slice: SliceGen }
  | { readonly kind: 'delete-slice'; readonly key: number }
  | { readonly kind: 'reverse' }
  | { readonly kind: 'sync'; readonly full: boolean };

export const protocolArb = fc.constantFrom<Protocol>('TCP', 'TCP', 'UDP', 'SCTP');

export const portsArb: fc.Arbitrary<readonly PortGen[]> = fc.oneof(
  fc.tuple(protocolArb, fc.constantFrom(80, 443, 53)).map(([protocol, port]) => [{ name: '', protocol, port }]),
  fc.uniqueArray(
    fc.record({ name: fc.constantFrom('p', 'http'), protocol: protocolArb, port: fc.constantFrom(80, 81, 443) }, { noNullPrototype: true }),
    { minLength: 1, maxLength: 2, selector: (p) => p.name },
  ),
);

export const serviceArb: fc.Arbitrary<ServiceGen> = fc.record(
  {
    type: fc.constantFrom<ServiceGen['type']>('ClusterIP', 'ClusterIP', 'NodePort', 'LoadBalancer'),
    ports: portsArb,
    etpLocal: fc.boolean(),
    itpLocal: fc.boolean(),
    affinity: fc.boolean(),
    externalIP: fc.boolean(),
  },
  { noNullPrototype: true },
);

export const sliceArb: fc.Arbitrary<SliceGen> = fc.record(
  {
    endpoints: fc.uniqueArray(
      fc.record({ ip: fc.integer({ min: 1, max: 12 }), ready: fc.boolean(), terminating: fc.boolean(), local: fc.boolean() }, { noNullPrototype: true }),
      { maxLength: 6, selector: (e) => e.ip },
    ),
    protocol: fc.constantFrom<Protocol>('TCP', 'TCP', 'TCP', 'UDP', 'SCTP'),
    targetPort: fc.constantFrom(8080, 8081),
  },
  { noNullPrototype: true },
);

export const keyArb = fc.nat({ max: KEYS - 1 });

export const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('put-service' as const), key: keyArb, service: serviceArb }, { noNullPrototype: true }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('delete-service' as const), key: keyArb }, { noNullPrototype: true }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('recreate-service' as const), key: keyArb }, { noNullPrototype: true }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('put-slice' as const), key: keyArb, slice: sliceArb }, { noNullPrototype: true }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('delete-slice' as const), key: keyArb }, { noNullPrototype: true }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'reverse' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('sync' as const), full: fc.constantFrom(false, false, false, true) }, { noNullPrototype: true }), weight: 5 },
);

export const initialArb = fc.uniqueArray(
  fc.record({ key: keyArb, service: serviceArb, slice: fc.option(sliceArb, { nil: undefined }) }, { noNullPrototype: true }),
  { maxLength: KEYS, selector: (e) => e.key, size: 'medium' },
);

export const configArb: fc.Arbitrary<SyncConfig> = fc
  .record(
    {
      detector: fc.boolean(),
      masqueradeAll: fc.boolean(),
      // A low threshold makes the cluster cross into large-cluster mode and back.
      threshold: fc.constantFrom(1000, 20),
      fullSyncEvery: fc.constantFrom(undefined, 3),
    },
    { noNullPrototype: true },
  )
  .map((c) => ({
    ...validConfig({
      nodeName: NODE,
      nodeIPs: ['127.0.0.1', '192.168.0.2'],
      localDetector: c.detector ? { kind: 'cidr', cidr: '10.0.0.0/8' } : { kind: 'none' },
      masqueradeAll: c.masqueradeAll,
      largeClusterThreshold: c.threshold,
    }),
    ...(c.fullSyncEvery === undefined ? {} : { fullSyncEvery: c.fullSyncEvery }),
  }));

export const namespaceOf = (key: number): string => (key % 3 === 0 ? 'shop' : 'default');

export function buildService(key: number, s: ServiceGen): Service {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { namespace: namespaceOf(key), name: `svc${key}` },
    spec: {
      type: s.type,
      clusterIP: `172.30.0.${key + 1}`,
      ports: s.ports.map((p, j) => ({ ...p, targetPort: 8080, ...(s.type === 'ClusterIP' ? {} : { nodePort: 30000 + key * 2 + j }) })),
      ...(s.etpLocal && s.type !== 'ClusterIP' ? { externalTrafficPolicy: 'Local' as const } : {}),
      ...(s.etpLocal && s.type === 'LoadBalancer' ? { healthCheckNodePort: 32000 + key } : {}),
      ...(s.itpLocal ? { internalTrafficPolicy: 'Local' as const } : {}),
      ...(s.affinity ? { sessionAffinity: 'ClientIP' as const, sessionAffinityConfig: { clientIP: { timeoutSeconds: 10800 } } } : {}),
      ...(s.externalIP ? { externalIPs: [`192.168.99.${key + 1}`] } : {}),
    },
    status: s.type === 'LoadBalancer' ? { loadBalancer: { ingress: [{ ip: `203.0.113.${key + 1}` }] } } : {},
  };
}

export function buildSlice(key: number, s: SliceGen): EndpointSlice {
  return {
    apiVersion: 'discovery.k8s.io/v1',
    kind: 'EndpointSlice',
    metadata: { namespace: namespaceOf(key), name: `svc${key}-x`, labels: { 'kubernetes.io/service-name': `svc${key}` } },
    addressType: 'IPv4',
    endpoints: s.endpoints.map((e) => ({
      addresses: [`10.180.${key}.${e.ip}`],
      conditions: { ready: e.ready, serving: e.ready || e.terminating, terminating: e.terminating },
      nodeName: e.local ? NODE : 'node-b',
    })),
    ports: ['', 'p', 'http'].map((name) => ({ name, port: s.targetPort, protocol: s.protocol })),
  };
}

export function apply(tables: TableState, text: string, what: string, cache: RuleCache): TableState {
  const result = applyRestore(tables, text, { noflush: true, cache });
  if (!result.ok) throw new Error(`${what} refused at line ${result.error.line}: ${result.error.message}\n${text}`);
  return result.value;
}


/** One entry of initialArb. */
export type InitialEntry = (typeof initialArb extends fc.Arbitrary<readonly (infer E)[]> ? E : never);

/**
 * The objects a generated run changes, kept between syncs so that an unchanged Service or slice
 * stays the same object (sync's identity fast path); 'recreate-service' makes an equal object.
 */
export class GenWorld {
  private readonly specs = new Map<number, ServiceGen>();
  readonly services = new Map<number, Service>();
  readonly slices = new Map<number, EndpointSlice>();

  constructor(initial: readonly InitialEntry[]) {
    for (const entry of initial) {
      this.specs.set(entry.key, entry.service);
      this.services.set(entry.key, buildService(entry.key, entry.service));
      if (entry.slice !== undefined) this.slices.set(entry.key, buildSlice(entry.key, entry.slice));
    }
  }

  /** Makes an object change; 'reverse' and 'sync' are the caller's to act on, and are given back. */
  apply(op: Op): Extract<Op, { readonly kind: 'reverse' | 'sync' }> | undefined {
    switch (op.kind) {
      case 'put-service':
        this.specs.set(op.key, op.service);
        this.services.set(op.key, buildService(op.key, op.service));
        return undefined;
      case 'delete-service':
        this.specs.delete(op.key);
        this.services.delete(op.key);
        return undefined;
      case 'recreate-service': {
        const spec = this.specs.get(op.key);
        if (spec !== undefined) this.services.set(op.key, buildService(op.key, spec));
        return undefined;
      }
      case 'put-slice':
        this.slices.set(op.key, buildSlice(op.key, op.slice));
        return undefined;
      case 'delete-slice':
        this.slices.delete(op.key);
        return undefined;
      case 'reverse':
      case 'sync':
        return op;
    }
  }

  /** The objects as sync's arrays, in key order, or its reverse. */
  arrays(reversed = false): { readonly services: Service[]; readonly slices: EndpointSlice[] } {
    const order = (m: ReadonlyMap<number, unknown>) => [...m.keys()].sort((a, b) => (reversed ? b - a : a - b));
    return {
      services: order(this.services).flatMap((k) => this.services.get(k) ?? []),
      slices: order(this.slices).flatMap((k) => this.slices.get(k) ?? []),
    };
  }
}

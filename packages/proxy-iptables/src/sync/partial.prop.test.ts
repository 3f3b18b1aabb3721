// INV-IPT-PARTIAL: kube-proxy's partial syncs leave the same tables as a full sync would.
// A run is a generated cluster (up to 50 services with 0–6 endpoints each) and a sequence of
// changes — Services added, updated (type, ports, policies, affinity, external IPs), deleted
// or re-created unchanged; EndpointSlices added, updated, deleted; the input arrays reordered —
// with syncs (partial, or forced full) between them. Every sync's restore text is applied
// with `iptables-restore --noflush` semantics (the table model, restore-model/) to the tables
// the previous ones left, starting from empty tables; after every sync those tables must equal
// what one full sync of the same cluster writes into empty tables, and no text may be refused.
// The change list is an array of tagged operations, so a failure shrinks to few changes.
// upstream: pkg/proxy/iptables/proxier.go (syncProxyRules with MinimizeIPTablesRestore: a
// partial sync writes the chains of changed services only and deletes stale chains with -X),
// proxier_test.go (TestSyncProxyRulesRepeated checks the same on hand-written steps).
import type { EndpointSlice, Service } from '@kubesvc/api-types';
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { proxierConfig } from '../proxier-config.js';
import { applyRestore } from '../restore-model/apply-restore.js';
import { emptyTables, printTables, tablesEqual, type TableState } from '../restore-model/table-state.js';
import { createRuleCache, type RuleCache } from '../save/rule-cache.js';
import { sync, type SyncConfig, type SyncState } from './index.js';

const NODE = 'node-a';
const KEYS = 50;

type Protocol = 'TCP' | 'UDP' | 'SCTP';

interface PortGen {
  readonly name: string;
  readonly protocol: Protocol;
  readonly port: number;
}

interface ServiceGen {
  readonly type: 'ClusterIP' | 'NodePort' | 'LoadBalancer';
  readonly ports: readonly PortGen[];
  readonly etpLocal: boolean;
  readonly itpLocal: boolean;
  readonly affinity: boolean;
  readonly externalIP: boolean;
}

interface EndpointGen {
  readonly ip: number;
  readonly ready: boolean;
  readonly terminating: boolean;
  readonly local: boolean;
}

interface SliceGen {
  readonly endpoints: readonly EndpointGen[];
  /** The slice's port protocol per name; a mismatch with the service port means no endpoints for it. */
  readonly protocol: Protocol;
  readonly targetPort: number;
}

type Op =
  | { readonly kind: 'put-service'; readonly key: number; readonly service: ServiceGen }
  | { readonly kind: 'delete-service'; readonly key: number }
  | { readonly kind: 'recreate-service'; readonly key: number }
  | { readonly kind: 'put-slice'; readonly key: number; readonly slice: SliceGen }
  | { readonly kind: 'delete-slice'; readonly key: number }
  | { readonly kind: 'reverse' }
  | { readonly kind: 'sync'; readonly full: boolean };

const protocolArb = fc.constantFrom<Protocol>('TCP', 'TCP', 'UDP', 'SCTP');

const portsArb: fc.Arbitrary<readonly PortGen[]> = fc.oneof(
  fc.tuple(protocolArb, fc.constantFrom(80, 443, 53)).map(([protocol, port]) => [{ name: '', protocol, port }]),
  fc.uniqueArray(
    fc.record({ name: fc.constantFrom('p', 'http'), protocol: protocolArb, port: fc.constantFrom(80, 81, 443) }, { noNullPrototype: true }),
    { minLength: 1, maxLength: 2, selector: (p) => p.name },
  ),
);

const serviceArb: fc.Arbitrary<ServiceGen> = fc.record(
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

const sliceArb: fc.Arbitrary<SliceGen> = fc.record(
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

const keyArb = fc.nat({ max: KEYS - 1 });

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.record({ kind: fc.constant('put-service' as const), key: keyArb, service: serviceArb }, { noNullPrototype: true }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('delete-service' as const), key: keyArb }, { noNullPrototype: true }), weight: 2 },
  { arbitrary: fc.record({ kind: fc.constant('recreate-service' as const), key: keyArb }, { noNullPrototype: true }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('put-slice' as const), key: keyArb, slice: sliceArb }, { noNullPrototype: true }), weight: 4 },
  { arbitrary: fc.record({ kind: fc.constant('delete-slice' as const), key: keyArb }, { noNullPrototype: true }), weight: 2 },
  { arbitrary: fc.constant({ kind: 'reverse' as const }), weight: 1 },
  { arbitrary: fc.record({ kind: fc.constant('sync' as const), full: fc.constantFrom(false, false, false, true) }, { noNullPrototype: true }), weight: 5 },
);

const initialArb = fc.uniqueArray(
  fc.record({ key: keyArb, service: serviceArb, slice: fc.option(sliceArb, { nil: undefined }) }, { noNullPrototype: true }),
  { maxLength: KEYS, selector: (e) => e.key, size: 'medium' },
);

const configArb: fc.Arbitrary<SyncConfig> = fc
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
    ...proxierConfig({
      nodeName: NODE,
      nodeIPs: ['127.0.0.1', '192.168.0.2'],
      localDetector: c.detector ? { kind: 'cidr', cidr: '10.0.0.0/8' } : { kind: 'none' },
      masqueradeAll: c.masqueradeAll,
      largeClusterThreshold: c.threshold,
    }),
    ...(c.fullSyncEvery === undefined ? {} : { fullSyncEvery: c.fullSyncEvery }),
  }));

const namespaceOf = (key: number): string => (key % 3 === 0 ? 'shop' : 'default');

function buildService(key: number, s: ServiceGen): Service {
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

function buildSlice(key: number, s: SliceGen): EndpointSlice {
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

function apply(tables: TableState, text: string, what: string, cache: RuleCache): TableState {
  const result = applyRestore(tables, text, { noflush: true, cache });
  if (!result.ok) throw new Error(`${what} refused at line ${result.error.line}: ${result.error.message}\n${text}`);
  return result.value;
}

test.prop([configArb, initialArb, fc.array(opArb, { maxLength: 30, size: 'medium' })])(
  'INV-IPT-PARTIAL: any sequence of partial and full syncs leaves the tables one full sync of the final state leaves',
  (config, initial, ops) => {
    // The objects are kept between syncs, so an unchanged Service or slice is the same object
    // (sync's identity fast path); 'recreate-service' makes an equal object.
    const specs = new Map<number, ServiceGen>();
    const services = new Map<number, Service>();
    const slices = new Map<number, EndpointSlice>();
    for (const entry of initial) {
      specs.set(entry.key, entry.service);
      services.set(entry.key, buildService(entry.key, entry.service));
      if (entry.slice !== undefined) slices.set(entry.key, buildSlice(entry.key, entry.slice));
    }
    let reversed = false;
    let state: SyncState | undefined;
    let tables = emptyTables(4);
    let syncs = 0;
    // Each distinct rule line is parsed once per run; the results are the same without it.
    const cache = createRuleCache();
    const arrays = () => {
      const order = (m: Map<number, Service> | Map<number, EndpointSlice>) => [...m.keys()].sort((a, b) => (reversed ? b - a : a - b));
      return {
        services: order(services).flatMap((k) => services.get(k) ?? []),
        slices: order(slices).flatMap((k) => slices.get(k) ?? []),
      };
    };
    const syncAndCheck = (full: boolean) => {
      const { services: svcs, slices: sls } = arrays();
      const result = sync(state, svcs, sls, config, full ? { full: true } : {});
      state = result.state;
      syncs++;
      tables = apply(tables, result.restoreText, `sync ${syncs}`, cache);
      const reference = apply(emptyTables(4), sync(undefined, svcs, sls, config).restoreText, 'the full sync', cache);
      if (!tablesEqual(tables, reference)) {
        // The diff, then the failure even if the printed forms should agree.
        expect(printTables(tables), `tables after sync ${syncs} (${result.stats.full ? 'full' : 'partial'})`).toBe(printTables(reference));
        expect.fail(`tablesEqual is false after sync ${syncs} though the printed tables agree`);
      }
    };
    syncAndCheck(false);
    for (const op of ops) {
      switch (op.kind) {
        case 'put-service':
          specs.set(op.key, op.service);
          services.set(op.key, buildService(op.key, op.service));
          break;
        case 'delete-service':
          specs.delete(op.key);
          services.delete(op.key);
          break;
        case 'recreate-service': {
          const spec = specs.get(op.key);
          if (spec !== undefined) services.set(op.key, buildService(op.key, spec));
          break;
        }
        case 'put-slice':
          slices.set(op.key, buildSlice(op.key, op.slice));
          break;
        case 'delete-slice':
          slices.delete(op.key);
          break;
        case 'reverse':
          reversed = !reversed;
          break;
        case 'sync':
          syncAndCheck(op.full);
          break;
      }
    }
    syncAndCheck(false);
  },
);

// Properties of the endpoint controllers over random churn of pods, Services, hand-written
// Endpoints and nodes, run to a fixpoint in the cluster model (INV-EPC-SELECTOR,
// INV-EPS-MIRROR), and of the simulated kubelet over pod churn on small pod CIDRs, graceful
// deletions among it (INV-KUBELET-IPS, INV-KUBELET-GRACE). Rows in docs/invariants.md.
import { fc, test } from '@fast-check/vitest';
import {
  cidrContains,
  parseCIDRSloppy,
  parseIPSloppy,
  type EndpointSlice,
  type Endpoints,
  type Node,
  type Pod,
  type Service,
} from '@kubesvc/api-types';
import { expect } from 'vitest';
import type { KeyedController } from './contract.js';
import { ClusterModel, ControllerLoop } from './cluster-model.fixtures.js';
import { endpointSliceController } from './endpoint-slice-controller.js';
import { endpointSliceMirroringController } from './endpoint-slice-mirroring-controller.js';
import { endpointsController } from './endpoints-controller.js';
import { node, NOW } from './objects.fixtures.js';
import { simulatedKubelet } from './simulated-kubelet.js';

// --- The churn ------------------------------------------------------------------------------

const POD_NAMES = ['p0', 'p1', 'p2', 'p3', 'p4', 'p5'] as const;
const SVC_NAMES = ['s0', 's1', 's2', 's3'] as const;
const APPS = ['a', 'b'] as const;
const NODE_NAMES = ['node-a', 'node-b', 'node-gone'] as const;

interface PodSpec {
  readonly name: string;
  readonly app: string;
  readonly ready: boolean;
  readonly phase: string;
  readonly v4?: number | undefined;
  readonly v6?: number | undefined;
  readonly node: string;
  readonly deleting: boolean;
  readonly httpPort?: number | undefined;
}

interface SvcSpec {
  readonly name: string;
  readonly selector?: string | undefined;
  readonly named: boolean;
  readonly udp: boolean;
  readonly headless: boolean;
  readonly noPorts: boolean;
  readonly publishNotReady: boolean;
  readonly families: readonly ('IPv4' | 'IPv6')[];
  readonly labels: boolean;
}

interface EpSpec {
  readonly name: string;
  readonly ips: readonly number[];
  readonly notReady: readonly boolean[];
  readonly port: number;
  readonly skipMirror: boolean;
  readonly invalid: boolean;
}

type Command =
  | { readonly op: 'pod'; readonly pod: PodSpec }
  | { readonly op: 'delete-pod'; readonly name: string }
  | { readonly op: 'service'; readonly svc: SvcSpec }
  | { readonly op: 'delete-service'; readonly name: string }
  | { readonly op: 'endpoints'; readonly ep: EpSpec }
  | { readonly op: 'delete-endpoints'; readonly name: string }
  | { readonly op: 'node'; readonly name: string; readonly zone?: string | undefined }
  | { readonly op: 'delete-node'; readonly name: string }
  | { readonly op: 'settle' };

const podArb: fc.Arbitrary<PodSpec> = fc.record(
  {
    name: fc.constantFrom(...POD_NAMES),
    app: fc.constantFrom(...APPS),
    ready: fc.boolean(),
    phase: fc.constantFrom('Running', 'Running', 'Pending', 'Succeeded', 'Failed'),
    v4: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    v6: fc.option(fc.integer({ min: 1, max: 8 }), { nil: undefined }),
    node: fc.constantFrom(...NODE_NAMES),
    deleting: fc.boolean(),
    httpPort: fc.option(fc.constantFrom(8080, 9090), { nil: undefined }),
  },
  { requiredKeys: ['name', 'app', 'ready', 'phase', 'node', 'deleting'] },
);

const svcArb: fc.Arbitrary<SvcSpec> = fc.record(
  {
    name: fc.constantFrom(...SVC_NAMES),
    selector: fc.option(fc.constantFrom(...APPS), { nil: undefined }),
    named: fc.boolean(),
    udp: fc.boolean(),
    headless: fc.boolean(),
    noPorts: fc.boolean(),
    publishNotReady: fc.boolean(),
    families: fc.constantFrom<readonly ('IPv4' | 'IPv6')[]>(['IPv4'], ['IPv6'], ['IPv4', 'IPv6'], ['IPv6', 'IPv4']),
    labels: fc.boolean(),
  },
  { requiredKeys: ['name', 'named', 'udp', 'headless', 'noPorts', 'publishNotReady', 'families', 'labels'] },
);

const epArb: fc.Arbitrary<EpSpec> = fc
  .uniqueArray(fc.integer({ min: 1, max: 12 }), { maxLength: 4 })
  .chain((ips) =>
    fc.record({
      name: fc.constantFrom(...SVC_NAMES, 'orphan'),
      ips: fc.constant(ips),
      notReady: fc.array(fc.boolean(), { minLength: ips.length, maxLength: ips.length }),
      port: fc.constantFrom(80, 9376),
      skipMirror: fc.boolean(),
      invalid: fc.boolean(),
    }),
  );

const commandArb: fc.Arbitrary<Command> = fc.oneof(
  { weight: 6, arbitrary: podArb.map((pod) => ({ op: 'pod' as const, pod })) },
  { weight: 2, arbitrary: fc.constantFrom(...POD_NAMES).map((name) => ({ op: 'delete-pod' as const, name })) },
  { weight: 4, arbitrary: svcArb.map((svc) => ({ op: 'service' as const, svc })) },
  { weight: 1, arbitrary: fc.constantFrom(...SVC_NAMES).map((name) => ({ op: 'delete-service' as const, name })) },
  { weight: 2, arbitrary: epArb.map((ep) => ({ op: 'endpoints' as const, ep })) },
  { weight: 1, arbitrary: fc.constantFrom(...SVC_NAMES, 'orphan').map((name) => ({ op: 'delete-endpoints' as const, name })) },
  { weight: 1, arbitrary: fc.record({ op: fc.constant('node' as const), name: fc.constantFrom(...NODE_NAMES), zone: fc.option(fc.constantFrom('z1', 'z2'), { nil: undefined }) }) },
  { weight: 1, arbitrary: fc.constantFrom(...NODE_NAMES).map((name) => ({ op: 'delete-node' as const, name })) },
  { weight: 2, arbitrary: fc.constant({ op: 'settle' as const }) },
);

function podObject(p: PodSpec): Pod {
  const ips = [...(p.v4 !== undefined ? [`10.244.0.${p.v4}`] : []), ...(p.v6 !== undefined ? [`fd00:10:244::${p.v6}`] : [])];
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: p.name, namespace: 'default', labels: { app: p.app }, ...(p.deleting ? { deletionTimestamp: '2025-01-02T03:04:00Z' } : {}) },
    spec: {
      nodeName: p.node,
      hostname: p.name,
      subdomain: 's0',
      containers: [{ name: 'app', image: 'nginx', ...(p.httpPort !== undefined ? { ports: [{ name: 'http', containerPort: p.httpPort, protocol: 'TCP' }] } : {}) }],
    },
    status: {
      phase: p.phase,
      ...(ips[0] !== undefined ? { podIP: ips[0], podIPs: ips.map((ip) => ({ ip })) } : {}),
      conditions: [{ type: 'Ready', status: p.ready ? 'True' : 'False' }],
    },
  } as Pod;
}

function serviceObject(s: SvcSpec): Service {
  const ports: NonNullable<NonNullable<Service['spec']>['ports']> = s.noPorts && s.headless ? [] : [{ name: 'http', port: 80, protocol: 'TCP', targetPort: s.named ? 'http' : 8080 }];
  if (s.udp && ports.length > 0) ports.push({ name: 'dns', port: 53, protocol: 'UDP', targetPort: 5353 });
  const clusterIPs = s.headless ? ['None'] : s.families.map((f) => (f === 'IPv4' ? '10.96.0.10' : 'fd00:96::a'));
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: s.name, namespace: 'default', ...(s.labels ? { labels: { team: 'x' } } : {}) },
    spec: {
      ...(s.selector !== undefined ? { selector: { app: s.selector } } : {}),
      ports,
      clusterIP: clusterIPs[0] ?? '',
      clusterIPs,
      ipFamilies: [...s.families],
      ...(s.publishNotReady ? { publishNotReadyAddresses: true } : {}),
    },
  };
}

function endpointsObject(e: EpSpec): Endpoints {
  const addrs = e.ips.map((n, i) => ({ ip: n > 10 ? `fd00::${n}` : `192.168.1.${n}`, ready: !(e.notReady[i] ?? false) }));
  const extra = e.invalid ? [{ ip: 'not-an-ip', ready: true }] : [];
  const all = [...addrs, ...extra];
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: e.name, namespace: 'default', ...(e.skipMirror ? { labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } } : {}) },
    subsets:
      all.length === 0
        ? []
        : [
            {
              ...(all.some((a) => a.ready) ? { addresses: all.filter((a) => a.ready).map((a) => ({ ip: a.ip })) } : {}),
              ...(all.some((a) => !a.ready) ? { notReadyAddresses: all.filter((a) => !a.ready).map((a) => ({ ip: a.ip })) } : {}),
              ports: [{ port: e.port, protocol: 'TCP' }],
            },
          ],
  };
}

function apply(loop: ControllerLoop, c: Command): void {
  switch (c.op) {
    case 'pod':
      return void loop.put('pods', podObject(c.pod));
    case 'delete-pod':
      return loop.remove('pods', 'default', c.name);
    case 'service':
      return void loop.put('services', serviceObject(c.svc));
    case 'delete-service':
      return loop.remove('services', 'default', c.name);
    case 'endpoints':
      return void loop.put('endpoints', endpointsObject(c.ep));
    case 'delete-endpoints':
      return loop.remove('endpoints', 'default', c.name);
    case 'node':
      return void loop.put('nodes', node(c.name, c.zone));
    case 'delete-node':
      return loop.remove('nodes', '', c.name);
    case 'settle':
      return void loop.run();
  }
}

// --- What the controllers must have written ----------------------------------------------------

const hasSelector = (s: Service): boolean => Object.keys(s.spec?.selector ?? {}).length > 0;
const isV6 = (ip: string): boolean => ip.includes(':');

interface Entry {
  readonly ready: boolean;
  readonly ports: string;
}

/** An independent statement of which pods a selector Service lists, and how. */
function expectedEndpoints(svc: Service, pods: readonly Pod[]): Map<string, Entry> {
  const out = new Map<string, Entry>();
  const publish = svc.spec?.publishNotReadyAddresses === true;
  const v6 = svc.spec?.ipFamilies?.[0] === 'IPv6';
  for (const pod of pods) {
    if (pod.metadata.labels?.['app'] !== svc.spec?.selector?.['app']) continue;
    if (pod.status?.phase === 'Succeeded' || pod.status?.phase === 'Failed') continue;
    if (!publish && pod.metadata.deletionTimestamp !== undefined) continue;
    const ip = (pod.status?.podIPs ?? []).map((p) => p.ip).find((x) => isV6(x) === v6);
    if (ip === undefined) continue;
    const containerPort = ((pod.spec as { containers?: { ports?: { containerPort: number }[] }[] }).containers?.[0]?.ports ?? [])[0]?.containerPort;
    const ports: string[] = [];
    for (const sp of svc.spec?.ports ?? []) {
      if (sp.targetPort === 'http') {
        if (containerPort !== undefined) ports.push(`${sp.name}/${containerPort}/${sp.protocol}`);
      } else ports.push(`${sp.name}/${String(sp.targetPort)}/${sp.protocol}`);
    }
    if ((svc.spec?.ports ?? []).length > 0 && ports.length === 0) continue;
    const ready = publish || pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;
    out.set(`${ip}|${pod.metadata.uid ?? ''}`, { ready, ports: ports.sort().join(',') });
  }
  return out;
}

/** The Endpoints as (ip|uid) → ready, ports. */
function endpointsEntries(ep: Endpoints | undefined): Map<string, Entry> {
  const acc = new Map<string, { ready: boolean; ports: string[] }>();
  for (const s of ep?.subsets ?? []) {
    const ports = (s.ports ?? []).map((p) => `${p.name ?? ''}/${p.port}/${p.protocol ?? ''}`);
    const note = (ip: string, uid: string, ready: boolean): void => {
      const key = `${ip}|${uid}`;
      const e = acc.get(key) ?? { ready, ports: [] };
      e.ports.push(...ports);
      acc.set(key, e);
    };
    for (const a of s.addresses ?? []) note(a.ip, a.targetRef?.uid ?? '', true);
    for (const a of s.notReadyAddresses ?? []) note(a.ip, a.targetRef?.uid ?? '', false);
  }
  return new Map([...acc].map(([k, v]) => [k, { ready: v.ready, ports: v.ports.sort().join(',') }]));
}

/** Slices as (ip|uid) → ready, ports; `keep` drops the endpoints upstream documents as slice-only. */
function sliceEntries(slices: readonly EndpointSlice[], keep: (ep: NonNullable<EndpointSlice['endpoints']>[number], slice: EndpointSlice) => boolean): Map<string, Entry> {
  const acc = new Map<string, { ready: boolean; ports: string[] }>();
  for (const slice of slices) {
    const ports = (slice.ports ?? []).map((p) => `${p.name ?? ''}/${p.port ?? ''}/${p.protocol ?? ''}`);
    for (const ep of slice.endpoints ?? []) {
      if (!keep(ep, slice)) continue;
      for (const ip of ep.addresses) {
        const key = `${ip}|${ep.targetRef?.uid ?? ''}`;
        const e = acc.get(key) ?? { ready: ep.conditions?.ready === true, ports: [] };
        e.ports.push(...ports);
        acc.set(key, e);
      }
    }
  }
  return new Map([...acc].map(([k, v]) => [k, { ready: v.ready, ports: v.ports.sort().join(',') }]));
}

function slicesManagedBy(model: ClusterModel, service: string, controller: string): EndpointSlice[] {
  return model
    .list<EndpointSlice>('endpointslices', 'default')
    .filter((s) => s.metadata.labels?.['kubernetes.io/service-name'] === service && s.metadata.labels['endpointslice.kubernetes.io/managed-by'] === controller);
}

/** Wraps the endpoints controller so that any write to the Endpoints of a selector-less Service is recorded. */
function watchingSelectorless(inner: KeyedController, violations: string[]): KeyedController {
  return {
    ...inner,
    reconcile: (key, cache, now) => {
      const actions = inner.reconcile(key, cache, now);
      for (const a of actions) {
        if ((a.kind === 'create' || a.kind === 'update') && a.resource === 'endpoints') {
          const svc = cache.get<Service>('services', a.namespace, a.object.metadata.name ?? '');
          if (svc === undefined || !hasSelector(svc) || svc.spec?.type === 'ExternalName') violations.push(`wrote Endpoints ${key} of a Service without a selector`);
        }
      }
      return actions;
    },
  };
}

function runChurn(commands: readonly Command[]): { model: ClusterModel; loop: ControllerLoop; violations: string[] } {
  const model = new ClusterModel();
  model.put('nodes', node('node-a'), NOW);
  model.put('nodes', node('node-b'), NOW);
  const violations: string[] = [];
  const loop = new ControllerLoop(model, [watchingSelectorless(endpointsController(), violations), endpointSliceController({ maxEndpointsPerSlice: 2 }), endpointSliceMirroringController()], NOW);
  loop.start();
  loop.run();
  for (const c of commands) apply(loop, c);
  // Every key once more (a resync), then to the fixpoint.
  loop.start();
  loop.run();
  return { model, loop, violations };
}

const churnArb = fc.array(commandArb, { minLength: 1, maxLength: 40 });

test.prop([churnArb])(
  'INV-EPC-SELECTOR: at the fixpoint, each selector Service\'s Endpoints hold exactly its matching pods with an IP of its family, ready ones as addresses and the others as notReadyAddresses; the Endpoints of Services without a selector are never written',
  (commands) => {
    const { model, loop, violations } = runChurn(commands);
    expect(model.invalidWrites).toEqual([]);
    expect(violations).toEqual([]);
    const pods = model.list<Pod>('pods');
    for (const svc of model.list<Service>('services')) {
      if (!hasSelector(svc)) continue;
      const ep = model.get<Endpoints>('endpoints', 'default', svc.metadata.name ?? '');
      expect(ep).toBeDefined();
      expect(endpointsEntries(ep)).toEqual(expectedEndpoints(svc, pods));
    }
    // Endpoints without a Service do not survive a resync.
    for (const ep of model.list<Endpoints>('endpoints')) expect(model.get('services', 'default', ep.metadata.name ?? '')).toBeDefined();
    // The fixpoint is quiet: another full pass writes nothing.
    loop.start();
    expect(loop.run().writes).toBe(0);
  },
);

test.prop([churnArb])(
  'INV-EPS-MIRROR: every EndpointSlice\'s endpoints equal its Endpoints\' addresses (the EndpointSlice controller\'s, for the Service\'s first family, less upstream\'s documented slice-only endpoints; the mirroring controller\'s, for every mirrored Endpoints), and nothing else is mirrored',
  (commands) => {
    const { model } = runChurn(commands);
    expect(model.invalidWrites).toEqual([]);
    const nodes = new Set(model.list<Node>('nodes').map((n) => n.metadata.name));
    const pods = new Map(model.list<Pod>('pods').map((p) => [p.metadata.uid ?? '', p]));
    for (const svc of model.list<Service>('services')) {
      const name = svc.metadata.name ?? '';
      const ep = model.get<Endpoints>('endpoints', 'default', name);
      const mirrored = slicesManagedBy(model, name, 'endpointslicemirroring-controller.k8s.io');
      if (hasSelector(svc)) {
        const publish = svc.spec?.publishNotReadyAddresses === true;
        const family = svc.spec?.ipFamilies?.[0] ?? 'IPv4';
        const hasPorts = (svc.spec?.ports ?? []).length > 0;
        const slices = slicesManagedBy(model, name, 'endpointslice-controller.k8s.io');
        // Each slice within the cap, and one set per family of the Service.
        for (const s of slices) expect((s.endpoints ?? []).length).toBeLessThanOrEqual(2);
        expect(new Set(slices.map((s) => s.addressType))).toEqual(new Set(svc.spec?.ipFamilies ?? []));
        const fromSlices = sliceEntries(
          slices.filter((s) => s.addressType === family),
          // Slice-only, upstream: terminating pods (kept with terminating=true), and pods that
          // resolve none of the Service's ports (kept in a slice without ports).
          (e, s) => (publish || e.conditions?.terminating !== true) && !(hasPorts && (s.ports ?? []).length === 0),
        );
        const fromEndpoints = new Map(
          // Endpoints-only, upstream: pods on a node the slice controller does not know.
          [...endpointsEntries(ep)].filter(([key]) => publish || nodes.has(pods.get(key.split('|')[1] ?? '')?.spec?.nodeName)),
        );
        expect(fromSlices).toEqual(fromEndpoints);
        expect(mirrored).toEqual([]);
        continue;
      }
      const eligible = ep !== undefined && ep.metadata.labels?.['endpointslice.kubernetes.io/skip-mirror'] !== 'true';
      if (!eligible) {
        expect(mirrored).toEqual([]);
        continue;
      }
      // Mirrored: every valid address, with its readiness and ports (invalid ones are skipped).
      const valid = new Map([...endpointsEntries(ep)].filter(([key]) => parseIPSloppy(key.split('|')[0] ?? '').ok));
      expect(sliceEntries(mirrored, () => true)).toEqual(valid);
    }
    // No mirrored slice outlives its Endpoints or Service.
    for (const s of model.list<EndpointSlice>('endpointslices')) {
      const owner = s.metadata.labels?.['kubernetes.io/service-name'] ?? '';
      expect(model.get('services', 'default', owner)).toBeDefined();
      if (s.metadata.labels?.['endpointslice.kubernetes.io/managed-by'] === 'endpointslicemirroring-controller.k8s.io') expect(model.get('endpoints', 'default', owner)).toBeDefined();
    }
  },
);

// --- The kubelet ------------------------------------------------------------------------------

type KubeletCommand =
  | { readonly op: 'create'; readonly name: string; readonly pinned?: string | undefined }
  | { readonly op: 'delete'; readonly name: string }
  | { readonly op: 'finish'; readonly name: string }
  /** kubectl delete: the apiserver gives the pod a deletionTimestamp `grace` seconds ahead. */
  | { readonly op: 'terminate'; readonly name: string; readonly grace: number }
  | { readonly op: 'tick'; readonly ms: number }
  | { readonly op: 'settle' };

const KUBELET_NODES = [
  { name: 'k1', podCIDR: '10.10.0.0/29' },
  { name: 'k2', podCIDR: '10.10.0.8/29' },
  { name: 'k3', podCIDR: 'fd00:10::/125' },
] as const;

const kubeletCommandArb: fc.Arbitrary<KubeletCommand> = fc.oneof(
  { weight: 5, arbitrary: fc.record({ op: fc.constant('create' as const), name: fc.integer({ min: 0, max: 24 }).map((i) => `w${i}`), pinned: fc.option(fc.constantFrom('k1', 'k2', 'k3'), { nil: undefined }) }, { requiredKeys: ['op', 'name'] }) },
  { weight: 3, arbitrary: fc.integer({ min: 0, max: 24 }).map((i) => ({ op: 'delete' as const, name: `w${i}` })) },
  { weight: 1, arbitrary: fc.integer({ min: 0, max: 24 }).map((i) => ({ op: 'finish' as const, name: `w${i}` })) },
  { weight: 2, arbitrary: fc.record({ op: fc.constant('terminate' as const), name: fc.integer({ min: 0, max: 24 }).map((i) => `w${i}`), grace: fc.integer({ min: 0, max: 5 }) }) },
  { weight: 2, arbitrary: fc.integer({ min: 0, max: 3000 }).map((ms) => ({ op: 'tick' as const, ms })) },
  { weight: 2, arbitrary: fc.constant({ op: 'settle' as const }) },
);

test.prop([fc.array(kubeletCommandArb, { minLength: 1, maxLength: 60 })])(
  'INV-KUBELET-IPS, INV-KUBELET-GRACE: no two live pods on a node (being deleted or not) share an IP, every IP is inside its node\'s pod CIDR and is neither the network, the bridge nor the broadcast address, a pod keeps its IP, and a node leaves a pod without one only when its CIDR is full; a pod being deleted is gone once its deletionTimestamp has passed, and not before',
  (commands) => {
    const model = new ClusterModel();
    const loop = new ControllerLoop(model, [simulatedKubelet({ hostName: 'h', nodes: KUBELET_NODES, readyAfterMs: 1000 })], NOW);
    loop.start();
    loop.run();
    const assigned = new Map<string, string>();
    // The pods being deleted, and when they are due.
    const due = new Map<string, number>();
    // Commands pile up between settles, so that several pods start in one reconcile.
    for (const c of [...commands, { op: 'settle' as const }]) {
      if (c.op === 'create') {
        if (model.get('pods', 'default', c.name) !== undefined) continue;
        loop.put('pods', {
          apiVersion: 'v1',
          kind: 'Pod',
          metadata: { name: c.name, namespace: 'default' },
          spec: { ...(c.pinned !== undefined ? { nodeName: c.pinned } : {}), containers: [{ name: 'app', image: 'nginx' }] },
          status: { phase: 'Pending' },
        } as Pod);
      } else if (c.op === 'delete') {
        loop.remove('pods', 'default', c.name);
        assigned.delete(c.name);
        due.delete(c.name);
      } else if (c.op === 'terminate') {
        const p = model.get<Pod>('pods', 'default', c.name);
        // The apiserver deletes a pod on no node at once; one being deleted keeps its time.
        if (p === undefined || (p.spec?.nodeName ?? '') === '' || p.metadata.deletionTimestamp !== undefined) continue;
        const at = Math.floor(loop.now / 1000) * 1000 + c.grace * 1000;
        loop.put('pods', { ...p, metadata: { ...p.metadata, deletionTimestamp: new Date(at).toISOString().replace('.000Z', 'Z'), deletionGracePeriodSeconds: c.grace } });
        due.set(c.name, at);
      } else if (c.op === 'finish') {
        const p = model.get<Pod>('pods', 'default', c.name);
        if (p !== undefined) loop.put('pods', { ...p, status: { ...p.status, phase: 'Succeeded' } });
        assigned.delete(c.name);
      }
      if (c.op !== 'tick' && c.op !== 'settle') continue;
      const until = c.op === 'tick' ? loop.now + c.ms : loop.now;
      loop.run({ until });
      expect(model.invalidWrites).toEqual([]);
      for (const [name, at] of due) {
        const present = model.get('pods', 'default', name) !== undefined;
        expect(present, `${name} due at ${at}, run until ${until}`).toBe(at > until);
        if (!present) {
          due.delete(name);
          assigned.delete(name);
        }
      }
      const live = model.list<Pod>('pods').filter((p) => p.status?.phase !== 'Succeeded' && p.status?.phase !== 'Failed');
      for (const n of KUBELET_NODES) {
        const cidr = parseCIDRSloppy(n.podCIDR);
        if (!cidr.ok) throw new Error(n.podCIDR);
        const v6 = n.podCIDR.includes(':');
        const onNode = live.filter((p) => p.spec?.nodeName === n.name);
        const ips = onNode.map((p) => p.status?.podIP).filter((ip): ip is string => ip !== undefined);
        expect(new Set(ips).size).toBe(ips.length);
        for (const ip of ips) {
          const parsed = parseIPSloppy(ip);
          expect(parsed.ok && cidrContains(cidr.value.cidr, parsed.value)).toBe(true);
          const offset = parsed.ok ? parsed.value.value - cidr.value.cidr.network.value : -1n;
          // IPv4 has a broadcast address at offset 7; IPv6 has none.
          expect(offset >= 2n && offset <= (v6 ? 7n : 6n)).toBe(true);
        }
        // A /29 leaves five addresses for pods, a /125 six: a pod waits for one only when all are
        // taken (by pods running or being deleted); a pod being deleted gets none any more.
        const waiting = onNode.filter((p) => p.status?.podIP === undefined && p.metadata.deletionTimestamp === undefined);
        if (waiting.length > 0) expect(ips.length).toBe(v6 ? 6 : 5);
      }
      // Every live pod is bound to a node of this kubelet, and keeps the IP it got.
      for (const p of live) {
        expect(['k1', 'k2', 'k3']).toContain(p.spec?.nodeName);
        const ip = p.status?.podIP;
        const name = p.metadata.name ?? '';
        if (ip === undefined) continue;
        const before = assigned.get(name);
        if (before !== undefined) expect(ip).toBe(before);
        assigned.set(name, ip);
      }
    }
  },
);

// The reducer's behaviour, message by message and in the simulator: start, readyz gating,
// the spec reconciled only on the first run, NodePort, the fatal initial repair, stop.
// upstream: pkg/controlplane/controller.go (v1.21–v1.26), reconcilers/lease.go.
import type { Endpoints } from '@kubesvc/api-types';
import type { Leases } from '@kubesvc/reconcilers';
import { describe, expect, it } from 'vitest';
import { bootstrapConfig, type BootstrapOptions } from './config.js';
import { initialState, step, type ControllerState } from './controller.js';
import { kubernetesService } from './kubernetes-service.js';
import type { Action, Message, Observation } from './messages.js';
import {
  addApiserver,
  advance,
  crashApiserver,
  createUserService,
  deleteUserObject,
  editUserService,
  injectFailure,
  leakIP,
  markReady,
  newSimulation,
  startApiserver,
  stopApiserver,
  type Simulation,
} from './simulator/index.js';
import { kubernetesEndpointIPs, namespaceNames, serviceIn } from './simulator/views.js';

const ME = '192.168.0.10';
const NO_MASTER_IPS = 'no master IPs were listed in storage, refusing to erase all endpoints for the kubernetes service';
const STALE = "Found stale data, removed previous endpoints on kubernetes service, apiserver didn't exit successfully previously";

function config(options: Partial<BootstrapOptions> = {}) {
  const result = bootstrapConfig({ serviceClusterIPRange: '10.96.0.0/16', publicIP: ME, ...options });
  if (!result.ok) throw new Error(result.error.message);
  return result.value;
}

function observation(patch: Partial<Observation> = {}): Message {
  return { type: 'Observed', services: [], endpoints: [], endpointSlices: [], namespaces: [], rangeAllocations: {}, leases: new Map(), ...patch };
}

function run(state: ControllerState, ...messages: Message[]): { state: ControllerState; actions: Action[] } {
  const actions: Action[] = [];
  for (const m of messages) {
    const r = step(state, m);
    state = r.state;
    actions.push(...r.actions);
  }
  return { state, actions };
}

function writes(actions: readonly Action[]): string[] {
  return actions.flatMap((a) => {
    switch (a.kind) {
      case 'create':
      case 'update':
        return [`${a.kind} ${a.object.kind} ${a.object.metadata.name ?? ''}`];
      case 'write-range':
        return [`write-range ${a.range}`];
      case 'put-lease':
        return [`put-lease ${a.lease.ip}`];
      case 'delete-lease':
        return [`delete-lease ${a.ip}`];
      case 'delete':
        return [`delete ${a.objectKind} ${a.name}`];
      default:
        return [];
    }
  });
}

function logs(sim: Simulation, from = 0): string[] {
  return sim.records.slice(from).flatMap((r) => (r.kind === 'log' ? [r.message] : []));
}

function simWith(options: Partial<BootstrapOptions> = {}, start: { ready?: boolean } = {}): Simulation {
  const sim = addApiserver(newSimulation({ serviceClusterIPRange: '10.96.0.0/16' }), 'a', { publicIP: ME, ...options });
  return startApiserver(sim, 'a', start);
}

function endpoints(ips: string[], resourceVersion = '5'): Endpoints {
  return {
    apiVersion: 'v1',
    kind: 'Endpoints',
    metadata: { name: 'kubernetes', namespace: 'default', resourceVersion, labels: { 'endpointslice.kubernetes.io/skip-mirror': 'true' } },
    subsets: [{ addresses: ips.map((ip) => ({ ip })), ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] }],
  };
}

describe('start', () => {
  it('does nothing before the first Observed, then starts every loop but the Service loop, which waits for readyz', () => {
    const started = run(initialState(config()), { type: 'Start', now: 0 });
    expect(started.actions).toEqual([]);
    const { state, actions } = run(started.state, observation());
    // One write in flight per loop: the first system namespace, the two range allocations.
    expect(writes(actions)).toEqual(['create Namespace kube-system', 'write-range serviceIPs', 'write-range nodePorts']);
    // Nothing is waiting on time but the one-minute deadline of the first repairs.
    expect(actions.filter((a) => a.kind === 'wake-at')).toEqual([{ kind: 'wake-at', at: 60_000 }]);
    expect(state.phase).toBe('running');
    // No lease of ours in storage: RemoveEndpoints fails with NotFound, which upstream does not log.
    expect(actions.filter((a) => a.kind === 'log')).toEqual([]);
  });

  it('a live lease of ours is stale data: it is removed and the Endpoints written without us before anything else', () => {
    const leases: Leases = new Map([
      [ME, { ip: ME, expiresAt: 5_000 }],
      ['10.0.0.2', { ip: '10.0.0.2', expiresAt: 5_000 }],
    ]);
    const first = run(initialState(config()), observation({ leases, endpoints: [endpoints(['10.0.0.2', ME])] }), { type: 'Start', now: 1_000 });
    expect(writes(first.actions)).toEqual([`delete-lease ${ME}`]);
    const id = first.actions.find((a) => a.kind === 'delete-lease');
    const second = run(first.state, observation({ leases: new Map([['10.0.0.2', { ip: '10.0.0.2', expiresAt: 5_000 }]]), endpoints: [endpoints(['10.0.0.2', ME])] }), {
      type: 'ActionResult',
      id: id && 'id' in id ? id.id : -1,
    });
    const update = second.actions.find((a) => a.kind === 'update');
    expect(update && 'object' in update && update.object.kind === 'Endpoints' ? update.object.subsets : undefined).toEqual([
      { addresses: [{ ip: '10.0.0.2' }], ports: [{ name: 'https', port: 6443, protocol: 'TCP' }] },
    ]);
    expect(first.state.phase).toBe('starting');
  });

  it('the last live lease being ours, the removal refuses to erase the Endpoints and upstream logs the error', () => {
    let sim = simWith();
    sim = crashApiserver(sim, 'a');
    const from = sim.records.length;
    sim = startApiserver(sim, 'a');
    expect(logs(sim, from)).toEqual([`Error removing old endpoints from kubernetes service: ${NO_MASTER_IPS}`]);
    expect(kubernetesEndpointIPs(sim)).toEqual([ME]);
  });

  it('with the none reconciler RemoveEndpoints returns nil, so upstream logs stale data on every start, and no Endpoints are written', () => {
    const sim = simWith({ endpointReconcilerType: 'none' });
    expect(logs(sim)).toEqual([STALE]);
    expect(kubernetesEndpointIPs(sim)).toEqual([]);
    expect(serviceIn(sim, 'default', 'kubernetes')?.spec?.clusterIP).toBe('10.96.0.1');
  });
});

describe('readyz', () => {
  it('the Service and its endpoints wait for /readyz; the namespaces and repairs do not', () => {
    let sim = simWith({}, { ready: false });
    sim = advance(sim, 60_000);
    expect(namespaceNames(sim)).toEqual(['default', 'kube-node-lease', 'kube-public', 'kube-system']);
    expect(sim.cluster.ranges.serviceIPs).toBeDefined();
    expect(serviceIn(sim, 'default', 'kubernetes')).toBeUndefined();
    expect(kubernetesEndpointIPs(sim)).toEqual([]);
    sim = markReady(sim, 'a');
    expect(serviceIn(sim, 'default', 'kubernetes')?.spec?.clusterIP).toBe('10.96.0.1');
    expect(kubernetesEndpointIPs(sim)).toEqual([ME]);
  });
});

describe('the Service loop schedule', () => {
  it('wait.NonSlidingUntil: a pass that outlasts the interval is followed by one pass at once, and the next period counts from that pass', () => {
    const cfg = config({ endpointReconcilerType: 'none' });
    const svc = kubernetesService(cfg);
    // Only the default namespace is missing, so the Service pass has one write, which hangs until 25 s.
    const first = run(initialState(cfg), observation({ services: [svc] }), { type: 'Start', now: 0 }, { type: 'Readyz', ok: true, now: 0 });
    const pending = first.actions.find((a) => a.kind === 'create' && a.object.kind === 'Namespace' && a.object.metadata.name === 'default');
    if (pending === undefined || !('id' in pending)) throw new Error('no default namespace create');
    const late = run(
      first.state,
      { type: 'Tick', now: 25_000 },
      observation({ services: [svc], namespaces: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }] }),
      { type: 'ActionResult', id: pending.id },
    );
    // upstream (apimachinery wait.JitterUntil with sliding = false): the timer is reset when a
    // pass begins, so the pass at 0 is followed by one at 25 s, and the next one is due at 35 s.
    expect(late.state.loops.service.runs).toBe(2);
    expect(late.state.loops.service.nextAt).toBe(35_000);
  });
});

describe('the Service', () => {
  const edit = (sim: Simulation) =>
    editUserService(sim, 'default', 'kubernetes', (s) => ({ ...s, spec: { ...s.spec, type: 'NodePort', ports: [{ name: 'https', protocol: 'TCP', port: 8443, targetPort: 6443 }] } }));

  it('is reconciled only on the first run after start: an edit stays until a restart resets ports and type', () => {
    let sim = edit(simWith());
    sim = advance(sim, 30_000);
    expect(serviceIn(sim, 'default', 'kubernetes')?.spec?.type).toBe('NodePort');
    sim = startApiserver(crashApiserver(sim, 'a'), 'a');
    const spec = serviceIn(sim, 'default', 'kubernetes')?.spec;
    expect(spec?.type).toBe('ClusterIP');
    expect(spec?.ports).toEqual([{ name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 }]);
    expect(logs(sim).some((m) => m.startsWith('Resetting master service "kubernetes"'))).toBe(true);
  });

  it('is never reconciled with reconcileServiceOnStart false (upstream since v1.17)', () => {
    let sim = edit(simWith({ reconcileServiceOnStart: false }));
    sim = startApiserver(crashApiserver(sim, 'a'), 'a');
    expect(serviceIn(sim, 'default', 'kubernetes')?.spec?.type).toBe('NodePort');
  });

  it('is a NodePort Service holding its node port in the allocation when one is configured', () => {
    const sim = simWith({ kubernetesServiceNodePort: 30443 });
    const spec = serviceIn(sim, 'default', 'kubernetes')?.spec;
    expect(spec?.type).toBe('NodePort');
    expect(spec?.ports?.[0]?.nodePort).toBe(30443);
    const taken = createUserService(sim, { name: 'web', type: 'NodePort', nodePort: 30443 });
    expect(taken.records.at(-1)).toMatchObject({
      kind: 'user',
      error: { _tag: 'Invalid', message: 'Service "web" is invalid: spec.ports[0].nodePort: Invalid value: 30443: provided port is already allocated' },
    });
  });

  it('an AlreadyExists on its create looks again, as CreateOrUpdateMasterServiceIfNeeded calls itself: on the first run the Service found is reset', () => {
    const cfg = config({ endpointReconcilerType: 'none' });
    const ns = { apiVersion: 'v1' as const, kind: 'Namespace' as const, metadata: { name: 'default' } };
    const first = run(initialState(cfg), observation({ namespaces: [ns] }), { type: 'Start', now: 0 }, { type: 'Readyz', ok: true, now: 0 });
    const create = first.actions.find((a) => a.kind === 'create' && a.object.kind === 'Service');
    if (create === undefined || !('id' in create)) throw new Error('no Service create');
    // Another apiserver created it first, as a NodePort Service.
    const theirs = { ...kubernetesService(cfg), metadata: { ...kubernetesService(cfg).metadata, resourceVersion: '7' }, spec: { ...kubernetesService(cfg).spec, type: 'NodePort' as const } };
    const next = run(first.state, observation({ namespaces: [ns], services: [theirs] }), {
      type: 'ActionResult',
      id: create.id,
      error: { _tag: 'AlreadyExists', message: 'services "kubernetes" already exists' },
    });
    const update = next.actions.find((a) => a.kind === 'update');
    expect(update !== undefined && 'object' in update && update.object.kind === 'Service' ? [update.resourceVersion, update.object.spec?.type] : undefined).toEqual(['7', 'ClusterIP']);
  });

  it('extra service and endpoint ports follow https, on the Service and on the Endpoints (v1.21 createPortAndServiceSpec, createEndpointPortSpec)', () => {
    const sim = simWith({
      extraServicePorts: [{ name: 'konnectivity', protocol: 'TCP', port: 8132, targetPort: 8132 }],
      extraEndpointPorts: [{ name: 'konnectivity', port: 8132, protocol: 'TCP' }],
    });
    expect(serviceIn(sim, 'default', 'kubernetes')?.spec?.ports).toEqual([
      { name: 'https', protocol: 'TCP', port: 443, targetPort: 6443 },
      { name: 'konnectivity', protocol: 'TCP', port: 8132, targetPort: 8132 },
    ]);
    expect(sim.cluster.endpoints.get('default/kubernetes')?.subsets?.[0]?.ports).toEqual([
      { name: 'https', port: 6443, protocol: 'TCP' },
      { name: 'konnectivity', port: 8132, protocol: 'TCP' },
    ]);
  });

  it('comes back at the first IP after a delete, and while a user Service holds that IP upstream\'s error is logged every pass', () => {
    let sim = deleteUserObject(simWith(), 'Service', 'default', 'kubernetes');
    sim = createUserService(sim, { name: 'squatter', clusterIP: '10.96.0.1' });
    const from = sim.records.length;
    sim = advance(sim, 20_000);
    const error =
      'unable to sync kubernetes service: Service "kubernetes" is invalid: spec.clusterIPs: Invalid value: []string{"10.96.0.1"}: failed to allocate IP 10.96.0.1: provided IP is already allocated';
    expect(logs(sim, from)).toEqual([error, error]);
    sim = advance(deleteUserObject(sim, 'Service', 'default', 'squatter'), 10_000);
    expect(serviceIn(sim, 'default', 'kubernetes')?.spec?.clusterIP).toBe('10.96.0.1');
  });
});

describe('repairs', () => {
  it('an initial repair that fails is logged, and the apiserver exits when they have not succeeded after one minute', () => {
    let sim = addApiserver(newSimulation(), 'a', { publicIP: ME });
    sim = injectFailure(sim, { target: 'RangeAllocation', reason: 'InternalError' });
    sim = startApiserver(sim, 'a');
    expect(logs(sim)).toContain('unable to persist the updated service IP allocations: Internal error occurred: injected failure');
    sim = advance(sim, 59_999);
    expect(sim.records.some((r) => r.kind === 'fatal')).toBe(false);
    sim = advance(sim, 1);
    expect(sim.records.filter((r) => r.kind === 'fatal').map((r) => (r.kind === 'fatal' ? r.message : ''))).toEqual([
      'Unable to perform initial IP and Port allocation check',
    ]);
    expect(sim.apiservers[0]?.state).toBeUndefined();
  });

  it('a conflict is retried at once (RetryOnConflict) and is not fatal', () => {
    let sim = addApiserver(newSimulation(), 'a', { publicIP: ME });
    sim = injectFailure(sim, { target: 'RangeAllocation', reason: 'Conflict' });
    sim = advance(startApiserver(sim, 'a'), 120_000);
    expect(sim.records.some((r) => r.kind === 'fatal')).toBe(false);
    expect(sim.apiservers[0]?.state?.ipRepaired).toBe(true);
  });

  it('repair events are emitted as upstream records them', () => {
    let sim = newSimulation({ serviceClusterIPRange: '10.96.0.0/16', namespaces: ['default'] });
    sim = createUserService(sim, { name: 'web' });
    // The Service's IP missing from the stored allocation: ClusterIPNotAllocated.
    sim = { ...sim, cluster: { ...sim.cluster, ranges: {} } };
    sim = startApiserver(addApiserver(sim, 'a', { publicIP: ME }), 'a');
    const ip = serviceIn(sim, 'default', 'web')?.spec?.clusterIP ?? '';
    expect(sim.records.flatMap((r) => (r.kind === 'event' ? [[r.event.reason, r.event.message]] : []))).toEqual([
      ['ClusterIPNotAllocated', `Cluster IP [IPv4]:${ip} is not allocated; repairing`],
    ]);
  });
});

describe('the ClusterIP repair with the IPAddress allocator', () => {
  // upstream (v1.33) pkg/registry/core/rest/storage_core.go: MultiCIDRServiceAllocator runs
  // RepairIPAddress instead of the bitmap repair; the NodePort repair runs either way, and the
  // post-start hook still gives up after a minute unless both have succeeded once.
  const answer = (state: ControllerState, actions: readonly Action[], now: number) => {
    const results: Message[] = actions.flatMap((a) => ('id' in a ? [{ type: 'ActionResult', id: a.id } as const] : []));
    return run(state, ...results, { type: 'Tick', now });
  };

  it("writes only the node port range, never the service IP ranges (bitmap mode writes both)", () => {
    const ranges = (allocator: 'bitmap' | 'ipaddress') =>
      writes(run(initialState(config({ clusterIPAllocator: allocator })), observation(), { type: 'Start', now: 0 }).actions).filter((w) => w.startsWith('write-range'));
    expect(ranges('ipaddress')).toEqual(['write-range nodePorts']);
    expect(ranges('bitmap')).toEqual(['write-range serviceIPs', 'write-range nodePorts']);
    expect(config().clusterIPAllocator).toBe('bitmap');
  });

  it('exits after one minute unless IPAddressRepairSucceeded arrived, as the bitmap repair would', () => {
    const cfg = config({ clusterIPAllocator: 'ipaddress' });
    const first = run(initialState(cfg), observation(), { type: 'Start', now: 0 });
    const waiting = answer(first.state, first.actions, 59_999);
    expect(waiting.state.portRepaired).toBe(true);
    expect(waiting.actions.filter((a) => a.kind === 'fatal')).toEqual([]);
    const late = run(waiting.state, { type: 'Tick', now: 60_000 });
    expect(late.actions.filter((a) => a.kind === 'fatal')).toEqual([{ kind: 'fatal', message: 'Unable to perform initial IP and Port allocation check' }]);
    const repaired = run(waiting.state, { type: 'IPAddressRepairSucceeded', now: 30_000 }, { type: 'Tick', now: 120_000 });
    expect(repaired.actions.filter((a) => a.kind === 'fatal')).toEqual([]);
    expect(repaired.state.phase).toBe('running');
  });

  it('ignores IPAddressRepairSucceeded in bitmap mode: its own repair must succeed', () => {
    const cfg = config();
    const first = run(initialState(cfg), observation(), { type: 'Start', now: 0 });
    const { state } = run(first.state, { type: 'IPAddressRepairSucceeded', now: 0 });
    expect(state.ipRepaired).toBe(false);
  });
});

describe('AlreadyExists on the Endpoints create', () => {
  // upstream: lease.go doReconcile ignores it (another apiserver created the object first) and
  // returns before mirroring the slice; instancecount.go returns it as an error.
  const outcome = (type: 'lease' | 'master-count') => {
    const cfg = config({ endpointReconcilerType: type });
    const ready = observation({ services: [kubernetesService(cfg)], namespaces: [{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'default' } }] });
    let { state, actions } = run(initialState(cfg), ready, { type: 'Start', now: 0 }, { type: 'Readyz', ok: true, now: 0 });
    const lease = actions.find((a) => a.kind === 'put-lease');
    if (lease !== undefined && 'id' in lease) ({ state, actions } = run(state, { type: 'ActionResult', id: lease.id }));
    const create = actions.find((a) => a.kind === 'create' && a.object.kind === 'Endpoints');
    if (create === undefined || !('id' in create)) throw new Error('no Endpoints create');
    return run(state, { type: 'ActionResult', id: create.id, error: { _tag: 'AlreadyExists', message: 'endpoints "kubernetes" already exists' } });
  };

  it('lease: the pass ends as a success, with no slice write and no error', () => {
    const { state, actions } = outcome('lease');
    expect(writes(actions)).toEqual([]);
    expect(actions.filter((a) => a.kind === 'log')).toEqual([]);
    expect(state.loops.service.pass).toBeUndefined();
  });

  it('master-count: the pass fails with upstream\'s error and the next interval retries', () => {
    const { state, actions } = outcome('master-count');
    expect(writes(actions)).toEqual([]);
    expect(actions.filter((a) => a.kind === 'log')).toEqual([{ kind: 'log', level: 'error', message: 'unable to sync kubernetes service: endpoints "kubernetes" already exists' }]);
    expect(state.loops.service.nextAt).toBe(10_000);
  });
});

describe('injected failures', () => {
  it('an injected Conflict carries the Status message of the resource it hits', () => {
    const conflictOn = (resource: string, name: string, why = 'the object has been modified; please apply your changes to the latest version and try again') =>
      `Operation cannot be fulfilled on ${resource} "${name}": ${why}`;
    let sim = deleteUserObject(deleteUserObject(simWith(), 'Service', 'default', 'kubernetes'), 'EndpointSlice', 'default', 'kubernetes');
    sim = injectFailure(injectFailure(sim, { target: 'Service', reason: 'Conflict' }), { target: 'EndpointSlice', reason: 'Conflict' });
    // A leaked IP makes the third repair run write the range.
    sim = injectFailure(leakIP(sim, '10.96.0.200'), { target: 'RangeAllocation', reason: 'Conflict' });
    const from = sim.records.length;
    sim = advance(sim, 3 * 180_000);
    const errors = sim.records.slice(from).flatMap((r) => (r.kind === 'write' && r.error !== undefined ? [r.error.message] : []));
    // upstream: apimachinery errors.NewConflict prints the group-qualified plural resource;
    // the ranges' storage passes its own reason (allocator/storage/storage.go).
    expect(errors).toEqual([
      conflictOn('services', 'kubernetes'),
      conflictOn('endpointslices.discovery.k8s.io', 'kubernetes'),
      conflictOn('serviceipallocations', '', 'the provided resource version does not match'),
    ]);
  });
});

describe('stop', () => {
  it('stops reconciling, then removes our lease and our address; the last apiserver refuses to erase the Endpoints', () => {
    let sim = addApiserver(newSimulation(), 'b', { publicIP: '10.0.0.2' });
    sim = startApiserver(simWithOther(sim), 'b');
    expect(kubernetesEndpointIPs(sim)).toEqual(['10.0.0.2', ME]);
    let from = sim.records.length;
    sim = stopApiserver(sim, 'b');
    expect(logs(sim, from)).toEqual(['Shutting down kubernetes service endpoint reconciler']);
    expect(kubernetesEndpointIPs(sim)).toEqual([ME]);
    expect(sim.cluster.leases.has('10.0.0.2')).toBe(false);
    from = sim.records.length;
    sim = stopApiserver(sim, 'a');
    expect(logs(sim, from)).toEqual(['Shutting down kubernetes service endpoint reconciler', `Unable to remove endpoints from kubernetes service: ${NO_MASTER_IPS}`]);
    expect(kubernetesEndpointIPs(sim)).toEqual([ME]);
  });

  it('with its lease already expired, Stop writes nothing and logs only the shutdown (docs/deviations.md)', () => {
    let sim = advance(simWith({ leaseTtlMs: 5_000 }), 7_000);
    expect(sim.cluster.leases.get(ME)?.expiresAt).toBe(5_000);
    const from = sim.records.length;
    sim = stopApiserver(sim, 'a');
    expect(logs(sim, from)).toEqual(['Shutting down kubernetes service endpoint reconciler']);
    expect(sim.records.slice(from).filter((r) => r.kind === 'write')).toEqual([]);
  });

  it('the reducer: Stop makes the reconciler stopped before its first removal write, and cancels the loops', () => {
    const leases: Leases = new Map([[ME, { ip: ME, expiresAt: 50_000 }]]);
    let state = run(initialState(config()), observation(), { type: 'Start', now: 0 }, { type: 'Readyz', ok: true, now: 0 }).state;
    state = run(state, observation({ leases })).state;
    const { state: stopping, actions } = run(state, { type: 'Stop', now: 10 });
    expect(stopping.reconciler.stopped).toBe(true);
    expect(writes(actions)).toEqual([`delete-lease ${ME}`]);
    expect(Object.values(stopping.loops).filter((l) => l.pass !== undefined)).toHaveLength(1);
  });
});

describe('master-count', () => {
  it('two apiservers with --apiserver-count 2 both stay in the Endpoints, sorted as strings', () => {
    let sim = newSimulation();
    sim = addApiserver(sim, 'a', { publicIP: '10.0.0.9', endpointReconcilerType: 'master-count', masterCount: 2 });
    sim = addApiserver(sim, 'b', { publicIP: '10.0.0.10', endpointReconcilerType: 'master-count', masterCount: 2 });
    sim = advance(startApiserver(startApiserver(sim, 'a'), 'b'), 60_000);
    expect(kubernetesEndpointIPs(sim)).toEqual(['10.0.0.10', '10.0.0.9']);
  });
});

describe('purity', () => {
  it('step never changes the state or message it is given', () => {
    let sim = simWith();
    sim = deleteUserObject(sim, 'Service', 'default', 'kubernetes');
    const state = sim.apiservers[0]?.state;
    if (state === undefined) throw new Error('down');
    const message: Message = observation({ leases: new Map([[ME, { ip: ME, expiresAt: 1 }]]) });
    const before = structuredClone({ state, message });
    const after = run(state, message, { type: 'Tick', now: 10_000 }, { type: 'Stop', now: 10_001 });
    expect({ state, message }).toEqual(before);
    expect(after.state).not.toBe(state);
  });
});

function simWithOther(sim: Simulation): Simulation {
  return startApiserver(addApiserver(sim, 'a', { publicIP: ME }), 'a');
}

// The bootstrap controller as a reducer: step(state, message) → { state, actions }.
// Upstream runs five goroutines; here each is a loop in the state with its own schedule and at
// most one write in flight, so the writes of one loop happen in upstream's order and a failed
// write ends that loop's pass as upstream's `return err` does.
// upstream: pkg/controlplane/controller.go (~v1.21–1.26: Start, Stop, RunKubernetesNamespaces,
//           RunKubernetesService, UpdateKubernetesService, CreateOrUpdateMasterServiceIfNeeded),
//           pkg/registry/core/service/{ipallocator,portallocator}/controller/repair.go (RunUntil,
//           runOnce with retry.RetryOnConflict, saveSnapShot)
import { formatIP, type Endpoints, type EndpointSlice, type LeakCounters, type Service } from '@kubesvc/api-types';
import { repairClusterIPs, type ClusterIPLeaks } from '@kubesvc/ipallocator';
import { repairNodePorts } from '@kubesvc/portallocator';
import {
  alreadyExistsIgnored,
  hasLiveLease,
  newEndpointReconciler,
  reconcileEndpoints,
  removeEndpoints,
  stopReconciling,
  type EndpointReconciler,
  type EndpointWrite,
  type LeaseWrite,
  type ReconcileStep,
} from '@kubesvc/reconcilers';
import { INITIAL_REPAIR_TIMEOUT_MS, type BootstrapConfig } from './config.js';
import {
  KUBERNETES_SERVICE_NAME,
  KUBERNETES_SERVICE_NAMESPACE,
  SYSTEM_NAMESPACES,
  endpointPorts,
  kubernetesService,
  namespaceObject,
  serviceUpdateIfNeeded,
} from './kubernetes-service.js';
import type { Action, ApiError, Message, Observation, RangeKey, Write } from './messages.js';

/** Why a write was made: decides what its failure means. */
export type WriteContext =
  | { readonly on: 'stale-endpoints' }
  | { readonly on: 'system-namespace'; readonly name: string }
  | { readonly on: 'default-namespace'; readonly loop: 'namespaces' | 'service' }
  | { readonly on: 'service-create' }
  | { readonly on: 'service-update' }
  /** alreadyExistsIgnored: upstream treats an AlreadyExists of this create as success and stops there. */
  | { readonly on: 'endpoints'; readonly alreadyExistsIgnored: boolean }
  | { readonly on: 'range'; readonly range: RangeKey }
  | { readonly on: 'shutdown-endpoints' };

export interface QueuedWrite {
  readonly write: Write;
  readonly context: WriteContext;
}

/** A pass of one loop that is waiting for its writes: the one in flight and those after it. */
export interface Pass {
  readonly stage: 'remove' | 'namespaces' | 'default-namespace' | 'service' | 'endpoints' | 'repair';
  readonly inFlight: { readonly id: number; readonly item: QueuedWrite } | undefined;
  readonly queue: readonly QueuedWrite[];
  /** An error to log once the writes are done (the lease reconciler's refusal comes after its lease write). */
  readonly errorAfter: string | undefined;
  /** Repairs: the attempt of upstream's RetryOnConflict (DefaultBackoff: 4 steps). */
  readonly attempt: number;
}

export type LoopName = 'startup' | 'namespaces' | 'service' | 'ipRepair' | 'portRepair' | 'shutdown';

export interface LoopState {
  /** When the loop runs next; undefined: not scheduled. */
  readonly nextAt: number | undefined;
  readonly pass: Pass | undefined;
  /** Completed passes (repairs: successful or not), for schedules and tests. */
  readonly runs: number;
  readonly lastRunAt: number | undefined;
}

export type Phase = 'new' | 'starting' | 'running' | 'stopping' | 'stopped' | 'fatal';

export interface ControllerState {
  readonly config: BootstrapConfig;
  readonly reconciler: EndpointReconciler;
  readonly phase: Phase;
  readonly now: number;
  readonly observed: Observation | undefined;
  readonly nextId: number;
  /** The last wake-at asked for, so that it is asked again only when it changes. */
  readonly wakeAt: number | undefined;
  /** /readyz answered 200 once: the Service loop may run. */
  readonly ready: boolean;
  /** The next Service pass is the first after start (reconcile = true). */
  readonly firstServiceRun: boolean;
  readonly loops: Readonly<Record<LoopName, LoopState>>;
  readonly ipLeaks: ClusterIPLeaks;
  readonly portLeaks: LeakCounters;
  /** Each repair loop has succeeded at least once. */
  readonly ipRepaired: boolean;
  readonly portRepaired: boolean;
  /** upstream Start: klog.Fatalf unless both repairs succeed within a minute. */
  readonly repairDeadline: number | undefined;
  /** upstream Stop: RemoveEndpoints may take 2 × EndpointInterval. */
  readonly stopDeadline: number | undefined;
}

export interface StepResult {
  readonly state: ControllerState;
  readonly actions: readonly Action[];
}

const IDLE: LoopState = { nextAt: undefined, pass: undefined, runs: 0, lastRunAt: undefined };
/** upstream retry.DefaultBackoff.Steps. */
const CONFLICT_ATTEMPTS = 4;

export function initialState(config: BootstrapConfig): ControllerState {
  return {
    config,
    reconciler: newEndpointReconciler(config.endpointReconcilerType, { masterCount: config.masterCount, leaseTtlMs: config.leaseTtlMs }),
    phase: 'new',
    now: 0,
    observed: undefined,
    nextId: 1,
    wakeAt: undefined,
    ready: false,
    firstServiceRun: true,
    loops: { startup: IDLE, namespaces: IDLE, service: IDLE, ipRepair: IDLE, portRepair: IDLE, shutdown: IDLE },
    ipLeaks: {},
    portLeaks: {},
    ipRepaired: false,
    portRepaired: false,
    repairDeadline: undefined,
    stopDeadline: undefined,
  };
}

// One step works on a private copy of the state; the input is never changed.
type Draft = { -readonly [K in keyof ControllerState]: ControllerState[K] };

class Step {
  readonly actions: Action[] = [];
  readonly s: Draft;
  constructor(state: ControllerState) {
    this.s = { ...state };
  }

  log(level: 'error' | 'warning' | 'info', message: string): void {
    this.actions.push({ kind: 'log', level, message });
  }

  emit(write: Write): number {
    const id = this.s.nextId;
    this.s.nextId = id + 1;
    this.actions.push({ ...write, id });
    return id;
  }

  loop(name: LoopName): LoopState {
    return this.s.loops[name];
  }

  setLoop(name: LoopName, patch: Partial<LoopState>): void {
    this.s.loops = { ...this.s.loops, [name]: { ...this.s.loops[name], ...patch } };
  }
}

export function step(state: ControllerState, message: Message): StepResult {
  const st = new Step(state);
  const s = st.s;
  switch (message.type) {
    case 'Observed':
      s.observed = {
        services: message.services,
        endpoints: message.endpoints,
        endpointSlices: message.endpointSlices,
        namespaces: message.namespaces,
        rangeAllocations: message.rangeAllocations,
        leases: message.leases,
      };
      break;
    case 'Start':
      s.now = Math.max(s.now, message.now);
      if (s.phase === 'new') {
        s.phase = 'starting';
        st.setLoop('startup', { nextAt: s.now });
      }
      break;
    case 'Tick':
      s.now = Math.max(s.now, message.now);
      // The runtime has used up the last wake-at: ask again even if the time is the same.
      s.wakeAt = undefined;
      break;
    case 'Readyz':
      s.now = Math.max(s.now, message.now);
      if (message.ok && !s.ready) {
        s.ready = true;
        if (s.phase === 'running') st.setLoop('service', { nextAt: s.now });
      }
      break;
    case 'ActionResult':
      onResult(st, message.id, message.error);
      break;
    case 'IPAddressRepairSucceeded':
      s.now = Math.max(s.now, message.now);
      if (s.config.clusterIPAllocator === 'ipaddress') s.ipRepaired = true;
      break;
    case 'Stop':
      s.now = Math.max(s.now, message.now);
      if (s.phase !== 'stopping' && s.phase !== 'stopped' && s.phase !== 'fatal') beginStop(st);
      break;
  }
  runDue(st);
  checkDeadlines(st);
  scheduleWake(st);
  return { state: s, actions: st.actions };
}

// --- scheduling --------------------------------------------------------------------------

const RUNNING_LOOPS: readonly LoopName[] = ['namespaces', 'ipRepair', 'portRepair', 'service'];

function eligible(s: Draft, name: LoopName): boolean {
  switch (s.phase) {
    case 'starting':
      return name === 'startup';
    case 'running':
      if (name === 'ipRepair') return s.config.clusterIPAllocator === 'bitmap';
      return RUNNING_LOOPS.includes(name) && (name !== 'service' || s.ready);
    case 'stopping':
      return name === 'shutdown';
    default:
      return false;
  }
}

function runDue(st: Step): void {
  const s = st.s;
  if (s.observed === undefined) return;
  // A pass may finish at once and make another loop due (startup → running), hence the repeat.
  for (let changed = true; changed; ) {
    changed = false;
    for (const name of ['startup', ...RUNNING_LOOPS, 'shutdown'] as const) {
      const loop = st.loop(name);
      if (loop.pass !== undefined || loop.nextAt === undefined || loop.nextAt > s.now || !eligible(s, name)) continue;
      beginPass(st, name);
      changed = true;
    }
  }
}

function checkDeadlines(st: Step): void {
  const s = st.s;
  if (s.phase === 'running' && s.repairDeadline !== undefined && s.now >= s.repairDeadline) {
    if (s.ipRepaired && s.portRepaired) {
      s.repairDeadline = undefined;
    } else {
      st.actions.push({ kind: 'fatal', message: 'Unable to perform initial IP and Port allocation check' });
      s.phase = 'fatal';
      cancelAll(st);
    }
  }
  if (s.phase === 'stopping' && s.stopDeadline !== undefined && s.now >= s.stopDeadline) {
    // Don't block shutdown forever when the store cannot be reached.
    st.log('warning', 'RemoveEndpoints() timed out');
    finishStop(st);
  }
}

function scheduleWake(st: Step): void {
  const s = st.s;
  let earliest: number | undefined;
  const consider = (t: number | undefined): void => {
    if (t !== undefined && t > s.now && (earliest === undefined || t < earliest)) earliest = t;
  };
  for (const name of Object.keys(s.loops) as LoopName[]) {
    const loop = st.loop(name);
    if (loop.pass === undefined && eligible(s, name)) consider(loop.nextAt);
  }
  if (s.phase === 'running' && !(s.ipRepaired && s.portRepaired)) consider(s.repairDeadline);
  if (s.phase === 'stopping') consider(s.stopDeadline);
  if (earliest !== undefined && earliest !== s.wakeAt) {
    st.actions.push({ kind: 'wake-at', at: earliest });
    s.wakeAt = earliest;
  }
}

function cancelAll(st: Step): void {
  for (const name of Object.keys(st.s.loops) as LoopName[]) st.setLoop(name, { pass: undefined, nextAt: undefined });
}

// --- passes ------------------------------------------------------------------------------

function newPass(stage: Pass['stage'], queue: readonly QueuedWrite[], errorAfter?: string, attempt = 1): Pass {
  return { stage, inFlight: undefined, queue, errorAfter, attempt };
}

function beginPass(st: Step, name: LoopName): void {
  switch (name) {
    case 'startup':
      return beginStartup(st);
    case 'namespaces':
      return beginNamespaces(st);
    case 'service':
      return beginService(st);
    case 'ipRepair':
    case 'portRepair':
      return beginRepair(st, name, 1);
    case 'shutdown':
      return beginShutdown(st);
  }
}

/** Sends the pass's next write, or moves it to its next stage when none is left. */
function advance(st: Step, name: LoopName, pass: Pass): void {
  const [next, ...rest] = pass.queue;
  if (next !== undefined) {
    const id = st.emit(next.write);
    st.setLoop(name, { pass: { ...pass, inFlight: { id, item: next }, queue: rest } });
    return;
  }
  st.setLoop(name, { pass: { ...pass, inFlight: undefined } });
  if (pass.errorAfter !== undefined) return endPass(st, name, pass.errorAfter);
  nextStage(st, name, pass);
}

function onResult(st: Step, id: number, error: ApiError | undefined): void {
  for (const name of Object.keys(st.s.loops) as LoopName[]) {
    const pass = st.loop(name).pass;
    if (pass?.inFlight?.id !== id) continue;
    if (error === undefined) return advance(st, name, pass);
    return onWriteError(st, name, pass, pass.inFlight.item, error);
  }
  // Not waited for: an event, or a write of a pass that was cancelled.
}

function onWriteError(st: Step, name: LoopName, pass: Pass, item: QueuedWrite, error: ApiError): void {
  const ctx = item.context;
  switch (ctx.on) {
    case 'stale-endpoints':
      // upstream: a NotFound from RemoveEndpoints (no lease of ours) is the normal case.
      return endPass(st, name, error._tag === 'NotFound' ? '' : `Error removing old endpoints from kubernetes service: ${error.message}`);
    case 'system-namespace':
      if (error._tag !== 'AlreadyExists') st.log('error', `unable to create required kubernetes system namespace ${ctx.name}: ${error.message}`);
      return advance(st, name, pass);
    case 'default-namespace':
      if (error._tag === 'AlreadyExists') return advance(st, name, pass);
      if (ctx.loop === 'namespaces') {
        st.log('error', error.message);
        return advance(st, name, pass);
      }
      return endPass(st, name, `unable to sync kubernetes service: ${error.message}`);
    case 'service-create':
      // upstream: CreateOrUpdateMasterServiceIfNeeded calls itself, so the Service another
      // apiserver created is looked at again (and reset, on the first run). The runtime has
      // delivered the Observed that shows it.
      if (error._tag === 'AlreadyExists') return serviceStage(st);
      return endPass(st, name, `unable to sync kubernetes service: ${error.message}`);
    case 'service-update':
      return endPass(st, name, `unable to sync kubernetes service: ${error.message}`);
    case 'endpoints':
      // Another apiserver won the race (lease.go doReconcile, EnsureEndpointSliceFromEndpoints).
      if (ctx.alreadyExistsIgnored && error._tag === 'AlreadyExists') return endPass(st, name, undefined);
      return endPass(st, name, `unable to sync kubernetes service: ${error.message}`);
    case 'range': {
      if (error._tag === 'Conflict' && pass.attempt < CONFLICT_ATTEMPTS) {
        st.setLoop(name, { pass: undefined });
        return beginRepair(st, name === 'ipRepair' ? 'ipRepair' : 'portRepair', pass.attempt + 1);
      }
      if (error._tag === 'Conflict') return endPass(st, name, error.message);
      const what = ctx.range === 'nodePorts' ? 'port allocations' : 'service IP allocations';
      return endPass(st, name, `unable to persist the updated ${what}: ${error.message}`);
    }
    case 'shutdown-endpoints':
      return endPass(st, name, `Unable to remove endpoints from kubernetes service: ${error.message}`);
  }
}

function nextStage(st: Step, name: LoopName, pass: Pass): void {
  if (name === 'service') {
    if (pass.stage === 'default-namespace') return serviceStage(st);
    if (pass.stage === 'service') return endpointsStage(st);
  }
  endPass(st, name, undefined);
}

/**
 * Ends the loop's pass: `failure` is the error upstream returns from the pass ('' for a silent
 * one), undefined for success. Schedules the loop's next run.
 */
function endPass(st: Step, name: LoopName, failure: string | undefined): void {
  const s = st.s;
  const loop = st.loop(name);
  const done = { pass: undefined, runs: loop.runs + 1, lastRunAt: s.now };
  switch (name) {
    case 'startup':
      if (failure === undefined) {
        // upstream logs this at error level whenever RemoveEndpoints returns no error.
        st.log('error', "Found stale data, removed previous endpoints on kubernetes service, apiserver didn't exit successfully previously");
      } else if (failure !== '') {
        st.log('error', failure);
      }
      st.setLoop('startup', { ...done, nextAt: undefined });
      return startLoops(st);
    case 'namespaces':
      // wait.Until: the period starts when the pass ends.
      return st.setLoop(name, { ...done, nextAt: s.now + s.config.systemNamespacesIntervalMs });
    case 'service':
      // wait.NonSlidingUntil: nextAt was set when the pass began.
      if (failure) st.log('error', failure);
      return st.setLoop(name, { ...done });
    case 'ipRepair':
    case 'portRepair':
      if (failure === undefined) {
        if (name === 'ipRepair') s.ipRepaired = true;
        else s.portRepaired = true;
      } else if (failure !== '') {
        st.log('error', failure);
      }
      return st.setLoop(name, { ...done, nextAt: s.now + s.config.repairIntervalMs });
    case 'shutdown':
      if (failure) st.log('error', failure);
      st.setLoop(name, { ...done, nextAt: undefined });
      return finishStop(st);
  }
}

// --- the loops ---------------------------------------------------------------------------

function observed(st: Step): Observation {
  const o = st.s.observed;
  if (o === undefined) throw new Error('a pass began before the first Observed');
  return o;
}

function findNamed<T extends Service | Endpoints | EndpointSlice>(items: readonly T[]): T | undefined {
  return items.find((o) => o.metadata.namespace === KUBERNETES_SERVICE_NAMESPACE && o.metadata.name === KUBERNETES_SERVICE_NAME);
}

function reconcileRequest(st: Step) {
  const o = observed(st);
  return {
    serviceName: KUBERNETES_SERVICE_NAME,
    ip: formatIP(st.s.config.publicIP),
    endpointPorts: endpointPorts(st.s.config),
    observed: { endpoints: findNamed(o.endpoints), endpointSlice: findNamed(o.endpointSlices) },
  };
}

function endpointWrite(w: EndpointWrite): Write {
  switch (w.kind) {
    case 'create-endpoints':
      return { kind: 'create', object: w.endpoints };
    case 'update-endpoints':
      return { kind: 'update', object: w.endpoints, resourceVersion: w.resourceVersion };
    case 'create-endpointslice':
      return { kind: 'create', object: w.endpointSlice };
    case 'update-endpointslice':
      return { kind: 'update', object: w.endpointSlice, resourceVersion: w.resourceVersion };
    case 'delete-endpointslice':
      return { kind: 'delete', objectKind: 'EndpointSlice', namespace: w.namespace, name: w.name, resourceVersion: w.resourceVersion };
  }
}

function leaseWrite(w: LeaseWrite): Write {
  return w.kind === 'put-lease' ? { kind: 'put-lease', lease: w.lease, ttlMs: w.ttlMs } : { kind: 'delete-lease', ip: w.ip };
}

/**
 * The reconciler's lease writes first (upstream updates or removes the lease before it
 * reconciles), then its object writes. `context` gives each write its meaning from the type and
 * its place among the object writes (undefined for the lease writes).
 */
function reconcileWrites(
  result: ReconcileStep,
  context: (index: number | undefined) => WriteContext,
): { queue: QueuedWrite[]; error: string | undefined } {
  const queue: QueuedWrite[] = result.leaseWrites.map((w) => ({ write: leaseWrite(w), context: context(undefined) }));
  if (!result.outcome.ok) return { queue, error: result.outcome.error.message };
  result.outcome.value.writes.forEach((w, i) => queue.push({ write: endpointWrite(w), context: context(i) }));
  return { queue, error: undefined };
}

// upstream Start: RemoveEndpoints before anything else, to drop what an unclean exit left.
function beginStartup(st: Step): void {
  const s = st.s;
  const context: WriteContext = { on: 'stale-endpoints' };
  // The lease reconciler's RemoveLease fails with NotFound when there is no lease, and then
  // does not reconcile: nothing to write, nothing to log.
  if (s.reconciler.type === 'lease' && !hasLiveLease(observed(st).leases, formatIP(s.config.publicIP), s.now)) {
    return endPass(st, 'startup', '');
  }
  const result = removeEndpoints(s.reconciler, reconcileRequest(st), observed(st).leases, s.now);
  const { queue, error } = reconcileWrites(result, () => context);
  const pass = newPass('remove', queue, error === undefined ? undefined : `Error removing old endpoints from kubernetes service: ${error}`);
  st.setLoop('startup', { pass });
  advance(st, 'startup', pass);
}

function startLoops(st: Step): void {
  const s = st.s;
  if (s.phase !== 'starting') return;
  s.phase = 'running';
  s.repairDeadline = s.now + INITIAL_REPAIR_TIMEOUT_MS;
  // With the IPAddress allocator the ClusterIPs are RepairIPAddress's: only the NodePort repair
  // runs here, and the deadline waits for RepairIPAddress's first success instead.
  const repairs = s.config.clusterIPAllocator === 'bitmap' ? (['ipRepair', 'portRepair'] as const) : (['portRepair'] as const);
  for (const name of ['namespaces', ...repairs] as const) st.setLoop(name, { nextAt: s.now });
  if (s.ready) st.setLoop('service', { nextAt: s.now });
}

// upstream RunKubernetesNamespaces: the system namespaces, then default, each on its own.
function beginNamespaces(st: Step): void {
  const present = new Set(observed(st).namespaces.map((n) => n.metadata.name));
  const queue: QueuedWrite[] = [];
  for (const name of SYSTEM_NAMESPACES) {
    if (!present.has(name)) queue.push({ write: { kind: 'create', object: namespaceObject(name) }, context: { on: 'system-namespace', name } });
  }
  if (!present.has(KUBERNETES_SERVICE_NAMESPACE)) {
    queue.push({
      write: { kind: 'create', object: namespaceObject(KUBERNETES_SERVICE_NAMESPACE) },
      context: { on: 'default-namespace', loop: 'namespaces' },
    });
  }
  const pass = newPass('namespaces', queue);
  st.setLoop('namespaces', { pass });
  advance(st, 'namespaces', pass);
}

// upstream UpdateKubernetesService: the default namespace, the Service, then the endpoints;
// a failure at one stage skips the rest until the next interval.
function beginService(st: Step): void {
  const s = st.s;
  // wait.NonSlidingUntil resets its timer as a pass begins: a pass that outlasts the interval
  // is followed by one pass at once, not by one for every interval it missed.
  st.setLoop('service', { nextAt: s.now + s.config.endpointIntervalMs });
  const present = observed(st).namespaces.some((n) => n.metadata.name === KUBERNETES_SERVICE_NAMESPACE);
  const queue: QueuedWrite[] = present
    ? []
    : [{ write: { kind: 'create', object: namespaceObject(KUBERNETES_SERVICE_NAMESPACE) }, context: { on: 'default-namespace', loop: 'service' } }];
  const pass = newPass('default-namespace', queue);
  st.setLoop('service', { pass });
  advance(st, 'service', pass);
}

function reconcileNow(st: Step): boolean {
  return st.s.config.reconcileServiceOnStart && st.s.firstServiceRun;
}

function serviceStage(st: Step): void {
  const s = st.s;
  const existing = findNamed(observed(st).services);
  const queue: QueuedWrite[] = [];
  if (existing === undefined) {
    queue.push({ write: { kind: 'create', object: kubernetesService(s.config) }, context: { on: 'service-create' } });
  } else if (reconcileNow(st)) {
    const updated = serviceUpdateIfNeeded(existing, s.config);
    if (updated !== undefined) {
      st.log('warning', `Resetting master service ${JSON.stringify(KUBERNETES_SERVICE_NAME)} to ${JSON.stringify(updated.spec)}`);
      queue.push({
        write: { kind: 'update', object: updated, resourceVersion: existing.metadata.resourceVersion },
        context: { on: 'service-update' },
      });
    }
  }
  const pass = newPass('service', queue);
  st.setLoop('service', { pass });
  advance(st, 'service', pass);
}

function endpointsStage(st: Step): void {
  const s = st.s;
  const reconcile = reconcileNow(st);
  s.firstServiceRun = false;
  const result = reconcileEndpoints(s.reconciler, { ...reconcileRequest(st), reconcilePorts: reconcile }, observed(st).leases, s.now);
  const writes = result.outcome.ok ? result.outcome.value.writes : [];
  const { queue, error } = reconcileWrites(result, (i) => ({
    on: 'endpoints',
    alreadyExistsIgnored: i !== undefined && alreadyExistsIgnored(s.reconciler.type, writes, i),
  }));
  const pass = newPass('endpoints', queue, error === undefined ? undefined : `unable to sync kubernetes service: ${error}`);
  st.setLoop('service', { pass });
  advance(st, 'service', pass);
}

// One repair run (upstream runOnce), attempt n of RetryOnConflict. The leak counters change
// on every run, failed or not, as upstream's map does.
function beginRepair(st: Step, name: 'ipRepair' | 'portRepair', attempt: number): void {
  const s = st.s;
  const o = observed(st);
  const ranges = o.rangeAllocations;
  const queue: QueuedWrite[] = [];
  let failure: string | undefined;
  const write = (range: RangeKey, allocation: NonNullable<typeof ranges.serviceIPs>): void => {
    const stored = ranges[range];
    // The store makes no write when the bytes are the same (etcd3 GuaranteedUpdate), so none is asked.
    if (stored !== undefined && stored.range === allocation.range && stored.data === allocation.data) return;
    queue.push({ write: { kind: 'write-range', range, allocation, resourceVersion: stored?.metadata.resourceVersion }, context: { on: 'range', range } });
  };
  if (name === 'ipRepair') {
    const result = repairClusterIPs({
      networks: s.config.serviceCIDRs,
      snapshots: [ranges.serviceIPs, ranges.secondaryServiceIPs],
      services: o.services,
      leaks: s.ipLeaks,
    });
    if (!result.ok) {
      s.ipLeaks = result.error.leaks;
      failure = result.error.message;
    } else {
      s.ipLeaks = result.value.leaks;
      for (const event of result.value.events) st.emit({ kind: 'event', event });
      result.value.snapshots.forEach((snapshot, i) => write(i === 0 ? 'serviceIPs' : 'secondaryServiceIPs', snapshot));
    }
  } else {
    const result = repairNodePorts({ portRange: s.config.nodePortRange, snapshot: ranges.nodePorts, services: o.services, leaks: s.portLeaks });
    if (!result.ok) {
      s.portLeaks = result.error.leaks;
      failure = result.error.message;
    } else {
      s.portLeaks = result.value.leaks;
      for (const event of result.value.events) st.emit({ kind: 'event', event });
      write('nodePorts', result.value.snapshot);
    }
  }
  const pass = newPass('repair', failure === undefined ? queue : [], failure, attempt);
  st.setLoop(name, { pass });
  advance(st, name, pass);
}

// upstream Stop: stop the loops, StopReconciling, then RemoveEndpoints.
function beginStop(st: Step): void {
  const s = st.s;
  cancelAll(st);
  s.phase = 'stopping';
  s.reconciler = stopReconciling(s.reconciler);
  s.stopDeadline = s.now + 2 * s.config.endpointIntervalMs;
  st.log('info', 'Shutting down kubernetes service endpoint reconciler');
  st.setLoop('shutdown', { nextAt: s.now });
}

function beginShutdown(st: Step): void {
  const s = st.s;
  const result = removeEndpoints(s.reconciler, reconcileRequest(st), observed(st).leases, s.now);
  const { queue, error } = reconcileWrites(result, () => ({ on: 'shutdown-endpoints' }));
  const pass = newPass('remove', queue, error === undefined ? undefined : `Unable to remove endpoints from kubernetes service: ${error}`);
  st.setLoop('shutdown', { pass });
  advance(st, 'shutdown', pass);
}

function finishStop(st: Step): void {
  const s = st.s;
  s.phase = 'stopped';
  s.stopDeadline = undefined;
  cancelAll(st);
}

// The default ServiceCIDR controller of kube-apiserver, as a reducer: step(state, message) →
// { state, actions }. It creates the ServiceCIDR `kubernetes` from --service-cluster-ip-range
// (primary, then secondary), sets its Ready condition when the object matches the flags,
// upgrades it from single- to dual-stack when the flags add a second range to the one it
// holds, and otherwise only reports a mismatch: it never rewrites the object to match.
//
// Like the bootstrap controller it never calls a client: it asks for writes, events and logs
// as data and learns each write's outcome from an ActionResult. One sync is at most two
// writes in a row (create or upgrade, then the status), each depending on the one before.
//
// Upstream's Start blocks the apiserver's post-start hook until a sync succeeds (a poll every
// 100 ms), then returns and leaves a loop that syncs every 10 s; its deferred calls run as it
// returns, so "Shutting down" is logged then and the event broadcaster is shut down: from that
// moment on upstream records no more events, and neither does this reducer.
// upstream (v1.33): pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go
//           (NewController, Start, sync, syncStatus), pkg/controlplane/instance.go (the
//           start-kubernetes-service-cidr-controller post-start hook),
//           staging/src/k8s.io/apimachinery/pkg/util/wait (PollUntilContextCancel, Until).
//           The stored upstream copies of this file are from before v1.33 (no dual-stack
//           upgrade) and after it (syncStatus rewritten, its report texts reworded). v1.33's
//           sync and syncStatus (the single-to-dual-stack upgrade; the not-Ready and the
//           mismatch reports, each made once) are rebuilt from the upstream change that added
//           them, as its review shows it and as the later rewrite removed it: the texts of
//           those two reports are that change's, and the upgrade's failure texts carry the
//           error, as in every later copy. Upstream's v1.33 test tables pass unchanged
//           (default-service-cidr.test.ts).
import {
  DEFAULT_SERVICE_CIDR_NAME,
  DEFAULT_SERVICE_CIDR_READY_MESSAGE,
  SERVICE_CIDR_API_VERSION,
  SERVICE_CIDR_CONDITION_READY,
  formatCIDR,
  goQuote,
  type CIDR,
  type ServiceCIDR,
} from '@kubesvc/api-types';
import type { ApiError } from './messages.js';

/** The controller's name: its event source and its field manager. upstream: controllerName. */
export const DEFAULT_SERVICE_CIDR_CONTROLLER_NAME = 'kubernetes-service-cidr-controller';
/** The background sync period (upstream: same as DefaultEndpointReconcilerInterval). */
export const DEFAULT_SERVICE_CIDR_INTERVAL_MS = 10_000;
/** How often Start tries until the first sync succeeds. */
export const DEFAULT_SERVICE_CIDR_POLL_MS = 100;
/** The message of the Ready=True condition this controller sets (api-types' constant; the apiserver's start sets it too). */
export { DEFAULT_SERVICE_CIDR_READY_MESSAGE };

/** metav1.Condition, as ServiceCIDR status carries it. */
export type DefaultServiceCIDRCondition = NonNullable<NonNullable<ServiceCIDR['status']>['conditions']>[number];

/**
 * A Warning event (core/v1, source component kubernetes-service-cidr-controller). `regarding`
 * names the ServiceCIDR; its name is '' where upstream passes the empty object a failed create
 * returns.
 */
export interface DefaultServiceCIDREvent {
  readonly type: 'Warning';
  readonly reason: string;
  readonly message: string;
  readonly component: typeof DEFAULT_SERVICE_CIDR_CONTROLLER_NAME;
  readonly regarding: { readonly apiVersion: typeof SERVICE_CIDR_API_VERSION; readonly kind: 'ServiceCIDR'; readonly name: string };
}

/**
 * A write. `create` answers with the stored object (ActionResult.object); `update` carries the
 * resourceVersion it was read at as a precondition; `apply-status` is a server-side apply of
 * status with `fieldManager`, forced: the condition of `condition.type` becomes `condition`,
 * other conditions stay. An `event` is recorded; nothing waits for its result.
 */
export type DefaultServiceCIDRWrite =
  | { readonly kind: 'create'; readonly object: ServiceCIDR }
  | { readonly kind: 'update'; readonly object: ServiceCIDR; readonly resourceVersion: string | undefined }
  | {
      readonly kind: 'apply-status';
      readonly name: string;
      readonly condition: DefaultServiceCIDRCondition;
      readonly fieldManager: typeof DEFAULT_SERVICE_CIDR_CONTROLLER_NAME;
    }
  | { readonly kind: 'event'; readonly event: DefaultServiceCIDREvent };

export type DefaultServiceCIDRAction =
  | (DefaultServiceCIDRWrite & { readonly id: number })
  /** Deliver a Tick at this time (replaces any earlier request). */
  | { readonly kind: 'wake-at'; readonly at: number }
  /** What upstream logs (klog.Infof / InfoS). */
  | { readonly kind: 'log'; readonly level: 'info'; readonly message: string };

/**
 * What the controller is told. `Observed` is its informer's list (upstream watches only the
 * ServiceCIDR named kubernetes; others are ignored here). After a write the runtime delivers
 * the Observed that shows it before the write's ActionResult; a create's result carries the
 * stored object.
 */
export type DefaultServiceCIDRMessage =
  | { readonly type: 'Start'; readonly now: number }
  | { readonly type: 'Tick'; readonly now: number }
  | { readonly type: 'Observed'; readonly serviceCIDRs: readonly ServiceCIDR[] }
  | { readonly type: 'ActionResult'; readonly id: number; readonly object?: ServiceCIDR | undefined; readonly error?: ApiError | undefined }
  | { readonly type: 'Stop'; readonly now: number };

/** new → initializing (Start, polling) → running (Start returned) → stopped. */
export type DefaultServiceCIDRPhase = 'new' | 'initializing' | 'running' | 'stopped';

/** The write a sync is waiting for, and what it was made from. */
export type DefaultServiceCIDRInFlight =
  | { readonly id: number; readonly stage: 'create'; readonly sent: ServiceCIDR }
  | { readonly id: number; readonly stage: 'upgrade'; readonly observed: ServiceCIDR }
  | { readonly id: number; readonly stage: 'apply-status'; readonly target: ServiceCIDR };

export interface DefaultServiceCIDRState {
  /** The flags' CIDRs as upstream prints them (net.IPNet.String()), primary first. */
  readonly cidrs: readonly string[];
  readonly phase: DefaultServiceCIDRPhase;
  readonly now: number;
  /** The informer has listed once (an Observed arrived): upstream's WaitForNamedCacheSync. */
  readonly synced: boolean;
  readonly observed: ServiceCIDR | undefined;
  readonly reportedMismatchedCIDRs: boolean;
  readonly reportedNotReadyCondition: boolean;
  /** When the next sync starts; undefined: none scheduled. */
  readonly nextAt: number | undefined;
  /** When the sync under way started (the poll's period counts from there). */
  readonly syncStartedAt: number | undefined;
  readonly inFlight: DefaultServiceCIDRInFlight | undefined;
  readonly nextId: number;
  readonly wakeAt: number | undefined;
  /** Completed syncs, successful or not. */
  readonly syncs: number;
}

export interface DefaultServiceCIDRStepResult {
  readonly state: DefaultServiceCIDRState;
  readonly actions: readonly DefaultServiceCIDRAction[];
}

/** The controller for the flags' service CIDRs (BootstrapConfig.serviceCIDRs), primary first. */
export function initialDefaultServiceCIDRState(serviceCIDRs: readonly CIDR[]): DefaultServiceCIDRState {
  return {
    cidrs: serviceCIDRs.map(formatCIDR),
    phase: 'new',
    now: 0,
    synced: false,
    observed: undefined,
    reportedMismatchedCIDRs: false,
    reportedNotReadyCondition: false,
    nextAt: undefined,
    syncStartedAt: undefined,
    inFlight: undefined,
    nextId: 1,
    wakeAt: undefined,
    syncs: 0,
  };
}

/** Go's %v (and %s) of a []string: `[a b]`. */
function goList(items: readonly string[]): string {
  return `[${items.join(' ')}]`;
}

function sameList(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/** RFC 3339 in whole seconds, as metav1.Now() is stored. */
function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

/** What a failed create leaves in upstream's variable: an empty object (client-go returns one with the error). */
const EMPTY: ServiceCIDR = { apiVersion: SERVICE_CIDR_API_VERSION, kind: 'ServiceCIDR', metadata: {} };

type Draft = { -readonly [K in keyof DefaultServiceCIDRState]: DefaultServiceCIDRState[K] };

class Step {
  readonly actions: DefaultServiceCIDRAction[] = [];
  readonly s: Draft;
  constructor(state: DefaultServiceCIDRState) {
    this.s = { ...state };
  }

  log(message: string): void {
    this.actions.push({ kind: 'log', level: 'info', message });
  }

  emit(write: DefaultServiceCIDRWrite): number {
    const id = this.s.nextId;
    this.s.nextId = id + 1;
    this.actions.push({ ...write, id });
    return id;
  }

  /** Eventf: recorded only until Start has returned (its deferred Shutdown of the broadcaster). */
  event(about: ServiceCIDR, reason: string, message: string): void {
    if (this.s.phase !== 'initializing') return;
    this.emit({
      kind: 'event',
      event: {
        type: 'Warning',
        reason,
        message,
        component: DEFAULT_SERVICE_CIDR_CONTROLLER_NAME,
        regarding: { apiVersion: SERVICE_CIDR_API_VERSION, kind: 'ServiceCIDR', name: about.metadata.name ?? '' },
      },
    });
  }
}

export function stepDefaultServiceCIDR(state: DefaultServiceCIDRState, message: DefaultServiceCIDRMessage): DefaultServiceCIDRStepResult {
  const st = new Step(state);
  const s = st.s;
  switch (message.type) {
    case 'Observed':
      s.synced = true;
      s.observed = message.serviceCIDRs.find((c) => c.metadata.name === DEFAULT_SERVICE_CIDR_NAME);
      break;
    case 'Start':
      s.now = Math.max(s.now, message.now);
      if (s.phase === 'new') {
        st.log(`Starting ${DEFAULT_SERVICE_CIDR_CONTROLLER_NAME}`);
        s.phase = 'initializing';
        s.nextAt = s.now;
      }
      break;
    case 'Tick':
      s.now = Math.max(s.now, message.now);
      s.wakeAt = undefined;
      break;
    case 'ActionResult':
      if (s.inFlight?.id === message.id) onResult(st, s.inFlight, message.object, message.error);
      break;
    case 'Stop':
      s.now = Math.max(s.now, message.now);
      stop(st);
      break;
  }
  runDue(st);
  scheduleWake(st);
  return { state: s, actions: st.actions };
}

function runDue(st: Step): void {
  const s = st.s;
  if (s.phase !== 'initializing' && s.phase !== 'running') return;
  if (!s.synced || s.inFlight !== undefined || s.nextAt === undefined || s.nextAt > s.now) return;
  s.nextAt = undefined;
  s.syncStartedAt = s.now;
  sync(st);
}

function scheduleWake(st: Step): void {
  const s = st.s;
  const at = s.inFlight === undefined && s.synced && (s.phase === 'initializing' || s.phase === 'running') ? s.nextAt : undefined;
  if (at !== undefined && at > s.now && at !== s.wakeAt) {
    st.actions.push({ kind: 'wake-at', at });
    s.wakeAt = at;
  }
}

function stop(st: Step): void {
  const s = st.s;
  if (s.phase === 'initializing') {
    // PollUntilContextCancel gives up; Start logs it and returns, running its deferred calls.
    if (s.synced) st.log('error initializing the default ServiceCIDR: context canceled');
    st.log(`Shutting down ${DEFAULT_SERVICE_CIDR_CONTROLLER_NAME}`);
  }
  // A write in flight is left to the runtime; nothing after it is asked for.
  s.phase = 'stopped';
  s.nextAt = undefined;
  s.inFlight = undefined;
}

// upstream sync: the lister's ServiceCIDR, or a create when there is none.
function sync(st: Step): void {
  const s = st.s;
  const existing = s.observed;
  if (existing !== undefined) {
    const cidrs = existing.spec?.cidrs ?? [];
    if (s.cidrs.length === 2 && cidrs.length === 1 && s.cidrs[0] === cidrs[0]) {
      // The flags add a second family to the single-stack ServiceCIDR: the one update
      // upstream makes to the object.
      st.log(`Updating default ServiceCIDR from single-stack (${goList(cidrs)}) to dual-stack (${goList(s.cidrs)})`);
      const object: ServiceCIDR = { ...existing, spec: { ...existing.spec, cidrs: [...s.cidrs] } };
      const id = st.emit({ kind: 'update', object, resourceVersion: existing.metadata.resourceVersion });
      s.inFlight = { id, stage: 'upgrade', observed: existing };
      return;
    }
    syncStatus(st, existing);
    return;
  }
  st.log(`Creating default ServiceCIDR with CIDRs: ${goList(s.cidrs)}`);
  const sent: ServiceCIDR = { apiVersion: SERVICE_CIDR_API_VERSION, kind: 'ServiceCIDR', metadata: { name: DEFAULT_SERVICE_CIDR_NAME }, spec: { cidrs: [...s.cidrs] } };
  const id = st.emit({ kind: 'create', object: sent });
  s.inFlight = { id, stage: 'create', sent };
}

function onResult(st: Step, inFlight: DefaultServiceCIDRInFlight, object: ServiceCIDR | undefined, error: ApiError | undefined): void {
  const s = st.s;
  s.inFlight = undefined;
  switch (inFlight.stage) {
    case 'create':
      if (error !== undefined && error._tag !== 'AlreadyExists') {
        st.event(EMPTY, 'KubernetesDefaultServiceCIDRError', 'The default ServiceCIDR can not be created');
        return endSync(st, error.message);
      }
      // On AlreadyExists upstream goes on with the empty object the create returned: its
      // (absent) CIDRs do not match the flags, which is reported once as a mismatch.
      return syncStatus(st, error === undefined ? (object ?? inFlight.sent) : EMPTY);
    case 'upgrade':
      if (error !== undefined) {
        const from = s.cidrs[0] ?? '';
        st.log(`The default ServiceCIDR can not be updated from ${from} to dual stack ${goList(s.cidrs)} : ${error.message}`);
        st.event(inFlight.observed, 'KubernetesDefaultServiceCIDRError', `The default ServiceCIDR can not be upgraded from ${from} to dual stack ${goList(s.cidrs)} : ${error.message}`);
      }
      return endSync(st, undefined);
    case 'apply-status':
      if (error !== undefined) {
        st.log(`error updating default ServiceCIDR status: ${error.message}`);
        st.event(inFlight.target, 'KubernetesDefaultServiceCIDRError', 'The default ServiceCIDR Status can not be set to Ready=True');
      }
      return endSync(st, undefined);
  }
}

// upstream syncStatus: a ServiceCIDR being deleted is left to the ServiceCIDR controller of
// kube-controller-manager; a Ready condition set by someone else is left alone (reported
// once when it is not True); with no Ready condition, Ready=True is set when the CIDRs match
// the flags, and a mismatch is reported once.
function syncStatus(st: Step, serviceCIDR: ServiceCIDR): void {
  const s = st.s;
  const t = serviceCIDR.metadata.deletionTimestamp;
  if (t !== undefined && t !== null) return endSync(st, undefined);

  const cidrs = serviceCIDR.spec?.cidrs ?? [];
  const sameConfig = sameList(s.cidrs, cidrs);
  for (const condition of serviceCIDR.status?.conditions ?? []) {
    if (condition.type !== SERVICE_CIDR_CONDITION_READY) continue;
    if (condition.status === 'True') {
      // Ready, and the object matches this apiserver: nothing else is required.
      if (sameConfig) return endSync(st, undefined);
    } else {
      if (!s.reportedNotReadyCondition) {
        st.log(
          `"default ServiceCIDR condition Ready is not True, please validate your cluster's network configuration for this ServiceCIDR" status=${goQuote(condition.status)} reason=${goQuote(condition.reason)} message=${goQuote(condition.message)}`,
        );
        st.event(serviceCIDR, condition.reason, condition.message);
        s.reportedNotReadyCondition = true;
      }
      return endSync(st, undefined);
    }
  }
  if (sameConfig) {
    st.log('Setting default ServiceCIDR condition Ready to True');
    const condition: DefaultServiceCIDRCondition = {
      type: SERVICE_CIDR_CONDITION_READY,
      status: 'True',
      reason: '',
      message: DEFAULT_SERVICE_CIDR_READY_MESSAGE,
      lastTransitionTime: rfc3339(s.now),
    };
    const id = st.emit({ kind: 'apply-status', name: DEFAULT_SERVICE_CIDR_NAME, condition, fieldManager: DEFAULT_SERVICE_CIDR_CONTROLLER_NAME });
    s.inFlight = { id, stage: 'apply-status', target: serviceCIDR };
    return;
  }
  if (!s.reportedMismatchedCIDRs) {
    st.log(
      `inconsistent ServiceCIDR status, global configuration: ${goList(cidrs)} local configuration: ${goList(s.cidrs)}, configure the flags to match current ServiceCIDR or manually delete the default ServiceCIDR`,
    );
    st.event(serviceCIDR, 'KubernetesDefaultServiceCIDRInconsistent', `The default ServiceCIDR ${goList(cidrs)} does not match the flag configurations ${goList(s.cidrs)}`);
    s.reportedMismatchedCIDRs = true;
  }
  endSync(st, undefined);
}

/** A sync is over: `failure` is the error it returns. Schedules the next one. */
function endSync(st: Step, failure: string | undefined): void {
  const s = st.s;
  s.syncs += 1;
  if (s.phase === 'initializing') {
    if (failure === undefined) {
      // Start returns: its deferred log runs (and its broadcaster stops), and wait.Until
      // runs its first sync at once.
      st.log(`Shutting down ${DEFAULT_SERVICE_CIDR_CONTROLLER_NAME}`);
      s.phase = 'running';
      s.nextAt = s.now;
    } else {
      // The poll's period counts from the start of the try; a long try is followed at once.
      s.nextAt = Math.max(s.now, (s.syncStartedAt ?? s.now) + DEFAULT_SERVICE_CIDR_POLL_MS);
    }
    return;
  }
  if (s.phase !== 'running') return;
  if (failure !== undefined) st.log(`error trying to sync the default ServiceCIDR: ${failure}`);
  // wait.Until: the period counts from the end of the sync.
  s.nextAt = s.now + DEFAULT_SERVICE_CIDR_INTERVAL_MS;
}

/** upstream Start has returned: the default ServiceCIDR was synced once, and the apiserver may report healthy. */
export function defaultServiceCIDRInitialized(state: DefaultServiceCIDRState): boolean {
  return state.phase === 'running';
}

// The ServiceCIDR controller of kube-controller-manager: every ServiceCIDR not being deleted
// carries the finalizer networking.k8s.io/service-cidr-finalizer and the condition Ready=True;
// a ServiceCIDR being deleted keeps its finalizer while an IPAddress the allocator made would
// be left without any ServiceCIDR holding it (Ready=False, reason Terminating, meanwhile), and
// loses it once none would, after a grace period that lets every apiserver's allocator see
// the deletion first.
//
// It follows the keyed-controller pattern of contract.ts (keysFor, then a pure reconcile of
// one key returning the writes in upstream's order), over a view of its own: ServiceCIDRs and
// IPAddresses are not resources of the controller host yet, so the view is two lists and the
// actions are this controller's own writes.
// upstream (v1.33): pkg/controller/servicecidrs/servicecidrs_controller.go (addServiceCIDR,
//           updateServiceCIDR, deleteServiceCIDR, addIPAddress, deleteIPAddress,
//           overlappingServiceCIDRs, containingServiceCIDRs, sync, canDeleteCIDR,
//           addServiceCIDRFinalizerIfNeeded, removeServiceCIDRFinalizerIfNeeded),
//           pkg/api/servicecidr/servicecidr.go (api-types' networking/service-cidr-match.ts). The status writes
//           compare first, as the later updateConditionIfNeeded of the same file does
//           (docs/deviations.md).
import {
  IP_ADDRESS_LABEL_FAMILY,
  IP_ADDRESS_LABEL_MANAGED_BY,
  IP_ALLOCATOR_CONTROLLER_NAME,
  SERVICE_CIDR_API_VERSION,
  SERVICE_CIDR_CONDITION_READY,
  SERVICE_CIDR_FINALIZER,
  SERVICE_CIDR_REASON_TERMINATING,
  familyName,
  parseCIDRSloppy,
  type IPAddress,
  type ServiceCIDR,
  ipAddressOfName,
  serviceCIDRPrefix,
  serviceCIDRsContainingIP,
  serviceCIDRsContainingPrefix,
  serviceCIDRsOverlappingPrefix,
  type ServiceCIDRLike,
} from '@kubesvc/api-types';

/** The controller's name: its event source and its field manager. upstream: controllerName. */
export const SERVICE_CIDR_CONTROLLER_NAME = 'service-cidr-controller';
/**
 * How long after its deletionTimestamp a ServiceCIDR no IPAddress depends on keeps its
 * finalizer, so that no allocator still takes IPs from it. upstream: deletionGracePeriod.
 */
export const SERVICE_CIDR_DELETION_GRACE_PERIOD_MS = 10_000;
/** The Ready=True condition's message. */
export const SERVICE_CIDR_READY_MESSAGE = 'Kubernetes Service CIDR is ready';
/** The Ready=False (Terminating) condition's message while IPAddresses still depend on it. */
export const SERVICE_CIDR_TERMINATING_MESSAGE = 'There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR';

/** metav1.Condition, as ServiceCIDR status carries it. */
export type ServiceCIDRCondition = NonNullable<NonNullable<ServiceCIDR['status']>['conditions']>[number];

/** What the controller reads: its informers' ServiceCIDRs and IPAddresses, as last observed. */
export interface ServiceCIDRView {
  readonly serviceCIDRs: readonly ServiceCIDR[];
  readonly ipAddresses: readonly IPAddress[];
}

/** One change an informer saw. `old` is the object before a MODIFIED or DELETED. */
export type ServiceCIDRChange =
  | { readonly resource: 'servicecidrs'; readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: ServiceCIDR; readonly old?: ServiceCIDR }
  | { readonly resource: 'ipaddresses'; readonly type: 'ADDED' | 'MODIFIED' | 'DELETED'; readonly object: IPAddress; readonly old?: IPAddress };

/** A Warning event about a ServiceCIDR (core/v1, source component service-cidr-controller). */
export interface ServiceCIDREvent {
  readonly type: 'Warning';
  readonly reason: 'KubernetesServiceCIDRError';
  readonly message: string;
  readonly component: typeof SERVICE_CIDR_CONTROLLER_NAME;
  readonly regarding: { readonly apiVersion: typeof SERVICE_CIDR_API_VERSION; readonly kind: 'ServiceCIDR'; readonly name: string };
}

/**
 * A write the controller asks for, carried out in order; the first that fails ends the
 * reconcile and the key is requeued with backoff (upstream's sync returns the error). Upstream
 * makes each write without a resourceVersion precondition:
 * - `add-finalizer`, `remove-finalizer`: a strategic merge patch of metadata.finalizers
 *   (the finalizer merged in, or `$deleteFromPrimitiveList`). A NotFound is not a failure.
 * - `update-status`: a server-side apply of status with `fieldManager`, forced: the condition
 *   of `condition.type` becomes `condition`, other conditions stay. When it fails, the host
 *   records `eventOnFailure` if there is one (and the write has failed as above).
 * - `requeue-after`: reconcile `key` again after `afterMs` (workqueue AddAfter).
 */
export type ServiceCIDRAction =
  | { readonly kind: 'add-finalizer'; readonly name: string; readonly finalizer: typeof SERVICE_CIDR_FINALIZER }
  | { readonly kind: 'remove-finalizer'; readonly name: string; readonly finalizer: typeof SERVICE_CIDR_FINALIZER }
  | {
      readonly kind: 'update-status';
      readonly name: string;
      readonly condition: ServiceCIDRCondition;
      readonly fieldManager: typeof SERVICE_CIDR_CONTROLLER_NAME;
      readonly eventOnFailure?: ServiceCIDREvent;
    }
  | { readonly kind: 'requeue-after'; readonly key: string; readonly afterMs: number };

export interface ServiceCIDRController {
  readonly name: typeof SERVICE_CIDR_CONTROLLER_NAME;
  readonly watches: readonly ['servicecidrs', 'ipaddresses'];
  /** The keys (ServiceCIDR names) to reconcile after a change; `view` already holds the change. */
  keysFor(change: ServiceCIDRChange, view: ServiceCIDRView): readonly string[];
  /** Pure: the writes for one ServiceCIDR at time `now` (ms since the epoch). */
  reconcile(key: string, view: ServiceCIDRView, now: number): readonly ServiceCIDRAction[];
}

/** RFC 3339 in whole seconds, as metav1.Now() is stored. */
function rfc3339(ms: number): string {
  return new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');
}

function nameOf(o: { readonly metadata: { readonly name?: string | undefined } }): string {
  return o.metadata.name ?? '';
}

function beingDeleted(cidr: ServiceCIDR): boolean {
  const t = cidr.metadata.deletionTimestamp;
  return t !== undefined && t !== null;
}

function hasFinalizer(cidr: ServiceCIDR): boolean {
  return (cidr.metadata.finalizers ?? []).includes(SERVICE_CIDR_FINALIZER);
}

/** Distinct names, in name order (upstream's sets come out in any order; see docs/deviations.md). */
function names(items: readonly ServiceCIDRLike[]): string[] {
  return [...new Set(items.map(nameOf))].sort();
}

/**
 * overlappingServiceCIDRs: the ServiceCIDRs sharing an address with any entry of `cidr`
 * (itself included when the view holds it). Adding one may unblock or block their deletion.
 */
export function overlappingServiceCIDRs(cidr: ServiceCIDRLike, view: Pick<ServiceCIDRView, 'serviceCIDRs'>): string[] {
  const found: ServiceCIDRLike[] = [];
  for (const text of cidr.spec?.cidrs ?? []) {
    const prefix = serviceCIDRPrefix(text);
    if (prefix !== undefined) found.push(...serviceCIDRsOverlappingPrefix(view.serviceCIDRs, prefix));
  }
  return names(found);
}

/**
 * containingServiceCIDRs: the ServiceCIDRs holding the IPAddress, whose deletion it may block
 * or have been blocking. Only IPAddresses the apiserver's allocator manages count.
 */
export function containingServiceCIDRs(ip: IPAddress, view: Pick<ServiceCIDRView, 'serviceCIDRs'>): string[] {
  if (ip.metadata.labels?.[IP_ADDRESS_LABEL_MANAGED_BY] !== IP_ALLOCATOR_CONTROLLER_NAME) return [];
  const address = ipAddressOfName(nameOf(ip));
  return address === undefined ? [] : names(serviceCIDRsContainingIP(view.serviceCIDRs, address));
}

/** netutils.IPFamilyOfCIDRString as the IP family label spells it: 'IPv4', 'IPv6', or '' when it does not parse. */
function familyLabelOfCIDR(text: string): string {
  const parsed = parseCIDRSloppy(text);
  return parsed.ok ? familyName(parsed.value.ip.family) : '';
}

/**
 * canDeleteCIDR: deleting `cidr` leaves no allocator-made IPAddress without a ServiceCIDR.
 * True at once when, for every entry, another ServiceCIDR holds the same block or a larger
 * one. Otherwise it is false when some IPAddress of an entry's family is held by `cidr`
 * alone (network and IPv4 broadcast addresses are held by no ServiceCIDR, so never block).
 */
export function canDeleteServiceCIDR(cidr: ServiceCIDRLike, view: ServiceCIDRView): boolean {
  const self = nameOf(cidr);
  const cidrs = cidr.spec?.cidrs ?? [];
  let hasParent = true;
  for (const text of cidrs) {
    const prefix = serviceCIDRPrefix(text);
    if (prefix === undefined) continue;
    const holders = serviceCIDRsContainingPrefix(view.serviceCIDRs, prefix);
    if (holders.length === 0 || (holders.length === 1 && holders[0] !== undefined && nameOf(holders[0]) === self)) hasParent = false;
  }
  if (hasParent) return true;

  for (const text of cidrs) {
    const family = familyLabelOfCIDR(text);
    for (const ip of view.ipAddresses) {
      const labels = ip.metadata.labels ?? {};
      if (labels[IP_ADDRESS_LABEL_FAMILY] !== family || labels[IP_ADDRESS_LABEL_MANAGED_BY] !== IP_ALLOCATOR_CONTROLLER_NAME) continue;
      // upstream logs a name that does not parse ("[SHOULD NOT HAPPEN]") and goes on.
      const address = ipAddressOfName(nameOf(ip));
      if (address === undefined) continue;
      const holders = serviceCIDRsContainingIP(view.serviceCIDRs, address);
      if (holders.length === 1 && holders[0] !== undefined && nameOf(holders[0]) === self) return false;
    }
  }
  return true;
}

function readyCondition(cidr: ServiceCIDR): ServiceCIDRCondition | undefined {
  return cidr.status?.conditions?.find((c) => c.type === SERVICE_CIDR_CONDITION_READY);
}

/** The condition differs from the stored one in status, reason or message (updateConditionIfNeeded). */
function conditionChanged(cidr: ServiceCIDR, wanted: ServiceCIDRCondition): boolean {
  const current = readyCondition(cidr);
  return current === undefined || current.status !== wanted.status || current.reason !== wanted.reason || current.message !== wanted.message;
}

function statusWrite(name: string, condition: ServiceCIDRCondition, eventOnFailure?: ServiceCIDREvent): ServiceCIDRAction {
  return {
    kind: 'update-status',
    name,
    condition,
    fieldManager: SERVICE_CIDR_CONTROLLER_NAME,
    ...(eventOnFailure === undefined ? {} : { eventOnFailure }),
  };
}

function reconcile(key: string, view: ServiceCIDRView, now: number): readonly ServiceCIDRAction[] {
  const cidr = view.serviceCIDRs.find((c) => nameOf(c) === key);
  // Gone: nothing to do.
  if (cidr === undefined) return [];

  if (beingDeleted(cidr)) {
    if (!canDeleteServiceCIDR(cidr, view)) {
      // Say why the ServiceCIDR stays; a change to a ServiceCIDR or IPAddress that may
      // unblock it queues it again.
      const condition: ServiceCIDRCondition = {
        type: SERVICE_CIDR_CONDITION_READY,
        status: 'False',
        reason: SERVICE_CIDR_REASON_TERMINATING,
        message: SERVICE_CIDR_TERMINATING_MESSAGE,
        lastTransitionTime: rfc3339(now),
      };
      return conditionChanged(cidr, condition) ? [statusWrite(key, condition)] : [];
    }
    // Nothing depends on it, but an allocator may not have seen the deletion yet: wait out
    // the grace period from the deletionTimestamp before the finalizer goes.
    // (A deletionTimestamp that does not parse counts as long past: metav1.Time always parses.)
    const deletedAt = Date.parse(cidr.metadata.deletionTimestamp ?? '');
    const wait = SERVICE_CIDR_DELETION_GRACE_PERIOD_MS - (now - deletedAt);
    if (wait > 0) return [{ kind: 'requeue-after', key, afterMs: wait }];
    return hasFinalizer(cidr) ? [{ kind: 'remove-finalizer', name: key, finalizer: SERVICE_CIDR_FINALIZER }] : [];
  }

  // Created or updated: it must carry the finalizer, then be Ready.
  const actions: ServiceCIDRAction[] = [];
  if (!hasFinalizer(cidr)) actions.push({ kind: 'add-finalizer', name: key, finalizer: SERVICE_CIDR_FINALIZER });
  const condition: ServiceCIDRCondition = {
    type: SERVICE_CIDR_CONDITION_READY,
    status: 'True',
    reason: '',
    message: SERVICE_CIDR_READY_MESSAGE,
    lastTransitionTime: rfc3339(now),
  };
  if (conditionChanged(cidr, condition)) {
    actions.push(
      statusWrite(key, condition, {
        type: 'Warning',
        reason: 'KubernetesServiceCIDRError',
        message: 'The ServiceCIDR Status can not be set to Ready=True',
        component: SERVICE_CIDR_CONTROLLER_NAME,
        regarding: { apiVersion: SERVICE_CIDR_API_VERSION, kind: 'ServiceCIDR', name: key },
      }),
    );
  }
  return actions;
}

function keysFor(change: ServiceCIDRChange, view: ServiceCIDRView): readonly string[] {
  if (change.resource === 'ipaddresses') {
    // upstream has no update handler for IPAddresses: their name (the IP) cannot change.
    return change.type === 'MODIFIED' ? [] : containingServiceCIDRs(change.object, view);
  }
  const self = nameOf(change.object);
  if (change.type !== 'ADDED') return [self];
  // A new ServiceCIDR may unblock the deletion of those it overlaps.
  return [self, ...overlappingServiceCIDRs(change.object, view).filter((n) => n !== self)];
}

export const serviceCIDRController: ServiceCIDRController = {
  name: SERVICE_CIDR_CONTROLLER_NAME,
  watches: ['servicecidrs', 'ipaddresses'],
  keysFor,
  reconcile,
};

/**
 * What a write leaves of the ServiceCIDR, as the apiserver applies it (the finalizer merged
 * in or taken out; the condition of its type replaced, others kept). For hosts and tests that
 * keep ServiceCIDRs in memory; `requeue-after` leaves it as it is.
 */
export function applyServiceCIDRAction(cidr: ServiceCIDR, action: ServiceCIDRAction): ServiceCIDR {
  switch (action.kind) {
    case 'add-finalizer':
      if (hasFinalizer(cidr)) return cidr;
      return { ...cidr, metadata: { ...cidr.metadata, finalizers: [...(cidr.metadata.finalizers ?? []), action.finalizer] } };
    case 'remove-finalizer': {
      const rest = (cidr.metadata.finalizers ?? []).filter((f) => f !== action.finalizer);
      const { finalizers: _dropped, ...metadata } = cidr.metadata;
      return { ...cidr, metadata: rest.length === 0 ? metadata : { ...metadata, finalizers: rest } };
    }
    case 'update-status': {
      // conditions is a list map keyed by type: an entry of that type is replaced where it is.
      const current = cidr.status?.conditions ?? [];
      const conditions = current.some((c) => c.type === action.condition.type)
        ? current.map((c) => (c.type === action.condition.type ? action.condition : c))
        : [...current, action.condition];
      return { ...cidr, status: { ...cidr.status, conditions } };
    }
    case 'requeue-after':
      return cidr;
  }
}

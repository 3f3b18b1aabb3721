// The IPAddress repair loop (RepairIPAddress) as pure functions. Since v1.33 every ClusterIP is
// an IPAddress object named by the IP whose parentRef names the Service holding it; the loop
// checks that relation from both sides and says what to write to restore it:
//
// - Services -> IPAddresses (syncService): each ClusterIP of a Service must be inside a
//   ServiceCIDR and have an IPAddress that refers to that Service and carries the allocator's
//   labels; a missing one is created, a wrong one deleted and created again.
// - IPAddresses -> Services (syncIPAddress): an IPAddress the allocator manages whose Service is
//   gone is deleted once it is older than the grace period (a Service being created has its
//   IPAddress before it exists), and one whose Service does not hold its IP is deleted.
//
// The functions read a view of the cluster (what upstream's informers list) and return the
// writes, the requeues and the Warning events, in upstream's order; the caller performs them.
// upstream (v1.33): pkg/registry/core/service/ipallocator/controller/repairip.go
//           (runOnce/doRunOnce, syncService, recreateIPAddress, syncIPAddress, newIPAddress,
//           serviceToRef, getFamilyByIP, managedByController, verifyIPAddressLabels),
//           pkg/api/servicecidr/servicecidr.go (ContainsIP: api-types' serviceCIDRsContainingIP),
//           staging/src/k8s.io/client-go/tools/cache/store.go (MetaNamespaceKeyFunc,
//           SplitMetaNamespaceKey).
import {
  DEFAULT_SERVICE_CIDR_NAME,
  IPAddressSchema,
  IP_ADDRESS_LABEL_FAMILY,
  IP_ADDRESS_LABEL_MANAGED_BY,
  IP_ALLOCATOR_CONTROLLER_NAME,
  SERVICE_CIDR_API_VERSION,
  ServiceCIDRSchema,
  describeValue,
  err,
  familyName,
  formatIP,
  isIPv6,
  isRecord,
  isServiceIPSet,
  listProblem,
  ok,
  parseIPSloppy,
  repairServicesShapeProblem,
  schemaProblem,
  type Err,
  type ErrRepair,
  type IPAddress,
  type ParentReference,
  type Result,
  type Service,
  type ServiceCIDR,
  serviceCIDRsContainingIP,
} from '@kubesvc/api-types';
import { serviceIPAddress } from './ipaddress-allocator.js';
import { IP_REPAIR_CONTROLLER } from './repair.js';

/**
 * How long an IPAddress whose Service does not exist is kept: 60 s, the apiserver's default
 * request timeout, so the IPAddress of a Service still being created is not taken away.
 */
export const IP_ADDRESS_REPAIR_GRACE_PERIOD_MS = 60_000;

/**
 * Every reason RepairIPAddress records. `UnknownError` is there because upstream has it (a
 * lister that fails with something other than NotFound); a view never fails that way, so no
 * function here produces it.
 */
export type IPAddressRepairReason =
  | 'ClusterIPNotValid'
  | 'ClusterIPOutOfRange'
  | 'ClusterIPNotAllocated'
  | 'ClusterIPAlreadyAllocated'
  | 'IPAddressNotAllocated'
  | 'IPAddressWrongReference'
  | 'UnknownError';

/** The events/v1 action of each event: what the controller was doing when it saw the problem. */
export type IPAddressRepairEventAction = 'ClusterIPValidation' | 'ClusterIPAllocation' | 'IPAddressAllocation';

/** The object an event is about: the Service (syncService) or the IPAddress (syncIPAddress). */
export type IPAddressRepairRegarding =
  | { readonly apiVersion: 'v1'; readonly kind: 'Service'; readonly namespace: string; readonly name: string }
  | { readonly apiVersion: typeof SERVICE_CIDR_API_VERSION; readonly kind: 'IPAddress'; readonly name: string };

export interface IPAddressRepairEvent {
  readonly type: 'Warning';
  readonly reason: IPAddressRepairReason;
  readonly message: string;
  readonly action: IPAddressRepairEventAction;
  /** The recorder's component, 'ipallocator-repair-controller' as for the bitmap repair. */
  readonly reportingController: typeof IP_REPAIR_CONTROLLER;
  readonly regarding: IPAddressRepairRegarding;
}

/** A write to the IPAddress collection. A delete that finds nothing is not an error upstream. */
export type IPAddressWrite =
  | { readonly verb: 'create'; readonly ipAddress: IPAddress }
  | { readonly verb: 'delete'; readonly name: string };

/**
 * upstream ipQueue.AddAfter(name, afterMs): sync this IPAddress again after `afterMs`. A
 * delay of zero or less means now (workqueue's AddAfter).
 */
export interface IPAddressRequeue {
  readonly name: string;
  readonly afterMs: number;
}

/** What one sync (or a whole pass) asks for, each list in the order upstream does it. */
export interface IPAddressRepairStep {
  readonly writes: readonly IPAddressWrite[];
  readonly requeues: readonly IPAddressRequeue[];
  readonly events: readonly IPAddressRepairEvent[];
}

/** A Service as the repair reads it: only metadata and spec (a ServiceList's items will do). */
export type IPAddressRepairService = Pick<Service, 'metadata' | 'spec'>;

/** An IPAddress as the repair reads it: only metadata and spec (an IPAddressList's items will do). */
export type IPAddressRepairIPAddress = Pick<IPAddress, 'metadata' | 'spec'>;

/**
 * The lookups the per-key syncs make, as upstream's listers: a caller with informers passes
 * its caches; `ipAddressRepairListers` builds them from lists.
 */
export interface IPAddressRepairListers {
  /** serviceLister.Services(namespace).Get(name); namespace '' looks up the key `name`. */
  service(namespace: string, name: string): IPAddressRepairService | undefined;
  /** ipAddressLister.Get(name). */
  ipAddress(name: string): IPAddressRepairIPAddress | undefined;
  /** serviceCIDRLister.List(everything). */
  serviceCIDRs(): readonly Pick<ServiceCIDR, 'metadata' | 'spec'>[];
}

/** The cluster as one pass sees it. */
export interface IPAddressRepairView {
  readonly services: readonly IPAddressRepairService[];
  readonly ipAddresses: readonly IPAddressRepairIPAddress[];
  readonly serviceCIDRs: readonly Pick<ServiceCIDR, 'metadata' | 'spec'>[];
}

/** A whole pass: its writes, requeues and events, and the IPAddresses once its writes are done. */
export interface IPAddressRepairPass extends IPAddressRepairStep {
  readonly ipAddresses: readonly IPAddressRepairIPAddress[];
}

export type IPAddressRepairResult<T> = Result<T, ErrRepair>;

/** Go's zero time.Time: what a missing or null creationTimestamp reads as. */
const GO_ZERO_TIME_MS = Date.parse('0001-01-01T00:00:00Z');
/** time.Duration's largest value, (2^63 - 1) ns, in ms: Time.Sub saturates there. */
const GO_MAX_DURATION_MS = 9_223_372_036_854.775;

function repairError(message: string): Err<ErrRepair> {
  return err({ _tag: 'ErrRepair', message });
}

/** cache.MetaNamespaceKeyFunc: `namespace/name`, or `name` for an object without a namespace. */
export function serviceKey(service: Pick<Service, 'metadata'>): string {
  const namespace = service.metadata.namespace ?? '';
  const name = service.metadata.name ?? '';
  return namespace === '' ? name : `${namespace}/${name}`;
}

/** cache.SplitMetaNamespaceKey: `name` or `namespace/name`; anything else is an error. */
function splitKey(key: string): { namespace: string; name: string } | undefined {
  const parts = key.split('/');
  if (parts.length === 1) return { namespace: '', name: key };
  if (parts.length === 2) return { namespace: parts[0] ?? '', name: parts[1] ?? '' };
  return undefined;
}

/**
 * The ClusterIPs RepairIPAddress reads from a Service: spec.clusterIPs, or spec.clusterIP alone
 * for a Service stored before clusterIPs existed (defaulting copies it over:
 * pkg/apis/core/v1/defaults.go SetDefaults_Service).
 */
export function serviceClusterIPs(service: Pick<Service, 'spec'>): readonly string[] {
  const ips = service.spec?.clusterIPs ?? [];
  if (ips.length > 0) return ips;
  const single = service.spec?.clusterIP ?? '';
  return single === '' ? [] : [single];
}

function nameOf(ipAddress: IPAddressRepairIPAddress): string {
  return ipAddress.metadata.name ?? '';
}

function parentOf(ipAddress: IPAddressRepairIPAddress): ParentReference | undefined {
  return ipAddress.spec?.parentRef ?? undefined;
}

/**
 * Whether the parentRef names a Service (group "", resource "services"). upstream reads the
 * fields of the pointer without a nil check; the apiserver refuses an IPAddress without one,
 * so a view that has one anyway gets it read as naming no Service.
 */
function refersToService(ref: ParentReference | undefined): ref is ParentReference {
  return ref !== undefined && (ref.group ?? '') === '' && ref.resource === 'services';
}

/** fmt's %v of the *ParentReference: `&{group resource namespace name}`, or `<nil>`. */
function formatParentRef(ref: ParentReference | undefined): string {
  if (ref === undefined) return '<nil>';
  return `&{${ref.group ?? ''} ${ref.resource ?? ''} ${ref.namespace ?? ''} ${ref.name ?? ''}}`;
}

/** The family label's value for an IPAddress name: netutils.IsIPv6String, else IPv4. */
function familyOfName(name: string): 'IPv4' | 'IPv6' {
  return isIPv6(name) ? 'IPv6' : 'IPv4';
}

/** managedByController: the managed-by label is the allocator's. */
export function isManagedByIPAllocator(ipAddress: Pick<IPAddress, 'metadata'>): boolean {
  return ipAddress.metadata.labels?.[IP_ADDRESS_LABEL_MANAGED_BY] === IP_ALLOCATOR_CONTROLLER_NAME;
}

/** verifyIPAddressLabels: the family label matches the name's family, and the allocator manages it. */
function hasAllocatorLabels(ipAddress: IPAddressRepairIPAddress): boolean {
  const family = ipAddress.metadata.labels?.[IP_ADDRESS_LABEL_FAMILY];
  if (family === undefined || family !== familyOfName(nameOf(ipAddress))) return false;
  return isManagedByIPAllocator(ipAddress);
}

/**
 * newIPAddress: the IPAddress the repair (and the allocator) writes for a ClusterIP of a
 * Service, as it goes over the wire: named by the IP, the family and managed-by labels, and a
 * parentRef to the Service (group "" and an empty namespace are omitted, as Go's omitempty does).
 */
export function newServiceIPAddress(name: string, service: Pick<Service, 'metadata'>): IPAddress {
  return serviceIPAddress(name, familyOfName(name), { namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' });
}

/** The running lists of one sync. */
class StepBuilder {
  readonly writes: IPAddressWrite[] = [];
  readonly requeues: IPAddressRequeue[] = [];
  readonly events: IPAddressRepairEvent[] = [];

  warn(regarding: IPAddressRepairRegarding, reason: IPAddressRepairReason, action: IPAddressRepairEventAction, message: string): void {
    this.events.push({ type: 'Warning', reason, message, action, reportingController: IP_REPAIR_CONTROLLER, regarding });
  }

  /** recreateIPAddress: delete (NotFound ignored), then create pointing at the Service. */
  recreate(name: string, service: IPAddressRepairService): void {
    this.writes.push({ verb: 'delete', name }, { verb: 'create', ipAddress: newServiceIPAddress(name, service) });
  }

  step(): IPAddressRepairStep {
    return { writes: this.writes, requeues: this.requeues, events: this.events };
  }
}

function aboutService(service: IPAddressRepairService): IPAddressRepairRegarding {
  return { apiVersion: 'v1', kind: 'Service', namespace: service.metadata.namespace ?? '', name: service.metadata.name ?? '' };
}

function aboutIPAddress(ipAddress: IPAddressRepairIPAddress): IPAddressRepairRegarding {
  return { apiVersion: SERVICE_CIDR_API_VERSION, kind: 'IPAddress', name: nameOf(ipAddress) };
}

/**
 * upstream syncService(key): checks each ClusterIP of the Service `key` (`namespace/name`).
 * A Service not in the view, or without a cluster IP, needs nothing. For each ClusterIP, in
 * order:
 * - it does not parse: ClusterIPNotValid (upstream formats the nil parse result, so the
 *   message reads `Cluster IP <nil> is not a valid IP; please recreate Service`);
 * - no ServiceCIDR holds it: ClusterIPOutOfRange;
 * - it has no IPAddress: ClusterIPNotAllocated, and the IPAddress is created;
 * - its IPAddress names no Service, or a Service that does not exist: ClusterIPNotAllocated
 *   ("has a wrong reference"), and the IPAddress is deleted and created for this Service;
 * - its IPAddress names another Service that holds the IP too: ClusterIPAlreadyAllocated,
 *   nothing written (the other Service keeps it); one that does not hold it is left to
 *   syncIPAddress;
 * - its IPAddress lacks the allocator's labels: deleted and created for this Service, silently.
 * The error is upstream's for a key it cannot split.
 */
export function syncServiceIPAddresses(listers: IPAddressRepairListers, key: string): IPAddressRepairResult<IPAddressRepairStep> {
  const out = new StepBuilder();
  const split = splitKey(key);
  if (split === undefined) return repairError(`unexpected key format: ${JSON.stringify(key)}`);
  const service = listers.service(split.namespace, split.name);
  if (service === undefined || !isServiceIPSet(service.spec)) return ok(out.step());
  const namespace = service.metadata.namespace ?? '';
  const name = service.metadata.name ?? '';
  const regarding = aboutService(service);

  for (const clusterIP of serviceClusterIPs(service)) {
    const parsed = parseIPSloppy(clusterIP);
    if (!parsed.ok) {
      out.warn(regarding, 'ClusterIPNotValid', 'ClusterIPValidation', 'Cluster IP <nil> is not a valid IP; please recreate Service');
      continue;
    }
    const family = familyName(parsed.value.family);
    const ip = formatIP(parsed.value);
    if (serviceCIDRsContainingIP(listers.serviceCIDRs(), parsed.value).length === 0) {
      out.warn(regarding, 'ClusterIPOutOfRange', 'ClusterIPAllocation', `Cluster IP [${family}]: ${ip} is not within any configured Service CIDR; please recreate service`);
      continue;
    }
    const ipAddress = listers.ipAddress(ip);
    if (ipAddress === undefined) {
      out.warn(regarding, 'ClusterIPNotAllocated', 'ClusterIPAllocation', `Cluster IP [${family}]: ${ip} is not allocated; repairing`);
      out.writes.push({ verb: 'create', ipAddress: newServiceIPAddress(ip, service) });
      continue;
    }
    const wrongReference = `the ClusterIP [${family}]: ${ip} for Service ${namespace}/${name} has a wrong reference; repairing`;
    const ref = parentOf(ipAddress);
    if (!refersToService(ref)) {
      out.warn(regarding, 'ClusterIPNotAllocated', 'ClusterIPAllocation', wrongReference);
      out.recreate(nameOf(ipAddress), service);
      continue;
    }
    if ((ref.namespace ?? '') !== namespace || (ref.name ?? '') !== name) {
      // Two Services with one IP must not take the IPAddress from each other in turn.
      const holder = listers.service(ref.namespace ?? '', ref.name ?? '');
      if (holder === undefined) {
        out.warn(regarding, 'ClusterIPNotAllocated', 'ClusterIPAllocation', wrongReference);
        out.recreate(nameOf(ipAddress), service);
        continue;
      }
      if (serviceClusterIPs(holder).includes(nameOf(ipAddress))) {
        out.warn(regarding, 'ClusterIPAlreadyAllocated', 'ClusterIPAllocation', `Cluster IP [${family}]:${ip} was assigned to multiple services; please recreate service`);
      }
    }
    if (!hasAllocatorLabels(ipAddress)) out.recreate(nameOf(ipAddress), service);
  }
  return ok(out.step());
}

/** now - creationTimestamp in ms, as Go's Time.Sub: a missing timestamp is the zero time, and the result saturates. */
function lifetimeMs(ipAddress: IPAddressRepairIPAddress, now: number): number {
  const stamp = ipAddress.metadata.creationTimestamp;
  const parsed = typeof stamp === 'string' ? Date.parse(stamp) : Number.NaN;
  const created = Number.isNaN(parsed) ? GO_ZERO_TIME_MS : parsed;
  return Math.min(GO_MAX_DURATION_MS, Math.max(-GO_MAX_DURATION_MS, now - created));
}

/**
 * upstream syncIPAddress(name), at time `now` (ms since the epoch). Only IPAddresses the
 * allocator manages are looked at:
 * - its parentRef names no Service: IPAddressNotAllocated ("appears to have been modified"),
 *   deleted;
 * - its Service does not exist: older than the grace period, IPAddressNotAllocated ("appears
 *   to have leaked"), deleted; either way it is requeued after grace period - age (which is
 *   zero or less once it is past);
 * - its Service does not hold its IP (the name compared with spec.clusterIPs as written):
 *   IPAddressWrongReference, deleted.
 */
export function syncIPAddress(listers: IPAddressRepairListers, name: string, now: number): IPAddressRepairResult<IPAddressRepairStep> {
  const out = new StepBuilder();
  if (!Number.isFinite(now)) return repairError(`syncIPAddress: now must be a finite number of ms, got ${describeValue(now)}`);
  const ipAddress = listers.ipAddress(name);
  if (ipAddress === undefined || !isManagedByIPAllocator(ipAddress)) return ok(out.step());
  const ipName = nameOf(ipAddress);
  const regarding = aboutIPAddress(ipAddress);
  const ref = parentOf(ipAddress);
  if (!refersToService(ref)) {
    out.warn(regarding, 'IPAddressNotAllocated', 'IPAddressAllocation', `IPAddress ${ipName} appears to have been modified, not referencing a Service ${formatParentRef(ref)}: cleaning up`);
    out.writes.push({ verb: 'delete', name: ipName });
    return ok(out.step());
  }
  const refNamespace = ref.namespace ?? '';
  const refName = ref.name ?? '';
  const service = listers.service(refNamespace, refName);
  if (service === undefined) {
    const lifetime = lifetimeMs(ipAddress, now);
    if (lifetime > IP_ADDRESS_REPAIR_GRACE_PERIOD_MS) {
      out.warn(regarding, 'IPAddressNotAllocated', 'IPAddressAllocation', `IPAddress: ${ipName} for Service ${refNamespace}/${refName} appears to have leaked: cleaning up`);
      out.writes.push({ verb: 'delete', name: ipName });
    }
    out.requeues.push({ name, afterMs: IP_ADDRESS_REPAIR_GRACE_PERIOD_MS - lifetime });
    return ok(out.step());
  }
  if (serviceClusterIPs(service).includes(ipName)) return ok(out.step());
  const holder = `${service.metadata.namespace ?? ''}/${service.metadata.name ?? ''}`;
  out.warn(regarding, 'IPAddressWrongReference', 'IPAddressAllocation', `IPAddress: ${ipName} for Service ${holder} has a wrong reference; cleaning up`);
  out.writes.push({ verb: 'delete', name: ipName });
  return ok(out.step());
}

/**
 * Lookups over lists, keyed as upstream's informer indexes key them (Services by
 * MetaNamespaceKeyFunc, IPAddresses by name; a later duplicate key wins, as a store's Add).
 * The lists are shape-checked here, once.
 */
export function ipAddressRepairListers(view: IPAddressRepairView): IPAddressRepairResult<IPAddressRepairListers> {
  const problem = viewProblem(view);
  if (problem !== undefined) return repairError(`ipAddressRepairListers: ${problem}`);
  return ok(mapListers(view, ipAddressIndex(view.ipAddresses)));
}

function ipAddressIndex(ipAddresses: readonly IPAddressRepairIPAddress[]): Map<string, IPAddressRepairIPAddress> {
  return new Map(ipAddresses.map((ipAddress) => [nameOf(ipAddress), ipAddress]));
}

function mapListers(view: IPAddressRepairView, ipAddresses: ReadonlyMap<string, IPAddressRepairIPAddress>): IPAddressRepairListers {
  const services = new Map(view.services.map((service) => [serviceKey(service), service]));
  return {
    service: (namespace, name) => services.get(namespace === '' ? name : `${namespace}/${name}`),
    ipAddress: (name) => ipAddresses.get(name),
    serviceCIDRs: () => view.serviceCIDRs,
  };
}

/**
 * The IPAddresses once the writes are done, in order: a delete removes the name, a create
 * puts its object under its name (in place of one there, else at the end).
 */
export function applyIPAddressWrites(ipAddresses: readonly IPAddressRepairIPAddress[], writes: readonly IPAddressWrite[]): IPAddressRepairIPAddress[] {
  const index = ipAddressIndex(ipAddresses);
  for (const write of writes) applyWrite(index, write);
  return [...index.values()];
}

function applyWrite(index: Map<string, IPAddressRepairIPAddress>, write: IPAddressWrite): void {
  if (write.verb === 'delete') index.delete(write.name);
  else index.set(nameOf(write.ipAddress), write.ipAddress);
}

/**
 * upstream runOnce: syncService for every Service (in the view's order), then syncIPAddress
 * for every IPAddress the allocator manages. Each sync sees the writes of those before it, as
 * upstream's unit tests arrange with a fake client that writes into the informers' store; the
 * IPAddress loop lists the IPAddresses after the Service loop's writes (in the view's order,
 * created ones at the end). The error is the first sync's error (the pass stops there).
 */
export function repairIPAddresses(view: IPAddressRepairView, now: number): IPAddressRepairResult<IPAddressRepairPass> {
  const problem = viewProblem(view);
  if (problem !== undefined) return repairError(`repairIPAddresses: ${problem}`);
  if (!Number.isFinite(now)) return repairError(`repairIPAddresses: now must be a finite number of ms, got ${describeValue(now)}`);
  const index = ipAddressIndex(view.ipAddresses);
  const listers = mapListers(view, index);
  const writes: IPAddressWrite[] = [];
  const requeues: IPAddressRequeue[] = [];
  const events: IPAddressRepairEvent[] = [];
  const take = (step: IPAddressRepairStep): void => {
    for (const write of step.writes) applyWrite(index, write);
    writes.push(...step.writes);
    requeues.push(...step.requeues);
    events.push(...step.events);
  };

  for (const service of view.services) {
    const step = syncServiceIPAddresses(listers, serviceKey(service));
    if (!step.ok) return step;
    take(step.value);
  }
  const managed = [...index.values()].filter(isManagedByIPAllocator).map(nameOf);
  for (const name of managed) {
    const step = syncIPAddress(listers, name, now);
    if (!step.ok) return step;
    take(step.value);
  }
  return ok({ writes, requeues, events, ipAddresses: [...index.values()] });
}

/**
 * RunUntil polls until the ServiceCIDR named `kubernetes` exists before its first pass (in the
 * stored upstream text; the first apiserver creates that ServiceCIDR from its flags).
 */
export function hasDefaultServiceCIDR(serviceCIDRs: readonly Pick<ServiceCIDR, 'metadata'>[]): boolean {
  return serviceCIDRs.some((serviceCIDR) => serviceCIDR.metadata.name === DEFAULT_SERVICE_CIDR_NAME);
}

const IP_ADDRESS_PARTS = IPAddressSchema.pick({ metadata: true, spec: true });
const SERVICE_CIDR_PARTS = ServiceCIDRSchema.pick({ metadata: true, spec: true });

/** Why the view is not an IPAddressRepairView, or undefined: checked once, at the edge. */
function viewProblem(view: unknown): string | undefined {
  if (!isRecord(view)) return `expected { services, ipAddresses, serviceCIDRs }, got ${describeValue(view)}`;
  return (
    repairServicesShapeProblem(view['services']) ??
    listProblem(view['ipAddresses'], 'ipAddresses', (item, at) => schemaProblem(IP_ADDRESS_PARTS, item, at)) ??
    listProblem(view['serviceCIDRs'], 'serviceCIDRs', (item, at) => schemaProblem(SERVICE_CIDR_PARTS, item, at))
  );
}

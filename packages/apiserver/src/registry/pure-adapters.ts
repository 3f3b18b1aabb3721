// Every call the registry makes into api-types' defaulting and validation and into the two
// allocator packages goes through this one module, so that a change of those packages'
// function shapes is absorbed here and nowhere else. Each function is small and says which
// pure function it wraps; the registry sees only the shapes declared below.
import {
  decodeObject,
  KINDS,
  defaultObject,
  familyName,
  formatIP,
  invalidError,
  isServiceIPSet,
  needsHealthCheck,
  parseIPSloppy,
  parseServiceNetworking,
  fieldPath,
  validateObject,
  validateObjectMetaUpdate,
  validateServiceStatusUpdate,
  validateServiceCIDRStatusUpdate,
  validateDeploymentStatusUpdate,
  validateReplicaSetStatusUpdate,
  validateServiceCreate as validateServiceCreateInApiTypes,
  validateServiceUpdate as validateServiceUpdateInApiTypes,
  type ApiStatus,
  type CIDR,
  type ClusterIPFamilies,
  type FieldError,
  type GroupKindInput,
  type IPFamily,
  type Kind,
  type KubeObject,
  type ObjectMetaInput,
  type IPAddress,
  type RangeAllocation,
  type Rng,
  type Service,
  type ServiceCIDR,
  type ServiceNetworking,
} from '@kubesvc/api-types';
import { err, ok, renderFieldError, type Err, type Result, type TaggedError, type WithRng } from '@kubesvc/api-types';
import {
  allocateIP,
  allocateNextIP,
  hasIP,
  ipAllocatorSnapshotData,
  ipOffset,
  ipAllocatorFromSnapshot,
  newIPAllocator,
  releaseIP,
  repairClusterIPs,
  snapshotIPAllocator,
  allocateNextServiceIP,
  allocateServiceIP,
  dualWriteAllocate,
  errAllocated,
  ipAddressName,
  newMetaAllocator,
  nextServiceIPInNextServiceCIDR,
  releaseServiceIP,
  type ClusterIPLeaks,
  type IPAddressView,
  type IPAllocator,
  type MetaAllocator,
} from '@kubesvc/ipallocator';
import {
  allocateNextPort,
  allocatePort,
  portAllocatorSnapshotData,
  collectServiceNodePorts,
  formatPortRange,
  hasPort,
  newPortAllocator,
  portAllocatorFromSnapshot,
  releasePort,
  repairNodePorts,
  snapshotPortAllocator,
  type PortAllocator,
  type PortRange,
} from '@kubesvc/portallocator';
import type { LeakCounters } from '@kubesvc/api-types';
import type { z } from 'zod';

/** A failure of a pure step, with upstream's message. */
export type AdapterError = TaggedError;

export type AdapterResult<T> = Result<T, AdapterError>;

// --- The cluster's networking configuration --------------------------------------------------

/** What the registry needs to know of the service CIDRs and the node port range. */
export interface ClusterNetworking {
  /** The service CIDRs, primary first (one per family). */
  readonly serviceCIDRs: readonly CIDR[];
  readonly families: ClusterIPFamilies;
  readonly portRange: PortRange;
  /** The port range as the flag prints it, e.g. `30000-32767`. */
  readonly portRangeText: string;
  /** kube-apiserver's PreferSameTrafficDistribution gate (alpha in v1.33, off by default), which the Service validation reads. */
  readonly preferSameTrafficDistribution?: boolean;
}

/** What the registry needs of the parsed flags (api-types' parseServiceNetworking). */
export function clusterNetworkingOf(networking: ServiceNetworking): ClusterNetworking {
  const { serviceCIDRs, families, nodePortRange } = networking;
  return { serviceCIDRs, families, portRange: nodePortRange, portRangeText: formatPortRange(nodePortRange) };
}

/**
 * `--service-cluster-ip-range` as a list of its entries and `--service-node-port-range`, read
 * by api-types' parseServiceNetworking (the one parser of them), with kube-apiserver's messages.
 */
export function clusterNetworking(serviceCIDRs: readonly string[], nodePortRange: string): AdapterResult<ClusterNetworking> {
  const parsed = parseServiceNetworking({ serviceClusterIPRange: serviceCIDRs.join(','), serviceNodePortRange: nodePortRange });
  if (!parsed.ok) return parsed;
  return ok(clusterNetworkingOf(parsed.value));
}

// --- Decoding --------------------------------------------------------------------------------

/** The zod schema api-types checks a kind with. Wraps: KINDS. */
export function schemaOfKind(kind: Kind): z.ZodType {
  return KINDS[kind].schema;
}

/** The apiVersion api-types serves a kind at (`v1`, `discovery.k8s.io/v1`), or undefined. Wraps: KINDS. */
export function apiVersionOfKind(kind: string): string | undefined {
  return Object.hasOwn(KINDS, kind) ? KINDS[kind as Kind].apiVersion : undefined;
}

/**
 * A parsed JSON value checked against its kind's schema: the typed object, or the first
 * structural problem as `field: message`. Wraps: decodeObject.
 */
export function decodeKubeObject(raw: unknown): AdapterResult<KubeObject> {
  const decoded = decodeObject(raw);
  if (decoded.ok) return decoded;
  const [first] = decoded.error.causes;
  const message = first === undefined ? decoded.error.message : first.field ? `${first.field}: ${first.message}` : first.message;
  return err({ _tag: 'ErrDecode', message });
}

// --- Defaulting and validation ---------------------------------------------------------------

/** A validation's field errors (errors.NewInvalid's causes); `message` prints them one a line. */
export interface ErrFieldErrors extends TaggedError<'ErrFieldErrors'> {
  readonly errors: readonly FieldError[];
}

export type ValidationResult<T> = Result<T, ErrFieldErrors>;

function fieldErrors(errors: readonly FieldError[]): Err<ErrFieldErrors> {
  return err({ _tag: 'ErrFieldErrors', message: errors.map(renderFieldError).join('\n'), errors });
}

/**
 * A new Service as the apiserver prepares it before allocation: v1 defaulting, clusterIPs
 * normalisation and IP-family defaulting, then validation. Wraps: api-types'
 * validateServiceCreate.
 */
export function validateServiceCreate(service: Service, net: ClusterNetworking): ValidationResult<Service> {
  const result = validateServiceCreateInApiTypes(service, { ipFamilies: net.families, featureGates: { preferSameTrafficDistribution: net.preferSameTrafficDistribution === true } });
  return result.ok ? result : fieldErrors(result.error.causes);
}

/**
 * A Service update as the apiserver prepares it: v1 defaulting, the stored values the client
 * left out put back, the update half of initIPFamilyFields, then the update validation
 * (immutable fields included). Wraps: api-types' validateServiceUpdate.
 */
export function validateServiceUpdate(service: Service, old: Service, net: ClusterNetworking): ValidationResult<Service> {
  const result = validateServiceUpdateInApiTypes(service, old, { ipFamilies: net.families, featureGates: { preferSameTrafficDistribution: net.preferSameTrafficDistribution === true } });
  return result.ok ? result : fieldErrors(result.error.causes);
}

/** v1 defaulting and the kind's create validation, for the kinds other than Service. Wraps: defaultObject, validateObject. */
export function validateObjectCreate<T extends KubeObject>(object: T): ValidationResult<T> {
  const defaulted = defaultObject(object);
  const errors = validateObject(defaulted);
  return errors.length > 0 ? fieldErrors(errors) : ok(defaulted);
}

/** v1 defaulting and the kind's update validation (immutable fields included). Wraps: defaultObject, validateObject. */
export function validateObjectUpdate<T extends KubeObject>(object: T, old: T): ValidationResult<T> {
  const defaulted = defaultObject(object);
  const errors = validateObject(defaulted, old);
  return errors.length > 0 ? fieldErrors(errors) : ok(defaulted);
}

/**
 * A status update (the /status subresource) of a Service, a Pod or a ServiceCIDR: the metadata
 * update rules, and for a Service its load balancer status, after v1 defaulting. Wraps:
 * defaultObject, validateServiceStatusUpdate, validateServiceCIDRStatusUpdate, validateObjectMetaUpdate.
 * upstream: pkg/registry/core/service/strategy.go (serviceStatusStrategy.ValidateUpdate),
 *           pkg/registry/core/pod/strategy.go (podStatusStrategy.ValidateUpdate),
 *           pkg/registry/networking/servicecidr/strategy.go (serviceCIDRStatusStrategy.ValidateUpdate)
 */
export function validateStatusUpdate<T extends KubeObject>(object: T, old: T): ValidationResult<T> {
  // The body is defaulted as it is decoded (a load balancer ingress IP gets ipMode VIP).
  const defaulted = defaultObject(object);
  const metaErrors = (): FieldError[] =>
    validateObjectMetaUpdate((defaulted as { metadata?: ObjectMetaInput }).metadata ?? {}, (old as { metadata?: ObjectMetaInput }).metadata ?? {}, fieldPath('metadata'));
  const errors =
    defaulted.kind === 'Service' && old.kind === 'Service'
      ? validateServiceStatusUpdate(defaulted, old)
      : defaulted.kind === 'ServiceCIDR' && old.kind === 'ServiceCIDR'
        ? validateServiceCIDRStatusUpdate(defaulted, old)
        : defaulted.kind === 'Deployment' && old.kind === 'Deployment'
          ? [...metaErrors(), ...validateDeploymentStatusUpdate(defaulted, old)]
          : defaulted.kind === 'ReplicaSet' && old.kind === 'ReplicaSet'
            ? [...metaErrors(), ...validateReplicaSetStatusUpdate(defaulted)]
            : metaErrors();
  return errors.length > 0 ? fieldErrors(errors) : ok(defaulted);
}

/** The 422 Status body for field errors (errors.NewInvalid). Wraps: invalidError. */
export function renderInvalid(kind: GroupKindInput, name: string, errors: readonly FieldError[]): ApiStatus {
  return invalidError(kind, name, errors).status;
}

// --- Service facts ---------------------------------------------------------------------------

/** Whether the Service holds cluster IPs (clusterIP set and not None). Wraps: isServiceIPSet. */
export function serviceHoldsClusterIPs(service: Service): boolean {
  return service.spec?.type !== 'ExternalName' && isServiceIPSet(service.spec);
}

/** Whether the Service needs a health check node port. Wraps: needsHealthCheck. */
export function serviceNeedsHealthCheck(service: Service): boolean {
  return needsHealthCheck(service.spec);
}

/** The node ports a Service holds, as the repair loop counts them. Wraps: collectServiceNodePorts. */
export function serviceNodePorts(service: Service): number[] {
  return collectServiceNodePorts(service);
}

/** The family of an IP in text (read as ParseIPSloppy does), or undefined. Wraps: parseIPSloppy. */
export function ipFamilyOf(text: string): IPFamily | undefined {
  const parsed = parseIPSloppy(text);
  return parsed.ok ? familyName(parsed.value.family) : undefined;
}

// --- ClusterIP allocator ---------------------------------------------------------------------

export type { IPAllocator, PortAllocator };

/**
 * The allocator for `cidr` as stored: empty when nothing is stored yet.
 * Wraps: ipAllocatorFromSnapshot, newIPAllocator.
 */
export function ipAllocatorOf(cidr: CIDR, stored: RangeAllocation | undefined): AdapterResult<IPAllocator> {
  if (stored === undefined || stored.range === '') return ok(newIPAllocator(cidr));
  return ipAllocatorFromSnapshot(stored);
}

/** Takes the IP given in text. Wraps: parseIPSloppy, allocateIP. */
export function allocateClusterIP(allocator: IPAllocator, ip: string): AdapterResult<IPAllocator> {
  const parsed = parseIPSloppy(ip);
  if (!parsed.ok) return err({ _tag: 'ErrNotInRange', message: parsed.error.message });
  return allocateIP(allocator, parsed.value);
}

/** Takes a free IP; the advanced generator is on the value, or on the error when the range is full. Wraps: allocateNextIP, formatIP. */
export function allocateNextClusterIP(
  allocator: IPAllocator,
  rng: Rng,
): Result<{ readonly ip: string; readonly allocator: IPAllocator; readonly rng: Rng }, WithRng<AdapterError>> {
  const r = allocateNextIP(allocator, rng);
  if (!r.ok) return r;
  return ok({ ip: formatIP(r.value.ip), allocator: r.value.allocator, rng: r.value.rng });
}

/** Frees the IP given in text (silently, if not held). Wraps: parseIPSloppy, releaseIP. */
export function releaseClusterIP(allocator: IPAllocator, ip: string): IPAllocator {
  const parsed = parseIPSloppy(ip);
  return parsed.ok ? releaseIP(allocator, parsed.value) : allocator;
}

// --- The IPAddress allocator (MultiCIDRServiceAllocator) -----------------------------------

export type { IPAddressView, MetaAllocator };

/**
 * One MetaAllocator per family of the cluster over the ServiceCIDRs as read; a family with no
 * ServiceCIDR gets one with no allocator (every automatic allocation is ErrFull, every given IP
 * ErrMismatchedNetwork, as upstream's empty MetaAllocator answers). Wraps: newMetaAllocator.
 */
export function ipAddressAllocators(families: readonly IPFamily[], serviceCIDRs: readonly ServiceCIDR[]): AdapterResult<ReadonlyMap<IPFamily, MetaAllocator>> {
  const metas = new Map<IPFamily, MetaAllocator>();
  for (const family of families) {
    const meta = newMetaAllocator(family, serviceCIDRs);
    if (!meta.ok) return meta;
    metas.set(family, meta.value);
  }
  return ok(metas);
}

/** A given IP's allocation: the IPAddress to create and the mirrored bitmap. */
export interface IPAddressTaken {
  readonly ipAddress: IPAddress;
  /** The bitmap after the dual write (undefined when dual write is off). */
  readonly bitmap: IPAllocator | undefined;
}

/**
 * Takes the IP given in text (upstream MetaAllocator.AllocateService): a ready ServiceCIDR must
 * hold it, the dual-written bitmap must take it, and no IPAddress of that name may exist (the
 * create's AlreadyExists is ErrAllocated). Wraps: parseIPSloppy, allocateServiceIP, ipAddressName.
 */
export function allocateClusterIPAddress(
  meta: MetaAllocator,
  view: IPAddressView,
  ip: string,
  parent: { readonly namespace: string; readonly name: string },
  bitmap: IPAllocator | undefined,
): AdapterResult<IPAddressTaken> {
  const parsed = parseIPSloppy(ip);
  if (!parsed.ok) return err({ _tag: 'ErrNotInRange', message: parsed.error.message });
  const r = allocateServiceIP(meta, parsed.value, parent, bitmap);
  if (!r.ok) return r;
  if (view.has(ipAddressName(parsed.value))) return err(errAllocated);
  return ok({ ipAddress: r.value.ipAddress, bitmap: r.value.bitmap });
}

/** An automatic allocation: the IP, its IPAddress, the bitmap after the dual write, and IPAddresses left behind. */
export interface IPAddressNext extends IPAddressTaken {
  readonly ip: string;
  /**
   * IPAddresses created for candidates the dual-written bitmap refused: upstream goes on to
   * the next ServiceCIDR and does not delete them (cidrallocator.go AllocateNextService).
   */
  readonly leftBehind: readonly IPAddress[];
  readonly rng: Rng;
}

/**
 * A free IP across the ready ServiceCIDRs of the family (upstream MetaAllocator.AllocateNextService),
 * with the dual write into the bitmap when it is on. Wraps: allocateNextServiceIP,
 * dualWriteAllocate, nextServiceIPInNextServiceCIDR, formatIP.
 */
export function allocateNextClusterIPAddress(
  meta: MetaAllocator,
  view: IPAddressView,
  rng: Rng,
  parent: { readonly namespace: string; readonly name: string },
  bitmap: IPAllocator | undefined,
): Result<IPAddressNext, WithRng<AdapterError>> {
  const leftBehind: IPAddress[] = [];
  const taken = new Set<string>();
  // An IP whose bit the dual-written bitmap holds is taken too: every apiserver that writes an
  // IPAddress also writes the bit, in the same transaction here, so a bit without an IPAddress
  // in the view is one the view has not caught up with, or one an apiserver still on the bitmap
  // holds (upstream would create its IPAddress, see the bitmap refuse and leave the IPAddress
  // behind; docs/deviations.md).
  const inBitmap = (name: string): boolean => {
    if (bitmap === undefined) return false;
    const parsed = parseIPSloppy(name);
    return parsed.ok && hasIP(bitmap, parsed.value);
  };
  const seen: IPAddressView = { has: (name) => taken.has(name) || view.has(name) || inBitmap(name) };
  let r = allocateNextServiceIP(meta, seen, rng, parent);
  // Bounded: each refusal moves on to an allocator not tried yet.
  for (;;) {
    if (!r.ok) return r;
    const candidate = r.value;
    const mirrored = dualWriteAllocate(bitmap, candidate.ip);
    if (mirrored.ok) {
      return ok({ ip: formatIP(candidate.ip), ipAddress: candidate.ipAddress, bitmap: mirrored.value, leftBehind, rng: candidate.scan.scan.rng });
    }
    leftBehind.push(candidate.ipAddress);
    taken.add(ipAddressName(candidate.ip));
    r = nextServiceIPInNextServiceCIDR(meta, seen, candidate.scan, parent);
  }
}

/**
 * What a release deletes (upstream MetaAllocator.Release): the IPAddress named by the IP, when
 * a ServiceCIDR (ready or not) holds it, and the bitmap with the IP freed (dual write).
 * Undefined when no ServiceCIDR holds it: upstream's ErrMismatchedNetwork, logged, nothing
 * deleted. Wraps: parseIPSloppy, releaseServiceIP.
 */
export function releaseClusterIPAddress(
  meta: MetaAllocator,
  ip: string,
  bitmap: IPAllocator | undefined,
): { readonly delete: string; readonly bitmap: IPAllocator | undefined } | undefined {
  const parsed = parseIPSloppy(ip);
  if (!parsed.ok) return undefined;
  const r = releaseServiceIP(meta, parsed.value, bitmap);
  return r.ok ? { delete: r.value.delete, bitmap: r.value.bitmap } : undefined;
}

/** Wraps: parseIPSloppy, hasIP. */
export function holdsClusterIP(allocator: IPAllocator, ip: string): boolean {
  const parsed = parseIPSloppy(ip);
  return parsed.ok && hasIP(allocator, parsed.value);
}

/** The RangeAllocation to store. Wraps: snapshotIPAllocator. */
export function ipAllocatorSnapshot(allocator: IPAllocator): RangeAllocation {
  return snapshotIPAllocator(allocator);
}

// --- NodePort allocator ----------------------------------------------------------------------

/** Wraps: portAllocatorFromSnapshot, newPortAllocator. */
export function portAllocatorOf(range: PortRange, stored: RangeAllocation | undefined): AdapterResult<PortAllocator> {
  if (stored === undefined || stored.range === '') return ok(newPortAllocator(range));
  return portAllocatorFromSnapshot(stored);
}

/** Wraps: allocatePort. */
export function allocateNodePort(allocator: PortAllocator, port: number): AdapterResult<PortAllocator> {
  return allocatePort(allocator, port);
}

/** Takes a free port; the advanced generator is on the value, or on the error when the range is full. Wraps: allocateNextPort. */
export function allocateNextNodePort(
  allocator: PortAllocator,
  rng: Rng,
): Result<{ readonly port: number; readonly allocator: PortAllocator; readonly rng: Rng }, WithRng<AdapterError>> {
  return allocateNextPort(allocator, rng);
}

/** Wraps: releasePort. */
export function releaseNodePort(allocator: PortAllocator, port: number): PortAllocator {
  return releasePort(allocator, port);
}

/** Wraps: hasPort. */
export function holdsNodePort(allocator: PortAllocator, port: number): boolean {
  return hasPort(allocator, port);
}

/** Wraps: snapshotPortAllocator. */
export function portAllocatorSnapshot(allocator: PortAllocator): RangeAllocation {
  return snapshotPortAllocator(allocator);
}

// --- Snapshot bytes, kept up to date by the bit --------------------------------------------
// Encoding a /16's snapshot from the persistent bitmap costs far more than the allocation. The
// registry keeps each range's bytes (upstream's encoding: the bit set as a big-endian integer,
// offset 0 the lowest bit of the last byte) at full length, flips the bits an operation
// changed, and drops the leading zero bytes when it writes. Only the offsets come from here.

/** The full-length snapshot bytes of an allocator. Wraps: ipAllocatorSnapshotData, portAllocatorSnapshotData. */
export function fullSnapshotBytes(allocator: IPAllocator | PortAllocator): { readonly range: string; readonly bytes: Uint8Array } {
  const data = 'family' in allocator ? ipAllocatorSnapshotData(allocator) : portAllocatorSnapshotData(allocator);
  const size = Math.ceil(allocator.range.max / 8);
  const bytes = new Uint8Array(size);
  bytes.set(data.data, size - data.data.length);
  return { range: data.range, bytes };
}

/** The bit offset of an IP (text) in the allocator's range, or -1. Wraps: parseIPSloppy, ipOffset. */
export function clusterIPOffset(allocator: IPAllocator, ip: string): number {
  const parsed = parseIPSloppy(ip);
  return parsed.ok ? ipOffset(allocator.range, parsed.value) : -1;
}

/** The bit offset of a node port, or -1. */
export function nodePortOffset(allocator: PortAllocator, port: number): number {
  const offset = port - allocator.range.base;
  return offset >= 0 && offset < allocator.range.max ? offset : -1;
}

// --- Repair ----------------------------------------------------------------------------------

export type { ClusterIPLeaks, LeakCounters };

export interface RepairOutcome {
  /** The rebuilt snapshot per CIDR (primary first), absent when the run failed. */
  readonly ipSnapshots?: readonly RangeAllocation[];
  readonly portSnapshot?: RangeAllocation;
  readonly ipLeaks: ClusterIPLeaks;
  readonly portLeaks: LeakCounters;
  readonly events: readonly { readonly reason: string; readonly message: string }[];
  readonly error?: AdapterError;
}

/** One run of both repair loops over the stored snapshots and Services. Wraps: repairClusterIPs, repairNodePorts. */
export function repairAllocations(input: {
  readonly net: ClusterNetworking;
  readonly ipSnapshots: readonly (RangeAllocation | undefined)[];
  readonly portSnapshot: RangeAllocation | undefined;
  readonly services: readonly Service[];
  readonly ipLeaks: ClusterIPLeaks;
  readonly portLeaks: LeakCounters;
}): RepairOutcome {
  const ips = repairClusterIPs({ networks: input.net.serviceCIDRs, snapshots: input.ipSnapshots, services: input.services, leaks: input.ipLeaks });
  const ports = repairNodePorts({ portRange: input.net.portRange, snapshot: input.portSnapshot, services: input.services, leaks: input.portLeaks });
  const error = ips.ok ? (ports.ok ? undefined : ports.error) : ips.error;
  const ipEvents = ips.ok ? ips.value.events : [];
  const portEvents = ports.ok ? ports.value.events : [];
  return {
    ...(ips.ok ? { ipSnapshots: ips.value.snapshots } : {}),
    ...(ports.ok ? { portSnapshot: ports.value.snapshot } : {}),
    ipLeaks: ips.ok ? ips.value.leaks : ips.error.leaks,
    portLeaks: ports.ok ? ports.value.leaks : ports.error.leaks,
    events: [...ipEvents, ...portEvents].map((e) => ({ reason: e.reason, message: e.message })),
    ...(error === undefined ? {} : { error }),
  };
}

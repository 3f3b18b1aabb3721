// The ClusterIP allocator of one IP family over every ServiceCIDR (upstream MetaAllocator), as
// pure decisions over the ServiceCIDRs its informer sees and the IPAddress view.
//
// Upstream keeps one IPAddress allocator per CIDR text of the family's ServiceCIDRs (several
// ServiceCIDRs may name one CIDR, and CIDRs may overlap). An allocator is ready when at least
// one ServiceCIDR naming its CIDR is Ready (or has no Ready condition yet) and is not being
// deleted. A given IP goes to any ready allocator whose range holds it (all of them read the
// same IPAddresses, so which one does not matter); automatic allocation tries the ready
// allocators one after another, in Go map order, until one finds a free IP.
//
// Dual write (DisableAllocatorDualWrite off, the v1.33 default): the registry also hands the
// MetaAllocator the old bitmap allocator of --service-cluster-ip-range for the family, and
// every operation on an IP inside that bitmap's CIDR is mirrored on it, so that an apiserver
// still allocating from the bitmap never hands out an IP this one gave an IPAddress:
//   - a given IP (AllocateService): the bitmap takes it first; its error (ErrAllocated,
//     ErrNotInRange for the network or broadcast address) is returned and no IPAddress is
//     created. If the IPAddress create then fails, the bitmap keeps the IP (the repair loop
//     frees it later): upstream does not undo the first write.
//   - automatic allocation (AllocateNextService): the IPAddress is created first; then the
//     bitmap takes the IP. If the bitmap refuses it, upstream goes on to the next ServiceCIDR
//     allocator and leaves the IPAddress it created in place (nextServiceIPInNextServiceCIDR).
//   - release: the bitmap releases the IP (errors ignored), then the IPAddress is deleted.
// dualWriteAllocate and dualWriteRelease are those bitmap decisions; the caller persists the
// bitmap as it persists the RangeAllocation today.
//
// upstream (v1.33): pkg/registry/core/service/ipallocator/cidrallocator.go (syncAllocators,
//           deleteServiceCIDR, getAllocator, AllocateService, AllocateNextService, Release,
//           Has, Used, Free, DryRun, isReady, isNotContained), pkg/api/servicecidr
//           (PrefixContainsIP), pkg/features/kube_features.go (DisableAllocatorDualWrite)
// The stored upstream cidrallocator.go is newer than v1.33 (dual write removed once the gate
// locked; AllocateNextService stops on errors other than ErrFull and ErrNotReady); the dual
// write here follows the stored v1alpha1-era text, which v1.33 kept with v1 types.
import {
  cidrContains,
  describeValue,
  err,
  errFull,
  familyName,
  isRecord,
  nextInt,
  ok,
  parseCIDRSloppy,
  SERVICE_CIDR_CONDITION_READY,
  type CIDR,
  type ErrFull,
  type IP,
  type IPAddress,
  type IPFamily,
  type Result,
  type Rng,
  type ServiceCIDR,
  type WithRng,
  prefixContainsIP,
} from '@kubesvc/api-types';
import { errMismatchedNetwork, type ErrAllocated, type ErrMismatchedNetwork, type ErrNotInRange, type ErrServiceCIDRList } from './errors.js';
import { allocateIP, releaseIP, type IPAllocator } from './ip-allocator.js';
import {
  allocateIPAddress,
  ipAddressName,
  managedIPAddressNames,
  newIPAddressAllocator,
  nextIPAddressCandidate,
  startIPAddressScan,
  type IPAddressAllocator,
  type IPAddressScan,
  type IPAddressToCreate,
  type IPAddressView,
  type ServiceRef,
} from './ipaddress-allocator.js';

/**
 * The v1.33 default of the DisableAllocatorDualWrite gate (pkg/features/kube_features.go:
 * Alpha false from 1.31, Beta false from 1.33, GA true from 1.34, locked from 1.35). False
 * means the MetaAllocator dual-writes to the bitmap allocator.
 */
export const DISABLE_ALLOCATOR_DUAL_WRITE_DEFAULT = false;

/** One CIDR's allocator and the ServiceCIDRs naming that CIDR (upstream item). */
export interface ServiceCIDRAllocator {
  /** The CIDR as the ServiceCIDRs write it: upstream's map key. */
  readonly cidr: string;
  readonly allocator: IPAddressAllocator;
  /** The names of the ServiceCIDRs that name this CIDR, in list order. */
  readonly serviceCIDRs: readonly string[];
  /** Whether automatic and given allocations may use it. Release does not ask. */
  readonly ready: boolean;
}

/** A CIDR of the family that gets no allocator, and why (upstream logs it and goes on). */
export interface UnusableServiceCIDR {
  readonly serviceCIDR: string;
  readonly cidr: string;
  readonly message: string;
}

/** upstream MetaAllocator for one family: its allocators, in the order the ServiceCIDRs list them. */
export interface MetaAllocator {
  readonly family: IPFamily;
  readonly allocators: readonly ServiceCIDRAllocator[];
  readonly unusable: readonly UnusableServiceCIDR[];
}

/**
 * upstream isReady: the status of the first Ready condition is True; with no Ready condition
 * the ServiceCIDR counts as ready ("in order to handle scenarios where kcm is not running").
 */
export function isServiceCIDRReady(serviceCIDR: ServiceCIDR): boolean {
  const conditions: unknown = serviceCIDR.status?.conditions;
  if (!Array.isArray(conditions)) return true;
  for (const condition of conditions as unknown[]) {
    if (isRecord(condition) && condition['type'] === SERVICE_CIDR_CONDITION_READY) return condition['status'] === 'True';
  }
  return true;
}

/** Whether the ServiceCIDR lets its allocators allocate: ready and not being deleted. */
function allocatable(serviceCIDR: ServiceCIDR): boolean {
  const deletion: unknown = serviceCIDR.metadata.deletionTimestamp;
  return isServiceCIDRReady(serviceCIDR) && (deletion === undefined || deletion === null || deletion === '');
}

function listError(message: string): Result<never, ErrServiceCIDRList> {
  return err({ _tag: 'ErrServiceCIDRList', message });
}

interface Building {
  readonly cidr: string;
  readonly allocator: IPAddressAllocator;
  readonly serviceCIDRs: string[];
  ready: boolean;
}

/**
 * The family's allocators for the ServiceCIDRs the informer holds (upstream syncAllocators on
 * an empty map, and deleteServiceCIDR for the ones gone). A CIDR of the other family is not
 * this allocator's; one that does not parse, or an IPv6 one wider than /64, is listed in
 * `unusable`. An allocator is ready when any ServiceCIDR naming its CIDR is ready and not
 * being deleted.
 *
 * Upstream updates its map one ServiceCIDR at a time, and keeps an allocator shared by
 * several ServiceCIDRs in the state it had when one of them stops being ready; from the same
 * list it builds the same allocators as this (docs/deviations.md).
 */
export function newMetaAllocator(family: IPFamily, serviceCIDRs: readonly ServiceCIDR[]): Result<MetaAllocator, ErrServiceCIDRList> {
  if (family !== 'IPv4' && family !== 'IPv6') return listError(`newMetaAllocator: family must be IPv4 or IPv6, got ${describeValue(family)}`);
  const given: unknown = serviceCIDRs;
  if (!Array.isArray(given)) return listError(`newMetaAllocator: expected a list of ServiceCIDRs, got ${describeValue(given)}`);
  const byCIDR = new Map<string, Building>();
  const unusable: UnusableServiceCIDR[] = [];
  for (const [i, item] of (given as unknown[]).entries()) {
    if (!isRecord(item) || !isRecord(item['metadata'])) return listError(`newMetaAllocator: serviceCIDRs[${i}] is not an object with metadata, got ${describeValue(item)}`);
    const serviceCIDR = item as ServiceCIDR;
    const name = typeof serviceCIDR.metadata.name === 'string' ? serviceCIDR.metadata.name : '';
    const cidrs: unknown = isRecord(serviceCIDR.spec) ? serviceCIDR.spec['cidrs'] : undefined;
    if (!Array.isArray(cidrs)) continue;
    const ready = allocatable(serviceCIDR);
    for (const text of cidrs as unknown[]) {
      if (typeof text !== 'string') continue;
      const parsed = parseCIDRSloppy(text);
      if (!parsed.ok) {
        unusable.push({ serviceCIDR: name, cidr: text, message: parsed.error.message });
        continue;
      }
      const cidr: CIDR = parsed.value.cidr;
      if (familyName(cidr.network.family) !== family) continue;
      const existing = byCIDR.get(text);
      if (existing !== undefined) {
        if (!existing.serviceCIDRs.includes(name)) existing.serviceCIDRs.push(name);
        existing.ready ||= ready;
        continue;
      }
      const allocator = newIPAddressAllocator(cidr);
      if (!allocator.ok) {
        unusable.push({ serviceCIDR: name, cidr: text, message: allocator.error.message });
        continue;
      }
      byCIDR.set(text, { cidr: text, allocator: allocator.value, serviceCIDRs: [name], ready });
    }
  }
  const allocators = [...byCIDR.values()].map(
    (b): ServiceCIDRAllocator => ({ cidr: b.cidr, allocator: b.allocator, serviceCIDRs: b.serviceCIDRs, ready: b.ready }),
  );
  return ok({ family, allocators, unusable });
}

/**
 * upstream getAllocator: the first allocator whose range holds `ip` (prefixContainsIP), and
 * with `ready` only a ready one; ErrMismatchedNetwork when there is none.
 */
export function serviceCIDRAllocatorFor(meta: MetaAllocator, ip: IP, ready: boolean): Result<ServiceCIDRAllocator, ErrMismatchedNetwork> {
  for (const entry of meta.allocators) {
    if (prefixContainsIP(entry.allocator.cidr, ip) && (!ready || entry.ready)) return ok(entry);
  }
  return err(errMismatchedNetwork);
}

/**
 * The bitmap half of a dual-written allocation: when the bitmap's CIDR holds `ip` (Go's
 * IPNet.Contains, network and broadcast address included), the bitmap with the IP taken, or
 * its error; otherwise the bitmap as it was. Undefined (dual write off) stays undefined.
 */
export function dualWriteAllocate(
  bitmap: IPAllocator | undefined,
  ip: IP,
): Result<IPAllocator | undefined, ErrAllocated | ErrNotInRange> {
  if (bitmap === undefined || !cidrContains(bitmap.range.cidr, ip)) return ok(bitmap);
  return allocateIP(bitmap, ip);
}

/** The bitmap half of a dual-written release: the IP freed when the bitmap's CIDR holds it. */
export function dualWriteRelease(bitmap: IPAllocator | undefined, ip: IP): IPAllocator | undefined {
  if (bitmap === undefined || !cidrContains(bitmap.range.cidr, ip)) return bitmap;
  return releaseIP(bitmap, ip);
}

/** A given IP's allocation: the IPAddress to create, the allocator's CIDR and the mirrored bitmap. */
export interface ServiceIPAllocation extends IPAddressToCreate {
  readonly cidr: string;
  /** The bitmap with the IP taken when dual write is on and its CIDR holds the IP. */
  readonly bitmap: IPAllocator | undefined;
}

/**
 * upstream MetaAllocator.AllocateService: ErrMismatchedNetwork when no ready allocator's range
 * holds the IP; with dual write (`bitmap`), the bitmap's refusal; otherwise the IPAddress to
 * create. Persist the bitmap first, then create the IPAddress; AlreadyExists is ErrAllocated.
 */
export function allocateServiceIP(
  meta: MetaAllocator,
  ip: IP,
  parent: ServiceRef,
  bitmap?: IPAllocator,
): Result<ServiceIPAllocation, ErrMismatchedNetwork | ErrAllocated | ErrNotInRange> {
  const entry = serviceCIDRAllocatorFor(meta, ip, true);
  if (!entry.ok) return entry;
  const mirrored = dualWriteAllocate(bitmap, ip);
  if (!mirrored.ok) return mirrored;
  const created = allocateIPAddress(entry.value.allocator, ip, parent);
  if (!created.ok) return created;
  return ok({ ...created.value, cidr: entry.value.cidr, bitmap: mirrored.value });
}

/**
 * Where automatic allocation across the ServiceCIDRs is: the allocator being scanned, its
 * scan, and the ready allocators not tried yet.
 */
export interface ServiceCIDRScan {
  readonly cidr: string;
  readonly scan: IPAddressScan;
  readonly untried: readonly string[];
}

/** An IP to try, its IPAddress, the allocator's CIDR, and the scan to continue with. */
export interface ServiceIPCandidate extends IPAddressToCreate {
  readonly cidr: string;
  readonly scan: ServiceCIDRScan;
}

export type ServiceIPNextResult = Result<ServiceIPCandidate, WithRng<ErrFull>>;

function entryFor(meta: MetaAllocator, cidr: string): ServiceCIDRAllocator | undefined {
  return meta.allocators.find((entry) => entry.cidr === cidr);
}

/**
 * Tries the untried allocators one at a time until one has a candidate. Upstream walks a Go
 * map, whose order is random; here the next allocator is drawn from the generator (no draw
 * when one is left, so a single ServiceCIDR draws exactly as its allocator alone).
 */
function tryNextAllocator(
  meta: MetaAllocator,
  view: IPAddressView,
  untried: readonly string[],
  rng: Rng,
  parent: ServiceRef,
): ServiceIPNextResult {
  let rest = untried;
  let next = rng;
  while (rest.length > 0) {
    let index = 0;
    if (rest.length > 1) [index, next] = nextInt(next, rest.length);
    const cidr = rest[index] ?? '';
    rest = [...rest.slice(0, index), ...rest.slice(index + 1)];
    const entry = entryFor(meta, cidr);
    if (entry?.ready !== true) continue;
    const scan = startIPAddressScan(entry.allocator, next);
    if (!scan.ok) {
      next = scan.error.rng;
      continue;
    }
    const candidate = nextIPAddressCandidate(entry.allocator, view, scan.value, parent);
    if (!candidate.ok) {
      next = candidate.error.rng;
      continue;
    }
    const { ip, ipAddress } = candidate.value;
    return ok({ ip, ipAddress, cidr, scan: { cidr, scan: candidate.value.scan, untried: rest } });
  }
  return err({ ...errFull, rng: next });
}

/**
 * upstream MetaAllocator.AllocateNextService: a candidate from the first ready allocator of the
 * family that has a free IP in the view; ErrFull when none has. Create the IPAddress; when the
 * create loses, call nextServiceIPAfterCreateFailed; with dual write, then apply
 * dualWriteAllocate, and when the bitmap refuses, call nextServiceIPInNextServiceCIDR.
 */
export function allocateNextServiceIP(meta: MetaAllocator, view: IPAddressView, rng: Rng, parent: ServiceRef): ServiceIPNextResult {
  const ready = meta.allocators.filter((entry) => entry.ready).map((entry) => entry.cidr);
  return tryNextAllocator(meta, view, ready, rng, parent);
}

/**
 * The create of the candidate lost: the same allocator's scan goes on (upstream's `continue`
 * in allocateFromRange), and the next allocators when it is walked.
 */
export function nextServiceIPAfterCreateFailed(
  meta: MetaAllocator,
  view: IPAddressView,
  scan: ServiceCIDRScan,
  parent: ServiceRef,
): ServiceIPNextResult {
  const entry = entryFor(meta, scan.cidr);
  if (entry === undefined) return tryNextAllocator(meta, view, scan.untried, scan.scan.rng, parent);
  const candidate = nextIPAddressCandidate(entry.allocator, view, scan.scan, parent);
  if (!candidate.ok) return tryNextAllocator(meta, view, scan.untried, candidate.error.rng, parent);
  const { ip, ipAddress } = candidate.value;
  return ok({ ip, ipAddress, cidr: scan.cidr, scan: { cidr: scan.cidr, scan: candidate.value.scan, untried: scan.untried } });
}

/**
 * The dual-written bitmap refused the created candidate: upstream goes on with the next
 * allocator (`continue` in AllocateNextService), and leaves the IPAddress it created.
 */
export function nextServiceIPInNextServiceCIDR(
  meta: MetaAllocator,
  view: IPAddressView,
  scan: ServiceCIDRScan,
  parent: ServiceRef,
): ServiceIPNextResult {
  return tryNextAllocator(meta, view, scan.untried, scan.scan.rng, parent);
}

/** What a release deletes, the allocator it went through, and the mirrored bitmap. */
export interface ServiceIPRelease {
  /** The name of the IPAddress to delete; upstream ignores the answer. */
  readonly delete: string;
  readonly cidr: string;
  readonly bitmap: IPAllocator | undefined;
}

/**
 * upstream MetaAllocator.Release: ErrMismatchedNetwork when no allocator's range holds the IP,
 * ready or not; otherwise the bitmap release (dual write) and the IPAddress to delete.
 */
export function releaseServiceIP(meta: MetaAllocator, ip: IP, bitmap?: IPAllocator): Result<ServiceIPRelease, ErrMismatchedNetwork> {
  const entry = serviceCIDRAllocatorFor(meta, ip, false);
  if (!entry.ok) return entry;
  return ok({ delete: ipAddressName(ip), cidr: entry.value.cidr, bitmap: dualWriteRelease(bitmap, ip) });
}

/** upstream MetaAllocator.Has: a ready allocator holds the IP's range and the view its IPAddress. */
export function hasServiceIP(meta: MetaAllocator, view: IPAddressView, ip: IP): boolean {
  return serviceCIDRAllocatorFor(meta, ip, true).ok && view.has(ipAddressName(ip));
}

/** upstream MetaAllocator.Used: the family's managed IPAddresses, wherever their IP is. */
export function serviceIPsUsed(meta: MetaAllocator, ipAddresses: readonly IPAddress[]): number {
  return managedIPAddressNames(meta.family, ipAddresses).length;
}

/**
 * upstream isNotContained: no other CIDR of the list holds this one (equal CIDRs do not count),
 * so Free counts overlapping ranges once.
 */
export function isNotContained(cidr: CIDR, cidrs: readonly CIDR[]): boolean {
  return cidrs.every(
    (other) =>
      (other.prefix === cidr.prefix && other.network.value === cidr.network.value && other.network.family === cidr.network.family) ||
      !(cidr.prefix >= other.prefix && cidrContains(other, cidr.network)),
  );
}

/**
 * upstream MetaAllocator.Free: the sizes of the allocators whose CIDR no other one holds,
 * ready or not, minus Used, as a bigint (upstream adds Go ints, so a /64 counts as -1).
 */
export function serviceIPsFree(meta: MetaAllocator, ipAddresses: readonly IPAddress[]): bigint {
  const cidrs = meta.allocators.map((entry) => entry.allocator.cidr);
  let size = 0n;
  for (const entry of meta.allocators) {
    if (isNotContained(entry.allocator.cidr, cidrs)) size += entry.allocator.size;
  }
  return size - BigInt(serviceIPsUsed(meta, ipAddresses));
}

/**
 * upstream MetaAllocator.DryRun: one allocator's dry run (upstream takes whichever its map
 * yields first; here the first), so a dry-run allocation checks that one range only. With no
 * allocator, undefined: upstream's empty Allocator answers ErrNotReady (`errNotReady`).
 */
export function dryRunAllocatorOf(meta: MetaAllocator): IPAddressAllocator | undefined {
  return meta.allocators[0]?.allocator;
}

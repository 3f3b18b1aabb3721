// A cluster's ClusterIP allocators: one per configured IP family, the primary first.
// upstream: pkg/registry/core/service/storage/alloc.go (serviceIPAllocatorsByFamily) and the
//           repair loop's choice of allocator by the IP's family
import {
  familyName,
  type AllocatorError,
  type CIDR,
  type IP,
  type IPFamily,
  type Rng,
} from '@kubesvc/api-types';
import {
  allocateIP,
  allocateNextIP,
  hasIP,
  newIPAllocator,
  releaseIP,
  type AllocateIPResult,
  type AllocateNextIPResult,
  type IPAllocator,
} from './ip-allocator.js';

/** One allocator for single-stack, two of different families for dual-stack. */
export type IPAllocators = readonly [IPAllocator] | readonly [IPAllocator, IPAllocator];

/** A family the cluster has no range for (the registry's message for such a request). */
export interface ErrFamilyNotConfigured extends AllocatorError<'ErrFamilyNotConfigured'> {
  readonly family: IPFamily;
}

function familyOf(allocator: IPAllocator): IPFamily {
  return familyName(allocator.range.cidr.network.family);
}

/** kube-apiserver's flag errors for --service-cluster-ip-range (validateClusterIPFlags). */
export const ERR_TOO_MANY_SERVICE_CIDRS = '--service-cluster-ip-range must not contain more than two entries';
export const ERR_SERVICE_CIDRS_SAME_FAMILY =
  '--service-cluster-ip-range[0] and --service-cluster-ip-range[1] must be of different IP family';

/**
 * Allocators for the cluster's service CIDRs, primary first. Two CIDRs must be of different
 * families, with upstream's flag error otherwise; more than two are refused.
 */
export function newIPAllocators(
  cidrs: readonly CIDR[],
): { readonly ok: true; readonly allocators: IPAllocators } | { readonly ok: false; readonly message: string } {
  const [first, second, ...rest] = cidrs;
  if (first === undefined) return { ok: false, message: '--service-cluster-ip-range must contain at least one valid cidr' };
  if (rest.length > 0) return { ok: false, message: ERR_TOO_MANY_SERVICE_CIDRS };
  if (second === undefined) return { ok: true, allocators: [newIPAllocator(first)] };
  if (second.network.family === first.network.family) {
    return { ok: false, message: ERR_SERVICE_CIDRS_SAME_FAMILY };
  }
  return { ok: true, allocators: [newIPAllocator(first), newIPAllocator(second)] };
}

/** The index of the allocator for `family`, or -1. */
export function allocatorIndexForFamily(allocators: IPAllocators, family: IPFamily): number {
  return allocators.findIndex((a) => familyOf(a) === family);
}

function replaceAt(allocators: IPAllocators, index: number, allocator: IPAllocator): IPAllocators {
  const [a, b] = allocators;
  if (index === 0) return b === undefined ? [allocator] : [allocator, b];
  return [a, allocator];
}

function indexForIP(allocators: IPAllocators, ip: IP): number {
  // An IP of a family the cluster does not have goes to the primary, which refuses it as
  // not in range (upstream selectAllocForIP).
  return Math.max(0, allocatorIndexForFamily(allocators, familyName(ip.family)));
}

/** allocateIP on the allocator of the IP's family. */
export function allocateIPInFamily(
  allocators: IPAllocators,
  ip: IP,
): { readonly ok: true; readonly allocators: IPAllocators } | Extract<AllocateIPResult, { ok: false }> {
  const index = indexForIP(allocators, ip);
  const current = allocators[index] ?? allocators[0];
  const result = allocateIP(current, ip);
  if (!result.ok) return result;
  return { ok: true, allocators: replaceAt(allocators, index, result.allocator) };
}

/** allocateNextIP on the allocator of `family`. */
export function allocateNextIPInFamily(
  allocators: IPAllocators,
  family: IPFamily,
  rng: Rng,
):
  | { readonly ok: true; readonly ip: IP; readonly allocators: IPAllocators; readonly rng: Rng }
  | Extract<AllocateNextIPResult, { ok: false }>
  | { readonly ok: false; readonly error: ErrFamilyNotConfigured; readonly rng: Rng } {
  const index = allocatorIndexForFamily(allocators, family);
  const current = allocators[index];
  if (current === undefined) {
    return {
      ok: false,
      error: { _tag: 'ErrFamilyNotConfigured', family, message: `${family} is not configured on this cluster` },
      rng,
    };
  }
  const result = allocateNextIP(current, rng);
  if (!result.ok) return result;
  return { ok: true, ip: result.ip, allocators: replaceAt(allocators, index, result.allocator), rng: result.rng };
}

/** releaseIP on the allocator of the IP's family. */
export function releaseIPInFamily(allocators: IPAllocators, ip: IP): IPAllocators {
  const index = allocatorIndexForFamily(allocators, familyName(ip.family));
  const current = allocators[index];
  if (current === undefined) return allocators;
  const released = releaseIP(current, ip);
  return released === current ? allocators : replaceAt(allocators, index, released);
}

/** hasIP on the allocator of the IP's family. */
export function hasIPInFamily(allocators: IPAllocators, ip: IP): boolean {
  const current = allocators[allocatorIndexForFamily(allocators, familyName(ip.family))];
  return current !== undefined && hasIP(current, ip);
}

// A cluster's ClusterIP allocators: one per configured IP family, the primary first.
// upstream: pkg/registry/core/service/storage/alloc.go (serviceIPAllocatorsByFamily) and the
//           repair loop's choice of allocator by the IP's family
import { err, ERR_SERVICE_CIDRS_SAME_FAMILY, ERR_TOO_MANY_SERVICE_CIDRS, familyName, ok, type AllocatorError, type CIDR, type ErrFull, type IP, type IPFamily, type Result, type Rng, type WithRng, describeValue } from '@kubesvc/api-types';
import type { ErrAllocated, ErrNotInRange } from './errors.js';
import {
  allocateIP,
  allocateNextIP,
  hasIP,
  newIPAllocator,
  releaseIP,
  type IPAllocator,
} from './ip-allocator.js';
import { isCIDRValue } from './input-shape.js';
import type { ErrServiceIPRange } from './service-ip-range.js';

/** One allocator for single-stack, two of different families for dual-stack. */
export type IPAllocators = readonly [IPAllocator] | readonly [IPAllocator, IPAllocator];

/** A family the cluster has no range for (the registry's message for such a request). */
export interface ErrFamilyNotConfigured extends AllocatorError<'ErrFamilyNotConfigured'> {
  readonly family: IPFamily;
}

/** kube-apiserver's flag errors for --service-cluster-ip-range (validateClusterIPFlags), api-types' parser's. */
export { ERR_SERVICE_CIDRS_SAME_FAMILY, ERR_TOO_MANY_SERVICE_CIDRS } from '@kubesvc/api-types';

function flagError(message: string): Result<never, ErrServiceIPRange> {
  return err({ _tag: 'ErrServiceIPRange', message });
}

/**
 * Allocators for the cluster's service CIDRs, primary first. Two CIDRs must be of different
 * families, with upstream's flag error otherwise; more than two are refused. The error is
 * ErrServiceIPRange, as serviceIPRange's: both are errors of --service-cluster-ip-range.
 */
export function newIPAllocators(cidrs: readonly CIDR[]): Result<IPAllocators, ErrServiceIPRange> {
  // The edge: a JavaScript caller may pass strings (use serviceIPRange to parse a flag value).
  const given: unknown = cidrs;
  if (!Array.isArray(given)) return flagError(`newIPAllocators: expected an array of CIDRs (parseCIDR's value), got ${describeValue(given)}`);
  for (const [i, cidr] of (given as unknown[]).entries()) {
    if (!isCIDRValue(cidr)) return flagError(`newIPAllocators: cidrs[${i}] is not a CIDR value (parseCIDR's), got ${describeValue(cidr)}`);
  }
  const [first, second, ...rest] = cidrs;
  if (first === undefined) return flagError('--service-cluster-ip-range must contain at least one valid cidr');
  if (rest.length > 0) return flagError(ERR_TOO_MANY_SERVICE_CIDRS);
  if (second === undefined) return ok([newIPAllocator(first)]);
  if (second.network.family === first.network.family) return flagError(ERR_SERVICE_CIDRS_SAME_FAMILY);
  return ok([newIPAllocator(first), newIPAllocator(second)]);
}

/** The index of the allocator for `family`, or -1. */
export function allocatorIndexForFamily(allocators: IPAllocators, family: IPFamily): number {
  return allocators.findIndex((a) => a.family === family);
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
export function allocateIPInFamily(allocators: IPAllocators, ip: IP): Result<IPAllocators, ErrNotInRange | ErrAllocated> {
  const index = indexForIP(allocators, ip);
  const current = allocators[index] ?? allocators[0];
  const result = allocateIP(current, ip);
  if (!result.ok) return result;
  return ok(replaceAt(allocators, index, result.value));
}

/** allocateNextIP on the allocator of `family`. */
export function allocateNextIPInFamily(
  allocators: IPAllocators,
  family: IPFamily,
  rng: Rng,
): Result<{ readonly ip: IP; readonly allocators: IPAllocators; readonly rng: Rng }, WithRng<ErrFull | ErrFamilyNotConfigured>> {
  const index = allocatorIndexForFamily(allocators, family);
  const current = allocators[index];
  if (current === undefined) {
    return err({ _tag: 'ErrFamilyNotConfigured', family, message: `${family} is not configured on this cluster`, rng });
  }
  const result = allocateNextIP(current, rng);
  if (!result.ok) return result;
  const { ip, allocator, rng: advanced } = result.value;
  return ok({ ip, allocators: replaceAt(allocators, index, allocator), rng: advanced });
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

// The effects the pure IPAddress allocators leave to their caller, played by a map: the role of
// upstream's fake clientset with a synced informer in ipallocator_test.go and
// cidrallocator_test.go (the create reactor adds the object to the informer's store, so the
// lister sees every create at once). The drivers below are upstream's Allocator and
// MetaAllocator methods written over the pure decisions, as the registry will write them.
import { type ErrFull, type IP, type IPAddress, type Rng, type WithRng } from '@kubesvc/api-types';
import {
  allocateNextServiceIP,
  allocateServiceIP,
  dualWriteAllocate,
  nextServiceIPAfterCreateFailed,
  nextServiceIPInNextServiceCIDR,
  releaseServiceIP,
  type MetaAllocator,
  type ServiceIPNextResult,
} from './cidr-allocator.js';
import { errAllocated, type ErrAllocated, type ErrMismatchedNetwork, type ErrNotInRange } from './errors.js';
import type { IPAllocator } from './ip-allocator.js';
import {
  allocateIPAddress,
  allocateNextIPAddress,
  nextIPAddressCandidate,
  releaseIPAddress,
  type IPAddressAllocator,
  type IPAddressView,
  type ServiceRef,
} from './ipaddress-allocator.js';

export const web: ServiceRef = { namespace: 'default', name: 'web' };

/** IPAddress objects by name; `lost` names answer AlreadyExists once without being stored (another apiserver won them). */
export class IPAddressStore {
  readonly objects = new Map<string, IPAddress>();
  readonly lost = new Set<string>();
  readonly creates: string[] = [];

  view(): IPAddressView {
    return { has: (name) => this.objects.has(name) };
  }

  list(): IPAddress[] {
    return [...this.objects.values()];
  }

  /** The API create: false for AlreadyExists. */
  create(ipAddress: IPAddress): boolean {
    const name = ipAddress.metadata.name ?? '';
    this.creates.push(name);
    if (this.lost.delete(name)) return false;
    if (this.objects.has(name)) return false;
    this.objects.set(name, ipAddress);
    return true;
  }

  delete(name: string): void {
    this.objects.delete(name);
  }
}

/** upstream Allocator.AllocateService. */
export function allocate(store: IPAddressStore, allocator: IPAddressAllocator, ip: IP, parent = web): ErrNotInRange | ErrAllocated | undefined {
  const decided = allocateIPAddress(allocator, ip, parent);
  if (!decided.ok) return decided.error;
  return store.create(decided.value.ipAddress) ? undefined : errAllocated;
}

/** upstream Allocator.AllocateNextService: the IP and the advanced generator, or ErrFull with it. */
export function allocateNext(
  store: IPAddressStore,
  allocator: IPAddressAllocator,
  rng: Rng,
  parent = web,
): { readonly ip: IP; readonly rng: Rng } | WithRng<ErrFull> {
  let candidate = allocateNextIPAddress(allocator, store.view(), rng, parent);
  while (candidate.ok) {
    if (store.create(candidate.value.ipAddress)) return { ip: candidate.value.ip, rng: candidate.value.scan.rng };
    candidate = nextIPAddressCandidate(allocator, store.view(), candidate.value.scan, parent);
  }
  return candidate.error;
}

/** upstream Allocator.Release. */
export function release(store: IPAddressStore, ip: IP): void {
  store.delete(releaseIPAddress(ip));
}

/** A MetaAllocator with its store and, for dual write, the bitmap allocator. */
export interface MetaHarness {
  meta: MetaAllocator;
  readonly store: IPAddressStore;
  bitmap: IPAllocator | undefined;
  rng: Rng;
}

/** upstream MetaAllocator.AllocateService. */
export function metaAllocate(h: MetaHarness, ip: IP, parent = web): ErrMismatchedNetwork | ErrAllocated | ErrNotInRange | undefined {
  const decided = allocateServiceIP(h.meta, ip, parent, h.bitmap);
  if (!decided.ok) return decided.error;
  h.bitmap = decided.value.bitmap;
  return h.store.create(decided.value.ipAddress) ? undefined : errAllocated;
}

/** upstream MetaAllocator.AllocateNextService, dual write included when the harness has a bitmap. */
export function metaAllocateNext(h: MetaHarness, parent = web): IP | ErrFull {
  let candidate: ServiceIPNextResult = allocateNextServiceIP(h.meta, h.store.view(), h.rng, parent);
  while (candidate.ok) {
    const { ip, ipAddress, scan } = candidate.value;
    if (!h.store.create(ipAddress)) {
      candidate = nextServiceIPAfterCreateFailed(h.meta, h.store.view(), scan, parent);
      continue;
    }
    const mirrored = dualWriteAllocate(h.bitmap, ip);
    if (!mirrored.ok) {
      candidate = nextServiceIPInNextServiceCIDR(h.meta, h.store.view(), scan, parent);
      continue;
    }
    h.bitmap = mirrored.value;
    h.rng = scan.scan.rng;
    return ip;
  }
  h.rng = candidate.error.rng;
  return candidate.error;
}

/** upstream MetaAllocator.Release. */
export function metaRelease(h: MetaHarness, ip: IP): ErrMismatchedNetwork | undefined {
  const decided = releaseServiceIP(h.meta, ip, h.bitmap);
  if (!decided.ok) return decided.error;
  h.bitmap = decided.value.bitmap;
  h.store.delete(decided.value.delete);
  return undefined;
}

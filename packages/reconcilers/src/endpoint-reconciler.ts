// The EndpointReconciler interface as a value: the reconciler type and its settings, and
// upstream's stopReconcilingCalled flag. upstream: pkg/controlplane/reconcilers/reconcilers.go,
// instancecount.go, lease.go, none.go (v1.21–v1.26).
import { DEFAULT_ENDPOINT_RECONCILER_TTL_MS } from './constants.js';
import { removeMasterCount, reconcileMasterCount } from './master-count.js';
import { hasLiveLease, reconcileLease, removeLease, updateLease } from './lease.js';
import { err, ok } from '@kubesvc/api-types';
import { reconcileInputProblem } from './input-shape.js';
import type { EndpointWrite, Lease, Leases, ReconcileOutcome, ReconcileRequest, ReconcileResult, ReconcilerType } from './types.js';

export interface EndpointReconciler {
  readonly type: ReconcilerType;
  /** Set by stopReconciling: later reconciles do nothing (removals still work). */
  readonly stopped: boolean;
  /** --apiserver-count; used by master-count only. */
  readonly masterCount: number;
  /** The lease TTL; used by lease only. */
  readonly leaseTtlMs: number;
}

/** A write to the master leases (`LEASE_STORAGE_PREFIX + ip`), for the caller to carry out. */
export type LeaseWrite =
  | { readonly kind: 'put-lease'; readonly lease: Lease; readonly ttlMs: number }
  | { readonly kind: 'delete-lease'; readonly ip: string };

export interface ReconcileStep {
  /** The writes to make, or the lease reconciler's refusal (ErrNoMasterIPs). */
  readonly outcome: ReconcileResult;
  /** The leases after `leaseWrites`. */
  readonly leases: Leases;
  /** Carried out before `outcome.writes`. */
  readonly leaseWrites: readonly LeaseWrite[];
}

/** upstream: apiserver --apiserver-count defaults to 1. */
const DEFAULT_MASTER_COUNT = 1;

const NOTHING: ReconcileResult = ok<ReconcileOutcome>({ action: 'none', writes: [] });

export function newEndpointReconciler(
  type: ReconcilerType,
  options?: { masterCount?: number; leaseTtlMs?: number },
): EndpointReconciler {
  const masterCount = options?.masterCount ?? DEFAULT_MASTER_COUNT;
  const leaseTtlMs = options?.leaseTtlMs ?? DEFAULT_ENDPOINT_RECONCILER_TTL_MS;
  // upstream: the apiserver refuses a non-positive --apiserver-count at startup.
  if (!Number.isSafeInteger(masterCount) || masterCount < 1) throw new RangeError(`masterCount must be a positive integer, got ${masterCount}`);
  if (!Number.isFinite(leaseTtlMs) || leaseTtlMs <= 0) throw new RangeError(`leaseTtlMs must be positive, got ${leaseTtlMs}`);
  return { type, stopped: false, masterCount, leaseTtlMs };
}

/** upstream: StopReconciling: every later reconcileEndpoints is a no-op. */
export function stopReconciling(r: EndpointReconciler): EndpointReconciler {
  return r.stopped ? r : { ...r, stopped: true };
}

/**
 * upstream: ReconcileEndpoints. master-count reconciles against the count; lease refreshes our
 * own lease first, whatever happens next, then resets the Endpoints to the live leases; none
 * does nothing. After stopReconciling all three do nothing.
 */
export function reconcileEndpoints(r: EndpointReconciler, req: ReconcileRequest, leases: Leases, now: number): ReconcileStep {
  if (r.stopped) return { outcome: NOTHING, leases, leaseWrites: [] };
  const wrong = reconcileInputProblem(req, leases, now, true);
  if (wrong !== undefined) return { outcome: err(wrong), leases, leaseWrites: [] };
  switch (r.type) {
    case 'master-count':
      return { outcome: ok(reconcileMasterCount(req, r.masterCount)), leases, leaseWrites: [] };
    case 'lease': {
      const next = updateLease(leases, req.ip, now, r.leaseTtlMs);
      const lease = next.get(req.ip) ?? { ip: req.ip, expiresAt: now + r.leaseTtlMs };
      return { outcome: reconcileLease(req, next, now), leases: next, leaseWrites: [{ kind: 'put-lease', lease, ttlMs: r.leaseTtlMs }] };
    }
    case 'none':
      return { outcome: NOTHING, leases, leaseWrites: [] };
  }
}

/**
 * upstream: RemoveEndpoints, used at start (stale data of an unclean exit) and on shutdown, so
 * it ignores stopReconciling. master-count drops our IP; lease deletes our lease and then
 * reconciles with reconcilePorts = true, which refuses (ErrNoMasterIPs) when ours was the last
 * live lease; none does nothing.
 *
 * When our lease is not in storage (never written, or expired), upstream's delete fails with
 * NotFound and RemoveEndpoints returns that error before reconciling; the bootstrap controller
 * only logs it. Here that is a step with no writes at all.
 */
export function removeEndpoints(
  r: EndpointReconciler,
  req: Omit<ReconcileRequest, 'reconcilePorts'>,
  leases: Leases,
  now: number,
): ReconcileStep {
  const wrong = reconcileInputProblem(req, leases, now, false);
  if (wrong !== undefined) return { outcome: err(wrong), leases, leaseWrites: [] };
  switch (r.type) {
    case 'master-count':
      return { outcome: ok(removeMasterCount(req)), leases, leaseWrites: [] };
    case 'lease': {
      if (!hasLiveLease(leases, req.ip, now)) return { outcome: NOTHING, leases, leaseWrites: [] };
      const next = removeLease(leases, req.ip);
      return { outcome: reconcileLease({ ...req, reconcilePorts: true }, next, now), leases: next, leaseWrites: [{ kind: 'delete-lease', ip: req.ip }] };
    }
    case 'none':
      return { outcome: NOTHING, leases, leaseWrites: [] };
  }
}

/**
 * How the caller treats a failed write. Writes run in order and the first failure ends the
 * step (upstream returns the error; the next reconcile starts over from a fresh observation).
 * Some AlreadyExists failures are not errors upstream; for those this returns true, and the
 * step ends as a success (the writes after it are skipped, as upstream's Create returns before
 * it mirrors the slice):
 * - lease: creating the Endpoints (doReconcile ignores AlreadyExists; master-count does not);
 * - any type: creating the missing EndpointSlice (EnsureEndpointSliceFromEndpoints), but not
 *   the create that follows a delete on an addressType change.
 */
export function alreadyExistsIgnored(type: ReconcilerType, writes: readonly EndpointWrite[], index: number): boolean {
  const w = writes[index];
  if (w === undefined) return false;
  if (w.kind === 'create-endpoints') return type === 'lease';
  if (w.kind === 'create-endpointslice') return writes[index - 1]?.kind !== 'delete-endpointslice';
  return false;
}

// Public API of @kubesvc/reconcilers.
export type {
  EndpointWrite,
  ErrNoMasterIPs,
  ErrReconcileInput,
  Lease,
  Leases,
  ObservedEndpoints,
  ReconcileOutcome,
  ReconcileRequest,
  ReconcileResult,
  ReconcilerType,
} from './types.js';
export {
  DEFAULT_ENDPOINT_RECONCILER_INTERVAL_MS,
  DEFAULT_ENDPOINT_RECONCILER_TTL_MS,
  LEASE_STORAGE_PREFIX,
  SKIP_MIRROR_LABEL,
} from './constants.js';
export type { EndpointReconciler, LeaseWrite, ReconcileStep } from './endpoint-reconciler.js';
export { alreadyExistsIgnored, newEndpointReconciler, reconcileEndpoints, removeEndpoints, stopReconciling } from './endpoint-reconciler.js';
export { reconcileMasterCount } from './master-count.js';
export { errNoMasterIPs, hasLiveLease, listLeases, NO_MASTER_IPS_MESSAGE, reconcileLease, removeLease, updateLease } from './lease.js';
export { endpointSliceFor } from './endpoints-adapter.js';

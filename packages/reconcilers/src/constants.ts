// upstream: pkg/controlplane/reconcilers/reconcilers.go, lease.go, endpointsadapter.go and
// cmd/kube-apiserver/app/options (the interval and TTL defaults).

/** How often the bootstrap controller reconciles the kubernetes endpoints. */
export const DEFAULT_ENDPOINT_RECONCILER_INTERVAL_MS = 10_000;
/** How long a master lease lives unless renewed. */
export const DEFAULT_ENDPOINT_RECONCILER_TTL_MS = 15_000;
/** The storage prefix of the master leases (`/masterleases/<ip>`). */
export const LEASE_STORAGE_PREFIX = '/masterleases/';
/** Set to "true" on the kubernetes Endpoints so the EndpointSlice mirroring controller leaves it alone. */
export const SKIP_MIRROR_LABEL = 'endpointslice.kubernetes.io/skip-mirror';

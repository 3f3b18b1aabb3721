// The shared shapes of the endpoint reconcilers: what they read (the observed default/kubernetes
// Endpoints and its mirrored EndpointSlice, the master leases) and what they ask to be written.
// A reconciler never writes: it returns the writes as data, and the caller (the bootstrap
// controller) turns them into actions. upstream: pkg/controlplane/reconcilers/reconcilers.go
import type { EndpointPort, EndpointSlice, Endpoints, Result } from '@kubesvc/api-types';

/** upstream: reconcilers.go (MasterCountReconcilerType, LeaseEndpointReconcilerType, NoneEndpointReconcilerType). */
export type ReconcilerType = 'master-count' | 'lease' | 'none';

/** One apiserver's lease: its IP is live until `expiresAt` (ms, same clock as `now`). */
export interface Lease {
  readonly ip: string;
  readonly expiresAt: number;
}

/** The leases as stored (`/masterleases/<ip>`), keyed by IP. */
export type Leases = ReadonlyMap<string, Lease>;

/** What the reconciler sees of the cluster. */
export interface ObservedEndpoints {
  /** default/<serviceName> Endpoints, or undefined when it does not exist. */
  readonly endpoints: Endpoints | undefined;
  /** The mirrored EndpointSlice default/<serviceName>, or undefined. */
  readonly endpointSlice: EndpointSlice | undefined;
}

/** A write the reconciler asks for. Updates and deletes carry the observed object's resourceVersion as a precondition. */
export type EndpointWrite =
  | { readonly kind: 'create-endpoints'; readonly endpoints: Endpoints }
  | { readonly kind: 'update-endpoints'; readonly endpoints: Endpoints; readonly resourceVersion: string | undefined }
  | { readonly kind: 'create-endpointslice'; readonly endpointSlice: EndpointSlice }
  | { readonly kind: 'update-endpointslice'; readonly endpointSlice: EndpointSlice; readonly resourceVersion: string | undefined }
  | { readonly kind: 'delete-endpointslice'; readonly namespace: string; readonly name: string; readonly resourceVersion: string | undefined };

/** The result of one reconcile or removal. */
export interface ReconcileOutcome {
  /** What happened to the Endpoints object (upstream's create / update / nothing). */
  readonly action: 'create' | 'update' | 'none';
  /** The writes, in the order upstream's EndpointsAdapter makes them (Endpoints first, then the slice). */
  readonly writes: readonly EndpointWrite[];
}

/** upstream: lease.go, the refusal to erase all endpoints. */
export interface ErrNoMasterIPs {
  readonly _tag: 'ErrNoMasterIPs';
  readonly message: string;
}

/** A reconcile's outcome, or the lease reconciler's refusal (the one Result of api-types). */
/** A reconcile given arguments of the wrong shape (from JavaScript or unchecked JSON). */
export interface ErrReconcileInput {
  readonly _tag: 'ErrReconcileInput';
  readonly message: string;
}

export type ReconcileResult = Result<ReconcileOutcome, ErrNoMasterIPs | ErrReconcileInput>;

/** The arguments every reconcile shares. upstream: EndpointReconciler.ReconcileEndpoints(serviceName, ip, endpointPorts, reconcilePorts). */
export interface ReconcileRequest {
  /** "kubernetes". */
  readonly serviceName: string;
  /** This apiserver's advertised address. */
  readonly ip: string;
  readonly endpointPorts: readonly EndpointPort[];
  readonly reconcilePorts: boolean;
  readonly observed: ObservedEndpoints;
}

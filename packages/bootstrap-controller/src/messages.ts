// What the bootstrap controller reads (messages) and asks for (actions). The controller never
// calls a client: the runtime (or the simulator) carries the actions out and answers with
// messages. After applying a write, the runtime delivers an Observed with the new cluster state
// and then the write's ActionResult, so that a step that follows a write sees its effect.
import type {
  Endpoints,
  EndpointSlice,
  Namespace,
  RangeAllocation,
  RepairEvent,
  Service,
  TaggedError,
} from '@kubesvc/api-types';
import type { Lease, Leases } from '@kubesvc/reconcilers';

/** The stored RangeAllocations: `/registry/ranges/serviceips`, the secondary family's, `/registry/ranges/servicenodeports`. */
export interface RangeAllocations {
  readonly serviceIPs?: RangeAllocation | undefined;
  readonly secondaryServiceIPs?: RangeAllocation | undefined;
  readonly nodePorts?: RangeAllocation | undefined;
}
export type RangeKey = keyof RangeAllocations;

/** What the controller sees of the cluster (upstream reads the same through its client and listers). */
export interface Observation {
  readonly services: readonly Service[];
  readonly endpoints: readonly Endpoints[];
  readonly endpointSlices: readonly EndpointSlice[];
  readonly namespaces: readonly Namespace[];
  readonly rangeAllocations: RangeAllocations;
  /** The master leases as stored; expired ones may be included (the reconciler ignores them). */
  readonly leases: Leases;
}

/** metav1.StatusReason values the controller tells apart. */
export type ApiErrorReason =
  | 'AlreadyExists'
  | 'Conflict'
  | 'NotFound'
  | 'Invalid'
  | 'Forbidden'
  | 'InternalError'
  | 'ServiceUnavailable'
  | 'Timeout';

/** A failed request, tagged with its Status reason; `message` is the Status message, as upstream's client error prints it. */
export type ApiError = TaggedError<ApiErrorReason>;

export type Message =
  | { readonly type: 'Start'; readonly now: number }
  | { readonly type: 'Tick'; readonly now: number }
  /** The answer of one /readyz poll (upstream polls every 100 ms until it is 200). */
  | { readonly type: 'Readyz'; readonly ok: boolean; readonly now: number }
  | ({ readonly type: 'Observed' } & Observation)
  /** The outcome of the write with this id: no error means it was applied. */
  | { readonly type: 'ActionResult'; readonly id: number; readonly error?: ApiError | undefined }
  /**
   * With the 'ipaddress' allocator: RepairIPAddress has made its first successful pass (its
   * RunUntil called onFirstSuccess). Ignored with the bitmap allocator.
   */
  | { readonly type: 'IPAddressRepairSucceeded'; readonly now: number }
  | { readonly type: 'Stop'; readonly now: number };

/** A write to the cluster. Updates and deletes carry the resourceVersion precondition (undefined: none). */
export type Write =
  | { readonly kind: 'create'; readonly object: Namespace | Service | Endpoints | EndpointSlice }
  | { readonly kind: 'update'; readonly object: Service | Endpoints | EndpointSlice; readonly resourceVersion: string | undefined }
  | {
      readonly kind: 'delete';
      readonly objectKind: 'EndpointSlice';
      readonly namespace: string;
      readonly name: string;
      readonly resourceVersion: string | undefined;
    }
  /** upstream RangeRegistry.CreateOrUpdate: written when nothing is stored; over a stored range, a Conflict unless resourceVersion is the stored one. */
  | { readonly kind: 'write-range'; readonly range: RangeKey; readonly allocation: RangeAllocation; readonly resourceVersion: string | undefined }
  | { readonly kind: 'put-lease'; readonly lease: Lease; readonly ttlMs: number }
  | { readonly kind: 'delete-lease'; readonly ip: string }
  /** A repair loop's Warning event (events/v1: reason, action, note, regarding Service). */
  | { readonly kind: 'event'; readonly event: RepairEvent };

export type Action =
  | (Write & { readonly id: number })
  /** Deliver a Tick at this time (replaces any earlier request). */
  | { readonly kind: 'wake-at'; readonly at: number }
  /** The apiserver must exit (upstream klog.Fatalf). */
  | { readonly kind: 'fatal'; readonly message: string }
  /** What upstream logs (klog / runtime.HandleError). */
  | { readonly kind: 'log'; readonly level: 'error' | 'warning' | 'info'; readonly message: string };

export type WriteAction = Extract<Action, { readonly id: number }>;

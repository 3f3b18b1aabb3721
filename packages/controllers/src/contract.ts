// The contract between the controller host and the controllers it runs. It lives with the
// controllers, which implement it; the host (the runtime's informer and controller runner)
// and the node agent, which reads the same caches, import it from here.
//
// A keyed controller is upstream's informer + workqueue pattern made pure: the host keeps an
// informer cache of the resources the controller watches, turns every change into keys
// (`namespace/name`), and for each key calls `reconcile`, a pure function of the cache and the
// time that returns the writes to make. The host carries the writes out through the registry
// (updates and deletes with the resourceVersion they were computed from as a precondition),
// and on a Conflict or any failed write it requeues the key with backoff, as upstream's
// workqueue does. Nothing in a controller calls a client.
import type { KubeObject, ResourceName } from '@kubesvc/api-types';

/** A read-only view of the informer caches: every object of the watched resources as last observed. */
export interface CacheView {
  /** The objects of `resource`, in one namespace or (absent) all, in key order. */
  list<T extends KubeObject = KubeObject>(resource: ResourceName, namespace?: string): readonly T[];
  get<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string): T | undefined;
  /**
   * The objects of `resource` in one namespace or (absent) all whose label `label` is `value`,
   * in key order: the same as filtering list(), from an index (as upstream's indexers give
   * listers). Optional: a view without it is filtered.
   */
  listByLabel?<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string | undefined, label: string, value: string): readonly T[];
}

/** One change an informer saw. `old` is the object before a MODIFIED or DELETED. */
export interface CacheChange {
  readonly resource: ResourceName;
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED';
  readonly object: KubeObject;
  readonly old?: KubeObject;
}

/**
 * A write a controller asks for. An update's precondition is `object.metadata.resourceVersion`
 * (absent: none); a delete's are `resourceVersion` and `uid`, and its DeleteOptions the grace
 * period (absent: the kind's default, a pod's terminationGracePeriodSeconds) and the
 * propagation policy. `subresource: 'status'` writes only the status (pods, services).
 */
export type ReconcileAction =
  | { readonly kind: 'create'; readonly resource: ResourceName; readonly namespace: string; readonly object: KubeObject }
  | {
      readonly kind: 'update';
      readonly resource: ResourceName;
      readonly namespace: string;
      readonly object: KubeObject;
      readonly subresource?: 'status';
    }
  | {
      readonly kind: 'delete';
      readonly resource: ResourceName;
      readonly namespace: string;
      readonly name: string;
      readonly resourceVersion?: string;
      readonly uid?: string;
      readonly gracePeriodSeconds?: number;
      readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
    }
  /** Reconcile this key again after `afterMs` (a pod's readiness delay, say), even if nothing changes. */
  | { readonly kind: 'requeue-after'; readonly key: string; readonly afterMs: number }
  /**
   * Keep `value` for `key` until this controller next reconciles that key: the host hands it
   * back as `reconcile`'s `remembered` (undefined forgets it). It is what an upstream
   * controller keeps in memory between syncs of a key, such as the trigger-time tracker's last
   * observed times; like that memory, it is lost when the host restarts. Not a write.
   */
  | { readonly kind: 'remember'; readonly key: string; readonly value: unknown }
  /**
   * Record an Event about an object, as one of upstream's two recorders writes it (see
   * ControllerEvent's `recorder`). Not a write the key waits on: a refused event is logged and
   * dropped, as upstream's broadcaster drops it, and fails nothing.
   */
  | { readonly kind: 'event'; readonly event: ControllerEvent }
  /**
   * The namespace controller's one step that is not a single write: delete everything in a
   * Terminating namespace, then the namespace (the registry's `finalizeNamespace`).
   */
  | { readonly kind: 'finalize-namespace'; readonly name: string };

/** An Event a controller asks the host to record. */
export interface ControllerEvent {
  /**
   * Which of upstream's recorders writes it:
   * - `core/v1`: record.EventRecorder (the endpoint, EndpointSlice, mirroring and deployment
   *   controllers'): the reporting controller as the source component, count and first/last
   *   timestamps, repeats counted by client-go's correlator;
   * - `events/v1`: the events/v1 recorder (the scheduler's): `action`, eventTime and
   *   reportingInstance, no count.
   */
  readonly recorder: 'core/v1' | 'events/v1';
  /** Warning or Normal, as core/v1 events are typed. */
  readonly type: 'Warning' | 'Normal';
  /** Why, in one CamelCase word (FailedScheduling). */
  readonly reason: string;
  /** The human-readable text (events/v1 calls it the note; a core/v1 client reads it as the message). */
  readonly message: string;
  /** The controller that reports it (default-scheduler, endpoint-slice-controller). */
  readonly reportingController: string;
  /** What was being done (Scheduling): events/v1 only. */
  readonly action?: string;
  /** The object the event is about; `resource` is where its uid is looked up in the cache. */
  readonly regarding: {
    readonly apiVersion: string;
    readonly kind: string;
    /** '' for a cluster-scoped object: the event then goes to `default`. */
    readonly namespace: string;
    readonly name: string;
    readonly resource: ResourceName;
  };
}

export interface KeyedController {
  readonly name: string;
  /** The resources whose informers feed this controller. */
  readonly watches: readonly ResourceName[];
  /** The keys (`namespace/name`, or `name` for cluster-scoped) to reconcile after a change. */
  keysFor(change: CacheChange, cache: CacheView): readonly string[];
  /**
   * Keys to reconcile once the caches have synced, besides those of the initial ADDED events
   * (the simulated kubelet's Node objects, which exist before anything names them).
   */
  initialKeys?(cache: CacheView): readonly string[];
  /**
   * Pure: the writes that bring the cluster to the desired state for one key, at time `now`.
   * `remembered` is the value of this controller's last `remember` action for the key, if any.
   */
  reconcile(key: string, cache: CacheView, now: number, remembered?: unknown): readonly ReconcileAction[];
}

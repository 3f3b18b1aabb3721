// The registry's option, result and list types, shared by the verbs (verbs/*.ts) and the
// Registry class that exposes them (the registry's index.ts exports them).
import type { ClusterIPAllocation, KubeObject, Result, ServiceNetworking } from '@kubesvc/api-types';
import type { Clock, Store } from '@kubesvc/store';
import type { CrashHook } from './crash.js';
import type { FieldValidation } from './decode.js';
import type { ApiError } from './errors.js';
import type { Patcher } from './patch.js';

/** A registry answer: the value, or the API error (tagged with the Status reason) the HTTP layer sends. */
export type RegistryResult<T> = Result<T, ApiError>;

export interface RegistryOptions {
  readonly store: Store;
  readonly clock: Clock;
  /** Seeds the generator behind allocation draws, generated names and UIDs. */
  readonly seed: number;
  /** The service CIDRs and the node port range, parsed (api-types' parseServiceNetworking). Takes the place of the two below. */
  readonly serviceNetworking?: ServiceNetworking;
  /** `--service-cluster-ip-range`: one or two CIDRs, primary first, read with parseServiceNetworking. Default `10.0.0.0/24`. */
  readonly serviceClusterIPRanges?: readonly string[];
  /** `--service-node-port-range`, read with parseServiceNetworking. Default `30000-32767`. */
  readonly serviceNodePortRange?: string;
  /**
   * Which ClusterIP allocator runs: IPAddress objects over ServiceCIDRs with the dual write into
   * the RangeAllocation (the default, v1.33's), IPAddress objects alone, or the bitmap alone.
   */
  readonly clusterIPAllocation?: ClusterIPAllocation;
  /**
   * kube-apiserver's PreferSameTrafficDistribution gate (alpha in v1.33, off by default): with
   * it on, a Service's trafficDistribution may also be PreferSameZone or PreferSameNode.
   */
  readonly preferSameTrafficDistribution?: boolean;
  /** Crash points for tests; production leaves it out. */
  readonly crashHook?: CrashHook;
  /** Extra or replacement patchers by patch type (strategic merge patch, say). */
  readonly patchers?: Readonly<Record<string, Patcher>>;
  /**
   * How long a loop over many objects (a namespace's contents, a collection delete) may hold
   * the event loop before it yields to other clients. Default 10 ms; 0 yields after every object.
   */
  readonly eventLoopSliceMs?: number;
}

export interface CreateOptions {
  /** The name in the request URL, when there is one; it must match the body's. */
  readonly name?: string;
}

export interface UpdateOptions {
  readonly fieldValidation?: FieldValidation;
}

export interface ListOptions {
  readonly limit?: number;
  /** The token a previous page returned. */
  readonly continue?: string;
  /**
   * Keeps only the objects it accepts (label and field selectors). With a limit, the page is
   * filled with accepted objects, reading on as the etcd3 store's GetList does, and the
   * continue token resumes after the last object read.
   */
  readonly predicate?: (object: KubeObject) => boolean;
}

export interface StatusUpdateOptions {
  readonly fieldValidation?: FieldValidation;
}

export interface PatchOptions extends UpdateOptions {
  /** `'status'` patches through the /status subresource (registry.updateStatus), `'scale'` a Scale through /scale. */
  readonly subresource?: 'status' | 'scale';
}

export interface DeleteCollectionOptions {
  readonly predicate?: (object: KubeObject) => boolean;
  /** The options each object's delete gets (absent: each goes at once). */
  readonly deleteOptions?: DeleteOptions;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly resourceVersion: string; readonly continue?: string };
  readonly items: readonly T[];
}

/**
 * A delete's DeleteOptions. A delete called without any (the registry's own callers) deletes at
 * once, as upstream's store treats nil options (a grace period of 0); a request's options, even
 * empty, let the kind's strategy pick the grace period (a Pod's spec.terminationGracePeriodSeconds).
 */
export interface DeleteOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  /** The grace period asked for; absent: the kind's default. Negative counts as 1, as upstream's BeforeDelete has it. */
  readonly gracePeriodSeconds?: number;
  /** Orphan, Background or Foreground: what happens to the object's dependents. */
  readonly propagationPolicy?: 'Orphan' | 'Background' | 'Foreground';
}

/** What a delete did: the object is gone, or (a namespace) it is now Terminating. */
export interface DeleteOutcome<T extends KubeObject = KubeObject> {
  readonly object: T;
  /** False when the object still exists: being finalized (a namespace), or deleted gracefully (a pod). */
  readonly deleted: boolean;
}

/** How the compare-and-swaps on the range objects went since the registry opened. */
export interface RangeCasStats {
  /** Range writes attempted (a CAS on every range key the operation changes). */
  readonly attempts: number;
  /** Of those, the ones that lost to another writer: each one a re-read and a retry. */
  readonly conflicts: number;
}

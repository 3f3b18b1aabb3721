// The registry: API writes become stored objects and allocations, as kube-apiserver's REST
// storage makes them. This file is the public class; each verb is a file of verbs/, each
// kind's strategy a file of strategies/ hung on the resource table (resources.ts), and the
// shared state and the range allocations are core.ts. For every kind: namespace lifecycle, metadata (name or generateName,
// uid, creationTimestamp, generation), the kind's strategy (defaulting, validation, immutable
// fields), then one txn per object with the resourceVersion (the key's modRevision) as the
// precondition. For Services, between validation and the write: the ClusterIP and NodePort
// allocation, a compare-and-swap on the RangeAllocation objects retried on conflict; a failed
// write gives the allocation back, a crash does not (the repair loop frees the leak).
// upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Create,
//           Update, Delete, GuaranteedUpdate retries), staging/.../registry/rest/create.go and
//           update.go (BeforeCreate, BeforeUpdate), staging/.../storage/etcd3/store.go (the
//           resourceVersion is the modRevision, not stored in the value),
//           pkg/registry/core/service/storage/storage.go (beginCreate, beginUpdate, afterDelete),
//           pkg/registry/core/namespace/storage/storage.go (Delete: Terminating, then the
//           controller finalizes), plugin/pkg/admission/namespace/lifecycle/admission.go
import {
  DEFAULT_SERVICE_CIDR_NAME,
  DEFAULT_SERVICE_CIDR_READY_MESSAGE,
  formatCIDR,
  ok,
  SERVICE_CIDR_API_VERSION,
  SERVICE_CIDR_CONDITION_READY,
  type KubeObject,
  type Result,
  type Scale,
  type ServiceCIDR,
} from '@kubesvc/api-types';
import type { Clock, Store } from '@kubesvc/store';
import { RegistryCore } from './core.js';
import { clusterNetworking, clusterNetworkingOf, type AdapterError, type ClusterNetworking } from './pure-adapters.js';
import type { PatchType } from './patch.js';
import type { ResourceName } from './resources.js';
import type {
  CreateOptions,
  DeleteCollectionOptions,
  DeleteOptions,
  DeleteOutcome,
  ListOptions,
  ObjectList,
  PatchOptions,
  RangeCasStats,
  RegistryOptions,
  RegistryResult,
} from './types.js';
import { create } from './verbs/create.js';
import { deleteCollection } from './verbs/delete-collection.js';
import { deleteObject } from './verbs/delete.js';
import { finalizeNamespace } from './verbs/finalize-namespace.js';
import { get } from './verbs/get.js';
import { list, listJson, listJsonParts } from './verbs/list.js';
import { patch } from './verbs/patch.js';
import { getScale, updateScale } from './verbs/scale.js';
import { update, updateOrCreate, updateStatus } from './verbs/update.js';

export class Registry {
  readonly store: Store;
  readonly clock: Clock;
  readonly net: ClusterNetworking;
  private readonly core: RegistryCore;

  constructor(options: RegistryOptions, net: ClusterNetworking) {
    this.core = new RegistryCore(options, net);
    this.store = this.core.store;
    this.clock = this.core.clock;
    this.net = net;
  }

  /** The range CAS counters (for the benchmarks and the HA tests). */
  rangeCasStats(): RangeCasStats {
    return this.core.rangeCasStats();
  }

  get<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string): Promise<RegistryResult<T>> {
    return get<T>(this.core, resource, namespace, name);
  }

  /** A page of objects in key order, at one revision; `continue` resumes at that revision. */
  list<T extends KubeObject = KubeObject>(resource: ResourceName, namespace?: string, options: ListOptions = {}): Promise<RegistryResult<ObjectList<T>>> {
    return list<T>(this.core, resource, namespace, options);
  }

  /**
   * The JSON text of what list() returns without a predicate, written from the stored values
   * without parsing them (serializedForReader): the API's plain list, where every object
   * would be parsed only to be written out again.
   */
  listJson(resource: ResourceName, namespace?: string, options: Omit<ListOptions, 'predicate'> = {}): Promise<RegistryResult<string>> {
    return listJson(this.core, resource, namespace, options);
  }

  /** listJson's text in parts of some 48 K characters, to be sent one after the other (the API's plain list). */
  listJsonParts(resource: ResourceName, namespace?: string, options: Omit<ListOptions, 'predicate'> = {}): Promise<RegistryResult<readonly string[]>> {
    return listJsonParts(this.core, resource, namespace, options);
  }

  /** Creates `object` (already decoded) in `namespace` (ignored for namespaces). */
  create<T extends KubeObject>(resource: ResourceName, namespace: string, object: T, options: CreateOptions = {}): Promise<RegistryResult<T>> {
    return create(this.core, resource, namespace, object, options);
  }

  /** Replaces the object (already decoded); an empty resourceVersion means "whatever is stored". */
  update<T extends KubeObject>(resource: ResourceName, namespace: string, name: string, object: T): Promise<RegistryResult<T>> {
    return update(this.core, resource, namespace, name, object);
  }

  /**
   * update, saying whether the object was created: a kind that allows create on update
   * (Endpoints, Events) creates a missing object, and the API answers that with 201.
   */
  updateOrCreate<T extends KubeObject>(resource: ResourceName, namespace: string, name: string, object: T): Promise<RegistryResult<{ readonly object: T; readonly created: boolean }>> {
    return updateOrCreate(this.core, resource, namespace, name, object);
  }

  /**
   * Writes an object through its /status subresource (services, pods, nodes): the status is
   * taken from `object`, the spec stays as stored. Preconditions as for update.
   */
  updateStatus<T extends KubeObject>(resource: ResourceName, namespace: string, name: string, object: T): Promise<RegistryResult<T>> {
    return updateStatus(this.core, resource, namespace, name, object);
  }

  /** GET of a Deployment's or ReplicaSet's /scale: its autoscaling/v1 Scale. */
  getScale(resource: ResourceName, namespace: string, name: string): Promise<RegistryResult<Scale>> {
    return getScale(this.core, resource, namespace, name);
  }

  /** PUT of /scale: sets spec.replicas through the object's update. */
  updateScale(resource: ResourceName, namespace: string, name: string, scale: Scale): Promise<RegistryResult<Scale>> {
    return updateScale(this.core, resource, namespace, name, scale);
  }

  /** Applies a patch document to the stored object and updates it; retried on conflict unless the patch names a resourceVersion. */
  patch<T extends KubeObject>(resource: ResourceName, namespace: string, name: string, patchType: PatchType, document: string, options: PatchOptions = {}): Promise<RegistryResult<T>> {
    return patch<T>(this.core, resource, namespace, name, patchType, document, options);
  }

  /**
   * Deletes the object. Without options it goes at once (a grace period of 0); with options
   * (a request's, even empty) a Pod is deleted gracefully: it gets its deletionTimestamp and
   * stays until the kubelet deletes it with a grace period of 0.
   */
  delete<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string, options?: DeleteOptions): Promise<RegistryResult<DeleteOutcome<T>>> {
    return deleteObject<T>(this.core, resource, namespace, name, options);
  }

  /** Deletes every object of the list (one namespace, or all) that `predicate` accepts, one by one. */
  deleteCollection<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, options: DeleteCollectionOptions = {}): Promise<RegistryResult<ObjectList<T>>> {
    return deleteCollection<T>(this.core, resource, namespace, options);
  }

  /**
   * The namespace controller's step for one namespace: when it is Terminating, every object in
   * it is deleted, then the namespace itself, unless finalizers keep an object (the namespace
   * then waits for a later step). A namespace that is absent or active is left alone.
   */
  finalizeNamespace(name: string): Promise<RegistryResult<{ readonly deletedObjects: number; readonly remainingObjects: number; readonly namespaceDeleted: boolean }>> {
    return finalizeNamespace(this.core, name);
  }

  /**
   * What kube-apiserver does when it starts, before it serves: empty RangeAllocation objects for
   * the ranges that have none yet (its allocators' CreateOrUpdate), and, with the IPAddress
   * allocator, the default ServiceCIDR's first sync, which blocks the start until it holds:
   * `kubernetes` is created from --service-cluster-ip-range when it does not exist and its
   * Ready condition set to True. An existing one is left as it is (the default ServiceCIDR
   * controller then checks it against the flags, upgrades it to dual-stack, or reports the
   * mismatch). Idempotent.
   * upstream: pkg/controlplane/controller/defaultservicecidr/default_servicecidr_controller.go
   *           (Start: polls sync until it succeeds; sync: create, then syncStatus)
   */
  async initRanges(): Promise<void> {
    await this.core.initRanges();
    if (this.core.clusterIPAllocation.allocator === 'ipaddress') await this.ensureDefaultServiceCIDR();
  }

  private async ensureDefaultServiceCIDR(): Promise<void> {
    const name = DEFAULT_SERVICE_CIDR_NAME;
    const existing = await this.get<ServiceCIDR>('servicecidrs', '', name);
    if (existing.ok) return;
    const created = await this.create<ServiceCIDR>('servicecidrs', '', {
      apiVersion: SERVICE_CIDR_API_VERSION,
      kind: 'ServiceCIDR',
      metadata: { name },
      spec: { cidrs: this.core.net.serviceCIDRs.map(formatCIDR) },
    });
    // Another apiserver of the cluster created it first: it sets the condition.
    if (!created.ok) return;
    const ready = {
      type: SERVICE_CIDR_CONDITION_READY,
      status: 'True',
      lastTransitionTime: this.core.timestamp(),
      reason: '',
      message: DEFAULT_SERVICE_CIDR_READY_MESSAGE,
    };
    await this.updateStatus<ServiceCIDR>('servicecidrs', '', name, { ...created.value, status: { conditions: [ready] } });
  }

  /** Forgets the cached ranges (after another writer, such as the repair loop, changed them). */
  invalidateRangeCache(): void {
    this.core.invalidateRangeCache();
  }
}

/**
 * A registry over `store`, or the configuration error (kube-apiserver's flag messages).
 * Call `initRanges()` once before serving (openRegistry does both).
 */
export function createRegistry(options: RegistryOptions): Result<Registry, AdapterError> {
  const net =
    options.serviceNetworking !== undefined
      ? ok(clusterNetworkingOf(options.serviceNetworking))
      : clusterNetworking(options.serviceClusterIPRanges ?? ['10.0.0.0/24'], options.serviceNodePortRange ?? '30000-32767');
  if (!net.ok) return net;
  return ok(new Registry(options, options.preferSameTrafficDistribution === true ? { ...net.value, preferSameTrafficDistribution: true } : net.value));
}

/** createRegistry, then initRanges: what an apiserver does when it starts. */
export async function openRegistry(options: RegistryOptions): Promise<Result<Registry, AdapterError>> {
  const r = createRegistry(options);
  if (r.ok) await r.value.initRanges();
  return r;
}

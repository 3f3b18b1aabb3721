// What differs between the kinds the registry serves, as upstream's REST strategies say it:
// one RestStrategy per kind (strategies/<resource>.ts), hung on the resource table
// (resources.ts). The verbs (verbs/*.ts) run the generic steps (rest.BeforeCreate,
// rest.BeforeUpdate, rest.BeforeDelete, the txn and its retries) and call the strategy at the
// points upstream's do.
// upstream: staging/src/k8s.io/apiserver/pkg/registry/rest/create.go (RESTCreateStrategy:
//           PrepareForCreate, Validate), rest/update.go (RESTUpdateStrategy: PrepareForUpdate,
//           ValidateUpdate), rest/delete.go (RESTDeleteStrategy), generic/registry/store.go
//           (AfterDelete), pkg/registry/core/service/storage/storage.go (beginCreate,
//           beginUpdate, afterDelete: the allocation hooks)
import type { KubeObject, Service } from '@kubesvc/api-types';
import type { Rng } from '@kubesvc/ipallocator';
import type { ApiError } from './errors.js';
import type { ClusterNetworking, ValidationResult } from './pure-adapters.js';
import type { AllocState, Held, PlanResult } from './service-alloc.js';

/** What a delete does with an object whose kind decides (the namespace storage's Delete). */
export type DeleteDecision =
  /** Delete the key now. */
  | { readonly action: 'delete' }
  /** Write this object instead (graceful: the object stays, being finalized). */
  | { readonly action: 'update'; readonly object: KubeObject }
  /** Refuse the delete. */
  | { readonly action: 'refuse'; readonly error: ApiError };

/** The Service storage's allocation hooks: what a create or update takes, what a delete frees. */
export interface AllocationHooks {
  /** beginCreate: the IPs and ports a new Service takes. */
  planCreate(service: Service, state: AllocState, rng: Rng, net: ClusterNetworking): PlanResult;
  /** beginUpdate: what an update takes and what it gives up. */
  planUpdate(service: Service, old: Service, state: AllocState, rng: Rng, net: ClusterNetworking): PlanResult;
  /** afterDelete: what a deleted Service held. */
  heldBy(service: Service): Held;
}

export interface RestStrategy {
  /** PrepareForCreate, after FillObjectMetaSystemFields: status the user may not set, and the like. */
  prepareForCreate(object: KubeObject): KubeObject;
  /** Validate (defaulting included): the object to store, or the field errors of a 422. */
  validate(object: KubeObject, net: ClusterNetworking): ValidationResult<KubeObject>;
  /** PrepareForUpdate, after rest.BeforeUpdate's metadata: what the main resource keeps from the stored object. */
  prepareForUpdate(object: KubeObject, old: KubeObject): KubeObject;
  /** ValidateUpdate (defaulting included). */
  validateUpdate(object: KubeObject, old: KubeObject, net: ClusterNetworking): ValidationResult<KubeObject>;
  /** What PrepareForUpdate decides from the defaulted object (an EndpointSlice's generation); the identity when absent. */
  afterValidateUpdate?(object: KubeObject, old: KubeObject): KubeObject;
  /** The status strategy's PrepareForUpdate beyond "spec from the stored object, status from the request". */
  prepareForStatusUpdate?(object: KubeObject, old: KubeObject): KubeObject;
  /** Admission's refusal of a delete, before anything is read (NamespaceLifecycle). */
  admitDelete?(name: string): ApiError | undefined;
  /**
   * CheckGracefulDelete (RESTGracefulDeleteStrategy): the grace period of a delete that asked
   * for `requested` seconds (absent: none asked), once rest.BeforeDelete has turned a negative
   * one into 1. Kinds without it are not deleted gracefully.
   */
  checkGracefulDelete?(object: KubeObject, requested: number | undefined): number;
  /**
   * A storage with its own Delete (a namespace goes Terminating first). Without it the generic
   * store's: graceful deletion, the finalizers (a delete marks an object that has some, the
   * update that takes the last one off deletes it) and the garbage collector's finalizers.
   */
  decideDelete?(object: KubeObject, now: string): DeleteDecision;
  /** Keys deleted in the same txn as the object (a Service's Endpoints). */
  deletedWith?(namespace: string, name: string): readonly string[];
  /**
   * The name a create with generateName and no name gets (the strategy's names.NameGenerator);
   * absent: the registry's random suffix (names.SimpleNameGenerator).
   */
  generateName?(base: string): string;
  /** The Service storage's allocations. */
  readonly allocation?: AllocationHooks;
}

/** The main resource never writes status; /status does: the stored status is kept. */
export function keepStoredStatus(object: KubeObject, old: KubeObject): KubeObject {
  const { status: _s, ...rest } = object as KubeObject & { status?: unknown };
  const stored = (old as { status?: unknown }).status;
  return (stored === undefined ? rest : { ...rest, status: stored }) as KubeObject;
}

/** Whether the kind's storage is the generic store (no Delete of its own): finalizers and all. */
export function isGenericStore(strategy: RestStrategy): boolean {
  return strategy.decideDelete === undefined;
}

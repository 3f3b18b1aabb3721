// The registry: API writes become stored objects and allocations, as kube-apiserver's REST
// storage makes them. For every kind: namespace lifecycle, metadata (name or generateName,
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
import type { EndpointSlice, KubeObject, Namespace, ObjectMeta, RangeAllocation, Service, ServiceNetworking } from '@kubesvc/api-types';
import { seededRng, type Rng } from '@kubesvc/ipallocator';
import { semanticEqual } from '@kubesvc/reconcilers';
import { type Clock, type Compare, ErrCompacted, type KeyValue, type Store, type TxnOp, type TxnResult } from '@kubesvc/store';
import type { CrashHook, CrashPoint } from './crash.js';
import { decodeValue, DEFAULT_FIELD_VALIDATION, type FieldValidation } from './decode.js';
import {
  alreadyExistsError,
  badRequestError,
  conflictError,
  expiredError,
  forbiddenError,
  generateNameConflictError,
  internalError,
  invalidError,
  methodNotAllowedError,
  notFoundError,
  OPTIMISTIC_LOCK_ERROR_MSG,
  unknownError,
  unsupportedMediaTypeError,
  type ApiError,
  type GroupResource,
} from './errors.js';
import { DEFAULT_EVENT_LOOP_SLICE_MS, EventLoopTurns } from './event-loop-turns.js';
import { formatTimestamp, generateName, generateUID } from './names.js';
import { deserializeObject, serializedForReader, serializeObject } from './stored-object.js';
import { DEFAULT_PATCHERS, type Patcher, type PatchType } from './patch.js';
import {
  clusterIPOffset,
  clusterNetworking,
  clusterNetworkingOf,
  fullSnapshotBytes,
  nodePortOffset,
  ipAllocatorOf,
  ipAllocatorSnapshot,
  portAllocatorOf,
  portAllocatorSnapshot,
  validateObjectCreate,
  validateObjectUpdate,
  validateServiceCreate,
  validateServiceUpdate,
  validateStatusUpdate,
  type AdapterError,
  type ClusterNetworking,
  type IPAllocator,
  type PortAllocator,
  type ValidationResult,
} from './pure-adapters.js';
import {
  groupResource,
  listPrefix,
  NAMESPACED_RESOURCES,
  objectKey,
  RESOURCES,
  SECONDARY_SERVICE_IPS_KEY,
  SERVICE_IPS_KEY,
  SERVICE_NODE_PORTS_KEY,
  type ResourceInfo,
  type ResourceName,
} from './resources.js';
import { heldBy, isEmpty, NOTHING, planCreate, planUpdate, release, type AllocState, type Held, type PlanResult } from './service-alloc.js';

export type RegistryResult<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: ApiError };

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
  /** `'status'` patches through the /status subresource (registry.updateStatus). */
  readonly subresource?: 'status';
}

export interface DeleteCollectionOptions {
  readonly predicate?: (object: KubeObject) => boolean;
}

export interface ObjectList<T extends KubeObject = KubeObject> {
  readonly apiVersion: string;
  readonly kind: string;
  readonly metadata: { readonly resourceVersion: string; readonly continue?: string };
  readonly items: readonly T[];
}

export interface DeleteOptions {
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
}

/** What a delete did: the object is gone, or (a namespace) it is now Terminating. */
export interface DeleteOutcome<T extends KubeObject = KubeObject> {
  readonly object: T;
  /** False when the object still exists, being finalized (a namespace). */
  readonly deleted: boolean;
}

/**
 * The namespaces NamespaceLifecycle admission never lets be deleted.
 * upstream: staging/src/k8s.io/apiserver/pkg/admission/plugin/namespace/lifecycle/admission.go
 *           (Register: metav1.NamespaceDefault, NamespaceSystem, NamespacePublic)
 */
export const IMMORTAL_NAMESPACES: ReadonlySet<string> = new Set(['default', 'kube-system', 'kube-public']);

/** The resources with a /status subresource. */
export const STATUS_RESOURCES: ReadonlySet<string> = new Set(['services', 'pods', 'nodes']);

/** The patch types in the order kube-apiserver lists them in its 415 (upstream: endpoints/installer.go). */
const PATCH_TYPE_ORDER = ['application/json-patch+json', 'application/merge-patch+json', 'application/strategic-merge-patch+json', 'application/apply-patch+yaml'];

function patchTypesInOrder(types: readonly string[]): string[] {
  const rank = (t: string) => {
    const i = PATCH_TYPE_ORDER.indexOf(t);
    return i < 0 ? PATCH_TYPE_ORDER.length : i;
  };
  return [...types].sort((a, b) => rank(a) - rank(b));
}

const MAX_GENERATE_NAME_ATTEMPTS = 8;
const MAX_RETRIES = 16;
/**
 * Attempts of one allocation or release CAS on the range objects. Upstream's GuaranteedUpdate
 * retries a conflict until the request's deadline, with no count: several apiservers creating at
 * once on etcd lose far more than MAX_RETRIES rounds in a row (measured: 19 of 250 creates failed
 * with 16 at 3 apiservers x 4 clients). The bound only stops a broken store from spinning.
 * upstream: pkg/registry/core/service/allocator/storage/storage.go (tryUpdate through
 *           GuaranteedUpdate), staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go
 */
const MAX_RANGE_CAS_ATTEMPTS = 1000;

/** How the compare-and-swaps on the range objects went since the registry opened. */
export interface RangeCasStats {
  /** Range writes attempted (a CAS on every range key the operation changes). */
  readonly attempts: number;
  /** Of those, the ones that lost to another writer: each one a re-read and a retry. */
  readonly conflicts: number;
}

function ok<T>(value: T): RegistryResult<T> {
  return { ok: true, value };
}

function fail(error: ApiError): { readonly ok: false; readonly error: ApiError } {
  return { ok: false, error };
}

function metaOf(object: KubeObject): ObjectMeta {
  return (object as { metadata?: ObjectMeta }).metadata ?? {};
}

function withMeta<T extends KubeObject>(object: T, meta: ObjectMeta): T {
  return { ...object, metadata: meta } as T;
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A list's store failure: a continue token past the compaction is 410 Expired with upstream's text. */
function listFailure(e: unknown, token: string | undefined): ApiError {
  if (e instanceof ErrCompacted && token !== undefined) {
    return expiredError(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
  }
  return storeFailure(e);
}

function storeFailure(e: unknown): ApiError {
  if (e instanceof ErrCompacted) {
    return expiredError(`The resourceVersion for the provided list is too old.`);
  }
  return internalError(e instanceof Error ? e.message : String(e));
}

/** The ranges' keys, by CIDR index, and the node ports. */
const IP_KEYS = [SERVICE_IPS_KEY, SECONDARY_SERVICE_IPS_KEY] as const;

interface RangeView {
  readonly state: AllocState;
  /** The modRevision each range key had (0: absent), for the CAS. */
  readonly revisions: ReadonlyMap<string, number>;
  /** Each key's snapshot bytes at full length, once computed (see fullSnapshotBytes). */
  readonly mirrors: ({ readonly range: string; readonly bytes: Uint8Array } | undefined)[];
}

/** A Service create's or update's allocation: planned against the ranges, then written. */
type AllocPlan = (state: AllocState, rng: Rng) => PlanResult;

interface Allocated {
  readonly service: Service;
  readonly held: Held;
  readonly toRelease: Held;
}

interface PendingAlloc {
  readonly plan: AllocPlan;
  readonly resolve: (r: RegistryResult<Allocated>) => void;
  readonly reject: (e: unknown) => void;
}

/** What an operation set and cleared, to flip in the snapshot bytes. */
interface Delta {
  readonly set: Held;
  readonly clear: Held;
}

/** The stored RangeAllocation for full-length bytes: leading zero bytes dropped, standard base64. */
function encodeRange(range: string, bytes: Uint8Array): string {
  let first = 0;
  while (first < bytes.length && bytes[first] === 0) first++;
  const data = Buffer.from(bytes.buffer, bytes.byteOffset + first, bytes.length - first).toString('base64');
  // JSON.stringify would scan the (kilobytes of) base64 for characters to escape; it has none.
  return `{"apiVersion":"v1","kind":"RangeAllocation","metadata":{},"range":${JSON.stringify(range)},"data":"${data}"}`;
}

function flip(bytes: Uint8Array, offset: number, on: boolean): void {
  if (offset < 0) return;
  const index = bytes.length - 1 - (offset >> 3);
  const mask = 1 << (offset & 7);
  const b = bytes[index] ?? 0;
  bytes[index] = on ? b | mask : b & ~mask;
}


/** Where a list page starts: the revision and key a continue token names, nothing for a first page, or 'invalid'. */
function resumePoint(token: string | undefined, prefix: string): { revision: number | undefined; start: string | undefined } | 'invalid' {
  if (token === undefined || token === '') return { revision: undefined, start: undefined };
  const decoded = decodeContinue(token, prefix);
  return decoded === undefined ? 'invalid' : { revision: decoded.rv, start: decoded.start };
}

export class Registry {
  readonly store: Store;
  readonly clock: Clock;
  readonly net: ClusterNetworking;
  private rng: Rng;
  private readonly crashHook: CrashHook | undefined;
  private readonly patchers: Readonly<Record<string, Patcher>>;
  private readonly eventLoopSliceMs: number;
  private rangeCache: RangeView | undefined;
  private rangeCas = { attempts: 0, conflicts: 0 };
  /** Allocations waiting for the next batch (see allocate). */
  private readonly allocQueue: PendingAlloc[] = [];
  private allocRunning = false;
  /** The RangeAllocation keys: one per service CIDR (primary first), then the node ports. */
  private readonly rangeKeys: readonly string[];

  constructor(options: RegistryOptions, net: ClusterNetworking) {
    this.store = options.store;
    this.clock = options.clock;
    this.net = net;
    this.rangeKeys = [...IP_KEYS.slice(0, net.serviceCIDRs.length), SERVICE_NODE_PORTS_KEY];
    this.rng = seededRng(options.seed);
    this.crashHook = options.crashHook;
    this.patchers = { ...DEFAULT_PATCHERS, ...options.patchers };
    this.eventLoopSliceMs = options.eventLoopSliceMs ?? DEFAULT_EVENT_LOOP_SLICE_MS;
  }

  /** The range CAS counters (for the benchmarks and the HA tests). */
  rangeCasStats(): RangeCasStats {
    return { ...this.rangeCas };
  }

  // --- reads -------------------------------------------------------------------------------

  async get<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string): Promise<RegistryResult<T>> {
    const info = RESOURCES[resource];
    try {
      const { kv } = await this.store.get(objectKey(info, namespace, name));
      if (kv === undefined) return fail(notFoundError(groupResource(info), name));
      return ok(deserializeObject<T>(kv));
    } catch (e) {
      return fail(storeFailure(e));
    }
  }

  /** A page of objects in key order, at one revision; `continue` resumes at that revision. */
  async list<T extends KubeObject = KubeObject>(resource: ResourceName, namespace?: string, options: ListOptions = {}): Promise<RegistryResult<ObjectList<T>>> {
    const info = RESOURCES[resource];
    const prefix = listPrefix(info, namespace);
    const resume = resumePoint(options.continue, prefix);
    if (resume === 'invalid') return fail(badRequestError(`invalid continue token`));
    let { revision, start } = resume;
    const accept = options.predicate;
    try {
      const limit = options.limit ?? 0;
      const items: T[] = [];
      let more = false;
      let nextKey: string | undefined;
      // upstream etcd3 store GetList: with a predicate, read on (at the same revision) until the
      // page holds `limit` matching objects or the keys run out.
      for (;;) {
        const page = await this.store.range(prefix, {
          ...(limit > 0 ? { limit: accept === undefined ? limit : Math.max(limit, 64) } : {}),
          ...(start === undefined ? {} : { continueKey: start }),
          ...(revision === undefined ? {} : { revision }),
        });
        revision ??= page.revision;
        let cut = false;
        for (const [i, kv] of page.kvs.entries()) {
          const object = deserializeObject<T>(kv);
          if (accept !== undefined && !accept(object)) continue;
          items.push(object);
          if (limit > 0 && items.length >= limit) {
            cut = true;
            more = i < page.kvs.length - 1 || page.more;
            nextKey = `${kv.key}\u0000`;
            break;
          }
        }
        if (cut || !page.more) break;
        const last = page.kvs[page.kvs.length - 1];
        if (last === undefined) break;
        start = `${last.key}\u0000`;
      }
      const rv = revision;
      const metadata: { resourceVersion: string; continue?: string } = { resourceVersion: String(rv) };
      if (more && nextKey !== undefined) metadata.continue = encodeContinue(rv, nextKey, prefix);
      return ok({ apiVersion: info.apiVersion, kind: `${info.kind}List`, metadata, items });
    } catch (e) {
      return fail(listFailure(e, options.continue));
    }
  }

  /**
   * The JSON text of what list() returns without a predicate, written from the stored values
   * without parsing them (serializedForReader): the API's plain list, where every object
   * would be parsed only to be written out again.
   */
  async listJson(resource: ResourceName, namespace?: string, options: Omit<ListOptions, 'predicate'> = {}): Promise<RegistryResult<string>> {
    const info = RESOURCES[resource];
    const prefix = listPrefix(info, namespace);
    const resume = resumePoint(options.continue, prefix);
    if (resume === 'invalid') return fail(badRequestError(`invalid continue token`));
    const { revision, start } = resume;
    try {
      // Without a predicate, one read is the page (list() reads on only to fill a filtered page).
      const limit = options.limit ?? 0;
      const page = await this.store.range(prefix, {
        ...(limit > 0 ? { limit } : {}),
        ...(start === undefined ? {} : { continueKey: start }),
        ...(revision === undefined ? {} : { revision }),
      });
      const rv = revision ?? page.revision;
      const last = page.kvs[page.kvs.length - 1];
      const metadata: { resourceVersion: string; continue?: string } = { resourceVersion: String(rv) };
      if (limit > 0 && page.kvs.length >= limit && page.more && last !== undefined) metadata.continue = encodeContinue(rv, `${last.key}\u0000`, prefix);
      const items = page.kvs.map(serializedForReader).join(',');
      return ok(`{"apiVersion":${JSON.stringify(info.apiVersion)},"kind":${JSON.stringify(`${info.kind}List`)},"metadata":${JSON.stringify(metadata)},"items":[${items}]}`);
    } catch (e) {
      return fail(listFailure(e, options.continue));
    }
  }

  // --- create ------------------------------------------------------------------------------

  /** Creates `object` (already decoded) in `namespace` (ignored for namespaces). */
  async create<T extends KubeObject>(resource: ResourceName, namespace: string, object: T, options: CreateOptions = {}): Promise<RegistryResult<T>> {
    const info = RESOURCES[resource];
    const meta = metaOf(object);
    if (options.name !== undefined && meta.name !== undefined && meta.name !== '' && meta.name !== options.name) {
      return fail(badRequestError(`the name of the object (${meta.name}) does not match the name on the URL (${options.name})`));
    }
    // rest.BeforeCreate: a namespaced object lives in the request's namespace; a cluster-scoped one in none.
    let ns = '';
    if (info.namespaced) {
      if (meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== namespace) {
        return fail(badRequestError('the namespace of the provided object does not match the namespace sent on the request'));
      }
      ns = namespace;
    }
    try {
      const nsCheck = info.namespaced ? await this.checkNamespace(info, ns, meta.name ?? '', meta.generateName ?? '') : ok({ revision: 0 });
      if (!nsCheck.ok) return nsCheck;

      let prepared = this.prepareCreate(info, object, ns);
      const base = metaOf(prepared);
      const generated = (base.name ?? '') === '' && (base.generateName ?? '') !== '';
      if (generated) prepared = withMeta(prepared, { ...base, name: this.nextName(base.generateName ?? '') });

      if (info.kind === 'Service') {
        return (await this.createService(info, prepared as Service, nsCheck.value.revision, generated)) as RegistryResult<T>;
      }
      const validated = validateObjectCreate(prepared);
      if (!validated.ok) return fail(invalidError(info.kind === 'EndpointSlice' ? { group: info.group, kind: info.kind } : info.kind, metaOf(prepared).name ?? '', validated.errors));
      return await this.persistCreate(info, validated.value, nsCheck.value.revision, generated);
    } catch (e) {
      if (e instanceof Error && e.name === 'SimulatedCrash') throw e;
      return fail(storeFailure(e));
    }
  }

  private nextName(base: string): string {
    const [name, rng] = generateName(base, this.rng);
    this.rng = rng;
    return name;
  }

  /** FillObjectMetaSystemFields and the kind's PrepareForCreate. */
  private prepareCreate<T extends KubeObject>(info: ResourceInfo, object: T, namespace: string): T {
    const [uid, rng] = generateUID(this.rng);
    this.rng = rng;
    const { deletionTimestamp: _d, deletionGracePeriodSeconds: _g, generation: _gen, namespace: _ns, ...rest } = metaOf(object);
    const meta: ObjectMeta = { ...rest, uid, creationTimestamp: formatTimestamp(this.clock.now()) };
    if (info.namespaced) meta.namespace = namespace;
    let out = withMeta(object, meta) as KubeObject;
    switch (out.kind) {
      case 'Service':
        out = { ...out, status: { loadBalancer: {} } };
        break;
      case 'Namespace': {
        const finalizers = out.spec?.finalizers ?? [];
        out = { ...out, spec: { ...out.spec, finalizers: finalizers.includes('kubernetes') ? finalizers : [...finalizers, 'kubernetes'] }, status: { phase: 'Active' } };
        break;
      }
      case 'Pod':
        out = { ...out, status: { phase: 'Pending' } };
        break;
      case 'EndpointSlice':
        out = withMeta(out, { ...metaOf(out), generation: 1 });
        break;
      default:
        break;
    }
    return out as T;
  }

  private async createService(info: ResourceInfo, service: Service, nsRevision: number, generated: boolean): Promise<RegistryResult<Service>> {
    const validated = validateServiceCreate(service, this.net);
    if (!validated.ok) return fail(invalidError('Service', service.metadata.name ?? '', validated.errors));
    const planned = await this.allocate((state, rng) => planCreate(validated.value, state, rng, this.net));
    if (!planned.ok) return planned;
    const { service: allocated, held } = planned.value;
    this.crash('service-create:after-allocate');
    let result: RegistryResult<Service>;
    try {
      result = await this.persistCreate(info, allocated, nsRevision, generated);
    } catch (e) {
      if (e instanceof Error && e.name === 'SimulatedCrash') throw e;
      result = fail(storeFailure(e));
    }
    // finishCreate(false): a write that failed gives its allocation back.
    if (!result.ok && !isEmpty(held)) await this.releaseHeld(held);
    return result;
  }

  /** The txn that creates the key, guarded by "absent" and by the namespace being as checked. */
  private async persistCreate<T extends KubeObject>(info: ResourceInfo, object: T, nsRevision: number, generated: boolean): Promise<RegistryResult<T>> {
    // The etcd3 store's Create, after validation and allocation (a Service's allocation is
    // then given back, as on any failed write). upstream: staging/src/k8s.io/apiserver/pkg/
    // storage/etcd3/store.go Create, APIObjectVersioner.ObjectResourceVersion.
    if (isSetResourceVersion(metaOf(object).resourceVersion)) return fail(unknownError('resourceVersion should not be set on objects to be created'));
    let current = object;
    let nsRev = nsRevision;
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      const meta = metaOf(current);
      const name = meta.name ?? '';
      const key = objectKey(info, meta.namespace ?? '', name);
      const nsKey = objectKey(RESOURCES.namespaces, '', meta.namespace ?? '');
      const compares: Compare[] = [{ key, target: 'createRevision', op: '=', value: 0 }];
      if (info.namespaced) compares.push({ key: nsKey, target: 'modRevision', op: '=', value: nsRev });
      const r = await this.commit(`create ${info.resource}`, compares, [{ kind: 'put', key, value: serializeObject(current) }], [
        { kind: 'get', key },
        ...(info.namespaced ? [{ kind: 'get' as const, key: nsKey }] : []),
      ]);
      if (r.succeeded) return ok(withMeta(current, { ...meta, resourceVersion: String(r.revision) }));
      const existing = r.results[0];
      if (existing?.kind === 'get' && existing.kv !== undefined) {
        if (!generated || attempt + 1 >= MAX_GENERATE_NAME_ATTEMPTS) {
          return fail(generated ? generateNameConflictError(groupResource(info), name, 1) : alreadyExistsError(groupResource(info), name));
        }
        current = withMeta(current, { ...meta, name: this.nextName(meta.generateName ?? '') });
        continue;
      }
      // The namespace changed under us: check it again.
      // Admission saw the object before its name was generated.
      const check = await this.checkNamespace(info, meta.namespace ?? '', generated ? '' : name, meta.generateName ?? '');
      if (!check.ok) return check;
      nsRev = check.value.revision;
    }
    return fail(internalError(`too many conflicts creating ${info.resource} ${JSON.stringify(metaOf(current).name ?? '')}`));
  }

  /**
   * NamespaceLifecycle admission: the namespace must exist and not be terminating. The
   * Forbidden names the object as admission.NewForbidden does (its name, else its
   * generateName, else "Unknown") and carries the NamespaceTerminating cause.
   * upstream: staging/src/k8s.io/apiserver/pkg/admission/errors.go (extractResourceName)
   */
  private async checkNamespace(info: ResourceInfo, namespace: string, name: string, generateName = ''): Promise<RegistryResult<{ revision: number }>> {
    const { kv } = await this.store.get(objectKey(RESOURCES.namespaces, '', namespace));
    if (kv === undefined) return fail(notFoundError(groupResource(RESOURCES.namespaces), namespace));
    const ns = JSON.parse(kv.value) as Namespace;
    if (ns.status?.phase === 'Terminating') {
      const named = name !== '' ? name : generateName !== '' ? generateName : 'Unknown';
      return fail(
        forbiddenError(groupResource(info), named, `unable to create new content in namespace ${namespace} because it is being terminated`, [
          { reason: 'NamespaceTerminating', message: `namespace ${namespace} is being terminated`, field: 'metadata.namespace' },
        ]),
      );
    }
    return ok({ revision: kv.modRevision });
  }

  // --- update ------------------------------------------------------------------------------

  /** Replaces the object (already decoded); an empty resourceVersion means "whatever is stored". */
  async update<T extends KubeObject>(resource: ResourceName, namespace: string, name: string, object: T): Promise<RegistryResult<T>> {
    const r = await this.updateOrCreate(resource, namespace, name, object);
    return r.ok ? ok(r.value.object) : r;
  }

  /**
   * update, saying whether the object was created: a kind that allows create on update
   * (Endpoints, Events) creates a missing object, and the API answers that with 201, as
   * upstream's update handler does when its storage reports wasCreated.
   * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/update.go
   */
  async updateOrCreate<T extends KubeObject>(resource: ResourceName, namespace: string, name: string, object: T): Promise<RegistryResult<{ readonly object: T; readonly created: boolean }>> {
    const info = RESOURCES[resource];
    const gr = groupResource(info);
    const meta = metaOf(object);
    if ((meta.name ?? '') !== name) {
      return fail(badRequestError(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name})`));
    }
    const ns = info.namespaced ? namespace : '';
    if (info.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== ns) {
      return fail(badRequestError('the namespace of the provided object does not match the namespace sent on the request'));
    }
    const wanted = meta.resourceVersion ?? '';
    // The body's uid is a precondition (rest.defaultUpdatedObjectInfo.Preconditions), checked
    // by the storage before the update function runs, so before the resourceVersion.
    const uid = meta.uid ?? '';
    const key = objectKey(info, ns, name);
    try {
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const { kv } = await this.store.get(key);
        if (kv === undefined) {
          if (!info.createOnUpdate) return fail(notFoundError(gr, name));
          if (uid !== '') return fail(uidPreconditionFailed(gr, name, key, uid, ''));
          if (wanted !== '') return fail(notFoundError(gr, name));
          const { resourceVersion: _rv, ...rest } = meta;
          const created = await this.create(resource, ns, withMeta(object, rest));
          return created.ok ? ok({ object: created.value, created: true }) : created;
        }
        const old = deserializeObject<T>(kv);
        const storedUID = metaOf(old).uid ?? '';
        if (uid !== '' && uid !== storedUID) return fail(uidPreconditionFailed(gr, name, key, uid, storedUID));
        if (wanted !== '' && wanted !== String(kv.modRevision)) return fail(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
        // Every kind served here allows unconditional updates (AllowUnconditionalUpdate is true
        // in each one's strategy): an update without a resourceVersion is given the stored one
        // before validation, which otherwise refuses it as "must be specified for an update".
        // upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go (Update,
        //           doUnconditionalUpdate)
        const body = wanted === '' ? withMeta(object, { ...meta, resourceVersion: String(kv.modRevision) }) : object;
        const result = await this.updateOnce(info, body, old, kv);
        if (result === 'conflict') {
          if (wanted !== '') return fail(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
          continue;
        }
        return result.ok ? ok({ object: result.value, created: false }) : result;
      }
      return fail(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
    } catch (e) {
      if (e instanceof Error && e.name === 'SimulatedCrash') throw e;
      return fail(storeFailure(e));
    }
  }

  /** rest.BeforeUpdate and the kind's PrepareForUpdate. */
  private prepareUpdate<T extends KubeObject>(info: ResourceInfo, object: T, old: T): T {
    const oldMeta = metaOf(old);
    const meta: ObjectMeta = { ...metaOf(object) };
    if (info.namespaced) meta.namespace = oldMeta.namespace ?? '';
    else delete meta.namespace;
    if (oldMeta.generation === undefined) delete meta.generation;
    else meta.generation = oldMeta.generation;
    if ((meta.uid ?? '') === '' && oldMeta.uid !== undefined) meta.uid = oldMeta.uid;
    if (oldMeta.creationTimestamp) meta.creationTimestamp = oldMeta.creationTimestamp;
    if (oldMeta.deletionTimestamp) meta.deletionTimestamp = oldMeta.deletionTimestamp;
    else delete meta.deletionTimestamp;
    let out = withMeta(object, meta) as KubeObject;
    if (out.kind === 'Namespace' && old.kind === 'Namespace') {
      out = { ...out, spec: { ...out.spec, ...(old.spec?.finalizers ? { finalizers: old.spec.finalizers } : {}) } };
      out = old.status === undefined ? out : { ...out, status: old.status };
    }
    // The main resource never writes status; /status does (PrepareForUpdate of all three kinds).
    // upstream: pkg/registry/core/pod/strategy.go, pkg/registry/core/service/strategy.go,
    //           pkg/registry/core/node/strategy.go
    if (out.kind === 'Node' && old.kind === 'Node') {
      const { status: _s, ...rest } = out;
      out = old.status === undefined ? rest : { ...rest, status: old.status };
    }
    if (out.kind === 'Pod' && old.kind === 'Pod') {
      const { status: _s, ...rest } = out;
      out = old.status === undefined ? rest : { ...rest, status: old.status };
    }
    if (out.kind === 'Service' && old.kind === 'Service') {
      const { status: _s, ...rest } = out;
      out = old.status === undefined ? rest : { ...rest, status: old.status };
    }
    return out as T;
  }

  /**
   * The status strategy's PrepareForUpdate: everything but the status comes from the stored
   * object's spec (a Pod's owner references too); metadata follows rest.BeforeUpdate.
   * upstream: pkg/registry/core/service/strategy.go (serviceStatusStrategy.PrepareForUpdate),
   *           pkg/registry/core/pod/strategy.go (podStatusStrategy.PrepareForUpdate)
   */
  private prepareStatusUpdate<T extends KubeObject>(info: ResourceInfo, object: T, old: T): T {
    const base = this.prepareUpdate(info, object, old) as unknown as Record<string, unknown>;
    const stored = old as unknown as Record<string, unknown>;
    const incoming = object as unknown as Record<string, unknown>;
    const out: Record<string, unknown> = { ...base };
    if (stored['spec'] === undefined) delete out['spec'];
    else out['spec'] = stored['spec'];
    if (incoming['status'] === undefined) delete out['status'];
    else out['status'] = incoming['status'];
    if (info.kind === 'Pod') {
      const meta: ObjectMeta = { ...metaOf(base as unknown as KubeObject) };
      const oldOwners = metaOf(old).ownerReferences;
      if (oldOwners === undefined) delete meta.ownerReferences;
      else meta.ownerReferences = oldOwners;
      out['metadata'] = meta;
    }
    return out as unknown as T;
  }

  /**
   * Writes an object through its /status subresource (services, pods): the status is taken
   * from `object`, the spec stays as stored. Preconditions as for update.
   */
  async updateStatus<T extends KubeObject>(resource: ResourceName, namespace: string, name: string, object: T): Promise<RegistryResult<T>> {
    const info = RESOURCES[resource];
    const gr = groupResource(info);
    if (!STATUS_RESOURCES.has(resource)) return fail(notFoundError(gr, name));
    const meta = metaOf(object);
    if ((meta.name ?? '') !== name) {
      return fail(badRequestError(`the name of the object (${meta.name ?? ''}) does not match the name on the URL (${name})`));
    }
    const ns = info.namespaced ? namespace : '';
    if (info.namespaced && meta.namespace !== undefined && meta.namespace !== '' && meta.namespace !== ns) {
      return fail(badRequestError('the namespace of the provided object does not match the namespace sent on the request'));
    }
    const wanted = meta.resourceVersion ?? '';
    const uid = meta.uid ?? '';
    const key = objectKey(info, ns, name);
    try {
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const { kv } = await this.store.get(key);
        if (kv === undefined) return fail(notFoundError(gr, name));
        const old = deserializeObject<T>(kv);
        const storedUID = metaOf(old).uid ?? '';
        if (uid !== '' && uid !== storedUID) return fail(uidPreconditionFailed(gr, name, key, uid, storedUID));
        if (wanted !== '' && wanted !== String(kv.modRevision)) return fail(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
        const prepared = this.prepareStatusUpdate(info, object, old);
        const validated = validateStatusUpdate(prepared, old);
        if (!validated.ok) return fail(invalidError(info.kind, name, validated.errors));
        const result = await this.persistUpdate(info, validated.value, kv);
        if (result === 'conflict') {
          if (wanted !== '') return fail(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
          continue;
        }
        return result;
      }
      return fail(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
    } catch (e) {
      if (e instanceof Error && e.name === 'SimulatedCrash') throw e;
      return fail(storeFailure(e));
    }
  }

  private async updateOnce<T extends KubeObject>(info: ResourceInfo, object: T, old: T, kv: KeyValue): Promise<RegistryResult<T> | 'conflict'> {
    const prepared = this.prepareUpdate(info, object, old);
    const name = metaOf(prepared).name ?? '';
    const kind = info.kind === 'EndpointSlice' ? { group: info.group, kind: info.kind } : info.kind;
    if (info.kind === 'Service') {
      return (await this.updateService(info, prepared as Service, old as Service, kv)) as RegistryResult<T> | 'conflict';
    }
    const validated: ValidationResult<T> = validateObjectUpdate(prepared, old);
    if (!validated.ok) return fail(invalidError(kind, name, validated.errors));
    // The generation compares the defaulted object, as upstream's strategy sees the decoded one.
    const updated: KubeObject = validated.value;
    const next = updated.kind === 'EndpointSlice' && old.kind === 'EndpointSlice' ? bumpSliceGeneration(updated, old) : updated;
    return this.persistUpdate(info, next as T, kv);
  }

  private async persistUpdate<T extends KubeObject>(info: ResourceInfo, object: T, kv: KeyValue): Promise<RegistryResult<T> | 'conflict'> {
    const value = serializeObject(object);
    const meta = metaOf(object);
    // An update that changes nothing writes nothing (GuaranteedUpdate's no-op check).
    if (value === kv.value) return ok(withMeta(object, { ...meta, resourceVersion: String(kv.modRevision) }));
    const r = await this.commit(`update ${info.resource}`, [{ key: kv.key, target: 'modRevision', op: '=', value: kv.modRevision }], [{ kind: 'put', key: kv.key, value }]);
    if (!r.succeeded) return 'conflict';
    return ok(withMeta(object, { ...meta, resourceVersion: String(r.revision) }));
  }

  private async updateService(info: ResourceInfo, service: Service, old: Service, kv: KeyValue): Promise<RegistryResult<Service> | 'conflict'> {
    const validated = validateServiceUpdate(service, old, this.net);
    if (!validated.ok) return fail(invalidError('Service', service.metadata.name ?? '', validated.errors));
    const planned = await this.allocate((state, rng) => planUpdate(validated.value, old, state, rng, this.net));
    if (!planned.ok) return planned;
    const { service: next, held, toRelease } = planned.value;
    if (!isEmpty(held)) this.crash('service-update:after-allocate');
    let result: RegistryResult<Service> | 'conflict';
    try {
      result = await this.persistUpdate(info, next, kv);
    } catch (e) {
      if (e instanceof Error && e.name === 'SimulatedCrash') throw e;
      result = fail(storeFailure(e));
    }
    if (result === 'conflict' || !result.ok) {
      if (!isEmpty(held)) await this.releaseHeld(held);
      return result;
    }
    if (!isEmpty(toRelease)) {
      this.crash('service-update:after-persist');
      await this.releaseHeld(toRelease);
    }
    return result;
  }

  // --- patch -------------------------------------------------------------------------------

  /** Applies a patch document to the stored object and updates it; retried on conflict unless the patch names a resourceVersion. */
  async patch<T extends KubeObject>(
    resource: ResourceName,
    namespace: string,
    name: string,
    patchType: PatchType,
    patch: string,
    options: PatchOptions = {},
  ): Promise<RegistryResult<T>> {
    const info = RESOURCES[resource];
    const patcher = this.patchers[patchType];
    if (patcher === undefined) return fail(unsupportedMediaTypeError(patchTypesInOrder(Object.keys(this.patchers))));
    if (options.subresource === 'status' && !STATUS_RESOURCES.has(resource)) return fail(notFoundError(groupResource(info), name));
    for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
      const current = await this.get<T>(resource, namespace, name);
      if (!current.ok) return current;
      const patched = patcher(current.value, patch);
      if (!patched.ok) return patched;
      if (!isRecord(patched.value)) return fail(badRequestError('the patched object is not a JSON object'));
      const decoded = decodeValue(info, patched.value, options.fieldValidation ?? DEFAULT_FIELD_VALIDATION);
      if (!decoded.ok) return decoded;
      const patchedRV = metaOf(decoded.value.object).resourceVersion ?? '';
      const pinned = patchedRV !== metaOf(current.value).resourceVersion;
      const result =
        options.subresource === 'status'
          ? await this.updateStatus(resource, namespace, name, decoded.value.object as T)
          : await this.update(resource, namespace, name, decoded.value.object as T);
      if (!result.ok && result.error._tag === 'Conflict' && !pinned) continue;
      return result;
    }
    return fail(conflictError(groupResource(info), name, OPTIMISTIC_LOCK_ERROR_MSG));
  }

  // --- delete ------------------------------------------------------------------------------

  async delete<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string, options: DeleteOptions = {}): Promise<RegistryResult<DeleteOutcome<T>>> {
    const info = RESOURCES[resource];
    const gr = groupResource(info);
    // NamespaceLifecycle admission runs before the storage reads anything: the immortal
    // namespaces are refused whether or not they exist.
    if (resource === 'namespaces' && IMMORTAL_NAMESPACES.has(name)) return fail(forbiddenError(gr, name, 'this namespace may not be deleted'));
    const key = objectKey(info, info.namespaced ? namespace : '', name);
    try {
      for (let attempt = 0; attempt < MAX_RETRIES; attempt++) {
        const { kv } = await this.store.get(key);
        if (kv === undefined) return fail(notFoundError(gr, name));
        const object = deserializeObject<T>(kv);
        const refused = preconditionFailure(info, name, options.preconditions, metaOf(object).uid ?? '', String(kv.modRevision));
        if (refused !== undefined) return fail(refused);
        if (object.kind === 'Namespace') {
          const r = await this.deleteNamespace(object, kv);
          if (r === 'conflict') continue;
          return r as RegistryResult<DeleteOutcome<T>>;
        }
        const ops: TxnOp[] = [{ kind: 'delete', key }];
        // upstream afterDelete: a Service's Endpoints of the same name go with it.
        if (object.kind === 'Service') ops.push({ kind: 'delete', key: objectKey(RESOURCES.endpoints, namespace, name) });
        const r = await this.commit(`delete ${resource}`, [{ key, target: 'modRevision', op: '=', value: kv.modRevision }], ops);
        if (!r.succeeded) continue;
        if (object.kind === 'Service') {
          const held = heldBy(object);
          if (!isEmpty(held)) {
            this.crash('service-delete:after-persist');
            await this.releaseHeld(held);
          }
        }
        return ok({ object, deleted: true });
      }
      return fail(conflictError(gr, name, OPTIMISTIC_LOCK_ERROR_MSG));
    } catch (e) {
      if (e instanceof Error && e.name === 'SimulatedCrash') throw e;
      return fail(storeFailure(e));
    }
  }

  /**
   * Deletes every object of the list (one namespace, or all) that `predicate` accepts, one by
   * one, and returns the list of what it deleted; an object gone meanwhile is skipped.
   * upstream: staging/src/k8s.io/apiserver/pkg/registry/generic/registry/store.go DeleteCollection
   */
  async deleteCollection<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, options: DeleteCollectionOptions = {}): Promise<RegistryResult<ObjectList<T>>> {
    // A storage without DeleteCollection has no route for it: 405 before anything is read.
    if (!RESOURCES[resource].deleteCollection) return fail(methodNotAllowedError());
    const listed = await this.list<T>(resource, namespace, options.predicate === undefined ? {} : { predicate: options.predicate });
    if (!listed.ok) return listed;
    const deleted: T[] = [];
    const turns = new EventLoopTurns(this.eventLoopSliceMs);
    for (const item of listed.value.items) {
      await turns.turn();
      const meta = metaOf(item);
      const r = await this.delete<T>(resource, meta.namespace ?? '', meta.name ?? '', { preconditions: { uid: meta.uid ?? '' } });
      if (r.ok) deleted.push(r.value.object);
      else if (r.error._tag !== 'NotFound' && r.error._tag !== 'Conflict') return r;
    }
    return ok({ ...listed.value, items: deleted });
  }

  /** Namespace Delete: the first makes it Terminating; with finalizers left, later ones conflict. */
  private async deleteNamespace(ns: Namespace, kv: KeyValue): Promise<RegistryResult<DeleteOutcome<Namespace>> | 'conflict'> {
    const name = ns.metadata.name ?? '';
    if (!ns.metadata.deletionTimestamp) {
      const terminating: Namespace = {
        ...ns,
        metadata: { ...ns.metadata, deletionTimestamp: formatTimestamp(this.clock.now()) },
        status: { ...ns.status, phase: 'Terminating' },
      };
      const r = await this.persistUpdate(RESOURCES.namespaces, terminating, kv);
      if (r === 'conflict') return 'conflict';
      if (!r.ok) return r;
      return ok({ object: r.value, deleted: false });
    }
    if ((ns.spec?.finalizers ?? []).length > 0) {
      return fail(
        conflictError(
          groupResource(RESOURCES.namespaces),
          name,
          'The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.',
        ),
      );
    }
    const r = await this.commit('delete namespaces', [{ key: kv.key, target: 'modRevision', op: '=', value: kv.modRevision }], [{ kind: 'delete', key: kv.key }]);
    if (!r.succeeded) return 'conflict';
    return ok({ object: ns, deleted: true });
  }

  /**
   * The namespace controller's step for one namespace: when it is Terminating, every object in
   * it is deleted (Services give back their IPs and ports), then the namespace itself.
   * Returns how many objects it deleted; a namespace that is absent or active is left alone.
   * upstream: pkg/controller/namespace/deletion/namespaced_resources_deleter.go
   */
  async finalizeNamespace(name: string): Promise<RegistryResult<{ readonly deletedObjects: number; readonly namespaceDeleted: boolean }>> {
    const ns = await this.get<Namespace>('namespaces', '', name);
    if (!ns.ok) return ns.error._tag === 'NotFound' ? ok({ deletedObjects: 0, namespaceDeleted: false }) : ns;
    if (!ns.value.metadata.deletionTimestamp) return ok({ deletedObjects: 0, namespaceDeleted: false });
    let deleted = 0;
    const turns = new EventLoopTurns(this.eventLoopSliceMs);
    for (const resource of NAMESPACED_RESOURCES) {
      const list = await this.list(resource, name);
      if (!list.ok) return list;
      for (const item of list.value.items) {
        await turns.turn();
        const r = await this.delete(resource, name, metaOf(item).name ?? '');
        if (!r.ok && r.error._tag !== 'NotFound') return r;
        if (r.ok) deleted++;
        this.crash('namespace-finalize:after-object-delete');
      }
    }
    try {
      const { kv } = await this.store.get(objectKey(RESOURCES.namespaces, '', name));
      if (kv === undefined) return ok({ deletedObjects: deleted, namespaceDeleted: false });
      // The controller empties spec.finalizers (/finalize); with none left the namespace goes.
      const r = await this.commit('finalize namespaces', [{ key: kv.key, target: 'modRevision', op: '=', value: kv.modRevision }], [{ kind: 'delete', key: kv.key }]);
      return ok({ deletedObjects: deleted, namespaceDeleted: r.succeeded });
    } catch (e) {
      if (e instanceof Error && e.name === 'SimulatedCrash') throw e;
      return fail(storeFailure(e));
    }
  }

  // --- allocation --------------------------------------------------------------------------

  /** The stored ranges, or a cached copy (checked by the CAS, refreshed when it fails). */
  private async readRanges(): Promise<RegistryResult<RangeView>> {
    const keys = this.rangeKeys;
    const r = await this.store.txn([], keys.map((key) => ({ kind: 'get', key })));
    return this.rangesFrom(keys, r);
  }

  private rangesFrom(keys: readonly string[], r: TxnResult): RegistryResult<RangeView> {
    const revisions = new Map<string, number>();
    const stored: (RangeAllocation | undefined)[] = [];
    keys.forEach((key, i) => {
      const res = r.results[i];
      const kv = res?.kind === 'get' ? res.kv : undefined;
      revisions.set(key, kv?.modRevision ?? 0);
      stored.push(kv === undefined ? undefined : (JSON.parse(kv.value) as RangeAllocation));
    });
    const ips = [];
    for (const [i, cidr] of this.net.serviceCIDRs.entries()) {
      const a = ipAllocatorOf(cidr, stored[i]);
      if (!a.ok) return fail(internalError(adapterMessage(a.error)));
      ips.push(a.value);
    }
    const ports = portAllocatorOf(this.net.portRange, stored[stored.length - 1]);
    if (!ports.ok) return fail(internalError(adapterMessage(ports.error)));
    return ok({ state: { ips, ports: ports.value }, revisions, mirrors: [] });
  }

  /**
   * Runs `plan` against the ranges and writes its result with a CAS on every range key, retried
   * with fresh ranges on conflict. Nothing is written when the plan fails or changes nothing.
   *
   * Plans are queued and run in batches: the allocations that arrive within one turn of the
   * event loop (concurrent API requests) are planned one after the other, each against the state
   * the previous one left, and written in ONE compare-and-swap of the range objects. A
   * RangeAllocation of a /12 is 128 KiB of bitmap, so one write per batch instead of one per
   * Service is most of a create's cost under load; each plan still sees exactly the state a
   * sequential run would give it, and a failed plan fails alone.
   */
  private allocate(plan: AllocPlan): Promise<RegistryResult<Allocated>> {
    return new Promise((resolve, reject) => {
      this.allocQueue.push({ plan, resolve, reject });
      if (this.allocQueue.length === 1 && !this.allocRunning) setImmediate(() => void this.drainAllocations());
    });
  }

  private async drainAllocations(): Promise<void> {
    this.allocRunning = true;
    try {
      while (this.allocQueue.length > 0) {
        const batch = this.allocQueue.splice(0);
        try {
          await this.allocateBatch(batch);
        } catch (e) {
          // A store failure or a simulated crash: every caller of the batch sees it.
          for (const p of batch) p.reject(e);
        }
      }
    } finally {
      this.allocRunning = false;
    }
  }

  private async allocateBatch(batch: readonly PendingAlloc[]): Promise<void> {
    const keys = this.rangeKeys;
    let view = this.rangeCache;
    let pending = batch;
    for (let attempt = 0; attempt < MAX_RANGE_CAS_ATTEMPTS; attempt++) {
      if (view === undefined) {
        const read = await this.readRanges();
        if (!read.ok) {
          for (const p of pending) p.resolve(read);
          return;
        }
        view = read.value;
      }
      let state = view.state;
      const writing: { readonly p: PendingAlloc; readonly value: Allocated }[] = [];
      const ips: Held['ips'][number][] = [];
      const ports: number[] = [];
      for (const p of pending) {
        const planned = p.plan(state, this.rng);
        this.rng = planned.rng;
        if (!planned.ok) {
          p.resolve(fail(planned.error));
          continue;
        }
        const value = { service: planned.service, held: planned.allocated, toRelease: planned.toRelease };
        if (isEmpty(planned.allocated)) {
          p.resolve(ok(value));
          continue;
        }
        state = planned.state;
        ips.push(...planned.allocated.ips);
        ports.push(...planned.allocated.ports);
        writing.push({ p, value });
      }
      if (writing.length === 0) return;
      const written = await this.writeRanges(keys, view, state, { set: { ips, ports }, clear: NOTHING }, 'allocate');
      if (written.ok) {
        this.rangeCache = written.value;
        for (const { p, value } of writing) p.resolve(ok(value));
        return;
      }
      view = written.fresh;
      pending = writing.map((w) => w.p);
    }
    for (const p of pending) p.resolve(fail(internalError('failed to allocate: too many conflicts on the range allocations')));
  }

  private async writeRanges(
    keys: readonly string[],
    view: RangeView,
    next: AllocState,
    delta: Delta,
    what: string,
  ): Promise<{ ok: true; value: RangeView } | { ok: false; fresh: RangeView | undefined }> {
    const compares: Compare[] = [];
    const puts: TxnOp[] = [];
    const current = [...view.state.ips, view.state.ports];
    const nextAll = [...next.ips, next.ports];
    const mirrors = [...view.mirrors];
    const portIndex = keys.length - 1;
    keys.forEach((key, i) => {
      const before = current[i];
      if (before === undefined || before === nextAll[i]) return;
      // The bytes before, then the bits this operation flipped.
      const base = mirrors[i] ?? fullSnapshotBytes(before);
      const bytes = base.bytes.slice();
      const apply = (held: Held, on: boolean) => {
        if (i === portIndex) {
          for (const port of held.ports) flip(bytes, nodePortOffset(view.state.ports, port), on);
        } else {
          const allocator = view.state.ips[i];
          if (allocator === undefined) return;
          for (const { family, ip } of held.ips) if (this.net.families[i] === family) flip(bytes, clusterIPOffset(allocator, ip), on);
        }
      };
      apply(delta.set, true);
      apply(delta.clear, false);
      mirrors[i] = { range: base.range, bytes };
      compares.push({ key, target: 'modRevision', op: '=', value: view.revisions.get(key) ?? 0 });
      puts.push({ kind: 'put', key, value: encodeRange(base.range, bytes) });
    });
    if (puts.length === 0) return { ok: true, value: view };
    this.rangeCache = undefined;
    const r = await this.commit(`${what} ranges`, compares, puts, keys.map((key) => ({ kind: 'get', key })));
    this.rangeCas.attempts++;
    if (!r.succeeded) {
      this.rangeCas.conflicts++;
      const fresh = this.rangesFrom(keys, r);
      return { ok: false, fresh: fresh.ok ? fresh.value : undefined };
    }
    const revisions = new Map(view.revisions);
    for (const op of puts) if (op.kind === 'put') revisions.set(op.key, r.revision);
    return { ok: true, value: { state: next, revisions, mirrors } };
  }

  /** Gives `held` back with a CAS, retried on conflict. */
  private async releaseHeld(held: Held): Promise<void> {
    const keys = this.rangeKeys;
    let view = this.rangeCache;
    for (let attempt = 0; attempt < MAX_RANGE_CAS_ATTEMPTS; attempt++) {
      if (view === undefined) {
        const read = await this.readRanges();
        if (!read.ok) return;
        view = read.value;
      }
      const written = await this.writeRanges(keys, view, release(view.state, held, this.net), { set: NOTHING, clear: held }, 'release');
      if (written.ok) {
        this.rangeCache = written.value;
        return;
      }
      view = written.fresh;
    }
    // Still held: the repair loop frees it on its third run.
  }

  /**
   * Writes empty RangeAllocation objects for the ranges that have none yet, as kube-apiserver
   * does when it starts (its allocators' CreateOrUpdate), so that later allocations and
   * releases always compare-and-swap an existing object. Idempotent.
   */
  async initRanges(): Promise<void> {
    const keys = this.rangeKeys;
    const empty = [...this.net.serviceCIDRs.map((cidr) => ipAllocatorOf(cidr, undefined)), portAllocatorOf(this.net.portRange, undefined)];
    const values = empty.map((a, i) => {
      if (!a.ok) throw new Error(a.error.message);
      return JSON.stringify(i < keys.length - 1 ? ipAllocatorSnapshot(a.value as IPAllocator) : portAllocatorSnapshot(a.value as PortAllocator));
    });
    for (const [i, key] of keys.entries()) {
      await this.store.txn([{ key, target: 'createRevision', op: '=', value: 0 }], [{ kind: 'put', key, value: values[i] ?? '' }]);
    }
  }

  /** Forgets the cached ranges (after another writer, such as the repair loop, changed them). */
  invalidateRangeCache(): void {
    this.rangeCache = undefined;
  }

  // --- plumbing ----------------------------------------------------------------------------

  private crash(point: CrashPoint, txn?: string, keys?: readonly string[]): void {
    if (this.crashHook === undefined) return;
    this.crashHook({ point, ...(txn === undefined ? {} : { txn }), ...(keys === undefined ? {} : { keys }) });
  }

  private async commit(name: string, compares: readonly Compare[], onSuccess: readonly TxnOp[], onFailure?: readonly TxnOp[]): Promise<TxnResult> {
    const multi = onSuccess.filter((op) => op.kind !== 'get').length > 1;
    const keys = multi ? onSuccess.map((op) => op.key) : undefined;
    if (multi) this.crash('txn:before-commit', name, keys);
    const r = await this.store.txn(compares, onSuccess, onFailure);
    if (multi && r.succeeded) this.crash('txn:after-commit', name, keys);
    return r;
  }
}

/**
 * The Conflict for delete preconditions that do not hold, or undefined. Namespaces have their
 * own Delete with its own text (upstream: pkg/registry/core/namespace/storage/storage.go
 * Delete); every other kind goes through rest.BeforeDelete, which names the resource by its
 * Kind (upstream: staging/src/k8s.io/apiserver/pkg/registry/rest/delete.go BeforeDelete).
 */
function preconditionFailure(info: ResourceInfo, name: string, pre: DeleteOptions['preconditions'], uid: string, resourceVersion: string): ApiError | undefined {
  if (pre === undefined) return undefined;
  const namespace = info.kind === 'Namespace';
  const gr = namespace ? groupResource(info) : { group: info.group, resource: info.kind };
  if (pre.uid !== undefined && pre.uid !== uid) {
    return conflictError(
      gr,
      name,
      namespace
        ? `Precondition failed: UID in precondition: ${pre.uid}, UID in object meta: ${uid}`
        : `the UID in the precondition (${pre.uid}) does not match the UID in record (${uid}). The object might have been deleted and then recreated`,
    );
  }
  if (pre.resourceVersion !== undefined && pre.resourceVersion !== resourceVersion) {
    return conflictError(
      gr,
      name,
      namespace
        ? `Precondition failed: ResourceVersion in precondition: ${pre.resourceVersion}, ResourceVersion in object meta: ${resourceVersion}`
        : `the ResourceVersion in the precondition (${pre.resourceVersion}) does not match the ResourceVersion in record (${resourceVersion}). The object might have been modified`,
    );
  }
  return undefined;
}

/**
 * The Conflict for an update whose body names another object's uid: the storage's
 * InvalidObjError text, quoted whole by InterpretUpdateError.
 * upstream: staging/src/k8s.io/apiserver/pkg/storage/interfaces.go Preconditions.Check,
 *           staging/src/k8s.io/apiserver/pkg/storage/errors.go (StorageError.Error, ErrCodeInvalidObj 4),
 *           staging/src/k8s.io/apiserver/pkg/storage/errors/storage.go InterpretUpdateError
 */
function uidPreconditionFailed(gr: GroupResource, name: string, key: string, uid: string, storedUID: string): ApiError {
  return conflictError(
    gr,
    name,
    `StorageError: invalid object, Code: 4, Key: ${key}, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ${uid}, UID in object meta: ${storedUID}`,
  );
}

/** Whether ObjectResourceVersion reads a version other than 0 (strconv.ParseUint succeeds); other text counts as unset. */
function isSetResourceVersion(rv: string | undefined): boolean {
  if (rv === undefined || !/^[0-9]{1,20}$/.test(rv)) return false;
  const n = BigInt(rv);
  return n > 0n && n <= 0xffff_ffff_ffff_ffffn;
}

function adapterMessage(e: AdapterError): string {
  return e.message;
}

/**
 * EndpointSlice PrepareForUpdate: the generation moves when anything but metadata (or the
 * labels) changed, by apiequality.Semantic.DeepEqual.
 * upstream: pkg/registry/discovery/endpointslice/strategy.go PrepareForUpdate
 */
function bumpSliceGeneration(slice: EndpointSlice, old: EndpointSlice): EndpointSlice {
  const { metadata: m, ...body } = slice;
  const { metadata: om, ...oldBody } = old;
  const changed = !semanticEqual(body, oldBody) || !semanticEqual(m.labels, om.labels);
  if (!changed) return slice;
  return { ...slice, metadata: { ...m, generation: (om.generation ?? 0) + 1 } };
}

/**
 * upstream storage.EncodeContinue: unpadded base64url of {"v":"meta.k8s.io/v1","rv":N,"start":K},
 * K the next key relative to the list's key prefix.
 * upstream: staging/src/k8s.io/apiserver/pkg/storage/continue.go
 */
function encodeContinue(rv: number, key: string, prefix: string): string {
  return Buffer.from(JSON.stringify({ v: 'meta.k8s.io/v1', rv, start: key.slice(prefix.length) })).toString('base64url');
}

/**
 * upstream storage.DecodeContinue: the absolute start key and revision, or undefined for a
 * token that is not one; a start key that path.Clean would change (one that climbs out of
 * the prefix with `..`) is refused.
 */
function decodeContinue(token: string, prefix: string): { readonly rv: number; readonly start: string } | undefined {
  try {
    const parsed = JSON.parse(Buffer.from(token, 'base64url').toString('utf8')) as unknown;
    if (!isRecord(parsed) || parsed['v'] !== 'meta.k8s.io/v1') return undefined;
    const { rv, start } = parsed;
    if (typeof rv !== 'number' || !Number.isSafeInteger(rv) || rv <= 0 || typeof start !== 'string' || start === '') return undefined;
    const key = start.startsWith('/') ? start : `/${start}`;
    if (!isCleanPath(key)) return undefined;
    return { rv, start: prefix + key.slice(1) };
  } catch {
    return undefined;
  }
}

/** Whether Go's path.Clean leaves an absolute path as it is: no empty, `.` or `..` segments, no trailing slash. */
function isCleanPath(key: string): boolean {
  if (key === '/') return true;
  return key
    .slice(1)
    .split('/')
    .every((segment) => segment !== '' && segment !== '.' && segment !== '..');
}

/**
 * A registry over `store`, or the configuration error (kube-apiserver's flag messages).
 * Call `initRanges()` once before serving (openRegistry does both).
 */
export function createRegistry(options: RegistryOptions): RegistryResult<Registry> | { readonly ok: false; readonly error: AdapterError } {
  const net =
    options.serviceNetworking !== undefined
      ? { ok: true as const, value: clusterNetworkingOf(options.serviceNetworking) }
      : clusterNetworking(options.serviceClusterIPRanges ?? ['10.0.0.0/24'], options.serviceNodePortRange ?? '30000-32767');
  if (!net.ok) return { ok: false, error: net.error };
  return { ok: true, value: new Registry(options, net.value) };
}

/** createRegistry, then initRanges: what an apiserver does when it starts. */
export async function openRegistry(options: RegistryOptions): Promise<RegistryResult<Registry> | { readonly ok: false; readonly error: AdapterError }> {
  const r = createRegistry(options);
  if (r.ok) await r.value.initRanges();
  return r;
}

// API verbs to registry calls: the one place a request's verb is switched on, with ts-pattern's
// exhaustive match so that a new verb cannot be left unrouted. Bodies are decoded here
// (size, JSON, kind and version, strict fields, the api-types zod schema) before the registry
// sees them, so a bad body writes nothing.
import { ok, type KubeObject } from '@kubesvc/api-types';
import { match } from 'ts-pattern';
import { decodeBody, DEFAULT_FIELD_VALIDATION, type Body, type BodyMediaType, type FieldValidation } from './decode.js';
import type { PatchType } from './patch.js';
import type { Registry } from './registry.js';
import type { DeleteOptions, ObjectList, RegistryResult } from './types.js';
import { RESOURCES, type ResourceName } from './resources.js';
import { SCALE_RESOURCES, SCALE_TARGET } from './verbs/scale.js';
import { STATUS_RESOURCES } from './verbs/update.js';

/** The subresources routed to the registry: /status writes the status, /scale reads and writes a Scale. */
export type Subresource = 'status' | 'scale';

/** The subresource a path segment names for a resource, or undefined when it has none by that name (a 404). */
export function subresourceOf(resource: ResourceName, segment: string): Subresource | undefined {
  if (segment === 'status' && STATUS_RESOURCES.has(resource)) return 'status';
  if (segment === 'scale' && SCALE_RESOURCES.has(resource)) return 'scale';
  return undefined;
}

/** Keeps the objects a list, watch or deletecollection selects (label and field selectors). */
export type ObjectPredicate = (object: KubeObject) => boolean;

/**
 * The resources whose storage answers a delete with the deleted object (ReturnDeletedObject);
 * the others answer with a Status Success naming it.
 * upstream: pkg/registry/core/{service,pod,namespace}/storage/storage.go
 */
export const RETURNS_DELETED_OBJECT: ReadonlySet<string> = new Set(['services', 'pods', 'namespaces']);

interface Target {
  readonly resource: ResourceName;
  /** The request's namespace; '' for cluster-scoped resources or all namespaces (list). */
  readonly namespace: string;
}

export type ApiRequest =
  | (Target & { readonly verb: 'create'; readonly body: Body; readonly mediaType?: BodyMediaType; readonly name?: string; readonly fieldValidation?: FieldValidation })
  | (Target & { readonly verb: 'get'; readonly name: string; readonly subresource?: Subresource })
  | (Target & { readonly verb: 'list'; readonly limit?: number; readonly continue?: string; readonly predicate?: ObjectPredicate })
  | (Target & {
      readonly verb: 'update';
      readonly name: string;
      readonly body: Body;
      readonly mediaType?: BodyMediaType;
      readonly fieldValidation?: FieldValidation;
      readonly subresource?: Subresource;
    })
  | (Target & {
      readonly verb: 'patch';
      readonly name: string;
      readonly patchType: PatchType;
      readonly body: string;
      readonly fieldValidation?: FieldValidation;
      readonly subresource?: Subresource;
    })
  /** A request's DeleteOptions (absent: an empty body's), so a pod's delete is graceful. */
  | (Target & { readonly verb: 'delete'; readonly name: string; readonly options?: DeleteOptions })
  | (Target & { readonly verb: 'deletecollection'; readonly predicate?: ObjectPredicate; readonly options?: DeleteOptions });

export type ApiVerb = ApiRequest['verb'];

/** What the HTTP layer sends back: the status code, the body, and warning headers. */
export interface ApiResponse {
  readonly code: 200 | 201;
  /** The object, a list, or (a delete of endpoints, slices, events) a Status Success. */
  readonly body: KubeObject | ObjectList | Readonly<Record<string, unknown>>;
  readonly warnings: readonly string[];
}

function respond(code: 200 | 201, result: RegistryResult<KubeObject | ObjectList>, warnings: readonly string[] = []): RegistryResult<ApiResponse> {
  return result.ok ? ok({ code, body: result.value, warnings }) : result;
}

/** Routes one request to the registry. */
export async function dispatch(registry: Registry, request: ApiRequest): Promise<RegistryResult<ApiResponse>> {
  return match(request)
    .with({ verb: 'create' }, async (r) => {
      const decoded = decodeBody(RESOURCES[r.resource], r.body, r.fieldValidation ?? DEFAULT_FIELD_VALIDATION, r.mediaType);
      if (!decoded.ok) return decoded;
      const created = await registry.create(r.resource, r.namespace, decoded.value.object, r.name === undefined ? {} : { name: r.name });
      return respond(201, created, decoded.value.warnings);
    })
    .with({ verb: 'get' }, async (r) => respond(200, r.subresource === 'scale' ? await registry.getScale(r.resource, r.namespace, r.name) : await registry.get(r.resource, r.namespace, r.name)))
    .with({ verb: 'list' }, async (r) =>
      respond(
        200,
        await registry.list(r.resource, r.namespace, {
          ...(r.limit === undefined ? {} : { limit: r.limit }),
          ...(r.continue === undefined ? {} : { continue: r.continue }),
          ...(r.predicate === undefined ? {} : { predicate: r.predicate }),
        }),
      ),
    )
    .with({ verb: 'update' }, async (r) => {
      const decoded = decodeBody(r.subresource === 'scale' ? SCALE_TARGET : RESOURCES[r.resource], r.body, r.fieldValidation ?? DEFAULT_FIELD_VALIDATION, r.mediaType);
      if (!decoded.ok) return decoded;
      if (r.subresource === 'scale' && decoded.value.object.kind === 'Scale') return respond(200, await registry.updateScale(r.resource, r.namespace, r.name, decoded.value.object), decoded.value.warnings);
      if (r.subresource === 'status') return respond(200, await registry.updateStatus(r.resource, r.namespace, r.name, decoded.value.object), decoded.value.warnings);
      const updated = await registry.updateOrCreate(r.resource, r.namespace, r.name, decoded.value.object);
      if (!updated.ok) return updated;
      // upstream: endpoints/handlers/update.go answers 201 when the storage created the object.
      return respond(updated.value.created ? 201 : 200, ok(updated.value.object), decoded.value.warnings);
    })
    .with({ verb: 'patch' }, async (r) =>
      respond(
        200,
        await registry.patch(r.resource, r.namespace, r.name, r.patchType, r.body, {
          ...(r.fieldValidation === undefined ? {} : { fieldValidation: r.fieldValidation }),
          ...(r.subresource === undefined ? {} : { subresource: r.subresource }),
        }),
      ),
    )
    .with({ verb: 'delete' }, async (r) => {
      const deleted = await registry.delete(r.resource, r.namespace, r.name, r.options ?? {});
      if (!deleted.ok) return deleted;
      const { object } = deleted.value;
      // upstream finalizeDelete: the object itself, or a Status naming it (Kind is the resource).
      if (RETURNS_DELETED_OBJECT.has(r.resource) || !deleted.value.deleted) return ok({ code: 200 as const, body: object, warnings: [] });
      const info = RESOURCES[r.resource];
      const meta = (object as { metadata?: { name?: string; uid?: string } }).metadata ?? {};
      const status = {
        kind: 'Status',
        apiVersion: 'v1',
        metadata: {},
        status: 'Success',
        details: { name: meta.name ?? r.name, ...(info.group === '' ? {} : { group: info.group }), kind: info.resource, ...(meta.uid ? { uid: meta.uid } : {}) },
      };
      return ok({ code: 200 as const, body: status, warnings: [] });
    })
    .with({ verb: 'deletecollection' }, async (r) =>
      respond(
        200,
        await registry.deleteCollection(r.resource, r.namespace, {
          ...(r.predicate === undefined ? {} : { predicate: r.predicate }),
          ...(r.options === undefined ? {} : { deleteOptions: r.options }),
        }),
      ),
    )
    .exhaustive();
}

// The registry's errors: one tagged set, each carrying the metav1.Status body kube-apiserver
// answers with. The HTTP layer only serialises `error.status` with `error.status.code`.
// upstream: staging/src/k8s.io/apimachinery/pkg/api/errors/errors.go (v1.32: NewNotFound,
//           NewAlreadyExists, NewGenerateNameConflict, NewConflict, NewInvalid, NewBadRequest,
//           NewResourceExpired, NewForbidden, NewInternalError, NewRequestEntityTooLargeError,
//           NewMethodNotSupported), staging/src/k8s.io/apiserver/pkg/storage/errors.go
//           (OptimisticLockErrorMsg)
import type { ApiStatus, ApiStatusCause, FieldError, GroupKindInput, TaggedError } from '@kubesvc/api-types';
import { renderInvalid } from './pure-adapters.js';

export type ApiErrorTag =
  | 'NotFound'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Invalid'
  | 'BadRequest'
  | 'Gone'
  | 'Expired'
  | 'Forbidden'
  | 'InternalError'
  | 'RequestEntityTooLarge'
  | 'UnsupportedMediaType'
  | 'NotAcceptable'
  | 'MethodNotAllowed'
  /** An error that is not a Status upstream: ErrorToAPIStatus sends it with no reason. */
  | 'Unknown';

/** A failed API request: `_tag` is the Status reason, `status` the exact body to send. */
export interface ApiError<Tag extends ApiErrorTag = ApiErrorTag> extends TaggedError<Tag> {
  /** The HTTP status code (also `status.code`). */
  readonly code: number;
  readonly status: ApiStatus;
  /** Field errors, for Invalid. */
  readonly causes?: readonly FieldError[];
}

/** A resource as errors name it: `services`, or `endpointslices` in `discovery.k8s.io`. */
export interface GroupResource {
  readonly group: string;
  readonly resource: string;
}

/** schema.GroupResource.String(): `resource.group`, or the resource alone for the core group. */
export function groupResourceString(gr: GroupResource): string {
  return gr.group === '' ? gr.resource : `${gr.resource}.${gr.group}`;
}

/** Go's %q for the names and texts these messages quote (printable ASCII in practice). */
function q(s: string): string {
  return JSON.stringify(s);
}

interface StatusParts {
  readonly tag: ApiErrorTag;
  readonly code: number;
  readonly message: string;
  readonly details?: {
    readonly name?: string;
    readonly group?: string;
    readonly kind?: string;
    readonly causes?: readonly ApiStatusCause[];
    readonly retryAfterSeconds?: number;
  };
}

// Go's omitempty: empty strings and empty lists leave their field out; a details object with
// nothing in it is still printed when upstream sets a non-nil pointer.
function make(parts: StatusParts): ApiError {
  const d = parts.details;
  const details =
    d === undefined
      ? undefined
      : {
          ...(d.name ? { name: d.name } : {}),
          ...(d.group ? { group: d.group } : {}),
          ...(d.kind ? { kind: d.kind } : {}),
          ...(d.causes && d.causes.length > 0 ? { causes: d.causes } : {}),
          ...(d.retryAfterSeconds ? { retryAfterSeconds: d.retryAfterSeconds } : {}),
        };
  const status: ApiStatus = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: parts.message,
    // StatusReasonUnknown is the empty string, which omitempty leaves out.
    ...(parts.tag === 'Unknown' ? {} : { reason: parts.tag }),
    ...(details === undefined ? {} : { details }),
    code: parts.code,
  };
  return { _tag: parts.tag, message: parts.message, code: parts.code, status };
}

function resourceDetails(gr: GroupResource, name: string) {
  return { name, group: gr.group, kind: gr.resource };
}

export function notFoundError(gr: GroupResource, name: string): ApiError<'NotFound'> {
  return make({ tag: 'NotFound', code: 404, message: `${groupResourceString(gr)} ${q(name)} not found`, details: resourceDetails(gr, name) }) as ApiError<'NotFound'>;
}

export function alreadyExistsError(gr: GroupResource, name: string): ApiError<'AlreadyExists'> {
  return make({ tag: 'AlreadyExists', code: 409, message: `${groupResourceString(gr)} ${q(name)} already exists`, details: resourceDetails(gr, name) }) as ApiError<'AlreadyExists'>;
}

/** NewGenerateNameConflict: every generated name was taken. */
export function generateNameConflictError(gr: GroupResource, name: string, retryAfterSeconds: number): ApiError<'AlreadyExists'> {
  return make({
    tag: 'AlreadyExists',
    code: 409,
    message: `${groupResourceString(gr)} ${q(name)} already exists, the server was not able to generate a unique name for the object`,
    details: { ...resourceDetails(gr, name), retryAfterSeconds },
  }) as ApiError<'AlreadyExists'>;
}

/** upstream storage.OptimisticLockErrorMsg */
export const OPTIMISTIC_LOCK_ERROR_MSG = 'the object has been modified; please apply your changes to the latest version and try again';

export function conflictError(gr: GroupResource, name: string, why: string): ApiError<'Conflict'> {
  return make({
    tag: 'Conflict',
    code: 409,
    message: `Operation cannot be fulfilled on ${groupResourceString(gr)} ${q(name)}: ${why}`,
    details: resourceDetails(gr, name),
  }) as ApiError<'Conflict'>;
}

/** 422 with the field errors, as NewInvalid renders them (api-types does the rendering). */
export function invalidError(kind: GroupKindInput, name: string, errors: readonly FieldError[]): ApiError<'Invalid'> {
  const status = renderInvalid(kind, name, errors);
  return { _tag: 'Invalid', message: status.message ?? '', code: 422, status, causes: errors };
}

export function badRequestError(message: string): ApiError<'BadRequest'> {
  return make({ tag: 'BadRequest', code: 400, message }) as ApiError<'BadRequest'>;
}

/**
 * NewGenericServerResponse(422, ...) with the server's own text dropped, as the apiserver
 * sends a failed JSON patch operation or a strategic merge patch with a list of lists.
 */
export function genericUnprocessableError(): ApiError<'Invalid'> {
  return make({ tag: 'Invalid', code: 422, message: 'the server rejected our request due to an error in our request', details: {} }) as ApiError<'Invalid'>;
}

/** NewGone (deprecated upstream, still used for too-old watches). */
export function goneError(message: string): ApiError<'Gone'> {
  return make({ tag: 'Gone', code: 410, message }) as ApiError<'Gone'>;
}

/** NewResourceExpired: 410 with reason Expired, for a continue token or resourceVersion too old. */
export function expiredError(message: string): ApiError<'Expired'> {
  return make({ tag: 'Expired', code: 410, message }) as ApiError<'Expired'>;
}

/** NewForbidden; `causes` are what an admission plugin appends to the details (NamespaceLifecycle does). */
export function forbiddenError(gr: GroupResource, name: string, why: string, causes: readonly ApiStatusCause[] = []): ApiError<'Forbidden'> {
  const message =
    gr.resource === '' && gr.group === ''
      ? `forbidden: ${why}`
      : name === ''
        ? `${groupResourceString(gr)} is forbidden: ${why}`
        : `${groupResourceString(gr)} ${q(name)} is forbidden: ${why}`;
  return make({ tag: 'Forbidden', code: 403, message, details: { ...resourceDetails(gr, name), causes } }) as ApiError<'Forbidden'>;
}

export function internalError(why: string): ApiError<'InternalError'> {
  return make({ tag: 'InternalError', code: 500, message: `Internal error occurred: ${why}`, details: { causes: [{ message: why }] } }) as ApiError<'InternalError'>;
}

/**
 * A plain Go error that reached the handler, e.g. the etcd3 store's "resourceVersion should not
 * be set on objects to be created": 500, the error's text as the message, no reason, no details.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go ErrorToAPIStatus
 */
export function unknownError(message: string): ApiError<'Unknown'> {
  return make({ tag: 'Unknown', code: 500, message }) as ApiError<'Unknown'>;
}

/** The apiserver's request body limit, 3 MiB (upstream: staging/src/k8s.io/apiserver/pkg/server/config.go, MaxRequestBodyBytes). */
export const MAX_REQUEST_BODY_BYTES = 3 * 1024 * 1024;

export function requestEntityTooLargeError(limit: number): ApiError<'RequestEntityTooLarge'> {
  return requestEntityTooLargeErrorWithMessage(`limit is ${limit}`);
}

/** NewRequestEntityTooLargeError(message): 413, "Request entity too large: <message>". */
export function requestEntityTooLargeErrorWithMessage(message: string): ApiError<'RequestEntityTooLarge'> {
  return make({ tag: 'RequestEntityTooLarge', code: 413, message: `Request entity too large: ${message}` }) as ApiError<'RequestEntityTooLarge'>;
}

export function unsupportedMediaTypeError(accepted: readonly string[]): ApiError<'UnsupportedMediaType'> {
  return make({
    tag: 'UnsupportedMediaType',
    code: 415,
    message: `the body of the request was in an unknown format - accepted media types include: ${accepted.join(', ')}`,
  }) as ApiError<'UnsupportedMediaType'>;
}

/**
 * The Accept header names no media type the server writes.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/negotiation/errors.go (errNotAcceptable)
 */
export function notAcceptableError(accepted: readonly string[]): ApiError<'NotAcceptable'> {
  return make({ tag: 'NotAcceptable', code: 406, message: `only the following media types are accepted: ${accepted.join(', ')}` }) as ApiError<'NotAcceptable'>;
}

export function methodNotSupportedError(gr: GroupResource, action: string): ApiError<'MethodNotAllowed'> {
  return make({
    tag: 'MethodNotAllowed',
    code: 405,
    message: `${action} is not supported on resources of kind ${q(groupResourceString(gr))}`,
    details: { group: gr.group, kind: gr.resource },
  }) as ApiError<'MethodNotAllowed'>;
}

/**
 * A verb the resource's storage does not implement, so that no route was installed for it:
 * go-restful answers 405 before any handler runs, and the apiserver wraps go-restful's text
 * as NewGenericServerResponse does (the same body the HTTP layer sends for a method no route
 * takes). Namespaces have no deletecollection: their REST type has no DeleteCollection.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (a collection DELETE is
 *           registered only for a rest.CollectionDeleter), pkg/registry/core/namespace/storage/storage.go
 */
export function methodNotAllowedError(): ApiError<'MethodNotAllowed'> {
  const status: ApiStatus = {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Failure',
    message: 'the server does not allow this method on the requested resource',
    reason: 'MethodNotAllowed',
    details: { causes: [{ reason: 'UnexpectedServerResponse', message: '405: Method Not Allowed' }] },
    code: 405,
  };
  return { _tag: 'MethodNotAllowed', message: status.message ?? '', code: 405, status };
}

/** True for any registry error value (as opposed to a thrown programming error). */
export function isApiError(value: unknown): value is ApiError {
  return typeof value === 'object' && value !== null && '_tag' in value && 'status' in value && 'code' in value;
}

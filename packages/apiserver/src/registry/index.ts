// The registry's public API (re-exported by the package index): the one list of it. Each
// module exports only its own names; this file gathers them.
export { createRegistry, openRegistry, Registry } from './registry.js';
export { STATUS_RESOURCES } from './verbs/update.js';
export type {
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
  StatusUpdateOptions,
  UpdateOptions,
} from './types.js';
export { dispatch, RETURNS_DELETED_OBJECT } from './dispatch.js';
export type { ApiRequest, ApiResponse, ApiVerb, ObjectPredicate } from './dispatch.js';
export { decodeBody, decodeValue } from './decode.js';
export type { Body, BodyMediaType, Decoded, DecodeResult, FieldValidation } from './decode.js';
export {
  alreadyExistsError,
  badRequestError,
  conflictError,
  expiredError,
  forbiddenError,
  generateNameConflictError,
  goneError,
  groupResourceString,
  internalError,
  invalidError,
  isApiError,
  MAX_REQUEST_BODY_BYTES,
  methodNotAllowedError,
  methodNotSupportedError,
  notAcceptableError,
  notFoundError,
  OPTIMISTIC_LOCK_ERROR_MSG,
  requestEntityTooLargeError,
  unknownError,
  unsupportedMediaTypeError,
} from './errors.js';
export type { ApiError, ApiErrorTag, GroupResource } from './errors.js';
export { crashAt, isSimulatedCrash, SimulatedCrash } from './crash.js';
export type { CrashContext, CrashHook, CrashPoint } from './crash.js';
export { DEFAULT_PATCHERS, jsonPatch, mergePatch } from './patch.js';
export { strategicMergePatch } from './strategic-merge-patch-patcher.js';
export type { Patcher, PatchResult, PatchType } from './patch.js';
export { NO_LEAKS, repairOnce } from './repair.js';
export type { RepairLeaks, RepairRun } from './repair.js';
export {
  groupResource,
  isResourceName,
  listPrefix,
  MASTER_LEASES_PREFIX,
  masterLeaseKey,
  NAMESPACED_RESOURCES,
  objectKey,
  REGISTRY_PREFIX,
  RESOURCE_NAMES,
  RESOURCES,
  SECONDARY_SERVICE_IPS_KEY,
  SERVICE_IPS_KEY,
  SERVICE_NODE_PORTS_KEY,
} from './resources.js';
export type { ResourceInfo, ResourceName } from './resources.js';
export { NAME_ALPHABET } from './names.js';
export type { ClusterNetworking } from './pure-adapters.js';
export { deserializeObject, serializeObject } from './stored-object.js';

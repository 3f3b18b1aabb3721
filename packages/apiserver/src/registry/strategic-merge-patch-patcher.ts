// The registry's patcher for `application/strategic-merge-patch+json`: the patch text decoded
// as the apiserver decodes it, merged with the stored object's kind's patch metadata, and a
// failure answered with the status kube-apiserver gives it.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (strategicPatchObject:
//           a patch that does not decode into a map is 400 with the json error;
//           interpretStrategicMergePatchError: mergepatch's format errors are 400, lists of
//           lists 422, any other error reaches the client as a plain error, 500),
//           staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/status.go (ErrorToAPIStatus)
import { err } from '@kubesvc/api-types';
import { badRequestError, genericUnprocessableError, unknownError, type ApiError } from './errors.js';
import type { Patcher } from './patch.js';
import { decodePatchJSON } from './patch-limits.js';
import { patchSchemaFor } from './patch-strategy.js';
import { applyStrategicMergePatch, type StrategicMergeError } from './strategic-merge-patch.js';
import { isJsonMap, type Json } from './strategic-merge-patch-go-format.js';

/** mergepatch.ErrUnsupportedStrategicMergePatchFormat, for a kind with no Go struct to read tags from. */
const UNSUPPORTED = 'strategic merge patch format is not supported';

function toApiError(error: StrategicMergeError): ApiError {
  switch (error._tag) {
    case 'BadRequest':
      return badRequestError(error.message);
    case 'Invalid':
      return genericUnprocessableError();
    case 'Unknown':
      return unknownError(error.message);
  }
}

/** json.Unmarshal into a map[string]interface{}: what each non-object JSON value is called. */
function unmarshalTypeName(value: Json): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

export const strategicMergePatch: Patcher = (current, patch) => {
  const decoded = decodePatchJSON(patch);
  if (!decoded.ok) return err(badRequestError(decoded.error.message));
  let parsed = decoded.value as Json;
  // A JSON null leaves the map nil: the patch changes nothing.
  if (parsed === null) parsed = {};
  if (!isJsonMap(parsed)) {
    return err(badRequestError(`json: cannot unmarshal ${unmarshalTypeName(parsed)} into Go value of type map[string]interface {}`));
  }
  const object = current as Json;
  if (!isJsonMap(object)) return err(badRequestError(UNSUPPORTED));
  const schema = patchSchemaFor(String(object['apiVersion'] ?? ''), String(object['kind'] ?? ''));
  if (schema === undefined) return err(badRequestError(UNSUPPORTED));
  const merged = applyStrategicMergePatch(object, parsed, schema);
  return merged.ok ? merged : err(toApiError(merged.error));
};

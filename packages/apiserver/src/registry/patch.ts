// The patch step, pluggable by patch type. The registry brings JSON merge patch (RFC 7386),
// JSON patch (RFC 6902, json-patch.ts) and strategic merge patch (strategic-merge-patch.ts).
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (applyJSPatch:
//           DecodePatch errors are 400, more than maxJSONPatchOperations is 413, Apply errors
//           are NewGenericServerResponse(422), which keeps the generic text and drops the
//           library's; a merge patch that is not a JSON object is ErrBadJSONPatch, 400),
//           vendor/gopkg.in/evanphx/json-patch.v4/merge.go (MergePatch, mergeDocs, pruneNulls)
//
// A patch body is the client's: no body may throw here (a thrown error would be a 500), and
// none may cost more than linear time. Bodies are decoded with Go's nesting limit
// (patch-limits.ts) and every walk uses an explicit stack.
import { err, ok, type Result } from '@kubesvc/api-types';
import { badRequestError, genericUnprocessableError, requestEntityTooLargeErrorWithMessage, type ApiError } from './errors.js';
import { applyJsonPatch, decodeJsonPatch } from './json-patch.js';
import { cloneJSON, decodePatchJSON, getOwn, isPlainObject, MAX_JSON_PATCH_OPERATIONS, setOwn } from './patch-limits.js';
import { strategicMergePatch } from './strategic-merge-patch-patcher.js';

export type PatchType = 'application/merge-patch+json' | 'application/json-patch+json' | 'application/strategic-merge-patch+json' | (string & {});

export type PatchResult = Result<unknown, ApiError>;

/** Applies a patch document (text) to the current object (a JSON value); never mutates it. */
export type Patcher = (current: unknown, patch: string) => PatchResult;

/** evanphx/json-patch ErrBadJSONPatch */
const BAD_JSON_PATCH = 'Invalid JSON Patch';

/** pruneNulls: drops every null-valued key of every object in `value` (array elements stay). */
function pruneNulls(value: unknown): void {
  const work: unknown[] = [value];
  for (let v = work.pop(); v !== undefined; v = work.pop()) {
    if (Array.isArray(v)) {
      for (const e of v) if (e !== null && typeof e === 'object') work.push(e);
    } else if (isPlainObject(v)) {
      for (const [k, e] of Object.entries(v)) {
        if (e === null) delete v[k];
        else if (typeof e === 'object') work.push(e);
      }
    }
  }
}

/**
 * mergeDocs (MergePatch, not MergeMergePatches): null deletes a key; a key the document lacks
 * (or holds null) takes the patch value less its nulls; two objects merge; otherwise the
 * patch value replaces the document's, less its nulls when the document's was not an object.
 */
function mergeDocs(doc: Record<string, unknown>, patch: Record<string, unknown>): void {
  const work: [Record<string, unknown>, Record<string, unknown>][] = [[doc, patch]];
  for (let pair = work.pop(); pair !== undefined; pair = work.pop()) {
    const [d, p] = pair;
    for (const [k, v] of Object.entries(p)) {
      if (v === null) {
        delete d[k];
        continue;
      }
      const cur = getOwn(d, k);
      if (isPlainObject(cur) && isPlainObject(v)) {
        work.push([cur, v]);
        continue;
      }
      // merge(): a current value that is not an object yields the patch value less its nulls;
      // an object current value with a non-object patch value yields the patch value as is.
      if (!isPlainObject(cur)) pruneNulls(v);
      setOwn(d, k, v);
    }
  }
}

export const mergePatch: Patcher = (current, patch) => {
  const parsed = decodePatchJSON(patch);
  if (!parsed.ok) return err(badRequestError(BAD_JSON_PATCH));
  const value = parsed.value;
  if (Array.isArray(value)) {
    // A patch that is a JSON array is the document, less nulls inside its objects.
    pruneNulls(value);
    return ok(value);
  }
  if (!isPlainObject(value)) return err(badRequestError(BAD_JSON_PATCH));
  const doc = cloneJSON(current);
  if (!isPlainObject(doc)) return err(badRequestError(BAD_JSON_PATCH));
  mergeDocs(doc, value);
  return ok(doc);
};

export const jsonPatch: Patcher = (current, patch) => {
  const parsed = decodePatchJSON(patch);
  if (!parsed.ok) return err(badRequestError(parsed.error.message));
  const decoded = decodeJsonPatch(parsed.value);
  if (!decoded.ok) return err(badRequestError(decoded.error.message));
  if (decoded.value.length > MAX_JSON_PATCH_OPERATIONS) {
    return err(requestEntityTooLargeErrorWithMessage(`The allowed maximum operations in a JSON patch is ${MAX_JSON_PATCH_OPERATIONS}, got ${decoded.value.length}`));
  }
  const applied = applyJsonPatch(current, decoded.value);
  return applied.ok ? applied : err(genericUnprocessableError());
};

/** The patch types every registry serves. */
export const DEFAULT_PATCHERS: Readonly<Record<string, Patcher>> = {
  'application/merge-patch+json': mergePatch,
  'application/json-patch+json': jsonPatch,
  'application/strategic-merge-patch+json': strategicMergePatch,
};

// The patch step, pluggable by patch type. The registry brings JSON merge patch (RFC 7386),
// JSON patch (RFC 6902) and strategic merge patch (strategic-merge-patch.ts).
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (jsonPatcher:
//           DecodePatch errors are 400, Apply errors are 422; merge patch errors are 400)
import fastJsonPatch from 'fast-json-patch';
import jsonMergePatch from 'json-merge-patch';
import { badRequestError, genericUnprocessableError, type ApiError } from './errors.js';
import { goJSONSyntaxError } from './go-json-error.js';
import { strategicMergePatch } from './strategic-merge-patch-patcher.js';

export type PatchType = 'application/merge-patch+json' | 'application/json-patch+json' | 'application/strategic-merge-patch+json' | (string & {});

export type PatchResult = { readonly ok: true; readonly value: unknown } | { readonly ok: false; readonly error: ApiError };

/** Applies a patch document (text) to the current object (a JSON value); never mutates it. */
export type Patcher = (current: unknown, patch: string) => PatchResult;

function parse(patch: string): { ok: true; value: unknown } | { ok: false; message: string } {
  try {
    return { ok: true, value: JSON.parse(patch) as unknown };
  } catch {
    return { ok: false, message: goJSONSyntaxError(patch) ?? 'unexpected end of JSON input' };
  }
}

export const mergePatch: Patcher = (current, patch) => {
  const parsed = parse(patch);
  // evanphx/json-patch MergePatch: errBadJSONPatch
  if (!parsed.ok) return { ok: false, error: badRequestError('Invalid JSON Patch') };
  return { ok: true, value: jsonMergePatch.apply(structuredClone(current), parsed.value) as unknown };
};

export const jsonPatch: Patcher = (current, patch) => {
  const parsed = parse(patch);
  if (!parsed.ok) return { ok: false, error: badRequestError(parsed.message) };
  if (!Array.isArray(parsed.value)) {
    return { ok: false, error: badRequestError('json: cannot unmarshal object into Go value of type jsonpatch.Patch') };
  }
  const operations = parsed.value as fastJsonPatch.Operation[];
  const invalid = fastJsonPatch.validate(operations, current);
  if (invalid !== undefined) {
    // A malformed operation is a bad patch document; a failed test or a missing path is 422.
    const applying = invalid.name === 'TEST_OPERATION_FAILED' || invalid.name === 'OPERATION_PATH_UNRESOLVABLE' || invalid.name === 'OPERATION_FROM_UNRESOLVABLE';
    return { ok: false, error: applying ? genericUnprocessableError() : badRequestError(invalid.message.split('\n')[0] ?? invalid.message) };
  }
  try {
    return { ok: true, value: fastJsonPatch.applyPatch(structuredClone(current), operations, false, true).newDocument as unknown };
  } catch {
    return { ok: false, error: genericUnprocessableError() };
  }
};

/** The patch types every registry serves. */
export const DEFAULT_PATCHERS: Readonly<Record<string, Patcher>> = {
  'application/merge-patch+json': mergePatch,
  'application/json-patch+json': jsonPatch,
  'application/strategic-merge-patch+json': strategicMergePatch,
};

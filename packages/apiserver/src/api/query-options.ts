// Query parameters to typed options, with kube-apiserver's refusals: a value that does not
// parse is 400 (the parameter codec's error), a directive outside its set is 422 on the
// options kind (CreateOptions, UpdateOptions, PatchOptions, DeleteOptions).
// upstream: staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/validation/validation.go
//           (ValidateDryRun, ValidateFieldValidation, ValidateDeleteOptions),
//           staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go (ListResource: selectors
//           parsed, field labels converted, errors as BadRequest)
import { err, fieldPath, notSupported, ok, type FieldError, type KubeObject, type Result } from '@kubesvc/api-types';
import type { FieldValidation } from '../registry/decode.js';
import { badRequestError, invalidError, type ApiError } from '../registry/errors.js';
import type { ObjectPredicate } from '../registry/dispatch.js';
import { checkFieldSelector, fieldsMatch, parseFieldSelector } from './field-selector.js';
import { labelsMatch, parseLabelSelector } from './label-selector.js';

export type Parsed<T> = Result<T, ApiError>;

export type OptionsKind = 'CreateOptions' | 'UpdateOptions' | 'PatchOptions' | 'DeleteOptions';

/** Go's strconv.ParseBool. */
function parseBool(name: string, text: string): Parsed<boolean> {
  if (['1', 't', 'T', 'true', 'TRUE', 'True'].includes(text)) return ok(true);
  if (['0', 'f', 'F', 'false', 'FALSE', 'False', ''].includes(text)) return ok(false);
  return err(badRequestError(`strconv.ParseBool: parsing ${JSON.stringify(text)}: invalid syntax`));
}

/** Go's strconv.ParseInt(s, 10, 64). */
function parseInt64(text: string): Parsed<number> {
  if (!/^[+-]?[0-9]+$/.test(text)) return err(badRequestError(`strconv.ParseInt: parsing ${JSON.stringify(text)}: invalid syntax`));
  const n = BigInt(text);
  if (n < -(2n ** 63n) || n >= 2n ** 63n) return err(badRequestError(`strconv.ParseInt: parsing ${JSON.stringify(text)}: value out of range`));
  return ok(Number(n));
}

function first(query: URLSearchParams, name: string): string | undefined {
  const all = query.getAll(name);
  return all.length === 0 ? undefined : all[0];
}

function invalidOptions(kind: OptionsKind, errors: readonly FieldError[]): ApiError {
  return invalidError({ group: 'meta.k8s.io', kind }, '', errors);
}

export interface WriteOptions {
  readonly fieldValidation?: FieldValidation;
  readonly fieldManager?: string;
  /** dryRun=All was asked for. */
  readonly dryRun: boolean;
}

const FIELD_VALIDATIONS = ['', 'Ignore', 'Strict', 'Warn'];

/** dryRun, fieldValidation and fieldManager of a create, update or patch (and dryRun of a delete). */
export function writeOptions(query: URLSearchParams, kind: OptionsKind): Parsed<WriteOptions> {
  const dryRun = query.getAll('dryRun');
  const errors: FieldError[] = [];
  if (dryRun.length > 1 || (dryRun.length === 1 && dryRun[0] !== 'All')) errors.push(notSupported(fieldPath('dryRun'), dryRun, ['All']));
  const fv = first(query, 'fieldValidation');
  if (kind !== 'DeleteOptions' && fv !== undefined && !FIELD_VALIDATIONS.includes(fv)) errors.push(notSupported(fieldPath('fieldValidation'), fv, FIELD_VALIDATIONS));
  if (errors.length > 0) return err(invalidOptions(kind, errors));
  const fm = first(query, 'fieldManager');
  return ok({
    dryRun: dryRun.length === 1,
    ...(fv === undefined || fv === '' ? {} : { fieldValidation: fv as FieldValidation }),
    ...(fm === undefined ? {} : { fieldManager: fm }),
  });
}

export interface DeleteRequestOptions {
  readonly dryRun: boolean;
  readonly preconditions?: { readonly uid?: string; readonly resourceVersion?: string };
  readonly propagationPolicy?: DeletionPropagation;
  readonly gracePeriodSeconds?: number;
}

/** The propagation policies a delete may name (metav1.DeletionPropagation). */
export type DeletionPropagation = 'Foreground' | 'Background' | 'Orphan';

const PROPAGATION = ['Foreground', 'Background', 'Orphan', 'nil'];

function isPropagation(policy: string): policy is DeletionPropagation {
  return PROPAGATION.slice(0, 3).includes(policy);
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The DeleteOptions of a delete: the body (kubectl sends one; JSON text, or the object a
 * protobuf body carried) and the query, the query last.
 */
export function deleteOptions(query: URLSearchParams, body: string | Record<string, unknown>): Parsed<DeleteRequestOptions> {
  let fromBody: Record<string, unknown> = typeof body === 'string' ? {} : body;
  if (typeof body === 'string' && body.trim() !== '') {
    let raw: unknown;
    try {
      raw = JSON.parse(body);
    } catch {
      return err(badRequestError('the body of the request was in an unknown format - accepted media types include: application/json, application/yaml'));
    }
    if (!isRecord(raw)) return err(badRequestError('json: cannot unmarshal non-object into Go value of type v1.DeleteOptions'));
    fromBody = raw;
  }
  const write = writeOptions(query, 'DeleteOptions');
  if (!write.ok) return write;
  let grace: number | undefined = typeof fromBody['gracePeriodSeconds'] === 'number' ? fromBody['gracePeriodSeconds'] : undefined;
  const graceText = first(query, 'gracePeriodSeconds');
  if (graceText !== undefined) {
    const g = parseInt64(graceText);
    if (!g.ok) return g;
    grace = g.value;
  }
  let policy = typeof fromBody['propagationPolicy'] === 'string' ? fromBody['propagationPolicy'] : undefined;
  policy = first(query, 'propagationPolicy') ?? policy;
  if (policy !== undefined && !isPropagation(policy)) {
    return err(invalidOptions('DeleteOptions', [notSupported(fieldPath('propagationPolicy'), policy, PROPAGATION)]));
  }
  const bodyDryRun = Array.isArray(fromBody['dryRun']) ? (fromBody['dryRun'] as unknown[]) : [];
  if (bodyDryRun.some((v) => v !== 'All')) {
    return err(invalidOptions('DeleteOptions', [notSupported(fieldPath('dryRun'), bodyDryRun, ['All'])]));
  }
  const pre = isRecord(fromBody['preconditions']) ? fromBody['preconditions'] : undefined;
  const preconditions =
    pre === undefined
      ? undefined
      : {
          ...(typeof pre['uid'] === 'string' ? { uid: pre['uid'] } : {}),
          ...(typeof pre['resourceVersion'] === 'string' ? { resourceVersion: pre['resourceVersion'] } : {}),
        };
  return ok({
    dryRun: write.value.dryRun || bodyDryRun.length > 0,
    ...(preconditions === undefined ? {} : { preconditions }),
    ...(policy === undefined ? {} : { propagationPolicy: policy }),
    ...(grace === undefined ? {} : { gracePeriodSeconds: grace }),
  });
}

export interface ListRequestOptions {
  readonly watch: boolean;
  readonly predicate?: ObjectPredicate;
  readonly limit?: number;
  readonly continue?: string;
  readonly resourceVersion?: string;
  readonly allowWatchBookmarks: boolean;
  /** timeoutSeconds as given (any int64); see watchTimeoutMs for what a watch makes of it. */
  readonly timeoutSeconds?: number;
}

/** kube-apiserver's --min-request-timeout default, in seconds. */
export const DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS = 1800;

/**
 * How long a watch runs, in milliseconds: timeoutSeconds when it is positive; absent or 0, the
 * minimum request timeout stretched by a random factor in [1, 2) so that watches opened together
 * do not end together; negative, no time at all (the stream ends as soon as it opened). No value
 * means a watch that never ends.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/get.go (ListResource:
 *           `timeout == 0 && minRequestTimeout > 0`, then context.WithTimeout(ctx, timeout)),
 *           staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go (a timer of that length)
 */
export function watchTimeoutMs(timeoutSeconds: number | undefined, minRequestTimeoutSeconds: number, random: number): number {
  if (timeoutSeconds === undefined || timeoutSeconds === 0) return minRequestTimeoutSeconds * 1000 * (1 + random);
  return timeoutSeconds < 0 ? 0 : timeoutSeconds * 1000;
}

function labelsOf(object: KubeObject): Readonly<Record<string, string>> | undefined {
  return (object as { metadata?: { labels?: Record<string, string> } }).metadata?.labels;
}

/** The options of a list, watch or deletecollection: selectors become one predicate. */
export function listOptions(query: URLSearchParams, resource: string): Parsed<ListRequestOptions> {
  const watchText = first(query, 'watch');
  const watch = watchText === undefined ? ok(false) : parseBool('watch', watchText);
  if (!watch.ok) return watch;
  const bookmarksText = first(query, 'allowWatchBookmarks');
  const bookmarks = bookmarksText === undefined ? ok(false) : parseBool('allowWatchBookmarks', bookmarksText);
  if (!bookmarks.ok) return bookmarks;
  let limit: number | undefined;
  const limitText = first(query, 'limit');
  if (limitText !== undefined) {
    const l = parseInt64(limitText);
    if (!l.ok) return l;
    if (l.value > 0) limit = l.value;
  }
  let timeoutSeconds: number | undefined;
  const timeoutText = first(query, 'timeoutSeconds');
  if (timeoutText !== undefined) {
    const t = parseInt64(timeoutText);
    if (!t.ok) return t;
    // Kept as given, zero and negative too: the watch decides what they mean.
    timeoutSeconds = t.value;
  }
  const labelText = first(query, 'labelSelector') ?? '';
  const labels = parseLabelSelector(labelText);
  if (!labels.ok) return err(badRequestError(labels.error.message));
  const fieldText = first(query, 'fieldSelector') ?? '';
  const parsedFields = parseFieldSelector(fieldText);
  if (!parsedFields.ok) return err(badRequestError(parsedFields.error.message));
  const fields = checkFieldSelector(resource, parsedFields.value);
  if (!fields.ok) return err(badRequestError(fields.error.message));
  const labelReqs = labels.value;
  const fieldReqs = fields.value;
  const predicate: ObjectPredicate | undefined =
    labelReqs.length === 0 && fieldReqs.length === 0 ? undefined : (object) => labelsMatch(labelReqs, labelsOf(object)) && fieldsMatch(resource, fieldReqs, object);
  const cont = first(query, 'continue');
  const rv = first(query, 'resourceVersion');
  return ok({
    watch: watch.value,
    allowWatchBookmarks: bookmarks.value,
    ...(predicate === undefined ? {} : { predicate }),
    ...(limit === undefined ? {} : { limit }),
    ...(cont === undefined || cont === '' ? {} : { continue: cont }),
    ...(rv === undefined ? {} : { resourceVersion: rv }),
    ...(timeoutSeconds === undefined ? {} : { timeoutSeconds }),
  });
}

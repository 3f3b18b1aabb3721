// A request body to a typed object, refusing what kube-apiserver refuses before it touches
// storage: a body over 3 MiB, text that is not JSON, an object of another kind or version,
// unknown fields under strict field validation, and values of the wrong JSON type.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go (limitedReadBody,
//           transformDecodeError, summarizeData), handlers/create.go and update.go (decode,
//           fieldValidation, "the API version in the data ... does not match ..."),
//           apimachinery runtime/serializer/json/meta.go ("couldn't get version/kind; json
//           parse error"), apimachinery runtime/scheme.go (`no kind %q is registered for
//           version %q in scheme %q`)
import type { KubeObject } from '@kubesvc/api-types';
import { badRequestError, MAX_REQUEST_BODY_BYTES, requestEntityTooLargeError, type ApiError } from './errors.js';
import { goJSONSyntaxError } from './go-json-error.js';
import { apiVersionOfKind, decodeKubeObject, schemaOfKind } from './pure-adapters.js';
import type { ResourceInfo } from './resources.js';
import { OPEN_PATHS, pruneUnknown, unknownFields } from './unknown-fields.js';

/** metav1.FieldValidation: Strict refuses unknown fields, Warn (the default) and Ignore drop them. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/**
 * What a request without `fieldValidation` gets: Warn. kubectl refuses unknown fields only
 * because its `--validate` flag sends Strict.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go fieldValidation
 */
export const DEFAULT_FIELD_VALIDATION: FieldValidation = 'Warn';

export type Body = string | Uint8Array;

export interface Decoded<T extends KubeObject = KubeObject> {
  readonly object: T;
  /** Warnings for the client (`unknown field "spec.foo"` under Warn). */
  readonly warnings: readonly string[];
}

export type DecodeResult<T extends KubeObject = KubeObject> = { readonly ok: true; readonly value: Decoded<T> } | { readonly ok: false; readonly error: ApiError };

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** upstream summarizeData(body, 30): the body if it is an object, else its bytes in hex. */
function summarize(bytes: Uint8Array): string {
  if (bytes.length === 0) return '<empty>';
  const max = 30;
  if (bytes[0] === 0x7b) {
    return bytes.length > max ? `${decoder.decode(bytes.subarray(0, max))} ...` : decoder.decode(bytes);
  }
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return bytes.length > max ? `${hex(bytes.subarray(0, max))} ...` : hex(bytes);
}

/** The Go type name of the internal object a kind decodes into (for conversion errors). */
function internalType(info: ResourceInfo): string {
  return `${info.group === '' ? 'core' : 'discovery'}.${info.kind}`;
}

function versionOf(apiVersion: string): string {
  const slash = apiVersion.lastIndexOf('/');
  return slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
}

// The scheme's name in kube-apiserver's messages (its registration site).
const LEGACY_SCHEME = 'pkg/api/legacyscheme/scheme.go:30';

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The JSON type name Go's decoder prints for a top-level value it cannot read as an object. */
function goJSONKind(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'string') return 'string';
  if (typeof v === 'number') return 'number';
  if (typeof v === 'boolean') return 'bool';
  return 'object';
}

const TYPE_META_GO = 'struct { APIVersion string "json:\\"apiVersion,omitempty\\""; Kind string "json:\\"kind,omitempty\\"" }';

/** Parses a body with upstream's refusals; `object` has the resource's kind and passed its schema. */
export function decodeBody(info: ResourceInfo, body: Body, fieldValidation: FieldValidation = DEFAULT_FIELD_VALIDATION): DecodeResult {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  if (bytes.length > MAX_REQUEST_BODY_BYTES) return { ok: false, error: requestEntityTooLargeError(MAX_REQUEST_BODY_BYTES) };
  const text = typeof body === 'string' ? body : decoder.decode(bytes);
  const unrecognized = (why: string): DecodeResult => ({
    ok: false,
    error: badRequestError(`the object provided is unrecognized (must be of type ${info.kind}): ${why} (${summarize(bytes)})`),
  });

  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return unrecognized(`couldn't get version/kind; json parse error: ${goJSONSyntaxError(text) ?? 'unexpected end of JSON input'}`);
  }
  if (!isRecord(raw)) {
    return unrecognized(`couldn't get version/kind; json parse error: json: cannot unmarshal ${goJSONKind(raw)} into Go value of type ${TYPE_META_GO}`);
  }
  return decodeValue(info, raw, fieldValidation);
}

/** The checks after JSON parsing, for a body that is already a value (a patched object, say). */
export function decodeValue(info: ResourceInfo, value: Record<string, unknown>, fieldValidation: FieldValidation = DEFAULT_FIELD_VALIDATION): DecodeResult {
  // The resource's kind and version fill in what the body leaves out.
  const kind = typeof value['kind'] === 'string' && value['kind'] !== '' ? value['kind'] : info.kind;
  const apiVersion = typeof value['apiVersion'] === 'string' && value['apiVersion'] !== '' ? value['apiVersion'] : info.apiVersion;
  const cannot = (why: string): DecodeResult => ({
    ok: false,
    error: badRequestError(`${kind} in version ${JSON.stringify(versionOf(apiVersion))} cannot be handled as a ${info.kind}: ${why}`),
  });
  const servedAt = apiVersionOfKind(kind);
  if (servedAt !== apiVersion || kind === 'Status' || kind === 'RangeAllocation') {
    if (servedAt === apiVersion) {
      return cannot(`converting (${versionOf(apiVersion)}.${kind}) to (${internalType(info)}): unknown conversion`);
    }
    return cannot(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(LEGACY_SCHEME)}`);
  }
  if (kind !== info.kind) {
    return cannot(`converting (${versionOf(apiVersion)}.${kind}) to (${internalType(info)}): unknown conversion`);
  }
  const filled = { ...value, apiVersion, kind };

  const schema = schemaOfKind(info.kind);
  const unknown = unknownFields(schema, filled, OPEN_PATHS[info.kind] ?? new Set());
  const warnings: string[] = [];
  let candidate: unknown = filled;
  if (unknown.length > 0) {
    const messages = unknown.map((path) => `unknown field ${JSON.stringify(path)}`);
    if (fieldValidation === 'Strict') return cannot(`strict decoding error: ${messages.join(', ')}`);
    if (fieldValidation === 'Warn') warnings.push(...messages);
    candidate = pruneUnknown(filled, unknown);
  }
  const decoded = decodeKubeObject(candidate);
  if (!decoded.ok) return cannot(decoded.error.message);
  return { ok: true, value: { object: decoded.value, warnings } };
}

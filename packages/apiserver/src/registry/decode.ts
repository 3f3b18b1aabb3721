// A request body to a typed object, refusing what kube-apiserver refuses before it touches
// storage: a body over 3 MiB, text that is not JSON (or bytes that are not Kubernetes'
// protobuf), an object of another kind or version, unknown fields under strict field
// validation, and values of the wrong JSON type. A protobuf body becomes the JSON Go would print
// for the object it carries, then takes the JSON path.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go (limitedReadBody,
//           transformDecodeError, summarizeData), handlers/create.go and update.go (decode,
//           fieldValidation, "the API version in the data ... does not match ..."),
//           apimachinery runtime/serializer/json/meta.go ("couldn't get version/kind; json
//           parse error"), apimachinery runtime/scheme.go (`no kind %q is registered for
//           version %q in scheme %q`), apimachinery runtime/serializer/codec_factory.go (the
//           protobuf serializer is its own strict serializer: no unknown-field errors or warnings)
import { err, ok, type Kind, type KubeObject, type Result } from '@kubesvc/api-types';
import { badRequestError, MAX_REQUEST_BODY_BYTES, requestEntityTooLargeError, unknownError, type ApiError } from './errors.js';
import { goJSONSyntaxError } from './go-json-error.js';
import { checkJsonDepth } from './json-depth.js';
import { apiVersionOfKind, decodeKubeObject, schemaOfKind } from './pure-adapters.js';
import { OPEN_PATHS, pruneUnknown, unknownFields } from './unknown-fields.js';
import { openEnvelope, PROTOBUF_MEDIA_TYPE } from './protobuf/envelope.js';
import { DeleteOptions, Endpoints, EndpointSlice, Event, Namespace, Node, Service } from './protobuf/messages.js';
import { Pod } from './protobuf/pod-messages.js';
import { Deployment, ReplicaSet } from './protobuf/apps-messages.js';
import type { MessageSpec } from './protobuf/schema.js';
import { decodeMessage } from './protobuf/unmarshal.js';
import { ProtoError } from './protobuf/wire.js';

/** What a body is decoded as: a resource's kind, or a subresource's (a Scale). */
export interface DecodeTarget {
  readonly kind: Kind;
  readonly apiVersion: string;
  readonly group: string;
}

/** metav1.FieldValidation: Strict refuses unknown fields, Warn (the default) and Ignore drop them. */
export type FieldValidation = 'Strict' | 'Warn' | 'Ignore';

/**
 * What a request without `fieldValidation` gets: Warn. kubectl refuses unknown fields only
 * because its `--validate` flag sends Strict.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/rest.go fieldValidation
 */
export const DEFAULT_FIELD_VALIDATION: FieldValidation = 'Warn';

export type Body = string | Uint8Array;

/** The media types a create or update body may have. */
export type BodyMediaType = 'application/json' | typeof PROTOBUF_MEDIA_TYPE;

export interface Decoded<T extends KubeObject = KubeObject> {
  readonly object: T;
  /** Warnings for the client (`unknown field "spec.foo"` under Warn). */
  readonly warnings: readonly string[];
}

export type DecodeResult<T extends KubeObject = KubeObject> = Result<Decoded<T>, ApiError>;

const encoder = new TextEncoder();
const decoder = new TextDecoder('utf-8');

/** upstream summarizeData(body, 30): the body if it is an object, else its bytes in hex. */
export function summarize(bytes: Uint8Array): string {
  if (bytes.length === 0) return '<empty>';
  const max = 30;
  if (bytes[0] === 0x7b) {
    return bytes.length > max ? `${decoder.decode(bytes.subarray(0, max))} ...` : decoder.decode(bytes);
  }
  const hex = (b: Uint8Array) => Array.from(b, (x) => x.toString(16).padStart(2, '0')).join('');
  return bytes.length > max ? `${hex(bytes.subarray(0, max))} ...` : hex(bytes);
}

/** The Go type name of the internal object a kind decodes into (for conversion errors). */
function internalType(info: DecodeTarget): string {
  return `${info.group === '' ? 'core' : (info.group.split('.')[0] ?? '')}.${info.kind}`;
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
export function decodeBody(info: DecodeTarget, body: Body, fieldValidation: FieldValidation = DEFAULT_FIELD_VALIDATION, mediaType: BodyMediaType = 'application/json'): DecodeResult {
  const bytes = typeof body === 'string' ? encoder.encode(body) : body;
  if (bytes.length > MAX_REQUEST_BODY_BYTES) return err(requestEntityTooLargeError(MAX_REQUEST_BODY_BYTES));
  if (mediaType === PROTOBUF_MEDIA_TYPE) return decodeProtobuf(info, bytes);
  const text = typeof body === 'string' ? body : decoder.decode(bytes);
  const unrecognized = (why: string): DecodeResult => err(badRequestError(`the object provided is unrecognized (must be of type ${info.kind}): ${why} (${summarize(bytes)})`));

  // Nesting past Go's limit is Go's syntax error, found before parsing; within it the walkers
  // below do not recurse into what they do not know.
  const tooDeep = checkJsonDepth(text);
  if (tooDeep !== undefined) return unrecognized(`couldn't get version/kind; json parse error: ${tooDeep}`);
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
export function decodeValue(info: DecodeTarget, value: Record<string, unknown>, fieldValidation: FieldValidation = DEFAULT_FIELD_VALIDATION): DecodeResult {
  // The resource's kind and version fill in what the body leaves out.
  const kind = typeof value['kind'] === 'string' && value['kind'] !== '' ? value['kind'] : info.kind;
  const apiVersion = typeof value['apiVersion'] === 'string' && value['apiVersion'] !== '' ? value['apiVersion'] : info.apiVersion;
  const cannot = (why: string): DecodeResult => err(badRequestError(`${kind} in version ${JSON.stringify(versionOf(apiVersion))} cannot be handled as a ${info.kind}: ${why}`));
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
  return ok({ object: decoded.value, warnings });
}

/** The object messages a protobuf body may carry, by `apiVersion kind`: every kind the registry serves. */
const PROTOBUF_MESSAGES: ReadonlyMap<string, MessageSpec> = new Map([
  ['v1 Namespace', Namespace],
  ['v1 Service', Service],
  ['v1 Endpoints', Endpoints],
  ['v1 Event', Event],
  ['v1 Node', Node],
  ['v1 Pod', Pod],
  ['discovery.k8s.io/v1 EndpointSlice', EndpointSlice],
  ['apps/v1 Deployment', Deployment],
  ['apps/v1 ReplicaSet', ReplicaSet],
]);

/** Whether a create or update of the resource may send protobuf. */
export function decodesProtobuf(info: DecodeTarget): boolean {
  return PROTOBUF_MESSAGES.has(`${info.apiVersion} ${info.kind}`);
}

/**
 * A protobuf body: the envelope, then the object's message as the kind it names, then the JSON
 * path's checks with unknown fields ignored, since upstream's protobuf decoder has no strict
 * mode whatever fieldValidation asks. A body of a kind this table lacks goes on with its kind
 * and version only, to the same refusal a JSON body of that kind gets.
 */
function decodeProtobuf(info: DecodeTarget, bytes: Uint8Array): DecodeResult {
  const envelope = openEnvelope(bytes, info);
  if (!envelope.ok) {
    return err(badRequestError(`the object provided is unrecognized (must be of type ${info.kind}): ${envelope.error.message} (${summarize(bytes)})`));
  }
  const { apiVersion, kind, raw } = envelope.value;
  const spec = PROTOBUF_MESSAGES.get(`${apiVersion} ${kind}`);
  let fields: Record<string, unknown> = {};
  if (spec !== undefined) {
    try {
      fields = decodeMessage(spec, raw);
    } catch (e) {
      if (!(e instanceof ProtoError)) throw e;
      return err(badRequestError(`${kind} in version ${JSON.stringify(versionOf(apiVersion))} cannot be handled as a ${info.kind}: ${e.message}`));
    }
  }
  return decodeValue(info, { kind, apiVersion, ...fields }, 'Ignore');
}

// The scheme DeleteOptions bodies are decoded with (its registration site).
const META_INTERNAL_SCHEME = 'k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme/register.go:27';

/**
 * A protobuf DeleteOptions body (client-go's typed clients send one with every delete) as the
 * JSON object Go would print for it. DeleteOptions is registered in every version, so only the
 * kind is checked. A failure is a plain Go error upstream, which the apiserver answers with a
 * 500 and no reason.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/delete.go (DeleteResource),
 *           staging/src/k8s.io/apimachinery/pkg/apis/meta/internalversion/register.go
 */
export function decodeProtobufDeleteOptions(bytes: Uint8Array): Result<Record<string, unknown>, ApiError> {
  const envelope = openEnvelope(bytes, { apiVersion: 'meta.k8s.io/v1', kind: 'DeleteOptions' });
  if (!envelope.ok) return err(unknownError(envelope.error.message));
  const { apiVersion, kind, raw } = envelope.value;
  if (kind !== 'DeleteOptions') {
    return err(unknownError(`no kind ${JSON.stringify(kind)} is registered for version ${JSON.stringify(apiVersion)} in scheme ${JSON.stringify(META_INTERNAL_SCHEME)}`));
  }
  try {
    return ok(decodeMessage(DeleteOptions, raw));
  } catch (e) {
    if (!(e instanceof ProtoError)) throw e;
    return err(unknownError(e.message));
  }
}

// Kubernetes' protobuf envelope: the magic bytes `k8s\0`, then a runtime.Unknown whose typeMeta
// names the object's apiVersion and kind and whose raw is the object's own message. The kind
// and version fill in from the request's resource where the envelope leaves them empty.
// upstream: staging/src/k8s.io/apimachinery/pkg/runtime/serializer/protobuf/protobuf.go
//           (Serializer.Decode, copyKindDefaults), staging/src/k8s.io/apimachinery/pkg/runtime/
//           schema/group_version.go (ParseGroupVersion, FromAPIVersionAndKind)
import { err, ok, type Result, type TaggedError } from '@kubesvc/api-types';
import { Unknown } from './messages.js';
import { type GoStruct, unmarshalInto } from './unmarshal.js';
import { ProtoError, WireReader } from './wire.js';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';

const MAGIC = [0x6b, 0x38, 0x73, 0x00] as const;

export interface Envelope {
  readonly apiVersion: string;
  readonly kind: string;
  /** The object's message bytes. */
  readonly raw: Uint8Array;
}

/** A body that is no protobuf envelope: `message` is the Go error's text, for the caller to wrap. */
export type ErrProtobufEnvelope = TaggedError<'ErrProtobufEnvelope'>;

export type EnvelopeResult = Result<Envelope, ErrProtobufEnvelope>;

const refused = (message: string) => err<ErrProtobufEnvelope>({ _tag: 'ErrProtobufEnvelope', message });

/** ParseGroupVersion: "" and "/" are empty, one slash splits, more than one is an error (treated as empty by FromAPIVersionAndKind). */
function parseGroupVersion(apiVersion: string): { group: string; version: string } {
  if (apiVersion === '' || apiVersion === '/') return { group: '', version: '' };
  const slashes = apiVersion.split('/').length - 1;
  if (slashes === 0) return { group: '', version: apiVersion };
  if (slashes === 1) {
    const i = apiVersion.indexOf('/');
    return { group: apiVersion.slice(0, i), version: apiVersion.slice(i + 1) };
  }
  return { group: '', version: '' };
}

/**
 * Opens the envelope of a body, defaulting its kind and version to the resource's (`defaults`
 * is an apiVersion and kind). The error is the Go error's text, for the caller to wrap.
 */
export function openEnvelope(bytes: Uint8Array, defaults: { readonly apiVersion: string; readonly kind: string }): EnvelopeResult {
  if (bytes.length === 0) return refused('empty data');
  if (bytes.length < MAGIC.length || MAGIC.some((b, i) => bytes[i] !== b)) {
    return refused(`provided data does not appear to be a protobuf message, expected prefix [${MAGIC.join(' ')}]`);
  }
  if (bytes.length === MAGIC.length) return refused('empty body');
  const unknown: GoStruct = new Map();
  try {
    unmarshalInto(Unknown, new WireReader(bytes), MAGIC.length, bytes.length, unknown);
  } catch (e) {
    if (e instanceof ProtoError) return refused(e.message);
    throw e;
  }
  const typeMeta = unknown.get('typeMeta');
  const tm = typeMeta instanceof Map ? (typeMeta as GoStruct) : new Map();
  const gv = parseGroupVersion((tm.get('apiVersion') as string | undefined) ?? '');
  let kind = (tm.get('kind') as string | undefined) ?? '';
  if (kind === '') kind = defaults.kind;
  if (gv.version === '') {
    const d = parseGroupVersion(defaults.apiVersion);
    gv.group = d.group;
    gv.version = d.version;
  }
  const raw = unknown.get('raw');
  return ok({ apiVersion: gv.group === '' ? gv.version : `${gv.group}/${gv.version}`, kind, raw: raw instanceof Uint8Array ? raw : new Uint8Array(0) });
}

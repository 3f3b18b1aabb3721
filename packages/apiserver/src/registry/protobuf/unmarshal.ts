// A message's bytes to the Go struct the generated Unmarshal fills, then that struct to the
// JSON Go's encoding/json would print for it. The JSON is what the rest of the registry reads,
// so a protobuf body and the JSON body a Go client would send for the same object decode alike.
//
// What the generated code does, and this mirrors: fields may come in any order and any number
// of times; a later scalar replaces an earlier one, a repeated field appends, a singular message
// merges into the one already there, a map entry sets one key; unknown fields are skipped; a
// known field with the wrong wire type is an error naming the Go field.
// upstream: staging/src/k8s.io/api/core/v1/generated.pb.go (Unmarshal methods),
//           staging/src/k8s.io/apimachinery/pkg/apis/meta/v1/{time_proto.go,micro_time_proto.go,
//           time.go,micro_time.go,helpers.go (FieldsV1.MarshalJSON)},
//           staging/src/k8s.io/apimachinery/pkg/util/intstr/intstr.go (MarshalJSON), Go's
//           encoding/json (omitempty: a zero scalar, empty slice or map; never a struct)
import { Timestamp } from './messages.js';
import type { FieldSpec, MessageSpec, Scalar } from './schema.js';
import { ERR_UNEXPECTED_EOF, ProtoError, WireReader } from './wire.js';

/** A decoded Go struct: the fields the body set, by JSON name. */
export type GoStruct = Map<string, GoValue>;
export type GoValue = string | boolean | number | bigint | Uint8Array | GoStruct | GoTime | GoValue[] | Map<string, GoValue>;

/** A metav1.Time or MicroTime: Unix seconds and nanoseconds, or Go's zero time. */
export interface GoTime {
  readonly time: 'zero' | { readonly seconds: bigint; readonly nanos: number };
}

const utf8 = new TextDecoder('utf-8');

const resolved = new WeakMap<FieldSpec, MessageSpec>();

function messageOf(f: FieldSpec): MessageSpec | undefined {
  if (typeof f.type !== 'function') return undefined;
  let spec = resolved.get(f);
  if (spec === undefined) {
    spec = f.type();
    resolved.set(f, spec);
  }
  return spec;
}

function wireTypeOf(f: FieldSpec): number {
  return f.type === 'bool' || f.type === 'int32' || f.type === 'int64' ? 0 : 2;
}

function isGoTime(v: GoValue | undefined): v is GoTime {
  return typeof v === 'object' && v !== null && !(v instanceof Map) && !(v instanceof Uint8Array) && !Array.isArray(v);
}

/** Reads a scalar whose tag was just read. */
function readScalar(r: WireReader, type: Scalar, end: number, msgStart: number): GoValue {
  switch (type) {
    case 'bool':
      r.varint(end);
      return (r.lo | r.hi) !== 0;
    case 'int32':
      r.varint(end);
      return r.int32();
    case 'int64':
      r.varint(end);
      return r.int64();
    case 'string': {
      const post = r.lengthEnd(end, msgStart);
      const s = utf8.decode(r.buf.subarray(r.pos, post));
      r.pos = post;
      return s;
    }
    case 'bytes': {
      const post = r.lengthEnd(end, msgStart);
      const b = r.buf.slice(r.pos, post);
      r.pos = post;
      return b;
    }
  }
}

/**
 * metav1.Time's and MicroTime's hand-written Unmarshal: no bytes is the zero time, otherwise a
 * Timestamp; Time keeps whole seconds (its JSON does), MicroTime truncates to microseconds.
 */
function readTime(r: WireReader, start: number, end: number, micro: boolean): GoTime {
  if (end === start) return { time: 'zero' };
  const ts: GoStruct = new Map();
  unmarshalInto(Timestamp, r, start, end, ts);
  const seconds = (ts.get('seconds') as bigint | undefined) ?? 0n;
  const nanos = micro ? Math.trunc(((ts.get('nanos') as number | undefined) ?? 0) / 1000) * 1000 : 0;
  return { time: { seconds, nanos } };
}

/** Unmarshals the message at [start, end) into `into`, as the generated method does. */
export function unmarshalInto(spec: MessageSpec, r: WireReader, start: number, end: number, into: GoStruct): void {
  r.pos = start;
  while (r.pos < end) {
    const pre = r.pos;
    r.varint(end);
    const wireType = r.lo & 7;
    // Go's int32(wire >> 3): the low 32 bits of the shifted tag, signed.
    const fieldNum = ((r.lo >>> 3) | (r.hi << 29)) | 0;
    if (wireType === 4) throw new ProtoError(`proto: ${spec.name}: wiretype end group for non-group`);
    if (fieldNum <= 0) throw new ProtoError(`proto: ${spec.name}: illegal tag ${fieldNum} (wire type ${r.uint64()})`);
    const f = spec.byNumber.get(fieldNum);
    if (f === undefined) {
      r.pos = pre;
      const after = r.skip(end, start);
      if (after > end) throw new ProtoError(ERR_UNEXPECTED_EOF);
      r.pos = after;
      continue;
    }
    if (f.shape === 'list' && wireTypeOf(f) === 0 && wireType === 2) {
      readPacked(f, r, end, start, into);
      continue;
    }
    if (wireType !== wireTypeOf(f)) throw new ProtoError(`proto: wrong wireType = ${wireType} for field ${f.go}`);
    if (f.shape === 'map') {
      readMapEntry(f, r, end, start, into);
      continue;
    }
    const sub = messageOf(f);
    let value: GoValue;
    if (sub === undefined) {
      value = readScalar(r, f.type as Scalar, end, start);
    } else {
      const post = r.lengthEnd(end, start);
      if (sub.custom === 'Time' || sub.custom === 'MicroTime') {
        value = readTime(r, r.pos, post, sub.custom === 'MicroTime');
      } else {
        // A singular message merges into what an earlier occurrence left; a list gets a new one.
        const existing = f.shape === 'single' ? into.get(f.json) : undefined;
        const struct = existing instanceof Map ? (existing as GoStruct) : new Map<string, GoValue>();
        unmarshalInto(sub, r, r.pos, post, struct);
        value = struct;
      }
      r.pos = post;
    }
    if (f.shape === 'list') {
      const items = into.get(f.json);
      if (Array.isArray(items)) items.push(value);
      else into.set(f.json, [value]);
    } else {
      into.set(f.json, value);
    }
  }
}

/**
 * A packed repeated number (the generated code takes packed and unpacked alike). Each varint is
 * bounded by the message, not the packed run, and reading goes on from where the last one ends.
 */
function readPacked(f: FieldSpec, r: WireReader, end: number, msgStart: number, into: GoStruct): void {
  const post = r.lengthEnd(end, msgStart);
  let items = into.get(f.json);
  if (!Array.isArray(items)) {
    items = [];
    into.set(f.json, items);
  }
  while (r.pos < post) (items as GoValue[]).push(readScalar(r, f.type as Scalar, end, msgStart));
}

/**
 * One map entry. The generated code reads field 1 as the key and field 2 as the value whatever
 * their wire types, bounds their bytes by the enclosing message (not the entry), and sets the
 * key even when the entry is empty.
 */
function readMapEntry(f: FieldSpec, r: WireReader, end: number, msgStart: number, into: GoStruct): void {
  const entryEnd = r.lengthEnd(end, msgStart);
  const valueSpec = messageOf(f);
  let entries = into.get(f.json);
  if (!(entries instanceof Map)) {
    entries = new Map<string, GoValue>();
    into.set(f.json, entries);
  }
  let key = '';
  let value: GoValue = valueSpec === undefined ? '' : new Map<string, GoValue>();
  while (r.pos < entryEnd) {
    const entryPre = r.pos;
    r.varint(end);
    const fieldNum = ((r.lo >>> 3) | (r.hi << 29)) | 0;
    if (fieldNum === 1) {
      key = readScalar(r, 'string', end, msgStart) as string;
    } else if (fieldNum === 2) {
      if (valueSpec === undefined) {
        value = readScalar(r, 'string', end, msgStart);
      } else {
        const post = r.lengthEnd(end, msgStart);
        const struct: GoStruct = new Map();
        unmarshalInto(valueSpec, r, r.pos, post, struct);
        value = struct;
        r.pos = post;
      }
    } else {
      r.pos = entryPre;
      const after = r.skip(end, msgStart);
      if (after > entryEnd) throw new ProtoError(ERR_UNEXPECTED_EOF);
      r.pos = after;
    }
  }
  (entries as Map<string, GoValue>).set(key, value);
  r.pos = entryEnd;
}

// --- rendering -------------------------------------------------------------------------------

const ZERO_TIME: GoTime = { time: 'zero' };
// Seconds from 0001-01-01 to 1970-01-01: time.Unix(-62135596800, 0) is Go's zero time.
const UNIX_TO_INTERNAL = 62135596800n;

/** Go's time.Format year: at least four digits, a minus sign before negative years. */
function goYear(year: bigint): string {
  const digits = (year < 0n ? -year : year).toString().padStart(4, '0');
  return year < 0n ? `-${digits}` : digits;
}

/** UTC civil date of a day count from 1970-01-01 (Howard Hinnant's algorithm, in BigInt for any int64). */
function civil(days: bigint): { y: bigint; m: number; d: number } {
  const z = days + 719468n;
  const era = (z >= 0n ? z : z - 146096n) / 146097n;
  const doe = z - era * 146097n;
  const yoe = (doe - doe / 1460n + doe / 36524n - doe / 146096n) / 365n;
  const doy = doe - (365n * yoe + yoe / 4n - yoe / 100n);
  const mp = (5n * doy + 2n) / 153n;
  const d = Number(doy - (153n * mp + 2n) / 5n + 1n);
  const m = Number(mp < 10n ? mp + 3n : mp - 9n);
  const y = yoe + era * 400n + (m <= 2 ? 1n : 0n);
  return { y, m, d };
}

const pad2 = (n: number | bigint): string => n.toString().padStart(2, '0');

/** RFC 3339 in UTC as Time.MarshalJSON writes it (MicroTime: with six fraction digits); null for the zero time. */
function renderTime(t: GoTime, micro: boolean): string | null {
  if (t.time === 'zero') return null;
  // time.Unix normalises the nanoseconds into [0, 1e9) by borrowing seconds.
  let seconds = t.time.seconds + BigInt(Math.floor(t.time.nanos / 1e9));
  const nanos = ((t.time.nanos % 1e9) + 1e9) % 1e9;
  if (seconds === -UNIX_TO_INTERNAL && nanos === 0) return null;
  const days = (seconds >= 0n ? seconds : seconds - 86399n) / 86400n;
  seconds -= days * 86400n;
  const { y, m, d } = civil(days);
  const hh = seconds / 3600n;
  const mm = (seconds % 3600n) / 60n;
  const ss = seconds % 60n;
  const fraction = micro ? `.${String(Math.trunc(nanos / 1000)).padStart(6, '0')}` : '';
  return `${goYear(y)}-${pad2(m)}-${pad2(d)}T${pad2(hh)}:${pad2(mm)}:${pad2(ss)}${fraction}Z`;
}

function zeroOf(type: Scalar): GoValue {
  switch (type) {
    case 'string':
      return '';
    case 'bool':
      return false;
    case 'int32':
      return 0;
    case 'int64':
      return 0n;
    case 'bytes':
      return new Uint8Array(0);
  }
}

function isZeroScalar(v: GoValue): boolean {
  return v === '' || v === false || v === 0 || v === 0n || (v instanceof Uint8Array && v.length === 0);
}

function renderScalar(v: GoValue): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (v instanceof Uint8Array) return Buffer.from(v).toString('base64');
  return v;
}

function renderMessage(spec: MessageSpec, value: GoValue | undefined): unknown {
  switch (spec.custom) {
    case 'Time':
    case 'MicroTime':
      return renderTime(isGoTime(value) ? value : ZERO_TIME, spec.custom === 'MicroTime');
    default:
      break;
  }
  const struct = value instanceof Map ? (value as GoStruct) : new Map<string, GoValue>();
  switch (spec.custom) {
    case 'IntOrString':
      // Type 1 is intstr.String; every other type prints the int (upstream refuses to print a
      // type other than 0 or 1 at all, which no client sends).
      return struct.get('type') === 1n ? ((struct.get('strVal') as string | undefined) ?? '') : ((struct.get('intVal') as number | undefined) ?? 0);
    case 'Quantity':
      // The text as sent: the JSON path keeps quantities as given too (no canonical form).
      return (struct.get('string') as string | undefined) ?? '0';
    case 'FieldsV1': {
      const raw = struct.get('Raw');
      if (!(raw instanceof Uint8Array)) return null;
      try {
        return JSON.parse(utf8.decode(raw)) as unknown;
      } catch {
        return null;
      }
    }
    default:
      return renderStruct(spec, struct);
  }
}

function renderElement(f: FieldSpec, v: GoValue): unknown {
  const sub = messageOf(f);
  return sub === undefined ? renderScalar(v) : renderMessage(sub, v);
}

/** The JSON object encoding/json prints for the struct. */
export function renderStruct(spec: MessageSpec, struct: GoStruct): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of spec.fields) {
    const v = struct.get(f.json);
    if (f.shape === 'list') {
      const items = Array.isArray(v) ? v : [];
      if (items.length > 0) out[f.json] = items.map((item) => renderElement(f, item));
      else if (!f.omitempty) out[f.json] = null;
      continue;
    }
    if (f.shape === 'map') {
      const entries = v instanceof Map ? (v as Map<string, GoValue>) : new Map<string, GoValue>();
      if (entries.size > 0) {
        const obj: Record<string, unknown> = {};
        for (const [k, item] of entries) Object.defineProperty(obj, k, { value: renderElement(f, item), enumerable: true, writable: true, configurable: true });
        out[f.json] = obj;
      } else if (!f.omitempty) out[f.json] = null;
      continue;
    }
    const sub = messageOf(f);
    if (f.pointer) {
      // A nil pointer prints null unless omitempty leaves it out (GRPCAction's service).
      if (v !== undefined) out[f.json] = renderElement(f, v);
      else if (!f.omitempty) out[f.json] = null;
      continue;
    }
    if (sub !== undefined && f.inline) {
      Object.assign(out, renderStruct(sub, v instanceof Map ? (v as GoStruct) : new Map<string, GoValue>()));
      continue;
    }
    if (sub !== undefined) {
      // A struct is never empty to encoding/json: it is always printed.
      out[f.json] = renderMessage(sub, v);
      continue;
    }
    const scalar = v ?? zeroOf(f.type as Scalar);
    if (f.omitempty && isZeroScalar(scalar)) continue;
    out[f.json] = renderScalar(scalar);
  }
  return out;
}

/** Unmarshals `bytes` as `spec` and renders it; throws ProtoError. */
export function decodeMessage(spec: MessageSpec, bytes: Uint8Array): Record<string, unknown> {
  const r = new WireReader(bytes);
  const struct: GoStruct = new Map();
  unmarshalInto(spec, r, 0, bytes.length, struct);
  return renderStruct(spec, struct);
}

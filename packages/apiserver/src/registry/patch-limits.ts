// The bounds and the stack-safe JSON helpers the patchers share. A patch body comes from the
// client, so everything here walks JSON values with an explicit stack (never the call stack)
// and costs time linear in what it walks: a body nested as deep as Go's decoder allows
// (10,000 levels) patches as upstream patches it instead of overflowing the call stack.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (maxJSONPatchOperations),
//           staging/src/k8s.io/apiserver/pkg/server/config.go (JSONPatchMaxCopyBytes, which
//           becomes the json-patch library's AccumulatedCopySizeLimit),
//           go/src/encoding/json/encode.go (the bytes json.Marshal writes for a value)
import { err, ok, type Result, type TaggedError } from '@kubesvc/api-types';
import { goJSONSyntaxError } from './go-json-error.js';
import { checkJsonDepth } from './json-depth.js';

/** The most operations one JSON patch may hold; more is 413. */
export const MAX_JSON_PATCH_OPERATIONS = 10000;

/** The most bytes the `copy` operations of one JSON patch may add, together (3 MiB). */
export const JSON_PATCH_MAX_COPY_BYTES = 3 * 1024 * 1024;

/** A body json.Unmarshal refuses: `message` is Go's *json.SyntaxError text. */
export type ErrJSONSyntax = TaggedError<'ErrJSONSyntax'>;

export type DecodedJSON = Result<unknown, ErrJSONSyntax>;

/**
 * Decodes a patch body as Go's json.Unmarshal would: the value, or Go's syntax error text
 * (which includes "exceeded max depth" for a body nested deeper than 10,000 levels).
 */
export function decodePatchJSON(text: string): DecodedJSON {
  const tooDeep = checkJsonDepth(text);
  if (tooDeep !== undefined) return err({ _tag: 'ErrJSONSyntax', message: tooDeep });
  try {
    return ok(JSON.parse(text) as unknown);
  } catch {
    return err({ _tag: 'ErrJSONSyntax', message: goJSONSyntaxError(text) ?? 'unexpected end of JSON input' });
  }
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * Sets an own data property. A plain assignment to `__proto__` would replace the object's
 * prototype instead; to Go that key is an ordinary map key, and here it stays one.
 */
export function setOwn(object: Record<string, unknown>, key: string, value: unknown): void {
  if (key === '__proto__') Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
  else object[key] = value;
}

/** The value of an own property, or undefined (never one inherited from a prototype). */
export function getOwn(object: Record<string, unknown>, key: string): unknown {
  return Object.hasOwn(object, key) ? object[key] : undefined;
}

/** A deep copy of a decoded JSON value, however deep, without recursion. */
export function cloneJSON<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  const copyOf = (v: unknown): unknown => (typeof v !== 'object' || v === null ? v : Array.isArray(v) ? new Array<unknown>(v.length) : {});
  const root = copyOf(value);
  const work: [unknown, unknown][] = [[value, root]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [from, to] = item;
    if (Array.isArray(from)) {
      const out = to as unknown[];
      for (let k = 0; k < from.length; k++) {
        const v: unknown = from[k];
        const c = copyOf(v);
        out[k] = c;
        if (c !== v) work.push([v, c]);
      }
    } else {
      const out = to as Record<string, unknown>;
      for (const [k, v] of Object.entries(from as Record<string, unknown>)) {
        const c = copyOf(v);
        setOwn(out, k, c);
        if (c !== v) work.push([v, c]);
      }
    }
  }
  return root as T;
}

/** The UTF-8 bytes Go's encoder writes for one string, quotes included (HTML-safe escaping). */
function goStringSize(s: string): number {
  let n = 2;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c === 0x22 || c === 0x5c || c === 0x0a || c === 0x0d || c === 0x09 || c === 0x08 || c === 0x0c) n += 2;
    else if (c < 0x20 || c === 0x3c || c === 0x3e || c === 0x26 || c === 0x2028 || c === 0x2029) n += 6;
    else if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      n += 4;
      i++;
    } else n += 3; // the rest of the BMP, and a lone surrogate (Go writes U+FFFD)
  }
  return n;
}

/**
 * The byte length of json.Marshal(value) (compact), the size the json-patch library charges a
 * `copy` for, or `Infinity` as soon as it passes `budget`: the check costs at most what the
 * budget allows, not what the value holds.
 */
export function goJSONSizeWithin(value: unknown, budget: number): number {
  let size = 0;
  const work: unknown[] = [value];
  while (work.length > 0) {
    const v = work.pop();
    if (v === null || v === undefined) size += 4;
    else if (typeof v === 'string') size += goStringSize(v);
    else if (typeof v === 'number') size += JSON.stringify(v).length;
    else if (typeof v === 'boolean') size += v ? 4 : 5;
    else if (Array.isArray(v)) {
      size += 2 + Math.max(0, v.length - 1);
      for (const e of v) work.push(e);
    } else {
      const entries = Object.entries(v as Record<string, unknown>);
      size += 2 + Math.max(0, entries.length - 1);
      for (const [k, e] of entries) {
        size += goStringSize(k) + 1;
        work.push(e);
      }
    }
    if (size > budget) return Infinity;
  }
  return size;
}

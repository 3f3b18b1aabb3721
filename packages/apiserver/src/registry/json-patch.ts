// JSON patch (RFC 6902) as the apiserver applies it: with the json-patch library Kubernetes
// vendors (gopkg.in/evanphx/json-patch.v4), whose answers differ from the RFC's in places
// clients can see, and with the apiserver's bounds on a patch's cost.
// upstream: vendor/gopkg.in/evanphx/json-patch.v4/patch.go (DecodePatch, Apply, findObject,
//           partialDoc/partialArray get/set/add/remove, the add/remove/replace/move/test/copy
//           operations and their error texts, deepCopy), .../errors.go (AccumulatedCopySizeError),
//           staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (applyJSPatch)
//
// The library's behaviour kept here, RFC or not:
// - `replace` of a key an object lacks adds it (partialDoc.get never fails); of an array
//   index out of range fails.
// - `copy` from a key an object lacks copies null; `test` of a missing key passes against null.
// - `add`/`replace` without `value` write null.
// - Array indices are strconv.Atoi's: a sign and leading zeros are accepted, and a negative
//   index counts from the end (SupportNegativeIndices); `-` appends on `add` only.
// - A path without a leading `/` names its last token in the document root; `""` names no
//   location except for `replace` (the whole document, which must become an object or array)
//   and `test` (compares the whole document).
// - Each `copy` is charged the size json.Marshal gives the copied value; past 3 MiB in all the
//   patch fails (AccumulatedCopySizeLimit, which the apiserver sets to JSONPatchMaxCopyBytes).
// - Scalars compare by value here; the library compares their JSON spellings, so `1.0` does
//   not `test` equal to `1` there. The apiserver encodes the stored object itself, so this
//   differs only for a number or string spelled unusually in the patch.
//
// Everything walks with explicit stacks; each operation costs what its path, value and (for
// `copy`, within the budget) copied value hold, never the whole document.
import { err, ok, type Result, type TaggedError } from '@kubesvc/api-types';
import { cloneJSON, getOwn, goJSONSizeWithin, isPlainObject, JSON_PATCH_MAX_COPY_BYTES, setOwn } from './patch-limits.js';

/** DecodePatch refused the patch (the apiserver's 400): `message` is Go's UnmarshalTypeError text. */
export type ErrJSONPatchDecode = TaggedError<'ErrJSONPatchDecode'>;

/** Apply failed (the apiserver's 422): `message` is the library's error text for the first failing operation. */
export type ErrJSONPatchApply = TaggedError<'ErrJSONPatchApply'>;

type Container = unknown[] | Record<string, unknown>;
type Operation = Record<string, unknown> | null;

class ApplyError {
  constructor(readonly message: string) {}
}

function applyError(message: string): never {
  throw new ApplyError(message);
}

function decodeError(message: string) {
  return err<ErrJSONPatchDecode>({ _tag: 'ErrJSONPatchDecode', message });
}

/** Go's name for a JSON value's kind in an UnmarshalTypeError. */
function jsonKind(value: unknown): string {
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  if (value === null) return 'null';
  return typeof value;
}

/**
 * DecodePatch: json.Unmarshal into []map[string]*json.RawMessage. `null` is an empty patch.
 * Returns the operations or Go's UnmarshalTypeError text.
 */
export function decodeJsonPatch(value: unknown): Result<Operation[], ErrJSONPatchDecode> {
  if (value === null) return ok([]);
  if (!Array.isArray(value)) return decodeError(`json: cannot unmarshal ${jsonKind(value)} into Go value of type jsonpatch.Patch`);
  for (const op of value) {
    if (op !== null && !isPlainObject(op)) return decodeError(`json: cannot unmarshal ${jsonKind(op)} into Go value of type jsonpatch.Operation`);
  }
  return ok(value as Operation[]);
}

/** Operation.Kind: the `op` string, or "unknown". */
function kindOf(op: Operation): string {
  const kind = op === null ? undefined : getOwn(op, 'op');
  return typeof kind === 'string' ? kind : 'unknown';
}

/** Operation.Path / From: the string, or the library's error. */
function stringField(op: Operation, field: 'path' | 'from'): Result<string, ErrJSONPatchDecode> {
  const v = op === null ? undefined : getOwn(op, field);
  if (v === undefined || v === null) {
    return decodeError(field === 'path' ? 'operation missing path field: missing value' : 'operation, missing from field: missing value');
  }
  if (typeof v !== 'string') return decodeError(`json: cannot unmarshal ${jsonKind(v)} into Go value of type string`);
  return ok(v);
}

/** The operation's value: absent and null are both Go's nil node here. */
function valueOf(op: Operation): unknown {
  const v = op === null ? undefined : getOwn(op, 'value');
  return v === undefined ? null : v;
}

function hasValue(op: Operation): boolean {
  return op !== null && Object.hasOwn(op, 'value');
}

/** RFC 6901 unescaping, left to right: `~1` is `/`, `~0` is `~`. */
function decodeKey(token: string): string {
  return token.includes('~') ? token.replace(/~[01]/g, (m) => (m === '~1' ? '/' : '~')) : token;
}

/** strconv.Atoi, for an index: undefined where Go gives an error (an index that large is out of range anyway). */
function atoi(key: string): number | undefined {
  if (!/^[+-]?[0-9]+$/.test(key)) return undefined;
  const n = Number(key);
  return Number.isSafeInteger(n) ? n : undefined;
}

function invalidIndex(idx: number): never {
  return applyError(`Unable to access invalid index: ${idx}: invalid index referenced`);
}

/** partialArray.get / partialDoc.get: a missing object key is undefined, a bad index throws. */
function getIn(con: Container, key: string): unknown {
  if (!Array.isArray(con)) return getOwn(con, key);
  const parsed = atoi(key);
  if (parsed === undefined) return applyError(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  let idx = parsed;
  if (idx < 0) {
    if (idx < -con.length) invalidIndex(idx);
    idx += con.length;
  }
  if (idx >= con.length) invalidIndex(idx);
  return con[idx];
}

function addIn(con: Container, key: string, value: unknown): void {
  if (!Array.isArray(con)) {
    setOwn(con, key, value);
    return;
  }
  if (key === '-') {
    con.push(value);
    return;
  }
  const parsed = atoi(key);
  if (parsed === undefined) return applyError(`value was not a proper array index: '${key}': strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  let idx = parsed;
  const size = con.length + 1;
  if (idx >= size) invalidIndex(idx);
  if (idx < 0) {
    if (idx < -size) invalidIndex(idx);
    idx += size;
  }
  con.splice(idx, 0, value);
}

/** partialArray.set, only ever after a successful get (so the index is in range). */
function setIn(con: Container, key: string, value: unknown): void {
  if (!Array.isArray(con)) {
    setOwn(con, key, value);
    return;
  }
  let idx = atoi(key) ?? 0;
  if (idx < 0) idx += con.length;
  con[idx] = value;
}

function removeIn(con: Container, key: string): void {
  if (!Array.isArray(con)) {
    if (!Object.hasOwn(con, key)) applyError(`Unable to remove nonexistent key: ${key}: missing value`);
    delete con[key];
    return;
  }
  const parsed = atoi(key);
  if (parsed === undefined) return applyError(`strconv.Atoi: parsing ${JSON.stringify(key)}: invalid syntax`);
  let idx = parsed;
  if (idx >= con.length) invalidIndex(idx);
  if (idx < 0) {
    if (idx < -con.length) invalidIndex(idx);
    idx += con.length;
  }
  con.splice(idx, 1);
}

/**
 * findObject: the container holding the path's last token, and that token; undefined when a
 * token on the way is missing, null, a scalar or a bad index, or the path has no `/`.
 */
function findObject(root: Container, path: string): [Container, string] | undefined {
  const split = path.split('/');
  if (split.length < 2) return undefined;
  let doc: Container = root;
  for (let k = 1; k < split.length - 1; k++) {
    let next: unknown;
    try {
      next = getIn(doc, decodeKey(split[k] ?? ''));
    } catch (e) {
      if (e instanceof ApplyError) return undefined;
      throw e;
    }
    if (Array.isArray(next) || isPlainObject(next)) doc = next;
    else return undefined;
  }
  return [doc, decodeKey(split[split.length - 1] ?? '')];
}

/** lazyNode.equal: structural equality, null and missing alike, without recursion. */
function jsonEqual(a: unknown, b: unknown): boolean {
  const work: [unknown, unknown][] = [[a, b]];
  for (let pair = work.pop(); pair !== undefined; pair = work.pop()) {
    const [x, y] = pair;
    const xn = x ?? null;
    const yn = y ?? null;
    if (Array.isArray(xn)) {
      if (!Array.isArray(yn) || xn.length !== yn.length) return false;
      for (let k = 0; k < xn.length; k++) work.push([xn[k], yn[k]]);
    } else if (isPlainObject(xn)) {
      if (!isPlainObject(yn)) return false;
      const keys = Object.keys(xn);
      if (keys.length !== Object.keys(yn).length) return false;
      for (const k of keys) {
        if (!Object.hasOwn(yn, k)) return false;
        work.push([xn[k], yn[k]]);
      }
    } else if (xn !== yn) {
      return false;
    }
  }
  return true;
}

/**
 * Applies decoded operations to a copy of `doc` (never changed). The result is the library's:
 * the patched document, or the error text of the first operation that fails.
 */
export function applyJsonPatch(doc: unknown, operations: readonly Operation[], copyLimit = JSON_PATCH_MAX_COPY_BYTES): Result<unknown, ErrJSONPatchApply> {
  let root = cloneJSON(doc) as Container;
  let copied = 0;
  const path = (op: Operation, verb: string, wrapMissing: boolean): string => {
    const p = stringField(op, 'path');
    if (!p.ok) applyError(`${verb} operation failed to decode path: ${wrapMissing ? 'missing value' : p.error.message}`);
    return p.value;
  };
  const from = (op: Operation, verb: string): string => {
    const f = stringField(op, 'from');
    if (!f.ok) applyError(`${verb} operation failed to decode from: ${f.error.message}`);
    return f.value;
  };
  const wrap = <T>(prefix: string, f: () => T): T => {
    try {
      return f();
    } catch (e) {
      if (e instanceof ApplyError) return applyError(`${prefix}: ${e.message}`);
      throw e;
    }
  };
  try {
    for (const op of operations) {
      const kind = kindOf(op);
      switch (kind) {
        case 'add': {
          const p = path(op, 'add', true);
          const found = findObject(root, p) ?? applyError(`add operation does not apply: doc is missing path: "${p}": missing value`);
          wrap(`error in add for path: '${p}'`, () => addIn(found[0], found[1], valueOf(op)));
          break;
        }
        case 'remove': {
          const p = path(op, 'remove', true);
          const found = findObject(root, p) ?? applyError(`remove operation does not apply: doc is missing path: "${p}": missing value`);
          wrap(`error in remove for path: '${p}'`, () => removeIn(found[0], found[1]));
          break;
        }
        case 'replace': {
          const p = path(op, 'replace', false);
          if (p === '') {
            const v = valueOf(op);
            if (!Array.isArray(v) && !isPlainObject(v)) applyError('replace operation value must be object or array: %!w(<nil>)');
            root = v;
            break;
          }
          const found = findObject(root, p) ?? applyError(`replace operation does not apply: doc is missing path: ${p}: missing value`);
          try {
            getIn(found[0], found[1]);
          } catch (e) {
            if (e instanceof ApplyError) applyError(`replace operation does not apply: doc is missing key: ${p}: missing value`);
            throw e;
          }
          setIn(found[0], found[1], valueOf(op));
          break;
        }
        case 'move': {
          const f = from(op, 'move');
          const source = findObject(root, f) ?? applyError(`move operation does not apply: doc is missing from path: ${f}: missing value`);
          const moved = wrap(`error in move for path: '${source[1]}'`, () => getIn(source[0], source[1]));
          wrap(`error in move for path: '${source[1]}'`, () => removeIn(source[0], source[1]));
          const p = stringField(op, 'path');
          if (!p.ok) applyError(`move operation failed to decode path: ${p.error.message}`);
          const target = findObject(root, p.value) ?? applyError(`move operation does not apply: doc is missing destination path: ${p.value}: missing value`);
          wrap(`error in move for path: '${p.value}'`, () => addIn(target[0], target[1], moved ?? null));
          break;
        }
        case 'test': {
          const p = path(op, 'test', false);
          if (p === '') {
            if (!hasValue(op) || !jsonEqual(root, valueOf(op))) applyError(`testing value ${p} failed: test failed`);
            break;
          }
          const found = findObject(root, p) ?? applyError(`test operation does not apply: is missing path: ${p}: missing value`);
          const actual = wrap(`error in test for path: '${p}'`, () => getIn(found[0], found[1]));
          const expected = valueOf(op);
          const passes = actual === undefined || actual === null ? expected === null : hasValue(op) && jsonEqual(actual, expected);
          if (!passes) applyError(`testing value ${p} failed: test failed`);
          break;
        }
        case 'copy': {
          const f = from(op, 'copy');
          const source = findObject(root, f) ?? applyError(`copy operation does not apply: doc is missing from path: ${f}: missing value`);
          const value = wrap(`error in copy for from: '${f}'`, () => getIn(source[0], source[1]));
          const p = path(op, 'copy', true);
          const target = findObject(root, p) ?? applyError(`copy operation does not apply: doc is missing destination path: ${p}: missing value`);
          // deepCopy of a nil node (a missing key, or null) copies null and costs nothing;
          // otherwise the copy costs its marshalled size, measured before anything is copied.
          if (value !== undefined && value !== null) {
            const size = goJSONSizeWithin(value, copyLimit - copied);
            if (size === Infinity) {
              const total = copied + goJSONSizeWithin(value, Infinity);
              applyError(`Unable to complete the copy, the accumulated size increase of copy is ${total}, exceeding the limit ${copyLimit}`);
            }
            copied += size;
          }
          wrap('error while adding value during copy', () => addIn(target[0], target[1], cloneJSON(value ?? null)));
          break;
        }
        default:
          applyError(`Unexpected kind: ${kind}`);
      }
    }
  } catch (e) {
    if (e instanceof ApplyError) return err({ _tag: 'ErrJSONPatchApply', message: e.message });
    throw e;
  }
  return ok(root);
}

// Strategic merge patch, as kube-apiserver applies it (`application/strategic-merge-patch+json`):
// JSON merge patch, except that lists tagged `patchStrategy:"merge"` merge element by element
// (by their `patchMergeKey`, or as a set of scalars), and the directives `$patch`,
// `$retainKeys`, `$setElementOrder/<list>` and `$deleteFromPrimitiveList/<list>` steer it.
// upstream: staging/src/k8s.io/apimachinery/pkg/util/strategicpatch/patch.go (v1.32:
//           StrategicMergeMapPatch with MergeParallelList and IgnoreUnmatchedNulls, mergeMap,
//           mergePatchIntoOriginal, mergeSlice, normalizeElementOrder, mergeSortedSlice),
//           staging/src/k8s.io/apimachinery/pkg/util/mergepatch/errors.go (the error texts),
//           staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go (strategicPatchObject,
//           interpretStrategicMergePatchError: which error is 400, which 422, the rest 500)
//
// Go walks a patch's keys in random map order; this walks them in the patch's own order. The
// two differ only for a patch that names one scalar both in a list and in its
// `$deleteFromPrimitiveList`, where upstream's answer is itself a coin toss.
import { err, ok, type Result, type TaggedError } from '@kubesvc/api-types';
import { cloneJSON, getOwn, setOwn } from './patch-limits.js';
import { lookupField, type PatchStruct } from './patch-strategy.js';
import { goFormat, goKind, goTypeName, isJsonMap, type GoKind, type Json, type JsonMap } from './strategic-merge-patch-go-format.js';

const DIRECTIVE = '$patch';
const DELETE = 'delete';
const REPLACE = 'replace';
const MERGE = 'merge';
const RETAIN_KEYS = '$retainKeys';
const DELETE_FROM_PRIMITIVE_LIST = '$deleteFromPrimitiveList';
const SET_ELEMENT_ORDER = '$setElementOrder';

/**
 * How the apiserver answers a failed strategic merge: `BadRequest` (400, the text as the
 * message), `Invalid` (422, the generic "the server rejected our request" text) or `Unknown`
 * (a plain Go error: 500 with the text and no reason, printed by kubectl as
 * `Error from server: <text>`).
 */
export type StrategicMergeErrorTag = 'BadRequest' | 'Invalid' | 'Unknown';
export type StrategicMergeError = TaggedError<StrategicMergeErrorTag>;

// mergepatch's sentinel errors, with the status interpretStrategicMergePatchError gives them.
const BAD_PRIMITIVE_LIST = 'invalid patch format of primitive list';
const BAD_RETAIN_KEYS = 'invalid patch format of retainKeys';
const BAD_SET_ELEMENT_ORDER = 'invalid patch format of setElementOrder list';
const NO_LIST_OF_LISTS = 'lists of lists are not supported';

/** Thrown inside the merge and caught by applyStrategicMergePatch, which returns it as a value. */
class Failure {
  constructor(readonly error: StrategicMergeError) {}
}

function fail(tag: StrategicMergeErrorTag, message: string): never {
  throw new Failure({ _tag: tag, message });
}

/** mergepatch.ErrBadArgType: `expected a <type>, but received a <type>`. */
function badArgType(expected: 'map' | 'slice', actual: Json): never {
  const want = expected === 'map' ? 'map[string]interface {}' : '[]interface {}';
  return fail('Unknown', `expected a ${want}, but received a ${goTypeName(actual)}`);
}

/** mergepatch.ErrNoMergeKey */
function noMergeKey(m: JsonMap, key: string): never {
  return fail('Unknown', `map: ${goFormat(m)} does not contain declared merge key: ${key}`);
}

/** mergepatch.ErrBadPatchType: the value is printed with %s, the map with %v. */
function badPatchType(directive: Json, m: JsonMap): never {
  return fail('Unknown', `unknown patch type: ${goFormat(directive, 's')} in map: ${goFormat(m)}`);
}

function has(m: JsonMap, key: string): boolean {
  return Object.hasOwn(m, key);
}

/** Go's `==` on two interface values holding decoded JSON scalars (maps and lists never match here). */
function goEqual(a: Json, b: Json): boolean {
  if (typeof a === 'object' && a !== null) return false;
  return goKind(a) === goKind(b) && a === b;
}

function asMap(value: Json): JsonMap {
  return isJsonMap(value) ? value : badArgType('map', value);
}

/**
 * Applies a strategic merge patch to `original` (both decoded JSON objects), with the patch
 * metadata of `schema` (patch-strategy.ts). Neither argument is changed.
 */
export function applyStrategicMergePatch(original: JsonMap, patch: JsonMap, schema: PatchStruct | undefined): Result<JsonMap, StrategicMergeError> {
  try {
    return ok(mergeMap(cloneJSON(original), cloneJSON(patch), schema));
  } catch (e) {
    if (e instanceof Failure) return err(e.error);
    throw e;
  }
}

/** A map with `$patch`: replace takes the patch (less the directive), delete empties it. */
function directiveInMap(directive: Json, patch: JsonMap): JsonMap {
  if (directive === REPLACE) {
    delete patch[DIRECTIVE];
    return patch;
  }
  if (directive === DELETE) return {};
  return badPatchType(directive, patch);
}

function mergeMap(original: JsonMap, patch: JsonMap, schema: PatchStruct | undefined): JsonMap {
  if (has(patch, DIRECTIVE)) return directiveInMap(patch[DIRECTIVE] ?? null, patch);
  applyRetainKeys(original, patch);
  mergeOrderedLists(original, patch, schema);
  for (const [patchKey, patchV] of Object.entries(patch)) {
    let key = patchKey;
    const isDeleteList = patchKey.startsWith(DELETE_FROM_PRIMITIVE_LIST);
    if (isDeleteList) key = extractKey(patchKey, DELETE_FROM_PRIMITIVE_LIST);
    // null deletes the key; a null for a key the object lacks is dropped.
    if (patchV === null) {
      delete original[key];
      continue;
    }
    // An own property only: `__proto__` is an ordinary key to Go, never the prototype.
    const current = getOwn(original, key) as Json | undefined;
    if (current === undefined || goKind(current) !== goKind(patchV)) {
      // Not in the object, or of another JSON type: the patch value, less its nulls and directives.
      if (!isDeleteList) takePatchValue(original, key, patchV);
      continue;
    }
    if (isJsonMap(current)) {
      const field = lookupField(schema, key);
      setOwn(original, key, field.strategy === REPLACE ? patchV : mergeMap(current, asMap(patchV), field.schema));
    } else if (Array.isArray(current)) {
      const field = lookupField(schema, key);
      // A delete list is applied whatever the field's strategy (mergeSliceHandler).
      setOwn(original, key, field.strategy === MERGE || isDeleteList ? mergeList(current, patchV as Json[], field.schema, field.mergeKey, field.elementKind, isDeleteList) : patchV);
    } else {
      takePatchValue(original, key, patchV);
    }
  }
  return original;
}

function takePatchValue(original: JsonMap, key: string, patchV: Json): void {
  discardNulls(patchV);
  const [value, keep] = removeDirectives(patchV);
  if (keep) setOwn(original, key, value);
  else delete original[key];
}

/** discardNullValuesFromPatch: a value taken whole keeps no null member, at any depth. */
function discardNulls(value: Json): void {
  const work: Json[] = [value];
  for (let v = work.pop(); v !== undefined; v = work.pop()) {
    if (Array.isArray(v)) {
      for (const e of v) if (typeof e === 'object' && e !== null) work.push(e);
    } else if (isJsonMap(v)) {
      for (const [k, e] of Object.entries(v)) {
        if (e === null) delete v[k];
        else if (typeof e === 'object') work.push(e);
      }
    }
  }
}

function isDirectiveMap(value: Json | undefined): boolean {
  return isJsonMap(value) && has(value, DIRECTIVE);
}

/**
 * removeDirectives: a map carrying `$patch` is dropped (from its parent map or list). Lists
 * are rebuilt (the caller's list is left as it was) and maps are changed in place, as
 * upstream does; the walk keeps its own stack, so a patch value of any depth is fine.
 */
function removeDirectives(value: Json): [Json, boolean] {
  if (isDirectiveMap(value)) return [null, false];
  let result: Json = value;
  const work: [Json, (rebuilt: Json[]) => void][] = [[value, (rebuilt) => (result = rebuilt)]];
  for (let item = work.pop(); item !== undefined; item = work.pop()) {
    const [v, place] = item;
    if (Array.isArray(v)) {
      const kept: Json[] = [];
      for (const e of v) {
        if (isDirectiveMap(e)) continue;
        const at = kept.length;
        kept.push(e);
        if (Array.isArray(e)) work.push([e, (rebuilt) => (kept[at] = rebuilt)]);
        else if (isJsonMap(e)) work.push([e, () => undefined]);
      }
      place(kept);
    } else if (isJsonMap(v)) {
      for (const [k, e] of Object.entries(v)) {
        if (isDirectiveMap(e)) delete v[k];
        else if (Array.isArray(e)) work.push([e, (rebuilt) => setOwn(v, k, rebuilt)]);
        else if (isJsonMap(e)) work.push([e, () => undefined]);
      }
    }
  }
  return [result, true];
}

/** `$deleteFromPrimitiveList/finalizers` -> `finalizers`. */
function extractKey(key: string, prefix: typeof DELETE_FROM_PRIMITIVE_LIST | typeof SET_ELEMENT_ORDER): string {
  const slash = key.indexOf('/');
  if (slash < 0 || key.slice(0, slash) !== prefix) fail('BadRequest', prefix === SET_ELEMENT_ORDER ? BAD_SET_ELEMENT_ORDER : BAD_PRIMITIVE_LIST);
  return key.slice(slash + 1);
}

/**
 * `$retainKeys: [a, b]` clears every other key of the object; every key the patch sets must
 * be in the list.
 */
function applyRetainKeys(original: JsonMap, patch: JsonMap): void {
  if (!has(patch, RETAIN_KEYS)) return;
  const retain = patch[RETAIN_KEYS];
  delete patch[RETAIN_KEYS];
  if (!Array.isArray(retain)) fail('BadRequest', BAD_RETAIN_KEYS);
  const kept = new Set(retain.filter((k): k is string => typeof k === 'string'));
  for (const [k, v] of Object.entries(patch)) {
    if (v === null || k.startsWith(DELETE_FROM_PRIMITIVE_LIST) || k.startsWith(SET_ELEMENT_ORDER)) continue;
    if (!kept.has(k)) fail('BadRequest', BAD_RETAIN_KEYS);
  }
  for (const k of Object.keys(original)) if (!kept.has(k)) delete original[k];
}

/** The Go kind shared by the elements of the lists (sliceElementType). */
function elementKind(...lists: readonly Json[][]): GoKind {
  let kind: GoKind | undefined;
  for (const list of lists) {
    for (const v of list) {
      const k = goKind(v);
      if (kind === undefined) {
        if (k === 'slice') fail('Invalid', NO_LIST_OF_LISTS);
        kind = k;
      } else if (k !== kind) {
        fail('Unknown', `list element types are not identical: ${goFormat(lists.map((l) => l))}`);
      }
    }
  }
  return kind ?? fail('Unknown', 'no elements in any of the given slices');
}

/**
 * mergePatchIntoOriginal: each `$setElementOrder/<list>` merges that list now and orders the
 * result as the directive says; elements only the stored object has keep their place
 * relative to it.
 */
function mergeOrderedLists(original: JsonMap, patch: JsonMap, schema: PatchStruct | undefined): void {
  for (const [directiveKey, order] of Object.entries(patch)) {
    if (!directiveKey.startsWith(SET_ELEMENT_ORDER)) continue;
    delete patch[directiveKey];
    if (!Array.isArray(order)) return badArgType('slice', order);
    const key = extractKey(directiveKey, SET_ELEMENT_ORDER);
    const foundOriginal = has(original, key);
    const foundPatch = has(patch, key);
    const originalList = foundOriginal ? listOrFail(original[key] ?? null) : [];
    const patchList = foundPatch ? listOrFail(patch[key] ?? null) : [];
    const field = lookupField(schema, key);
    validateOrder(patchList, order, field.mergeKey);
    let merged: Json[];
    if (foundOriginal && !foundPatch) merged = originalList;
    else if (!foundOriginal && foundPatch) merged = removeDirectives(patchList)[0] as Json[];
    else if (foundOriginal && foundPatch) merged = field.strategy === MERGE ? mergeList(originalList, patchList, field.schema, field.mergeKey, field.elementKind, false) : patchList;
    else continue;
    const [inOrder, serverOnly] = partition(merged, order, field.mergeKey);
    const kind = elementKind(originalList, patchList);
    setOwn(original, key, normalizeElementOrder(inOrder, serverOnly, order, originalList, field.mergeKey, kind));
    delete patch[key];
  }
}

function listOrFail(value: Json): Json[] {
  return Array.isArray(value) ? value : badArgType('slice', value);
}

/** validatePatchWithSetOrderList: the patch's elements appear in `$setElementOrder` in the same order. */
function validateOrder(patchList: Json[], order: Json[], mergeKey: string): void {
  if (order.length === 0 || patchList.length === 0) return;
  const candidates = mergeKey === '' ? patchList : patchList.filter((v) => !isDeleteElement(asMap(v)));
  let p = 0;
  let o = 0;
  while (p < candidates.length && o < order.length) {
    const item = candidates[p] ?? null;
    if (isJsonMap(item) && has(item, DIRECTIVE)) {
      p++;
      continue;
    }
    if (mergeKeyEqual(item, order[o] ?? null, mergeKey)) p++;
    o++;
  }
  if (p < candidates.length && o >= order.length) {
    fail('Unknown', `The order in patch list:\n${goFormat(patchList)}\n doesn't match ${SET_ELEMENT_ORDER} list:\n${goFormat(order)}\n`);
  }
}

function isDeleteElement(m: JsonMap): boolean {
  return has(m, DIRECTIVE) && m[DIRECTIVE] === DELETE;
}

function mergeKeyEqual(left: Json, right: Json, mergeKey: string): boolean {
  if (mergeKey === '') return goEqual(left, right);
  const l = asMap(left);
  const r = asMap(right);
  if (!has(l, mergeKey)) noMergeKey(l, mergeKey);
  if (!has(r, mergeKey)) noMergeKey(r, mergeKey);
  return goEqual(l[mergeKey] ?? null, r[mergeKey] ?? null);
}

/** findMapInSliceBasedOnKeyValue */
function findByKey(list: readonly Json[], mergeKey: string, value: Json): number {
  for (let i = 0; i < list.length; i++) {
    const item = list[i] ?? null;
    if (!isJsonMap(item)) fail('Unknown', `value for key ${i} is not a map`);
    if (has(item, mergeKey) && goEqual(item[mergeKey] ?? null, value)) return i;
  }
  return -1;
}

/** Splits `list` into the elements `by` names (by merge key, or by value) and the rest. */
function partition(list: readonly Json[], by: readonly Json[], mergeKey: string): [Json[], Json[]] {
  const inBy: Json[] = [];
  const rest: Json[] = [];
  for (const v of list) {
    let found: boolean;
    if (mergeKey === '') {
      found = by.some((b) => goEqual(b, v));
    } else {
      const m = asMap(v);
      if (!has(m, mergeKey)) noMergeKey(m, mergeKey);
      found = findByKey(by, mergeKey, m[mergeKey] ?? null) >= 0;
    }
    (found ? inBy : rest).push(v);
  }
  return [inBy, rest];
}

/** upstream index(): the position of `value` in `list`, by merge key for maps. */
function indexIn(list: readonly Json[], value: Json, mergeKey: string, kind: GoKind): number {
  const key = (item: Json): Json => (kind === 'map' ? (isJsonMap(item) ? (item[mergeKey] ?? null) : null) : item);
  const wanted = key(value);
  return list.findIndex((item) => goEqual(key(item), wanted));
}

/** normalizeSliceOrder: a stable sort by position in `order`; `$patch: delete` elements go last. */
function sortByOrder(items: Json[], order: readonly Json[], mergeKey: string, kind: GoKind): Json[] {
  let toSort = items;
  let toDelete: Json[] = [];
  if (kind === 'map') {
    for (const list of [items, order]) {
      for (const item of list) {
        const m = asMap(item);
        if (!has(m, mergeKey)) noMergeKey(m, mergeKey);
      }
    }
    toSort = items.filter((v) => !isDeleteElement(v as JsonMap));
    toDelete = items.filter((v) => isDeleteElement(v as JsonMap));
  }
  // Every element is found in `order` on the paths that reach here (the stored object's
  // elements in its own list, the patch's in the patch or its $setElementOrder).
  const positions = new Map(toSort.map((v) => [v, indexIn(order, v, mergeKey, kind)]));
  const sorted = [...toSort].sort((a, b) => {
    const ia = positions.get(a) ?? -1;
    const ib = positions.get(b) ?? -1;
    return ia >= 0 && ib >= 0 ? ia - ib : 0;
  });
  return [...sorted, ...toDelete];
}

/**
 * normalizeElementOrder + mergeSortedSlice: the patch's elements in the patch's order, the
 * stored object's other elements in theirs, interleaved by their places in the stored list.
 * An element the stored list does not have goes before the next stored-only element.
 */
function normalizeElementOrder(patchItems: Json[], serverOnly: Json[], patchOrder: readonly Json[], serverOrder: readonly Json[], mergeKey: string, kind: GoKind): Json[] {
  const right = sortByOrder(patchItems, patchOrder, mergeKey, kind);
  const left = sortByOrder(serverOnly, serverOrder, mergeKey, kind);
  const out: Json[] = [];
  let i = 0;
  let j = 0;
  while (i < left.length || j < right.length) {
    if (i >= left.length) out.push(right[j++] ?? null);
    else if (j >= right.length) out.push(left[i++] ?? null);
    else {
      const li = indexIn(serverOrder, left[i] ?? null, mergeKey, kind);
      const ri = indexIn(serverOrder, right[j] ?? null, mergeKey, kind);
      if (li >= 0 && ri >= 0 && li < ri) out.push(left[i++] ?? null);
      else out.push(right[j++] ?? null);
    }
  }
  return out;
}

/**
 * mergeSlice: a `patchStrategy:"merge"` list (or any list under `$deleteFromPrimitiveList`).
 *
 * Go merges lists of maps inside the stored list's own backing array: a `$patch: delete`
 * shifts the later elements left, and a new element is appended into a slot that frees. The
 * `$setElementOrder` step then orders by that same array (mergePatchIntoOriginal passes
 * originalFieldValue), so a new element can take a deleted one's place in the order. `original`
 * is therefore changed in place here as Go changes it; callers pass a list they own.
 */
function mergeList(original: Json[], patch: Json[], schema: PatchStruct | undefined, mergeKey: string, elementKindName: string, isDeleteList: boolean): Json[] {
  if (original.length === 0 && patch.length === 0) return original;
  const kind = elementKind(original, patch);
  if (kind !== 'map') {
    if (isDeleteList) return original.filter((v) => !patch.some((d) => goEqual(d, v)));
    const merged: Json[] = [];
    for (const v of [...original, ...patch]) if (!merged.some((m) => goEqual(m, v))) merged.push(v);
    const [inPatch, serverOnly] = partition(merged, patch, '');
    return normalizeElementOrder(inPatch, serverOnly, patch, original, '', kind);
  }
  if (mergeKey === '') fail('Unknown', `cannot merge lists without merge key for ${elementKindName}`);
  const directed = applyListDirectives(original, patch, mergeKey);
  if (directed.replace) {
    // `$patch: replace`: the patch's other elements, in their order, are the list.
    return [...directed.plain];
  }
  const stored = original.slice(0, directed.length);
  const merged = [...stored];
  for (const item of directed.plain) {
    const m = item as JsonMap;
    if (!has(m, mergeKey)) noMergeKey(m, mergeKey);
    const at = findByKey(merged, mergeKey, m[mergeKey] ?? null);
    if (at >= 0) {
      // mergeMap changes the stored element in place and returns it.
      merged[at] = mergeMap(merged[at] as JsonMap, m, schema);
    } else {
      // Go's append writes into the stored array while it has a slot a delete freed.
      if (merged.length < original.length) original[merged.length] = m;
      merged.push(m);
    }
  }
  const [inPatch, serverOnly] = partition(merged, directed.plain, mergeKey);
  return normalizeElementOrder(inPatch, serverOnly, directed.plain, stored, mergeKey, kind);
}

interface ListDirectives {
  /** A `{$patch: replace}` element was present. */
  readonly replace: boolean;
  /** The patch's elements without a `$patch`. */
  readonly plain: Json[];
  /** How many elements of the stored list remain, at its front, after the deletes. */
  readonly length: number;
}

/**
 * mergeSliceWithSpecialElements: `{$patch: delete, <key>: v}` removes the stored elements
 * with that key (deleteMatchingEntries, shifting the array left in place), `{$patch: replace}`
 * makes the patch's other elements the whole list.
 */
function applyListDirectives(original: Json[], patch: Json[], mergeKey: string): ListDirectives {
  let length = original.length;
  const plain: Json[] = [];
  let replace = false;
  for (const item of patch) {
    const m = item as JsonMap;
    if (!has(m, DIRECTIVE)) {
      plain.push(m);
      continue;
    }
    const directive = m[DIRECTIVE] ?? null;
    if (directive === DELETE) {
      if (!has(m, mergeKey)) noMergeKey(m, mergeKey);
      const value = m[mergeKey] ?? null;
      for (let at = findByKey(original.slice(0, length), mergeKey, value); at >= 0; at = findByKey(original.slice(0, length), mergeKey, value)) {
        original.copyWithin(at, at + 1, length);
        length--;
      }
    } else if (directive === REPLACE) {
      replace = true;
    } else if (directive === MERGE) {
      fail('Unknown', 'merging lists cannot yet be specified in the patch');
    } else {
      badPatchType(directive, m);
    }
  }
  return { replace, plain, length };
}

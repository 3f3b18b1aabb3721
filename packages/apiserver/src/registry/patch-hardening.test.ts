// Hostile patch bodies through the registry: a JSON patch that copies the document into
// itself, a body nested as deep as Go's decoder allows (and deeper), JSON patch operations
// that fail in each of the library's ways, and keys named `__proto__`. Each gets the answer
// kube-apiserver gives, never a thrown error, and nothing outside the patched object changes.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go,
//           vendor/gopkg.in/evanphx/json-patch.v4/patch.go, go/src/encoding/json/scanner.go
import type { Service } from '@kubesvc/api-types';
import { describe, expect, it } from 'vitest';
import { dispatch } from './dispatch.js';
import { applyJsonPatch, decodeJsonPatch } from './json-patch.js';
import { jsonPatch, mergePatch } from './patch.js';
import { decodePatchJSON, goJSONSizeWithin, JSON_PATCH_MAX_COPY_BYTES } from './patch-limits.js';
import { strategicMergePatch } from './strategic-merge-patch-patcher.js';
import type { Registry } from './registry.js';
import { memoryRegistry } from './registry.fixtures.js';

const JSON_PATCH = 'application/json-patch+json';
const MERGE = 'application/merge-patch+json';
const SMP = 'application/strategic-merge-patch+json';
const REJECTED = 'the server rejected our request due to an error in our request';

async function setup(): Promise<Registry> {
  const { registry } = await memoryRegistry();
  const created = await dispatch(registry, {
    verb: 'create',
    resource: 'services',
    namespace: 'default',
    body: JSON.stringify({ apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { app: 'web' } }, spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }] } }),
  });
  if (!created.ok) throw new Error(created.error.message);
  return registry;
}

type Answer = { code: number; reason?: string; message?: string; object?: Service };

async function patch(registry: Registry, patchType: string, body: string, fieldValidation?: 'Ignore' | 'Warn' | 'Strict'): Promise<Answer> {
  const r = await dispatch(registry, { verb: 'patch', resource: 'services', namespace: 'default', name: 'web', patchType, body, ...(fieldValidation === undefined ? {} : { fieldValidation }) });
  if (r.ok) return { code: r.value.code, object: r.value.body as Service };
  return { code: r.error.code, ...(r.error.status.reason === undefined ? {} : { reason: r.error.status.reason }), message: r.error.status.message ?? '' };
}

async function stored(registry: Registry): Promise<Service> {
  const got = await registry.get<Service>('services', 'default', 'web');
  if (!got.ok) throw new Error(got.error.message);
  return got.value;
}

/** A JSON array nested `depth` levels deep, around one number. */
const nestedArray = (depth: number): string => '['.repeat(depth) + '1' + ']'.repeat(depth);

/** How many single-element lists wrap the number 1 (a walk, as the matchers recurse). */
function arrayDepth(value: unknown): number {
  let depth = 0;
  let v = value;
  while (Array.isArray(v) && v.length === 1) {
    depth++;
    v = v[0];
  }
  return v === 1 ? depth : -1;
}

describe('JSON patch copy bound (AccumulatedCopySizeLimit = JSONPatchMaxCopyBytes, 3 MiB)', () => {
  it('copies that double the spec until past 3 MiB are refused with the generic 422, and the object is unchanged', async () => {
    const registry = await setup();
    const before = await stored(registry);
    // Each copy doubles /spec; the 16th puts the total copied past 3 MiB.
    const ops = Array.from({ length: 20 }, (_, i) => ({ op: 'copy', from: '/spec', path: `/spec/x${i}` }));
    expect(await patch(registry, JSON_PATCH, JSON.stringify(ops))).toEqual({ code: 422, reason: 'Invalid', message: REJECTED });
    expect(await stored(registry)).toEqual(before);
  });

  it('the copy bomb of the report (20 copies of /metadata into its own annotations) is refused by the copy bound', () => {
    const doc = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', namespace: 'default', annotations: { a: 'b' } }, spec: {} };
    const ops = Array.from({ length: 20 }, (_, i) => ({ op: 'copy', from: '/metadata', path: `/metadata/annotations/c${i}` }));
    const applied = applyJsonPatch(doc, ops);
    expect(applied.ok).toBe(false);
    expect(applied.ok ? undefined : applied.error._tag).toBe('ErrJSONPatchApply');
    expect(applied.ok ? '' : applied.error.message).toMatch(/^Unable to complete the copy, the accumulated size increase of copy is \d+, exceeding the limit 3145728$/);
  });

  it('charges each copy the bytes json.Marshal writes for the value: exactly 3 MiB passes, one byte more fails with the library text', () => {
    // A string of n characters marshals to n + 2 bytes (its quotes).
    const mib = 'a'.repeat(1024 * 1024 - 2);
    const doc = { v: mib, out: {} };
    const copy = (i: number) => ({ op: 'copy', from: '/v', path: `/out/c${i}` });
    const three = applyJsonPatch(doc, [copy(0), copy(1), copy(2)]);
    expect(three.ok).toBe(true);
    const withOneMore = applyJsonPatch(doc, [copy(0), copy(1), copy(2), { op: 'copy', from: '/b', path: '/out/b' }, { op: 'add', path: '/b', value: 1 }, { op: 'copy', from: '/b', path: '/out/one' }]);
    expect(withOneMore).toEqual({
      ok: false,
      error: {
        _tag: 'ErrJSONPatchApply',
        message: `Unable to complete the copy, the accumulated size increase of copy is ${JSON_PATCH_MAX_COPY_BYTES + 1}, exceeding the limit ${JSON_PATCH_MAX_COPY_BYTES}`,
      },
    });
    // The document passed in is never changed.
    expect(doc).toEqual({ v: mib, out: {} });
  });

  it('measures sizes as Go writes them (HTML-safe escapes, UTF-8 bytes, sorted compact maps) and stops at the budget', () => {
    expect(goJSONSizeWithin({ a: '<' }, Infinity)).toBe('{"a":"\\u003c"}'.length);
    expect(goJSONSizeWithin(['é', '😀', null, true, false, 12, 'a"\n'], Infinity)).toBe(Buffer.byteLength('["é","😀",null,true,false,12,"a\\"\\n"]'));
    expect(goJSONSizeWithin({ k: { l: [1, 2] } }, Infinity)).toBe('{"k":{"l":[1,2]}}'.length);
    expect(goJSONSizeWithin('x'.repeat(100), 10)).toBe(Infinity);
  });
});

describe('JSON patch operation count (maxJSONPatchOperations = 10000)', () => {
  it('10,001 operations are 413 with upstream text; 10,000 are applied', async () => {
    const registry = await setup();
    const test = { op: 'test', path: '/metadata/name', value: 'web' };
    expect(await patch(registry, JSON_PATCH, JSON.stringify(Array.from({ length: 10001 }, () => test)))).toEqual({
      code: 413,
      reason: 'RequestEntityTooLarge',
      message: 'Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001',
    });
    const ok = await patch(registry, JSON_PATCH, JSON.stringify([...Array.from({ length: 9999 }, () => test), { op: 'add', path: '/metadata/labels/tier', value: 'fe' }]));
    expect(ok.code).toBe(200);
    expect(ok.object?.metadata.labels).toEqual({ app: 'web', tier: 'fe' });
  });
});

describe('nesting depth (encoding/json maxNestingDepth = 10000)', () => {
  it('a body nested 10,000 deep is patched by every patch type; 10,001 is 400 with the decoder text', async () => {
    // Root object (1) and spec (2) leave 9,998 levels for the value of a field under spec.
    const current = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [{ port: 80 }] } };
    // The JSON patch body nests two more levels (its list and the operation) than its value.
    const results = [
      jsonPatch(current, `[{"op":"add","path":"/spec/deep","value":${nestedArray(9998)}}]`),
      mergePatch(current, `{"spec":{"deep":${nestedArray(9998)}}}`),
      strategicMergePatch(current, `{"spec":{"deep":${nestedArray(9998)}}}`),
    ];
    for (const r of results) {
      if (!r.ok) throw new Error(r.error.message);
      const { spec, ...rest } = r.value as typeof current & { spec: { deep: unknown } };
      const { deep, ...otherSpec } = spec;
      expect({ rest, otherSpec }).toEqual({ rest: { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' } }, otherSpec: current.spec });
      expect(arrayDepth(deep)).toBe(9998);
    }
    const registry = await setup();
    const before = await stored(registry);
    expect(await patch(registry, JSON_PATCH, `[{"op":"add","path":"/spec/deep","value":${nestedArray(9999)}}]`)).toEqual({
      code: 400,
      reason: 'BadRequest',
      message: "invalid character '[' exceeded max depth",
    });
    expect(await patch(registry, MERGE, `{"spec":{"deep":${nestedArray(9999)}}}`)).toEqual({ code: 400, reason: 'BadRequest', message: 'Invalid JSON Patch' });
    expect(await patch(registry, SMP, `{"spec":{"deep":${nestedArray(9999)}}}`)).toEqual({ code: 400, reason: 'BadRequest', message: "invalid character '[' exceeded max depth" });
    expect(await stored(registry)).toEqual(before);
  });

  it('a syntax error before the 10,001st bracket is reported instead of the depth', () => {
    expect(decodePatchJSON(`[x${'['.repeat(10001)}`)).toEqual({ ok: false, error: { _tag: 'ErrJSONSyntax', message: "invalid character 'x' looking for beginning of value" } });
    expect(decodePatchJSON(`${'{"a":'.repeat(10001)}1`)).toEqual({ ok: false, error: { _tag: 'ErrJSONSyntax', message: "invalid character '{' exceeded max depth" } });
    expect(decodePatchJSON(`${'['.repeat(9000)}tru`)).toEqual({ ok: false, error: { _tag: 'ErrJSONSyntax', message: 'unexpected end of JSON input' } });
  });

  it('a deep merge patch merges level by level and drops nulls at every depth, without recursion', () => {
    const deepObject = (n: number, leaf: string): string => '{"a":'.repeat(n) + leaf + '}'.repeat(n);
    const current = { kind: 'Service', spec: { deep: JSON.parse(deepObject(5000, '{"b":1,"keep":2}')) as unknown } };
    const merged = mergePatch(current, `{"spec":{"deep":${deepObject(5000, '{"b":null,"c":{"d":null,"e":3}}')}}}`);
    if (!merged.ok) throw new Error(merged.error.message);
    let inner = (merged.value as { spec: { deep: unknown } }).spec.deep;
    for (let level = 0; level < 5000; level++) inner = (inner as { a: unknown }).a;
    expect(inner).toEqual({ keep: 2, c: { e: 3 } });
  });

  it('a deep value in a strategic merge patch error is printed whole, as a plain (500) error, not a stack overflow', async () => {
    const registry = await setup();
    const r = await patch(registry, SMP, `{"metadata":{"$patch":"bogus","x":${nestedArray(3000)}}}`);
    expect(r.code).toBe(500);
    expect(r.reason).toBeUndefined();
    expect(r.message).toBe(`unknown patch type: bogus in map: map[$patch:bogus x:${'['.repeat(3000)}1${']'.repeat(3000)}]`);
  });
});

describe('JSON patch failures: DecodePatch is 400, every failed operation is the generic 422', () => {
  const service = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web', labels: { app: 'web' } }, spec: { ports: [{ port: 80 }, { port: 81 }] } };
  // The library's text for each, which the apiserver drops from its answer.
  const failures: readonly [string, readonly object[], string][] = [
    ['add under a missing parent', [{ op: 'add', path: '/metadata/annotations/a', value: 'b' }], 'add operation does not apply: doc is missing path: "/metadata/annotations/a": missing value'],
    ['add to the whole document', [{ op: 'add', path: '', value: {} }], 'add operation does not apply: doc is missing path: "": missing value'],
    ['add past the end of a list', [{ op: 'add', path: '/spec/ports/3', value: {} }], "error in add for path: '/spec/ports/3': Unable to access invalid index: 3: invalid index referenced"],
    ['add at a non-numeric index', [{ op: 'add', path: '/spec/ports/x', value: {} }], `error in add for path: '/spec/ports/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`],
    ['- in the middle of a path', [{ op: 'add', path: '/spec/ports/-/port', value: 1 }], 'add operation does not apply: doc is missing path: "/spec/ports/-/port": missing value'],
    ['remove of a missing key', [{ op: 'remove', path: '/metadata/labels/tier' }], "error in remove for path: '/metadata/labels/tier': Unable to remove nonexistent key: tier: missing value"],
    ['remove past the end of a list', [{ op: 'remove', path: '/spec/ports/2' }], "error in remove for path: '/spec/ports/2': Unable to access invalid index: 2: invalid index referenced"],
    ['replace past the end of a list', [{ op: 'replace', path: '/spec/ports/2', value: {} }], 'replace operation does not apply: doc is missing key: /spec/ports/2: missing value'],
    ['replace of the document by a scalar', [{ op: 'replace', path: '', value: 1 }], 'replace operation value must be object or array: %!w(<nil>)'],
    ['move from a missing key', [{ op: 'move', from: '/metadata/labels/tier', path: '/metadata/labels/x' }], "error in move for path: 'tier': Unable to remove nonexistent key: tier: missing value"],
    ['move from a missing parent', [{ op: 'move', from: '/nope/a', path: '/metadata/labels/x' }], 'move operation does not apply: doc is missing from path: /nope/a: missing value'],
    ['copy to a missing parent', [{ op: 'copy', from: '/metadata/name', path: '/nope/a' }], 'copy operation does not apply: doc is missing destination path: /nope/a: missing value'],
    ['a failed test', [{ op: 'test', path: '/metadata/name', value: 'other' }], 'testing value /metadata/name failed: test failed'],
    ['a test without a value', [{ op: 'test', path: '/metadata/name' }], 'testing value /metadata/name failed: test failed'],
    ['a missing path', [{ op: 'add', value: 1 }], 'add operation failed to decode path: missing value'],
    ['a missing from', [{ op: 'copy', path: '/a' }], 'copy operation failed to decode from: operation, missing from field: missing value'],
    ['a missing op', [{ path: '/a', value: 1 }], 'Unexpected kind: unknown'],
    ['an unknown op', [{ op: 'merge', path: '/a', value: 1 }], 'Unexpected kind: merge'],
    ['a path that is not a string', [{ op: 'remove', path: 7 }], 'remove operation failed to decode path: missing value'],
  ];

  it.each(failures)('%s: the library fails with its text', (_name, ops, message) => {
    expect(applyJsonPatch(service, decodeJsonPatchOrThrow(ops))).toEqual({ ok: false, error: { _tag: 'ErrJSONPatchApply', message } });
  });

  it('through the registry every one of them is the generic 422 and the object is unchanged', async () => {
    const registry = await setup();
    const before = await stored(registry);
    for (const [name, ops] of failures) {
      expect({ name, answer: await patch(registry, JSON_PATCH, JSON.stringify(ops)) }).toEqual({ name, answer: { code: 422, reason: 'Invalid', message: REJECTED } });
    }
    expect(await stored(registry)).toEqual(before);
  });

  it('a document that is not a list of operations is 400 with the decoder text', async () => {
    const registry = await setup();
    expect(await patch(registry, JSON_PATCH, '{"op":"add"}')).toEqual({ code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' });
    expect(await patch(registry, JSON_PATCH, '"x"')).toEqual({ code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal string into Go value of type jsonpatch.Patch' });
    expect(await patch(registry, JSON_PATCH, '[1]')).toEqual({ code: 400, reason: 'BadRequest', message: 'json: cannot unmarshal number into Go value of type jsonpatch.Operation' });
    // null is an empty patch: nothing changes.
    expect((await patch(registry, JSON_PATCH, 'null')).code).toBe(200);
  });

  it("the library's non-RFC answers: replace adds a missing key, indices take a sign, leading zeros and count from the end", () => {
    const ok = (ops: object[]) => {
      const r = applyJsonPatch(service, decodeJsonPatchOrThrow(ops));
      if (!r.ok) throw new Error(r.error.message);
      return r.value as typeof service & { spec: { ports: { port: number }[] } };
    };
    expect(ok([{ op: 'replace', path: '/metadata/labels/tier', value: 'fe' }]).metadata.labels).toEqual({ app: 'web', tier: 'fe' });
    expect(ok([{ op: 'replace', path: '/spec/ports/01', value: { port: 9 } }]).spec.ports).toEqual([{ port: 80 }, { port: 9 }]);
    expect(ok([{ op: 'remove', path: '/spec/ports/-1' }]).spec.ports).toEqual([{ port: 80 }]);
    expect(ok([{ op: 'add', path: '/spec/ports/+0', value: { port: 1 } }]).spec.ports).toEqual([{ port: 1 }, { port: 80 }, { port: 81 }]);
    expect(ok([{ op: 'add', path: '/spec/ports/-1', value: { port: 1 } }]).spec.ports).toEqual([{ port: 80 }, { port: 81 }, { port: 1 }]);
    expect(ok([{ op: 'copy', from: '/metadata/labels/none', path: '/metadata/labels/n' }]).metadata.labels).toEqual({ app: 'web', n: null });
    expect(ok([{ op: 'test', path: '/metadata/labels/none', value: null }]).metadata.labels).toEqual({ app: 'web' });
    expect(ok([{ op: 'add', path: 'metadata/x', value: 1 }])).toEqual({ ...service, x: 1 });
  });
});

function decodeJsonPatchOrThrow(ops: readonly object[]) {
  const d = decodeJsonPatch(JSON.parse(JSON.stringify(ops)));
  if (!d.ok) throw new Error(d.error.message);
  return d.value;
}

describe('__proto__ is an ordinary key, as it is to Go', () => {
  const polluted = () => Object.hasOwn(Object.prototype, 'polluted') || ({} as Record<string, unknown>)['polluted'] !== undefined;

  it.each([
    ['JSON patch add at /spec/__proto__', JSON_PATCH, '[{"op":"add","path":"/spec/__proto__","value":{"polluted":true}}]'],
    ['JSON patch add at /__proto__/polluted', JSON_PATCH, '[{"op":"add","path":"/__proto__/polluted","value":true}]'],
    ['merge patch with a top-level __proto__', MERGE, '{"__proto__":{"polluted":true}}'],
    ['merge patch with spec.__proto__', MERGE, '{"spec":{"__proto__":{"polluted":true}}}'],
    ['strategic merge patch with a top-level __proto__', SMP, '{"__proto__":{"polluted":true}}'],
    ['strategic merge patch with spec.__proto__', SMP, '{"spec":{"__proto__":{"polluted":true}}}'],
  ])('%s: an unknown field, dropped under Warn and refused under Strict; no prototype changes', async (_name, type, body) => {
    const registry = await setup();
    const before = await stored(registry);
    const warn = await patch(registry, type, body);
    expect(polluted()).toBe(false);
    if (body.includes('/__proto__/polluted')) {
      // The document has no key __proto__, so the path's parent is missing.
      expect(warn).toEqual({ code: 422, reason: 'Invalid', message: REJECTED });
      return;
    }
    expect(warn.code).toBe(200);
    expect(Object.getPrototypeOf(warn.object)).toBe(Object.prototype);
    expect(Object.getPrototypeOf(warn.object?.spec)).toBe(Object.prototype);
    expect(await stored(registry)).toEqual({ ...before, metadata: { ...before.metadata, resourceVersion: expect.any(String) } });
    // Under Strict it is refused exactly as any other unknown key in its place is.
    const strict = await patch(registry, type, body, 'Strict');
    expect(polluted()).toBe(false);
    const ordinary = await patch(registry, type, body.replaceAll('__proto__', 'ordinary'), 'Strict');
    expect(ordinary.message).toContain('unknown field');
    expect(strict).toEqual({ ...ordinary, message: ordinary.message?.replaceAll('ordinary', '__proto__') });
  });
});

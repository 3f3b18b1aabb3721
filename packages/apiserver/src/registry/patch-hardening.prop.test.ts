// Properties of the patch path against arbitrary client bodies: whatever a JSON patch, merge
// patch or strategic merge patch holds, the registry answers (it never throws), the answer is
// never a server error except where upstream's strategic merge itself returns a plain error
// (500 with no reason), a refused patch leaves the stored object as it was, and no prototype
// is touched.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/handlers/patch.go
import { fc, test } from '@fast-check/vitest';
import { afterAll, beforeAll, expect } from 'vitest';
import { openMemoryStore, virtualClock } from '@kubesvc/store';
import { dispatch } from './dispatch.js';
import { createRegistry, type Registry } from './registry.js';

let registry: Registry;
const prototypeKeys = (): string[][] => [Object.prototype, Array.prototype].map((p) => Reflect.ownKeys(p).map(String).sort());
let prototypesBefore: string[][] = [];

beforeAll(async () => {
  prototypesBefore = prototypeKeys();
  const clock = virtualClock(0);
  const r = createRegistry({ store: openMemoryStore({ clock }), clock, seed: 3, serviceClusterIPRanges: ['10.96.0.0/24'], serviceNodePortRange: '30000-30100' });
  if (!r.ok) throw new Error(r.error.message);
  registry = r.value;
  await registry.initRanges();
  await dispatch(registry, { verb: 'create', resource: 'namespaces', namespace: '', body: '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"default"}}' });
  const created = await dispatch(registry, {
    verb: 'create',
    resource: 'services',
    namespace: 'default',
    body: JSON.stringify({
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: 'web', labels: { app: 'web' }, finalizers: ['a/b'] },
      spec: { selector: { app: 'web' }, ports: [{ name: 'http', port: 80 }, { name: 'https', port: 443 }] },
    }),
  });
  if (!created.ok) throw new Error(created.error.message);
});

afterAll(() => {
  // No body gave Object.prototype or Array.prototype a property.
  expect(prototypeKeys()).toEqual(prototypesBefore);
});

const TOKENS = ['metadata', 'spec', 'ports', 'labels', 'finalizers', 'selector', 'name', 'port', 'app', '0', '1', '01', '+0', '-1', '-', '99', 'x', '__proto__', 'constructor', '~0', '~1', ''];

const pathArb = fc.oneof(
  fc.array(fc.constantFrom(...TOKENS), { maxLength: 4 }).map((parts) => `/${parts.join('/')}`),
  fc.constantFrom('', '/', 'metadata/labels/x', '/metadata/labels/~1a', '/spec/ports/-'),
  fc.string({ maxLength: 6 }),
  fc.integer(),
  fc.constant(null),
);

const valueArb = fc.jsonValue({ maxDepth: 3 });

const operationArb = fc.record(
  {
    op: fc.oneof(fc.constantFrom('add', 'remove', 'replace', 'move', 'copy', 'test'), fc.string({ maxLength: 5 }), fc.constant(null), fc.integer()),
    path: pathArb,
    from: pathArb,
    value: valueArb,
    extra: valueArb,
  },
  { requiredKeys: [] },
);

const jsonPatchArb = fc.oneof(
  { weight: 8, arbitrary: fc.array(fc.oneof({ weight: 9, arbitrary: operationArb }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }), { maxLength: 8 }) },
  { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
);

const DIRECTIVE_KEYS = ['$patch', '$retainKeys', '$setElementOrder/ports', '$setElementOrder/finalizers', '$deleteFromPrimitiveList/finalizers', '$deleteFromPrimitiveList/ports', '$setElementOrder', '$deleteFromPrimitiveList'];
const DIRECTIVE_VALUES = fc.oneof(fc.constantFrom('replace', 'delete', 'merge', 'bogus'), valueArb);

/** Objects shaped like a Service patch, with directives of every kind and wrong types in them. */
const patchObjectArb: fc.Arbitrary<Record<string, unknown>> = fc.letrec<{ object: Record<string, unknown>; value: unknown }>((tie) => ({
  object: fc.dictionary(fc.oneof(fc.constantFrom(...TOKENS, ...DIRECTIVE_KEYS), fc.string({ maxLength: 4 })), tie('value'), { maxKeys: 4 }),
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.jsonValue({ maxDepth: 0 }),
    DIRECTIVE_VALUES,
    fc.array(fc.oneof(fc.jsonValue({ maxDepth: 0 }), tie('object')), { maxLength: 3 }),
    tie('object'),
  ),
})).object;

async function stored(): Promise<unknown> {
  const got = await registry.get('services', 'default', 'web');
  if (!got.ok) throw new Error(got.error.message);
  return got.value;
}

/** Patches the Service; the answer's code, and whether the stored object moved. */
async function answer(patchType: string, body: string): Promise<{ code: number; reason: string | undefined; unchangedOnError: boolean }> {
  const before = await stored();
  const r = await dispatch(registry, { verb: 'patch', resource: 'services', namespace: 'default', name: 'web', patchType, body });
  if (r.ok) return { code: r.value.code, reason: undefined, unchangedOnError: true };
  return { code: r.error.code, reason: r.error.status.reason, unchangedOnError: JSON.stringify(await stored()) === JSON.stringify(before) };
}

test.prop([jsonPatchArb], { numRuns: 300 })('any JSON patch document is answered with a 2xx or 4xx, and a refused one changes nothing', async (ops) => {
  const a = await answer('application/json-patch+json', JSON.stringify(ops));
  expect(a.code).toBeLessThan(500);
  expect(a.unchangedOnError).toBe(true);
});

test.prop([fc.oneof({ weight: 5, arbitrary: patchObjectArb }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) })], { numRuns: 300 })(
  'any merge patch is answered with a 2xx or 4xx, and a refused one changes nothing',
  async (body) => {
    const a = await answer('application/merge-patch+json', JSON.stringify(body));
    expect(a.code).toBeLessThan(500);
    expect(a.unchangedOnError).toBe(true);
  },
);

test.prop([fc.oneof({ weight: 5, arbitrary: patchObjectArb }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 2 }) })], { numRuns: 300 })(
  "any strategic merge patch is answered, a server error only as upstream's plain strategic-merge error (500, no reason), and a refused one changes nothing",
  async (body) => {
    const a = await answer('application/strategic-merge-patch+json', JSON.stringify(body));
    if (a.code >= 500) expect({ code: a.code, reason: a.reason }).toEqual({ code: 500, reason: undefined });
    expect(a.unchangedOnError).toBe(true);
  },
);

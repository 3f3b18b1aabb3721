// Properties of strategic merge patch that hold upstream (strategicpatch/patch.go, v1.32):
// INV-SMP-MERGE and INV-SMP-ORDER in docs/invariants.md.
import { fc, test } from '@fast-check/vitest';
import jsonMergePatch from 'json-merge-patch';
import { expect } from 'vitest';
import { patchSchemaFor } from './patch-strategy.js';
import { applyStrategicMergePatch } from './strategic-merge-patch.js';
import type { Json, JsonMap } from './strategic-merge-patch-go-format.js';

// Field names of the served kinds (some of them tagged merge lists elsewhere) and plain ones.
const KEYS = ['metadata', 'spec', 'status', 'labels', 'annotations', 'ports', 'finalizers', 'selector', 'conditions', 'a', 'b'] as const;
const KINDS = [
  ['v1', 'Service'],
  ['v1', 'Pod'],
  ['v1', 'Node'],
  ['v1', 'Namespace'],
  ['v1', 'Endpoints'],
  ['discovery.k8s.io/v1', 'EndpointSlice'],
] as const;

const scalarArb: fc.Arbitrary<Json> = fc.oneof(
  fc.string({ maxLength: 4 }),
  fc.integer({ min: -5, max: 5 }),
  fc.boolean(),
  fc.double({ noNaN: true, noDefaultInfinity: true, min: -10, max: 10 }).map((d) => (d === 0 ? 0 : d)),
);

/** List-free JSON objects; with `nulls`, a member may be null (a deletion in a patch). */
function objectArb(nulls: boolean): fc.Arbitrary<JsonMap> {
  const { object } = fc.letrec<{ object: JsonMap; value: Json }>((tie) => ({
    object: fc.dictionary(fc.constantFrom(...KEYS), tie('value'), { maxKeys: 4 }),
    value: fc.oneof({ depthSize: 'small', withCrossShrink: true }, nulls ? fc.oneof(scalarArb, fc.constant(null)) : scalarArb, tie('object')),
  }));
  return object;
}

test.prop([objectArb(false), objectArb(true), fc.constantFrom(...KINDS)])(
  'INV-SMP-MERGE: on list-free objects a directive-free strategic merge patch is JSON merge patch (RFC 7386), and changes neither argument',
  (original, patch, [apiVersion, kind]) => {
    const before = structuredClone(original);
    const patchBefore = structuredClone(patch);
    const merged = applyStrategicMergePatch(original, patch, patchSchemaFor(apiVersion, kind));
    const expected: unknown = jsonMergePatch.apply(structuredClone(original), structuredClone(patch));
    expect(merged).toEqual({ ok: true, value: expected });
    expect(original).toEqual(before);
    expect(patch).toEqual(patchBefore);
  },
);

interface OrderCase {
  readonly stored: number[];
  readonly deleted: number[];
  readonly updated: number[];
  readonly added: number[];
  readonly order: number[];
  readonly deleteAt: number[];
}

const orderCaseArb: fc.Arbitrary<OrderCase> = fc
  .record({
    stored: fc.uniqueArray(fc.integer({ min: 1, max: 20 }), { maxLength: 6 }),
    added: fc.uniqueArray(fc.integer({ min: 21, max: 40 }), { maxLength: 4 }),
  })
  .chain(({ stored, added }) =>
    fc.record({ deleted: fc.subarray(stored) }).chain(({ deleted }) => {
      const kept = stored.filter((p) => !deleted.includes(p));
      const all = [...kept, ...added];
      return fc.record({
        stored: fc.constant(stored),
        deleted: fc.constant(deleted),
        added: fc.constant(added),
        updated: fc.subarray(kept),
        order: fc.shuffledSubarray(all, { minLength: all.length, maxLength: all.length }),
        deleteAt: fc.array(fc.nat({ max: 10 }), { minLength: deleted.length, maxLength: deleted.length }),
      });
    }),
  );

test.prop([orderCaseArb])(
  'INV-SMP-ORDER: a Service ports patch whose $setElementOrder names every port the result keeps gives exactly that order, without the deleted ports, each stored port merged with its patch element',
  ({ stored, deleted, updated, added, order, deleteAt }) => {
    const storedPort = (port: number): JsonMap => ({ name: `p${port}`, port, protocol: 'TCP', targetPort: port + 1000 });
    const patchPort = (port: number): JsonMap => (added.includes(port) ? { name: `new${port}`, port } : { port, targetPort: port + 2000 });
    // kubectl lists the changed and added ports in the new order, and the deletions anywhere.
    const items: JsonMap[] = order.filter((p) => added.includes(p) || updated.includes(p)).map(patchPort);
    deleted.forEach((port, i) => items.splice(Math.min(deleteAt[i] ?? 0, items.length), 0, { port, $patch: 'delete' }));
    const original: JsonMap = { spec: stored.length === 0 ? {} : { ports: stored.map(storedPort) } };
    const patchSpec: JsonMap = { '$setElementOrder/ports': order.map((port) => ({ port })) };
    if (items.length > 0) patchSpec['ports'] = items;
    const merged = applyStrategicMergePatch(original, { spec: patchSpec }, patchSchemaFor('v1', 'Service'));
    if (!merged.ok) throw new Error(merged.error.message);
    const ports = ((merged.value['spec'] as JsonMap)['ports'] ?? []) as JsonMap[];
    expect(ports.map((p) => p['port'])).toEqual(order);
    for (const p of ports) {
      const port = p['port'] as number;
      const want = added.includes(port) ? patchPort(port) : updated.includes(port) ? { ...storedPort(port), ...patchPort(port) } : storedPort(port);
      expect(p).toEqual(want);
    }
  },
);

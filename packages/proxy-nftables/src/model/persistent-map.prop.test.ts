// INV-NFT-PMAP: a PersistentMap behaves as a Map copied at every version: after any sequence
// of edits (set, delete, clear, each version edited again or an older one edited instead), every
// version holds the entries, in the order, of a Map given the same operations, its size is
// theirs, orderOf grows along that order, and a version once made never changes.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { PersistentMap } from './persistent-map.js';

type Op = { readonly kind: 'set'; readonly key: number; readonly value: number } | { readonly kind: 'delete'; readonly key: number } | { readonly kind: 'clear' };

const opArb: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('set' as const), key: fc.integer({ min: 0, max: 400 }), value: fc.integer() }) },
  { weight: 4, arbitrary: fc.record({ kind: fc.constant('delete' as const), key: fc.integer({ min: 0, max: 400 }) }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clear' as const }) },
);

/** A step: which earlier version (counted back from the last) to edit, and the edits. */
const stepsArb = fc.array(fc.record({ back: fc.nat({ max: 3 }), ops: fc.array(opArb, { maxLength: 300 }) }), { minLength: 1, maxLength: 12 });

test.prop([stepsArb], { numRuns: 200 })(
  'INV-NFT-PMAP: every version of a PersistentMap holds the entries, order and size of a Map given the same edits, and never changes',
  (steps) => {
    const versions: { readonly map: PersistentMap<number, number>; readonly model: Map<number, number>; readonly seen: [number, number][] }[] = [
      { map: PersistentMap.empty(), model: new Map(), seen: [] },
    ];
    for (const { back, ops } of steps) {
      const from = versions[Math.max(0, versions.length - 1 - back)] as (typeof versions)[number];
      const editor = from.map.edit();
      const model = new Map(from.model);
      for (const op of ops) {
        if (op.kind === 'set') {
          editor.set(op.key, op.value);
          model.set(op.key, op.value);
        } else if (op.kind === 'delete') {
          expect(editor.delete(op.key)).toBe(model.delete(op.key));
        } else {
          editor.clear();
          model.clear();
        }
        expect(editor.size).toBe(model.size);
      }
      const map = editor.done();
      versions.push({ map, model, seen: [...map] });
    }
    for (const { map, model, seen } of versions) {
      expect([...map]).toEqual([...model]);
      expect(seen).toEqual([...model]);
      expect(map.size).toBe(model.size);
      for (const key of [0, 1, 2, 200, 400]) {
        expect(map.get(key)).toBe(model.get(key));
        expect(map.has(key)).toBe(model.has(key));
      }
      const orders = [...model.keys()].map((key) => map.orderOf(key) ?? -1);
      expect(orders.every((order, i) => order >= 0 && (i === 0 || order > (orders[i - 1] as number)))).toBe(true);
    }
  },
);

test('a map of entries is kept in their order, and a version folded into a new base keeps its entries and order', () => {
  const map = PersistentMap.from(new Map([['b', 1], ['a', 2]]));
  expect([...map.keys()]).toEqual(['b', 'a']);
  let version = map;
  // Past the fold bound (256 changes for a small map).
  for (let i = 0; i < 300; i++) {
    const editor = version.edit();
    editor.set(`k${i}`, i);
    if (i % 3 === 0) editor.delete(`k${i - 1}`);
    version = editor.done();
  }
  const expected = new Map<string, number>([['b', 1], ['a', 2]]);
  for (let i = 0; i < 300; i++) {
    expected.set(`k${i}`, i);
    if (i % 3 === 0) expected.delete(`k${i - 1}`);
  }
  expect([...version]).toEqual([...expected]);
  expect([...map]).toEqual([['b', 1], ['a', 2]]);
});

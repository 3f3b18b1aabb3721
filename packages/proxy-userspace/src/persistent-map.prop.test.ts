// The persistent map against a plain Map: same contents after any sequence of sets and
// deletes, and every earlier version keeps the contents it had.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { PersistentMap } from './persistent-map.js';

const keyArb = fc.oneof(fc.string({ maxLength: 6 }), fc.integer({ min: 0, max: 300 }).map((n) => `10.0.${n >> 8}.${n & 255}`));
const opArb = fc.oneof(
  fc.tuple(fc.constant('set' as const), keyArb, fc.integer()),
  fc.tuple(fc.constant('delete' as const), keyArb, fc.constant(0)),
);

test.prop([fc.array(opArb, { maxLength: 300 })])('INV-US-UPDATE: the persistent map behaves as a Map and old versions do not change', (ops) => {
  let m = PersistentMap.empty<number>();
  const ref = new Map<string, number>();
  const versions: { m: PersistentMap<number>; snapshot: [string, number][] }[] = [];
  const sorted = (it: Iterable<readonly [string, number]>) => [...it].map(([k, v]): [string, number] => [k, v]).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  for (const [op, k, v] of ops) {
    if (op === 'set') {
      m = m.set(k, v);
      ref.set(k, v);
    } else {
      m = m.delete(k);
      ref.delete(k);
    }
    expect(m.size).toBe(ref.size);
    expect(m.get(k)).toBe(ref.get(k));
    versions.push({ m, snapshot: sorted(ref) });
  }
  expect(sorted(m)).toEqual(sorted(ref));
  for (const { m: old, snapshot } of versions) expect(sorted(old)).toEqual(snapshot);
});

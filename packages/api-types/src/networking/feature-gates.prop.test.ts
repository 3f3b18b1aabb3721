// INV: the gates are a map, as upstream's `map[string]bool`: with each gate named once, the
// order of the pairs in --feature-gates never changes the result, and a gate set by name keeps
// its value whatever AllAlpha or AllBeta say, before or after it.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { parseClusterIPFeatureGates } from './feature-gates.js';

const GATES = ['MultiCIDRServiceAllocator', 'DisableAllocatorDualWrite', 'AllAlpha', 'AllBeta'] as const;

// Each gate named once, with a value, in one order and in another.
const twoOrders = fc
  .shuffledSubarray([...GATES], { minLength: 1 })
  .chain((names) => fc.tuple(...names.map((n) => fc.boolean().map((v) => [n, v] as const))))
  .chain((given) => fc.tuple(fc.constant(given), fc.shuffledSubarray(given, { minLength: given.length, maxLength: given.length })));
const version = fc.constantFrom('1.31', '1.32', '1.33');

test.prop([twoOrders, version], { numRuns: 300 })('the order of the pairs does not change the result', ([given, shuffled], emulatedVersion) => {
  const text = (list: readonly (readonly [string, boolean])[]) => list.map(([n, v]) => `${n}=${v}`).join(',');
  const a = parseClusterIPFeatureGates({ featureGates: text(given), emulatedVersion });
  const b = parseClusterIPFeatureGates({ featureGates: text(shuffled), emulatedVersion });
  expect(a.ok && b.ok).toBe(true);
  if (!a.ok || !b.ok) return;
  expect(b.value.enabled).toEqual(a.value.enabled);
  expect(b.value.allocation).toEqual(a.value.allocation);
  for (const [name, value] of given) if (name === 'MultiCIDRServiceAllocator' || name === 'DisableAllocatorDualWrite') expect(a.value.enabled[name]).toBe(value);
});

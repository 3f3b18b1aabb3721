// The README's example, run as written: a property named after its invariant, under the
// shared harness, about testkit's own replay command.
import { fc, test } from '@fast-check/vitest';
import { expect } from 'vitest';
import { testNamePattern } from './replay-command.js';

test.prop([fc.string({ unit: 'binary' }), fc.string({ minLength: 1 })])(
  'INV-TESTKIT-REPLAY: the -t pattern of a replay command matches its test name and no longer one',
  (name, suffix) => {
    const pattern = new RegExp(testNamePattern(name));
    expect(pattern.test(name)).toBe(true);
    expect(pattern.test(name + suffix)).toBe(false);
    expect(pattern.test(suffix + name)).toBe(false);
  },
);

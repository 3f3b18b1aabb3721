import fc from 'fast-check';
import { afterEach, describe, expect, test } from 'vitest';
import { installPropertyHarness, propertyReporter } from './property-harness.js';

const where = () => ({ packageDir: 'packages/x', testFile: 'src/a.prop.test.ts', testName: 'suite > prop' });
// A property that fails for every integer above 1000, so shrinking ends at 1001.
const failsAbove1000 = fc.property(fc.integer(), (n) => n <= 1000);

function failureOf(run: () => void): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('expected the property to fail');
}

describe('propertyReporter', () => {
  test('a failing property reports its seed, path, counterexample and a replay command', () => {
    const error = failureOf(() => fc.assert(failsAbove1000, { seed: 1234, reporter: propertyReporter(where) }));
    expect(error.message).toMatch(/Property failed after \d+ tests/);
    expect(error.message).toContain('Counterexample: [1001]');
    const path = /path: "([\d:]+)"/.exec(error.message)?.[1];
    expect(path).toBeDefined();
    expect(error.message).toContain(
      `cd packages/x && FC_SEED=1234 FC_PATH=${path} npx vitest run src/a.prop.test.ts -t '^suite prop$'`,
    );
    expect(error.message).toContain('FC_NUM_RUNS=10000 FC_SEED=1234 npx vitest run');
  });

  test('the printed seed and path replay the same counterexample in one run', () => {
    const first = failureOf(() => fc.assert(failsAbove1000, { seed: 99, reporter: propertyReporter(where) }));
    const path = /FC_PATH=([\d:]+)/.exec(first.message)?.[1] ?? '';
    const replay = failureOf(() =>
      fc.assert(failsAbove1000, { seed: 99, path, numRuns: 1, reporter: propertyReporter(where) }),
    );
    expect(replay.message).toContain('Counterexample: [1001]');
    expect(replay.message).toMatch(/Property failed after 1 tests/);
  });

  test('a thrown error is kept as the cause', () => {
    const boom = new Error('boom');
    const error = failureOf(() =>
      fc.assert(
        fc.property(fc.constant(0), () => {
          throw boom;
        }),
        { reporter: propertyReporter(where) },
      ),
    );
    expect(error.cause).toBe(boom);
  });

  test('a passing property reports nothing', () => {
    expect(() => fc.assert(fc.property(fc.nat(), (n) => n >= 0), { reporter: propertyReporter(where) })).not.toThrow();
  });
});

describe('installPropertyHarness', () => {
  const saved = fc.readConfigureGlobal();
  afterEach(() => fc.configureGlobal(saved));

  test('installs FC_NUM_RUNS and FC_SEED globally, so every property follows them', () => {
    installPropertyHarness({ FC_NUM_RUNS: '37', FC_SEED: '5' }, where);
    let runs = 0;
    const seen: number[] = [];
    fc.assert(
      fc.property(fc.integer(), (n) => {
        runs += 1;
        seen.push(n);
      }),
    );
    expect(runs).toBe(37);
    const again: number[] = [];
    fc.assert(fc.property(fc.integer(), (n) => void again.push(n)));
    expect(again).toEqual(seen);
  });

  test('a failure under the installed harness prints the replay command', () => {
    installPropertyHarness({ FC_SEED: '77' }, where);
    expect(() => fc.assert(failsAbove1000)).toThrow(/Replay this failure:\n {2}cd packages\/x && FC_SEED=77 FC_PATH=/);
  });

  test('rejects a bad environment loudly', () => {
    expect(() => installPropertyHarness({ FC_NUM_RUNS: 'lots' }, where)).toThrow(/FC_NUM_RUNS/);
  });
});

// The setup file really is loaded for this package's tests: the default run count is in force.
test('the shared setup file configured fast-check for this test run', () => {
  expect(fc.readConfigureGlobal().numRuns).toBe(Number(process.env['FC_NUM_RUNS'] ?? 100));
  expect(typeof fc.readConfigureGlobal().reporter).toBe('function');
});

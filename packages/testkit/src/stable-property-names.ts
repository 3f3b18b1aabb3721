// Property tests keep the name they were given.
//
// @fast-check/vitest 0.5 registers `test.prop(...)('name', ...)` as `name (with seed=N)`, where
// N is FC_SEED or, without it, a seed drawn when the file is collected. The name then changes
// from one run to the next, and every tool that selects tests by name silently runs nothing
// for a property whose name it recorded earlier: Stryker's vitest runner (it replays the tests
// that cover a mutant by name) and the `-t` pattern of our own replay command. The seed is not
// lost: fast-check prints it in the failure report, and the replay command sets it.
//
// `withStableProp` adds to vitest's `test` a `.prop` that registers the test under the name as
// written and otherwise behaves like @fast-check/vitest's: the
// property runs through `fc.assert` with the global configuration (FC_NUM_RUNS, FC_SEED, the
// replay reporter), a predicate that returns `false` fails, and the suite's beforeEach and
// afterEach hooks run around every generated value after the first.
import fc from 'fast-check';
import { TestRunner } from 'vitest';

type Predicate = (...values: never[]) => unknown;
type Arbitraries = readonly fc.Arbitrary<unknown>[] | { readonly [key: string]: fc.Arbitrary<unknown> };
/** The part of vitest's `test` (or one of its variants) that the builder calls. */
export type RegisterTest = (name: string, fn: () => Promise<void>, timeout?: number) => void;
export type StablePropBuilder = (
  arbitraries: Arbitraries,
  params?: fc.Parameters<never[]>,
) => (name: string, predicate: Predicate, timeout?: number) => void;

type Suite = NonNullable<ReturnType<typeof TestRunner.getCurrentTest>>['suite'];
type Hooks = ReturnType<typeof TestRunner.getSuiteHooks>;

/** The suites from the test's own up to the file, innermost first (as vitest orders hooks). */
function suiteChain(test: NonNullable<ReturnType<typeof TestRunner.getCurrentTest>>): NonNullable<Suite>[] {
  const chain: NonNullable<Suite>[] = [];
  for (let s: Suite = test.suite ?? test.file; s !== undefined; s = 'filepath' in s ? undefined : (s.suite ?? s.file)) {
    chain.push(s);
  }
  return chain;
}

/** Reruns the suites' beforeEach/afterEach hooks between generated values, as vitest would between tests. */
function rerunHooksBetweenValues(property: fc.IAsyncPropertyWithHooks<never[]>): void {
  const test = TestRunner.getCurrentTest();
  if (test === undefined) throw new Error('a property test must run inside a vitest test');
  const chain = suiteChain(test);
  const hooks = (s: NonNullable<Suite>): Hooks => TestRunner.getSuiteHooks(s);
  const before = [...chain].reverse().flatMap((s) => hooks(s).beforeEach);
  const after = chain.flatMap((s) => [...hooks(s).afterEach].reverse());
  if (before.length === 0 && after.length === 0) return;
  const suite = chain[0];
  if (suite === undefined) return;
  let first = true;
  property.beforeEach(async (previous) => {
    await previous();
    // vitest itself ran the hooks before the first value.
    if (first) {
      first = false;
      return;
    }
    for (const hook of after) await hook(test.context, suite as never);
    for (const hook of before) await hook(test.context, suite as never);
  });
}

/** Builds `test.prop` on top of one vitest registration function, with the name left as written. */
export function stablePropBuilder(register: RegisterTest): StablePropBuilder {
  return (arbitraries, params) => (name, predicate, timeout) => {
    const [arbs, run]: [fc.Arbitrary<unknown>[], (...values: never[]) => unknown] = Array.isArray(arbitraries)
      ? [[...(arbitraries as readonly fc.Arbitrary<unknown>[])], predicate]
      : [[fc.record(arbitraries as { [key: string]: fc.Arbitrary<unknown> })], (value: never) => predicate(value)];
    register(
      name,
      async () => {
        const property = (fc.asyncProperty as (...args: unknown[]) => fc.IAsyncPropertyWithHooks<never[]>)(...arbs, (...values: never[]) =>
          Promise.resolve(run(...values)),
        );
        rerunHooksBetweenValues(property);
        await fc.assert(property, params);
      },
      timeout,
    );
  };
}

const VARIANTS = new Set<PropertyKey>(['only', 'skip', 'concurrent', 'sequential', 'fails']);

/**
 * vitest's `test` (or a variant of it) with `.prop` added: calls, `.each`, `.skipIf` and the
 * rest go to vitest unchanged; `.only`, `.skip`, `.concurrent`, `.sequential` and `.fails`
 * have their own `.prop`.
 */
export function withStableProp<T extends object>(vitestTest: T): T & { prop: StablePropBuilder } {
  return new Proxy(vitestTest, {
    get(target, key) {
      if (key === 'prop') return stablePropBuilder(target as unknown as RegisterTest);
      const value: unknown = Reflect.get(target, key);
      return VARIANTS.has(key) && typeof value === 'function' ? withStableProp(value) : value;
    },
  }) as T & { prop: StablePropBuilder };
}

// The one vitest configuration every project uses (each vitest.config.ts calls packageTestConfig).
// - Workspace packages are resolved through the `@kubesvc/source` export condition, so tests
//   run against source with no build step.
// - Every test file runs under the shared fast-check harness (FC_NUM_RUNS, FC_SEED, FC_PATH).
// - `@fast-check/vitest` resolves to testkit's version of it, which keeps the seed out of the
//   names of property tests (tools that select tests by name must find them again).
// - Results are also written as JSON for tools/workspace's CI summary.
// - A run that is not root and selects a test file that needs root (netns, iptables, nft:
//   testkit's root-only.ts) is refused at its start with one line, not failed test by test.
// - The test files of a package tagged `type:pure` (its package.json's nx tags, as the lint
//   rules read them) share their modules within a run (vitest's `isolate: false`): what their
//   modules keep is memos of pure functions (WeakMaps keyed by
//   the objects they describe) and the WebAssembly kernel's instance, none of their tests
//   mocks or stubs a module, and evaluating the package, its dependencies and fast-check again
//   for every test file was a quarter to two thirds of their suites' CPU time.
// - Under `npm run mutation` (KUBESVC_MUTATION=1) every package's test files share their
//   modules: Stryker starts a run per mutant, and evaluating the package and fast-check again
//   for every test file was most of a mutant's time. Each run still starts from fresh
//   modules, so a mutant in top-level code is seen.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { defaultServerConditions } from 'vite';
import { defineConfig, type ViteUserConfig } from 'vitest/config';
import { RootOnlyGuard } from './packages/testkit/src/root-only-guard.ts';
import { RESULTS_FILE } from './tools/workspace/src/test-summary.ts';

const propertySetup = fileURLToPath(new URL('./packages/testkit/src/vitest-setup.ts', import.meta.url));
const fastCheckVitest = fileURLToPath(new URL('./packages/testkit/src/fast-check-vitest.ts', import.meta.url));

/**
 * What a package may set for itself. `maxWorkers`: how many test files run at once. Vitest's
 * default is one fewer than the CPUs, so one at a time on a 2-CPU machine; the CLI's files
 * mostly wait on child processes (kubesvc, kubectl, etcd), and its longest file (the 3,000
 * creates on three apiservers) would otherwise hold up all the rest.
 */
export interface PackageTestOptions {
  readonly maxWorkers?: number;
}

/** Whether the package at `projectDir` is tagged `type:pure` in its package.json. */
function isPurePackage(projectDir: URL): boolean {
  const manifest = JSON.parse(readFileSync(new URL('package.json', projectDir), 'utf8')) as { nx?: { tags?: readonly string[] } };
  return manifest.nx?.tags?.includes('type:pure') === true;
}

export function packageTestConfig(projectDir: URL, options: PackageTestOptions = {}): ViteUserConfig {
  return defineConfig({
    root: fileURLToPath(projectDir),
    ssr: { resolve: { conditions: ['@kubesvc/source', ...defaultServerConditions] } },
    resolve: { alias: [{ find: /^@fast-check\/vitest$/, replacement: fastCheckVitest }] },
    test: {
      include: ['src/**/*.test.ts'],
      // Packages whose issue has not landed have no tests yet; tools/workspace checks that
      // the workspace as a whole ran some.
      passWithNoTests: true,
      setupFiles: [propertySetup],
      isolate: !isPurePackage(projectDir) && process.env['KUBESVC_MUTATION'] !== '1',
      // A run without root that selects a test needing root is refused at its start (root-only.ts).
      reporters: ['default', ['json', { outputFile: RESULTS_FILE }], new RootOnlyGuard()],
      // Properties at FC_NUM_RUNS=2000 take far longer than the 5 s default.
      testTimeout: 120_000,
      hookTimeout: 60_000,
      ...(options.maxWorkers === undefined ? {} : { maxWorkers: options.maxWorkers }),
    },
  });
}

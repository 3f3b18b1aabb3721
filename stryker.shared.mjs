// The one StrykerJS configuration every mutated package uses (each package's
// stryker.config.mjs only lists what to mutate). Run it through `npm run mutation`, which
// works in a throwaway copy of the workspace: see tools/workspace/src/mutation.ts.
// - inPlace: Stryker's sandbox copies only the package, which breaks the package's
//   `../../vitest.shared.ts` import; the wrapper's copy takes its place.
// - vitest.related: false: Stryker would otherwise run only the tests vite finds related to
//   the mutated file, and misses the README tests (they import the package by its name).
// - The fast-check seed is pinned by the wrapper (FC_SEED) so that a property kills the same
//   mutants on every run and the incremental file stays valid.

/** @param {{ mutate: string[] }} options */
export function mutationConfig({ mutate }) {
  return {
    testRunner: 'vitest',
    vitest: { configFile: 'vitest.config.ts', related: false },
    coverageAnalysis: 'perTest',
    inPlace: true,
    incremental: true,
    incrementalFile: 'reports/mutation/incremental.json',
    concurrency: 2,
    // Stryker allows a mutant 1.5 x the covering tests' own time plus this. A property at 25
    // runs takes well under a second even on a loaded machine; a mutant that loops forever
    // costs this much and a restart of the test runner, so it is not larger than needed.
    timeoutMS: 10_000,
    mutate,
    reporters: ['clear-text', 'progress', 'html', 'json'],
    htmlReporter: { fileName: 'reports/mutation/index.html' },
    jsonReporter: { fileName: 'reports/mutation/mutation.json' },
    clearTextReporter: { allowColor: false, reportScoreTable: true, logTests: false },
    thresholds: { high: 95, low: 90, break: null },
    tempDirName: '.stryker-tmp',
    cleanTempDir: 'always',
  };
}

/** What every package leaves out: tests, test fixtures and the re-export barrels. */
export const NOT_MUTATED = ['!src/**/*.test.ts', '!src/**/*.fixtures.ts', '!src/**/index.ts'];

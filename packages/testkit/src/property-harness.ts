// The shared fast-check set-up every package's tests run under (loaded by vitest.shared.ts
// as a setup file). It applies FC_NUM_RUNS / FC_SEED / FC_PATH to every property and makes a
// failing property print, under fast-check's own report, the command that replays it.
import fc from 'fast-check';
import { readPropertyConfig, type PropertyConfig } from './property-config.js';
import { replayCommand, type ReplayTarget } from './replay-command.js';

/** Where the failing property lives; asked only when a property fails. */
export type LocateTest = () => Omit<ReplayTarget, 'seed' | 'path'>;

/** Builds the fast-check reporter: fast-check's message, then how to replay and how to run longer. */
export function propertyReporter<Ts>(locate: LocateTest): (details: fc.RunDetails<Ts>) => void {
  return (details) => {
    const report = fc.defaultReportMessage(details);
    if (report === undefined) return;
    const where = locate();
    const path = details.counterexamplePath ?? undefined;
    const replay = replayCommand({ ...where, seed: details.seed, ...(path ? { path } : {}) });
    const longer = replayCommand({ ...where, seed: details.seed, numRuns: 10_000 });
    const message = `${report}\n\nReplay this failure:\n  ${replay}\nRun it longer from the same seed:\n  ${longer}`;
    throw new Error(message, details.errorInstance === null ? {} : { cause: details.errorInstance });
  };
}

/**
 * Reads the environment and installs the configuration globally in fast-check. Returns
 * what it installed. FC_PATH is not a global parameter in fast-check's types but is honoured
 * at run time: it is meant to be used with -t so that only the failing property runs.
 */
export function installPropertyHarness(
  env: Readonly<Record<string, string | undefined>>,
  locate: LocateTest,
): PropertyConfig {
  const config = readPropertyConfig(env);
  const global: fc.GlobalParameters & { path?: string } = {
    numRuns: config.numRuns,
    reporter: propertyReporter(locate),
    ...(config.seed === undefined ? {} : { seed: config.seed }),
    ...(config.path === undefined ? {} : { path: config.path }),
  };
  fc.configureGlobal(global);
  return config;
}

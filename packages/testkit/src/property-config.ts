// How the property suites are configured from the environment. Kept free of fast-check
// and of `process` so that it can be tested as a plain function.

/** Runs per property under `npm test`; `npm run invariants` raises it to 2000. */
export const DEFAULT_NUM_RUNS = 100;

export interface PropertyConfig {
  readonly numRuns: number;
  /** Set to replay a run: the same seed makes fast-check generate the same values. */
  readonly seed?: number;
  /** With a seed, jumps straight to a recorded counterexample (`"3:1:0"`). */
  readonly path?: string;
}

export class PropertyConfigError extends Error {
  override readonly name = 'PropertyConfigError';
}

const INTEGER = /^[+-]?\d+$/;
const PATH = /^\d+(:\d+)*$/;

/**
 * Reads FC_NUM_RUNS, FC_SEED and FC_PATH. Bad values throw: a typo in a replay command
 * must not silently run a different, passing, property.
 */
export function readPropertyConfig(env: Readonly<Record<string, string | undefined>>): PropertyConfig {
  const rawRuns = env['FC_NUM_RUNS']?.trim();
  const rawSeed = env['FC_SEED']?.trim();
  const rawPath = env['FC_PATH']?.trim();

  let numRuns = DEFAULT_NUM_RUNS;
  if (rawRuns !== undefined && rawRuns !== '') {
    if (!INTEGER.test(rawRuns) || Number(rawRuns) < 1 || !Number.isSafeInteger(Number(rawRuns))) {
      throw new PropertyConfigError(`FC_NUM_RUNS must be a whole number of at least 1, got "${rawRuns}"`);
    }
    numRuns = Number(rawRuns);
  }

  let seed: number | undefined;
  if (rawSeed !== undefined && rawSeed !== '') {
    const value = Number(rawSeed);
    // fast-check seeds are 32-bit integers, and it prints them signed.
    if (!INTEGER.test(rawSeed) || value < -(2 ** 31) || value >= 2 ** 32) {
      throw new PropertyConfigError(`FC_SEED must be a 32-bit integer as fast-check prints it, got "${rawSeed}"`);
    }
    seed = value;
  }

  let path: string | undefined;
  if (rawPath !== undefined && rawPath !== '') {
    if (!PATH.test(rawPath)) {
      throw new PropertyConfigError(`FC_PATH must look like "3:1:0" (as fast-check prints it), got "${rawPath}"`);
    }
    if (seed === undefined) {
      throw new PropertyConfigError('FC_PATH replays a counterexample of one seed: set FC_SEED as well');
    }
    path = rawPath;
  }

  return { numRuns, ...(seed === undefined ? {} : { seed }), ...(path === undefined ? {} : { path }) };
}

// The command line printed under a failing property, so that whoever reads a CI log can
// replay exactly that failure on their machine.

export interface ReplayTarget {
  readonly seed: number;
  /** Runs per property, for a longer run from the same seed. */
  readonly numRuns?: number;
  readonly path?: string;
  /** The package folder relative to the workspace root, e.g. `packages/ipallocator`. */
  readonly packageDir?: string;
  /** The test file relative to the package folder. */
  readonly testFile?: string;
  /** The full vitest test name (describe blocks joined by ' > '). */
  readonly testName?: string;
}

/** Quotes a word for a POSIX shell. */
export function shellQuote(word: string): string {
  return /^[\w./:=@%+-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** vitest's -t is a regular expression: escape the name and anchor it. */
export function testNamePattern(testName: string): string {
  return `^${testName.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`;
}

export function replayCommand(target: ReplayTarget): string {
  const env = [`FC_SEED=${target.seed}`];
  if (target.numRuns !== undefined) env.unshift(`FC_NUM_RUNS=${target.numRuns}`);
  if (target.path !== undefined && target.path !== '') env.push(`FC_PATH=${shellQuote(target.path)}`);
  const words = ['npx', 'vitest', 'run'];
  if (target.testFile !== undefined) words.push(shellQuote(target.testFile));
  // vitest joins describe blocks with ' > ' in its report but matches -t against the
  // names joined by single spaces.
  if (target.testName !== undefined) words.push('-t', shellQuote(testNamePattern(target.testName.split(' > ').join(' '))));
  const run = `${env.join(' ')} ${words.join(' ')}`;
  return target.packageDir !== undefined && target.packageDir !== '' ? `cd ${shellQuote(target.packageDir)} && ${run}` : run;
}

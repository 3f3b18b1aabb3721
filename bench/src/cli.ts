// Command line of `npm run bench`: which suites, how long, where the JSON goes.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { DEFAULT_RUN_OPTIONS, formatResult, missedTargets, runSuite, type BenchSuite, type RunOptions, type SuiteResult } from './harness.js';

export const USAGE = `usage: npm run bench -- [suite ...] [--list] [--task TEXT ...] [--time MS] [--warmup MS] [--out DIR] [--strict]

  suite      names of suites to run (default: all); see --list
  --list     print the registered suites and exit
  --task     run only the tasks whose name contains TEXT (repeatable: any of them)
  --time     sampling time per task in ms (default ${DEFAULT_RUN_OPTIONS.timeMs})
  --warmup   warm-up time per task in ms (default ${DEFAULT_RUN_OPTIONS.warmupMs})
  --out      folder for the JSON results (default bench/results)
  --strict   exit with status 1 when a task misses its target`;

/**
 * A registered suite: its name, and how to build it. Only the suites a run names are loaded, so
 * that one suite's imports (the testkit's fast-check, say, a few hundred MiB of heap) do not
 * weigh on another's timings; `--list` loads them all for their descriptions.
 */
export interface SuiteEntry {
  readonly name: string;
  readonly load: () => BenchSuite | Promise<BenchSuite>;
}

export interface CliIo {
  readonly out: (line: string) => void;
  readonly err: (line: string) => void;
  readonly resultsDir: string;
}

function positiveMs(name: string, raw: string | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value <= 0) throw new Error(`--${name} takes a whole number of milliseconds above 0, got "${raw}"`);
  return value;
}

/** Runs the CLI and returns its exit status. */
export async function main(argv: readonly string[], registry: readonly SuiteEntry[], io: CliIo): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        list: { type: 'boolean' },
        task: { type: 'string', multiple: true },
        time: { type: 'string' },
        warmup: { type: 'string' },
        out: { type: 'string' },
        strict: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
    });
  } catch (error) {
    io.err(`bench: ${(error as Error).message}\n${USAGE}`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    io.out(USAGE);
    return 0;
  }
  let options: RunOptions;
  try {
    options = {
      ...DEFAULT_RUN_OPTIONS,
      timeMs: positiveMs('time', values.time, DEFAULT_RUN_OPTIONS.timeMs),
      warmupMs: positiveMs('warmup', values.warmup, DEFAULT_RUN_OPTIONS.warmupMs),
    };
  } catch (error) {
    io.err(`bench: ${(error as Error).message}`);
    return 2;
  }

  const names = registry.map((s) => s.name);
  const duplicate = names.find((n, i) => names.indexOf(n) !== i);
  if (duplicate !== undefined) throw new Error(`two bench suites are named "${duplicate}"`);
  const load = async (entry: SuiteEntry): Promise<BenchSuite> => {
    const suite = await entry.load();
    if (suite.name !== entry.name) throw new Error(`the bench suite registered as "${entry.name}" calls itself "${suite.name}"`);
    return suite;
  };

  if (values.list || registry.length === 0) {
    if (registry.length === 0) io.out('No benchmark suites are registered yet (bench/src/suites.ts).');
    for (const entry of registry) io.out(`${entry.name.padEnd(24)} ${(await load(entry)).description}`);
    return registry.length === 0 && positionals.length > 0 ? 2 : 0;
  }

  const unknown = positionals.filter((p) => !names.includes(p));
  if (unknown.length > 0) {
    io.err(`bench: no suite named ${unknown.map((u) => `"${u}"`).join(', ')}; registered: ${names.join(', ')}`);
    return 2;
  }
  const chosen = positionals.length === 0 ? registry : registry.filter((s) => positionals.includes(s.name));

  const results: SuiteResult[] = [];
  const dir = values.out ?? io.resultsDir;
  mkdirSync(dir, { recursive: true });
  const only = values.task ?? [];
  for (const entry of chosen) {
    const loaded = await load(entry);
    const suite = only.length === 0 ? loaded : { ...loaded, tasks: loaded.tasks.filter((task) => only.some((text) => task.name.includes(text))) };
    if (suite.tasks.length === 0) {
      io.err(`bench: no task of suite "${suite.name}" has a name containing ${only.map((t) => `"${t}"`).join(' or ')}`);
      return 2;
    }
    const result = await runSuite(suite, options);
    results.push(result);
    io.out(formatResult(result));
    io.out('');
    const file = join(dir, `${suite.name}-${result.date.replace(/[:.]/g, '-')}.json`);
    writeFileSync(file, `${JSON.stringify(result, null, 2)}\n`);
    io.out(`results written to ${file}`);
    io.out('');
  }
  const missed = missedTargets(results);
  if (missed > 0) io.out(`${missed} task(s) missed their target.`);
  return missed > 0 && values.strict ? 1 : 0;
}

// `npm run mutation [-- <package>...] [-- stryker options]`: StrykerJS on the pure packages.
//
// Stryker must mutate the sources in place (its own sandbox copies only the package and breaks
// the `../../vitest.shared.ts` import), so this runs it in a throwaway copy of the workspace:
// the files git knows about (tracked, or untracked and not ignored) are copied to a temporary
// folder, node_modules is mirrored there with symlinks, Stryker runs in the package's folder of
// the copy, and the report and the incremental file are copied back. The copy is removed when
// Stryker ends, fails, or is interrupted; the developer's tree is never mutated.
import { spawn, execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  copyFileSync,
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, relative, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { workspaceRoot } from './workspace.js';

/** The seed every mutation run uses: a property must kill the same mutants on every run. */
export const MUTATION_FC_SEED = '20240624';

/**
 * Runs per property during a mutation run (`npm test` uses 100). Stryker runs the covering
 * properties once per mutant, and at 100 runs they were most of a run's time; docs/mutation.md
 * says what the lower number costs.
 */
export const MUTATION_FC_NUM_RUNS = '25';

/** Where Stryker writes the reports and the incremental file, relative to the package folder. */
export const REPORT_DIR = 'reports/mutation';

export interface MutationArgs {
  /** Package folder names under packages/ (e.g. `reconcilers`). Empty: every configured one. */
  readonly packages: readonly string[];
  /** Passed on to `stryker run` (e.g. `--concurrency 1`). */
  readonly strykerArgs: readonly string[];
}

/** Words before the first option are package names; the option and what follows go to Stryker. */
export function parseMutationArgs(argv: readonly string[]): MutationArgs {
  const firstOption = argv.findIndex((a) => a.startsWith('-'));
  const split = firstOption === -1 ? argv.length : firstOption;
  return { packages: argv.slice(0, split), strykerArgs: argv.slice(split).filter((a, i) => !(i === 0 && a === '--')) };
}

/** What is never mutated (stryker.shared.mjs's NOT_MUTATED; a test keeps the two equal). */
export const NOT_MUTATED = ['!src/**/*.test.ts', '!src/**/*.fixtures.ts', '!src/**/index.ts'];

/**
 * `--mutate <files>` (or `-m`) replaces the configuration's list, and with it the exclusions: a
 * glob over a folder would mutate its tests too. The exclusions are added back to the
 * comma-separated list.
 */
export function withNotMutated(strykerArgs: readonly string[]): string[] {
  const extend = (list: string): string => [...list.split(',').filter((f) => f !== ''), ...NOT_MUTATED].join(',');
  return strykerArgs.map((arg, i) => {
    const previous = strykerArgs[i - 1];
    if (previous === '--mutate' || previous === '-m') return extend(arg);
    if (arg.startsWith('--mutate=')) return `--mutate=${extend(arg.slice('--mutate='.length))}`;
    return arg;
  });
}

/** The packages with a stryker.config.mjs, by folder name. */
export function configuredPackages(root: string = workspaceRoot): string[] {
  return readdirSync(join(root, 'packages'))
    .filter((name) => existsSync(join(root, 'packages', name, 'stryker.config.mjs')))
    .sort();
}

/** The files of the working tree as git sees them: tracked (and still present) plus untracked, not ignored. */
export function workingTreeFiles(root: string): string[] {
  const out = execFileSync('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: root, encoding: 'utf8' });
  return [...new Set(out.split('\0').filter((f) => f !== ''))].filter((f) => existsSync(join(root, f)));
}

/**
 * Mirrors a node_modules folder: every package becomes a symlink to the original, except the
 * workspace's own packages (relative symlinks into the workspace), which are recreated as the
 * same relative links so that they point at the copy's sources.
 */
export function mirrorNodeModules(from: string, to: string, root: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, entry.name);
    if (entry.isDirectory() && entry.name.startsWith('@')) {
      mirrorNodeModules(source, target, root);
    } else if (entry.isSymbolicLink() && !isAbsolute(readlinkSync(source))) {
      const link = readlinkSync(source);
      const resolved = relative(root, resolve(dirname(source), link));
      const intoWorkspace = !resolved.startsWith('..') && !resolved.split(/[\\/]/).includes('node_modules');
      symlinkSync(intoWorkspace ? link : resolve(dirname(source), link), target);
    } else {
      symlinkSync(source, target);
    }
  }
}

/** Builds the throwaway copy of the workspace at `to`. */
export function copyWorkspace(root: string, to: string): void {
  for (const file of workingTreeFiles(root)) {
    if (lstatSync(join(root, file)).isSymbolicLink()) continue;
    mkdirSync(dirname(join(to, file)), { recursive: true });
    copyFileSync(join(root, file), join(to, file));
  }
  const nodeModulesDirs = ['node_modules', ...readdirSync(join(root, 'packages')).map((p) => join('packages', p, 'node_modules'))];
  for (const dir of nodeModulesDirs) {
    if (existsSync(join(root, dir))) mirrorNodeModules(join(root, dir), join(to, dir), root);
  }
}

export interface MutationSummary {
  readonly killed: number;
  readonly survived: number;
  readonly timeout: number;
  readonly noCoverage: number;
  readonly ignored: number;
  readonly errors: number;
  /** (killed + timeout) / (killed + timeout + survived + noCoverage), in percent. */
  readonly score: number;
}

/** Counts the mutants of a Stryker JSON report (mutation-testing-report-schema) by status. */
export function summarizeReport(report: { files: Record<string, { mutants: readonly { status: string }[] }> }): MutationSummary {
  const count = { killed: 0, survived: 0, timeout: 0, noCoverage: 0, ignored: 0, errors: 0 };
  for (const file of Object.values(report.files)) {
    for (const { status } of file.mutants) {
      if (status === 'Killed') count.killed += 1;
      else if (status === 'Survived') count.survived += 1;
      else if (status === 'Timeout') count.timeout += 1;
      else if (status === 'NoCoverage') count.noCoverage += 1;
      else if (status === 'Ignored') count.ignored += 1;
      else count.errors += 1;
    }
  }
  const detected = count.killed + count.timeout;
  const valid = detected + count.survived + count.noCoverage;
  return { ...count, score: valid === 0 ? 100 : Math.round((detected / valid) * 10_000) / 100 };
}

/**
 * What a run depends on: every working-tree file (sources, tests, configs, the lockfile) and
 * the Stryker options other than the concurrency. An unchanged fingerprint gives the same
 * result, so the wrapper reports the last run instead of starting Stryker again.
 */
export function inputFingerprint(root: string, strykerArgs: readonly string[]): string {
  const hash = createHash('sha256');
  const args = strykerArgs.filter((a, i) => a !== '--force' && !a.startsWith('--concurrency') && strykerArgs[i - 1] !== '--concurrency');
  hash.update(JSON.stringify(args));
  for (const file of workingTreeFiles(root).sort()) {
    hash.update(`\0${file}\0`);
    hash.update(lstatSync(join(root, file)).isSymbolicLink() ? readlinkSync(join(root, file)) : readFileSync(join(root, file)));
  }
  return hash.digest('hex');
}

function printSummary(pkg: string, reports: string): void {
  const file = join(reports, 'mutation.json');
  if (!existsSync(file)) return;
  const s = summarizeReport(JSON.parse(readFileSync(file, 'utf8')) as Parameters<typeof summarizeReport>[0]);
  console.log(
    `mutation: packages/${pkg}: score ${s.score} % (killed ${s.killed}, timeout ${s.timeout}, survived ${s.survived}, no coverage ${s.noCoverage}, ignored ${s.ignored}); report ${relative(process.cwd(), join(reports, 'index.html'))}`,
  );
}

/** Runs Stryker on one package in a fresh copy; resolves to its exit code. */
export async function mutatePackage(pkg: string, strykerArgs: readonly string[], root: string = workspaceRoot): Promise<number> {
  const packageDir = join(root, 'packages', pkg);
  if (!existsSync(join(packageDir, 'stryker.config.mjs'))) {
    throw new Error(`packages/${pkg} has no stryker.config.mjs; configured: ${configuredPackages(root).join(', ')}`);
  }
  const reports = join(packageDir, REPORT_DIR);
  const fingerprintFile = join(reports, 'inputs.sha256');
  const fingerprint = inputFingerprint(root, strykerArgs);
  const forced = strykerArgs.includes('--force');
  if (!forced && existsSync(fingerprintFile) && readFileSync(fingerprintFile, 'utf8').trim() === fingerprint && existsSync(join(reports, 'mutation.json'))) {
    console.log(`mutation: packages/${pkg}: nothing changed since the last run (pass --force to run Stryker again)`);
    printSummary(pkg, reports);
    return 0;
  }
  const copy = mkdtempSync(join(tmpdir(), `kubesvc-mutation-${pkg}-`));
  const removeCopy = (): void => rmSync(copy, { recursive: true, force: true });
  process.once('exit', removeCopy);
  try {
    copyWorkspace(root, copy);
    const copyReports = join(copy, 'packages', pkg, REPORT_DIR);
    if (existsSync(reports)) cpSync(reports, copyReports, { recursive: true });

    const env: NodeJS.ProcessEnv = { ...process.env, FC_SEED: MUTATION_FC_SEED, FC_NUM_RUNS: MUTATION_FC_NUM_RUNS, KUBESVC_MUTATION: '1', NX_DAEMON: 'false' };
    delete env['FC_PATH'];
    const stryker = join(root, 'node_modules', '@stryker-mutator', 'core', 'bin', 'stryker.js');
    const child = spawn(process.execPath, [stryker, 'run', ...withNotMutated(strykerArgs)], { cwd: join(copy, 'packages', pkg), env, stdio: 'inherit' });
    const forward = (signal: NodeJS.Signals): void => {
      child.kill(signal);
    };
    const signals: NodeJS.Signals[] = ['SIGINT', 'SIGTERM', 'SIGHUP'];
    for (const s of signals) process.on(s, forward);
    const code = await new Promise<number>((done) => {
      child.on('close', (exit, signal) => done(exit ?? (signal === null ? 1 : 128 + 2)));
      child.on('error', () => done(1));
    });
    for (const s of signals) process.off(s, forward);

    if (existsSync(copyReports)) {
      mkdirSync(reports, { recursive: true });
      rmSync(fingerprintFile, { force: true });
      cpSync(copyReports, reports, { recursive: true });
      if (code === 0) writeFileSync(fingerprintFile, `${fingerprint}\n`);
      printSummary(pkg, reports);
    }
    return code;
  } finally {
    removeCopy();
    process.off('exit', removeCopy);
  }
}

async function main(argv: readonly string[]): Promise<number> {
  const { packages, strykerArgs } = parseMutationArgs(argv);
  const targets = packages.length > 0 ? packages : configuredPackages();
  for (const pkg of targets) {
    const started = Date.now();
    const code = await mutatePackage(pkg, strykerArgs);
    console.log(`mutation: packages/${pkg} finished in ${Math.round((Date.now() - started) / 1000)} s (exit ${code})`);
    if (code !== 0) return code;
  }
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  main(process.argv.slice(2)).then(
    (code) => process.exit(code),
    (e: unknown) => {
      console.error(e instanceof Error ? e.message : e);
      process.exit(1);
    },
  );
}

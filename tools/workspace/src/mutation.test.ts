// The mutation wrapper's pieces that run without Stryker: its arguments, the throwaway copy of
// a working tree, the fingerprint that skips an unchanged rerun, and the report summary.
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, readlinkSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, test } from 'vitest';
import { configuredPackages, copyWorkspace, inputFingerprint, NOT_MUTATED, parseMutationArgs, summarizeReport, withNotMutated } from './mutation.js';
import { workspaceRoot } from './workspace.js';

const temps: string[] = [];
afterEach(() => {
  for (const dir of temps.splice(0)) rmSync(dir, { recursive: true, force: true });
});
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-mutation-test-'));
  temps.push(dir);
  return dir;
}

/** A git working tree with a workspace package, an ignored file and a node_modules folder. */
function fixtureTree(): string {
  const root = tempDir();
  const write = (path: string, text: string): void => {
    mkdirSync(join(root, path, '..'), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write('package.json', '{"workspaces":["packages/*"]}\n');
  write('.gitignore', 'node_modules/\n**/reports/mutation/\n');
  write('packages/a/src/a.ts', 'export const a = 1;\n');
  write('packages/a/reports/mutation/incremental.json', '{}\n');
  write('packages/a/untracked.ts', 'export const u = 2;\n');
  write('node_modules/dep/index.js', 'export default 3;\n');
  mkdirSync(join(root, 'node_modules/@kubesvc'), { recursive: true });
  symlinkSync('../../packages/a', join(root, 'node_modules/@kubesvc/a'));
  const git = (...args: string[]) => execFileSync('git', args, { cwd: root, stdio: 'pipe' });
  git('init', '-q');
  git('add', 'package.json', '.gitignore', 'packages/a/src/a.ts');
  return root;
}

describe('parseMutationArgs', () => {
  test('words before the first option are packages; the rest goes to Stryker', () => {
    expect(parseMutationArgs(['reconcilers', 'ipallocator', '--concurrency', '1'])).toEqual({ packages: ['reconcilers', 'ipallocator'], strykerArgs: ['--concurrency', '1'] });
    expect(parseMutationArgs([])).toEqual({ packages: [], strykerArgs: [] });
    expect(parseMutationArgs(['--', '--force'])).toEqual({ packages: [], strykerArgs: ['--force'] });
  });
});

describe('withNotMutated', () => {
  test('a --mutate list keeps the tests, fixtures and barrels out; other options pass unchanged', () => {
    const rest = NOT_MUTATED.join(',');
    expect(withNotMutated(['--mutate', 'src/trace/**/*.ts', '--concurrency', '1'])).toEqual(['--mutate', `src/trace/**/*.ts,${rest}`, '--concurrency', '1']);
    expect(withNotMutated(['-m', 'src/a.ts,src/b.ts'])).toEqual(['-m', `src/a.ts,src/b.ts,${rest}`]);
    expect(withNotMutated(['--mutate=src/a.ts:10-20'])).toEqual([`--mutate=src/a.ts:10-20,${rest}`]);
    expect(withNotMutated(['--force'])).toEqual(['--force']);
  });

  test('is the list every stryker.config.mjs leaves out', async () => {
    const shared = (await import(pathToFileURL(join(workspaceRoot, 'stryker.shared.mjs')).href)) as { NOT_MUTATED: string[] };
    expect(shared.NOT_MUTATED).toEqual(NOT_MUTATED);
  });
});

test('the configured packages are the ones with a stryker.config.mjs', () => {
  expect(configuredPackages(workspaceRoot)).toEqual(['api-types', 'discovery', 'ipallocator', 'proxy', 'proxy-iptables', 'reconcilers']);
});

describe('copyWorkspace', () => {
  test('copies tracked and untracked files but not ignored ones, and links node_modules', () => {
    const root = fixtureTree();
    const copy = tempDir();
    copyWorkspace(root, copy);
    expect(readFileSync(join(copy, 'packages/a/src/a.ts'), 'utf8')).toBe('export const a = 1;\n');
    expect(existsSync(join(copy, 'packages/a/untracked.ts'))).toBe(true);
    expect(existsSync(join(copy, 'packages/a/reports/mutation/incremental.json'))).toBe(false);
    // Third-party packages point at the original; workspace packages at the copy's sources.
    expect(realpathSync(join(copy, 'node_modules/dep'))).toBe(realpathSync(join(root, 'node_modules/dep')));
    expect(readlinkSync(join(copy, 'node_modules/@kubesvc/a'))).toBe('../../packages/a');
    expect(realpathSync(join(copy, 'node_modules/@kubesvc/a'))).toBe(realpathSync(join(copy, 'packages/a')));
    expect(lstatSync(join(copy, 'packages/a/src/a.ts')).isSymbolicLink()).toBe(false);
  });
});

describe('inputFingerprint', () => {
  test('changes with a source file or a Stryker option, not with the concurrency or --force', () => {
    const root = fixtureTree();
    const before = inputFingerprint(root, []);
    expect(inputFingerprint(root, ['--concurrency', '1'])).toBe(before);
    expect(inputFingerprint(root, ['--force'])).toBe(before);
    expect(inputFingerprint(root, ['--mutate', 'src/a.ts'])).not.toBe(before);
    writeFileSync(join(root, 'packages/a/reports/mutation/incremental.json'), '{"x":1}\n');
    expect(inputFingerprint(root, [])).toBe(before);
    writeFileSync(join(root, 'packages/a/src/a.ts'), 'export const a = 2;\n');
    expect(inputFingerprint(root, [])).not.toBe(before);
  });
});

describe('summarizeReport', () => {
  test('counts statuses; the score is detected over valid mutants, as Stryker computes it', () => {
    const mutants = (...statuses: string[]) => statuses.map((status) => ({ status }));
    const summary = summarizeReport({
      files: {
        'src/a.ts': { mutants: mutants('Killed', 'Killed', 'Survived', 'Ignored') },
        'src/b.ts': { mutants: mutants('Timeout', 'NoCoverage', 'CompileError') },
      },
    });
    expect(summary).toEqual({ killed: 2, survived: 1, timeout: 1, noCoverage: 1, ignored: 1, errors: 1, score: 60 });
    expect(summarizeReport({ files: {} }).score).toBe(100);
  });
});

// The names of property tests do not depend on the seed: a tool that records a test by name
// (Stryker, the `-t` of a replay command) finds it again on the next run.
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { fc, test } from '@fast-check/vitest';
import { afterAll, afterEach, beforeEach, describe, expect } from 'vitest';

const execFileAsync = promisify(execFile);
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const vitestBin = fileURLToPath(new URL('../../../node_modules/vitest/vitest.mjs', import.meta.url));

const listDir = mkdtempSync(join(tmpdir(), 'kubesvc-test-names-'));
afterAll(() => rmSync(listDir, { recursive: true, force: true }));

/** The test names `vitest list` collects from one file, under the given FC_SEED (undefined: none). */
async function collectedNames(file: string, seed: string | undefined): Promise<string[]> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('FC_') && !/^npm_/i.test(key)));
  if (seed !== undefined) env['FC_SEED'] = seed;
  const out = join(listDir, `${seed ?? 'drawn'}.json`);
  await execFileAsync(process.execPath, [vitestBin, 'list', `--json=${out}`, file], { cwd: packageDir, env });
  const listed = JSON.parse(readFileSync(out, 'utf8')) as { name: string; file: string }[];
  expect(new Set(listed.map((t) => t.file))).toEqual(new Set([join(packageDir, file)]));
  return listed.map((t) => t.name).sort();
}

describe('property test names', () => {
  test.prop([fc.integer()])('INV-TESTKIT-NAME: are the names written in the file', () => {
    expect(expect.getState().currentTestName).toBe('property test names > INV-TESTKIT-NAME: are the names written in the file');
  });

  // Without FC_SEED, fast-check draws a seed per run: the second collection has another one.
  test('are the same under a pinned seed and under a drawn one', async () => {
    const file = 'src/replay-command.prop.test.ts';
    const pinned = await collectedNames(file, '1');
    const drawn = await collectedNames(file, undefined);
    expect(pinned.length).toBeGreaterThan(0);
    expect(pinned.join('\n')).not.toMatch(/seed/i);
    expect(drawn).toEqual(pinned);
  });
});

describe('a property under the stable-name builder', () => {
  // vitest's `fails` passes only when the test fails: a predicate returning false must fail it.
  test.fails.prop([fc.integer({ min: 0 })])('fails when the predicate returns false', (n) => n < 0);

  test.fails.prop([fc.integer({ min: 0 })])('fails when the predicate throws', (n) => {
    expect(n).toBeLessThan(0);
  });

  test.prop({ a: fc.nat(), b: fc.string() })('receives a record of values when given a record of arbitraries', ({ a, b }) => {
    expect(Number.isInteger(a) && a >= 0).toBe(true);
    expect(typeof b).toBe('string');
  });

  describe('with beforeEach and afterEach hooks', () => {
    let befores = 0;
    let afters = 0;
    let runs = 0;
    beforeEach(() => {
      befores += 1;
    });
    afterEach(() => {
      afters += 1;
    });

    // @fast-check/vitest runs the hooks around every generated value, as around a test.
    test.prop([fc.nat()], { numRuns: 5 })('runs them around every generated value', () => {
      runs += 1;
      expect(befores).toBe(runs);
      expect(afters).toBe(runs - 1);
    });
  });
});

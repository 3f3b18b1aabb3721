import { execFileSync } from 'node:child_process';
import { describe, expect, test } from 'vitest';
import { replayCommand, shellQuote, testNamePattern } from './replay-command.js';

describe('replayCommand', () => {
  test('names the seed, the path, the file and the anchored test name, from the package folder', () => {
    expect(
      replayCommand({
        seed: -42,
        path: '3:1',
        packageDir: 'packages/ipallocator',
        testFile: 'src/bitmap.prop.test.ts',
        testName: 'bitmap > INV-IP-UNIQUE: no IP is held twice (1.2.3.4)',
      }),
    ).toBe(
      "cd packages/ipallocator && FC_SEED=-42 FC_PATH=3:1 npx vitest run src/bitmap.prop.test.ts -t '^bitmap INV-IP-UNIQUE: no IP is held twice \\(1\\.2\\.3\\.4\\)$'",
    );
  });

  test('leaves out what it does not know', () => {
    expect(replayCommand({ seed: 7 })).toBe('FC_SEED=7 npx vitest run');
  });

  test("a quoted name survives the shell and still matches vitest's name as a regular expression", () => {
    const name = "it's a (weird) name with $HOME and [brackets]";
    const quoted = shellQuote(testNamePattern(name));
    const echoed = execFileSync('sh', ['-c', `printf %s ${quoted}`], { encoding: 'utf8' });
    expect(new RegExp(echoed).test(name)).toBe(true);
    expect(new RegExp(echoed).test(`${name}!`)).toBe(false);
  });
});

test('a longer run puts FC_NUM_RUNS first', () => {
  expect(replayCommand({ seed: 3, numRuns: 10_000, testFile: 'src/a.prop.test.ts' })).toBe(
    'FC_NUM_RUNS=10000 FC_SEED=3 npx vitest run src/a.prop.test.ts',
  );
});

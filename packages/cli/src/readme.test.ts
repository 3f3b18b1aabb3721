// Every `console` block of the README is a command and what it prints: this runs each command
// through the real bin from the repository root and compares the output (standard error, then
// standard output, as a terminal shows a warning written before the answer) and the exit code
// (`# exit N` at the end of the command; 0 without).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, test } from 'vitest';
import { PACKAGE_ROOT, REPO_ROOT, runBin } from './run-bin.fixtures.js';

interface ConsoleBlock {
  readonly command: string;
  readonly args: readonly string[];
  readonly exitCode: number;
  readonly output: string;
}

/** A command line's words, as a shell splits them when the only quoting is single quotes. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|([^\s']+)/g)].reduce<{ words: string[]; at: number }>(
    (acc, m) => {
      const word = m[1] ?? m[2] ?? '';
      // A quoted part right after another part (no space between) is the same word.
      if (acc.words.length > 0 && m.index === acc.at) acc.words[acc.words.length - 1] += word;
      else acc.words.push(word);
      acc.at = m.index + m[0].length;
      return acc;
    },
    { words: [], at: -1 },
  ).words;
}

function consoleBlocks(markdown: string): ConsoleBlock[] {
  const blocks: ConsoleBlock[] = [];
  for (const match of markdown.matchAll(/^```console\n\$ (npx kubesvc [^\n]*)\n([\s\S]*?)^```$/gm)) {
    const [, command = '', output = ''] = match;
    const [words = '', exit] = command.split(' # exit ');
    blocks.push({ command, args: shellWords(words).slice(2), exitCode: exit === undefined ? 0 : Number(exit), output });
  }
  return blocks;
}

const blocks = consoleBlocks(readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8'));

test('the README has a console example for every offline command, and for the refusals of kubesvc up', () => {
  const commands = new Set(blocks.map((b) => b.args[0]));
  expect([...commands].sort()).toEqual(['dns', 'doctor', 'env', 'ips', 'rules', 'trace', 'up', 'validate']);
  // Every up example is a refusal: it ends before it opens the data dir (./.kubesvc here).
  expect(blocks.filter((b) => b.args[0] === 'up').map((b) => b.exitCode)).toEqual([2, 2, 2, 2]);
});

test.each(blocks.map((b) => [b.command, b] as const))('README: %s', async (_command, block) => {
  const run = await runBin(block.args, { cwd: REPO_ROOT });
  expect(run.stderr + run.stdout).toBe(block.output);
  expect(run.code).toBe(block.exitCode);
});

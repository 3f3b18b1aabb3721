// The README's example, run as written: its code block is copied to a temporary module
// that imports this package's source, and what it prints must be the README's output block.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, it, vi } from 'vitest';

const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
const dir = mkdtempSync(join(tmpdir(), 'kubesvc-readme-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function block(after: RegExp, lang: string): string {
  const start = readme.search(after);
  expect(start, `README section ${after}`).toBeGreaterThanOrEqual(0);
  const open = readme.indexOf('```' + lang + '\n', start);
  const close = readme.indexOf('\n```\n', open);
  return readme.slice(open + lang.length + 4, close + 1);
}

it('the README example prints what the README says', async () => {
  const code = block(/^## Example/m, 'ts');
  const expected = block(/^prints$/m, '');
  const source = fileURLToPath(new URL('./index.ts', import.meta.url));
  const file = join(dir, 'example.ts');
  writeFileSync(file, code.replace(/from '@kubesvc\/api-types'/, `from ${JSON.stringify(source)}`));
  const lines: string[] = [];
  const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  });
  try {
    await import(file);
  } finally {
    log.mockRestore();
  }
  expect(lines.join('\n') + '\n').toBe(expected);
});

// `npm run example -- <file>` (root package.json) runs a TypeScript file against the
// packages' source, as the root README tells a reader to run a package README's example.
// This does what a reader does: save the example in a file of their own inside the
// repository, and run the script from that file's folder with a path relative to it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { readmeExample } from '@kubesvc/testkit';
import { expect, test } from 'vitest';
import { runTool } from './child-process.js';
import { workspaceRoot } from './workspace.js';

test('npm run example -- <file> runs a package README example as written and prints what the README says', async () => {
  const example = readmeExample(readFileSync(join(workspaceRoot, 'packages/api-types/README.md'), 'utf8'));
  // Inside the repository, so that `@kubesvc/*` resolves through its node_modules.
  const dir = mkdtempSync(join(workspaceRoot, '.example-'));
  try {
    writeFileSync(join(dir, 'my-example.ts'), example.code);
    const { stdout } = await runTool('npm', ['run', '--silent', 'example', '--', 'my-example.ts'], dir);
    expect(stdout).toBe(example.expected);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('npm run example reads the packages from src/, through the @kubesvc/source condition, with no build', async () => {
  const dir = mkdtempSync(join(workspaceRoot, '.example-'));
  try {
    writeFileSync(join(dir, 'where.ts'), "console.log(import.meta.resolve('@kubesvc/ipallocator'));\n");
    const { stdout } = await runTool('npm', ['run', '--silent', 'example', '--', 'where.ts'], dir);
    expect(stdout.trim()).toMatch(/\/packages\/ipallocator\/src\/index\.ts$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

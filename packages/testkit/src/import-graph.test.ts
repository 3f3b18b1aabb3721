// The import walk on files written for the test: each import form is followed, packages and
// built-ins are listed once, and a cycle ends.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { importGraph } from './import-graph.js';

const root = mkdtempSync(join(tmpdir(), 'kubesvc-import-graph-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

it('follows static, re-export, dynamic and bare imports, and lists the packages they reach', () => {
  mkdirSync(join(root, 'sub'));
  writeFileSync(join(root, 'index.ts'), "import { a } from './a.js';\nexport { b } from './sub/b.js';\nimport type { T } from '@scope/types';\nexport const x = a;\n");
  writeFileSync(join(root, 'a.ts'), "import { readFileSync } from 'node:fs';\nexport const a = () => import('./lazy.js');\n");
  writeFileSync(join(root, 'lazy.ts'), "import 'side-effect';\nimport { a } from './a.js';\n");
  writeFileSync(join(root, 'sub/b.ts'), "export const b = 1;\n");
  writeFileSync(join(root, 'unreached.ts'), "import 'never';\n");
  expect(importGraph(root, 'index.ts')).toStrictEqual({
    files: ['a.ts', 'index.ts', 'lazy.ts', 'sub/b.ts'],
    packages: ['@scope/types', 'node:fs', 'side-effect'],
  });
});

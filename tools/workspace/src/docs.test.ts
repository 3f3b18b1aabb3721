// Docs a newcomer can follow: every README and docs page links only to files that exist
// inside the repository, and points at nothing a reader of the repository cannot open (the
// design notes and reference files kept outside it, or issue numbers of the project's
// tracker); and the root README's install step is the script npm test and CI run.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, test } from 'vitest';
import { listProjects, workspaceRoot } from './workspace.js';

const docs = [
  'README.md',
  ...readdirSync(join(workspaceRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...listProjects()
    .map((p) => `${p.dir}/README.md`)
    .filter((f) => existsSync(join(workspaceRoot, f))),
  // The dated history that docs/performance.md and docs/mutation.md link to.
  ...(existsSync(join(workspaceRoot, 'bench/results'))
    ? readdirSync(join(workspaceRoot, 'bench/results'))
        .filter((f) => f.endsWith('.md'))
        .map((f) => `bench/results/${f}`)
    : []),
].sort();

/**
 * Paths from the repository root (`docs/x.md`, `packages/cli/src/main.ts`) that name no file
 * of the repository. Not checked: a path right after an upstream repository's name
 * (kubernetes/dns `docs/specification.md`), a template (`packages/<name>/...`, `packages/*`),
 * and a one-letter placeholder package (`packages/x/src/index.ts`).
 */
function missingPaths(text: string, root: string = workspaceRoot): string[] {
  const missing: string[] = [];
  for (const line of text.split('\n')) {
    for (const m of line.matchAll(/(?<![\w./<>*-])(?:docs|bench|tools|packages)\/[\w./-]+\.(?:md|ts|mts|mjs|json|ya?ml)\b/g)) {
      const before = line.slice(0, m.index);
      if (/\b[\w.-]+\/[\w.-]+:?\s+`?$/.test(before)) continue;
      if (/^packages\/[a-z]\//.test(m[0])) continue;
      if (!existsSync(join(root, m[0]))) missing.push(m[0]);
    }
  }
  return missing;
}

/** The comments of a source file (`//` to the end of the line, and block comments), as text. */
function commentsOf(source: string): string {
  const out: string[] = [];
  for (const m of source.matchAll(/\/\*[\s\S]*?\*\/|(?<=^|\s)\/\/.*$/gm)) out.push(m[0]);
  return out.join('\n');
}

/** Lines that name something outside the repository or an issue number, with the reason. */
function outsideReferences(text: string): string[] {
  const found: string[] = [];
  text.split('\n').forEach((line, i) => {
    const at = `line ${i + 1}: ${line.trim()}`;
    if (/(^|[\s`'"(/])(\.\.\/)*shared\/|DESIGN\.md|performance-anchors|toolchain\.md|kubernetes-semantics\.md/.test(line)) found.push(`a file outside the repository, ${at}`);
    if (/\bissues?\s+#?\d+/i.test(line) || /(^|[\s(])#\d+\b/.test(line)) found.push(`an issue number, ${at}`);
  });
  return found;
}

test('the docs checked are the root README, docs/*.md and every project README', () => {
  expect(docs).toContain('README.md');
  expect(docs).toContain('docs/architecture.md');
  expect(docs).toContain('packages/api-types/README.md');
});

test('outsideReferences finds references to outside files and issue numbers, and passes upstream ones', () => {
  expect(outsideReferences('see `shared/reference/toolchain.md`')).toHaveLength(1);
  expect(outsideReferences('see ../shared/DESIGN.md')).toHaveLength(1);
  expect(outsideReferences('shapes of `performance-anchors.md` §1.3')).toHaveLength(1);
  expect(outsideReferences('partial sync is issue 6')).toHaveLength(1);
  expect(outsideReferences('## Allocators (issues 4 and 5)')).toHaveLength(1);
  expect(outsideReferences('the registry (#10) will use them')).toHaveLength(1);
  expect(outsideReferences('fixed upstream in kubernetes/kubernetes#139513')).toEqual([]);
  expect(outsideReferences('a shared full leaf; `vitest.shared.ts`; see [the docs](#readme)')).toEqual([]);
});

/**
 * Every source file of the workspace, and the lint configuration: their comments and lint
 * messages are docs too. The root's own scripts and configurations, and every project's folder
 * (its src/, its configurations, bin/, agents/, the explorer's app/, fixtures), without what is
 * built or installed there.
 */
function sourceFiles(): string[] {
  const isSource = (name: string) => /\.(ts|mts|mjs|tsx)$/.test(name);
  const out: string[] = readdirSync(workspaceRoot, { withFileTypes: true })
    .filter((e) => e.isFile() && isSource(e.name))
    .map((e) => e.name);
  const skipped = new Set(['node_modules', 'dist', 'test-results', 'ui', 'reports', 'coverage', 'out-tsc']);
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(workspaceRoot, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!skipped.has(entry.name) && !entry.name.startsWith('.') && !entry.name.startsWith('ui.building-')) walk(path);
      } else if (isSource(entry.name)) out.push(path);
    }
  };
  for (const project of listProjects()) walk(project.dir);
  return out.sort();
}

test('no source comment or lint message names a file outside the repository', () => {
  // Only the file references of outsideReferences: in code, `#123` is as often a colour or a
  // selector as an issue number.
  const found = sourceFiles().flatMap((file) =>
    file === 'tools/workspace/src/docs.test.ts'
      ? []
      : outsideReferences(readFileSync(join(workspaceRoot, file), 'utf8'))
          .filter((r) => r.startsWith('a file outside'))
          .map((r) => `${file}: ${r}`),
  );
  expect(found).toEqual([]);
});

test('missingPaths finds repository paths that name no file, and passes upstream ones and templates', () => {
  expect(missingPaths('see docs/architecture.md and docs/performance.md')).toEqual([]);
  expect(missingPaths('see docs/no-such-page.md')).toEqual(['docs/no-such-page.md']);
  expect(missingPaths('(`packages/cli/src/gone.ts`)')).toEqual(['packages/cli/src/gone.ts']);
  expect(missingPaths('the DNS specification (kubernetes/dns `docs/specification.md`)')).toEqual([]);
  expect(missingPaths('packages/<name>/api/<name>.api.md, packages/*/src/index.ts')).toEqual([]);
  expect(missingPaths('`@kubesvc/x` → packages/x/src/index.ts')).toEqual([]);
  expect(commentsOf("const a = 'docs/x.md'; // see docs/y.md\n/** and docs/z.md */")).toBe('// see docs/y.md\n/** and docs/z.md */');
});

test('no source comment or lint message names a repository file that does not exist', () => {
  // The lint configuration's messages are strings, so all of it is read; in other sources only
  // comments, since a test builds fixture paths that exist only in its temporary folder.
  const found = sourceFiles().flatMap((file) => {
    // This file's own examples name missing files on purpose.
    if (file === 'tools/workspace/src/docs.test.ts') return [];
    const text = readFileSync(join(workspaceRoot, file), 'utf8');
    return missingPaths(file === 'eslint.config.mjs' ? text : commentsOf(text)).map((path) => `${file}: ${path}`);
  });
  expect(found).toEqual([]);
});

describe.each(docs)('%s', (file) => {
  const text = readFileSync(join(workspaceRoot, file), 'utf8');

  test('names no file outside the repository and no issue number', () => {
    expect(outsideReferences(text)).toEqual([]);
  });

  test('names only repository files that exist', () => {
    expect(missingPaths(text)).toEqual([]);
  });

  test('links only to files inside the repository that exist', () => {
    const broken: string[] = [];
    for (const [, target = ''] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
      const path = resolve(dirname(join(workspaceRoot, file)), decodeURIComponent(target.split('#')[0] ?? ''));
      const inside = !relative(workspaceRoot, path).startsWith('..');
      if (!inside || !existsSync(path)) broken.push(target);
    }
    expect(broken).toEqual([]);
  });
});

describe("the root README's install step", () => {
  const readme = readFileSync(join(workspaceRoot, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((b) => b.includes('system-deps.sh'));

  // What the script does as root, as a user with sudo and without is tools/workspace/src/system-deps.test.ts's.
  test('is tools/system-deps.sh before npm ci, the same script npm test (pretest) and .ci/run run first', () => {
    expect(block?.split('\n').map((l) => l.split('#')[0]?.trim()).filter((l) => l !== '')).toEqual(['bash tools/system-deps.sh', 'npm ci', 'npm test']);
    const pkg = JSON.parse(readFileSync(join(workspaceRoot, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts['pretest']).toBe('bash tools/system-deps.sh');
    expect(readFileSync(join(workspaceRoot, '.ci/run'), 'utf8')).toMatch(/^bash tools\/system-deps\.sh$/m);
  });
});


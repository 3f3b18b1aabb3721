// Docs a newcomer can follow: every README and docs page links only to files that exist
// inside the repository, and points at nothing a reader of the repository cannot open (the
// design notes and reference files kept outside it, or issue numbers of the project's
// tracker); and the root README's install line works as root without sudo and as a user
// with sudo.
import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, test } from 'vitest';
import { listProjects, workspaceRoot } from './workspace.js';

const run = promisify(execFile);

const docs = [
  'README.md',
  ...readdirSync(join(workspaceRoot, 'docs'))
    .filter((f) => f.endsWith('.md'))
    .map((f) => `docs/${f}`),
  ...listProjects()
    .map((p) => `${p.dir}/README.md`)
    .filter((f) => existsSync(join(workspaceRoot, f))),
].sort();

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

/** Every source file of the workspace, and the lint configuration: their comments and lint messages are docs too. */
function sourceFiles(): string[] {
  const out: string[] = ['eslint.config.mjs'];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(join(workspaceRoot, dir), { withFileTypes: true })) {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) {
        if (entry.name !== 'node_modules' && entry.name !== 'dist' && entry.name !== 'test-results') walk(path);
      } else if (/\.(ts|mts|mjs|tsx)$/.test(entry.name)) out.push(path);
    }
  };
  for (const project of listProjects()) if (existsSync(join(workspaceRoot, project.dir, 'src'))) walk(`${project.dir}/src`);
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

describe.each(docs)('%s', (file) => {
  const text = readFileSync(join(workspaceRoot, file), 'utf8');

  test('names no file outside the repository and no issue number', () => {
    expect(outsideReferences(text)).toEqual([]);
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

describe("the root README's install line", () => {
  const readme = readFileSync(join(workspaceRoot, 'README.md'), 'utf8');
  const block = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1] ?? '').find((b) => b.includes('apt-get install'));

  // The block runs in bash with `id`, `sudo` and `apt-get` replaced by functions that print
  // what would run, so nothing is installed.
  async function installAs(uid: number, hasSudo: boolean): Promise<string[]> {
    const stubs = [
      `id() { echo ${uid}; }`,
      'apt-get() { echo "apt-get $*"; }',
      hasSudo ? 'sudo() { echo "sudo $*"; }' : 'sudo() { echo "sudo: command not found" >&2; return 127; }',
    ].join('\n');
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', `${stubs}\n${block ?? 'false'}`]);
    return stdout.trim().split('\n');
  }

  test('installs the build tools and test tools', () => {
    expect(block).toBeDefined();
    for (const pkg of ['python3', 'make', 'g++', 'dnsutils', 'iptables', 'nftables']) expect(block).toMatch(new RegExp(`install .*\\s${pkg.replace('+', '\\+')}(\\s|$)`, 'm'));
  });

  test('runs apt-get directly as root, on a machine with no sudo', async () => {
    const ran = await installAs(0, false);
    expect(ran).toHaveLength(2);
    expect(ran[0]).toBe('apt-get update');
    expect(ran[1]).toMatch(/^apt-get install -y .*python3 make g\+\+/);
  });

  test('runs apt-get through sudo as a user', async () => {
    const ran = await installAs(1000, true);
    expect(ran).toHaveLength(2);
    expect(ran[0]).toBe('sudo apt-get update');
    expect(ran[1]).toMatch(/^sudo apt-get install -y .*python3 make g\+\+/);
  });
});

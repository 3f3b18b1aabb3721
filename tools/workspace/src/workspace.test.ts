// Workspace conformance: the conventions of docs/architecture.md that a package manifest, its
// tsconfigs and its README must follow, checked for every package, so that a new or
// changed package cannot quietly drift from them.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'vitest';
import { DEPENDENCY_FIELDS, homepageOf, internalRanges, isPublic, publishedFilesOf, REPOSITORY_URL } from './packaging.js';
import { listProjects, workspaceRoot, type WorkspaceProject } from './workspace.js';

const projects = listProjects();
const packages = projects.filter((p) => p.dir.startsWith('packages/'));
const read = (...parts: string[]) => readFileSync(join(workspaceRoot, ...parts), 'utf8');
const readJson = (...parts: string[]) => JSON.parse(read(...parts)) as Record<string, unknown>;
const tagsOf = (p: WorkspaceProject) => ((p.manifest['nx'] as { tags?: string[] } | undefined)?.tags ?? []) as string[];
const internalDeps = (p: WorkspaceProject, field: 'dependencies' | 'devDependencies') =>
  Object.keys((p.manifest[field] as Record<string, string> | undefined) ?? {})
    .filter((name) => name.startsWith('@kubesvc/'))
    .sort();
const byName = new Map(projects.map((p) => [p.manifest.name, p]));
const publicPackages = packages.filter(isPublic);

// docs/architecture.md: api-types <- the proxy core <- models <- controllers <- store <- apiserver <- runtime <- node-agent <- cli.
const layerOrder = [
  'layer:api',
  'layer:proxy',
  'layer:model',
  'layer:controller',
  'layer:store',
  'layer:apiserver',
  'layer:runtime',
  'layer:node',
  'layer:cli',
];

test('the workspace has the packages of docs/architecture.md', () => {
  expect(packages.map((p) => p.dir)).toEqual(
    [
      'api-types',
      'apiserver',
      'bootstrap-controller',
      'cli',
      'controllers',
      'discovery',
      'explorer',
      'ipallocator',
      'netlab',
      'node-agent',
      'portallocator',
      'proxy',
      'proxy-iptables',
      'proxy-nftables',
      'proxy-userspace',
      'reconcilers',
      'runtime',
      'store',
      'testkit',
    ].map((name) => `packages/${name}`),
  );
});

describe.each(packages.map((p) => [p.dir, p] as const))('%s', (dir, project) => {
  const folder = dir.slice('packages/'.length);
  const manifest = project.manifest;

  test('is named @kubesvc/<folder>, ESM, side-effect free, Apache-2.0, node >= 20', () => {
    expect(manifest.name).toBe(`@kubesvc/${folder}`);
    expect(manifest['type']).toBe('module');
    expect(manifest['sideEffects']).toBe(false);
    expect(manifest['license']).toBe('Apache-2.0');
    expect(manifest['engines']).toEqual({ node: '>=20' });
    expect(manifest['files']).toEqual(expect.arrayContaining(['dist', 'README.md']));
  });

  test('exports types first, then the source condition, then the built file', () => {
    const exports = manifest['exports'] as Record<string, Record<string, string> | string>;
    const main = exports['.'] as Record<string, string>;
    expect(Object.keys(main)).toEqual(['types', '@kubesvc/source', 'default']);
    expect(main).toEqual({ types: './dist/index.d.ts', '@kubesvc/source': './src/index.ts', default: './dist/index.js' });
    expect(existsSync(join(workspaceRoot, dir, 'src/index.ts'))).toBe(true);
    for (const [subpath, target] of Object.entries(exports)) {
      if (typeof target === 'string') continue;
      expect(Object.keys(target)[0], `${subpath} must list types first`).toBe('types');
      expect(existsSync(join(workspaceRoot, dir, target['@kubesvc/source'] ?? 'missing')), `${subpath} source`).toBe(true);
    }
  });

  test('has exactly one type tag, and a pure or shell package one layer tag', () => {
    const tags = tagsOf(project);
    const types = tags.filter((t) => t.startsWith('type:'));
    expect(types).toHaveLength(1);
    expect(['type:pure', 'type:shell', 'type:testkit']).toContain(types[0]);
    const layers = tags.filter((t) => t.startsWith('layer:'));
    expect(layers).toHaveLength(types[0] === 'type:testkit' ? 0 : 1);
  });

  test('declares its dependencies in the direction of docs/architecture.md', () => {
    const tags = tagsOf(project);
    const myLayer = layerOrder.findIndex((l) => tags.includes(l));
    for (const dep of internalDeps(project, 'dependencies')) {
      const target = byName.get(dep);
      expect(target, `${dep} is a workspace package`).toBeDefined();
      const targetTags = tagsOf(target as WorkspaceProject);
      expect(targetTags, `${dep} must not be the testkit`).not.toContain('type:testkit');
      if (tags.includes('type:pure')) expect(targetTags, `${dep} must be pure`).toContain('type:pure');
      // The testkit sits outside the layers: it builds arbitraries of any pure package's
      // values (docs/architecture.md, "The testkit cycle").
      if (tags.includes('type:testkit')) {
        expect(targetTags, `${dep} must be pure`).toContain('type:pure');
        continue;
      }
      const theirLayer = layerOrder.findIndex((l) => targetTags.includes(l));
      expect(theirLayer, `${dep} is on a lower layer`).toBeLessThan(myLayer);
    }
  });

  test('its tsconfig references mirror its declared dependencies', () => {
    const lib = readJson(dir, 'tsconfig.lib.json') as { references?: Array<{ path: string }> };
    const refs = (lib.references ?? []).map((r) => r.path).sort();
    // Both sides sorted as paths: `../proxy-iptables/` sorts before `../proxy/`, unlike the package names.
    expect(refs).toEqual(internalDeps(project, 'dependencies').map((d) => `../${d.slice('@kubesvc/'.length)}/tsconfig.lib.json`).sort());
    const spec = readJson(dir, 'tsconfig.spec.json') as { references?: Array<{ path: string }> };
    const specRefs = (spec.references ?? []).map((r) => r.path);
    expect(specRefs).toContain('./tsconfig.lib.json');
    for (const dev of internalDeps(project, 'devDependencies')) {
      expect(specRefs).toContain(`../${dev.slice('@kubesvc/'.length)}/tsconfig.lib.json`);
    }
    expect(readJson(dir, 'tsconfig.json')).toMatchObject({ files: [], references: [{ path: './tsconfig.lib.json' }, { path: './tsconfig.spec.json' }] });
  });

  test('tests run under the shared vitest configuration', () => {
    expect(read(dir, 'vitest.config.ts')).toMatch(/packageTestConfig\(new URL\('\.', import\.meta\.url\)(, \{[^}]*\})?\)/);
  });

  test('its README says what it is for, and a package not implemented yet exports nothing', () => {
    const readme = read(dir, 'README.md');
    expect(readme.split('\n')[0]).toBe(`# ${manifest.name}`);
    expect(readme.split('\n\n')[1]?.length ?? 0).toBeGreaterThan(40);
    if (/not implemented yet/i.test(readme)) {
      const code = read(dir, 'src/index.ts')
        .split('\n')
        .filter((line) => !line.trim().startsWith('//') && line.trim() !== '');
      expect(code).toEqual(['export {};']);
    } else {
      expect(read(dir, 'src/index.ts')).toMatch(/^export /m);
    }
  });
});

test('the published packages are every package but the testkit; bench and tools are private', () => {
  expect(publicPackages.map((p) => p.dir)).toEqual(packages.map((p) => p.dir).filter((dir) => dir !== 'packages/testkit'));
  for (const project of projects.filter((p) => !p.dir.startsWith('packages/')).concat(byName.get('@kubesvc/testkit') ?? [])) {
    expect(project.manifest['private'], `${project.manifest.name} is not published`).toBe(true);
  }
  // The packaging check (packaging.test.ts) packs the packages its project depends on, by tag,
  // after nx has built them; the tags must pick exactly the published packages.
  const tagged = packages.filter((p) => tagsOf(p).some((t) => t === 'type:pure' || t === 'type:shell'));
  expect(tagged.map((p) => p.dir)).toEqual(publicPackages.map((p) => p.dir));
  expect(byName.get('@kubesvc/workspace-tools')?.manifest['nx']).toMatchObject({
    implicitDependencies: ['tag:type:pure', 'tag:type:shell'],
    targets: { test: { dependsOn: ['^build'] } },
  });
});

describe.each(publicPackages.map((p) => [p.dir, p] as const))('published %s', (dir, project) => {
  const manifest = project.manifest;

  test('says what it is and where it lives: description, keywords, homepage, repository', () => {
    expect(typeof manifest['description']).toBe('string');
    expect((manifest['description'] as string).length).toBeGreaterThanOrEqual(60);
    const keywords = manifest['keywords'] as string[];
    expect(Array.isArray(keywords)).toBe(true);
    expect(keywords).toContain('kubernetes');
    expect(new Set(keywords).size).toBe(keywords.length);
    for (const k of keywords) expect(k).toMatch(/^[a-z0-9][a-z0-9.-]*$/);
    expect(manifest['homepage']).toBe(homepageOf(dir));
    expect(manifest['repository']).toEqual({ type: 'git', url: REPOSITORY_URL, directory: dir });
  });

  test('ships dist, its src and README, not tests or fixtures, and carries the LICENSE', () => {
    expect(manifest['files']).toEqual(publishedFilesOf(project.manifest.name));
    // npm packs a package folder's own LICENSE only; the root one is not seen.
    expect(existsSync(join(workspaceRoot, dir, 'LICENSE')), `${dir}/LICENSE`).toBe(true);
    expect(read(dir, 'LICENSE')).toBe(read('LICENSE'));
  });

  test('depends at run time only on published packages', () => {
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
      for (const [dep] of internalRanges(project, field)) {
        const target = byName.get(dep);
        expect(target, `${dep} is a workspace package`).toBeDefined();
        expect(isPublic(target as WorkspaceProject), `${field} ${dep} is published`).toBe(true);
      }
    }
  });
});

test('every project has one shared version, and every @kubesvc dependency range is ^ that version', () => {
  // Lockstep versions, caret ranges: within 0.x, ^0.1.0 admits the 0.1.x patches only, so a
  // consumer holding two kubesvc packages from different patch releases gets one api-types
  // (docs/architecture.md, "Publishing").
  const versions = new Set(projects.map((p) => p.manifest['version']));
  expect([...versions]).toHaveLength(1);
  const [version] = [...versions] as string[];
  expect(version).toMatch(/^\d+\.\d+\.\d+$/);
  for (const project of projects) {
    for (const field of DEPENDENCY_FIELDS) {
      for (const [dep, range] of internalRanges(project, field)) {
        expect(byName.has(dep), `${project.manifest.name} ${field} ${dep} is a workspace package`).toBe(true);
        expect(range, `${project.manifest.name} ${field} ${dep}`).toBe(`^${version}`);
      }
    }
  }
});

test('the root tsconfig references every project, and the root package.json lists every folder as a workspace', () => {
  const root = readJson('tsconfig.json') as { files: unknown[]; references: Array<{ path: string }> };
  expect(root.files).toEqual([]);
  expect(root.references.map((r) => r.path).sort()).toEqual(
    projects.filter((p) => existsSync(join(workspaceRoot, p.dir, 'tsconfig.json'))).map((p) => `./${p.dir}`).sort(),
  );
  expect(projects.length).toBeGreaterThanOrEqual(packages.length);
});

test('every package the testkit depends on drops its test-only edge to the testkit, so the task graph stays acyclic', () => {
  // nx refuses a task graph with a cycle (api-types:build -> testkit:build -> api-types:build).
  // The testkit may depend on pure packages for their types and arbitraries; those packages
  // then remove the edge their devDependency on the testkit would add (docs/architecture.md).
  const testkit = byName.get('@kubesvc/testkit');
  expect(testkit).toBeDefined();
  for (const dep of internalDeps(testkit as WorkspaceProject, 'dependencies')) {
    const implicit = ((byName.get(dep)?.manifest['nx'] as { implicitDependencies?: string[] } | undefined)?.implicitDependencies ?? []) as string[];
    expect(implicit, `${dep} must list "!@kubesvc/testkit" in nx.implicitDependencies`).toContain('!@kubesvc/testkit');
  }
});

// The packaging check: what `npm publish` would upload, tried as a user would meet it.
// Every public package is built and packed with npm; each tarball must carry LICENSE and
// README, ship every file its exports map names, have source maps a reader can follow, and
// pass `publint --strict` and `attw --profile esm-only` with no finding. Then all tarballs are
// installed into a fresh ESM project outside the workspace, and a newcomer's program
// (../fixtures/newcomer.ts) is compiled with `tsc --strict` (nodenext) and run.
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { publint } from 'publint';
import { formatMessage } from 'publint/utils';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { apiEntries, extractReports, REGENERATE_HINT, reportImports, reportPath, staleReports } from './api-report.js';
import type { AttwVerdict } from './attw-check.js';
import { runTool } from './child-process.js';
import { CARET_RANGE, exportTargets, isPublic, PUBLISHED_ASSET_FOLDERS, thirdPartyRanges, unresolvedMapSources } from './packaging.js';
import { listProjects, workspaceRoot, type WorkspaceProject } from './workspace.js';

const publicPackages = listProjects().filter((p) => p.dir.startsWith('packages/') && isPublic(p));
const bin = (name: string) => join(workspaceRoot, 'node_modules/.bin', name);
const fixture = join(workspaceRoot, 'tools/workspace/fixtures/newcomer.ts');

interface Packed {
  readonly tarball: string;
  /** Every file of the tarball by its path inside the package (`dist/index.js`), with its text. */
  readonly files: ReadonlyMap<string, string>;
}

/** The packages whose public types expose zod, filled by their tests. */
const zodPeers = new Set<string>();

/** The API reports api-extractor writes for the built declarations, by report path; extracted once, when first asked for. */
let reports: Map<string, string> | undefined;
function apiReports(): Map<string, string> {
  reports ??= extractReports(apiEntries(publicPackages));
  return reports;
}

const tmp = mkdtempSync(join(tmpdir(), 'kubesvc-packaging-'));
const packed = new Map<string, Packed>();
const attw = new Map<string, AttwVerdict>();

function readTree(root: string, dir = root, out = new Map<string, string>()): Map<string, string> {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) readTree(root, path, out);
    else out.set(relative(root, path).split('\\').join('/'), readFileSync(path, 'utf8'));
  }
  return out;
}

beforeAll(async () => {
  // Incremental: under `npm test` nx has built every package already (typecheck depends on
  // build), and this finds them up to date.
  await runTool(bin('tsc'), ['--build', ...publicPackages.map((p) => `${p.dir}/tsconfig.lib.json`)], workspaceRoot);
  const dest = join(tmp, 'tarballs');
  mkdirSync(dest);
  const { stdout } = await runTool('npm', ['pack', '--json', '--pack-destination', dest, ...publicPackages.flatMap((p) => ['-w', p.dir])], workspaceRoot);
  const results = JSON.parse(stdout) as Array<{ name: string; filename: string }>;
  for (const { name, filename } of results) {
    const unpacked = join(tmp, 'unpacked', filename);
    mkdirSync(unpacked, { recursive: true });
    await runTool('tar', ['-xzf', join(dest, filename), '-C', unpacked], tmp);
    packed.set(name, { tarball: join(dest, filename), files: readTree(join(unpacked, 'package')) });
  }
  const tarballs = [...packed.values()].map((p) => p.tarball);
  const verdicts = await runTool(bin('tsx'), [join(workspaceRoot, 'tools/workspace/src/attw-check.ts'), ...tarballs], tmp);
  for (const [tarball, verdict] of Object.entries(JSON.parse(verdicts.stdout) as Record<string, AttwVerdict>)) attw.set(tarball, verdict);
}, 300_000);

afterAll(() => {
  rmSync(tmp, { recursive: true, force: true });
});

function packedOf(project: WorkspaceProject): Packed {
  const p = packed.get(project.manifest.name);
  if (p === undefined) throw new Error(`npm pack produced no tarball for ${project.manifest.name}`);
  return p;
}

describe.each(publicPackages.map((p) => [p.manifest.name, p] as const))('%s tarball', (_name, project) => {
  test('carries package.json, LICENSE, README.md and every file its exports map names', () => {
    const { files } = packedOf(project);
    expect(files.get('LICENSE')).toBe(readFileSync(join(workspaceRoot, 'LICENSE'), 'utf8'));
    expect(files.get('README.md')).toBe(readFileSync(join(workspaceRoot, project.dir, 'README.md'), 'utf8'));
    const manifest = JSON.parse(files.get('package.json') ?? '{}') as Record<string, unknown>;
    const targets = exportTargets(manifest['exports']);
    expect(targets.map((t) => t.condition)).toContain('@kubesvc/source');
    const missing = targets.filter((t) => !files.has(t.target.replace(/^\.\//, '')));
    expect(missing, 'export targets not in the tarball').toEqual([]);
    expect(files.has(String(manifest['types']).replace(/^\.\//, ''))).toBe(true);
  });

  test('every source map carries its sources or points at files in the tarball', () => {
    const { files } = packedOf(project);
    const maps = [...files.keys()].filter((f) => f.endsWith('.map'));
    expect(maps.length).toBeGreaterThan(0);
    expect(unresolvedMapSources(files)).toEqual([]);
    // JS maps inline their sources (tsconfig.base.json, inlineSources), so a stack trace
    // reads the TypeScript even where only dist/ is kept.
    for (const map of maps.filter((m) => m.endsWith('.js.map'))) {
      const { sources, sourcesContent } = JSON.parse(files.get(map) ?? '{}') as { sources: string[]; sourcesContent?: unknown[] };
      expect(sourcesContent?.length, map).toBe(sources.length);
    }
  });

  test('ships the sources of its build and nothing else: no tests, fixtures or build info', () => {
    const { files } = packedOf(project);
    const paths = [...files.keys()];
    const sources = paths.filter((f) => f.startsWith('src/')).sort();
    const built = paths.filter((f) => f.startsWith('dist/') && f.endsWith('.js')).sort();
    expect(sources.map((f) => f.replace(/^src\//, 'dist/').replace(/\.ts$/, '.js'))).toEqual(built);
    expect(paths.filter((f) => /\.test\.|fixtures|tsbuildinfo/.test(f))).toEqual([]);
    const assets = PUBLISHED_ASSET_FOLDERS[project.manifest.name] ?? [];
    const isAsset = (f: string) => assets.some((folder) => f.startsWith(`${folder}/`));
    expect(paths.filter((f) => !/^(dist|src)\//.test(f) && !isAsset(f)).sort()).toEqual(['LICENSE', 'README.md', 'package.json']);
    for (const folder of assets) expect(paths.filter((f) => f.startsWith(`${folder}/`)).length, `${folder}/ is shipped`).toBeGreaterThan(0);
  });

  test('its type declarations import only itself, its declared dependencies and node: built-ins', () => {
    // A consumer compiles with skipLibCheck, as `tsc --init` sets it, and then an import of an
    // undeclared package in a .d.ts would silently become any: this catches it instead.
    const { files } = packedOf(project);
    const manifest = JSON.parse(files.get('package.json') ?? '{}') as Record<string, Record<string, string> | undefined>;
    const declared = new Set([project.manifest.name, ...Object.keys(manifest['dependencies'] ?? {}), ...Object.keys(manifest['peerDependencies'] ?? {})]);
    const undeclared: string[] = [];
    for (const [path, text] of files) {
      if (!path.endsWith('.d.ts')) continue;
      for (const [, specifier = ''] of text.matchAll(/(?:from|import)\s*\(?\s*'([^']+)'/g)) {
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] ?? '');
        if (!declared.has(name)) undeclared.push(`${path}: ${specifier}`);
      }
    }
    expect(undeclared).toEqual([]);
  });

  test('depends on third-party packages with caret ranges at run time', () => {
    // packaging.ts, CARET_RANGE: a consumer shares one copy with its own; devDependencies stay pinned.
    const exact: string[] = [];
    for (const field of ['dependencies', 'peerDependencies', 'optionalDependencies'] as const) {
      for (const [dep, range] of thirdPartyRanges(project, field)) if (!CARET_RANGE.test(range)) exact.push(`${field} ${dep} ${range}`);
    }
    expect(exact, 'third-party ranges that are not ^x.y.z').toEqual([]);
  });

  test('takes zod as a peer dependency when its public types expose zod, as a dependency when it uses zod only inside', () => {
    // zod's guidance for library authors (https://zod.dev/library-authors): a library whose API
    // hands out or accepts zod schemas lists zod in peerDependencies, so that the consumer's
    // schemas and the library's are made by one zod; the workspace tests it as a devDependency
    // at the lowest version the range admits. Whether the API shows zod is read from the API
    // reports, which name the packages the public declarations use, symbol by symbol.
    const { files } = packedOf(project);
    const manifest = JSON.parse(files.get('package.json') ?? '{}') as Record<string, unknown>;
    const field = (name: string) => (manifest[name] as Record<string, string> | undefined) ?? {};
    const entries = apiEntries([project]);
    expect(entries.length).toBeGreaterThan(0);
    const exposesZod = entries.some((entry) => reportImports(apiReports().get(reportPath(entry)) ?? '').has('zod'));
    if (exposesZod) {
      zodPeers.add(project.manifest.name);
      expect(field('peerDependencies')['zod'], 'peerDependencies zod').toMatch(CARET_RANGE);
      expect(field('peerDependencies')['zod'], 'peerDependencies zod is ^ the devDependency').toBe(`^${field('devDependencies')['zod'] ?? ''}`);
      expect(field('dependencies')['zod'], 'zod is not also a dependency').toBeUndefined();
    } else {
      expect(field('peerDependencies')['zod'], 'zod is a peer only where the public types show it').toBeUndefined();
    }
  }, 300_000);

  test('publint --strict finds nothing', async () => {
    const { tarball } = packedOf(project);
    const data = readFileSync(tarball);
    const { messages, pkg } = await publint({
      pack: { tarball: data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength) },
      strict: true,
      level: 'suggestion',
    });
    expect(messages.map((m) => `${m.type} ${m.code}: ${formatMessage(m, pkg, { color: false }) ?? ''}`)).toEqual([]);
  });

  test('attw --profile esm-only finds nothing', () => {
    const verdict = attw.get(packedOf(project).tarball);
    expect(verdict?.typed, 'attw found types').toBe(true);
    expect(verdict?.exitCode, JSON.stringify(verdict?.problems, null, 2)).toBe(0);
  });
});

test('every entry point has an API report, and every committed report is what api-extractor writes today', () => {
  // The reports (packages/<folder>/api/*.api.md) make a change to a public API a diff in review;
  // `npm run api-report` rewrites them from the declarations beforeAll built.
  const reports = apiReports();
  expect(reports.size).toBeGreaterThanOrEqual(publicPackages.length);
  const { changed, orphaned } = staleReports(reports, publicPackages);
  expect({ changed, orphaned }, REGENERATE_HINT).toEqual({ changed: [], orphaned: [] });
}, 300_000);

test('reportImports reads the packages a report imports', () => {
  expect([...reportImports("```ts\n\nimport { Command } from 'commander';\nimport type { Server } from 'node:http';\nimport { z } from 'zod';\n")].sort()).toEqual(['commander', 'zod']);
});

test('the zod rule found at least one package whose public types expose zod', () => {
  // api-types' objects are zod schemas; if the walk found none, it is the walk that is broken.
  expect([...zodPeers]).toContain('@kubesvc/api-types');
});

test('the tarballs install into a fresh ESM project, where a newcomer program compiles under tsc --strict (nodenext) and runs', async () => {
  const consumer = join(tmp, 'consumer');
  mkdirSync(consumer);
  const dependencies = Object.fromEntries([...packed].map(([name, p]) => [name, `file:${p.tarball}`]));
  const typesNode = (JSON.parse(readFileSync(join(workspaceRoot, 'package.json'), 'utf8')) as { devDependencies: Record<string, string> }).devDependencies['@types/node'];
  writeFileSync(
    join(consumer, 'package.json'),
    JSON.stringify({ name: 'newcomer', private: true, type: 'module', dependencies, devDependencies: { '@types/node': typesNode } }, null, 2),
  );
  writeFileSync(
    join(consumer, 'tsconfig.json'),
    JSON.stringify({
      compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'], skipLibCheck: true, noEmitOnError: true, outDir: 'out' },
      files: ['newcomer.ts'],
    }),
  );
  const program = readFileSync(fixture, 'utf8');
  writeFileSync(join(consumer, 'newcomer.ts'), program);
  expect(program).not.toMatch(/\bas\s+(unknown|any|[A-Z]\w*)\b|<[A-Z]\w*>\s*\w|!\./);

  // Install scripts stay off: a native addon (better-sqlite3 in the runtime) would compile
  // for a minute, and only the types and the pure packages' code are exercised here.
  await runTool('npm', ['install', '--ignore-scripts', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock'], consumer);
  for (const name of packed.keys()) {
    // A range the tarballs do not satisfy would have sent npm to the registry for a copy.
    const installed = JSON.parse(readFileSync(join(consumer, 'node_modules', name, 'package.json'), 'utf8')) as { version: string };
    expect(installed.version, name).toBe(JSON.parse(packedOf(publicPackages.find((p) => p.manifest.name === name) as WorkspaceProject).files.get('package.json') ?? '{}').version);
  }
  const nested = (await runTool('npm', ['ls', '--all', '--parseable'], consumer)).stdout.split('\n').filter((line) => /node_modules\/.*node_modules\/@kubesvc\//.test(line));
  expect(nested, 'a second copy of a kubesvc package').toEqual([]);

  await runTool(process.execPath, [join(workspaceRoot, 'node_modules/typescript/bin/tsc'), '-p', 'tsconfig.json'], consumer);
  const { stdout } = await runTool(process.execPath, ['out/newcomer.js'], consumer);
  const expected = program
    .slice(program.indexOf('// prints:\n') + '// prints:\n'.length)
    .split('\n')
    .filter((line) => line.startsWith('//'))
    .map((line) => line.replace(/^\/\/ ?/, ''))
    .join('\n');
  expect(program).toContain('// prints:\n');
  expect(stdout.trimEnd()).toBe(expected.trimEnd());
}, 300_000);

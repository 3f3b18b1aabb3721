// What a published kubesvc package looks like, shared by the manifest conventions
// (workspace.test.ts) and the tarball check (packaging.test.ts). docs/architecture.md,
// "Publishing", says why each rule exists.
import type { WorkspaceProject } from './workspace.js';

/** The git repository every package's manifest names. No git remote is configured in the workspace; this is the project's URL. */
export const REPOSITORY_URL = 'git+https://github.com/kubesvc/kubesvc.git';

/** `homepage` of the package in `dir`: its README on the repository's main branch. */
export function homepageOf(dir: string): string {
  return `https://github.com/kubesvc/kubesvc/tree/main/${dir}#readme`;
}

/**
 * The `files` list of every public package. `src/` ships so that the `@kubesvc/source`
 * export condition and the source maps (`dist/**\/*.map` name `../src/...`) point at files in
 * the tarball; tests and their fixtures stay out. npm adds package.json and LICENSE itself.
 */
export const PUBLISHED_FILES: readonly string[] = [
  'dist',
  'src',
  '!dist/**/*.tsbuildinfo',
  '!dist/**/*.test.*',
  '!src/**/*.test.ts',
  '!src/**/*.conformance.ts',
  '!src/**/*.fixtures.ts',
  '!src/**/fixtures',
  '!src/**/__screenshots__',
  'README.md',
];

/**
 * Folders of plain JavaScript that a package starts as separate processes (the network lab's
 * agents run inside network namespaces under `node`, not imported; the cli's `bin/kubesvc.mjs`
 * is what npm links as the `kubesvc` command), and the explorer's built page (`ui/`, the Vite
 * bundle its HTTP handler serves to browsers, not imported), shipped beside `dist`.
 * They are listed in `files` just before README.md.
 */
export const PUBLISHED_ASSET_FOLDERS: Readonly<Record<string, readonly string[]>> = {
  '@kubesvc/netlab': ['agents'],
  '@kubesvc/cli': ['bin'],
  '@kubesvc/explorer': ['ui'],
};

/** The `files` list a public package must have: PUBLISHED_FILES with its asset folders. */
export function publishedFilesOf(name: string): readonly string[] {
  const assets = PUBLISHED_ASSET_FOLDERS[name] ?? [];
  return [...PUBLISHED_FILES.slice(0, -1), ...assets, ...PUBLISHED_FILES.slice(-1)];
}

/** A package is published unless its manifest says `"private": true` (testkit, bench, tools). */
export function isPublic(project: WorkspaceProject): boolean {
  return project.manifest['private'] !== true;
}

export type DependencyField = 'dependencies' | 'devDependencies' | 'peerDependencies' | 'optionalDependencies';
export const DEPENDENCY_FIELDS: readonly DependencyField[] = ['dependencies', 'devDependencies', 'peerDependencies', 'optionalDependencies'];

/** The `@kubesvc/*` entries of one dependency field, as [name, range] pairs. */
export function internalRanges(project: WorkspaceProject, field: DependencyField): Array<[string, string]> {
  const deps = (project.manifest[field] as Record<string, string> | undefined) ?? {};
  return Object.entries(deps).filter(([name]) => name.startsWith('@kubesvc/'));
}

/** Every file an exports map points at, condition by condition (`./package.json` included). */
export function exportTargets(exportsField: unknown): Array<{ subpath: string; condition: string; target: string }> {
  const out: Array<{ subpath: string; condition: string; target: string }> = [];
  if (exportsField === null || typeof exportsField !== 'object') return out;
  for (const [subpath, value] of Object.entries(exportsField as Record<string, unknown>)) {
    if (typeof value === 'string') out.push({ subpath, condition: 'default', target: value });
    else if (value !== null && typeof value === 'object') {
      for (const [condition, target] of Object.entries(value as Record<string, unknown>)) {
        if (typeof target === 'string') out.push({ subpath, condition, target });
      }
    }
  }
  return out;
}

export interface SourceMapFinding {
  readonly map: string;
  readonly source: string;
}

/**
 * The sources of each map in a tarball that a reader cannot see: a source is fine when the
 * map carries its text in `sourcesContent` or when the file it names is in the tarball.
 * `files` maps tarball paths (`dist/index.js.map`) to their text.
 */
export function unresolvedMapSources(files: ReadonlyMap<string, string>): SourceMapFinding[] {
  const findings: SourceMapFinding[] = [];
  for (const [path, text] of files) {
    if (!path.endsWith('.map')) continue;
    const map = JSON.parse(text) as { sources?: string[]; sourceRoot?: string; sourcesContent?: Array<string | null> };
    const dir = path.split('/').slice(0, -1);
    (map.sources ?? []).forEach((source, i) => {
      if (typeof map.sourcesContent?.[i] === 'string') return;
      const resolved = normalize([...dir, ...(map.sourceRoot ? map.sourceRoot.split('/') : []), ...source.split('/')]);
      if (resolved === undefined || !files.has(resolved)) findings.push({ map: path, source });
    });
  }
  return findings;
}

/** Joins path segments, resolving `.` and `..`; undefined when `..` climbs out of the package. */
function normalize(segments: readonly string[]): string | undefined {
  const out: string[] = [];
  for (const s of segments) {
    if (s === '' || s === '.') continue;
    if (s === '..') {
      if (out.length === 0) return undefined;
      out.pop();
    } else out.push(s);
  }
  return out.join('/');
}

/** The third-party (not `@kubesvc/*`) entries of one dependency field, as [name, range] pairs. */
export function thirdPartyRanges(project: WorkspaceProject, field: DependencyField): Array<[string, string]> {
  const deps = (project.manifest[field] as Record<string, string> | undefined) ?? {};
  return Object.entries(deps).filter(([name]) => !name.startsWith('@kubesvc/'));
}

/**
 * The range a published package gives a third-party package it needs at run time: a caret on
 * the version the workspace is tested with (`^5.5.0`), so that a consumer's package manager
 * can share one copy between packages and take fixes. An exact pin would install a second
 * copy beside the consumer's own. devDependencies and the root stay pinned: they only build
 * and test the workspace, where the lockfile decides anyway.
 */
export const CARET_RANGE = /^\^\d+\.\d+\.\d+$/;

// `npm run api-report [-- --check]`: the API report of every published package, one Markdown
// file per entry point of its exports map (packages/<folder>/api/<folder>.api.md, and
// <folder>-<subpath>.api.md for a subpath such as ./node), written by @microsoft/api-extractor
// from the built declarations. A change to a public API then shows as a diff of these files in
// review. The packaging test (packaging.test.ts) runs the same extraction and fails when a
// committed report differs; `--check` does the same from the command line.
//
// One TypeScript program serves every entry point (api-extractor's CompilerState), so the whole
// run costs one `tsc --build` (incremental) and one type check of the declarations.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { CompilerState, Extractor, ExtractorConfig, ExtractorLogLevel, type ExtractorMessage, type IConfigFile } from '@microsoft/api-extractor';
import { exportTargets, isPublic } from './packaging.js';
import { listProjects, workspaceRoot, type WorkspaceProject } from './workspace.js';

/** Where a package's reports live, relative to its folder. */
export const API_REPORT_DIR = 'api';

export interface ApiEntry {
  readonly project: WorkspaceProject;
  /** The exports-map subpath: `.` or `./node`. */
  readonly subpath: string;
  /** The declaration file the subpath's `types` condition names, relative to the package folder. */
  readonly types: string;
  /** The report's file name: `<folder>.api.md`, or `<folder>-<subpath>.api.md`. */
  readonly report: string;
}

/** The published packages of the workspace (`packages/*` without `"private": true`). */
export function publishedProjects(root: string = workspaceRoot): WorkspaceProject[] {
  return listProjects(root).filter((p) => p.dir.startsWith('packages/') && isPublic(p));
}

/** Every entry point a consumer can import, with the report it gets. */
export function apiEntries(projects: readonly WorkspaceProject[]): ApiEntry[] {
  return projects.flatMap((project) => {
    const folder = project.dir.split('/').pop() ?? project.dir;
    return exportTargets(project.manifest['exports'])
      .filter((t) => t.condition === 'types')
      .map((t) => {
        const sub = t.subpath.replace(/^\.\/?/, '').replace(/\//g, '-');
        return { project, subpath: t.subpath, types: t.target.replace(/^\.\//, ''), report: `${folder}${sub === '' ? '' : `-${sub}`}.api.md` };
      });
  });
}

/** The committed report of an entry, relative to the workspace root. */
export function reportPath(entry: ApiEntry): string {
  return `${entry.project.dir}/${API_REPORT_DIR}/${entry.report}`;
}

/** Builds the published packages' declarations (incremental: a no-op when nx has built them). */
export function buildDeclarations(projects: readonly WorkspaceProject[], root: string = workspaceRoot): void {
  const tsc = join(root, 'node_modules/typescript/bin/tsc');
  execFileSync(process.execPath, [tsc, '--build', ...projects.map((p) => `${p.dir}/tsconfig.lib.json`)], { cwd: root, stdio: 'inherit' });
}

function configOf(entry: ApiEntry, root: string, scratch: string, allTypes: readonly string[]): ExtractorConfig {
  const projectFolder = join(root, entry.project.dir);
  const configObject: IConfigFile = {
    projectFolder,
    mainEntryPointFilePath: join(projectFolder, entry.types),
    bundledPackages: [],
    newlineKind: 'lf',
    compiler: {
      // The declarations as a consumer compiles them (tools/workspace/fixtures/newcomer.ts's settings).
      overrideTsconfig: {
        compilerOptions: { strict: true, module: 'nodenext', moduleResolution: 'nodenext', target: 'es2022', types: ['node'], skipLibCheck: true },
        files: [...allTypes],
      },
      skipLibCheck: true,
    },
    apiReport: {
      enabled: true,
      reportFileName: entry.report.replace(/\.api\.md$/, ''),
      // Both folders are scratch: this module compares and writes the committed reports itself.
      reportFolder: join(scratch, 'expected'),
      reportTempFolder: join(scratch, 'actual'),
      includeForgottenExports: false,
    },
    docModel: { enabled: false },
    dtsRollup: { enabled: false },
    tsdocMetadata: { enabled: false },
    messages: {
      compilerMessageReporting: { default: { logLevel: ExtractorLogLevel.Error } },
      extractorMessageReporting: {
        default: { logLevel: ExtractorLogLevel.Warning },
        // The packages do not use release tags (@public, @beta): everything exported is public.
        'ae-missing-release-tag': { logLevel: ExtractorLogLevel.None },
        // The doc comments are for people reading the sources; not every member needs one.
        'ae-undocumented': { logLevel: ExtractorLogLevel.None },
        // A type reachable from the API but not exported is named in the report, where review sees it.
        'ae-forgotten-export': { logLevel: ExtractorLogLevel.None, addToApiReportFile: true },
      },
      // The doc comments are prose for people, not TSDoc: `@kubesvc/source` is not a tag.
      tsdocMessageReporting: { default: { logLevel: ExtractorLogLevel.None } },
    },
  };
  return ExtractorConfig.prepare({ configObject, configObjectFullPath: undefined, packageJsonFullPath: join(projectFolder, 'package.json') });
}

/** The report text of every entry, by report path (relative to the root). Throws when api-extractor finds an error. */
export function extractReports(entries: readonly ApiEntry[], root: string = workspaceRoot): Map<string, string> {
  const scratch = mkdtempSync(join(tmpdir(), 'kubesvc-api-report-'));
  try {
    mkdirSync(join(scratch, 'expected'));
    const allTypes = entries.map((e) => join(root, e.project.dir, e.types));
    const configs = entries.map((e) => configOf(e, root, scratch, allTypes));
    const [first] = configs;
    if (first === undefined) return new Map();
    const compilerState = CompilerState.create(first, { additionalEntryPoints: allTypes });
    const reports = new Map<string, string>();
    const problems: string[] = [];
    entries.forEach((entry, i) => {
      const messageCallback = (message: ExtractorMessage): void => {
        // console-*: where api-extractor wrote its scratch files, not a finding.
        if (!message.messageId.startsWith('console-') && (message.logLevel === ExtractorLogLevel.Error || message.logLevel === ExtractorLogLevel.Warning)) {
          problems.push(`${reportPath(entry)}: ${message.formatMessageWithLocation(root)}`);
        }
        message.handled = true;
      };
      const result = Extractor.invoke(configs[i] as ExtractorConfig, { localBuild: true, compilerState, messageCallback, showVerboseMessages: false });
      if (!result.succeeded) problems.push(`${reportPath(entry)}: api-extractor failed`);
      reports.set(reportPath(entry), readFileSync(join(scratch, 'actual', entry.report), 'utf8'));
    });
    if (problems.length > 0) throw new Error(`api-extractor:\n${problems.join('\n')}`);
    return reports;
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

export interface StaleReports {
  /** Reports whose committed text differs from the extracted one, or that are missing. */
  readonly changed: string[];
  /** Files in an api/ folder that no entry point produces (a subpath or package that went away). */
  readonly orphaned: string[];
}

/** Compares extracted reports with the committed ones. */
export function staleReports(reports: ReadonlyMap<string, string>, projects: readonly WorkspaceProject[], root: string = workspaceRoot): StaleReports {
  const changed = [...reports].filter(([path, text]) => !existsSync(join(root, path)) || readFileSync(join(root, path), 'utf8') !== text).map(([path]) => path);
  const orphaned = projects.flatMap((p) => {
    const dir = join(root, p.dir, API_REPORT_DIR);
    if (!existsSync(dir)) return [];
    return readdirSync(dir)
      .map((f) => `${p.dir}/${API_REPORT_DIR}/${f}`)
      .filter((path) => !reports.has(path));
  });
  return { changed: changed.sort(), orphaned: orphaned.sort() };
}

/**
 * The packages a report's API uses: api-extractor opens each report with the imports of the
 * public declarations, symbol by symbol (a module that imports zod for an internal function
 * does not count).
 */
export function reportImports(report: string): Set<string> {
  return new Set([...report.matchAll(/^import .* from '([^']+)';$/gm)].map((m) => m[1] ?? '').filter((s) => !s.startsWith('node:')));
}

/** What a stale report's reader is told to do. */
export const REGENERATE_HINT = 'the public API changed: run `npm run api-report` and commit the reports it writes (review the diff: it is the API change)';

function main(argv: readonly string[]): number {
  const check = argv.includes('--check');
  const projects = publishedProjects();
  buildDeclarations(projects);
  const reports = extractReports(apiEntries(projects));
  const { changed, orphaned } = staleReports(reports, projects);
  if (check) {
    for (const path of [...changed, ...orphaned]) console.error(`stale: ${path}`);
    if (changed.length + orphaned.length > 0) {
      console.error(REGENERATE_HINT);
      return 1;
    }
    console.log(`api-report: ${reports.size} reports up to date`);
    return 0;
  }
  for (const path of changed) {
    mkdirSync(join(workspaceRoot, path, '..'), { recursive: true });
    writeFileSync(join(workspaceRoot, path), reports.get(path) ?? '');
    console.log(`api-report: wrote ${path}`);
  }
  for (const path of orphaned) {
    rmSync(join(workspaceRoot, path));
    console.log(`api-report: removed ${path}`);
  }
  console.log(`api-report: ${reports.size} reports, ${changed.length} written, ${orphaned.length} removed`);
  return 0;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  try {
    process.exit(main(process.argv.slice(2)));
  } catch (e: unknown) {
    console.error(e instanceof Error ? e.message : e);
    process.exit(1);
  }
}

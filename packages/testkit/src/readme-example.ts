// Every package README has a runnable example (docs/architecture.md, adding a package). This runs it as written:
// the code block under `## Example` is copied to a temporary module whose `@kubesvc/<name>` and
// `@kubesvc/<name>/<subpath>` imports point at the workspace's source, and what it prints with
// console.log is returned beside the README's output block (the fence after a line `prints`).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export interface ReadmeExample {
  /** The TypeScript code block under the example heading. */
  readonly code: string;
  /** The fenced block after the line `prints`, with its final newline. */
  readonly expected: string;
}

export interface ReadmeRun extends ReadmeExample {
  /** What the example printed, one console.log call per line, with a final newline. */
  readonly printed: string;
}

function fencedBlock(text: string, after: RegExp, lang: string): string {
  const start = text.search(after);
  if (start < 0) throw new Error(`README has no section matching ${String(after)}`);
  const open = text.indexOf('```' + lang + '\n', start);
  const close = text.indexOf('\n```\n', open);
  if (open < 0 || close < 0) throw new Error(`README section ${String(after)} has no \`\`\`${lang} block`);
  return text.slice(open + lang.length + 4, close + 1);
}

/** The example code and its expected output, read from a README's text. */
export function readmeExample(readme: string, heading = /^## Example/m): ReadmeExample {
  const code = fencedBlock(readme, heading, 'ts');
  const rest = readme.slice(readme.search(heading));
  return { code, expected: fencedBlock(rest, /^prints$/m, '') };
}

/** `@kubesvc/x` → packages/x/src/index.ts; `@kubesvc/x/node` → packages/x/src/node/index.ts. */
function sourceOf(packagesDir: string, specifier: string): string {
  const [name = '', ...sub] = specifier.slice('@kubesvc/'.length).split('/');
  return join(packagesDir, name, 'src', ...sub, 'index.ts');
}

/**
 * Runs the README example of the package at `packageRoot` (a folder URL, e.g.
 * `new URL('..', import.meta.url)` from a test in src/). The temporary module is removed
 * afterwards, and console.log is restored even when the example throws.
 */
export async function runReadmeExample(packageRoot: URL, heading?: RegExp): Promise<ReadmeRun> {
  const root = fileURLToPath(packageRoot);
  return runMarkdownExample(join(root, 'README.md'), join(root, '..'), heading);
}

/**
 * Runs the example under `heading` of any Markdown file (a page of docs/, say) the way
 * runReadmeExample runs a README's, with `@kubesvc/<name>` imports pointing into `packagesDir`.
 */
export async function runMarkdownExample(markdownFile: string, packagesDir: string, heading?: RegExp): Promise<ReadmeRun> {
  const example = readmeExample(readFileSync(markdownFile, 'utf8'), heading);
  const code = example.code.replace(/(from\s+|import\s*\(\s*)'(@kubesvc\/[a-z0-9-]+(?:\/[a-z0-9-]+)*)'/g, (_m, lead: string, spec: string) =>
    `${lead}${JSON.stringify(sourceOf(packagesDir, spec))}`,
  );
  const dir = mkdtempSync(join(tmpdir(), 'kubesvc-readme-'));
  const file = join(dir, 'example.ts');
  writeFileSync(file, code);
  const lines: string[] = [];
  const log = console.log;
  console.log = (...args: unknown[]) => {
    lines.push(args.map(String).join(' '));
  };
  try {
    await import(pathToFileURL(file).href);
  } finally {
    console.log = log;
    rmSync(dir, { recursive: true, force: true });
  }
  return { ...example, printed: lines.length === 0 ? '' : lines.join('\n') + '\n' };
}

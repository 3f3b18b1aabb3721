// `-f` as kubectl takes it: repeatable and comma-separated, a directory read file by file
// (its .json, .yaml and .yml files in lexical order; its subdirectories with -R), `-` standard
// input, once.
// upstream (v1.33): staging/src/k8s.io/cli-runtime/pkg/resource/builder.go (FilenameParam,
//   Path, Stdin: StdinMultiUseError, FileExtensions), visitor.go (ExpandPathsToFileVisitors:
//   filepath.Walk, a subdirectory skipped unless recursive, a file inside a directory skipped
//   unless its extension is one of FileExtensions, the path given itself read whatever its
//   extension), staging/src/k8s.io/kubectl/pkg/cmd/util/helpers.go (AddFilenameOptionFlags:
//   `--filename/-f` a string slice, `--recursive/-R`)
import { join } from 'node:path';
import type { CliIo } from '../cli-io.js';
import { usageError } from '../cli-error.js';

/** The extensions of the files a directory gives (kubectl's FileExtensions, in its order). */
export const FILE_EXTENSIONS = ['.json', '.yaml', '.yml'] as const;

/** What `-f` and `-R` parse to. */
export interface FilenameFlags {
  /** Every `-f` value, split at its commas, in command-line order. */
  readonly filename: readonly string[];
  readonly recursive?: boolean;
}

/**
 * One `-f` value split as pflag splits a string-slice flag (encoding/csv: fields separated by
 * commas, a field in double quotes may hold commas, `""` inside quotes is one quote), appended
 * to the values of the earlier `-f`s. An empty value adds nothing, as pflag reads "" as [].
 */
export function collectFilenames(value: string, previous: readonly string[] | undefined): string[] {
  const fields: string[] = [];
  if (value !== '') {
    let field = '';
    let i = 0;
    let quoted = false;
    while (i <= value.length) {
      const c = value[i];
      if (quoted) {
        if (c === '"' && value[i + 1] === '"') {
          field += '"';
          i += 2;
          continue;
        }
        if (c === undefined) {
          quoted = false;
          continue;
        }
        if (c === '"') quoted = false;
        else field += c;
      } else if (c === '"' && field === '') quoted = true;
      else if (c === ',' || c === undefined) {
        fields.push(field);
        field = '';
      } else field += c;
      i++;
    }
  }
  return [...(previous ?? []), ...fields];
}

/** `.yaml` of `dir/a.yaml`, '' of `Makefile`: the suffix from the last dot of the last element (Go's filepath.Ext). */
export function extensionOf(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  const dot = base.lastIndexOf('.');
  return dot < 0 ? '' : base.slice(dot);
}

/** A path kubesvc cannot open, worded as today's single-file errors are; exit 2. */
export function describeReadError(file: string, error: unknown): string {
  const code = (error as { code?: unknown } | null)?.code;
  switch (code) {
    case 'ENOENT':
      return `${file}: no such file`;
    case 'EISDIR':
      return `${file}: is a directory`;
    case 'EACCES':
      return `${file}: permission denied`;
    default:
      return `${file}: cannot be read: ${error instanceof Error ? error.message : String(error)}`;
  }
}

/** The files under directory `dir`, as filepath.Walk visits them: entries by name, a subdirectory in its place when recursive. */
async function walk(io: CliIo, dir: string, recursive: boolean, into: string[]): Promise<void> {
  let entries;
  try {
    entries = await io.readDir(dir);
  } catch (error) {
    throw usageError(describeReadError(dir, error));
  }
  const sorted = [...entries].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  for (const entry of sorted) {
    const path = join(dir, entry.name);
    if (entry.directory) {
      if (recursive) await walk(io, path, recursive, into);
    } else if ((FILE_EXTENSIONS as readonly string[]).includes(extensionOf(entry.name))) into.push(path);
  }
}

/**
 * The inputs `-f` names, in order: `-` as it is, a file as it is (whatever its extension), a
 * directory as its files. Usage errors (exit 2): no path at all (`-f ''`), `-` twice (kubectl: "standard input cannot be
 * used for multiple arguments"), a path that cannot be opened, and a directory with no file to
 * read (kubectl: `error reading [DIR]: recognized file extensions are [.json .yaml .yml]`).
 */
export async function expandFilenames(io: CliIo, flags: FilenameFlags): Promise<string[]> {
  // `-f ''` is an empty list, as pflag reads it: no input named at all.
  if (flags.filename.length === 0) throw usageError('-f names no input: give a file, a directory, or - for standard input');
  const paths: string[] = [];
  let stdin = false;
  for (const name of flags.filename) {
    if (name === '-') {
      if (stdin) throw usageError('standard input cannot be used for multiple arguments');
      stdin = true;
      paths.push(name);
      continue;
    }
    let directory: boolean;
    try {
      directory = await io.isDirectory(name);
    } catch (error) {
      throw usageError(describeReadError(name, error));
    }
    if (!directory) {
      paths.push(name);
      continue;
    }
    const files: string[] = [];
    await walk(io, name, flags.recursive === true, files);
    if (files.length === 0) throw usageError(`error reading [${name}]: recognized file extensions are [${FILE_EXTENSIONS.join(' ')}]`);
    paths.push(...files);
  }
  return paths;
}

/** How the inputs are named where one name stands for all of them: the `-f` values as given. */
export function inputsLabel(flags: FilenameFlags): string {
  return flags.filename.join(',');
}

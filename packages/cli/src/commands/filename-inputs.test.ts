// `-f` expanded as kubectl expands it, over a directory tree held in memory (a CliIo of plain
// functions): the values split as pflag splits a string slice, a directory's files in lexical
// order with only kubectl's extensions, subdirectories only with -R, `-` once, and kubectl's
// error for a directory with nothing to read.
import { describe, expect, test } from 'vitest';
import type { CliIo } from '../cli-io.js';
import { asCliError } from '../cli-error.js';
import { mergeDumps, loadDump, type Dump } from '../dump/load-dump.js';
import { collectFilenames, expandFilenames, extensionOf } from './filename-inputs.js';

/** A tree: a string is a file's text, an object a directory. */
type Tree = { readonly [name: string]: string | Tree };

function enoent(path: string): Error {
  return Object.assign(new Error(`ENOENT: no such file or directory, '${path}'`), { code: 'ENOENT' });
}

function ioOf(tree: Tree): CliIo {
  const at = (path: string): string | Tree | undefined => {
    let node: string | Tree | undefined = tree;
    for (const part of path.split('/').filter((p) => p !== '' && p !== '.')) node = typeof node === 'object' ? node[part] : undefined;
    return node;
  };
  return {
    out: () => undefined,
    err: () => undefined,
    readStdin: () => Promise.resolve(new Uint8Array()),
    readFile: (path) => {
      const node = at(path);
      return typeof node === 'string' ? Promise.resolve(new TextEncoder().encode(node)) : Promise.reject(enoent(path));
    },
    isDirectory: (path) => {
      const node = at(path);
      return node === undefined ? Promise.reject(enoent(path)) : Promise.resolve(typeof node === 'object');
    },
    readDir: (path) => {
      const node = at(path);
      if (typeof node !== 'object') return Promise.reject(enoent(path));
      return Promise.resolve(Object.entries(node).map(([name, child]) => ({ name, directory: typeof child === 'object' })));
    },
    stderrIsTTY: false,
    env: {},
  };
}

async function failure(promise: Promise<unknown>): Promise<{ tag: string; message: string }> {
  try {
    await promise;
  } catch (error) {
    const cli = asCliError(error);
    if (cli !== undefined) return { tag: cli._tag, message: cli.message };
    throw error;
  }
  throw new Error('no error');
}

describe('the -f values (a pflag string slice)', () => {
  test.each([
    ['a.yaml', undefined, ['a.yaml']],
    ['a.yaml,b.yaml', undefined, ['a.yaml', 'b.yaml']],
    ['c.yaml', ['a.yaml', 'b.yaml'], ['a.yaml', 'b.yaml', 'c.yaml']],
    ['"x,y.yaml",z.yaml', undefined, ['x,y.yaml', 'z.yaml']],
    ['"say ""hi"".yaml"', undefined, ['say "hi".yaml']],
    ['a.yaml,', undefined, ['a.yaml', '']],
    ['', ['a.yaml'], ['a.yaml']],
    ['-', undefined, ['-']],
  ] as const)('%j after %j is %j', (value, previous, expected) => {
    expect(collectFilenames(value, previous)).toEqual(expected);
  });
});

test.each([
  ['dir/a.yaml', '.yaml'],
  ['a.tar.json', '.json'],
  ['Makefile', ''],
  ['dir.d/Makefile', ''],
  ['.yml', '.yml'],
] as const)('the extension of %s is %j (filepath.Ext)', (path, ext) => {
  expect(extensionOf(path)).toBe(ext);
});

describe('expanding the -f paths', () => {
  const tree: Tree = {
    m: {
      'b.yaml': '',
      'a.json': '',
      'c.yml': '',
      'README.md': '',
      'd.YAML': '',
      sub: { 'z.yaml': '', deeper: { 'y.json': '' } },
      'e.yaml': '',
    },
    'notes.txt': '',
    empty: { sub: { 'x.yaml': '' }, 'x.txt': '' },
  };
  const io = ioOf(tree);

  test("a directory: its .json, .yaml and .yml files in lexical order, case-sensitive, not its subdirectories'", async () => {
    expect(await expandFilenames(io, { filename: ['m'] })).toEqual(['m/a.json', 'm/b.yaml', 'm/c.yml', 'm/e.yaml']);
  });

  test('-R: the subdirectories too, each in its place in the lexical order (filepath.Walk)', async () => {
    expect(await expandFilenames(io, { filename: ['m'], recursive: true })).toEqual(['m/a.json', 'm/b.yaml', 'm/c.yml', 'm/e.yaml', 'm/sub/deeper/y.json', 'm/sub/z.yaml']);
  });

  test('a file named as it is is read whatever its extension; paths keep their command-line order', async () => {
    expect(await expandFilenames(io, { filename: ['notes.txt', 'm/sub', '-'] })).toEqual(['notes.txt', 'm/sub/z.yaml', '-']);
  });

  test("a directory with no file to read is kubectl's error, exit 2; with -R its subdirectory's file is read", async () => {
    expect(await failure(expandFilenames(io, { filename: ['m', 'empty'] }))).toEqual({ tag: 'ErrUsage', message: 'error reading [empty]: recognized file extensions are [.json .yaml .yml]' });
    expect(await expandFilenames(io, { filename: ['empty'], recursive: true })).toEqual(['empty/sub/x.yaml']);
  });

  test("-f '' names nothing: a usage error, not an empty dump", async () => {
    expect(await failure(expandFilenames(io, { filename: collectFilenames('', undefined) }))).toEqual({ tag: 'ErrUsage', message: '-f names no input: give a file, a directory, or - for standard input' });
  });

  test('- twice is refused as kubectl refuses it; a path that is not there is named', async () => {
    expect(await failure(expandFilenames(io, { filename: ['-', 'm', '-'] }))).toEqual({ tag: 'ErrUsage', message: 'standard input cannot be used for multiple arguments' });
    expect(await failure(expandFilenames(io, { filename: ['m', 'gone.yaml'] }))).toEqual({ tag: 'ErrUsage', message: 'gone.yaml: no such file' });
  });
});

describe('several dumps as one', () => {
  const service = (name: string, ip: string) => `apiVersion: v1\nkind: Service\nmetadata: {name: ${name}}\nspec: {clusterIP: ${ip}, ports: [{port: 80}]}\n`;
  const dump = (source: string, text: string): Dump => {
    const loaded = loadDump(source, text);
    if (!loaded.ok) throw new Error(loaded.error.message);
    return loaded.value;
  };

  test('every object of each, in input order, under the one name', () => {
    const merged = mergeDumps('a.yaml,b.yaml', [dump('a.yaml', service('web', '10.96.0.10')), dump('b.yaml', `${service('api', '10.96.0.11')}---\n${service('db', '10.96.0.12')}`)]);
    expect(merged.ok && merged.value.source).toBe('a.yaml,b.yaml');
    expect(merged.ok && merged.value.services.map((s) => s.metadata.name)).toEqual(['web', 'api', 'db']);
  });

  test('an object in two inputs (kind, namespace and name) is an error naming it and both; another kind of the same name is not', () => {
    const endpoints = 'apiVersion: v1\nkind: Endpoints\nmetadata: {name: web}\n';
    const merged = mergeDumps('a,b,c', [dump('a.yaml', service('web', '10.96.0.10')), dump('b.yaml', endpoints), dump('c.yaml', service('web', '10.96.0.99'))]);
    expect(merged.ok ? [] : merged.error.causes).toEqual(['Service default/web is in both a.yaml and c.yaml: an object may be in one input only']);
  });
});

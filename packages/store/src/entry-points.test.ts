// Each entry point of the package loads only what its backend needs: `@kubesvc/store` (the
// interface, the memory backend, the compactor, the clocks) none of better-sqlite3, etcd3 and
// gRPC; `@kubesvc/store/sqlite` no etcd client; `@kubesvc/store/etcd` no SQLite addon. The
// test follows every static and dynamic import from each entry point's source through the
// package and lists the packages they reach.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const src = dirname(fileURLToPath(import.meta.url));
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s*'([^']+)'/g;

/** The bare specifiers (packages, node: built-ins) reached from `entry`, and the package files on the way. */
function reach(entry: string): { files: string[]; packages: string[] } {
  const files = new Set<string>();
  const packages = new Set<string>();
  const visit = (file: string) => {
    if (files.has(file)) return;
    files.add(file);
    for (const m of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const spec = m[1] ?? m[2] ?? m[3] ?? '';
      if (spec.startsWith('.')) visit(join(dirname(file), spec.replace(/\.js$/, '.ts')));
      else packages.add(spec);
    }
  };
  visit(join(src, entry));
  return { files: [...files].map((f) => relative(src, f)).sort(), packages: [...packages].sort() };
}

describe('entry points', () => {
  it('@kubesvc/store reaches no backend library: no better-sqlite3, etcd3, gRPC or cockatiel', () => {
    const { files, packages } = reach('index.ts');
    // The walk did follow the re-exports (the memory backend is one of them).
    expect(files).toContain('memory/memory-store.ts');
    expect(files.filter((f) => f.startsWith('sqlite/') || f.startsWith('etcd/'))).toEqual([]);
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual([]);
  });

  it('@kubesvc/store/sqlite reaches better-sqlite3 and not the etcd client', () => {
    const { files, packages } = reach('sqlite/index.ts');
    expect(files.filter((f) => f.startsWith('etcd/'))).toEqual([]);
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['better-sqlite3']);
  });

  it('@kubesvc/store/etcd reaches the etcd client and not better-sqlite3', () => {
    const { files, packages } = reach('etcd/index.ts');
    expect(files.filter((f) => f.startsWith('sqlite/'))).toEqual([]);
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['@grpc/grpc-js', 'cockatiel', 'etcd3']);
  });
});

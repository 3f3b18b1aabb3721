// Each entry point of the package loads only what its backend needs: `@kubesvc/store` (the
// interface, the memory backend, the compactor, the clocks) none of better-sqlite3, etcd3 and
// gRPC, only the memory backend's sorted key index (sorted-btree, plain JavaScript);
// `@kubesvc/store/sqlite` no etcd client; `@kubesvc/store/etcd` no SQLite addon. The test
// follows every static and dynamic import from each entry point's source through the package
// and lists the packages they reach.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importGraph } from '@kubesvc/testkit';
import { describe, expect, it } from 'vitest';

const src = dirname(fileURLToPath(import.meta.url));
const reach = (entry: string) => importGraph(src, entry);

describe('entry points', () => {
  it('@kubesvc/store reaches no backend library: no better-sqlite3, etcd3, gRPC or cockatiel', () => {
    const { files, packages } = reach('index.ts');
    // The walk did follow the re-exports (the memory backend is one of them).
    expect(files).toContain('memory/memory-store.ts');
    expect(files.filter((f) => f.startsWith('sqlite/') || f.startsWith('etcd/'))).toEqual([]);
    expect(packages.filter((p) => !p.startsWith('node:'))).toEqual(['sorted-btree']);
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

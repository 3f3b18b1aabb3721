// The bin's test of a checkout's build (bin/checkout-build.mjs): dist/ runs only when every
// package's last build is newer than everything under its src/, so an edit, an added or a
// deleted source, or a package never built sends the bin back to the TypeScript sources.
import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { checkoutBuildIsFresh } from '../bin/checkout-build.mjs';

const SOURCES = 1_700_000_000; // seconds: when the sources were written
const BUILT = SOURCES + 60; // the build, a minute later

const roots: string[] = [];
afterEach(() => {
  for (const dir of roots.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function touch(path: string, seconds: number): void {
  utimesSync(path, seconds, seconds);
}

/** A checkout with packages a (src/x.ts, src/sub/y.ts) and b (src/z.ts), both built after their sources. */
function checkout(): string {
  const root = mkdtempSync(join(tmpdir(), 'kubesvc-checkout-'));
  roots.push(root);
  const files = ['packages/a/src/x.ts', 'packages/a/src/sub/y.ts', 'packages/b/src/z.ts'];
  for (const file of files) {
    mkdirSync(join(root, file, '..'), { recursive: true });
    writeFileSync(join(root, file), 'export {};\n');
  }
  for (const name of ['a', 'b']) {
    writeFileSync(join(root, 'packages', name, 'tsconfig.lib.json'), '{}\n');
    mkdirSync(join(root, 'packages', name, 'dist'));
    writeFileSync(join(root, 'packages', name, 'dist', 'tsconfig.lib.tsbuildinfo'), '{}\n');
  }
  for (const path of [...files, 'packages/a/src/sub', 'packages/a/src', 'packages/b/src', 'packages/a/tsconfig.lib.json', 'packages/b/tsconfig.lib.json']) touch(join(root, path), SOURCES);
  for (const name of ['a', 'b']) touch(join(root, 'packages', name, 'dist', 'tsconfig.lib.tsbuildinfo'), BUILT);
  return root;
}

const fresh = (dir: string): boolean => checkoutBuildIsFresh(pathToFileURL(`${dir}/`));

describe('checkoutBuildIsFresh', () => {
  it('is true when every package was built after all of its sources', () => {
    expect(fresh(checkout())).toBe(true);
  });

  it('is false once one source file is edited after the build', () => {
    const dir = checkout();
    touch(join(dir, 'packages/a/src/sub/y.ts'), BUILT + 1);
    expect(fresh(dir)).toBe(false);
  });

  it('is false once a source is deleted (its folder changed after the build)', () => {
    const dir = checkout();
    rmSync(join(dir, 'packages/a/src/sub/y.ts'));
    expect(fresh(dir)).toBe(false);
  });

  it('is false when a package was never built, or its tsconfig.lib.json changed since', () => {
    const dir = checkout();
    rmSync(join(dir, 'packages/b/dist'), { recursive: true });
    expect(fresh(dir)).toBe(false);
    const other = checkout();
    touch(join(other, 'packages/b/tsconfig.lib.json'), BUILT + 1);
    expect(fresh(other)).toBe(false);
  });

  it('leaves out folders that are not built packages (no tsconfig.lib.json), and answers false without a packages folder', () => {
    const dir = checkout();
    mkdirSync(join(dir, 'packages/tools/src'), { recursive: true });
    writeFileSync(join(dir, 'packages/tools/src/new.ts'), 'export {};\n');
    expect(fresh(dir)).toBe(true);
    rmSync(join(dir, 'packages'), { recursive: true });
    expect(fresh(dir)).toBe(false);
  });
});

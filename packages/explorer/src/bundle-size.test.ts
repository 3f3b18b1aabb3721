// The page's bundle, built from app/ with the package's Vite config into a temp folder: under
// 300 KB gzipped, self-contained (no URL to another host), and with the page's one script and
// stylesheet named by index.html with relative paths.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { buildUi } from './node/ui-build.js';

const LIMIT = 300 * 1024;
const out = mkdtempSync(join(tmpdir(), 'kubesvc-explorer-bundle-'));

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

beforeAll(async () => {
  await buildUi(out);
}, 120_000);

afterAll(() => {
  rmSync(out, { recursive: true, force: true });
});

it('is under 300 KB gzipped', () => {
  const gzipped = files(out).reduce((sum, file) => sum + gzipSync(readFileSync(file), { level: 9 }).length, 0);
  expect(gzipped).toBeGreaterThan(1000);
  expect(gzipped).toBeLessThan(LIMIT);
});

it('loads nothing from another host: index.html names its script and stylesheet by relative path', () => {
  const html = readFileSync(join(out, 'index.html'), 'utf8');
  const refs = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
  const assets = files(out)
    .map((f) => relative(out, f))
    .filter((f) => f !== 'index.html')
    .sort();
  expect(refs.filter((r) => !r.startsWith('data:')).map((r) => r.replace(/^\.\//, '')).sort()).toEqual(assets);
  for (const file of files(out)) {
    const text = readFileSync(file, 'utf8');
    // Namespace URIs (http://www.w3.org/2000/svg) name, they do not fetch.
    const urls = [...text.matchAll(/https?:\/\/[^\s"'`)]+/g)].map((m) => m[0]).filter((u) => !u.startsWith('http://www.w3.org/'));
    expect(urls, relative(out, file)).toEqual([]);
  }
});

// The built page (the Vite bundle in the package's ui/ folder), read once into memory. Only the
// files found there are served, by exact path, so no request can name a file outside it.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The folder `vite build` writes: beside src/ and dist/, so the same path works from src/node/ and dist/node/. */
export const UI_DIR = fileURLToPath(new URL('../../ui/', import.meta.url));

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
};

export interface UiAsset {
  readonly body: Buffer;
  readonly contentType: string;
}

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) walk(path, out);
    else out.push(path);
  }
  return out;
}

/** The bundle's files by their path below the folder (`index.html`, `assets/index-abc.js`). */
export function loadUiAssets(dir: string = UI_DIR): ReadonlyMap<string, UiAsset> {
  if (!existsSync(join(dir, 'index.html'))) {
    throw new Error(`the explorer page is not built (no ${join(dir, 'index.html')}): run \`npx nx run @kubesvc/explorer:build-ui\``);
  }
  const assets = new Map<string, UiAsset>();
  for (const file of walk(dir, [])) {
    const type = CONTENT_TYPES[extname(file)];
    if (type === undefined) continue;
    assets.set(relative(dir, file).split(sep).join('/'), { body: readFileSync(file), contentType: type });
  }
  return assets;
}

// In a checkout of the repository the page is built from app/ with the workspace's Vite the
// first time it is needed, so that `npm start` right after `npm ci` serves it; the published
// package ships ui/ built.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UI_DIR } from './ui-assets.js';

const PACKAGE_DIR = fileURLToPath(new URL('../', import.meta.url));

/** Whether this copy of the package is a checkout (it has the page's sources and build config). */
export function isCheckout(): boolean {
  return existsSync(join(PACKAGE_DIR, 'vite.config.ts')) && existsSync(join(PACKAGE_DIR, 'app'));
}

/** Builds the page into `outDir` with the package's Vite config. */
export async function buildUi(outDir: string = UI_DIR): Promise<void> {
  const vite = await import('vite');
  await vite.build({ configFile: join(PACKAGE_DIR, 'vite.config.ts'), build: { outDir, emptyOutDir: true }, logLevel: 'warn' });
}

/** Builds the page when it is missing and this is a checkout; resolves to whether it is there. */
export async function ensureUiBuilt(): Promise<boolean> {
  if (existsSync(join(UI_DIR, 'index.html'))) return true;
  if (!isCheckout()) return false;
  await buildUi();
  return existsSync(join(UI_DIR, 'index.html'));
}

// In a checkout of the repository the page is built from app/ with the workspace's Vite the
// first time it is needed, so that `npm start` right after `npm ci` serves it; the published
// package ships ui/ built.
import { existsSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { UI_DIR } from './ui-assets.js';

const PACKAGE_DIR = fileURLToPath(new URL('../../', import.meta.url));

/** Whether this copy of the package is a checkout (it has the page's sources and build config). */
export function isCheckout(): boolean {
  return existsSync(join(PACKAGE_DIR, 'vite.config.ts')) && existsSync(join(PACKAGE_DIR, 'app'));
}

/** Builds the page into `outDir` with the package's Vite config. */
export async function buildUi(outDir: string = UI_DIR): Promise<void> {
  const vite = await import('vite');
  await vite.build({ configFile: join(PACKAGE_DIR, 'vite.config.ts'), build: { outDir, emptyOutDir: true }, logLevel: 'warn' });
}

/**
 * Builds the page when it is missing and this is a checkout; resolves to whether it is there.
 * Several processes may start at once (tests start a few `kubesvc up`): each builds into a
 * folder of its own and renames it into place, and the first rename wins.
 */
export async function ensureUiBuilt(): Promise<boolean> {
  if (existsSync(join(UI_DIR, 'index.html'))) return true;
  if (!isCheckout()) return false;
  const own = `${UI_DIR.replace(/[\\/]$/, '')}.building-${process.pid}`;
  try {
    await buildUi(own);
    if (!existsSync(join(UI_DIR, 'index.html'))) {
      rmSync(UI_DIR, { recursive: true, force: true });
      renameSync(own, UI_DIR);
    }
  } catch (error) {
    // Another process put its build in place between the check and the rename.
    if (!existsSync(join(UI_DIR, 'index.html'))) throw error;
  } finally {
    rmSync(own, { recursive: true, force: true });
  }
  return existsSync(join(UI_DIR, 'index.html'));
}

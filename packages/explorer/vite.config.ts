// The page's bundle: app/ (Preact, dagre) built into ui/, which the explorer handler serves
// below /ui/. Relative asset URLs, so the page works under any prefix; nothing is loaded from
// anywhere but the server that serves the page.
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export const EXPLORER_VITE_CONFIG = {
  root: fileURLToPath(new URL('./app', import.meta.url)),
  base: './',
  logLevel: 'warn' as const,
  // Workspace packages resolve to their sources (`@kubesvc/source`), as in tests, so the page
  // builds without a dist/ of @kubesvc/api-types.
  resolve: { conditions: ['@kubesvc/source', 'module', 'browser', 'development|production'] },
  oxc: { jsx: { runtime: 'automatic' as const, importSource: 'preact' } },
  build: {
    outDir: fileURLToPath(new URL('./ui', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // One script and one stylesheet; no preload helper that fetches by URL at run time.
    modulePreload: false,
    reportCompressedSize: false,
  },
};

export default defineConfig(EXPLORER_VITE_CONFIG);

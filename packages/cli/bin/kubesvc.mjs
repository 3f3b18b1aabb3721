#!/usr/bin/env node
// The `kubesvc` command's entry point, in plain JavaScript so that npm can link it as a bin.
//
// In a checkout of the repository (the package folder has its tsconfig.lib.json, which is not
// published) it runs the TypeScript sources through tsx, a devDependency of the workspace,
// with the `@kubesvc/source` condition, so `npx kubesvc` works right after `npm ci` with no
// build step and never runs a stale dist/; once every package's build is newer than all of
// its sources (after `npm test` or an nx build), it runs dist/, which starts in half the time
// (tsx hands each of the ~550 modules across a loader thread). KUBESVC_FROM_SOURCES=1 keeps
// to the sources. From the published package it runs dist/.
import { existsSync } from 'node:fs';
import { register } from 'node:module';
import { checkoutBuildIsFresh } from './checkout-build.mjs';

const packageRoot = new URL('../', import.meta.url);

const inCheckout = existsSync(new URL('tsconfig.lib.json', packageRoot));
if (inCheckout && (process.env['KUBESVC_FROM_SOURCES'] === '1' || !checkoutBuildIsFresh(new URL('../../', packageRoot)))) {
  const { register: registerTsx } = await import('tsx/esm/api');
  registerTsx();
  // Registered after tsx, so it runs first: every import of a workspace package resolves to its
  // src/index.ts, as `tsx --conditions=@kubesvc/source` would do.
  const hooks = `export function resolve(specifier, context, next) {
    return next(specifier, { ...context, conditions: [...context.conditions, '@kubesvc/source'] });
  }`;
  register(`data:text/javascript,${encodeURIComponent(hooks)}`, import.meta.url);
  await import(new URL('src/main.ts', packageRoot).href);
} else {
  await import(new URL('dist/main.js', packageRoot).href);
}

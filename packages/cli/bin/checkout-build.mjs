// Whether a checkout of the repository has a build of every package that is newer than its
// sources, so that the bin can run the compiled dist/ instead of the TypeScript through tsx.
//
// `tsc --build` writes a package's dist/tsconfig.lib.tsbuildinfo after the package's emit (it
// is the last file of a build), so a build is taken as fresh when that file is newer than the
// package's tsconfig.lib.json and than every file and folder under its src/ (a folder's time
// moves when a file in it is added, removed or renamed, so a deleted source counts too). The
// check errs on the side of the sources: any source edited after the build, a package never
// built, or anything unreadable answers false. Stats about a thousand files: a few ms.
import { readdirSync, statSync } from 'node:fs';

/** The file's modification time in ms, or undefined when it cannot be read. */
function mtimeOf(url) {
  try {
    return statSync(url).mtimeMs;
  } catch {
    return undefined;
  }
}

/** Whether `dir` (a folder URL ending in /), a file in it or a folder under it changed after `since`. */
function changedAfter(dir, since) {
  const own = mtimeOf(dir);
  if (own === undefined || own > since) return true;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (changedAfter(new URL(`${entry.name}/`, dir), since)) return true;
    } else {
      const time = mtimeOf(new URL(entry.name, dir));
      if (time === undefined || time > since) return true;
    }
  }
  return false;
}

/**
 * True when every package under `repoRoot`/packages/ that has a tsconfig.lib.json has a
 * dist/tsconfig.lib.tsbuildinfo newer than that config and than everything under its src/.
 * @param {URL} repoRoot the repository's root folder, ending in /
 * @returns {boolean}
 */
export function checkoutBuildIsFresh(repoRoot) {
  try {
    const packages = new URL('packages/', repoRoot);
    for (const entry of readdirSync(packages, { withFileTypes: true })) {
      if (!entry.isDirectory()) continue;
      const root = new URL(`${entry.name}/`, packages);
      const config = mtimeOf(new URL('tsconfig.lib.json', root));
      if (config === undefined) continue;
      const built = mtimeOf(new URL('dist/tsconfig.lib.tsbuildinfo', root));
      if (built === undefined || config > built || changedAfter(new URL('src/', root), built)) return false;
    }
    return true;
  } catch {
    return false;
  }
}

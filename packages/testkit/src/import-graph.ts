// What an entry point loads: every static and dynamic import followed from the entry's source
// through the package's relative imports. The entry-points tests of the packages (which
// backend library, which WebAssembly module, which Node-only module an entry point reaches)
// read this one walk instead of each carrying its own.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** `import … from '…'`, `export … from '…'`, `import('…')` and the bare `import '…'`. */
const IMPORT = /(?:^|\n)\s*(?:import|export)\s[^;]*?from\s*'([^']+)'|import\(\s*'([^']+)'\s*\)|(?:^|\n)\s*import\s*'([^']+)'/g;

export interface ImportGraph {
  /** The package's source files reached, relative to `root`, sorted (the entry among them). */
  readonly files: readonly string[];
  /** The bare specifiers they import (packages and `node:` built-ins), sorted. */
  readonly packages: readonly string[];
}

/**
 * Follows the imports of `entry` (a path relative to `root`, a package's `src/`): relative
 * specifiers are read as the `.ts` file they compile from; any other specifier is a package.
 */
export function importGraph(root: string, entry: string): ImportGraph {
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
  visit(join(root, entry));
  return { files: [...files].map((f) => relative(root, f)).sort(), packages: [...packages].sort() };
}

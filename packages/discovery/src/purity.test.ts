// The pure entry point loads nothing that needs Node: its module graph, followed through
// relative imports from src/index.ts, imports no package but api-types. dns-packet reads and
// writes Node Buffers, so the wire format lives in the node adapter (src/node/), and the
// purity lint's Buffer rule is kept in spirit, not only in letter.
import { readFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));
const IMPORT = /^\s*(?:import|export)\s[^;]*?from\s+'([^']+)'/gm;

/** Every module reached from `entry` by relative imports, and every other specifier they import. */
function moduleGraph(entry: string): { modules: string[]; external: Set<string> } {
  const seen = new Set<string>();
  const external = new Set<string>();
  const queue = [entry];
  for (let file = queue.shift(); file !== undefined; file = queue.shift()) {
    if (seen.has(file)) continue;
    seen.add(file);
    for (const match of readFileSync(file, 'utf8').matchAll(IMPORT)) {
      const specifier = match[1] ?? '';
      if (specifier.startsWith('.')) queue.push(join(dirname(file), specifier.replace(/\.js$/, '.ts')));
      else external.add(specifier);
    }
  }
  return { modules: [...seen].map((f) => relative(SRC, f)), external };
}

it('the pure entry point imports no package but api-types, and nothing from src/node', () => {
  const { modules, external } = moduleGraph(join(SRC, 'index.ts'));
  expect([...external]).toStrictEqual(['@kubesvc/api-types']);
  expect(modules.filter((m) => m.startsWith('node/'))).toStrictEqual([]);
  // The walk did find the modules (a broken pattern would find only the entry).
  expect(modules).toContain('dns/zone.ts');
  expect(modules).toContain('dns/format.ts');
});

it('the node entry point holds the wire format, with dns-packet', () => {
  const { modules, external } = moduleGraph(join(SRC, 'node', 'index.ts'));
  expect(modules).toContain('node/wire.ts');
  expect(external.has('dns-packet')).toBe(true);
});

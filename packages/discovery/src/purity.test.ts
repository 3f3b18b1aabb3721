// The pure entry point loads nothing that needs Node: its module graph, followed through
// relative imports from src/index.ts, imports no package but api-types. dns-packet reads and
// writes Node Buffers, so the wire format lives in the node adapter (src/node/), and the
// purity lint's Buffer rule is kept in spirit, not only in letter.
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importGraph } from '@kubesvc/testkit';
import { expect, it } from 'vitest';

const SRC = dirname(fileURLToPath(import.meta.url));

/** Every module reached from `entry` by relative imports, and every other specifier they import. */
function moduleGraph(entry: string): { modules: readonly string[]; external: ReadonlySet<string> } {
  const { files, packages } = importGraph(SRC, entry);
  return { modules: files, external: new Set(packages) };
}

it('the pure entry point imports no package but api-types, and nothing from src/node', () => {
  const { modules, external } = moduleGraph('index.ts');
  expect([...external]).toStrictEqual(['@kubesvc/api-types']);
  expect(modules.filter((m) => m.startsWith('node/'))).toStrictEqual([]);
  // The walk did find the modules (a broken pattern would find only the entry).
  expect(modules).toContain('dns/zone.ts');
  expect(modules).toContain('dns/format.ts');
});

it('the node entry point holds the wire format, with dns-packet', () => {
  const { modules, external } = moduleGraph('node/index.ts');
  expect(modules).toContain('node/wire.ts');
  expect(external.has('dns-packet')).toBe(true);
});

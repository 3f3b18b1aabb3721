// docs/invariants.md is the catalogue of invariants: every INV- id a test names must be in
// it, and every test it cites must exist and name the invariant it is cited for.
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { expect, test } from 'vitest';
import { workspaceRoot } from './workspace.js';

const catalogue = readFileSync(join(workspaceRoot, 'docs/invariants.md'), 'utf8');
const ID = /INV-[A-Z0-9]+(?:-[A-Z0-9]+)+/g;

function testFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return ['node_modules', 'dist', 'out-tsc'].includes(entry.name) ? [] : testFiles(path);
    return entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

const rows = catalogue
  .split('\n')
  .filter((line) => line.startsWith('| INV-'))
  .map((line) => line.split('|').map((cell) => cell.trim()))
  .map(([, ids = '', meaning = '', checkedBy = '']) => ({ ids: ids.match(ID) ?? [], meaning, checkedBy }));

test('every invariant a test names is in docs/invariants.md', () => {
  const listed = new Set(rows.flatMap((r) => r.ids));
  const named = testFiles(join(workspaceRoot, 'packages')).flatMap((file) =>
    (readFileSync(file, 'utf8').match(ID) ?? []).map((id) => ({ id, file: relative(workspaceRoot, file) })),
  );
  expect(named.length).toBeGreaterThan(0);
  expect(named.filter(({ id }) => !listed.has(id))).toEqual([]);
});

test('every test the catalogue cites exists and names its invariant', () => {
  const cited = rows.filter((r) => r.checkedBy.startsWith('`'));
  expect(cited.length).toBeGreaterThan(0);
  for (const row of cited) {
    for (const path of row.checkedBy.match(/`([^`]+)`/g)?.map((p) => p.slice(1, -1)) ?? []) {
      const file = join(workspaceRoot, path);
      expect(existsSync(file), `${path} exists`).toBe(true);
      for (const id of row.ids) expect(readFileSync(file, 'utf8'), `${path} names ${id}`).toContain(id);
    }
  }
});

test('each row has a meaning and says what checks it', () => {
  for (const row of rows) {
    expect(row.ids.length, JSON.stringify(row)).toBeGreaterThan(0);
    expect(row.meaning.length).toBeGreaterThan(10);
    expect(row.checkedBy).toMatch(/^(`[^`]+`(, `[^`]+`)*|not yet \(issue \d+\))$/);
  }
});

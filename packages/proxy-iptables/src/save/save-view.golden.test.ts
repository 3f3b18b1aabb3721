// Golden tests: the save view against what the real iptables-save printed for the same
// input. The *.save files were produced by fixtures/regenerate.sh (iptables 1.8.9, in a
// throwaway network namespace); their `#` lines (date, version) are left out of the comparison.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { iptablesSaveView } from './save-view.js';

const fixtures = new URL('./fixtures/', import.meta.url);
const inputs = readdirSync(fixtures).filter((f) => f.endsWith('.rules'));

function withoutCommentLines(text: string): string {
  return text
    .split('\n')
    .filter((l) => !l.startsWith('#'))
    .join('\n');
}

describe('the save view prints what iptables-save printed for the fixture', () => {
  test('there are fixtures for both families', () => {
    expect(inputs.some((f) => f.endsWith('.v4.rules'))).toBe(true);
    expect(inputs.some((f) => f.endsWith('.v6.rules'))).toBe(true);
  });

  for (const input of inputs) {
    for (const backend of ['nft', 'legacy'] as const) {
      test(`${input} (${backend})`, () => {
        const base = input.slice(0, -'.rules'.length);
        const family = base.endsWith('.v6') ? 6 : 4;
        const rules = readFileSync(new URL(input, fixtures), 'utf8');
        const saved = readFileSync(new URL(`${base}.${backend}.save`, fixtures), 'utf8');
        const view = iptablesSaveView(rules, { family, backend });
        expect(view.ok ? view.value : view.error).toBe(withoutCommentLines(saved));
      });
    }
  }
});

// `-o jsonpath=`: kubectl's template syntax over the data `-o json` prints (expected outputs as
// kubectl prints them for the same templates over the same JSON).
import { describe, expect, it } from 'vitest';
import { renderJsonPath } from './jsonpath.js';

const DATA = {
  kind: 'List',
  items: [
    { metadata: { name: 'a', labels: { app: 'web' } }, status: { conditions: [{ type: 'Ready', status: 'True' }] }, ports: [80, 443] },
    { metadata: { name: 'b' }, status: { conditions: [{ type: 'Ready', status: 'False' }] }, ports: [8080] },
  ],
};

describe('renderJsonPath', () => {
  it('prints a field, several results separated by a space, strings raw and other values as JSON', () => {
    expect(renderJsonPath('{.kind}', DATA)).toBe('List');
    expect(renderJsonPath('{.items[*].metadata.name}', DATA)).toBe('a b');
    expect(renderJsonPath('{.items[0].ports}', DATA)).toBe('[80,443]');
    expect(renderJsonPath('{.items[0].metadata.labels}', DATA)).toBe('{"app":"web"}');
    expect(renderJsonPath('{.items[*].ports[0]}', DATA)).toBe('80 8080');
  });

  it('keeps the text around expressions, reads string literals, and loops with range ... end', () => {
    expect(renderJsonPath('names: {.items[*].metadata.name}!', DATA)).toBe('names: a b!');
    expect(renderJsonPath('{range .items[*]}{.metadata.name}{"\\t"}{.status.conditions[0].status}{"\\n"}{end}', DATA)).toBe('a\tTrue\nb\tFalse\n');
  });

  it('filters with ?(@.field=="value")', () => {
    expect(renderJsonPath('{.items[?(@.metadata.name=="b")].ports[0]}', DATA)).toBe('8080');
  });

  it('prints nothing for a missing field, as kubectl with --allow-missing-template-keys (its default)', () => {
    expect(renderJsonPath('x{.items[1].metadata.labels.app}y', DATA)).toBe('xy');
  });

  it('refuses an unclosed action, an unclosed range and a stray end, with the parser\'s words', () => {
    expect(() => renderJsonPath('{.kind', DATA)).toThrow('error parsing jsonpath {.kind, unclosed action');
    expect(() => renderJsonPath('{range .items[*]}{.kind}', DATA)).toThrow('unclosed range');
    expect(() => renderJsonPath('{end}', DATA)).toThrow('not in range, nothing to end');
  });
});

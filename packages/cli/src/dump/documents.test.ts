// placeObjects names each object's document and list item with parseManifests' numbering.
import { parseManifests } from '@kubesvc/api-types';
import { describe, expect, test } from 'vitest';
import { documentTexts, placeObjects } from './documents.js';

const ns = (name: string) => `apiVersion: v1\nkind: Namespace\nmetadata:\n  name: ${name}\n`;

describe('placeObjects', () => {
  test('documents are counted as parseManifests counts them: empty documents too', () => {
    // Document 2 is empty (kubectl skips it, but it has a number); the bad port is in document 4.
    const text = `${ns('a')}---\n---\n${ns('b')}---\napiVersion: v1\nkind: Service\nmetadata: {name: s}\nspec:\n  ports: [{port: "80"}]\n`;
    const parsed = parseManifests(text);
    expect(parsed.ok ? [] : parsed.error.causes.map((c) => c.document)).toEqual([4]);
    const placed = placeObjects(text);
    expect(placed.objects.map((o) => [o.document, o.object.metadata.name])).toEqual([
      [1, 'a'],
      [3, 'b'],
    ]);
    expect(placed.errors.map((e) => e.document)).toEqual([4]);
  });

  test('list items keep their index, past an item that does not decode and one of a kind not modelled', () => {
    const text = JSON.stringify({
      apiVersion: 'v1',
      kind: 'List',
      items: [
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'a' } },
        { apiVersion: 'apps/v1', kind: 'StatefulSet', metadata: { name: 'd' } },
        { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' }, spec: { ports: [{ port: '80' }] } },
        { apiVersion: 'v1', kind: 'Namespace', metadata: { name: 'b' } },
      ],
    });
    const placed = placeObjects(text);
    expect(placed.objects.map((o) => [o.document, o.item, o.object.metadata.name])).toEqual([
      [1, 0, 'a'],
      [1, 3, 'b'],
    ]);
    expect(placed.skipped.map((s) => [s.item, s.kind])).toEqual([[1, 'StatefulSet']]);
    expect(placed.errors.map((e) => [e.item, e.field])).toEqual([[2, 'spec.ports[0].port']]);
  });

  test('a JSON stream is cut where each value ends, strings with brackets included', () => {
    const first = '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a}"}}';
    const second = '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"b"}}';
    const text = `${first}\n${second}`;
    expect(documentTexts(text)).toEqual([
      { text: first, list: false },
      { text: second, list: false },
    ]);
    expect(placeObjects(text).objects.map((o) => [o.document, o.object.metadata.name])).toEqual([
      [1, 'a}'],
      [2, 'b'],
    ]);
  });
});

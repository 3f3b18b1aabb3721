import { describe, expect, it } from 'vitest';
import { deserializeObject, ReaderTextCache, serializedForReader } from './stored-object.js';

const reader = (value: string, modRevision = 42) => JSON.stringify(deserializeObject({ value, modRevision }));

describe('serializedForReader', () => {
  it('adds resourceVersion as the last member of metadata, as a reader sees the object', () => {
    const value = '{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default","labels":{"app":"web"}},"spec":{"ports":[{"port":80}]}}';
    expect(serializedForReader({ value, modRevision: 42 })).toBe(
      '{"apiVersion":"v1","kind":"Service","metadata":{"name":"web","namespace":"default","labels":{"app":"web"},"resourceVersion":"42"},"spec":{"ports":[{"port":80}]}}',
    );
    expect(serializedForReader({ value, modRevision: 42 })).toBe(reader(value));
  });

  it('finds the top-level metadata behind a nested one and strings that look like JSON', () => {
    const value = '{"spec":{"metadata":{"x":"}"}},"a":"\\"metadata\\":{","metadata":{"annotations":{"k":"{\\"metadata\\":{}}"}},"z":[{"metadata":{}}]}';
    expect(serializedForReader({ value, modRevision: 7 })).toBe(reader(value, 7));
  });

  it('writes an empty metadata with the resourceVersion alone', () => {
    expect(serializedForReader({ value: '{"kind":"Namespace","metadata":{}}', modRevision: 3 })).toBe('{"kind":"Namespace","metadata":{"resourceVersion":"3"}}');
  });

  it('falls back to parsing when the stored metadata already has a resourceVersion or there is no metadata', () => {
    for (const value of ['{"metadata":{"resourceVersion":"1","name":"a"}}', '{"kind":"Service"}', '{"metadata":null}', '{"metadata":[]}']) {
      expect(serializedForReader({ value, modRevision: 9 })).toBe(reader(value, 9));
    }
  });
});

describe('ReaderTextCache', () => {
  const value = '{"kind":"Service","metadata":{"name":"web"}}';

  it('gives serializedForReader of each key and modRevision, kept or not', () => {
    const cache = new ReaderTextCache(100, 50);
    const big = `{"kind":"Service","metadata":{"name":"${'x'.repeat(60)}"}}`;
    for (let round = 0; round < 2; round++) {
      expect(cache.text({ key: '/a', value, modRevision: 3 })).toBe('{"kind":"Service","metadata":{"name":"web","resourceVersion":"3"}}');
      // The same key at another revision is another stored value, and back again.
      expect(cache.text({ key: '/a', value: '{"metadata":{"name":"web2"}}', modRevision: 4 })).toBe('{"metadata":{"name":"web2","resourceVersion":"4"}}');
      expect(cache.text({ key: '/a', value, modRevision: 3 })).toBe('{"kind":"Service","metadata":{"name":"web","resourceVersion":"3"}}');
      // Above the size for keeping: spliced each time.
      expect(cache.text({ key: '/b', value: big, modRevision: 5 })).toBe(reader(big, 5));
    }
  });

  it('over its budget, the oldest texts go: what it holds stays within the budget, and a text gone is spliced again', () => {
    const cache = new ReaderTextCache(150, 100);
    const one = reader(value, 1).length;
    const texts = [1, 2, 3, 4].map((rev) => cache.text({ key: `/k${rev}`, value, modRevision: rev }));
    expect(texts).toEqual([1, 2, 3, 4].map((rev) => reader(value, rev)));
    // Each text is 66 characters: two fit in 150.
    expect(one).toBe(66);
    expect(cache.heldChars).toBe(2 * one);
    expect(cache.text({ key: '/k1', value, modRevision: 1 })).toBe(reader(value, 1));
    expect(cache.heldChars).toBe(2 * one);
    // One text per key: its text at another revision takes the place of the one kept.
    expect(cache.text({ key: '/k1', value, modRevision: 9 })).toBe(reader(value, 9));
    expect(cache.heldChars).toBe(2 * one);
  });
});

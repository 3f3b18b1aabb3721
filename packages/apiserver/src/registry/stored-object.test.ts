import { describe, expect, it } from 'vitest';
import { deserializeObject, serializedForReader } from './stored-object.js';

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

// semanticEqual against apimachinery's Semantic.DeepEqual (third_party/forked/golang/reflect/
// deep_equal.go), on the JSON forms of the Go values the reconcilers compare: a nil and an
// empty slice or map are equal; a pointer that is set (to "", to false) is not nil.
import { describe, expect, it } from 'vitest';
import { semanticEqual } from './semantic-equal.js';

describe('semanticEqual', () => {
  it('an absent, null and empty slice are equal', () => {
    expect(semanticEqual(undefined, [])).toBe(true);
    expect(semanticEqual(null, [])).toBe(true);
    expect(semanticEqual([], undefined)).toBe(true);
    expect(semanticEqual({ endpoints: [] }, {})).toBe(true);
  });

  it('an absent and an empty map are equal ({} vs absent)', () => {
    expect(semanticEqual({ labels: {} }, {})).toBe(true);
    expect(semanticEqual({}, { labels: {} })).toBe(true);
    expect(semanticEqual({ deprecatedTopology: {} }, { deprecatedTopology: null })).toBe(true);
  });

  it('a pointer to "" is not nil ("" vs absent)', () => {
    expect(semanticEqual({ name: '' }, {})).toBe(false);
    expect(semanticEqual({}, { name: '' })).toBe(false);
    expect(semanticEqual([{ name: '', port: 80 }], [{ port: 80 }])).toBe(false);
  });

  it('a pointer to false is not nil', () => {
    expect(semanticEqual({ conditions: { ready: false } }, { conditions: {} })).toBe(false);
    expect(semanticEqual({ ready: false }, {})).toBe(false);
  });

  it('a non-empty slice differs from an empty one, and slices compare in order', () => {
    expect(semanticEqual([1], [])).toBe(false);
    expect(semanticEqual([], [1])).toBe(false);
    expect(semanticEqual([1, 2], [2, 1])).toBe(false);
    expect(semanticEqual([1, 2], [1, 2, 3])).toBe(false);
    expect(semanticEqual([1, 2], [1, 3])).toBe(false);
    expect(semanticEqual(['a', 'b'], ['a', 'b'])).toBe(true);
  });

  it('a slice is not a map', () => {
    expect(semanticEqual(['a'], { 0: 'a' })).toBe(false);
    expect(semanticEqual({ 0: 'a' }, ['a'])).toBe(false);
  });

  it('maps compare key by key, both ways', () => {
    expect(semanticEqual({ a: '1', b: '2' }, { b: '2', a: '1' })).toBe(true);
    expect(semanticEqual({ a: '1' }, { a: '1', b: '2' })).toBe(false);
    expect(semanticEqual({ a: '1', b: '2' }, { a: '1' })).toBe(false);
    expect(semanticEqual({ a: '1' }, { a: '2' })).toBe(false);
  });

  it('scalars compare by value', () => {
    expect(semanticEqual(6443, 6443)).toBe(true);
    expect(semanticEqual(6443, 443)).toBe(false);
    expect(semanticEqual('TCP', 'UDP')).toBe(false);
    expect(semanticEqual(true, true)).toBe(true);
  });
});

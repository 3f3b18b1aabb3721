// The nesting depth scan and Go's syntax errors for deep texts: brackets in strings do not
// count, the limit is encoding/json's 10,000, and a text of any depth is scanned without
// recursion (a stack overflow would answer a client with a 500).
import { describe, expect, it } from 'vitest';
import { goJSONSyntaxError } from './go-json-error.js';
import { checkJsonDepth, GO_JSON_MAX_NESTING_DEPTH, jsonNestingDepth } from './json-depth.js';

const nested = (depth: number, open = '[', close = ']') => `${open.repeat(depth)}${close.repeat(depth)}`;

describe('jsonNestingDepth', () => {
  it('counts objects and arrays, not brackets inside strings or after an escaped quote', () => {
    expect(jsonNestingDepth('1')).toBe(0);
    expect(jsonNestingDepth('{}')).toBe(1);
    expect(jsonNestingDepth('[[1],{"a":[2]}]')).toBe(3);
    expect(jsonNestingDepth('{"a":"[[[[\\"{{{{"}')).toBe(1);
    expect(jsonNestingDepth(nested(100_000))).toBe(100_000);
  });
});

describe('checkJsonDepth', () => {
  it('passes 10,000 levels and names the bracket that opens level 10,001 as Go does', () => {
    expect(GO_JSON_MAX_NESTING_DEPTH).toBe(10_000);
    expect(checkJsonDepth(nested(10_000))).toBeUndefined();
    expect(checkJsonDepth(nested(10_001))).toBe(`invalid character '[' exceeded max depth`);
    expect(checkJsonDepth(`{"a":${nested(10_000, '{"b":', '}')}}`)).toBe(`invalid character '{' exceeded max depth`);
  });

  it('reports a syntax error met before the limit instead', () => {
    expect(checkJsonDepth(`[1 2${nested(20_000)}]`)).toBe(`invalid character '2' after array element`);
  });
});

describe('goJSONSyntaxError on deep texts', () => {
  it('scans 9,999 open arrays to their end without overflowing the stack', () => {
    expect(goJSONSyntaxError('['.repeat(9_999))).toBe('unexpected end of JSON input');
    expect(goJSONSyntaxError(`${'['.repeat(9_999)}1}`)).toBe(`invalid character '}' after array element`);
    expect(goJSONSyntaxError(`${'{"a":'.repeat(9_999)}1]`)).toBe(`invalid character ']' after object key:value pair`);
    expect(goJSONSyntaxError(nested(10_000))).toBeUndefined();
  });

  it('keeps the shallow messages', () => {
    expect(goJSONSyntaxError('{"a" 1}')).toBe(`invalid character '1' after object key`);
    expect(goJSONSyntaxError('{1:2}')).toBe(`invalid character '1' looking for beginning of object key string`);
    expect(goJSONSyntaxError('{"a":1,}')).toBe(`invalid character '}' looking for beginning of object key string`);
    expect(goJSONSyntaxError('[1,]')).toBe(`invalid character ']' looking for beginning of value`);
    expect(goJSONSyntaxError('{} x')).toBe(`invalid character 'x' after top-level value`);
    expect(goJSONSyntaxError('[{"a":[1,{"b":2}]},3]')).toBeUndefined();
  });
});

// Rendering field errors costs one pass over each bad value: a value of megabytes (a label
// value under the request body limit) is quoted once, not once for the cause and again for
// each step of the aggregate message, and quoting is linear in the value.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fieldPath } from './field-path.js';
import { GoValue, goQuote, invalid, invalidError } from './field-errors.js';

/** A bad value that counts how often its rendering is asked for. */
function countingValue(repr: string): { value: GoValue; reads: () => number } {
  let reads = 0;
  const value = Object.create(GoValue.prototype, {
    repr: {
      get: () => {
        reads++;
        return repr;
      },
    },
  }) as GoValue;
  return { value, reads: () => reads };
}

/** strconv.Quote rune by rune: the reference goQuote's runs must agree with. */
function quoteRuneByRune(s: string): string {
  let out = '"';
  for (const ch of s) {
    const cp = ch.codePointAt(0) ?? 0;
    if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd';
    else if (ch === '"' || ch === '\\') out += `\\${ch}`;
    else if (cp === 0x20 || (cp > 0x7f ? /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u.test(ch) : cp > 0x20 && cp < 0x7f)) out += ch;
    else out += escaped(cp);
  }
  return `${out}"`;
}

function escaped(cp: number): string {
  const short: Record<number, string> = { 7: '\\a', 8: '\\b', 12: '\\f', 10: '\\n', 13: '\\r', 9: '\\t', 11: '\\v' };
  if (short[cp] !== undefined) return short[cp];
  if (cp < 0x80) return `\\x${cp.toString(16).padStart(2, '0')}`;
  if (cp < 0x10000) return `\\u${cp.toString(16).padStart(4, '0')}`;
  return `\\U${cp.toString(16).padStart(8, '0')}`;
}

describe('invalidError', () => {
  it('renders each bad value once for the causes and the message together', () => {
    const first = countingValue('"a"');
    const second = countingValue('"b"');
    const status = invalidError('Service', 'web', [invalid(fieldPath('spec', 'a'), first.value, 'bad'), invalid(fieldPath('spec', 'b'), second.value, 'bad')]).status;
    expect(status.message).toBe('Service "web" is invalid: [spec.a: Invalid value: "a": bad, spec.b: Invalid value: "b": bad]');
    expect(first.reads()).toBe(1);
    expect(second.reads()).toBe(1);
  });

  it('keeps the message of repeated errors deduplicated while every cause stays', () => {
    const e = invalid(fieldPath('spec', 'a'), 'x', 'bad');
    const status = invalidError('Service', 'web', [e, e]).status;
    expect(status.message).toBe('Service "web" is invalid: spec.a: Invalid value: "x": bad');
    expect(status.details?.causes).toHaveLength(2);
  });
});

describe('goQuote', () => {
  it('quotes a 3,000,000-character ASCII value whole, as %q does', () => {
    const value = 'x'.repeat(3_000_000);
    const quoted = goQuote(value);
    expect(quoted.length).toBe(value.length + 2);
    expect(quoted === `"${value}"`).toBe(true);
  });

  it('agrees with a rune-by-rune strconv.Quote on any string (escapes, non-ASCII, lone surrogates)', () => {
    const pieces = fc.oneof(
      fc.string(),
      fc.constantFrom('"', '\\', '\n', '\t', '\x00', '\x7f', '\u00a0', 'é', '日本', '😀', '\ud800', '\udc00', '\u200b', '\ufeff'),
      fc.string({ unit: 'grapheme' }),
    );
    fc.assert(
      fc.property(fc.array(pieces, { maxLength: 12 }), (parts) => {
        const s = parts.join('');
        expect(goQuote(s)).toBe(quoteRuneByRune(s));
      }),
      { numRuns: 500, seed: 424242 },
    );
  });

  it('prints the escapes strconv.Quote prints', () => {
    expect(goQuote('a"b\\c\n\x01\x7f\u00a0é😀\ud800')).toBe('"a\\"b\\\\c\\n\\x01\\x7f\\u00a0é😀\ufffd"');
  });
});

import { describe, expect, test } from 'vitest';
import { quoteSaveString } from './save-quote.js';
import { tokenizeRestoreLine } from './tokenize.js';

function words(line: string): readonly string[] | string {
  const r = tokenizeRestoreLine(line);
  return r.ok ? r.value : r.error.message;
}

describe('iptables-restore word splitting', () => {
  test('spaces and tabs separate words; runs of them count once', () => {
    expect(words('-A  X\t-j   ACCEPT ')).toEqual(['-A', 'X', '-j', 'ACCEPT']);
  });

  test('a quoted part keeps its spaces; kube-proxy quotes comments with spaces', () => {
    expect(words('-m comment --comment "ns1/svc1:p80 cluster IP" -j X')).toEqual([
      '-m',
      'comment',
      '--comment',
      'ns1/svc1:p80 cluster IP',
      '-j',
      'X',
    ]);
  });

  test('inside quotes a backslash escapes the next character; outside it is literal', () => {
    expect(words(String.raw`"a \"b\" \\c 'd'"`)).toEqual([`a "b" \\c 'd'`]);
    expect(words(String.raw`a\b`)).toEqual([String.raw`a\b`]);
  });

  test('the closing quote ends the word, the opening one does not start a new word', () => {
    expect(words('"a"b"c"')).toEqual(['a', 'bc']);
    expect(words('x"y z"')).toEqual(['xy z']);
  });

  test('an empty quoted word is a word', () => {
    expect(words('--comment "" -j X')).toEqual(['--comment', '', '-j', 'X']);
  });

  test('single quotes are ordinary characters', () => {
    expect(words("'a b'")).toEqual(["'a", "b'"]);
  });

  test('an unterminated quote is refused', () => {
    expect(words('--comment "abc')).toBe('unterminated quoted argument');
  });
});

describe('iptables-save quoting of the comment', () => {
  test.each([
    ['abc_-A9', 'abc_-A9'],
    ['default/web:http', '"default/web:http"'],
    ['ns/s:p cluster IP', '"ns/s:p cluster IP"'],
    ['', '""'],
    [`quote"d \\back 'single'`, String.raw`"quote\"d \\back \'single\'"`],
  ])('%j is printed %s', (text, printed) => {
    expect(quoteSaveString(text)).toBe(printed);
  });

  test('the quoted form reads back to the same text', () => {
    for (const text of ['a b', `"'\\`, 'x:y/z', '', 'tab\there']) {
      expect(words(quoteSaveString(text))).toEqual([text]);
    }
  });
});

import { describe, expect, test } from 'vitest';
import { quoteSaveString } from './save-quote.js';
import { readRestoreLines, restoreWords, tokenizeRestoreLine, type RestoreDialect } from './tokenize.js';

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

/** The lines a reader of `dialect` looks at, as `number kind text`. */
function linesOf(text: string, dialect: RestoreDialect): string[] {
  return readRestoreLines(text, dialect).lines.map((l) => `${l.number} ${l.kind} ${l.text}`);
}

function wordsIn(line: string, dialect: RestoreDialect): readonly string[] | string {
  const r = restoreWords(line, dialect);
  return r.ok ? r.value : r.error.message;
}

describe('one reader, the two dialects where upstream\'s readers differ', () => {
  const text = '\n  \n*nat \n  # indented\n# comment\n :KUBE-X - [0:0]\n:KUBE-Y - [0:0]\t\n\t-A KUBE-Y -j ACCEPT\r\n COMMIT \n\n';

  test('iptables-restore: lines untrimmed and numbered as given; only a `#` in the first column is a comment', () => {
    expect(linesOf(text, 'iptables-restore')).toEqual([
      '3 table *nat ',
      '4 command   # indented',
      '6 command  :KUBE-X - [0:0]',
      '7 chain :KUBE-Y - [0:0]\t',
      '8 command \t-A KUBE-Y -j ACCEPT\r',
      '9 commit  COMMIT ',
    ]);
    expect(readRestoreLines(text, 'iptables-restore').count).toBe(11);
  });

  test('kube-proxy-test: the text\'s ends and every line trimmed, then `#` lines dropped', () => {
    expect(linesOf(text, 'kube-proxy-test')).toEqual([
      '1 table *nat',
      '4 chain :KUBE-X - [0:0]',
      '5 chain :KUBE-Y - [0:0]',
      '6 command -A KUBE-Y -j ACCEPT',
      '7 commit COMMIT',
    ]);
  });

  test('iptables-restore words: escapes in quotes, a quote splits a word, an unterminated quote is refused', () => {
    expect(wordsIn('a  "b c"d  e\\f', 'iptables-restore')).toEqual(['a', 'b c', 'd', 'e\\f']);
    expect(wordsIn(String.raw`"a\"b"`, 'iptables-restore')).toEqual(['a"b']);
    expect(wordsIn('a\u00a0b', 'iptables-restore')).toEqual(['a\u00a0b']);
    expect(wordsIn('x "y z', 'iptables-restore')).toBe('unterminated quoted argument');
  });

  test('kube-proxy-test words: parse.go\'s expression, quotes stripped at the ends, nothing refused', () => {
    // A second space starts a word with it; text glued after a closing quote is lost, and so
    // is an unterminated quoted part up to the next space; a quote inside a word stays; a
    // backslash escapes nothing; any Unicode space separates.
    expect(wordsIn('a  b', 'kube-proxy-test')).toEqual(['a', ' b']);
    expect(wordsIn('a "b c"d e', 'kube-proxy-test')).toEqual(['a', 'b c', 'e']);
    expect(wordsIn('a x"y" "z', 'kube-proxy-test')).toEqual(['a', 'x"y']);
    expect(wordsIn(String.raw`"a\"b"`, 'kube-proxy-test')).toEqual(['a\\']);
    expect(wordsIn('a\u00a0b', 'kube-proxy-test')).toEqual(['a', 'b']);
    expect(wordsIn('x "y z', 'kube-proxy-test')).toEqual(['x', 'z']);
  });

  test('both read kube-proxy\'s own lines the same', () => {
    const line = '-A KUBE-SERVICES -m comment --comment "ns1/svc1:p80 cluster IP" -m tcp -p tcp -d 172.30.0.41 --dport 80 -j KUBE-SVC-XPGD46QRK7WJZT7O';
    expect(wordsIn(line, 'kube-proxy-test')).toEqual(wordsIn(line, 'iptables-restore'));
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

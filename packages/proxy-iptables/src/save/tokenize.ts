// The one reader of iptables-restore text: its lines (readRestoreLines) and the words of a line
// (restoreWords), in the two dialects upstream reads it in:
// - 'iptables-restore', the tool's own reader (upstream: iptables iptables/iptables-restore.c,
//   ios_restore; iptables/xshared.c, add_param_to_argv): lines are numbered from 1 and not
//   trimmed; a line that is blank or starts with `#` is skipped. Spaces, tabs and newlines
//   separate words; a double quote opens a quoted part in which a backslash escapes the next
//   character; the closing quote ends the word (so `"a"b` is two words) and may end an empty
//   one (`""`). Outside quotes a backslash is an ordinary character. Single quotes are ordinary
//   characters too. An unterminated quote is refused.
// - 'kube-proxy-test', kube-proxy's test parser (upstream: pkg/util/iptables/testing/parse.go,
//   ParseIPTablesDump and ParseRule): leading blank space and newlines at either end of the text
//   go, every line is trimmed (strings.TrimSpace) and skipped when that leaves it empty or
//   starting with `#`. A word is what its regular expression `(?:^|\s)("[^"]*"|[^"]\S*)` finds,
//   with the double quotes at either end removed: no escapes, and nothing is ever refused.
// save/parse-restore.ts reads in the first dialect (for the restore model, the iptables-save
// view and the tracer's rulesetFromRestoreText); normalize-restore.ts in the second.

import { err, ok, type Ok, type Result } from '@kubesvc/api-types';

/** Which of upstream's two readers to read as (see the file's opening comment). */
export type RestoreDialect = 'iptables-restore' | 'kube-proxy-test';

/**
 * What a line is, by its first character (by the whole line for COMMIT): readers check the
 * rest of it themselves, each with its own messages.
 */
export type RestoreLineKind = 'table' | 'chain' | 'commit' | 'command';

/** A line that is not skipped. */
export interface RestoreLine {
  /** 1-based, counted in the text as given (the kube-proxy-test dialect counts after its trimming of the text's ends). */
  readonly number: number;
  /** The line as the dialect reads it: untrimmed for iptables-restore, trimmed for kube-proxy-test. */
  readonly text: string;
  readonly kind: RestoreLineKind;
}

export interface RestoreLines {
  readonly lines: readonly RestoreLine[];
  /** How many lines the text has, skipped ones included (an iptables-restore message at the end names the last). */
  readonly count: number;
}

const TEST_TEXT_ENDS = /^\n+|\n+$/g;

/** The lines of a text that a reader of `dialect` looks at, in order. */
export function readRestoreLines(text: string, dialect: RestoreDialect): RestoreLines {
  const test = dialect === 'kube-proxy-test';
  const raws = (test ? text.replace(/^[ \t\n]+/, '').replace(TEST_TEXT_ENDS, '') : text).split('\n');
  const lines: RestoreLine[] = [];
  for (let index = 0; index < raws.length; index++) {
    const raw = raws[index] ?? '';
    const trimmed = raw.trim();
    if (trimmed === '' || (test ? trimmed : raw).startsWith('#')) continue;
    const line = test ? trimmed : raw;
    lines.push({ number: index + 1, text: line, kind: lineKind(line, trimmed) });
  }
  return { lines, count: raws.length };
}

function lineKind(line: string, trimmed: string): RestoreLineKind {
  if (line.startsWith('*')) return 'table';
  if (trimmed === 'COMMIT') return 'commit';
  if (line.startsWith(':')) return 'chain';
  return 'command';
}

/** A line the tokenizer refuses; the restore parser reports it as an ErrIptablesRestore with its line. */
export interface ErrRestoreTokenize {
  readonly _tag: 'ErrRestoreTokenize';
  readonly message: string;
}

/** The words of the line. */
export type TokenizeResult = Result<readonly string[], ErrRestoreTokenize>;

/** The words of one line as a reader of `dialect` splits them (the kube-proxy-test dialect refuses nothing). */
export function restoreWords(line: string, dialect: 'kube-proxy-test'): Ok<readonly string[]>;
export function restoreWords(line: string, dialect: RestoreDialect): TokenizeResult;
export function restoreWords(line: string, dialect: RestoreDialect): TokenizeResult {
  return dialect === 'iptables-restore' ? tokenizeRestoreLine(line) : ok(testWords(line));
}

/**
 * The words of one line, as iptables-restore splits them. An unterminated quote is refused
 * (iptables-restore would take the rest of the line, newline included, as the word).
 */
export function tokenizeRestoreLine(line: string): TokenizeResult {
  const words: string[] = [];
  let word = '';
  let inWord = false;
  let quoteOpen = false;
  let escaped = false;
  for (const ch of line) {
    if (quoteOpen) {
      if (escaped) {
        word += ch;
        escaped = false;
      } else if (ch === '\\') {
        escaped = true;
      } else if (ch === '"') {
        quoteOpen = false;
        words.push(word);
        word = '';
        inWord = false;
      } else {
        word += ch;
      }
      continue;
    }
    if (ch === '"') {
      quoteOpen = true;
      inWord = true;
      continue;
    }
    if (ch === ' ' || ch === '\t' || ch === '\n') {
      if (inWord) {
        words.push(word);
        word = '';
        inWord = false;
      }
      continue;
    }
    word += ch;
    inWord = true;
  }
  if (quoteOpen) return err({ _tag: 'ErrRestoreTokenize', message: 'unterminated quoted argument' });
  if (inWord) words.push(word);
  return ok(words);
}

const TEST_WORD = /(?:^|\s)("[^"]*"|[^"]\S*)/g;
const TEST_QUOTES = /^"+|"+$/g;

/** The words of a rule as kube-proxy's test parser splits them (a quoted string is one word). */
function testWords(line: string): string[] {
  const words: string[] = [];
  for (const match of line.matchAll(TEST_WORD)) words.push((match[1] ?? '').replace(TEST_QUOTES, ''));
  return words;
}

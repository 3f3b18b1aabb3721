// Splitting an iptables-restore rule line into arguments, as iptables-restore does: spaces,
// tabs and newlines separate words; a double quote opens a quoted part in which a backslash
// escapes the next character; the closing quote ends the word (so `"a"b` is two words) and
// may end an empty one (`""`). Outside quotes a backslash is an ordinary character. Single
// quotes are ordinary characters too.
// upstream: iptables iptables/xshared.c (add_param_to_argv).

import { err, ok, type Result } from '@kubesvc/api-types';

/** A line the tokenizer refuses; the restore parser reports it as an ErrIptablesRestore with its line. */
export interface ErrRestoreTokenize {
  readonly _tag: 'ErrRestoreTokenize';
  readonly message: string;
}

/** The words of the line. */
export type TokenizeResult = Result<readonly string[], ErrRestoreTokenize>;

/**
 * The words of one line. An unterminated quote is refused (iptables-restore would take the
 * rest of the line, newline included, as the word).
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

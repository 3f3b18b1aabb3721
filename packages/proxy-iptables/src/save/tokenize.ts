// Splitting an iptables-restore rule line into arguments, as iptables-restore does: spaces,
// tabs and newlines separate words; a double quote opens a quoted part in which a backslash
// escapes the next character; the closing quote ends the word (so `"a"b` is two words) and
// may end an empty one (`""`). Outside quotes a backslash is an ordinary character. Single
// quotes are ordinary characters too.
// upstream: iptables iptables/xshared.c (add_param_to_argv).

export type TokenizeResult =
  | { readonly ok: true; readonly words: readonly string[] }
  | { readonly ok: false; readonly message: string };

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
  if (quoteOpen) return { ok: false, message: 'unterminated quoted argument' };
  if (inWord) words.push(word);
  return { ok: true, words };
}

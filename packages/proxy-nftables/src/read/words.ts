// What both readers share: their error value, and the words of an nft text. nft's grammar
// (and knftables' writer) puts spaces between words; `{`, `}`, `;` and `,` are words of their
// own even without spaces around them (nft lists `policy accept;` and `{ 10.0.0.1, 10.0.0.2 }`),
// and a double-quoted string (a comment) is one word with its quotes, as Go's %q writes it
// (backslash escapes).

import { err, type Err, type Result } from '@kubesvc/api-types';

/** Why a text could not be read: `line` is the 1-based line at fault. */
export interface ErrNftParse {
  readonly _tag: 'ErrNftParse';
  readonly message: string;
  readonly line: number;
}

export type ParseResult<T> = Result<T, ErrNftParse>;

export function parseError(line: number, message: string): Err<ErrNftParse> {
  return err({ _tag: 'ErrNftParse', message: `line ${line}: ${message}`, line });
}

/** A word, or a quoted string (`quoted`, its text unescaped in `text`). */
export interface Word {
  readonly text: string;
  readonly quoted: boolean;
}

const PUNCTUATION = new Set(['{', '}', ';', ',']);

/** The words of `text`, or why not (an unterminated string). */
export function words(text: string): Word[] | string {
  const out: Word[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text.charAt(i);
    if (c === ' ' || c === '\t') {
      i++;
      continue;
    }
    if (c === '"') {
      let value = '';
      let j = i + 1;
      for (;;) {
        if (j >= text.length) return `unterminated string ${text.slice(i)}`;
        const d = text.charAt(j);
        if (d === '"') break;
        if (d === '\\' && j + 1 < text.length) {
          value += text.charAt(j + 1);
          j += 2;
          continue;
        }
        value += d;
        j++;
      }
      out.push({ text: value, quoted: true });
      i = j + 1;
      continue;
    }
    if (PUNCTUATION.has(c)) {
      out.push({ text: c, quoted: false });
      i++;
      continue;
    }
    let j = i;
    while (j < text.length) {
      const d = text.charAt(j);
      if (d === ' ' || d === '\t' || d === '"' || PUNCTUATION.has(d)) break;
      j++;
    }
    out.push({ text: text.slice(i, j), quoted: false });
    i = j;
  }
  return out;
}

/** Go's %q of a plain comment: the text in double quotes, `"` and `\` escaped. */
export function quote(text: string): string {
  return `"${text.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

/**
 * The statements of a `{ a b ; c d ; }` body whose `{` is at `start`: each statement's words,
 * and the index after the closing `}`; or why not.
 */
export function braceStatements(ws: readonly Word[], start: number): { readonly statements: Word[][]; readonly next: number } | string {
  const open = ws[start];
  if (open === undefined || open.quoted || open.text !== '{') return 'expected {';
  const statements: Word[][] = [];
  let current: Word[] = [];
  for (let i = start + 1; i < ws.length; i++) {
    const w = ws[i];
    if (w === undefined) break;
    if (!w.quoted && w.text === '}') {
      if (current.length > 0) statements.push(current);
      return { statements, next: i + 1 };
    }
    if (!w.quoted && w.text === ';') {
      if (current.length > 0) statements.push(current);
      current = [];
      continue;
    }
    current.push(w);
  }
  return 'missing }';
}

/** Words as text again, a quoted one in quotes. */
export function joinWords(ws: readonly Word[]): string {
  return ws.map((w) => (w.quoted ? quote(w.text) : w.text)).join(' ');
}

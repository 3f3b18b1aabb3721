// A stream of JSON texts, one after another (`{...}{...}` or one per line), as kubectl
// accepts in a file. Each text is returned with where it started, so that errors can
// name the document.

import { err, ok, type Result, type TaggedError } from '../result.js';

/** A JSON text that JSON.parse refused: its message, and where the text started. */
export interface ErrJSON extends TaggedError<'ErrJSON'> {
  readonly offset: number;
}

export type JsonDocument = Result<{ readonly value: unknown; readonly offset: number }, ErrJSON>;

/** The end (exclusive) of the JSON value that starts at `start`, found by bracket depth. */
function valueEnd(text: string, start: number): number {
  const open = text[start];
  if (open !== '{' && open !== '[') {
    // A scalar runs to the next whitespace.
    let i = start;
    while (i < text.length && !/\s/.test(text.charAt(i))) i++;
    return i;
  }
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charAt(i);
    if (inString) {
      if (c === '\\') i++;
      else if (c === '"') inString = false;
    } else if (c === '"') inString = true;
    else if (c === '{' || c === '[') depth++;
    else if (c === '}' || c === ']') {
      depth--;
      if (depth === 0) return i + 1;
    }
  }
  return text.length;
}

export function splitJsonStream(text: string): JsonDocument[] {
  const out: JsonDocument[] = [];
  let i = 0;
  for (;;) {
    while (i < text.length && /\s/.test(text.charAt(i))) i++;
    if (i >= text.length) return out;
    const end = valueEnd(text, i);
    const chunk = text.slice(i, end);
    try {
      out.push(ok({ value: JSON.parse(chunk) as unknown, offset: i }));
    } catch (e) {
      out.push(err({ _tag: 'ErrJSON', message: e instanceof Error ? e.message : String(e), offset: i }));
    }
    i = end;
  }
}

/** 1-based line and column of an offset, for error messages. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = 0; i < offset && i < text.length; i++) {
    if (text[i] === '\n') {
      line++;
      lineStart = i + 1;
    }
  }
  return { line, column: offset - lineStart + 1 };
}

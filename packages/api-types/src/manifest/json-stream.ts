// A stream of JSON texts, one after another (`{...}{...}` or one per line), as kubectl
// accepts in a file. Each text is returned with where it started, so that errors can
// name the document.

export type JsonDocument =
  | { readonly ok: true; readonly value: unknown; readonly offset: number }
  | { readonly ok: false; readonly error: string; readonly offset: number };

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
      out.push({ ok: true, value: JSON.parse(chunk) as unknown, offset: i });
    } catch (e) {
      out.push({ ok: false, error: e instanceof Error ? e.message : String(e), offset: i });
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

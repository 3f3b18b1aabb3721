// Go's encoding/json syntax error messages, which kube-apiserver puts in its 400 for a body
// that is not JSON. JSON.parse tells us only that the text is bad; this scanner finds the
// first offending byte and names it as Go's scanner does, including its nesting limit: the
// scanner refuses the 10,001st open bracket with "exceeded max depth", so a body nested
// deeper than that is a syntax error to Go even where JSON.parse would take it.
// upstream: go/src/encoding/json/scanner.go (the step functions' error texts, quoteChar,
//           maxNestingDepth, pushParseState)
//
// The scanner keeps its own stack of open containers instead of recursing, so it runs in
// constant call-stack depth however deep the text nests.

/** encoding/json's maxNestingDepth: the deepest nesting json.Unmarshal accepts. */
export const GO_JSON_MAX_NESTING_DEPTH = 10000;

function quoteChar(c: string): string {
  if (c === "'") return `'\\''`;
  if (c === '"') return `'"'`;
  const quoted = JSON.stringify(c);
  return `'${quoted.slice(1, -1)}'`;
}

class SyntaxError_ {
  constructor(readonly message: string) {}
}

const WS = new Set([' ', '\t', '\n', '\r']);

/** The message Go's json.Unmarshal gives for `text`, or undefined when it is valid JSON Go accepts. */
export function goJSONSyntaxError(text: string): string | undefined {
  let i = 0;
  const eof = (): never => {
    throw new SyntaxError_('unexpected end of JSON input');
  };
  const bad = (context: string): never => {
    throw new SyntaxError_(`invalid character ${quoteChar(text[i] ?? '')} ${context}`);
  };
  const skip = (): void => {
    while (i < text.length && WS.has(text[i] ?? '')) i++;
  };
  const skipToNonSpace = (): void => {
    skip();
    if (i >= text.length) eof();
  };
  const literal = (word: string): void => {
    for (let k = 1; k < word.length; k++) {
      i++;
      if (i >= text.length) eof();
      if (text[i] !== word[k]) bad(`in literal ${word} (expecting ${quoteChar(word[k] ?? '')})`);
    }
    i++;
  };
  const digits = (): number => {
    const start = i;
    while (i < text.length && (text[i] ?? '') >= '0' && (text[i] ?? '') <= '9') i++;
    return i - start;
  };
  const number = (): void => {
    if (text[i] === '-') {
      i++;
      if (i >= text.length) eof();
      if (!((text[i] ?? '') >= '0' && (text[i] ?? '') <= '9')) bad('in numeric literal');
    }
    if (text[i] === '0') i++;
    else digits();
    if (text[i] === '.') {
      i++;
      if (i >= text.length) eof();
      if (digits() === 0) bad('after decimal point in numeric literal');
    }
    if (text[i] === 'e' || text[i] === 'E') {
      i++;
      if (text[i] === '+' || text[i] === '-') i++;
      if (i >= text.length) eof();
      if (digits() === 0) bad('in exponent of numeric literal');
    }
  };
  const string = (): void => {
    i++; // opening quote
    for (;;) {
      if (i >= text.length) eof();
      const c = text[i] ?? '';
      if (c === '"') {
        i++;
        return;
      }
      if (c === '\\') {
        i++;
        if (i >= text.length) eof();
        const e = text[i] ?? '';
        if (e === 'u') {
          for (let k = 0; k < 4; k++) {
            i++;
            if (i >= text.length) eof();
            if (!/[0-9a-fA-F]/.test(text[i] ?? '')) bad('in \\u hexadecimal character escape');
          }
        } else if (!'"\\/bfnrt'.includes(e)) {
          bad('in string escape code');
        }
        i++;
        continue;
      }
      if (c < ' ') bad('in string literal');
      i++;
    }
  };
  /** An object key and its colon, with `i` at the key's opening quote (or what stands there). */
  const key = (): void => {
    if (text[i] !== '"') bad('looking for beginning of object key string');
    string();
    skipToNonSpace();
    if (text[i] !== ':') bad('after object key');
    i++;
  };
  // The open containers, innermost last: '{' or '['.
  const open: string[] = [];
  const push = (c: string): void => {
    if (open.length >= GO_JSON_MAX_NESTING_DEPTH) bad('exceeded max depth');
    open.push(c);
    i++;
  };
  try {
    value: for (;;) {
      // At the start of a value.
      skipToNonSpace();
      const c = text[i] ?? '';
      if (c === '{' || c === '[') {
        push(c);
        skipToNonSpace();
        const close = c === '{' ? '}' : ']';
        if (text[i] === close) {
          i++;
          open.pop();
        } else {
          if (c === '{') key();
          continue value;
        }
      } else if (c === '"') string();
      else if (c === '-' || (c >= '0' && c <= '9')) number();
      else if (c === 't') literal('true');
      else if (c === 'f') literal('false');
      else if (c === 'n') literal('null');
      else bad('looking for beginning of value');
      // After a complete value: close containers until one takes a next element.
      for (;;) {
        const inner = open[open.length - 1];
        if (inner === undefined) {
          skip();
          if (i < text.length) bad('after top-level value');
          return undefined;
        }
        skipToNonSpace();
        const next = text[i];
        if (next === ',') {
          i++;
          if (inner === '{') {
            skipToNonSpace();
            key();
          }
          continue value;
        }
        if (next === (inner === '{' ? '}' : ']')) {
          i++;
          open.pop();
          continue;
        }
        bad(inner === '{' ? 'after object key:value pair' : 'after array element');
      }
    }
  } catch (e) {
    if (e instanceof SyntaxError_) return e.message;
    throw e;
  }
}

// Go's encoding/json syntax error messages, which kube-apiserver puts in its 400 for a body
// that is not JSON. JSON.parse tells us only that the text is bad; this scanner finds the
// first offending byte and names it as Go's scanner does.
// upstream: go/src/encoding/json/scanner.go (the step functions' error texts, quoteChar,
//           maxNestingDepth and "exceeded max depth")

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

/** encoding/json's maxNestingDepth: a value nested deeper is a syntax error. */
export const GO_JSON_MAX_NESTING_DEPTH = 10_000;

/**
 * The message Go's json.Unmarshal gives for `text`, or undefined when it is valid JSON
 * (nesting deeper than `maxDepth` is an error, as Go's scanner makes it).
 */
export function goJSONSyntaxError(text: string, maxDepth: number = GO_JSON_MAX_NESTING_DEPTH): string | undefined {
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
  // Go's scanner keeps a stack of the containers it is in, not the call stack: a body nested
  // 10,000 deep is scanned without recursion, and the level past maxNestingDepth is an error.
  const IN_ARRAY = 0;
  const IN_OBJECT = 1;
  const open: number[] = [];
  const objectKey = (): void => {
    skip();
    if (i >= text.length) eof();
    if (text[i] !== '"') bad('looking for beginning of object key string');
    string();
    skip();
    if (i >= text.length) eof();
    if (text[i] !== ':') bad('after object key');
    i++;
  };
  /** Scans one value's start: a scalar whole, or a container's opening (true: a value follows). */
  const valueStart = (): boolean => {
    skip();
    if (i >= text.length) eof();
    const c = text[i] ?? '';
    if (c === '{' || c === '[') {
      if (open.length + 1 > maxDepth) bad('exceeded max depth');
      i++;
      skip();
      if (i >= text.length) eof();
      if (text[i] === (c === '{' ? '}' : ']')) {
        i++;
        return false;
      }
      if (c === '{') objectKey();
      open.push(c === '{' ? IN_OBJECT : IN_ARRAY);
      return true;
    }
    if (c === '"') string();
    else if (c === '-' || (c >= '0' && c <= '9')) number();
    else if (c === 't') literal('true');
    else if (c === 'f') literal('false');
    else if (c === 'n') literal('null');
    else bad('looking for beginning of value');
    return false;
  };
  const value = (): void => {
    for (;;) {
      if (valueStart()) continue;
      // After a complete value: close containers until one wants another element.
      let more = false;
      while (open.length > 0 && !more) {
        skip();
        if (i >= text.length) eof();
        const inArray = open[open.length - 1] === IN_ARRAY;
        if (text[i] === ',') {
          i++;
          if (!inArray) objectKey();
          more = true;
        } else if (text[i] === (inArray ? ']' : '}')) {
          i++;
          open.pop();
        } else {
          bad(inArray ? 'after array element' : 'after object key:value pair');
        }
      }
      if (!more) return;
    }
  };
  try {
    value();
    skip();
    if (i < text.length) bad('after top-level value');
    return undefined;
  } catch (e) {
    if (e instanceof SyntaxError_) return e.message;
    throw e;
  }
}

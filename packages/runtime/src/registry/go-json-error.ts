// Go's encoding/json syntax error messages, which kube-apiserver puts in its 400 for a body
// that is not JSON. JSON.parse tells us only that the text is bad; this scanner finds the
// first offending byte and names it as Go's scanner does.
// upstream: go/src/encoding/json/scanner.go (the step functions' error texts, quoteChar)

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

/** The message Go's json.Unmarshal gives for `text`, or undefined when it is valid JSON. */
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
  const value = (): void => {
    skip();
    if (i >= text.length) eof();
    const c = text[i] ?? '';
    if (c === '{') {
      i++;
      skip();
      if (i >= text.length) eof();
      if (text[i] === '}') {
        i++;
        return;
      }
      for (;;) {
        skip();
        if (i >= text.length) eof();
        if (text[i] !== '"') bad('looking for beginning of object key string');
        string();
        skip();
        if (i >= text.length) eof();
        if (text[i] !== ':') bad('after object key');
        i++;
        value();
        skip();
        if (i >= text.length) eof();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return;
        }
        bad('after object key:value pair');
      }
    }
    if (c === '[') {
      i++;
      skip();
      if (i >= text.length) eof();
      if (text[i] === ']') {
        i++;
        return;
      }
      for (;;) {
        value();
        skip();
        if (i >= text.length) eof();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return;
        }
        bad('after array element');
      }
    }
    if (c === '"') return string();
    if (c === '-' || (c >= '0' && c <= '9')) return number();
    if (c === 't') return literal('true');
    if (c === 'f') return literal('false');
    if (c === 'n') return literal('null');
    bad('looking for beginning of value');
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

// How deep a JSON text nests, found by one pass over its characters (brackets inside strings do
// not count; the syntax is not checked). Go's decoder, and so kube-apiserver, refuses a value
// nested deeper than 10,000 levels; JSON.parse takes any depth, but JSON.stringify,
// structuredClone and recursive walkers overflow the call stack long before that, which would
// be a 500. A body is measured before it is parsed: within the limit its walkers are safe, past
// it the request gets Go's syntax error (goJSONSyntaxError names it).
// upstream: go/src/encoding/json/scanner.go (maxNestingDepth = 10000, "exceeded max depth")
import { GO_JSON_MAX_NESTING_DEPTH, goJSONSyntaxError } from './go-json-error.js';

export { GO_JSON_MAX_NESTING_DEPTH };

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACE = 0x7d;
const CLOSE_BRACKET = 0x5d;

/** The deepest nesting of objects and arrays in `text`: 0 for a scalar, 1 for `{}` or `[1]`. */
export function jsonNestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === BACKSLASH) i++;
      else if (c === QUOTE) inString = false;
    } else if (c === QUOTE) {
      inString = true;
    } else if (c === OPEN_BRACE || c === OPEN_BRACKET) {
      depth++;
      if (depth > max) max = depth;
    } else if ((c === CLOSE_BRACE || c === CLOSE_BRACKET) && depth > 0) {
      depth--;
    }
  }
  return max;
}

/**
 * Go's error for a text nested past the limit (or for an earlier syntax error, which Go's
 * scanner meets first), or undefined when `text` nests no deeper than `maxDepth`. Cheap when it
 * does not: one pass over the characters.
 */
export function checkJsonDepth(text: string, maxDepth: number = GO_JSON_MAX_NESTING_DEPTH): string | undefined {
  if (jsonNestingDepth(text) <= maxDepth) return undefined;
  return goJSONSyntaxError(text, maxDepth);
}

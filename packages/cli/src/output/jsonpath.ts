// `-o jsonpath=TEMPLATE`, as kubectl reads it: text with `{expression}`s, `{range EXPR}...{end}`
// loops and `{"literal"}` strings, each expression a JSONPath over the data `-o json` prints.
// Several results of one expression print separated by a space, strings as they are, other
// values as JSON; a missing field prints nothing (kubectl's --allow-missing-template-keys,
// on by default). The expressions themselves are evaluated by jsonpath-plus.
// upstream (v1.33): staging/src/k8s.io/client-go/util/jsonpath (parser.go, jsonpath.go),
//   staging/src/k8s.io/cli-runtime/pkg/printers/jsonpath.go
import { JSONPath } from 'jsonpath-plus';
import { usageError } from '../cli-error.js';

type Node =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'expr'; readonly path: string }
  | { readonly kind: 'range'; readonly path: string; readonly body: readonly Node[] };

/** A Go-quoted literal's text (`"\n"` is a newline). */
function unquote(literal: string, template: string): string {
  try {
    return JSON.parse(literal) as string;
  } catch {
    throw usageError(`error parsing jsonpath ${template}, invalid string literal ${literal}`);
  }
}

/** The template's nodes; `{range}` bodies nest up to their `{end}`. */
export function parseTemplate(template: string): readonly Node[] {
  const root: Node[] = [];
  const stack: { path: string; body: Node[] }[] = [];
  const current = (): Node[] => stack[stack.length - 1]?.body ?? root;
  let i = 0;
  while (i < template.length) {
    const open = template.indexOf('{', i);
    if (open < 0) {
      current().push({ kind: 'text', text: template.slice(i) });
      break;
    }
    if (open > i) current().push({ kind: 'text', text: template.slice(i, open) });
    // The closing brace, past any string literal inside the expression.
    let close = open + 1;
    let quote: string | undefined;
    for (; close < template.length; close++) {
      const c = template[close];
      if (quote !== undefined) {
        if (c === '\\') close++;
        else if (c === quote) quote = undefined;
      } else if (c === '"' || c === "'") quote = c;
      else if (c === '}') break;
    }
    if (close >= template.length) throw usageError(`error parsing jsonpath ${template}, unclosed action`);
    const inner = template.slice(open + 1, close).trim();
    i = close + 1;
    if (inner.startsWith('"')) current().push({ kind: 'text', text: unquote(inner, template) });
    else if (inner === 'end') {
      const done = stack.pop();
      if (done === undefined) throw usageError(`error parsing jsonpath ${template}, not in range, nothing to end`);
      current().push({ kind: 'range', path: done.path, body: done.body });
    } else if (inner.startsWith('range ')) stack.push({ path: inner.slice('range '.length).trim(), body: [] });
    else if (inner !== '') current().push({ kind: 'expr', path: inner });
  }
  if (stack.length > 0) throw usageError(`error parsing jsonpath ${template}, unclosed range`);
  return root;
}

/** kubectl's `.a.b[*]` (relative to the current value; `@` is the value itself) as a JSONPath. */
function toJsonPath(path: string): string {
  if (path === '@' || path === '.' || path === '$') return '$';
  if (path.startsWith('$')) return path;
  if (path.startsWith('@')) return `$${path.slice(1)}`;
  return path.startsWith('.') || path.startsWith('[') ? `$${path}` : `$.${path}`;
}

function evaluate(path: string, value: unknown): unknown[] {
  const json = value === undefined ? null : value;
  return JSONPath({ path: toJsonPath(path), json: json as object, wrap: true, eval: 'safe' }) as unknown[];
}

/** How kubectl prints one result: strings as they are, other values as JSON. */
function print(result: unknown): string {
  return typeof result === 'string' ? result : JSON.stringify(result);
}

function render(nodes: readonly Node[], value: unknown): string {
  let out = '';
  for (const node of nodes) {
    if (node.kind === 'text') out += node.text;
    else if (node.kind === 'expr') out += evaluate(node.path, value).map(print).join(' ');
    else for (const item of evaluate(node.path, value)) out += render(node.body, item);
  }
  return out;
}

/** The `-o jsonpath=` output for `data` (what `-o json` prints), without kubectl's added newline. */
export function renderJsonPath(template: string, data: unknown): string {
  return render(parseTemplate(template), data);
}

// Printing objects the way `kubectl get -o json` and `kubectl get -o yaml` do.
// upstream: staging/src/k8s.io/cli-runtime/pkg/printers/json.go (JSONPrinter: MarshalIndent
// with four spaces, then a newline) and yaml.go (YAMLPrinter: sigs.k8s.io/yaml, which
// emits through go-yaml v2).
import { Document } from 'yaml';
import type { KubeList, KubeObject } from '../objects/kinds.js';
import { compareCodePoints, compareYamlKeys } from './key-order.js';

export type Printable = KubeObject | KubeList | Readonly<Record<string, unknown>>;

/** A deep copy with every object's keys in `compare` order and undefined fields dropped. */
function sortKeysDeep(value: unknown, compare: (a: string, b: string) => number): unknown {
  if (Array.isArray(value)) return value.map((v) => sortKeysDeep(v, compare));
  if (value !== null && typeof value === 'object') {
    const out: Record<string, unknown> = {};
    for (const key of Object.keys(value).sort(compare)) {
      const v = (value as Record<string, unknown>)[key];
      if (v !== undefined) out[key] = sortKeysDeep(v, compare);
    }
    return out;
  }
  return value;
}

// Go's encoder escapes these even inside strings, to keep JSON safe to embed in HTML.
const GO_JSON_ESCAPES: Readonly<Record<string, string>> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
};

/** `kubectl get … -o json`: keys sorted, four-space indent, a final newline. */
export function printJSON(value: Printable): string {
  const text = JSON.stringify(sortKeysDeep(value, compareCodePoints), null, 4);
  return text.replace(/[<>&\u2028\u2029]/g, (c) => GO_JSON_ESCAPES[c] ?? c) + '\n';
}

function yamlDocument(value: unknown): Document {
  return new Document(value, {
    // YAML 1.1 decides which strings need quotes: go-yaml v2 quotes "yes", "on", "y",
    // timestamps and numbers so that they read back as strings.
    schema: 'yaml-1.1',
  });
}

const YAML_OPTIONS = {
  indent: 2,
  // go-yaml v2 writes a sequence at its parent key's indentation.
  indentSeq: false,
  // Long strings stay on one line; go-yaml folds plain strings after column 80
  // (docs/deviations.md).
  lineWidth: 0,
  minContentWidth: 0,
  defaultStringType: 'PLAIN',
  defaultKeyType: 'PLAIN',
} as const;

/** `kubectl get … -o yaml`: keys in go-yaml's order, sequences not indented. */
export function printYAML(value: Printable): string {
  return yamlDocument(sortKeysDeep(value, compareYamlKeys)).toString(YAML_OPTIONS);
}

/** Several objects as one multi-document YAML stream, each document opened by `---`. */
export function printYAMLDocuments(values: readonly Printable[]): string {
  return values.map((v) => '---\n' + printYAML(v)).join('');
}

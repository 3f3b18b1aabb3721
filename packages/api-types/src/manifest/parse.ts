// Reading manifests: multi-document YAML, streams of JSON, `kind: List` and typed lists
// (`ServiceList`), and the output of `kubectl get … -o json|yaml`, into typed objects.
//
// Decoding mirrors what the apiserver's decoder accepts, not what validation accepts:
// a port must be a number, but port 0 decodes (validation then reports it with
// upstream's text). Errors are values that name the document, the object and the field.
import { parseAllDocuments } from 'yaml';
import type { z } from 'zod';
import { isKnownKind, KINDS, ListEnvelopeSchema, type KubeObject } from '../objects/kinds.js';
import { err, ok, type Result, type TaggedError } from '../result.js';
import { DECLINE, fastParser } from './fast-parse.js';
import { lineColumn, splitJsonStream } from './json-stream.js';

export interface ManifestIssue {
  /** 1-based position of the document in the stream. */
  readonly document: number;
  /** Position in the document's `items` when the document is a list. */
  readonly item?: number;
  readonly kind?: string;
  readonly namespace?: string;
  readonly name?: string;
  /** The field, in upstream's path syntax (`spec.ports[0].port`). */
  readonly field?: string;
  readonly message: string;
}

export interface ParseManifestsOptions {
  /**
   * Tolerant mode, for cluster dumps: a document of a kind this project does not model
   * (a StatefulSet, a ConfigMap) is reported in `skipped` instead of as an error.
   */
  readonly tolerant?: boolean;
  /** 'auto' (default) reads JSON when the text starts with `{` or `[`, YAML otherwise. */
  readonly format?: 'auto' | 'json' | 'yaml';
}

/** What a manifest stream decoded to. */
export interface Manifests {
  /** The objects in stream order, lists flattened. */
  readonly objects: KubeObject[];
  /** Documents of kinds this project does not model, in tolerant mode. */
  readonly skipped: ManifestIssue[];
}

/**
 * A stream with at least one bad document. The documents that did decode are carried on the
 * error (`objects`, `skipped`), so a partly bad stream is still usable; `causes` lists every
 * problem, and `message` is them printed with formatManifestIssue, one a line.
 */
export interface ErrManifest extends TaggedError<'ErrManifest'>, Manifests {
  readonly causes: readonly ManifestIssue[];
}

export type ParseManifestsResult = Result<Manifests, ErrManifest>;

/**
 * One object that does not decode. `ErrNoKindMatch` is upstream's NoKindMatchError (a kind or
 * apiVersion this project does not model); `ErrDecode` is everything else. `causes` lists the
 * problems (several when several fields are wrong), and `message` is them as `field: message`,
 * one a line.
 */
export interface ErrDecode extends TaggedError<'ErrDecode' | 'ErrNoKindMatch'> {
  readonly causes: readonly Omit<ManifestIssue, 'document'>[];
}

export type DecodeObjectResult = Result<KubeObject, ErrDecode>;

/**
 * THE way to print a manifest error: `document 2, items[3] (Service default/web):
 * spec.ports[0].port: …`. ErrManifest's `message` is its causes printed with it, one a line.
 */
export function formatManifestIssue(issue: ManifestIssue): string {
  let where = `document ${issue.document}`;
  if (issue.item !== undefined) where += `, items[${issue.item}]`;
  if (issue.kind !== undefined || issue.name !== undefined) {
    const name = issue.namespace ? `${issue.namespace}/${issue.name ?? ''}` : (issue.name ?? '');
    where += ` (${[issue.kind, name].filter((s) => s).join(' ')})`;
  }
  return `${where}: ${issue.field ? issue.field + ': ' : ''}${issue.message}`;
}

type RawDocument = Result<unknown, TaggedError<'ErrSyntax'>>;

function syntaxError(message: string): RawDocument {
  return err({ _tag: 'ErrSyntax', message });
}

// YAML as kubectl reads it (go-yaml v2): YAML 1.1 scalars (`on`, `yes`, `0x1F`, `010`),
// merge keys, duplicate keys refused; timestamps stay strings, as sigs.k8s.io/yaml
// turns them back into JSON strings.
function yamlDocuments(text: string): RawDocument[] {
  const out: RawDocument[] = [];
  const docs = parseAllDocuments(text, {
    schema: 'yaml-1.1',
    merge: true,
    uniqueKeys: true,
    customTags: (tags) =>
      tags.filter((t) => (typeof t === 'string' ? t !== 'timestamp' : t.tag !== 'tag:yaml.org,2002:timestamp')),
  });
  const list = Array.isArray(docs) ? docs : [docs];
  for (const doc of list) {
    if (doc.errors.length > 0) {
      const [first] = doc.errors;
      const { line, column } = lineColumn(text, first?.pos[0] ?? 0);
      out.push(syntaxError(`YAML: line ${line}, column ${column}: ${first?.message.split('\n')[0] ?? ''}`));
      continue;
    }
    try {
      out.push(ok(doc.toJS({ maxAliasCount: 1000 }) as unknown));
    } catch (e) {
      out.push(syntaxError(`YAML: ${e instanceof Error ? e.message : String(e)}`));
    }
  }
  return out;
}

function jsonDocuments(text: string): RawDocument[] {
  return splitJsonStream(text).map((d): RawDocument => {
    if (d.ok) return ok(d.value.value);
    const { line, column } = lineColumn(text, d.error.offset);
    return syntaxError(`JSON: document starting at line ${line}, column ${column}: ${d.error.message}`);
  });
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

function jsonType(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'array';
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number';
  return typeof v;
}

function showValue(v: unknown): string {
  const type = jsonType(v);
  if (type === 'object' || type === 'array' || type === 'null') return type;
  return `${type} ${JSON.stringify(v)}`;
}

// The string-keyed maps of the modelled kinds: their keys print as `labels[app]`, as
// upstream's field.Path.Key does, while struct fields print as `.field`.
const MAP_FIELDS = new Set(['labels', 'annotations', 'selector', 'deprecatedTopology']);

function fieldPath(path: readonly PropertyKey[]): string {
  let out = '';
  let previous: PropertyKey | undefined;
  for (const p of path) {
    if (typeof p === 'number') out += `[${p}]`;
    else if (typeof previous === 'string' && MAP_FIELDS.has(previous)) out += `[${String(p)}]`;
    else out += (out ? '.' : '') + String(p);
    previous = p;
  }
  return out;
}

function valueAt(root: unknown, path: readonly PropertyKey[]): unknown {
  let v = root;
  for (const p of path) {
    if (v === null || typeof v !== 'object') return undefined;
    v = (v as Record<PropertyKey, unknown>)[p];
  }
  return v;
}

function issueMessage(issue: z.core.$ZodIssue, root: unknown): string {
  const actual = valueAt(root, issue.path);
  switch (issue.code) {
    case 'invalid_type':
      if (actual === undefined) return 'Required value';
      return `expected ${issue.expected === 'int' ? 'integer' : issue.expected}, got ${showValue(actual)}`;
    case 'invalid_union':
      return actual === undefined ? 'Required value' : `expected an integer or a string, got ${showValue(actual)}`;
    case 'too_big':
    case 'too_small':
      return `${showValue(actual)} is out of range for a 32-bit integer`;
    case 'invalid_format':
      return `expected ${issue.format} text, got ${showValue(actual)}`;
    case 'invalid_value':
      return `expected ${issue.values.map((v) => JSON.stringify(v)).join(' or ')}, got ${showValue(actual)}`;
    default:
      return issue.message;
  }
}

function decodeError(tag: ErrDecode['_tag'], causes: Omit<ManifestIssue, 'document'>[]): DecodeObjectResult {
  const message = causes.map((c) => `${c.field ? c.field + ': ' : ''}${c.message}`).join('\n');
  return err({ _tag: tag, message, causes });
}

function identity(raw: Record<string, unknown>): Pick<ManifestIssue, 'kind' | 'namespace' | 'name'> {
  const meta = isRecord(raw['metadata']) ? raw['metadata'] : {};
  const out: { kind?: string; namespace?: string; name?: string } = {};
  if (typeof raw['kind'] === 'string') out.kind = raw['kind'];
  if (typeof meta['namespace'] === 'string' && meta['namespace']) out.namespace = meta['namespace'];
  if (typeof meta['name'] === 'string') out.name = meta['name'];
  return out;
}

/** Each kind's quick parser (fast-parse.ts), made on first use; null where its schema has what it does not know. */
const quickParsers = new Map<string, ((value: unknown) => unknown) | null>();

function quickParser(kind: keyof typeof KINDS): ((value: unknown) => unknown) | undefined {
  let parser = quickParsers.get(kind);
  if (parser === undefined) {
    parser = fastParser(KINDS[kind].schema) ?? null;
    quickParsers.set(kind, parser);
  }
  return parser ?? undefined;
}

/**
 * Decodes one object, already parsed from JSON or YAML, into its typed form. A value the quick
 * parser accepts is what the schema's safeParse would give; anything else goes to the schema.
 */
export function decodeObject(raw: unknown): DecodeObjectResult {
  if (!isRecord(raw)) return decodeError('ErrDecode', [{ message: `expected an object, got ${jsonType(raw)}` }]);
  const id = identity(raw);
  // upstream: staging/src/k8s.io/apimachinery/pkg/runtime/serializer/json/meta.go and
  // runtime/error.go (missing kind), meta/restmapper.go (NoKindMatchError)
  if (typeof raw['kind'] !== 'string' || raw['kind'] === '') {
    return decodeError('ErrDecode', [{ ...id, message: `Object 'Kind' is missing in '${JSON.stringify(raw)}'` }]);
  }
  const kind = raw['kind'];
  const apiVersion = typeof raw['apiVersion'] === 'string' ? raw['apiVersion'] : '';
  if (apiVersion === '') {
    return decodeError('ErrDecode', [{ ...id, message: `Object 'apiVersion' is missing in '${JSON.stringify(raw)}'` }]);
  }
  if (!isKnownKind(kind) || KINDS[kind].apiVersion !== apiVersion) {
    return decodeError('ErrNoKindMatch', [{ ...id, message: `no matches for kind "${kind}" in version "${apiVersion}"` }]);
  }
  const quick = quickParser(kind)?.(raw);
  if (quick !== undefined && quick !== DECLINE) return ok(quick as KubeObject);
  const result = KINDS[kind].schema.safeParse(raw);
  if (result.success) return ok(result.data);
  return decodeError(
    'ErrDecode',
    result.error.issues.map((issue) => ({ ...id, field: fieldPath(issue.path), message: issueMessage(issue, raw) })),
  );
}

function looksLikeList(raw: Record<string, unknown>): boolean {
  return typeof raw['kind'] === 'string' && raw['kind'].endsWith('List') && 'items' in raw;
}

/**
 * Parses a manifest stream into typed objects. Never throws. Ok when every document decoded
 * (or, in tolerant mode, was skipped as an unmodelled kind); otherwise ErrManifest, which
 * still carries the objects that did decode.
 */
export function parseManifests(text: string, options: ParseManifestsOptions = {}): ParseManifestsResult {
  const format = options.format ?? 'auto';
  const json = format === 'json' || (format === 'auto' && /^\s*[[{]/.test(text));
  const documents = json ? jsonDocuments(text) : yamlDocuments(text);
  const objects: KubeObject[] = [];
  const errors: ManifestIssue[] = [];
  const skipped: ManifestIssue[] = [];

  const take = (raw: unknown, document: number, item?: number): void => {
    const decoded = decodeObject(raw);
    const at = item === undefined ? { document } : { document, item };
    if (decoded.ok) objects.push(decoded.value);
    else for (const issue of decoded.error.causes) (decoded.error._tag === 'ErrNoKindMatch' && options.tolerant ? skipped : errors).push({ ...at, ...issue });
  };

  documents.forEach((doc, i) => {
    const document = i + 1;
    if (!doc.ok) {
      errors.push({ document, message: doc.error.message });
      return;
    }
    // kubectl skips empty documents (`---` twice, a file of comments).
    if (doc.value === null || doc.value === undefined) return;
    if (isRecord(doc.value) && looksLikeList(doc.value)) {
      const envelope = ListEnvelopeSchema.safeParse(doc.value);
      if (!envelope.success) {
        for (const issue of envelope.error.issues) {
          errors.push({ document, kind: String(doc.value['kind']), field: fieldPath(issue.path), message: issueMessage(issue, doc.value) });
        }
        return;
      }
      // A typed list's items carry no apiVersion or kind: they are the list's.
      const itemKind = envelope.data.kind === 'List' ? undefined : envelope.data.kind.slice(0, -'List'.length);
      (envelope.data.items ?? []).forEach((item, index) => {
        const filled =
          itemKind !== undefined && isRecord(item) && item['kind'] === undefined
            ? { apiVersion: envelope.data.apiVersion, kind: itemKind, ...item }
            : item;
        take(filled, document, index);
      });
      return;
    }
    take(doc.value, document);
  });
  if (errors.length === 0) return ok({ objects, skipped });
  return err({ _tag: 'ErrManifest', message: errors.map(formatManifestIssue).join('\n'), causes: errors, objects, skipped });
}

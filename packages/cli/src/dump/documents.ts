// Where each object of a manifest stream came from: its document (1-based, as api-types'
// parseManifests counts them) and its position in a list. parseManifests returns the objects
// of the whole stream without positions, so the stream is cut into its documents and each is
// decoded alone. Pure; used by `validate` and `ips`, whose reports name each object's place.
import { parseManifests, type KubeObject, type ManifestIssue } from '@kubesvc/api-types';
import { isMap, parseAllDocuments } from 'yaml';

export interface PlacedObject {
  readonly object: KubeObject;
  /** 1-based; 0 when the place is not known. */
  readonly document: number;
  /** Position in the document's `items`, for a list. */
  readonly item?: number;
}

export interface PlacedManifests {
  readonly objects: readonly PlacedObject[];
  /** Problems, with the whole stream's document numbers and lines. */
  readonly errors: readonly ManifestIssue[];
  readonly skipped: readonly ManifestIssue[];
}

/** The end (exclusive) of the JSON value starting at `start`: bracket depth outside strings. */
function jsonValueEnd(text: string, start: number): number {
  const first = text.charAt(start);
  if (first !== '{' && first !== '[') {
    let i = start;
    while (i < text.length && !/\s/.test(text.charAt(i))) i++;
    return i;
  }
  let depth = 0;
  let quoted = false;
  for (let i = start; i < text.length; i++) {
    const c = text.charAt(i);
    if (quoted) {
      if (c === '\\') i++;
      else if (c === '"') quoted = false;
    } else if (c === '"') quoted = true;
    else if (c === '{' || c === '[') depth++;
    else if ((c === '}' || c === ']') && --depth === 0) return i + 1;
  }
  return text.length;
}

/** One document of a stream: its text, and whether it is a list (`kind: List`, `ServiceList`, ... with `items`). */
export interface DocumentText {
  readonly text: string;
  readonly list: boolean;
}

function isListValue(value: unknown): boolean {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const kind = (value as Record<string, unknown>)['kind'];
  return typeof kind === 'string' && kind.endsWith('List') && 'items' in value;
}

/** The documents of a stream, in the order and number parseManifests sees them. */
export function documentTexts(text: string): DocumentText[] {
  const out: DocumentText[] = [];
  if (/^\s*[[{]/.test(text)) {
    let i = 0;
    for (;;) {
      while (i < text.length && /\s/.test(text.charAt(i))) i++;
      if (i >= text.length) return out;
      const end = jsonValueEnd(text, i);
      const chunk = text.slice(i, end);
      let list = false;
      try {
        list = isListValue(JSON.parse(chunk));
      } catch {
        // A syntax error: parseManifests reports it.
      }
      out.push({ text: chunk, list });
      i = end;
    }
  }
  const docs = parseAllDocuments(text);
  for (const doc of Array.isArray(docs) ? docs : [docs]) {
    const kind = doc.errors.length === 0 && isMap(doc.contents) ? doc.get('kind') : undefined;
    const list = typeof kind === 'string' && kind.endsWith('List') && doc.has('items');
    out.push({ text: text.slice(doc.range[0], doc.range[2]), list });
  }
  return out;
}

/**
 * Decodes a stream with each object's place. Errors and skipped kinds come from one parse of
 * the whole stream, so their document numbers and line numbers are exact.
 */
export function placeObjects(text: string): PlacedManifests {
  const whole = parseManifests(text, { tolerant: true });
  const errors = whole.ok ? [] : whole.error.causes;
  const skipped = whole.ok ? whole.value.skipped : whole.error.skipped;
  const objects: PlacedObject[] = [];
  documentTexts(text).forEach((doc, index) => {
    const document = index + 1;
    const parsed = parseManifests(doc.text, { tolerant: true });
    const decoded = parsed.ok ? parsed.value.objects : parsed.error.objects;
    const issues = parsed.ok ? parsed.value.skipped : [...parsed.error.causes, ...parsed.error.skipped];
    if (!doc.list) {
      for (const object of decoded) objects.push({ object, document });
      return;
    }
    // A list: the decoded objects are its items without a problem, in order.
    const troubled = new Set(issues.map((i) => i.item).filter((i): i is number => i !== undefined));
    let item = 0;
    for (const object of decoded) {
      while (troubled.has(item)) item++;
      objects.push({ object, document, item });
      item++;
    }
  });
  // Should the cut ever disagree with the whole parse, keep the whole parse's objects, unplaced.
  const all = whole.ok ? whole.value.objects : whole.error.objects;
  if (objects.length !== all.length) return { objects: all.map((object) => ({ object, document: 0 })), errors, skipped };
  return { objects, errors, skipped };
}


// The fast way through a dump that is one JSON document (what `kubectl get -o json` writes).
// parseManifests splits a JSON stream by scanning every character for the end of each value
// before JSON.parse sees it; on an 88 MB dump that scan costs as much as JSON.parse itself.
// A text that JSON.parse takes whole is one document, so the scan can be skipped: this parses
// it once and decodes each object with api-types' own decodeObject, as parseManifests' loop
// does. Whenever the text is not one JSON document, or its envelope is not a list envelope,
// the answer is undefined and the caller uses parseManifests, which then also words every
// error. INV-CLI-FASTJSON checks that an answer is exactly parseManifests'. Pure.
import { decodeObject, ListEnvelopeSchema, type KubeObject, type Manifests, type ManifestIssue } from '@kubesvc/api-types';

function isRecord(v: unknown): v is Record<string, unknown> {
  return v !== null && typeof v === 'object' && !Array.isArray(v);
}

/**
 * The decoded objects and skipped kinds (tolerant mode) of a one-document JSON text in which
 * everything decodes, or undefined: another input, or one with a problem, for parseManifests.
 */
export function parseSingleJsonDocument(text: string): Manifests | undefined {
  if (!/^\s*[[{]/.test(text)) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (!isRecord(value)) return undefined;
  const objects: KubeObject[] = [];
  const skipped: ManifestIssue[] = [];
  // upstream of the rules below: api-types' parseManifests (src/manifest/parse.ts), whose list
  // handling this follows: a `*List` kind with `items` is a list; a typed list's items take its
  // apiVersion and kind when they carry none.
  const take = (raw: unknown, item?: number): boolean => {
    const decoded = decodeObject(raw);
    if (decoded.ok) {
      objects.push(decoded.value);
      return true;
    }
    if (decoded.error._tag !== 'ErrNoKindMatch') return false;
    for (const cause of decoded.error.causes) skipped.push({ document: 1, ...(item === undefined ? {} : { item }), ...cause });
    return true;
  };
  const kind = value['kind'];
  if (typeof kind === 'string' && kind.endsWith('List') && 'items' in value) {
    const envelope = ListEnvelopeSchema.safeParse(value);
    if (!envelope.success) return undefined;
    const itemKind = envelope.data.kind === 'List' ? undefined : envelope.data.kind.slice(0, -'List'.length);
    const items = envelope.data.items ?? [];
    for (let index = 0; index < items.length; index++) {
      const raw = items[index];
      const filled = itemKind !== undefined && isRecord(raw) && raw['kind'] === undefined ? { apiVersion: envelope.data.apiVersion, kind: itemKind, ...raw } : raw;
      if (!take(filled, index)) return undefined;
    }
    return { objects, skipped };
  }
  return take(value) ? { objects, skipped } : undefined;
}

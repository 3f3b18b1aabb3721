// How an object sits in the store, shared by the registry, the informers and the API's watch:
// the value is the object's JSON without its resourceVersion, and the resourceVersion a reader
// sees is the key's modRevision.
// upstream: staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (PrepareObjectForStorage on
//           write; UpdateObject with the KeyValue's ModRevision on read)
import type { KubeObject, ObjectMeta } from '@kubesvc/api-types';
import type { KeyValue } from '@kubesvc/store';

function metaOf(object: KubeObject): ObjectMeta {
  return (object as { metadata?: ObjectMeta }).metadata ?? {};
}

/** The stored value: the object's JSON without metadata.resourceVersion. */
export function serializeObject(object: KubeObject): string {
  const { resourceVersion: _rv, ...meta } = metaOf(object);
  return JSON.stringify({ ...object, metadata: meta });
}

/** The object a reader sees: the stored JSON with resourceVersion set to the key's modRevision. */
export function deserializeObject<T extends KubeObject>(kv: Pick<KeyValue, 'value' | 'modRevision'>): T {
  const object = JSON.parse(kv.value) as T;
  return { ...object, metadata: { ...metaOf(object), resourceVersion: String(kv.modRevision) } } as T;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = 0x7b;
const CLOSE = 0x7d;
const OPEN_LIST = 0x5b;
const CLOSE_LIST = 0x5d;
const COMMA = 0x2c;

/** The index of the quote that closes the JSON string opening at `start`. */
function stringEnd(text: string, start: number): number {
  for (let i = start + 1; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
  return -1;
}

/**
 * The position of `"key":` among the members of the object whose `{` is at `open`, and of that
 * object's `}`; -1 for what is not there. Only the object's own members count, not those of
 * objects inside it. With `stopAtMember`, the scan ends at the member (its close is then -1):
 * the rest of the object need not be read.
 */
function scanMembers(text: string, open: number, key: string, stopAtMember = false): { readonly member: number; readonly close: number } {
  const wanted = `"${key}":`;
  let depth = 0;
  let expectKey = false;
  let member = -1;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      if (depth === 1 && expectKey && member < 0 && text.startsWith(wanted, i)) {
        member = i;
        if (stopAtMember) return { member, close: -1 };
      }
      i = stringEnd(text, i);
      if (i < 0) return { member: -1, close: -1 };
      expectKey = false;
    } else if (c === OPEN || c === OPEN_LIST) {
      depth++;
      expectKey = depth === 1;
    } else if (c === CLOSE || c === CLOSE_LIST) {
      depth--;
      if (depth === 0) return { member, close: i };
    } else if (c === COMMA) {
      expectKey = depth === 1;
    }
  }
  return { member: -1, close: -1 };
}

/**
 * JSON.stringify(deserializeObject(kv)) without building the object: the stored text (which
 * JSON.stringify wrote, so it is in that canonical form) with `"resourceVersion":"<rev>"`
 * added as the last member of its metadata, where the spread in deserializeObject puts it.
 * A list of 10,000 Services is mostly this: parsing each object only to write it out again
 * cost more than reading it from the store. Falls back to parse-and-stringify for a value whose
 * metadata already names a resourceVersion (its place would differ) or that has no metadata
 * object.
 */
export function serializedForReader(kv: Pick<KeyValue, 'value' | 'modRevision'>): string {
  const text = kv.value;
  const top = text.charCodeAt(0) === OPEN ? scanMembers(text, 0, 'metadata', true) : undefined;
  const open = top === undefined || top.member < 0 ? -1 : top.member + '"metadata":'.length;
  if (open >= 0 && text.charCodeAt(open) === OPEN) {
    const meta = scanMembers(text, open, 'resourceVersion');
    if (meta.close > 0 && meta.member < 0) {
      const rv = `"resourceVersion":"${kv.modRevision}"`;
      return `${text.slice(0, meta.close)}${meta.close === open + 1 ? '' : ','}${rv}${text.slice(meta.close)}`;
    }
  }
  return JSON.stringify(deserializeObject(kv));
}

/**
 * serializedForReader's texts by key, each with the modRevision it is of: a key has one value
 * at each revision it was written at, so a text of the revision asked for is never stale, and a
 * list of the same objects again (a client's relist, kubectl get) splices each one once. One
 * text per key (the last asked for); the oldest go first once the texts exceed the budget, and
 * larger texts are not kept.
 */
export class ReaderTextCache {
  private readonly texts = new Map<string, { readonly modRevision: number; readonly text: string }>();
  private chars = 0;

  constructor(
    private readonly budgetChars = 32 * 1024 * 1024,
    private readonly maxTextChars = 16 * 1024,
  ) {}

  /** The characters of the texts kept. */
  get heldChars(): number {
    return this.chars;
  }

  /** serializedForReader(kv), from the cache or spliced and kept. */
  text(kv: Pick<KeyValue, 'key' | 'value' | 'modRevision'>): string {
    const cached = this.texts.get(kv.key);
    if (cached !== undefined && cached.modRevision === kv.modRevision) return cached.text;
    const text = serializedForReader(kv);
    if (cached !== undefined) {
      this.texts.delete(kv.key);
      this.chars -= cached.text.length;
    }
    if (text.length <= this.maxTextChars) {
      this.texts.set(kv.key, { modRevision: kv.modRevision, text });
      this.chars += text.length;
      if (this.chars > this.budgetChars) {
        for (const [oldest, t] of this.texts) {
          this.texts.delete(oldest);
          this.chars -= t.text.length;
          if (this.chars <= this.budgetChars) break;
        }
      }
    }
    return text;
  }
}

// list: a page of objects in key order at one revision, as objects (list) or as the JSON
// text the API sends (listJson); continue tokens resume at the same revision.
// upstream: staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (GetList)
import { err, ok, type KubeObject } from '@kubesvc/api-types';
import { listFailure } from '../common.js';
import { encodeContinue, resumePoint } from '../continue-token.js';
import type { RegistryCore } from '../core.js';
import { badRequestError } from '../errors.js';
import { listPrefix, RESOURCES, type ResourceName } from '../resources.js';
import { deserializeObject } from '../stored-object.js';
import type { ListOptions, ObjectList, RegistryResult } from '../types.js';

/** A page of objects in key order, at one revision; `continue` resumes at that revision. */
export async function list<T extends KubeObject = KubeObject>(core: RegistryCore, resource: ResourceName, namespace?: string, options: ListOptions = {}): Promise<RegistryResult<ObjectList<T>>> {
  const info = RESOURCES[resource];
  const prefix = listPrefix(info, namespace);
  const resume = resumePoint(options.continue, prefix);
  if (resume === 'invalid') return err(badRequestError(`invalid continue token`));
  let { revision, start } = resume;
  const accept = options.predicate;
  try {
    const limit = options.limit ?? 0;
    const items: T[] = [];
    let more = false;
    let nextKey: string | undefined;
    // upstream etcd3 store GetList: with a predicate, read on (at the same revision) until the
    // page holds `limit` matching objects or the keys run out.
    for (;;) {
      const page = await core.store.range(prefix, {
        ...(limit > 0 ? { limit: accept === undefined ? limit : Math.max(limit, 64) } : {}),
        ...(start === undefined ? {} : { continueKey: start }),
        ...(revision === undefined ? {} : { revision }),
      });
      revision ??= page.revision;
      let cut = false;
      for (const [i, kv] of page.kvs.entries()) {
        const object = deserializeObject<T>(kv);
        if (accept !== undefined && !accept(object)) continue;
        items.push(object);
        if (limit > 0 && items.length >= limit) {
          cut = true;
          more = i < page.kvs.length - 1 || page.more;
          nextKey = `${kv.key}\u0000`;
          break;
        }
      }
      if (cut || !page.more) break;
      const last = page.kvs[page.kvs.length - 1];
      if (last === undefined) break;
      start = `${last.key}\u0000`;
    }
    const rv = revision;
    const metadata: { resourceVersion: string; continue?: string } = { resourceVersion: String(rv) };
    if (more && nextKey !== undefined) metadata.continue = encodeContinue(rv, nextKey, prefix);
    return ok({ apiVersion: info.apiVersion, kind: `${info.kind}List`, metadata, items });
  } catch (e) {
    return err(listFailure(e, options.continue));
  }
}

/**
 * The characters of one part of listJsonParts (at most one object more): below V8's largest
 * ordinary heap object (128 KiB), so that a part is made in the young generation, whose pages
 * are used again and again, and not as a large object with fresh pages of its own.
 */
const LIST_PART_CHARS = 48 * 1024;

/**
 * The JSON text of what list() returns without a predicate, in parts to be sent one after the
 * other (their concatenation is the text), written from the stored values without parsing them
 * (serializedForReader, through the registry's ReaderTextCache): the API's plain list, where
 * every object would be parsed only to be written out again. A 10,000-Service list is 5.5 MB:
 * as one string, and again as the bytes sent, it was 11 MB of fresh memory per list.
 */
export async function listJsonParts(core: RegistryCore, resource: ResourceName, namespace?: string, options: Omit<ListOptions, 'predicate'> = {}): Promise<RegistryResult<readonly string[]>> {
  const info = RESOURCES[resource];
  const prefix = listPrefix(info, namespace);
  const resume = resumePoint(options.continue, prefix);
  if (resume === 'invalid') return err(badRequestError(`invalid continue token`));
  const { revision, start } = resume;
  try {
    // Without a predicate, one read is the page (list() reads on only to fill a filtered page).
    const limit = options.limit ?? 0;
    const page = await core.store.range(prefix, {
      ...(limit > 0 ? { limit } : {}),
      ...(start === undefined ? {} : { continueKey: start }),
      ...(revision === undefined ? {} : { revision }),
    });
    const rv = revision ?? page.revision;
    const last = page.kvs[page.kvs.length - 1];
    const metadata: { resourceVersion: string; continue?: string } = { resourceVersion: String(rv) };
    if (limit > 0 && page.kvs.length >= limit && page.more && last !== undefined) metadata.continue = encodeContinue(rv, `${last.key}\u0000`, prefix);
    const parts: string[] = [];
    let part = `{"apiVersion":${JSON.stringify(info.apiVersion)},"kind":${JSON.stringify(`${info.kind}List`)},"metadata":${JSON.stringify(metadata)},"items":[`;
    for (const [i, kv] of page.kvs.entries()) {
      const text = core.readerTexts.text(kv);
      part = i === 0 ? part + text : `${part},${text}`;
      if (part.length >= LIST_PART_CHARS) {
        parts.push(part);
        part = '';
      }
    }
    parts.push(`${part}]}`);
    return ok(parts);
  } catch (e) {
    return err(listFailure(e, options.continue));
  }
}

/** listJsonParts as one text. */
export async function listJson(core: RegistryCore, resource: ResourceName, namespace?: string, options: Omit<ListOptions, 'predicate'> = {}): Promise<RegistryResult<string>> {
  const parts = await listJsonParts(core, resource, namespace, options);
  return parts.ok ? ok(parts.value.join('')) : parts;
}

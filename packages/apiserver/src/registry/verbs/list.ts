// list: a page of objects in key order at one revision, as objects (list) or as the JSON
// text the API sends (listJson); continue tokens resume at the same revision.
// upstream: staging/src/k8s.io/apiserver/pkg/storage/etcd3/store.go (GetList)
import { err, ok, type KubeObject } from '@kubesvc/api-types';
import { listFailure } from '../common.js';
import { encodeContinue, resumePoint } from '../continue-token.js';
import type { RegistryCore } from '../core.js';
import { badRequestError } from '../errors.js';
import { listPrefix, RESOURCES, type ResourceName } from '../resources.js';
import { deserializeObject, serializedForReader } from '../stored-object.js';
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
 * The JSON text of what list() returns without a predicate, written from the stored values
 * without parsing them (serializedForReader): the API's plain list, where every object
 * would be parsed only to be written out again.
 */
export async function listJson(core: RegistryCore, resource: ResourceName, namespace?: string, options: Omit<ListOptions, 'predicate'> = {}): Promise<RegistryResult<string>> {
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
    const items = page.kvs.map(serializedForReader).join(',');
    return ok(`{"apiVersion":${JSON.stringify(info.apiVersion)},"kind":${JSON.stringify(`${info.kind}List`)},"metadata":${JSON.stringify(metadata)},"items":[${items}]}`);
  } catch (e) {
    return err(listFailure(e, options.continue));
  }
}

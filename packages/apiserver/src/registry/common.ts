// Small helpers every verb of the registry uses: metadata access, retry bounds and the API errors
// a store failure becomes.
import type { GroupKindInput, KubeObject, ObjectMeta } from '@kubesvc/api-types';
import { ErrCompacted } from '@kubesvc/store';
import { expiredError, internalError, type ApiError } from './errors.js';
import type { ResourceInfo } from './resources.js';

/** Attempts of one object write that lost its compare-and-swap to another writer. */
export const MAX_RETRIES = 16;
export const MAX_GENERATE_NAME_ATTEMPTS = 8;

export function metaOf(object: KubeObject): ObjectMeta {
  return (object as { metadata?: ObjectMeta }).metadata ?? {};
}

export function withMeta<T extends KubeObject>(object: T, meta: ObjectMeta): T {
  return { ...object, metadata: meta } as T;
}

export function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** The kind an Invalid names: the bare Kind for the core group, group and Kind otherwise. */
export function qualifiedKind(info: ResourceInfo): GroupKindInput {
  return info.group === '' ? info.kind : { group: info.group, kind: info.kind };
}

/** A list's store failure: a continue token past the compaction is 410 Expired with upstream's text. */
export function listFailure(e: unknown, token: string | undefined): ApiError {
  if (e instanceof ErrCompacted && token !== undefined) {
    return expiredError(
      'The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.',
    );
  }
  return storeFailure(e);
}

/**
 * What a failed store call becomes. A simulated crash (crash.ts) is no store failure: it is
 * thrown on, so that every verb's catch lets it through and nothing after the crash point runs.
 */
export function storeFailure(e: unknown): ApiError {
  if (e instanceof Error && e.name === 'SimulatedCrash') throw e;
  if (e instanceof ErrCompacted) {
    return expiredError(`The resourceVersion for the provided list is too old.`);
  }
  return internalError(e instanceof Error ? e.message : String(e));
}

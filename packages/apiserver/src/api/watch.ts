// A watch over HTTP: a chunked application/json stream of `{"type":…,"object":…}` lines built on
// the store's watch, with the watch cache's semantics.
// - resourceVersion absent or "0": the current objects first, as ADDED, then every change
//   after the revision they were read at ("Get State and Start at Most Recent" / "Any").
// - resourceVersion N: the changes after N; N already compacted is one ERROR event carrying a
//   410 Expired Status `too old resource version: N (C)`, and the stream ends.
// - Selectors: an object that stops matching is sent as DELETED (its last matching state with
//   the event's resourceVersion), one that starts matching as ADDED.
// - allowWatchBookmarks: a BOOKMARK every `bookmarkIntervalMs` naming the revision up to which
//   every event was sent; timeoutSeconds ends the stream.
// upstream: staging/src/k8s.io/apiserver/pkg/storage/cacher/cache_watcher.go (convertToWatchEvent),
//           staging/src/k8s.io/apiserver/pkg/storage/cacher/watch_cache.go (getAllEventsSinceLocked:
//           "too old resource version"), staging/src/k8s.io/apiserver/pkg/endpoints/handlers/watch.go
import type { ServerResponse } from 'node:http';
import { err, ok, type KubeObject, type Result } from '@kubesvc/api-types';
import { expiredError, badRequestError, type ApiError } from '../registry/errors.js';
import type { ObjectPredicate } from '../registry/dispatch.js';
import type { Registry } from '../registry/registry.js';
import { listPrefix, RESOURCES, type ResourceName } from '../registry/resources.js';
import { deserializeObject } from '../registry/stored-object.js';
import { ErrCompacted, type Watch } from '@kubesvc/store';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';

export interface WatchRequest {
  readonly registry: Registry;
  readonly resource: ResourceName;
  /** '' for all namespaces (or a cluster-scoped resource). */
  readonly namespace: string;
  readonly predicate?: ObjectPredicate | undefined;
  readonly resourceVersion?: string | undefined;
  readonly allowWatchBookmarks: boolean;
  /** When the stream ends, in milliseconds from its start (0: at once). */
  readonly timeoutMs: number;
  readonly bookmarkIntervalMs: number;
  /** The object an event carries on the wire (a Table row, or the object itself). */
  readonly encode: (type: WatchEventType, object: KubeObject) => unknown;
  readonly contentType: string;
}

/** A running watch stream; `stop()` ends it (the server is closing). */
export interface WatchSession {
  stop(): void;
  readonly done: Promise<void>;
}

const MAX_TIMER_MS = 2 ** 31 - 1;

function withRV<T extends KubeObject>(object: T, rv: number): T {
  return { ...object, metadata: { ...(object as { metadata?: object }).metadata, resourceVersion: String(rv) } } as T;
}

/**
 * Starts a watch: the ApiError when the request is refused before the stream opens (a
 * resourceVersion that is not a number, a list that fails), else the session, whose stream
 * is being written to `res`.
 */
export async function startWatch(req: WatchRequest, res: ServerResponse): Promise<Result<WatchSession, ApiError>> {
  const { registry, resource, predicate } = req;
  const info = RESOURCES[resource];
  const rvText = req.resourceVersion ?? '';
  let fromRevision: number;
  let initial: readonly KubeObject[] = [];
  if (rvText === '' || rvText === '0') {
    const listed = await registry.list(resource, req.namespace, predicate === undefined ? {} : { predicate });
    if (!listed.ok) return listed;
    fromRevision = Number(listed.value.metadata.resourceVersion);
    initial = listed.value.items;
  } else {
    if (!/^[0-9]{1,15}$/.test(rvText)) return err(badRequestError(`invalid resource version: ${JSON.stringify(rvText)}`));
    fromRevision = Number(rvText);
  }
  const accepts = (o: KubeObject) => predicate === undefined || predicate(o);
  const watch: Watch = registry.store.watch(listPrefix(info, req.namespace), { fromRevision: fromRevision + 1 });

  res.writeHead(200, { 'Content-Type': req.contentType, 'Cache-Control': 'no-cache, private', 'Transfer-Encoding': 'chunked' });
  res.flushHeaders();

  let delivered = fromRevision;
  let stopped = false;
  const timers: NodeJS.Timeout[] = [];
  const stop = () => {
    if (stopped) return;
    stopped = true;
    for (const t of timers) clearTimeout(t);
    watch.close();
  };
  res.on('close', stop);

  const send = async (type: WatchEventType, object: unknown): Promise<void> => {
    if (stopped || res.destroyed) return;
    const written = res.write(`${JSON.stringify({ type, object })}\n`);
    if (!written && !res.destroyed) {
      await new Promise<void>((resolve) => {
        const done = () => {
          res.off('drain', done);
          res.off('close', done);
          resolve();
        };
        res.on('drain', done);
        res.on('close', done);
      });
    }
  };

  // A timer holds at most 2^31-1 ms (Node fires a longer one at once): a longer timeout
  // re-arms until its end.
  const deadline = performance.now() + req.timeoutMs;
  const arm = (): void => {
    const left = deadline - performance.now();
    if (left <= 0) {
      stop();
      return;
    }
    timers.push(setTimeout(arm, Math.min(left, MAX_TIMER_MS)));
  };
  arm();
  if (req.allowWatchBookmarks && !stopped) {
    const interval = setInterval(() => {
      const bookmark = { kind: info.kind, apiVersion: info.apiVersion, metadata: { resourceVersion: String(delivered) } };
      void send('BOOKMARK', bookmark);
    }, req.bookmarkIntervalMs);
    interval.unref();
    timers.push(interval);
  }

  const run = async (): Promise<void> => {
    try {
      for (const object of initial) await send('ADDED', req.encode('ADDED', object));
      for await (const event of watch) {
        if (stopped) break;
        const rv = event.kv.modRevision;
        const cur = event.type === 'put' ? deserializeObject<KubeObject>(event.kv) : undefined;
        const prev = event.prevKv === undefined ? undefined : deserializeObject<KubeObject>(event.prevKv);
        const curPasses = cur !== undefined && accepts(cur);
        const prevPasses = prev !== undefined && accepts(prev);
        if (cur !== undefined && curPasses) {
          const type = prevPasses ? 'MODIFIED' : 'ADDED';
          await send(type, req.encode(type, cur));
        } else if (prev !== undefined && prevPasses) {
          await send('DELETED', req.encode('DELETED', withRV(prev, rv)));
        }
        delivered = rv;
      }
    } catch (e) {
      if (e instanceof ErrCompacted) {
        const status = expiredError(`too old resource version: ${fromRevision} (${e.compactRevision})`).status;
        await send('ERROR', status);
      } else if (!stopped) {
        const message = e instanceof Error ? e.message : String(e);
        await send('ERROR', { kind: 'Status', apiVersion: 'v1', metadata: {}, status: 'Failure', message, reason: 'InternalError', code: 500 });
      }
    } finally {
      stop();
      if (!res.destroyed && !res.writableEnded) res.end();
    }
  };
  const done = run();
  return ok({ stop, done });
}

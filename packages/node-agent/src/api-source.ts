// A node agent's source fed through the HTTP API, as a real kube-proxy's informers are: for each
// resource one reflector that LISTs, then WATCHes from the list's resourceVersion with
// allowWatchBookmarks, applies ADDED / MODIFIED / DELETED to its cache and moves its
// resourceVersion on every event and BOOKMARK. A watch the server ends (its timeout) is opened
// again from the last resourceVersion; a 410 Expired (the resourceVersion was compacted) lists
// again and reports what the list reveals (objects gone as DELETED, new ones as ADDED, changed
// ones as MODIFIED), as the informer's Replace does; a connection that fails waits an
// exponential, jittered backoff before the next try.
// upstream (v1.33): staging/src/k8s.io/client-go/tools/cache/reflector.go (ListAndWatch,
//           watchWithResync, watch: TimeoutSeconds minWatchTimeout*(1+rand), AllowWatchBookmarks;
//           watchHandler; isExpiredError; the backoff manager 800 ms .. 30 s),
//           staging/src/k8s.io/client-go/tools/cache/delta_fifo.go (Replace: the deletions a
//           relist reveals)
//
// Memory: each reflector keeps one copy of each object, the parsed one in its Map; the list's
// body and each event's line are dropped once parsed, and the change events hand the cache's
// objects themselves to the listeners. Sources in one thread may share an ObjectInterner: each
// still lists, watches and parses every object itself, but keeps the object another source
// already holds for the same resource, key and resourceVersion (the apiserver's resourceVersion
// names one stored state of an object, and the caches never change an object), so N sources hold
// about one copy of each object at a given version.
import { Agent, request as httpsRequest } from 'node:https';
import { request as httpRequest, type IncomingMessage, type ClientRequest } from 'node:http';
import type { KubeObject } from '@kubesvc/api-types';
import { RESOURCES, silentLogger, type Logger, type ResourceName } from '@kubesvc/apiserver';
import type { CacheChange } from '@kubesvc/controllers';
import { compareKeys, lowerBound } from '@kubesvc/store';
import { logLine } from './logger.js';
import type { NodeAgentSource } from './node-agent.js';

/** client-go's minWatchTimeout: a watch asks the server to end it after this times [1, 2). */
export const MIN_WATCH_TIMEOUT_SECONDS = 300;
/** The reflector's backoff starts at 800 ms and doubles, each wait jittered by up to as much again. */
export const BACKOFF_INITIAL_MS = 800;
/** The reflector's backoff is at most 30 s (before its jitter). */
export const BACKOFF_MAX_MS = 30_000;

/** Where the API is, how to reach it, and what to list and watch. */
export interface ApiSourceOptions {
  /** The API's base URL, `https://127.0.0.1:6443` (`http:` too, for a server without TLS). */
  readonly server: string;
  /** The bearer token. */
  readonly token: string;
  /** The CA (PEM) that signed the server's certificate: a self-signed one is its own. */
  readonly ca?: string | Buffer;
  /** What to list and watch: `services` and `endpointslices` at least, for the node agent. */
  readonly resources: readonly ResourceName[];
  /** Where relists and failed connections are told. Default: nowhere. */
  readonly logger?: Logger;
  /** Names this source in its log lines (the node's name). */
  readonly name?: string;
  /**
   * timeoutSeconds of each watch. Default: client-go's, 300 s times [1, 2). 0 sends none, so
   * the server's --min-request-timeout (times [1, 2)) ends the watch.
   */
  readonly watchTimeoutSeconds?: number;
  /** Backoff bounds, ms. Default 800 and 30000. */
  readonly backoff?: { readonly initialMs?: number; readonly maxMs?: number };
  /** In [0, 1): the watch timeout's and the backoff's jitter. Default Math.random. */
  readonly random?: () => number;
  /** Shared with other sources of the same thread: same resource, key and resourceVersion, one object kept. */
  readonly interner?: ObjectInterner;
}

/** The objects several sources share: per resource and key, the latest version one of them parsed. */
export interface ObjectInterner {
  /** The object kept for this resource, key and resourceVersion, or `object` itself (then kept, if newer than the one held). */
  intern(resource: ResourceName, key: string, object: KubeObject): KubeObject;
  /** The object is gone (deleted): the one held is dropped. */
  forget(resource: ResourceName, key: string): void;
  /** Objects held. */
  readonly size: number;
}

/** An interner for the sources of one thread. */
export function createObjectInterner(): ObjectInterner {
  const held = new Map<string, KubeObject>();
  return {
    intern(resource, key, object) {
      const k = `${resource} ${key}`;
      const rv = rvOf(object);
      const kept = held.get(k);
      if (kept !== undefined && rv !== '' && rvOf(kept) === rv) return kept;
      if (kept === undefined || Number(rv) > Number(rvOf(kept))) held.set(k, object);
      return object;
    },
    forget(resource, key) {
      held.delete(`${resource} ${key}`);
    },
    get size() {
      return held.size;
    },
  };
}

/** What one reflector has done, for tests and status. */
export interface ReflectorStats {
  /** LISTs done, the first included. */
  readonly lists: number;
  /** Watches opened. */
  readonly watches: number;
  /** Watches that ended with an ERROR event of 410 Expired. */
  readonly expired: number;
  /** Watch events received (ADDED, MODIFIED, DELETED and BOOKMARK lines; the lists' items are not counted). */
  readonly events: number;
  /** The resourceVersion the cache reflects (the last event's, bookmark's or list's). */
  readonly resourceVersion: string;
}

/** A node agent's source that lists and watches through the API; `revision` is the lowest resourceVersion of its resources. */
export interface ApiSource extends NodeAgentSource {
  /** Per resource: lists, watches, 410s and the resourceVersion. */
  stats(resource: ResourceName): ReflectorStats;
  /** Closes every watch and stops retrying; the cache keeps its last state. */
  stop(): Promise<void>;
}

interface WatchEventLine {
  readonly type: 'ADDED' | 'MODIFIED' | 'DELETED' | 'BOOKMARK' | 'ERROR';
  readonly object: KubeObject & { readonly code?: number; readonly reason?: string; readonly message?: string };
}

class HttpStatusError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
  ) {
    super(message);
  }
}

function rvOf(object: KubeObject): string {
  return (object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion ?? '';
}

function keyOf(object: KubeObject): string {
  const m = (object as { metadata?: { namespace?: string; name?: string } }).metadata;
  return `${m?.namespace ?? ''}/${m?.name ?? ''}`;
}

/** The collection's path: `/api/v1/services`, `/apis/discovery.k8s.io/v1/endpointslices`. */
export function collectionPath(resource: ResourceName): string {
  const info = RESOURCES[resource];
  return info.group === '' ? `/api/v1/${resource}` : `/apis/${info.apiVersion}/${resource}`;
}

/** The HTTP side: one GET, its response (any status), or the connection's error. */
class Client {
  private readonly agent: Agent | undefined;
  private readonly open = new Set<ClientRequest>();

  constructor(private readonly options: ApiSourceOptions) {
    this.agent = options.server.startsWith('https:') ? new Agent({ keepAlive: true, ...(options.ca === undefined ? {} : { ca: options.ca }) }) : undefined;
  }

  get(path: string): Promise<IncomingMessage> {
    return new Promise((resolve, reject) => {
      const url = new URL(path, this.options.server);
      const headers = { Authorization: `Bearer ${this.options.token}`, Accept: 'application/json' };
      const req = this.agent === undefined ? httpRequest(url, { headers }) : httpsRequest(url, { headers, agent: this.agent });
      this.open.add(req);
      req.on('close', () => this.open.delete(req));
      req.on('response', resolve);
      req.on('error', reject);
      req.end();
    });
  }

  close(): void {
    for (const req of this.open) req.destroy();
    this.open.clear();
    this.agent?.destroy();
  }
}

async function readBody(res: IncomingMessage): Promise<string> {
  res.setEncoding('utf8');
  let body = '';
  for await (const chunk of res) body += chunk as string;
  return body;
}

/** A Status body's code, reason and message, or the HTTP status's. */
function statusError(code: number, body: string): HttpStatusError {
  try {
    const s = JSON.parse(body) as { code?: number; reason?: string; message?: string };
    return new HttpStatusError(s.code ?? code, s.reason ?? '', s.message ?? body);
  } catch {
    return new HttpStatusError(code, '', body);
  }
}

/** 410 Gone with reason Expired (or any 410): the resourceVersion is compacted. upstream: isExpiredError. */
function isExpired(error: unknown): boolean {
  return error instanceof HttpStatusError && (error.code === 410 || error.reason === 'Expired');
}

/** One resource's list-then-watch loop and cache. */
class Reflector {
  readonly objects = new Map<string, KubeObject>();
  private sorted: string[] | undefined;
  resourceVersion = '';
  lists = 0;
  watches = 0;
  expired = 0;
  events = 0;
  private failures = 0;
  private timer: NodeJS.Timeout | undefined;
  private wake: (() => void) | undefined;

  constructor(
    readonly resource: ResourceName,
    private readonly source: HttpApiSource,
  ) {}

  keys(): readonly string[] {
    this.sorted ??= [...this.objects.keys()].sort(compareKeys);
    return this.sorted;
  }

  private set(key: string, object: KubeObject): KubeObject | undefined {
    const old = this.objects.get(key);
    this.objects.set(key, object);
    if (old === undefined && this.sorted !== undefined) this.sorted.splice(lowerBound(this.sorted, key), 0, key);
    return old;
  }

  private remove(key: string): KubeObject | undefined {
    const old = this.objects.get(key);
    if (old !== undefined) {
      this.objects.delete(key);
      if (this.sorted !== undefined) {
        const i = lowerBound(this.sorted, key);
        if (this.sorted[i] === key) this.sorted.splice(i, 1);
      }
    }
    return old;
  }

  /** LIST, then replace the cache with its items: the changes that makes. */
  async list(): Promise<CacheChange[]> {
    const res = await this.source.client.get(collectionPath(this.resource));
    const body = await readBody(res);
    if (res.statusCode !== 200) throw statusError(res.statusCode ?? 0, body);
    const list = JSON.parse(body) as { metadata?: { resourceVersion?: string }; items?: KubeObject[] };
    this.lists++;
    const { kind, apiVersion } = RESOURCES[this.resource];
    const fresh = new Map<string, KubeObject>();
    // A list's items carry no kind or apiVersion: give them the type's, as a decoded item has.
    for (const item of list.items ?? []) {
      const key = keyOf(item);
      fresh.set(key, this.source.intern(this.resource, key, { ...item, kind, apiVersion } as KubeObject));
    }
    const changes: CacheChange[] = [];
    for (const [key, old] of [...this.objects]) {
      if (!fresh.has(key)) {
        this.remove(key);
        changes.push({ resource: this.resource, type: 'DELETED', object: old, old });
      }
    }
    for (const [key, object] of fresh) {
      const old = this.set(key, object);
      if (old === undefined) changes.push({ resource: this.resource, type: 'ADDED', object });
      else if (rvOf(old) !== rvOf(object)) changes.push({ resource: this.resource, type: 'MODIFIED', object, old });
      else this.objects.set(key, old);
    }
    this.resourceVersion = list.metadata?.resourceVersion ?? '';
    return changes;
  }

  /** The watch loop, until the source stops; the first list is done. */
  async run(): Promise<void> {
    let needList = false;
    while (!this.source.stopped) {
      try {
        if (needList) {
          this.source.emit(await this.list());
          needList = false;
        }
        await this.watchOnce();
        this.failures = 0;
      } catch (error) {
        if (this.source.stopped) return;
        if (isExpired(error)) {
          // upstream: the watch's resourceVersion is gone; list again, at once.
          this.expired++;
          this.source.log('warning', logLine('watch expired, listing again', { resource: this.resource, resourceVersion: this.resourceVersion, reason: error instanceof Error ? error.message : String(error) }));
          needList = true;
          continue;
        }
        // A connection refused or reset, a 429 or 5xx: back off, then watch again from the same
        // resourceVersion; any other refusal lists again after the backoff.
        const retriable = !(error instanceof HttpStatusError) || error.code === 429 || error.code >= 500;
        if (!retriable) needList = true;
        this.source.log('warning', logLine('watch failed, backing off', { resource: this.resource, reason: error instanceof Error ? error.message : String(error) }));
        await this.backoff();
      }
    }
  }

  private backoff(): Promise<void> {
    const { initialMs = BACKOFF_INITIAL_MS, maxMs = BACKOFF_MAX_MS } = this.source.options.backoff ?? {};
    const base = Math.min(maxMs, initialMs * 2 ** this.failures);
    this.failures++;
    const ms = base * (1 + this.source.random());
    return new Promise((resolve) => {
      this.wake = resolve;
      this.timer = setTimeout(resolve, ms);
    });
  }

  /** Ends a backoff wait early (stop). */
  interrupt(): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.wake?.();
  }

  /** One watch from the resourceVersion, applied until the stream ends; an ERROR event throws. */
  private async watchOnce(): Promise<void> {
    const query = new URLSearchParams({ watch: 'true', allowWatchBookmarks: 'true', resourceVersion: this.resourceVersion });
    const timeout = this.source.watchTimeoutSeconds();
    if (timeout > 0) query.set('timeoutSeconds', String(timeout));
    const res = await this.source.client.get(`${collectionPath(this.resource)}?${query.toString()}`);
    if (res.statusCode !== 200) throw statusError(res.statusCode ?? 0, await readBody(res));
    this.watches++;
    this.failures = 0;
    res.setEncoding('utf8');
    let buffer = '';
    for await (const chunk of res) {
      if (this.source.stopped) return;
      buffer += chunk as string;
      let nl: number;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl);
        buffer = buffer.slice(nl + 1);
        if (line.trim() !== '') this.apply(JSON.parse(line) as WatchEventLine);
      }
    }
  }

  private apply(event: WatchEventLine): void {
    if (event.type === 'ERROR') {
      const s = event.object;
      throw new HttpStatusError(s.code ?? 500, s.reason ?? '', s.message ?? 'watch error');
    }
    this.events++;
    const rv = rvOf(event.object);
    let change: CacheChange | undefined;
    if (event.type === 'ADDED' || event.type === 'MODIFIED') {
      const key = keyOf(event.object);
      const object = this.source.intern(this.resource, key, event.object);
      const old = this.set(key, object);
      change = old === undefined ? { resource: this.resource, type: 'ADDED', object } : { resource: this.resource, type: 'MODIFIED', object, old };
    } else if (event.type === 'DELETED') {
      this.source.options.interner?.forget(this.resource, keyOf(event.object));
      const old = this.remove(keyOf(event.object));
      if (old !== undefined) change = { resource: this.resource, type: 'DELETED', object: old, old };
    }
    if (rv !== '') this.resourceVersion = rv;
    if (change !== undefined) this.source.emit([change]);
  }
}

class HttpApiSource implements ApiSource {
  readonly client: Client;
  readonly resources: readonly ResourceName[];
  stopped = false;
  private readonly reflectors = new Map<ResourceName, Reflector>();
  private readonly listeners = new Set<(change: CacheChange) => void>();
  private readonly loops: Promise<void>[] = [];
  private readonly logger: Logger;

  constructor(readonly options: ApiSourceOptions) {
    this.client = new Client(options);
    this.resources = [...new Set(options.resources)];
    this.logger = options.logger ?? silentLogger;
    for (const r of this.resources) this.reflectors.set(r, new Reflector(r, this));
  }

  random(): number {
    return (this.options.random ?? Math.random)();
  }

  intern(resource: ResourceName, key: string, object: KubeObject): KubeObject {
    return this.options.interner === undefined ? object : this.options.interner.intern(resource, key, object);
  }

  watchTimeoutSeconds(): number {
    const given = this.options.watchTimeoutSeconds;
    return given ?? Math.floor(MIN_WATCH_TIMEOUT_SECONDS * (1 + this.random()));
  }

  log(level: 'info' | 'warning' | 'error', line: string): void {
    this.logger.log(level, this.options.name === undefined ? line : `${line} node=${JSON.stringify(this.options.name)}`);
  }

  /**
   * The lowest resourceVersion of the reflectors: each has applied every event of its resource
   * up to its own, so every event at or below the lowest is in the cache.
   */
  get revision(): number {
    let low = Infinity;
    for (const r of this.reflectors.values()) low = Math.min(low, Number(r.resourceVersion) || 0);
    return low === Infinity ? 0 : low;
  }

  list<T extends KubeObject = KubeObject>(resource: ResourceName, namespace?: string): readonly T[] {
    const reflector = this.reflectorOf(resource);
    const all = namespace === undefined || namespace === '' || !RESOURCES[resource].namespaced;
    const prefix = `${namespace ?? ''}/`;
    const out: T[] = [];
    for (const key of reflector.keys()) if (all || key.startsWith(prefix)) out.push(reflector.objects.get(key) as T);
    return out;
  }

  get<T extends KubeObject = KubeObject>(resource: ResourceName, namespace: string, name: string): T | undefined {
    const reflector = this.reflectorOf(resource);
    return reflector.objects.get(`${RESOURCES[resource].namespaced ? namespace : ''}/${name}`) as T | undefined;
  }

  onChange(listener: (change: CacheChange) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  stats(resource: ResourceName): ReflectorStats {
    const r = this.reflectorOf(resource);
    return { lists: r.lists, watches: r.watches, expired: r.expired, events: r.events, resourceVersion: r.resourceVersion };
  }

  emit(changes: readonly CacheChange[]): void {
    if (this.stopped) return;
    for (const change of changes) for (const l of this.listeners) l(change);
  }

  async start(): Promise<void> {
    for (const r of this.reflectors.values()) await r.list();
    for (const r of this.reflectors.values()) this.loops.push(r.run());
  }

  async stop(): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    this.listeners.clear();
    this.client.close();
    for (const r of this.reflectors.values()) r.interrupt();
    await Promise.all(this.loops);
  }

  private reflectorOf(resource: ResourceName): Reflector {
    const r = this.reflectors.get(resource);
    if (r === undefined) throw new Error(`the API source does not watch ${resource}`);
    return r;
  }
}

/**
 * Lists every resource through the API, then keeps each current with its own watch; resolves
 * once the first lists are in (the informers' HasSynced). A first list that fails (the API
 * down, the token refused) rejects; later failures are retried with backoff.
 */
export async function startApiSource(options: ApiSourceOptions): Promise<ApiSource> {
  const source = new HttpApiSource(options);
  try {
    await source.start();
  } catch (error) {
    await source.stop();
    throw error;
  }
  return source;
}

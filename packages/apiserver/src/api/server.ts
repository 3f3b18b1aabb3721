// The kube-apiserver wire protocol on node:http, enough for an unmodified kubectl: bearer-token
// authentication, discovery, OpenAPI stubs, the verbs on every resource of the registry
// (namespaced, all-namespaces and cluster-scoped paths, the /status subresource), selectors,
// pagination, watch streams, Table output through an injected printer, and a Status body for
// every failure.
// upstream: staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (routes and verbs per path),
//           staging/src/k8s.io/apiserver/pkg/endpoints/handlers/{get,create,update,patch,delete,
//           watch,rest}.go, staging/src/k8s.io/apiserver/pkg/server/healthz (healthz, livez,
//           readyz), staging/src/k8s.io/apiserver/pkg/endpoints/handlers/responsewriters/warning.go
import { randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createTlsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { err, ok, type ApiStatus, type KubeObject } from '@kubesvc/api-types';
import { dispatch, subresourceOf, type Subresource } from '../registry/dispatch.js';
import { badRequestError, internalError, isApiError, MAX_REQUEST_BODY_BYTES, notAcceptableError, requestEntityTooLargeError, type ApiError } from '../registry/errors.js';
import type { Registry } from '../registry/registry.js';
import type { DeleteOptions, ObjectList } from '../registry/types.js';
import { deprecationWarning, RESOURCES, type ResourceInfo, type ResourceName } from '../registry/resources.js';
import { ErrInsecureBind, insecureBindError } from './bind-security.js';
import { apiGroup, apiGroupList, apiResourceList, apiVersions, versionInfo } from './discovery.js';
import { openApiV3Document, openApiV3Index } from './openapi.js';
import { DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS, deleteOptions, listOptions, watchTimeoutMs, writeOptions, type DeleteRequestOptions, type Parsed } from './query-options.js';
import { decodeProtobufDeleteOptions, type BodyMediaType, type FieldValidation } from '../registry/decode.js';
import { PROTOBUF_MEDIA_TYPE } from '../registry/protobuf/envelope.js';
import { methodNotAllowedStatus, pathNotFoundStatus } from './status-bodies.js';
import type { TableContext, TablePrinter } from './table-hook.js';
import { acceptsJson, bodyMediaType, contentMediaType, includeObjectOf, RESPONSE_MEDIA_TYPES, wantsTable } from './negotiation.js';
import { authenticationRefusal, isPublicInfoPath } from './anonymous.js';
import { invalidNameError, parseRequestTarget } from './request-target.js';
import { startWatch, type WatchSession } from './watch.js';
import { consoleLogger, type Logger } from '../logger.js';
import type { ApiServerMetrics } from '../metrics/apiserver-metrics.js';
import { requestLabels } from '../metrics/request-labels.js';
import type { ContainerRuntime } from './container-runtime.js';
import { filesContainerRuntime } from './streaming/files-runtime.js';
import { createPodStreaming, podStreamingRoute, responseOnSocket, type UpgradeSocket } from './streaming/pod-streaming.js';

export interface ApiServerOptions {
  readonly registry: Registry;
  /** Default 127.0.0.1. Any other than a loopback address needs `tls` and a non-empty token: startApiServer rejects otherwise. */
  readonly host?: string;
  /** 0 (the default) picks a free port. */
  readonly port?: number;
  /** The bearer token every request but the health and version endpoints must carry. */
  readonly token: string;
  /**
   * Serve HTTPS with this key pair (generateServingCertificate makes one). kubectl sends a
   * kubeconfig's token only over TLS; without it the server speaks plain HTTP.
   */
  readonly tls?: { readonly cert: string | Buffer; readonly key: string | Buffer };
  /** /readyz answers 200 `ok` only while this is true. Default: always ready. */
  readonly ready?: () => boolean;
  /** The Table printer for `Accept: ...;as=Table`; without it (or when it declines) the plain object or list is sent. */
  readonly tables?: TablePrinter;
  /** How often a watch with allowWatchBookmarks sends a BOOKMARK. Default 60 s (the watch cache's pace). */
  readonly bookmarkIntervalMs?: number;
  /** Handlers for paths outside the Kubernetes API (the explorer's `/ui/`), tried before the API's routes. */
  readonly extensions?: readonly ApiServerExtension[];
  /**
   * How long a watch without a positive timeoutSeconds runs before the server ends it (times a
   * random factor in [1, 2)). Default 1800 s, kube-apiserver's --min-request-timeout.
   */
  readonly minRequestTimeoutSeconds?: number;
  /** The connection deadlines; each has kube-apiserver's value by default. */
  readonly timeouts?: ApiServerTimeouts;
  /** Where accept failures (out of file descriptors) are reported. Default: stderr. */
  readonly logger?: Logger;
  /**
   * Records every routed resource request into these metrics and serves their registry at
   * /metrics (behind the token). Without it, /metrics is not served.
   */
  readonly metrics?: ApiServerMetrics;
  /** The node side of pods/log, exec, attach and portforward. Default filesContainerRuntime: no container runs (the kubelet's refusals). */
  readonly containerRuntime?: ContainerRuntime;
}

/**
 * Deadlines that keep a slow or silent client from holding a connection for ever. A connection
 * past one of them is closed without an answer, as Go's server does when a read deadline passes.
 * upstream: staging/src/k8s.io/apiserver/pkg/server/secure_serving.go (ReadHeaderTimeout 32 s,
 *           IdleTimeout 90 s; Go's net/http bounds the TLS handshake by the smallest read or
 *           write timeout, here the header one), staging/src/k8s.io/apiserver/pkg/server/options/
 *           serving.go and server/config.go (--request-timeout 60 s)
 */
export interface ApiServerTimeouts {
  /** From accept to a finished TLS handshake. Default 32 s. */
  readonly tlsHandshakeMs?: number;
  /** From the connection's start (or the previous answer) to the end of the request's headers: a client that sends nothing is closed after it too. Default 32 s. */
  readonly requestHeadersMs?: number;
  /** From the request's start to the end of its body (a watch's GET has none, so a watch is not cut). Default 60 s. */
  readonly requestMs?: number;
  /** A kept-alive connection with no request after its last answer. Default 90 s. */
  readonly idleMs?: number;
  /** How often connections are checked against the header and request deadlines. Default 1 s. */
  readonly checkIntervalMs?: number;
  /** How long a connection answered before its body was read keeps reading and dropping that body before it is closed. Default 2 s. */
  readonly lingerMs?: number;
}

const DEFAULT_TIMEOUTS: Required<ApiServerTimeouts> = { tlsHandshakeMs: 32_000, requestHeadersMs: 32_000, requestMs: 60_000, idleMs: 90_000, checkIntervalMs: 1_000, lingerMs: 2_000 };

/**
 * Closes `socket` gracefully once Node (or `now`) closes it: its write side first (FIN), then
 * the whole socket when the client closes too or after `lingerMs`, reading and dropping what
 * the client still sends meanwhile. Node closes an answered `Connection: close` connection with
 * socket.destroySoon(); this replaces that for the one socket.
 * upstream: Go's net/http closeWriteAndWait (rstAvoidanceDelay) does the same for the same reason.
 */
function lingerOnClose(socket: Socket, lingerMs: number, now = false): void {
  const close = (): void => {
    if (socket.destroyed) return;
    socket.end();
    socket.resume();
    const timer = setTimeout(() => socket.destroy(), lingerMs);
    timer.unref();
    socket.once('end', () => socket.destroy());
    socket.once('close', () => clearTimeout(timer));
  };
  if (now) close();
  else (socket as Socket & { destroySoon?: () => void }).destroySoon = close;
}

/**
 * A handler mounted at a path prefix beside the API. Every request below the prefix needs the
 * bearer token unless `isPublic` says otherwise for its path (static files that carry no
 * cluster data: a browser's navigation cannot send the token in a header).
 */
export interface ApiServerExtension {
  /** Starts and ends with `/`, e.g. `/ui/`; the prefix without its last slash is redirected to it. */
  readonly prefix: string;
  readonly isPublic?: (path: string) => boolean;
  /** Answers the request completely (a stream may stay open until the client or close() ends it). */
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** Called by the server's close(), before its connections are cut. */
  close?(): void;
}

export interface ApiServer {
  /** `http://host:port` */
  readonly url: string;
  readonly port: number;
  /** Ends every watch stream and closes the listener and its connections. */
  close(): Promise<void>;
  /** The open connections (TLS handshakes under way included) and the accepts that failed. */
  stats(): Promise<{ readonly connections: number; readonly acceptErrors: number }>;
}

/** A bearer token for the CLI: 32 random bytes, base64url. */
export function generateToken(): string {
  return randomBytes(32).toString('base64url');
}


const JSON_TYPE = 'application/json';
const TABLE_TYPE = 'application/json;as=Table;v=v1;g=meta.k8s.io';

type Route =
  | { readonly kind: 'collection'; readonly info: ResourceInfo; readonly namespace: string | undefined }
  | { readonly kind: 'item'; readonly info: ResourceInfo; readonly namespace: string; readonly name: string; readonly subresource?: Subresource };

function infoAt(groupVersion: string, resource: string): ResourceInfo | undefined {
  if (!Object.hasOwn(RESOURCES, resource)) return undefined;
  const info = RESOURCES[resource as ResourceName];
  return info.apiVersion === groupVersion ? info : undefined;
}

/** The resource route of a path below /api/v1 or /apis/<group>/<version>, or undefined (404). */
function resourceRoute(groupVersion: string, rest: readonly string[]): Route | undefined {
  if (rest.length === 0 || rest.some((s) => s === '')) return undefined;
  const [first, second, third, fourth, fifth] = rest;
  if (first === 'namespaces' && third !== undefined) {
    const info = infoAt(groupVersion, third);
    if (info === undefined || !info.namespaced || second === undefined || rest.length > 5) return undefined;
    if (fourth === undefined) return { kind: 'collection', info, namespace: second };
    if (fifth === undefined) return { kind: 'item', info, namespace: second, name: fourth };
    const subresource = subresourceOf(info.resource, fifth);
    return subresource === undefined ? undefined : { kind: 'item', info, namespace: second, name: fourth, subresource };
  }
  const info = first === undefined ? undefined : infoAt(groupVersion, first);
  if (info === undefined || rest.length > 3) return undefined;
  if (second === undefined) return { kind: 'collection', info, namespace: undefined };
  if (info.namespaced) return undefined;
  if (third === undefined) return { kind: 'item', info, namespace: '', name: second };
  const subresource = subresourceOf(info.resource, third);
  return subresource === undefined ? undefined : { kind: 'item', info, namespace: '', name: second, subresource };
}

/**
 * Whether the API installs a route for `method` at `route`, as installer.go does per storage:
 * a collection lists (and watches) everywhere, creates and deletes as a collection only in a
 * namespace or at cluster scope and only where the storage has DeleteCollection; an item takes
 * GET, PUT, PATCH and, but for /status, DELETE.
 * upstream: staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (registerResourceHandlers)
 */
function isRouted(route: Route, method: string): boolean {
  if (route.kind === 'collection') {
    if (method === 'GET') return true;
    if (route.info.namespaced && route.namespace === undefined) return false;
    return method === 'POST' || (method === 'DELETE' && route.info.deleteCollection);
  }
  if (method === 'GET' || method === 'PUT' || method === 'PATCH') return true;
  return method === 'DELETE' && route.subresource === undefined;
}

/** RFC 7234 warn-text, quoted as upstream's warning writer does. */
function warningHeader(message: string): string {
  return `299 - "${message.replace(/[\\"]/g, (c) => `\\${c}`).replace(/[\r\n]/g, ' ')}"`;
}

/** What a create or update (POST, PUT) hands the registry: the object's bytes, their media type and the field validation asked for. */
interface ObjectWrite {
  readonly body: Uint8Array;
  readonly mediaType: BodyMediaType;
  readonly fieldValidation?: FieldValidation;
}

/** The query's write options, the body's media type, then the body: each refusal as upstream answers it. */
async function objectWrite(req: IncomingMessage, query: URLSearchParams, kind: 'CreateOptions' | 'UpdateOptions', info: ResourceInfo): Promise<Parsed<ObjectWrite>> {
  const write = writeOptions(query, kind);
  if (!write.ok) return write;
  if (write.value.dryRun) return err(dryRunRefused());
  const mediaType = bodyMediaType(req, info);
  if (!mediaType.ok) return mediaType;
  const body = await readBody(req);
  const bytes = new Uint8Array(body.buffer, body.byteOffset, body.length);
  return ok({ body: bytes, mediaType: mediaType.value, ...(write.value.fieldValidation === undefined ? {} : { fieldValidation: write.value.fieldValidation }) });
}

/** A delete's body: JSON text, or a protobuf DeleteOptions (client-go's typed clients send one) as the JSON object it carries. */
function deleteBody(req: IncomingMessage, body: Buffer): Parsed<string | Record<string, unknown>> {
  if (contentMediaType(req) !== PROTOBUF_MEDIA_TYPE || body.length === 0) return ok(body.toString('utf8'));
  return decodeProtobufDeleteOptions(new Uint8Array(body.buffer, body.byteOffset, body.length));
}

class BodyTooLarge extends Error {}

function readBody(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const declared = Number(req.headers['content-length'] ?? '0');
    if (Number.isFinite(declared) && declared > MAX_REQUEST_BODY_BYTES) {
      reject(new BodyTooLarge());
      return;
    }
    const chunks: Buffer[] = [];
    let size = 0;
    let failed = false;
    req.on('data', (chunk: Buffer) => {
      if (failed) return;
      size += chunk.length;
      if (size > MAX_REQUEST_BODY_BYTES) {
        failed = true;
        chunks.length = 0;
        reject(new BodyTooLarge());
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => {
      if (!failed) resolve(Buffer.concat(chunks));
    });
    req.on('error', (e) => {
      if (!failed) reject(e);
    });
  });
}

interface Reply {
  readonly code: number;
  /** The body: text as it is, or a value written as JSON; or `parts`, written one after the other. */
  readonly body: unknown;
  readonly parts?: readonly string[];
  readonly contentType?: string;
  readonly warnings?: readonly string[];
  /** A redirect's target. */
  readonly location?: string;
}

function statusReply(status: ApiStatus): Reply {
  return { code: status.code ?? 500, body: status };
}

function errorReply(error: ApiError): Reply {
  return { code: error.code, body: error.status };
}

/** Starts the API server; resolves once it listens. */
export async function startApiServer(options: ApiServerOptions): Promise<ApiServer> {
  const { registry, token } = options;
  const host = options.host ?? '127.0.0.1';
  const refused = insecureBindError(host, options.tls !== undefined, token);
  if (refused !== undefined) throw new ErrInsecureBind(refused, { code: 'EINSECUREBIND' });
  const ready = options.ready ?? (() => true);
  const bookmarkIntervalMs = options.bookmarkIntervalMs ?? 60_000;
  const minRequestTimeoutSeconds = options.minRequestTimeoutSeconds ?? DEFAULT_MIN_REQUEST_TIMEOUT_SECONDS;
  const watches = new Set<WatchSession>();
  let closing = false;
  const upgrades = new WeakMap<IncomingMessage, UpgradeSocket>();
  const streaming = createPodStreaming({
    registry,
    runtime: options.containerRuntime ?? filesContainerRuntime,
    upgradeOf: (req) => upgrades.get(req),
    ...(options.metrics === undefined ? {} : { metrics: options.metrics }),
  });
  let address = '';

  const send = (res: ServerResponse, reply: Reply): void => {
    if (res.headersSent) {
      if (!res.writableEnded) res.end();
      return;
    }
    const text = reply.parts !== undefined ? '' : typeof reply.body === 'string' ? reply.body : JSON.stringify(reply.body);
    const headers: Record<string, string | string[]> = { 'Content-Type': reply.contentType ?? JSON_TYPE, 'Cache-Control': 'no-cache, private' };
    const connection = res.getHeader('Connection');
    if (typeof connection === 'string') headers['Connection'] = connection;
    // Warnings set before the handler ran (a deprecated resource's) come first.
    const earlier = res.getHeader('Warning');
    const warnings = [...(Array.isArray(earlier) ? earlier : []), ...(reply.warnings ?? []).map(warningHeader)];
    if (warnings.length > 0) headers['Warning'] = warnings;
    if (reply.location !== undefined) headers['Location'] = reply.location;
    res.writeHead(reply.code, headers);
    if (reply.parts === undefined) {
      res.end(text);
      return;
    }
    // Each part on its own: no body-sized string and no body-sized buffer of its bytes.
    for (const part of reply.parts) res.write(part);
    res.end();
  };

  const asTable = (req: IncomingMessage, query: URLSearchParams, resource: ResourceName, objects: readonly KubeObject[], meta: { resourceVersion?: string; continue?: string }): Reply | undefined => {
    if (options.tables === undefined || !wantsTable(req.headers.accept)) return undefined;
    const ctx: TableContext = { now: registry.clock.now(), resourceVersion: meta.resourceVersion, continue: meta.continue, includeObject: includeObjectOf(query) };
    const table = options.tables(resource, objects, ctx);
    return table === undefined ? undefined : { code: 200, body: table, contentType: TABLE_TYPE };
  };

  const handleResource = async (req: IncomingMessage, res: ServerResponse, route: Route, query: URLSearchParams): Promise<Reply | undefined> => {
    const method = req.method ?? 'GET';
    const { info } = route;
    const resource = info.resource;
    // A method with no route at this path is go-restful's 405, before any handler runs (and
    // so before content negotiation); every handler then negotiates its answer's media type
    // first, before reading anything else.
    if (!isRouted(route, method)) return statusReply(methodNotAllowedStatus());
    options.metrics?.label(req, routeLabels(req, route, query));
    // A deprecated resource's warning goes with every answer of its routes, errors and watch
    // streams included, as the installer wraps each route's handler.
    const deprecated = deprecationWarning(info);
    if (deprecated !== undefined) res.setHeader('Warning', [warningHeader(deprecated)]);
    if (!acceptsJson(req.headers.accept)) return errorReply(notAcceptableError(RESPONSE_MEDIA_TYPES));
    if (route.kind === 'collection') {
      const namespace = route.namespace ?? '';
      const allNamespaces = info.namespaced && route.namespace === undefined;
      if (method === 'GET') {
        const opts = listOptions(query, resource);
        if (!opts.ok) return errorReply(opts.error);
        const o = opts.value;
        if (o.watch) {
          const table = options.tables !== undefined && wantsTable(req.headers.accept);
          let headersSent = false;
          const started = await startWatch(
            {
              registry,
              resource,
              namespace,
              predicate: o.predicate,
              resourceVersion: o.resourceVersion,
              allowWatchBookmarks: o.allowWatchBookmarks,
              timeoutMs: watchTimeoutMs(o.timeoutSeconds, minRequestTimeoutSeconds, Math.random()),
              bookmarkIntervalMs,
              contentType: JSON_TYPE,
              encode: (_type, object) => {
                if (!table || options.tables === undefined) return object;
                const rendered = options.tables(resource, [object], { now: registry.clock.now(), includeObject: includeObjectOf(query), noHeaders: headersSent });
                if (rendered === undefined) return object;
                headersSent = true;
                return rendered;
              },
            },
            res,
          );
          if (!started.ok) return errorReply(started.error);
          const session = started.value;
          watches.add(session);
          if (closing) session.stop();
          await session.done;
          watches.delete(session);
          return undefined;
        }
        if (o.predicate === undefined && !(options.tables !== undefined && wantsTable(req.headers.accept))) {
          // The plain list: written from the stored values without parsing each object.
          const parts = await registry.listJsonParts(resource, namespace, {
            ...(o.limit === undefined ? {} : { limit: o.limit }),
            ...(o.continue === undefined ? {} : { continue: o.continue }),
          });
          return parts.ok ? { code: 200, body: undefined, parts: parts.value } : errorReply(parts.error);
        }
        const listed = await dispatch(registry, {
          verb: 'list',
          resource,
          namespace,
          ...(o.limit === undefined ? {} : { limit: o.limit }),
          ...(o.continue === undefined ? {} : { continue: o.continue }),
          ...(o.predicate === undefined ? {} : { predicate: o.predicate }),
        });
        if (!listed.ok) return errorReply(listed.error);
        const list = listed.value.body as ObjectList;
        return asTable(req, query, resource, list.items, list.metadata) ?? { code: 200, body: list };
      }
      if (allNamespaces) return statusReply(methodNotAllowedStatus());
      if (method === 'POST') {
        const write = await objectWrite(req, query, 'CreateOptions', info);
        if (!write.ok) return errorReply(write.error);
        return fromDispatch(await dispatch(registry, { verb: 'create', resource, namespace, ...write.value }));
      }
      // A storage without DeleteCollection has no route for it (namespaces): 405 before the
      // body or the options are read, as the mux answers for a verb it never installed.
      if (method === 'DELETE' && info.deleteCollection) {
        const body = deleteBody(req, await readBody(req));
        if (!body.ok) return errorReply(body.error);
        const del = deleteOptions(query, body.value);
        if (!del.ok) return errorReply(del.error);
        if (del.value.dryRun) return errorReply(dryRunRefused());
        const opts = listOptions(query, resource);
        if (!opts.ok) return errorReply(opts.error);
        return fromDispatch(
          await dispatch(registry, {
            verb: 'deletecollection',
            resource,
            namespace,
            ...(opts.value.predicate === undefined ? {} : { predicate: opts.value.predicate }),
            options: registryDeleteOptions(del.value),
          }),
        );
      }
      return statusReply(methodNotAllowedStatus());
    }

    const { namespace, name } = route;
    const sub = route.subresource;
    // A name that cannot be a path segment (`.`, `..`, one holding `/` or `%`) is refused where
    // upstream's storage builds the object's key: after the request's options and body were
    // read, before anything is looked up or written.
    const badName = invalidNameError(name);
    switch (method) {
      case 'GET': {
        if (badName !== undefined) return errorReply(badName);
        const got = await dispatch(registry, { verb: 'get', resource, namespace, name, ...(sub === undefined ? {} : { subresource: sub }) });
        if (!got.ok) return errorReply(got.error);
        const object = got.value.body as KubeObject;
        const rv = (object as { metadata?: { resourceVersion?: string } }).metadata?.resourceVersion;
        return (sub === 'scale' ? undefined : asTable(req, query, resource, [object], rv === undefined ? {} : { resourceVersion: rv })) ?? { code: 200, body: object };
      }
      case 'PUT': {
        const write = await objectWrite(req, query, 'UpdateOptions', info);
        if (!write.ok) return errorReply(write.error);
        if (badName !== undefined) return errorReply(badName);
        return fromDispatch(await dispatch(registry, { verb: 'update', resource, namespace, name, ...write.value, ...(sub === undefined ? {} : { subresource: sub }) }));
      }
      case 'PATCH': {
        const write = writeOptions(query, 'PatchOptions');
        if (!write.ok) return errorReply(write.error);
        if (write.value.dryRun) return errorReply(dryRunRefused());
        const contentType = req.headers['content-type'] ?? '';
        const semicolon = contentType.indexOf(';');
        const patchType = (semicolon > 0 ? contentType.slice(0, semicolon) : contentType).trim();
        const body = await readBody(req);
        if (badName !== undefined) return errorReply(badName);
        return fromDispatch(
          await dispatch(registry, {
            verb: 'patch',
            resource,
            namespace,
            name,
            patchType,
            body: body.toString('utf8'),
            ...(write.value.fieldValidation === undefined ? {} : { fieldValidation: write.value.fieldValidation }),
            ...(sub === undefined ? {} : { subresource: sub }),
          }),
        );
      }
      case 'DELETE': {
        if (sub !== undefined) return statusReply(methodNotAllowedStatus());
        const body = deleteBody(req, await readBody(req));
        if (!body.ok) return errorReply(body.error);
        const del = deleteOptions(query, body.value);
        if (!del.ok) return errorReply(del.error);
        if (del.value.dryRun) return errorReply(dryRunRefused());
        if (badName !== undefined) return errorReply(badName);
        return fromDispatch(await dispatch(registry, { verb: 'delete', resource, namespace, name, options: registryDeleteOptions(del.value) }));
      }
      default:
        return statusReply(methodNotAllowedStatus());
    }
  };

  const handle = async (req: IncomingMessage, res: ServerResponse): Promise<Reply | undefined> => {
    // The target as written: nothing resolves `..` or `.` segments before routing.
    const target = parseRequestTarget(req.url ?? '/');
    if (target === undefined) return errorReply(badRequestError('malformed request URL'));
    const query = target.query;
    // Paths compare after one trailing slash is dropped, as the mux does for /api/v1/.
    const path = target.path.length > 1 && target.path.endsWith('/') ? target.path.slice(0, -1) : target.path;
    const method = req.method ?? 'GET';
    for (const extension of options.extensions ?? []) {
      if (target.rawPath === extension.prefix.slice(0, -1)) return { code: 301, body: '', contentType: 'text/plain; charset=utf-8', location: extension.prefix };
      if (!target.rawPath.startsWith(extension.prefix)) continue;
      // The extension reads the path from a WHATWG URL, which folds `..`, `.` and backslashes:
      // a path it would rewrite is served by nobody, so that what isPublic judged is what runs.
      let url: URL;
      try {
        url = new URL(req.url ?? '/', 'http://localhost');
      } catch {
        return statusReply(pathNotFoundStatus());
      }
      if (url.pathname !== target.rawPath) return statusReply(pathNotFoundStatus());
      const open = extension.isPublic?.(url.pathname) ?? false;
      if (!open) {
        const refused = authenticationRefusal(req.headers.authorization, token, method, target);
        if (refused !== undefined) return statusReply(refused);
      }
      await extension.handle(req, res, url);
      return undefined;
    }
    if (!isPublicInfoPath(target.path)) {
      const refused = authenticationRefusal(req.headers.authorization, token, method, target);
      if (refused !== undefined) return statusReply(refused);
    }

    switch (path) {
      case '/healthz':
      case '/livez':
        return { code: 200, body: 'ok', contentType: 'text/plain; charset=utf-8' };
      case '/readyz':
        return ready()
          ? { code: 200, body: 'ok', contentType: 'text/plain; charset=utf-8' }
          : { code: 500, body: '[+]ping ok\n[-]kubesvc-ready failed: reason withheld\nreadyz check failed\n', contentType: 'text/plain; charset=utf-8' };
      case '/version':
        return { code: 200, body: versionInfo() };
      case '/metrics': {
        if (options.metrics === undefined) return statusReply(pathNotFoundStatus());
        const { contentType, text } = await options.metrics.exposition();
        return { code: 200, body: text, contentType };
      }
      case '/api':
        return { code: 200, body: apiVersions(address) };
      case '/apis':
        return { code: 200, body: apiGroupList() };
      case '/openapi/v2':
        // An empty protobuf Document: kubectl accepts it (and the proper protobuf media type is refused by its mime parser).
        return { code: 200, body: '', contentType: 'application/octet-stream' };
      case '/openapi/v3':
        return { code: 200, body: openApiV3Index() };
      default:
        break;
    }
    if (path.startsWith('/openapi/v3/')) {
      const doc = openApiV3Document(path.slice('/openapi/v3/'.length));
      return doc === undefined ? statusReply(pathNotFoundStatus()) : { code: 200, body: doc };
    }
    const segments = path.split('/').slice(1);
    let groupVersion: string | undefined;
    let rest: string[] = [];
    if (segments[0] === 'api' && segments[1] === 'v1') {
      groupVersion = 'v1';
      rest = segments.slice(2);
    } else if (segments[0] === 'apis' && segments.length >= 2) {
      const group = segments[1] ?? '';
      if (segments.length === 2) {
        const g = apiGroup(group, true);
        if (g === undefined) return statusReply(pathNotFoundStatus());
        return method === 'GET' ? { code: 200, body: g } : statusReply(methodNotAllowedStatus());
      }
      groupVersion = `${group}/${segments[2] ?? ''}`;
      rest = segments.slice(3);
    }
    if (groupVersion === undefined) return statusReply(pathNotFoundStatus());
    if (rest.length === 0) {
      const list = apiResourceList(groupVersion);
      if (list === undefined) return statusReply(pathNotFoundStatus());
      return method === 'GET' ? { code: 200, body: list } : statusReply(methodNotAllowedStatus());
    }
    const streamingRoute = podStreamingRoute(groupVersion, rest);
    if (streamingRoute !== undefined) {
      const outcome = await streaming.handle(req, res, streamingRoute, query);
      if (outcome.kind === 'done') return undefined;
      return outcome.kind === 'error' ? errorReply(outcome.error) : { code: outcome.code, body: outcome.text, contentType: 'text/plain; charset=utf-8' };
    }
    const route = resourceRoute(groupVersion, rest);
    if (route === undefined) return statusReply(pathNotFoundStatus());
    return handleResource(req, res, route, query);
  };

  /** Answers with a Status whatever went wrong writing `reply`; a failure after the headers cuts the connection. */
  const sendSafely = (res: ServerResponse, reply: Reply): void => {
    try {
      send(res, reply);
    } catch (e) {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      try {
        send(res, errorReply(internalError(e instanceof Error ? e.message : String(e))));
      } catch {
        res.destroy();
      }
    }
  };

  const answer = (req: IncomingMessage, res: ServerResponse, reply: Reply, early: boolean): void => {
    if (early) {
      // Answered before its body was read (refused early): the connection is not reused, so a
      // client cannot send its next request into the rest of this body. It is closed after a
      // linger that keeps reading what the client still sends, so the client reads the answer
      // instead of a reset (closing a socket with unread bytes sends RST, which drops them).
      if (!res.headersSent) res.setHeader('Connection', 'close');
      lingerOnClose(req.socket, timeouts.lingerMs);
    }
    sendSafely(res, reply);
    if (early) req.resume();
  };

  const onRequest = (req: IncomingMessage, res: ServerResponse): void => {
    options.metrics?.track(req, res);
    let handled: Promise<Reply | undefined>;
    try {
      handled = handle(req, res);
    } catch (e) {
      handled = Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    handled
      .then(
        (reply) => {
          if (reply !== undefined) answer(req, res, reply, !req.complete && !res.headersSent);
          else if (!req.complete) req.resume();
        },
        (e: unknown) => {
          if (e instanceof BodyTooLarge) {
            answer(req, res, errorReply(requestEntityTooLargeError(MAX_REQUEST_BODY_BYTES)), true);
            return;
          }
          answer(req, res, errorReply(isApiError(e) ? e : internalError(e instanceof Error ? e.message : String(e))), !req.complete && !res.headersSent);
        },
      )
      .catch(() => {
        // Nothing above throws; should it, the connection is cut rather than the process.
        res.destroy();
      });
  };

  const timeouts = {
    ...DEFAULT_TIMEOUTS,
    ...Object.fromEntries(Object.entries(options.timeouts ?? {}).filter(([, v]) => v !== undefined)),
  } as Required<ApiServerTimeouts>;
  const logger = options.logger ?? consoleLogger;
  // Node requires the header deadline to be no longer than the request one.
  const requestMs = Math.max(timeouts.requestMs, timeouts.requestHeadersMs);
  const serverOptions = {
    headersTimeout: timeouts.requestHeadersMs,
    requestTimeout: requestMs,
    keepAliveTimeout: timeouts.idleMs,
    connectionsCheckingInterval: timeouts.checkIntervalMs,
  };
  const server: Server =
    options.tls === undefined
      ? createServer(serverOptions, onRequest)
      : createTlsServer({ ...serverOptions, cert: options.tls.cert, key: options.tls.key, handshakeTimeout: timeouts.tlsHandshakeMs }, onRequest);
  // A request Node's parser refuses (a character not allowed in a URL, oversized headers) gets
  // a Status like every other failure, instead of Node's bare 400 with no body. A connection
  // past its header or request deadline, or whose TLS handshake failed or timed out, is closed
  // without an answer, as Go's server does when a read deadline passes.
  server.on('clientError', (err: NodeJS.ErrnoException, socket) => {
    if (!socket.writable || err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_TLS_HANDSHAKE_TIMEOUT' || err.code === 'ECONNRESET' || err.code === 'EPIPE') {
      socket.destroy();
      return;
    }
    const tooLarge = err.code === 'HPE_HEADER_OVERFLOW';
    const code = tooLarge ? 431 : 400;
    const body = JSON.stringify({
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: tooLarge ? 'Request Header Fields Too Large' : 'the request could not be parsed',
      reason: 'BadRequest',
      code,
    });
    socket.end(`HTTP/1.1 ${code} ${tooLarge ? 'Request Header Fields Too Large' : 'Bad Request'}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);
    lingerOnClose(socket as Socket, timeouts.lingerMs, true);
  });
  // A TLS handshake that fails or times out: Node destroys the socket itself; without this
  // listener the failure is only unreported, never fatal.
  server.on('tlsClientError', () => undefined);
  // A request that asks to upgrade goes through the same handler with a response on its socket:
  // exec's WebSocket takes the socket over, any other answer closes the connection once sent.
  server.on('upgrade', (req: IncomingMessage, socket: Socket, head: Buffer) => {
    upgrades.set(req, { socket, head });
    onRequest(req, responseOnSocket(req, socket, () => lingerOnClose(socket, timeouts.lingerMs, true)));
  });
  // An accept that fails (out of file descriptors: EMFILE, ENFILE) is reported on the server;
  // without a listener that would end the process. The listener keeps listening, and libuv
  // accepts again once descriptors are free (it closes the connections it could not take).
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  let acceptErrors = 0;
  let listening = false;
  server.on('error', (err: NodeJS.ErrnoException) => {
    if (!listening) return;
    acceptErrors++;
    // A flood of refused connections must not become a flood of log lines: the 1st, 2nd,
    // 4th, 8th, ... error of the run is logged, with the count so far.
    if ((acceptErrors & (acceptErrors - 1)) === 0) logger.log('error', `http: accept error: ${err.message} (${acceptErrors} so far); still listening`);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      listening = true;
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const hostForUrl = host.includes(':') ? `[${host}]` : host;
  address = `${hostForUrl}:${port}`;

  return {
    url: `${options.tls === undefined ? 'http' : 'https'}://${address}`,
    port,
    close: async () => {
      closing = true;
      for (const extension of options.extensions ?? []) extension.close?.();
      streaming.close();
      const pending = [...watches];
      for (const w of pending) w.stop();
      await Promise.all(pending.map((w) => w.done));
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
        // Connections still in their TLS handshake, or lingering after an early answer, are
        // not HTTP connections yet (or any more): closeAllConnections does not see them.
        for (const socket of sockets) socket.destroy();
      });
    },
    stats: async () => {
      const connections = await new Promise<number>((resolve) => server.getConnections((err, n) => resolve(err === null ? n : sockets.size)));
      return { connections, acceptErrors };
    },
  };
}

/** A request's DeleteOptions as the registry takes them: always some, so that a pod's delete is graceful. */
function registryDeleteOptions(options: DeleteRequestOptions): DeleteOptions {
  return {
    ...(options.preconditions === undefined ? {} : { preconditions: options.preconditions }),
    ...(options.gracePeriodSeconds === undefined ? {} : { gracePeriodSeconds: options.gracePeriodSeconds }),
    ...(options.propagationPolicy === undefined ? {} : { propagationPolicy: options.propagationPolicy }),
  };
}

/**
 * The metrics labels of a request to a resource route: every route the installer makes is
 * instrumented, so a request is recorded once it has a route and a method routed there.
 * upstream (v1.33): staging/src/k8s.io/apiserver/pkg/endpoints/installer.go (InstrumentRouteFunc
 *           around each route's handler, with the route's group, version, resource and subresource)
 */
function routeLabels(req: IncomingMessage, route: Route, query: URLSearchParams): ReturnType<typeof requestLabels> {
  const slash = route.info.apiVersion.indexOf('/');
  return requestLabels({
    method: req.method ?? 'GET',
    query,
    contentType: req.headers['content-type'],
    group: route.info.group,
    version: slash < 0 ? route.info.apiVersion : route.info.apiVersion.slice(slash + 1),
    resource: route.info.resource,
    subresource: route.kind === 'item' ? (route.subresource ?? '') : '',
    namespace: route.namespace ?? '',
    name: route.kind === 'item' ? route.name : '',
  });
}

/** dryRun=All is refused rather than ignored: this server has no dry-run path through allocation. */
function dryRunRefused(): ApiError {
  return badRequestError('dryRun is not supported by this server');
}

function fromDispatch(r: Parsed<{ code: number; body: unknown; warnings: readonly string[] }>): Reply {
  return r.ok ? { code: r.value.code, body: r.value.body, warnings: r.value.warnings } : errorReply(r.error);
}


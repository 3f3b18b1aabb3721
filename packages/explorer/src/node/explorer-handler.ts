// The explorer's HTTP handler: the page's static files, and its data behind the bearer token:
// the model as JSON, the model again on every change as a server-sent event stream, and packet
// traces. It is mounted by the API server of `kubesvc up` (an ApiServerExtension, matched by
// shape) and by the read-only server of `kubesvc explore`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { err } from '@kubesvc/api-types';
import type { ExplorerModel, TraceAnswer, TraceRequest } from '../explorer-model.js';
import { loadUiAssets, type UiAsset } from './ui-assets.js';

export const EXPLORER_PREFIX = '/ui/';

/** Where the model comes from: a live cluster or a dump. */
export interface ExplorerSource {
  /** The current model; a live source may build it when asked, after changes. */
  model(): ExplorerModel | Promise<ExplorerModel>;
  /** Calls `listener` after each change; returns the unsubscribe. A dump never changes. */
  subscribe(listener: () => void): () => void;
  trace(request: TraceRequest): TraceAnswer | Promise<TraceAnswer>;
}

export interface ExplorerHandlerOptions {
  readonly source: ExplorerSource;
  /** Changes closer together than this reach the page as one event. Default 50 ms. */
  readonly coalesceMs?: number;
  /** A comment line on idle event streams, so that proxies keep them open. Default 15 s. */
  readonly heartbeatMs?: number;
  /** The bundle's folder; default the package's ui/. */
  readonly uiDir?: string;
}

export interface ExplorerHandler {
  readonly prefix: string;
  /** The static files carry no cluster data; every /ui/api/ path needs the token. */
  isPublic(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse, url: URL): Promise<void>;
  /** Ends the open event streams. */
  close(): void;
}

const TRACE_PROTOCOLS = new Set(['tcp', 'udp', 'sctp', 'icmp']);

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  res.writeHead(code, { 'Content-Type': 'application/json', 'Cache-Control': 'no-store' });
  res.end(JSON.stringify(body));
}

/** The handler for the explorer's paths below /ui/. */
export function createExplorerHandler(options: ExplorerHandlerOptions): ExplorerHandler {
  const { source } = options;
  const coalesceMs = options.coalesceMs ?? 50;
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const assets: ReadonlyMap<string, UiAsset> = loadUiAssets(options.uiDir);
  const streams = new Set<() => void>();

  const stream = (req: IncomingMessage, res: ServerResponse): void => {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-store', 'X-Accel-Buffering': 'no' });
    let timer: NodeJS.Timeout | undefined;
    // One model in flight per stream, so that an older model never arrives after a newer one;
    // a change while one is in flight asks for one more.
    let sending = false;
    let again = false;
    const push = (): void => {
      timer = undefined;
      if (sending) {
        again = true;
        return;
      }
      sending = true;
      void Promise.resolve()
        .then(() => source.model())
        .then(
          (model) => {
            if (!res.writableEnded) res.write(`event: model\ndata: ${JSON.stringify(model)}\n\n`);
          },
          () => undefined,
        )
        .finally(() => {
          sending = false;
          if (again && !res.writableEnded) {
            again = false;
            push();
          }
        });
    };
    const unsubscribe = source.subscribe(() => {
      timer ??= setTimeout(push, coalesceMs);
    });
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
    const end = (): void => {
      if (timer !== undefined) clearTimeout(timer);
      clearInterval(heartbeat);
      unsubscribe();
      streams.delete(end);
      if (!res.writableEnded) res.end();
    };
    streams.add(end);
    req.on('close', end);
    push();
  };

  return {
    prefix: EXPLORER_PREFIX,
    isPublic: (path) => !path.startsWith(`${EXPLORER_PREFIX}api/`),
    handle: async (req, res, url) => {
      const path = url.pathname.slice(EXPLORER_PREFIX.length);
      const method = req.method ?? 'GET';
      if (method !== 'GET' && method !== 'HEAD') {
        sendJson(res, 405, { message: 'the explorer is read-only: GET only' });
        return;
      }
      switch (path) {
        case 'api/model':
          sendJson(res, 200, await source.model());
          return;
        case 'api/events':
          stream(req, res);
          return;
        case 'api/trace': {
          const q = url.searchParams;
          const protocol = q.get('protocol') ?? 'tcp';
          if (!TRACE_PROTOCOLS.has(protocol)) {
            sendJson(res, 400, err({ _tag: 'ErrExplorerTrace', message: `protocol ${JSON.stringify(protocol)}: one of tcp, udp, sctp, icmp` }));
            return;
          }
          const request: TraceRequest = { source: q.get('source') ?? '', destination: q.get('destination') ?? '', protocol: protocol as TraceRequest['protocol'] };
          const answer = await source.trace(request);
          sendJson(res, answer.ok ? 200 : 400, answer);
          return;
        }
        default:
          break;
      }
      const asset = assets.get(path === '' ? 'index.html' : path);
      if (asset === undefined) {
        sendJson(res, 404, { message: `no such page: ${url.pathname}` });
        return;
      }
      // The bundle's file names carry a content hash; index.html names the current ones.
      const cache = path.startsWith('assets/') ? 'public, max-age=31536000, immutable' : 'no-cache';
      res.writeHead(200, { 'Content-Type': asset.contentType, 'Cache-Control': cache, 'Content-Length': asset.body.length });
      res.end(method === 'HEAD' ? undefined : asset.body);
    },
    close: () => {
      for (const end of [...streams]) end();
    },
  };
}

// The explorer's HTTP handler: the page's static files, and its data behind the bearer token:
// the model as JSON, the model again on every change as a server-sent event stream, and packet
// traces; each of them as kube-proxy on one of the source's Nodes (`node=NAME`), and a packet
// traced as sent on every Node (the node matrix). It is mounted by the API server of `kubesvc up` (an ApiServerExtension, matched by
// shape) and by the read-only server of `kubesvc explore`.
import type { IncomingMessage, ServerResponse } from 'node:http';
import { err, type Result } from '@kubesvc/api-types';
import type { ErrExplorerNode, ExplorerModel, ModelAnswer, NodeMatrixAnswer, NodeMatrixRequest, ReplayAnswer, ReplayRequest, TraceAnswer, TraceRequest } from '../explorer-model.js';
import { replayRequestOf } from './replay-request.js';
import { loadUiAssets, type UiAsset } from './ui-assets.js';

export const EXPLORER_PREFIX = '/ui/';

/** Where the model comes from: a live cluster or a dump. */
export interface ExplorerSource {
  /** The current model; a live source may build it when asked, after changes. */
  model(): ExplorerModel | Promise<ExplorerModel>;
  /** Calls `listener` after each change; returns the unsubscribe. A dump never changes. */
  subscribe(listener: () => void): () => void;
  /** A trace; with `request.node`, as sent on that Node (an unknown one: ErrExplorerNode). */
  trace(request: TraceRequest): TraceAnswer | Promise<TraceAnswer>;
  /**
   * The model with the rules of kube-proxy on the source's Node `node` (one of the model's
   * `nodes`). A source without it has no Nodes: asking for one is a 404.
   */
  modelAsNode?(node: string): ModelAnswer | Promise<ModelAnswer>;
  /** The packet traced as sent on each of the source's Nodes; a source without it has no Nodes. */
  matrix?(request: NodeMatrixRequest): NodeMatrixAnswer | Promise<NodeMatrixAnswer>;
  /**
   * Real requests sent from a pod that is a network namespace, counted by the pod that answers
   * each; it ends in bounded time. A source without it runs no pod network: asking is a 404.
   */
  replay?(request: ReplayRequest): ReplayAnswer | Promise<ReplayAnswer>;
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

/** What the source says when asked as a Node it does not have, or when it has no Nodes. */
const NO_NODES = (what: string): Result<never, ErrExplorerNode> => err({ _tag: 'ErrExplorerNode', message: `${what}: this source has no Nodes` });

/** 404 for a Node the source does not have (or a thing it cannot do at all), 400 for a request it cannot answer. */
function statusOf(answer: { ok: boolean; error?: { _tag: string } }): number {
  if (answer.ok) return 200;
  const tag = answer.error?._tag;
  return tag === 'ErrExplorerNode' || tag === 'ErrExplorerUnavailable' ? 404 : 400;
}

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

  /** The model, or as kube-proxy on the Node `node` sees it (an error when the source has no such Node). */
  const read = async (node: string | undefined): Promise<ModelAnswer> => {
    if (node === undefined) return { ok: true, value: await source.model() };
    return source.modelAsNode === undefined ? NO_NODES(`node ${JSON.stringify(node)}`) : source.modelAsNode(node);
  };

  const stream = (req: IncomingMessage, res: ServerResponse, node: string | undefined): void => {
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
        .then(() => read(node))
        .then(
          (answer) => {
            if (answer.ok && !res.writableEnded) res.write(`event: model\ndata: ${JSON.stringify(answer.value)}\n\n`);
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
      const q = url.searchParams;
      // `node=` (empty) is the picker's "(no node)": the server's flags, as without it.
      const node = q.get('node') || undefined;
      const protocol = q.get('protocol') ?? 'tcp';
      const badProtocol = (): boolean => {
        if (TRACE_PROTOCOLS.has(protocol)) return false;
        sendJson(res, 400, err({ _tag: 'ErrExplorerTrace', message: `protocol ${JSON.stringify(protocol)}: one of tcp, udp, sctp, icmp` }));
        return true;
      };
      switch (path) {
        case 'api/model': {
          const answer = await read(node);
          sendJson(res, statusOf(answer), answer.ok ? answer.value : answer);
          return;
        }
        case 'api/events': {
          // An unknown Node is refused before the stream opens, so that the page can say why.
          const first = node === undefined ? undefined : await read(node);
          if (first !== undefined && !first.ok) {
            sendJson(res, statusOf(first), first);
            return;
          }
          stream(req, res, node);
          return;
        }
        case 'api/trace': {
          if (badProtocol()) return;
          const request: TraceRequest = {
            source: q.get('source') ?? '',
            destination: q.get('destination') ?? '',
            protocol: protocol as TraceRequest['protocol'],
            ...(node !== undefined ? { node } : {}),
          };
          const answer = await source.trace(request);
          sendJson(res, statusOf(answer), answer);
          return;
        }
        case 'api/matrix': {
          if (badProtocol()) return;
          const request: NodeMatrixRequest = {
            source: q.get('source') ?? '',
            destination: q.get('destination') ?? '',
            protocol: protocol as NodeMatrixRequest['protocol'],
            nodePort: q.get('nodePort') === 'true',
          };
          const answer = source.matrix === undefined ? NO_NODES('the node matrix') : await source.matrix(request);
          sendJson(res, statusOf(answer), answer);
          return;
        }
        case 'api/replay': {
          if (source.replay === undefined) {
            sendJson(res, 404, err({ _tag: 'ErrExplorerUnavailable', message: 'replay: this source runs no pod network (kubesvc up --dataplane netns sends real requests)' }));
            return;
          }
          const request = replayRequestOf(q);
          const answer = request.ok ? await source.replay(request.value) : request;
          sendJson(res, statusOf(answer), answer);
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

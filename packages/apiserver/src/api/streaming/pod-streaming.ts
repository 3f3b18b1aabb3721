// The pods/log, pods/exec, pods/attach and pods/portforward routes: the apiserver's checks in
// upstream's order, then the node's side through the ContainerRuntime. Exec and attach are
// served over WebSocket (the remote-command channel protocol); a request the node refuses
// before the upgrade gets the kubelet's plain-text answer, which kube-apiserver's upgrade-aware
// proxy passes through (kubectl prints `unable to upgrade connection: <text>`).
// upstream (v1.33): pkg/registry/core/pod/rest/subresources.go (ExecREST, AttachREST,
//           PortForwardREST: GET and POST, ConnectMethods), pkg/registry/core/pod/strategy.go
//           (ExecLocation, AttachLocation, PortForwardLocation), pkg/kubelet/server/server.go
//           (getExec, getAttach: the kubelet's refusals), pkg/kubelet/cri/streaming/
//           remotecommand/httpstream.go (NewOptions: at least one stream, no stderr with a tty),
//           pkg/kubelet/cri/streaming/errors.go (WriteError: the error's text, 500),
//           staging/src/k8s.io/apimachinery/pkg/util/httpstream/wsstream/conn.go (IsWebSocketRequest)
import { ServerResponse, type IncomingMessage } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type WebSocket } from 'ws';
import type { Pod } from '@kubesvc/api-types';
import { badRequestError, methodNotAllowedError, type ApiError } from '../../registry/errors.js';
import type { ApiServerMetrics } from '../../metrics/apiserver-metrics.js';
import { requestLabels } from '../../metrics/request-labels.js';
import { invalidNameError } from '../request-target.js';
import type { Registry } from '../../registry/registry.js';
import type { ContainerRuntime, ErrContainerRuntime } from '../container-runtime.js';
import { serveLog } from './logs.js';
import { noHostError, streamOptions, validateContainer, type Checked } from './pod-target.js';
import { negotiateProtocol, serveRemoteCommand, SUPPORTED_PROTOCOLS } from './remote-command.js';
import { PORT_FORWARD_PROTOCOL_V1, PORT_FORWARD_TUNNEL_PROTOCOL, portForwardStreams } from './port-forward.js';
import { spdyServer } from './spdy.js';

export type PodStreamingSubresource = 'log' | 'exec' | 'attach' | 'portforward';

/** Bytes queued for kubectl past which the pods' connections stop being read, and below which they are read again. */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;

const SUBRESOURCES: ReadonlySet<string> = new Set<PodStreamingSubresource>(['log', 'exec', 'attach', 'portforward']);

export interface PodStreamingRoute {
  readonly namespace: string;
  readonly name: string;
  readonly subresource: PodStreamingSubresource;
}

/** The route of `/api/v1/namespaces/<ns>/pods/<name>/<log|exec|attach|portforward>` (the segments after `/api/v1`), or undefined. */
export function podStreamingRoute(groupVersion: string, rest: readonly string[]): PodStreamingRoute | undefined {
  if (groupVersion !== 'v1' || rest.length !== 5) return undefined;
  const [first, namespace, resource, name, sub] = rest;
  if (first !== 'namespaces' || resource !== 'pods' || namespace === undefined || name === undefined || sub === undefined || namespace === '' || name === '') return undefined;
  return SUBRESOURCES.has(sub) ? { namespace, name, subresource: sub as PodStreamingSubresource } : undefined;
}

/** Which methods each route takes: log is a GET; the connect subresources take GET and POST. */
export function isStreamingMethod(route: PodStreamingRoute, method: string): boolean {
  return route.subresource === 'log' ? method === 'GET' : method === 'GET' || method === 'POST';
}

/** The socket of a request that asked to upgrade, handed over by the server's `upgrade` event. */
export interface UpgradeSocket {
  readonly socket: Duplex;
  readonly head: Buffer;
}

/** What a streaming request comes to: an API error (a Status), the node's plain-text refusal, or nothing more to send. */
export type StreamingOutcome =
  | { readonly kind: 'error'; readonly error: ApiError }
  | { readonly kind: 'text'; readonly code: number; readonly text: string }
  | { readonly kind: 'done' };

export interface PodStreamingOptions {
  readonly registry: Registry;
  readonly runtime: ContainerRuntime;
  /** The socket of `req` when it came as an upgrade, else undefined. */
  upgradeOf(req: IncomingMessage): UpgradeSocket | undefined;
  /** Where each routed request is labelled, and an upgraded one marked (recorded with code 101 when its WebSocket closes). */
  readonly metrics?: Pick<ApiServerMetrics, 'label' | 'switchedProtocols'>;
}

/**
 * A response written straight to the socket of a request that came as an upgrade (Node hands
 * those over without one); it closes the connection once sent (`onFinish`).
 */
export function responseOnSocket(req: IncomingMessage, socket: Socket, onFinish: () => void): ServerResponse {
  socket.on('error', () => socket.destroy());
  const res = new ServerResponse(req);
  res.shouldKeepAlive = false;
  res.assignSocket(socket);
  res.once('finish', onFinish);
  return res;
}

export interface PodStreaming {
  handle(req: IncomingMessage, res: ServerResponse, route: PodStreamingRoute, query: URLSearchParams): Promise<StreamingOutcome>;
  /** Ends every open exec and attach. */
  close(): void;
}

/** Whether the request asks for a WebSocket: `Upgrade: websocket` and an `upgrade` token in Connection. */
export function isWebSocketRequest(req: IncomingMessage): boolean {
  const upgrade = req.headers.upgrade ?? '';
  const connection = (req.headers.connection ?? '').toLowerCase();
  return upgrade.toLowerCase() === 'websocket' && /(^|.*,\s*)upgrade($|\s*,)/.test(connection);
}

/** The kubelet's answer when the node refused: the error's text with a 500 (its errors are no gRPC NotFound). */
function kubeletRefusal(error: ErrContainerRuntime): StreamingOutcome {
  return { kind: 'text', code: 500, text: error.message };
}

export function createPodStreaming(options: PodStreamingOptions): PodStreaming {
  const { registry, runtime } = options;
  const sockets = new Set<WebSocket>();
  // The sockets of plain SPDY sessions (port-forward's fallback).
  const raws = new Set<Duplex>();
  const wss = new WebSocketServer({
    noServer: true,
    perMessageDeflate: false,
    clientTracking: false,
    handleProtocols: (offered) => negotiateProtocol(offered) ?? false,
  });
  // `SPDY/3.1+portforward.k8s.io` holds a `/`, which is no token character: ws refuses such a
  // Sec-WebSocket-Protocol header, where Go's WebSocket servers take it. Such a request's
  // header is taken off before ws reads it (tunnelled below) and the answer names it again.
  const tunnelled = new WeakSet<IncomingMessage>();
  wss.on('headers', (headers, req) => {
    if (tunnelled.has(req)) headers.push(`Sec-WebSocket-Protocol: ${PORT_FORWARD_TUNNEL_PROTOCOL}`);
  });

  const getPod = async (namespace: string, name: string): Promise<Checked<Pod>> => {
    const got = await registry.get<Pod>('pods', namespace, name);
    return got.ok ? { ok: true, value: got.value } : { ok: false, error: got.error };
  };

  /** The WebSocket, or undefined when ws refused the handshake (it answered 400 and closed the socket itself). */
  const upgrade = (req: IncomingMessage, res: ServerResponse, socket: UpgradeSocket): Promise<WebSocket | undefined> =>
    new Promise((resolve) => {
      res.detachSocket(socket.socket as Parameters<ServerResponse['detachSocket']>[0]);
      const refused = (): void => {
        res.emit('close');
        resolve(undefined);
      };
      socket.socket.once('close', refused);
      wss.handleUpgrade(req, socket.socket, socket.head, (ws) => {
        socket.socket.off('close', refused);
        sockets.add(ws);
        ws.once('close', () => sockets.delete(ws));
        options.metrics?.switchedProtocols(req);
        // The detached response never closes by itself: it closes with the WebSocket, and the
        // request is recorded then.
        ws.once('close', () => res.emit('close'));
        resolve(ws);
      });
    });

  /** SPDY tunnelled in a WebSocket (`SPDY/3.1+portforward.k8s.io`, kubectl's first try) or a plain SPDY/3.1 upgrade (its fallback). */
  const servePortForward = async (req: IncomingMessage, res: ServerResponse, pod: Pod): Promise<StreamingOutcome> => {
    const socket = options.upgradeOf(req);
    const running = await runtime.podRunning?.(pod);
    if (running !== undefined && !running.ok) return kubeletRefusal(running.error);
    if (socket === undefined) return { kind: 'error', error: badRequestError('Upgrade request required') };
    if (isWebSocketRequest(req)) {
      const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim());
      if (!offered.includes(PORT_FORWARD_TUNNEL_PROTOCOL)) return { kind: 'text', code: 400, text: `requested protocol(s) are not supported: [${offered.join(' ')}]; supports [${PORT_FORWARD_TUNNEL_PROTOCOL}]` };
      tunnelled.add(req);
      delete req.headers['sec-websocket-protocol'];
      const ws = await upgrade(req, res, socket);
      if (ws === undefined) return { kind: 'done' };
      let waiting: (() => void)[] = [];
      const sent = (): void => {
        if (waiting.length === 0 || ws.bufferedAmount > LOW_WATER) return;
        const then = waiting;
        waiting = [];
        for (const f of then) f();
      };
      const forwards = portForwardStreams(runtime, pod, {
        congested: () => ws.bufferedAmount > HIGH_WATER,
        whenDrained: (then) => waiting.push(then),
      });
      const session = spdyServer(
        (bytes) => {
          if (ws.readyState === ws.OPEN) ws.send(bytes, sent);
        },
        () => ws.close(1000),
        (stream) => forwards.onStream(stream),
      );
      ws.on('message', (data: Buffer) => session.receive(data));
      await new Promise<void>((resolve) => ws.once('close', () => resolve()));
      session.close();
      forwards.close();
      return { kind: 'done' };
    }
    if ((req.headers.upgrade ?? '').toLowerCase() !== 'spdy/3.1') return { kind: 'text', code: 400, text: `unable to upgrade: unsupported upgrade ${JSON.stringify(req.headers.upgrade ?? '')}` };
    const header = req.headers['x-stream-protocol-version'] ?? '';
    const versions = (Array.isArray(header) ? header.join(',') : header).split(',').map((p) => p.trim()).filter((p) => p !== '');
    if (versions.length > 0 && !versions.includes(PORT_FORWARD_PROTOCOL_V1)) {
      return { kind: 'text', code: 403, text: `unable to upgrade: unable to negotiate protocol: client supports [${versions.join(' ')}], server accepts [${PORT_FORWARD_PROTOCOL_V1}]` };
    }
    const raw = socket.socket;
    let waiting: (() => void)[] = [];
    raw.on('drain', () => {
      const then = waiting;
      waiting = [];
      for (const f of then) f();
    });
    const forwards = portForwardStreams(runtime, pod, { congested: () => raw.writableNeedDrain, whenDrained: (then) => waiting.push(then) });
    res.detachSocket(raw as Parameters<ServerResponse['detachSocket']>[0]);
    options.metrics?.switchedProtocols(req);
    raw.write(`HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n${versions.length > 0 ? `X-Stream-Protocol-Version: ${PORT_FORWARD_PROTOCOL_V1}\r\n` : ''}\r\n`);
    const session = spdyServer(
      (bytes) => {
        if (!raw.destroyed) raw.write(bytes);
      },
      () => raw.end(),
      (stream) => forwards.onStream(stream),
    );
    raws.add(raw);
    raw.on('data', (chunk: Buffer) => session.receive(chunk));
    if (socket.head.length > 0) session.receive(socket.head);
    await new Promise<void>((resolve) => raw.once('close', () => resolve()));
    raws.delete(raw);
    session.close();
    forwards.close();
    res.emit('close');
    return { kind: 'done' };
  };

  const handleStream = async (req: IncomingMessage, res: ServerResponse, route: PodStreamingRoute, query: URLSearchParams): Promise<StreamingOutcome> => {
    const pod = await getPod(route.namespace, route.name);
    if (!pod.ok) return { kind: 'error', error: pod.error };
    const opts = streamOptions(query);
    let container = '';
    if (route.subresource !== 'portforward') {
      const checked = validateContainer(opts.container, pod.value);
      if (!checked.ok) return { kind: 'error', error: checked.error };
      container = checked.value;
    }
    if ((pod.value.spec?.nodeName ?? '') === '') return { kind: 'error', error: noHostError(route.name) };
    // A request that is no upgrade can never stream: refused here, with a Status, before the
    // node is asked (the kubelet would ask its runtime first and then refuse in plain text).
    if (options.upgradeOf(req) === undefined) return { kind: 'error', error: badRequestError('Upgrade request required') };
    // The kubelet's side from here on.
    if (route.subresource === 'portforward') return servePortForward(req, res, pod.value);
    const request = { ...opts.request, stderr: opts.request.stderr && !opts.request.tty };
    if (!request.stdin && !request.stdout && !request.stderr) return { kind: 'text', code: 400, text: 'you must specify at least 1 of stdin, stdout, stderr' };
    if (route.subresource === 'exec' && request.command.length === 0) return { kind: 'text', code: 400, text: 'you must specify at least 1 command' };
    const socket = options.upgradeOf(req);
    const webSocket = socket !== undefined && isWebSocketRequest(req);
    if (webSocket && negotiateProtocol((req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim())) === undefined) {
      return { kind: 'text', code: 400, text: `requested protocol(s) are not supported: [${(req.headers['sec-websocket-protocol'] ?? '').split(',').map((p) => p.trim()).join(' ')}]; supports [${SUPPORTED_PROTOCOLS.join(' ')}]` };
    }
    const target = { pod: pod.value, container };
    const started = route.subresource === 'exec' ? await runtime.exec(target, request) : await runtime.attach(target, { stdin: request.stdin, stdout: request.stdout, stderr: request.stderr, tty: request.tty });
    if (!started.ok) return kubeletRefusal(started.error);
    const process = started.value;
    if (!webSocket || socket === undefined) {
      process.kill();
      // SPDY (kubectl's fallback, and older clients) is not served: see docs/deviations.md.
      return { kind: 'text', code: 400, text: 'unable to upgrade: only WebSocket (v5.channel.k8s.io, v4.channel.k8s.io) is served, not SPDY' };
    }
    const ws = await upgrade(req, res, socket);
    if (ws === undefined) {
      process.kill();
      return { kind: 'done' };
    }
    await serveRemoteCommand(ws, process, request.command);
    return { kind: 'done' };
  };

  return {
    async handle(req, res, route, query) {
      const method = req.method ?? 'GET';
      if (!isStreamingMethod(route, method)) return { kind: 'error', error: methodNotAllowedError() };
      options.metrics?.label(
        req,
        requestLabels({ method, query, contentType: req.headers['content-type'], group: '', version: 'v1', resource: 'pods', subresource: route.subresource, namespace: route.namespace, name: route.name }),
      );
      const badName = invalidNameError(route.name);
      if (badName !== undefined) return { kind: 'error', error: badName };
      if (route.subresource === 'log') {
        const logged = await serveLog(runtime, route.name, query, () => getPod(route.namespace, route.name), res);
        return logged.ok ? { kind: 'done' } : { kind: 'error', error: logged.error };
      }
      return handleStream(req, res, route, query);
    },
    close() {
      for (const ws of sockets) ws.terminate();
      for (const raw of raws) raw.destroy();
    },
  };
}

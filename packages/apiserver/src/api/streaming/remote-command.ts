// The remote-command protocol of exec and attach over WebSocket, as the kubelet's streaming
// server speaks it to kubectl: every binary message starts with its channel (0 stdin, 1 stdout,
// 2 stderr, 3 error, 4 resize); the error channel carries one metav1.Status at the end (Success,
// or Failure with reason NonZeroExitCode and the exit code as an ExitCode cause); v5 adds the
// close signal (255, channel) by which the client ends its stdin. The server then closes the
// connection (normal closure), which the client reads as the end of every stream.
// upstream (v1.33): staging/src/k8s.io/apimachinery/pkg/util/httpstream/wsstream/conn.go
//           (channels, the 255 close signal of v5), pkg/kubelet/cri/streaming/remotecommand/
//           websocket.go (createWebSocketStreams: the empty first write, the channel roles),
//           pkg/kubelet/cri/streaming/remotecommand/httpstream.go (v4 writeStatus: the Status
//           JSON), staging/src/k8s.io/apimachinery/pkg/util/remotecommand/constants.go
//           (protocol names, NonZeroExitCode, ExitCode), staging/src/k8s.io/client-go/tools/
//           remotecommand/websocket.go and v4.go (what kubectl sends and decodes)
import { constants } from 'node:os';
import type { WebSocket } from 'ws';
import type { ContainerProcess, ExitStatus } from '../container-runtime.js';

export const STREAM_PROTOCOL_V5 = 'v5.channel.k8s.io';
export const STREAM_PROTOCOL_V4 = 'v4.channel.k8s.io';
/** The protocols served, in no order of preference: the client's order decides (wsstream's handshake). */
export const SUPPORTED_PROTOCOLS: readonly string[] = [STREAM_PROTOCOL_V5, STREAM_PROTOCOL_V4];

export const CHANNEL_STDIN = 0;
export const CHANNEL_STDOUT = 1;
export const CHANNEL_STDERR = 2;
export const CHANNEL_ERROR = 3;
export const CHANNEL_RESIZE = 4;
/** v5's close signal: the message (255, channel) ends the client's side of that channel. */
export const CHANNEL_CLOSE = 255;

/** Queued output past which the process's streams are paused, and below which they go on. */
const HIGH_WATER = 1024 * 1024;
const LOW_WATER = 256 * 1024;

/** The first protocol of the client's list this server speaks, or undefined. */
export function negotiateProtocol(offered: Iterable<string>): string | undefined {
  for (const p of offered) if (SUPPORTED_PROTOCOLS.includes(p)) return p;
  return undefined;
}

/** The exit code of a status: a signal's is 128 + its number, as a shell and the runtimes report it. */
export function exitCodeOf(status: ExitStatus): number {
  if ('exitCode' in status) return status.exitCode;
  const n = (constants.signals as Record<string, number | undefined>)[status.signal];
  return 128 + (n ?? 0);
}

/** The error channel's Status for how the process ended. */
export function exitStatusBody(status: ExitStatus, command: readonly string[]): Record<string, unknown> {
  const code = exitCodeOf(status);
  if (code === 0) return { metadata: {}, status: 'Success' };
  return {
    metadata: {},
    status: 'Failure',
    message: `command terminated with non-zero exit code: error executing command [${command.join(' ')}], exit code ${code}`,
    reason: 'NonZeroExitCode',
    details: { causes: [{ reason: 'ExitCode', message: String(code) }] },
  };
}

function frame(channel: number, data: Buffer | string): Buffer {
  const body = typeof data === 'string' ? Buffer.from(data) : data;
  return Buffer.concat([Buffer.of(channel), body]);
}

/** The resize message's JSON (TerminalSize with Go's field names), or undefined when it is not one. */
function terminalSize(data: Buffer): { width: number; height: number } | undefined {
  try {
    const parsed = JSON.parse(data.toString('utf8')) as { Width?: unknown; Height?: unknown };
    if (typeof parsed.Width === 'number' && typeof parsed.Height === 'number') return { width: parsed.Width, height: parsed.Height };
  } catch {
    // not JSON: ignored, as the kubelet drops a resize it cannot decode
  }
  return undefined;
}

/**
 * Runs the protocol on an open WebSocket for a started process until the process ends (then
 * its status is sent and the connection closed) or the client goes away (then the process is
 * killed). Resolves when both are over.
 */
export async function serveRemoteCommand(ws: WebSocket, process: ContainerProcess, command: readonly string[]): Promise<void> {
  const v5 = ws.protocol === STREAM_PROTOCOL_V5;
  let clientGone = false;
  // Output the client does not read fast enough stops the process's streams (it then blocks
  // on its writes, as behind a pipe) until what is queued has gone out.
  const paused = new Set<NodeJS.ReadableStream>();
  const sent = (): void => {
    if (paused.size === 0 || ws.bufferedAmount > LOW_WATER) return;
    for (const stream of paused) stream.resume();
    paused.clear();
  };
  const send = (channel: number, data: Buffer | string): void => {
    if (ws.readyState === ws.OPEN) ws.send(frame(channel, data), sent);
  };
  // The first write tells the client the streams are ready: on the lowest writable channel.
  send(process.stdout !== undefined ? CHANNEL_STDOUT : process.stderr !== undefined ? CHANNEL_STDERR : CHANNEL_ERROR, Buffer.alloc(0));

  ws.on('message', (data: Buffer, isBinary: boolean) => {
    if (!isBinary || data.length === 0) return;
    const channel = data[0];
    const body = data.subarray(1);
    if (channel === CHANNEL_STDIN) {
      if (process.stdin !== undefined && !process.stdin.writableEnded && !process.stdin.destroyed) process.stdin.write(body);
    } else if (channel === CHANNEL_RESIZE) {
      const size = terminalSize(body);
      if (size !== undefined) process.resize(size);
    } else if (v5 && channel === CHANNEL_CLOSE && body[0] === CHANNEL_STDIN) {
      if (process.stdin !== undefined && !process.stdin.writableEnded) process.stdin.end();
    }
  });
  process.stdin?.on('error', () => undefined);
  const forward = (stream: NodeJS.ReadableStream | undefined, channel: number): void => {
    stream?.on('data', (chunk: Buffer | string) => {
      send(channel, typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
      if (ws.bufferedAmount > HIGH_WATER) {
        stream.pause();
        paused.add(stream);
      }
    });
  };
  forward(process.stdout, CHANNEL_STDOUT);
  forward(process.stderr, CHANNEL_STDERR);

  const closed = new Promise<void>((resolve) => {
    ws.once('close', () => {
      clientGone = true;
      resolve();
    });
  });
  const ended = await Promise.race([process.exited.then((status) => ({ status })), closed.then(() => undefined)]);
  if (ended === undefined || clientGone) {
    process.kill();
    return;
  }
  send(CHANNEL_ERROR, JSON.stringify(exitStatusBody(ended.status, command)));
  ws.close(1000);
  await closed;
}

// pods/portforward: the port-forward protocol (portforward.k8s.io, v1) over a SPDY session.
// For each local connection kubectl opens two streams with one `requestid` and `port`: an
// error stream (`streamtype: error`, which it half-closes at once) and a data stream
// (`streamtype: data`). Once both are there, the data stream is joined to the runtime's
// connection to the port in the pod; a failure is written as text on the error stream. When
// the pod's side ends, the data stream is half-closed; when kubectl resets the data stream
// (its local connection ended), the pod's connection is closed; either way the error stream
// is then closed, which kubectl waits for.
// upstream (v1.33): pkg/kubelet/cri/streaming/portforward/httpstream.go (httpStreamHandler:
//           streams paired by request ID, portForward, `error forwarding port %d to pod %s,
//           uid %v: %v`), staging/src/k8s.io/client-go/tools/portforward/portforward.go
//           (handleConnection: what kubectl sends and waits for), staging/src/k8s.io/api/core/v1/
//           types.go (StreamType, PortHeader, PortForwardRequestIDHeader)
import type { Duplex } from 'node:stream';
import type { Pod } from '@kubesvc/api-types';
import type { ContainerRuntime } from '../container-runtime.js';
import type { SpdyStream } from './spdy.js';

/** The port-forward protocol's name, as the upgrade negotiates it. */
export const PORT_FORWARD_PROTOCOL_V1 = 'portforward.k8s.io';
/** The WebSocket subprotocol under which kubectl tunnels SPDY for port-forward. */
export const PORT_FORWARD_TUNNEL_PROTOCOL = `SPDY/3.1+${PORT_FORWARD_PROTOCOL_V1}`;

interface Pair {
  error?: SpdyStream;
  data?: SpdyStream;
}

/** Whether the transport to kubectl has more queued than it should, and a way to hear when that is over. */
export interface TransportFlow {
  congested(): boolean;
  whenDrained(then: () => void): void;
}

/**
 * Serves a SPDY session's streams as port-forward requests into `pod`. Returns what handles
 * each new stream, and a close for the session's end. The pod's connections stop being read
 * while the transport to kubectl is congested.
 */
export function portForwardStreams(runtime: ContainerRuntime, pod: Pod, flow: TransportFlow): { onStream(stream: SpdyStream): void; close(): void } {
  const pairs = new Map<string, Pair>();
  const connections = new Set<Duplex>();

  const forward = async (port: number, error: SpdyStream, data: SpdyStream): Promise<void> => {
    // What kubectl sends before the pod's connection is there waits for it.
    let dataGone = false;
    let early: Buffer[] = [];
    let earlyEnd = false;
    data.onData = (chunk) => early.push(chunk);
    data.onEnd = () => {
      earlyEnd = true;
    };
    data.onReset = () => {
      dataGone = true;
    };
    const fail = (message: string): void => {
      error.write(Buffer.from(`error forwarding port ${port} to pod ${pod.metadata.uid ?? ''}, uid : ${message}`));
      error.end();
      data.end();
    };
    if (!Number.isInteger(port) || port < 1 || port > 65535) return fail(`invalid port ${port}`);
    const connected = await runtime.portForward(pod, port);
    if (!connected.ok) return fail(connected.error.message);
    const socket = connected.value;
    if (dataGone) {
      socket.destroy();
      error.end();
      return;
    }
    connections.add(socket);
    socket.on('data', (chunk: Buffer) => {
      data.write(chunk);
      if (flow.congested() && !socket.isPaused()) {
        socket.pause();
        flow.whenDrained(() => socket.resume());
      }
    });
    socket.once('end', () => data.end());
    socket.once('error', () => socket.destroy());
    socket.once('close', () => {
      connections.delete(socket);
      data.end();
      error.end();
    });
    data.onData = (chunk) => socket.write(chunk);
    data.onEnd = () => socket.end();
    data.onReset = () => socket.destroy();
    for (const chunk of early) socket.write(chunk);
    early = [];
    if (earlyEnd) socket.end();
  };

  return {
    onStream(stream) {
      const id = stream.headers.get('requestid') ?? '';
      const type = stream.headers.get('streamtype') ?? '';
      if (type !== 'error' && type !== 'data') {
        stream.reset();
        return;
      }
      const pair = pairs.get(id) ?? {};
      if (pair[type] !== undefined) {
        stream.reset();
        return;
      }
      pair[type] = stream;
      pairs.set(id, pair);
      const { error, data } = pair;
      if (error !== undefined && data !== undefined) {
        pairs.delete(id);
        void forward(Number(data.headers.get('port') ?? ''), error, data);
      }
    },
    close() {
      for (const socket of connections) socket.destroy();
      connections.clear();
      pairs.clear();
    },
  };
}

// Both directions of a proxied TCP connection, with back-pressure: a reader pauses while the
// writer's buffer is full. Both sockets are half-open capable, so an end (FIN) from one side
// is passed on as an end to the other while the reverse direction keeps flowing: a client that
// shuts down its sending side still gets the backend's reply.
// Upstream instead closed both connections as soon as either direction hit EOF
// (pkg/proxy/userspace/proxysocket.go copyBytes); see docs/deviations.md.
//
// Client → backend is Node's pipe. Backend → client, where the bulk of most protocols flows, is
// read with net.connect's `onread`: the kernel copies into one reused buffer and the callback
// writes it to the client, without a Buffer allocated per read nor the stream machinery of
// push, 'data' and pipe. A write the client's socket does not take at once keeps a reference
// to the buffer, so the next read gets a fresh one. A connection starts with a small buffer
// from Node's pool and moves to a full-size one when a read fills it: short request/reply
// connections, the common case, never allocate a 64 KiB buffer of their own.
import { Buffer } from 'node:buffer';
import type { Socket } from 'node:net';

/** The size of each read of a busy connection, as Node's own socket reads. */
const READ_SIZE = 64 * 1024;
/** The first buffer of a connection, small enough to come from Buffer's shared pool. */
const FIRST_READ_SIZE = 2 * 1024;

/**
 * The backend's read side: `onread` goes into net.connect's options; `attach` names the client
 * that gets what is read. Bytes read before `attach` are kept (copied) and written on attach.
 */
export interface BackendReader {
  readonly onread: { readonly buffer: () => Uint8Array; readonly callback: (bytes: number, buffer: Uint8Array) => boolean };
  attach(backend: Socket, client: Socket): void;
}

export function backendReader(): BackendReader {
  let buffer = Buffer.allocUnsafe(FIRST_READ_SIZE);
  // True when the last chunk may still be queued in the client's writable buffer, or when the
  // last read filled the buffer: either way the next read gets a new (full-size) one.
  let held = false;
  let client: Socket | undefined;
  let backend: Socket | undefined;
  let early: Buffer[] = [];
  const resume = (): void => {
    backend?.resume();
  };
  return {
    onread: {
      buffer: () => {
        if (held) {
          buffer = Buffer.allocUnsafeSlow(READ_SIZE);
          held = false;
        }
        return buffer;
      },
      callback: (bytes, into) => {
        const chunk = Buffer.from(into.buffer, into.byteOffset, bytes);
        if (bytes === into.byteLength && into.byteLength < READ_SIZE) held = true;
        if (client === undefined) {
          early.push(Buffer.from(chunk));
          return true;
        }
        const more = client.write(chunk);
        if (client.writableLength > 0) held = true;
        if (!more) client.once('drain', resume);
        return more;
      },
    },
    attach(b, c) {
      backend = b;
      client = c;
      for (const chunk of early) {
        if (!c.write(chunk)) {
          b.pause();
          c.once('drain', resume);
        }
      }
      early = [];
      b.once('end', () => c.end());
    },
  };
}

/** Ends `socket` once its queued writes are flushed, then destroys it. */
function closeAfterFlush(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableFinished) {
    socket.destroy();
    return;
  }
  socket.end(() => socket.destroy());
}

/** Joins client ⇄ backend (dialled with `reader.onread`); resolves when both sockets are closed. */
export function splice(client: Socket, backend: Socket, reader: BackendReader): Promise<void> {
  const closed = (s: Socket): Promise<void> => (s.destroyed && s.closed ? Promise.resolve() : new Promise((r) => s.once('close', () => r())));
  const done = Promise.all([closed(client), closed(backend)]).then(() => undefined);
  client.on('error', () => backend.destroy());
  backend.on('error', () => client.destroy());
  // A side that is gone for good (closed, not merely half-closed) takes the other with it
  // once the other has written what it was given.
  client.once('close', () => closeAfterFlush(backend));
  backend.once('close', () => closeAfterFlush(client));
  reader.attach(backend, client);
  client.pipe(backend);
  client.resume();
  return done;
}

// Both directions of a proxied TCP connection. Node's pipe gives back-pressure (the reader
// pauses while the writer's buffer is full). Both sockets are half-open capable, so an end
// (FIN) from one side is passed on as an end to the other while the reverse direction keeps
// flowing: a client that shuts down its sending side still gets the backend's reply.
// Upstream instead closed both connections as soon as either direction hit EOF
// (pkg/proxy/userspace/proxysocket.go copyBytes); see docs/deviations.md.
import type { Socket } from 'node:net';

/** Ends `socket` once its queued writes are flushed, then destroys it. */
function closeAfterFlush(socket: Socket): void {
  if (socket.destroyed) return;
  if (socket.writableFinished) {
    socket.destroy();
    return;
  }
  socket.end(() => socket.destroy());
}

/** Pipes client ⇄ backend; resolves when both sockets are closed. */
export function splice(client: Socket, backend: Socket): Promise<void> {
  const closed = (s: Socket): Promise<void> => (s.destroyed && s.closed ? Promise.resolve() : new Promise((r) => s.once('close', () => r())));
  const done = Promise.all([closed(client), closed(backend)]).then(() => undefined);
  client.on('error', () => backend.destroy());
  backend.on('error', () => client.destroy());
  // A side that is gone for good (closed, not merely half-closed) takes the other with it
  // once the other has written what it was given.
  client.once('close', () => closeAfterFlush(backend));
  backend.once('close', () => closeAfterFlush(client));
  client.pipe(backend);
  backend.pipe(client);
  client.resume();
  return done;
}

// Node's DNS floor, shared by the discovery suite's one-thread side (dns-peer.ts) and its
// cluster workers (dns-echo-worker.ts): the least a DNS server on Node's sockets can do.
import type { Socket } from 'node:dgram';

/** Answers each datagram on `socket` with itself, its QR bit set: a response with the question and no answers. */
export function echoQueries(socket: Socket): void {
  socket.on('message', (message, remote) => {
    message[2] = (message[2] ?? 0) | 0x80;
    socket.send(message, remote.port, remote.address);
  });
  socket.on('error', () => undefined);
}

// A cluster worker of the discovery suite's shared-socket floor (dns-peer.ts): it binds the UDP
// port the primary names in KUBESVC_ECHO_PORT, which cluster shares between the workers (one
// socket; the kernel hands each datagram to one of them), and answers each query with its own
// bytes, the QR bit set, as the one-thread floor does. It tells the primary when it is bound.
import { createSocket } from 'node:dgram';

const port = Number(process.env['KUBESVC_ECHO_PORT']);
const socket = createSocket('udp4');
socket.on('message', (message, remote) => {
  message[2] = (message[2] ?? 0) | 0x80;
  socket.send(message, remote.port, remote.address);
});
socket.on('error', () => undefined);
socket.bind(port, '127.0.0.1', () => process.send?.('bound'));

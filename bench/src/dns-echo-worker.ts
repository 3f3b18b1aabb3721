// A cluster worker of the discovery suite's shared-socket floor (dns-peer.ts): it binds the UDP
// port the primary names in KUBESVC_ECHO_PORT, which cluster shares between the workers (one
// socket; the kernel hands each datagram to one of them), and answers each query as the
// one-thread floor does (echoQueries). It tells the primary when it is bound.
import { createSocket } from 'node:dgram';
import { echoQueries } from './dns-echo.js';

const port = Number(process.env['KUBESVC_ECHO_PORT']);
const socket = createSocket('udp4');
echoQueries(socket);
socket.bind(port, '127.0.0.1', () => process.send?.('bound'));

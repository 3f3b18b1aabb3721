// A lab backend pod's server, run inside the pod's network namespace with
// `ip netns exec <pod> node backend.mjs '{"name":"be0","tcpPort":8080,"udpPort":5353}'`.
// It answers every TCP connection and every UDP datagram with one line,
// `<name> <peer address>:<peer port>`, so that the client learns which backend the kernel chose
// and the address the backend saw (the client's own, or the node's after source NAT).
// It prints `ready` once both sockets listen, and exits when its standard input closes, so a
// parent that dies without cleaning up does not leave it behind.
import { createSocket } from 'node:dgram';
import { createServer } from 'node:net';

const spec = JSON.parse(process.argv[2] ?? '{}');
const name = String(spec.name);

/** The peer as the backend sees it; Node reports IPv4 peers of a dual-stack socket as ::ffff:a.b.c.d. */
const peer = (address, port) => `${String(address).replace(/^::ffff:/, '')}:${String(port)}`;

const tcp = createServer((socket) => {
  socket.on('error', () => socket.destroy());
  // The client closes first (it ends after reading the line), so the TIME_WAIT state stays
  // with the client, whose kernel then never reuses a source port that conntrack still holds.
  socket.write(`${name} ${peer(socket.remoteAddress, socket.remotePort)}\n`);
});
tcp.maxConnections = 1024;

const udp = createSocket('udp4');
udp.on('message', (_message, rinfo) => {
  udp.send(`${name} ${peer(rinfo.address, rinfo.port)}\n`, rinfo.port, rinfo.address);
});

let listening = 0;
const ready = () => {
  listening += 1;
  if (listening === 2) process.stdout.write('ready\n');
};
tcp.listen({ port: spec.tcpPort, host: '0.0.0.0', backlog: 1024 }, ready);
udp.bind({ port: spec.udpPort, address: '0.0.0.0' }, ready);

const stop = () => process.exit(0);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();

// The relay of a pod network's "host" namespace: it owns the addresses pods reach the control
// plane at (the apiserver's advertise address, the cluster DNS's), and carries each connection
// or datagram to a Unix socket path, on which the kubesvc process listens. Filesystem Unix
// sockets cross network namespaces, so no server of kubesvc binds outside 127.0.0.1.
// Started with `ip netns exec <host-ns> node relay.mjs '<spec>'`:
//
//   {"listen":[{"protocol":"tcp","host":"192.0.2.10","port":6443,"unix":"/tmp/x/api.sock"},
//              {"protocol":"udp","host":"198.51.100.1","port":53,"unix":"/tmp/x/dns.sock"}]}
//
// TCP: each connection is piped both ways to a new connection on the Unix path. UDP (DNS):
// each datagram goes as one DNS-over-TCP message (a 2-byte length prefix, RFC 1035 §4.2.2) on
// a new Unix connection, and the one message that comes back is sent to the datagram's source.
// It prints `ready` once every socket listens, and exits when its standard input closes.
import { createSocket } from 'node:dgram';
import { connect, createServer } from 'node:net';

const spec = JSON.parse(process.argv[2] ?? '{}');

function tcpRelay(entry) {
  return createServer((socket) => {
    const upstream = connect(entry.unix);
    const close = () => {
      socket.destroy();
      upstream.destroy();
    };
    socket.on('error', close);
    upstream.on('error', close);
    socket.pipe(upstream);
    upstream.pipe(socket);
  });
}

function udpRelay(entry) {
  const udp = createSocket('udp4');
  udp.on('message', (message, rinfo) => {
    if (message.length > 65535) return;
    const upstream = connect(entry.unix);
    let got = Buffer.alloc(0);
    const timer = setTimeout(() => upstream.destroy(), 5_000);
    upstream.on('error', () => undefined);
    upstream.on('close', () => clearTimeout(timer));
    upstream.on('data', (chunk) => {
      got = Buffer.concat([got, chunk]);
      if (got.length < 2) return;
      const size = got.readUInt16BE(0);
      if (got.length < 2 + size) return;
      udp.send(got.subarray(2, 2 + size), rinfo.port, rinfo.address);
      upstream.destroy();
    });
    const prefix = Buffer.alloc(2);
    prefix.writeUInt16BE(message.length, 0);
    upstream.write(Buffer.concat([prefix, message]));
  });
  return udp;
}

const pending = (spec.listen ?? []).map(
  (entry) =>
    new Promise((resolve, reject) => {
      if (entry.protocol === 'udp') {
        const udp = udpRelay(entry);
        udp.once('error', reject);
        udp.bind({ port: entry.port, address: entry.host }, resolve);
        return;
      }
      const server = tcpRelay(entry);
      server.once('error', reject);
      server.listen({ port: entry.port, host: entry.host, backlog: 511 }, resolve);
    }),
);
Promise.all(pending).then(
  () => process.stdout.write('ready\n'),
  (error) => {
    process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n`);
    process.exit(1);
  },
);

const stop = () => process.exit(0);
process.stdin.on('end', stop);
process.stdin.on('close', stop);
process.stdin.resume();

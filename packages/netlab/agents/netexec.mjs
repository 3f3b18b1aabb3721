// What runs in a `kubesvc up --dataplane netns` pod: no images, so for each container port a
// small server in the pod's network namespace, in the spirit of upstream's agnhost `netexec`
// (test/images/agnhost/netexec/netexec.go: the endpoints' behaviour, written anew here).
// Started with `ip netns exec <pod-ns> node netexec.mjs '<spec>'`, one process per pod:
//
//   {"pod":"web-1","containers":[{"name":"web","log":"/data/pods/.../web.log",
//     "ports":[{"port":80,"protocol":"TCP","http":true}]}]}
//
// An HTTP port answers GET /hostname (the pod's name), /clientip (`ip:port` of the peer),
// /echo?msg=<text> (the text), /healthz (200, empty); any other path is a 404. A non-HTTP TCP
// port echoes what it reads; a UDP port answers `hostname`, `clientip` and `echo <text>` as
// netexec's UDP server does, and echoes any other datagram. Every request is one line of the
// container's log file (the container's log, as `kubectl logs` would read it).
// It prints `ready` once every socket listens, and exits when its standard input closes, so a
// parent that dies leaves no server behind.
import { createSocket } from 'node:dgram';
import { appendFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createTcpServer } from 'node:net';

const spec = JSON.parse(process.argv[2] ?? '{}');
const pod = String(spec.pod);

const peer = (address, port) => `${String(address).replace(/^::ffff:/, '')}:${String(port)}`;

function logger(file) {
  return (line) => {
    try {
      appendFileSync(file, `${new Date().toISOString()} ${line}\n`);
    } catch {
      // A log that cannot be written does not stop the server.
    }
  };
}

function httpServer(log) {
  return createHttpServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://pod');
    const client = peer(req.socket.remoteAddress, req.socket.remotePort);
    let status = 200;
    let body = '';
    switch (url.pathname) {
      case '/hostname':
      case '/hostName':
        body = pod;
        break;
      case '/clientip':
        body = client;
        break;
      case '/echo':
        body = url.searchParams.get('msg') ?? '';
        break;
      case '/healthz':
        break;
      default:
        status = 404;
        body = '404 page not found\n';
    }
    log(`${req.method ?? 'GET'} ${url.pathname}${url.search} from ${client}: ${status}`);
    res.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8' });
    res.end(body);
  });
}

function tcpEcho(log) {
  return createTcpServer((socket) => {
    socket.on('error', () => socket.destroy());
    log(`TCP connection from ${peer(socket.remoteAddress, socket.remotePort)}`);
    socket.pipe(socket);
  });
}

function udpServer(log) {
  const udp = createSocket('udp4');
  udp.on('message', (message, rinfo) => {
    const client = peer(rinfo.address, rinfo.port);
    const text = message.toString('utf8').trim().toLowerCase();
    let answer = message;
    if (text === 'hostname') answer = Buffer.from(pod);
    else if (text === 'clientip') answer = Buffer.from(client);
    else if (text.startsWith('echo ')) answer = Buffer.from(text.slice(5));
    log(`UDP ${JSON.stringify(text.slice(0, 40))} from ${client}`);
    udp.send(answer, rinfo.port, rinfo.address);
  });
  return udp;
}

const pending = [];
for (const container of spec.containers ?? []) {
  const log = logger(String(container.log));
  for (const port of container.ports ?? []) {
    pending.push(
      new Promise((resolve, reject) => {
        if (port.protocol === 'UDP') {
          const udp = udpServer(log);
          udp.once('error', reject);
          udp.bind({ port: port.port, address: '0.0.0.0' }, resolve);
          return;
        }
        const server = port.http ? httpServer(log) : tcpEcho(log);
        server.once('error', reject);
        server.listen({ port: port.port, host: '0.0.0.0', backlog: 511 }, resolve);
      }).then(() => log(`listening on ${port.protocol ?? 'TCP'} ${port.port}${port.http ? ' (HTTP)' : ''}`)),
    );
  }
}
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

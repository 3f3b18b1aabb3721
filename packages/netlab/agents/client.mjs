// A lab client pod's load generator, run inside the pod's network namespace with
// `ip netns exec <pod> node client.mjs '<spec>'`. One process opens many connections (fewer
// process spawns than one curl per connection), every one bounded:
//   spec = { protocol: 'tcp' | 'udp', host, port, count, concurrency, timeoutMs, deadlineMs, progressEvery }
// - at most `count` connections (TCP) or exchanges (UDP: a fresh socket per datagram, so each
//   is a new conntrack entry and a new choice of backend), `concurrency` at a time;
// - each gives up after `timeoutMs`; no connection starts after `deadlineMs`;
// - the result of each, in launch order, is the backend's reply line (`be0 10.244.0.2:40312`)
//   or `!<code> <ms>` (`!ECONNREFUSED 1`, `!timeout 2000`).
// Standard input takes commands: `mark <label>` records how many connections were launched so
// far and answers `{"mark":label,"launched":n}` (a test marks the moments a sync began and
// ended, and waits for the answer), `stop` ends the run early. Every
// `progressEvery` finished connections it prints `{"progress":n}`; at the end one line
// `{"done":true,...}` with the results and marks.
import { createSocket } from 'node:dgram';
import { connect } from 'node:net';
import { createInterface } from 'node:readline';

const spec = JSON.parse(process.argv[2] ?? '{}');
const { protocol, host, port, count, concurrency, timeoutMs, deadlineMs } = spec;
const progressEvery = spec.progressEvery ?? 0;

const started = Date.now();
const results = [];
const marks = {};
let launched = 0;
let active = 0;
let finished = 0;
let stopping = false;
let exiting = false;

const elapsed = (t0) => Date.now() - t0;

function tcpOnce() {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let buffer = '';
    let settled = false;
    const socket = connect({ host, port });
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(result);
    };
    const timer = setTimeout(() => finish(`!timeout ${elapsed(t0)}`), timeoutMs);
    socket.setEncoding('utf8');
    socket.on('data', (chunk) => {
      buffer += chunk;
      const nl = buffer.indexOf('\n');
      if (nl >= 0) finish(buffer.slice(0, nl));
    });
    socket.on('error', (error) => finish(`!${error.code ?? error.message} ${elapsed(t0)}`));
    socket.on('close', () => finish(`!closed ${elapsed(t0)}`));
  });
}

function udpOnce() {
  return new Promise((resolve) => {
    const t0 = Date.now();
    let settled = false;
    const socket = createSocket('udp4');
    const finish = (result) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.close();
      resolve(result);
    };
    const timer = setTimeout(() => finish(`!timeout ${elapsed(t0)}`), timeoutMs);
    socket.on('error', (error) => finish(`!${error.code ?? error.message} ${elapsed(t0)}`));
    // A connected UDP socket only accepts datagrams from host:port: a reply that came back
    // from the backend's own address (not un-DNATed) would never be read.
    socket.on('message', (message) => finish(message.toString('utf8').trim()));
    socket.connect(port, host, () => socket.send('who'));
  });
}

const once = protocol === 'udp' ? udpOnce : tcpOnce;

function canLaunch() {
  return !stopping && launched < count && elapsed(started) < deadlineMs;
}

function maybeFinish() {
  if (exiting || active > 0 || canLaunch()) return;
  exiting = true;
  const report = { done: true, launched, results, marks, elapsedMs: elapsed(started) };
  process.stdout.write(`${JSON.stringify(report)}\n`, () => process.exit(0));
}

function pump() {
  while (active < concurrency && canLaunch()) {
    const index = launched;
    launched += 1;
    active += 1;
    void once().then((result) => {
      results[index] = result;
      active -= 1;
      finished += 1;
      if (progressEvery > 0 && finished % progressEvery === 0) process.stdout.write(`${JSON.stringify({ progress: finished })}\n`);
      pump();
    });
  }
  maybeFinish();
}

// No connection starts after the deadline, even if every one so far hung.
setTimeout(() => {
  stopping = true;
  maybeFinish();
}, deadlineMs).unref();

const input = createInterface({ input: process.stdin });
input.on('line', (line) => {
  const [command, label] = line.trim().split(/\s+/);
  if (command === 'mark' && label !== undefined) {
    marks[label] = launched;
    process.stdout.write(`${JSON.stringify({ mark: label, launched })}\n`);
  }
  if (command === 'stop') {
    stopping = true;
    maybeFinish();
  }
});
input.on('close', () => {
  stopping = true;
  maybeFinish();
});

pump();

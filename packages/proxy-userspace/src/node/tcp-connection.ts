// One proxied TCP connection: upstream's dial-retry sequence, then both directions joined with
// back-pressure and half-close. upstream: pkg/proxy/userspace/proxysocket.go (TryConnectEndpoints,
// ProxyLoop, proxyTCP)
//
// Written for the connection rate: a connection is one object, and every socket listener is
// one of the module's functions, shared by all connections, that finds its connection through
// the socket (`this[CONN]`). There is no promise per connection, no closure apart from the two
// bound functions of the backend's `onread`, no `once` wrapper and no `pipe`: the dial is a
// chain of socket events, and each direction is a handler that writes what it reads and pauses
// the reader while the writer's buffer is full.
//
// Half-close: both sockets are half-open capable, so an end (FIN) from one side is passed on as
// an end to the other while the reverse direction keeps flowing: a client that shuts down its
// sending side still gets the backend's reply. Upstream instead closed both connections as soon
// as either direction hit EOF (copyBytes); see docs/deviations.md.
//
// Backend → client, where the bulk of most protocols flows, is read with net.connect's
// `onread`: the kernel copies into the connection's buffer and the callback writes it to the
// client, without a Buffer allocated per read nor the stream machinery of push and 'data'. A
// write the client's socket does not take at once keeps a reference to the buffer. When that
// write also filled the socket's buffer, reading stops until 'drain', when every queued write
// has been handed to the kernel, so the next read fills the same buffer again; only a write
// queued below the high-water mark, while reading goes on, makes the next read take a fresh
// one. A bulk transfer whose client falls behind so keeps one buffer, where it used to take a
// fresh one each time: fresh memory is a page fault per 4 KiB, more than the copy on some VMs.
// A connection starts with a small buffer from Node's pool and moves to a
// larger one each time a read fills it, 2 KiB, 64 KiB, 256 KiB: short request/reply
// connections, the common case, never allocate a buffer of their own, and a bulk transfer
// makes a quarter of the read and write calls (and wake-ups of the peers) that Node's 64 KiB
// reads would, which on loopback cut the proxy's CPU time per MB by about a third.
import { Buffer } from 'node:buffer';
import { connect, type Socket } from 'node:net';

/** The first buffer of a connection, small enough to come from Buffer's shared pool. */
const FIRST_READ_SIZE = 2 * 1024;
/** The next size, after a read filled the first buffer: Node's own read size. */
const MID_READ_SIZE = 64 * 1024;
/**
 * The size of each read of a busy connection. Larger reads (1 MiB) measured slower: the buffer
 * no longer stays in the CPU's cache between the read and the write.
 */
const READ_SIZE = 256 * 1024;

/** What a connection needs from the listener that accepted it. */
export interface ConnectionOwner {
  /** Set once the listener is being closed: no new attempt starts. */
  readonly closed: boolean;
  /** Upstream's per-attempt dial timeouts, ms; their count is the number of attempts. */
  readonly dialTimeoutsMs: readonly number[];
  /**
   * The balancer's pick for this client (`reset` after a failed attempt): an endpoint's host
   * and port, null for an endpoint that cannot be dialled (a failed attempt), or undefined when
   * the balancer has nothing to give (the attempts end).
   */
  pick(clientAddr: string, reset: boolean): { readonly host: string; readonly port: number } | null | undefined;
  /** Dial attempts after a failed one. */
  retried(): void;
  /** The client got no backend (and the listener was not closing). */
  failed(): void;
  /** Both sockets are closed; `bytes` are the backend's, or 0 when none was reached. */
  finished(connection: TcpConnection, bytesToBackend: number, bytesFromBackend: number): void;
}

const CONN = Symbol('kubesvc.tcpConnection');
type Tagged = Socket & { [CONN]: TcpConnection };

/** 'abandoned': no backend, the client is being closed. */
type Phase = 'dialling' | 'spliced' | 'abandoned';

export class TcpConnection {
  private phase: Phase = 'dialling';
  /** The attempt being made (index into dialTimeoutsMs). */
  private attempt = -1;
  private timer: NodeJS.Timeout | undefined = undefined;
  /** The socket of the attempt in flight, then the connected backend. */
  private socket: Socket | undefined = undefined;
  private clientClosed = false;
  private backendClosed = true;
  private buffer: Buffer = Buffer.allocUnsafe(FIRST_READ_SIZE);
  /** The size of the next fresh buffer. */
  private size = FIRST_READ_SIZE;
  /** The next read needs a fresh buffer: a write that reading does not wait for holds the last one, or it was full. */
  private held = false;
  private waiter: (() => void) | undefined = undefined;
  /** A 'drain' listener is added on the first write that fills a socket's buffer. */
  private drainHooked = false;
  // Bound methods, not arrow functions: net calls both without `this`, and a bound function
  // costs less to make than a closure compiled with a name helper (tsx's keepNames).
  private readonly onread = { buffer: this.nextBuffer.bind(this), callback: this.forward.bind(this) };

  constructor(
    private readonly owner: ConnectionOwner,
    readonly client: Socket,
    private readonly clientAddr: string,
  ) {
    (client as Tagged)[CONN] = this;
    client.on('error', onClientError);
    client.on('close', onClientClose);
  }

  /** The connected backend, once there is one. */
  get backend(): Socket | undefined {
    return this.phase === 'spliced' ? this.socket : undefined;
  }

  /** Starts the first attempt. */
  start(): void {
    this.nextAttempt();
  }

  /** Destroys both sockets; resolves when both are closed. */
  destroy(): Promise<void> {
    const done = this.clientClosed && this.backendClosed ? Promise.resolve() : new Promise<void>((resolve) => (this.waiter = resolve));
    this.client.destroy();
    this.socket?.destroy();
    return done;
  }

  /**
   * upstream: TryConnectEndpoints — one attempt per dial timeout; after a failed attempt the
   * affinity is reset, so the next attempt takes the next round-robin endpoint (and records it
   * as the client's). A balancer error ends the attempts at once.
   */
  private nextAttempt(): void {
    const owner = this.owner;
    const timeouts = owner.dialTimeoutsMs;
    while (this.attempt + 1 < timeouts.length) {
      if (owner.closed || this.client.destroyed) {
        this.abandon();
        return;
      }
      this.attempt++;
      if (this.attempt > 0) owner.retried();
      const address = owner.pick(this.clientAddr, this.attempt > 0);
      if (address === undefined) break;
      // Go's Dial fails at once for an address it cannot use: a failed attempt.
      if (address === null) continue;
      this.dial(address.host, address.port, timeouts[this.attempt] ?? 0);
      return;
    }
    if (!owner.closed) owner.failed();
    this.abandon();
  }

  private dial(host: string, port: number, timeoutMs: number): void {
    const socket = connect({ host, port, allowHalfOpen: true, onread: this.onread }) as Tagged;
    socket[CONN] = this;
    this.socket = socket;
    this.backendClosed = false;
    socket.on('error', onBackendError);
    socket.on('connect', onBackendConnect);
    socket.on('close', onBackendClose);
    this.timer = setTimeout(onDialTimeout, timeoutMs, socket);
  }

  private abandon(): void {
    this.phase = 'abandoned';
    this.client.destroy();
    this.maybeFinished();
  }

  /** The dial succeeded: both directions start flowing. */
  connected(backend: Socket): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    if (this.owner.closed || this.client.destroyed) {
      this.phase = 'abandoned';
      backend.destroy();
      this.client.destroy();
      return;
    }
    this.phase = 'spliced';
    const client = this.client;
    client.on('data', onClientData);
    client.on('end', onClientEnd);
    backend.on('end', onBackendEnd);
    client.resume();
  }

  /** Back-pressure: the reader of one side waits for the other side's 'drain'. */
  hookDrain(): void {
    if (this.drainHooked || this.socket === undefined) return;
    this.drainHooked = true;
    this.client.on('drain', onClientDrain);
    this.socket.on('drain', onBackendDrain);
  }

  backendGone(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.backendClosed = true;
    if (this.phase === 'dialling') {
      this.socket = undefined;
      this.nextAttempt();
      return;
    }
    // A side that is gone for good (closed, not merely half-closed) takes the other with it
    // once the other has written what it was given.
    if (this.phase === 'spliced') closeAfterFlush(this.client);
    this.maybeFinished();
  }

  clientGone(): void {
    this.clientClosed = true;
    if (this.phase === 'spliced' && this.socket !== undefined) closeAfterFlush(this.socket);
    // A dial in flight is left to finish: its 'connect' or 'close' sees the client gone.
    this.maybeFinished();
  }

  private maybeFinished(): void {
    if (!this.clientClosed || !this.backendClosed || this.phase === 'dialling') return;
    const backend = this.backend;
    this.owner.finished(this, backend?.bytesWritten ?? 0, backend?.bytesRead ?? 0);
    this.waiter?.();
  }

  private nextBuffer(): Buffer {
    if (this.held) {
      this.buffer = Buffer.allocUnsafeSlow(this.size);
      this.held = false;
    }
    return this.buffer;
  }

  /** A read from the backend: write it to the client; false stops reading until 'drain'. */
  private forward(bytes: number, into: Uint8Array): boolean {
    const chunk = Buffer.from(into.buffer, into.byteOffset, bytes);
    if (bytes === into.byteLength && this.size < READ_SIZE) {
      this.size = this.size < MID_READ_SIZE ? MID_READ_SIZE : READ_SIZE;
      this.held = true;
    }
    const more = this.client.write(chunk);
    if (!more) this.hookDrain();
    else if (this.client.writableLength > 0) this.held = true;
    return more;
  }
}

// The listeners. Each runs with `this` bound to the socket, as EventEmitter calls them; the
// socket carries its connection.

function onDialTimeout(socket: Socket): void {
  socket.destroy();
}

function onBackendConnect(this: Tagged): void {
  this[CONN].connected(this);
}

function onBackendClose(this: Tagged): void {
  this[CONN].backendGone();
}

function onBackendError(this: Tagged): void {
  const connection = this[CONN];
  if (connection.backend === this) connection.client.destroy();
}

function onBackendEnd(this: Tagged): void {
  passEnd(this[CONN].client);
}

function onBackendDrain(this: Tagged): void {
  this[CONN].client.resume();
}

function onClientData(this: Tagged, chunk: Buffer): void {
  const connection = this[CONN];
  const backend = connection.backend;
  if (backend !== undefined && !backend.destroyed && !backend.write(chunk)) {
    connection.hookDrain();
    this.pause();
  }
}

function onClientEnd(this: Tagged): void {
  const backend = this[CONN].backend;
  if (backend !== undefined) passEnd(backend);
}

function onClientDrain(this: Tagged): void {
  this[CONN].backend?.resume();
}

function onClientError(this: Tagged): void {
  this[CONN].backend?.destroy();
}

function onClientClose(this: Tagged): void {
  this[CONN].clientGone();
}

/**
 * Passes a FIN on to `socket`. When its peer has sent its own FIN already and nothing is queued,
 * the connection is over both ways: closing it sends the FIN (no byte can follow the peer's, so
 * none is lost) and spares a shutdown call and the stream's finish steps.
 */
function passEnd(socket: Socket): void {
  if (socket.readableEnded && socket.writableLength === 0) socket.destroy();
  else socket.end();
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

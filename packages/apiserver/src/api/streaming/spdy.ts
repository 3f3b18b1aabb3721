// The server side of SPDY/3.1 framing, as much as kubectl's port-forward uses: the client opens
// streams (SYN_STREAM, header blocks compressed with zlib and SPDY's dictionary, one
// compression context per direction for the whole connection), the server answers each with a
// SYN_REPLY, both sides send DATA (FIN half-closes) and RST_STREAM, the client PINGs and the
// server echoes, and SETTINGS, WINDOW_UPDATE and HEADERS are read and ignored (the Go client,
// moby/spdystream, does no flow control). GOAWAY ends the session.
// upstream: the SPDY/3.1 draft (frame layouts, the header dictionary), moby/spdystream
//           spdy/types.go, read.go, write.go and dictionary.go (what the Go client sends and
//           reads), staging/src/k8s.io/apimachinery/pkg/util/httpstream/spdy/connection.go
//           (every stream is replied to; the client waits for the reply)
import { constants, createDeflate, createInflate, type Deflate, type Inflate } from 'node:zlib';

/** SPDY/3's zlib dictionary: the header names and common values, length-prefixed, then a run of common text. */
export const SPDY_DICTIONARY: Buffer = (() => {
  const names = [
    'options', 'head', 'post', 'put', 'delete', 'trace', 'accept', 'accept-charset', 'accept-encoding', 'accept-language', 'accept-ranges', 'age', 'allow',
    'authorization', 'cache-control', 'connection', 'content-base', 'content-encoding', 'content-language', 'content-length', 'content-location', 'content-md5',
    'content-range', 'content-type', 'date', 'etag', 'expect', 'expires', 'from', 'host', 'if-match', 'if-modified-since', 'if-none-match', 'if-range',
    'if-unmodified-since', 'last-modified', 'location', 'max-forwards', 'pragma', 'proxy-authenticate', 'proxy-authorization', 'range', 'referer', 'retry-after',
    'server', 'te', 'trailer', 'transfer-encoding', 'upgrade', 'user-agent', 'vary', 'via', 'warning', 'www-authenticate', 'method', 'get', 'status', '200 OK',
    'version', 'HTTP/1.1', 'url', 'public', 'set-cookie', 'keep-alive', 'origin',
  ];
  const tail =
    '100101201202205206300302303304305306307402405406407408409410411412413414415416417502504505203 Non-Authoritative Information204 No Content' +
    '301 Moved Permanently400 Bad Request401 Unauthorized403 Forbidden404 Not Found500 Internal Server Error501 Not Implemented503 Service Unavailable' +
    'Jan Feb Mar Apr May Jun Jul Aug Sept Oct Nov Dec 00:00:00 Mon, Tue, Wed, Thu, Fri, Sat, Sun, GMTchunked,text/html,image/png,image/jpg,image/gif,' +
    'application/xml,application/xhtml+xml,text/plain,text/javascript,publicprivatemax-age=gzip,deflate,sdchcharset=utf-8charset=iso-8859-1,utf-,*,enq=0.';
  const parts: Buffer[] = [];
  for (const name of names) {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(name.length);
    parts.push(length, Buffer.from(name, 'latin1'));
  }
  parts.push(Buffer.from(tail, 'latin1'));
  return Buffer.concat(parts);
})();

export const SPDY_VERSION = 3;
export const TYPE_SYN_STREAM = 1;
export const TYPE_SYN_REPLY = 2;
export const TYPE_RST_STREAM = 3;
export const TYPE_SETTINGS = 4;
export const TYPE_PING = 6;
export const TYPE_GOAWAY = 7;
export const TYPE_HEADERS = 8;
export const TYPE_WINDOW_UPDATE = 9;
export const FLAG_FIN = 0x01;
/** RST_STREAM status: the stream is refused or cancelled. */
export const RST_PROTOCOL_ERROR = 1;
export const RST_CANCEL = 5;

/** One frame as read off the wire. */
export type SpdyFrame =
  | { readonly control: true; readonly version: number; readonly type: number; readonly flags: number; readonly payload: Buffer }
  | { readonly control: false; readonly streamId: number; readonly flags: number; readonly payload: Buffer };

/** Cuts complete frames off the front of `buffer`; gives the frames and what is left. */
export function readFrames(buffer: Buffer): { frames: SpdyFrame[]; rest: Buffer } {
  const frames: SpdyFrame[] = [];
  let at = 0;
  while (buffer.length - at >= 8) {
    const length = buffer.readUIntBE(at + 5, 3);
    if (buffer.length - at < 8 + length) break;
    const flags = buffer[at + 4] ?? 0;
    const payload = buffer.subarray(at + 8, at + 8 + length);
    const first = buffer.readUInt32BE(at);
    if ((first & 0x80000000) !== 0) frames.push({ control: true, version: (first >>> 16) & 0x7fff, type: first & 0xffff, flags, payload });
    else frames.push({ control: false, streamId: first & 0x7fffffff, flags, payload });
    at += 8 + length;
  }
  return { frames, rest: buffer.subarray(at) };
}

export function controlFrame(type: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE((0x80000000 | (SPDY_VERSION << 16) | type) >>> 0);
  head.writeUInt8(flags, 4);
  head.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([head, payload]);
}

export function dataFrame(streamId: number, flags: number, payload: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(streamId & 0x7fffffff);
  head.writeUInt8(flags, 4);
  head.writeUIntBE(payload.length, 5, 3);
  return Buffer.concat([head, payload]);
}

/** A name/value header block, uncompressed: a count, then each name and value with a 32-bit length; several values of one name are joined by NUL. */
export function encodeHeaderBlock(headers: ReadonlyMap<string, string>): Buffer {
  const parts: Buffer[] = [];
  const u32 = (n: number): Buffer => {
    const b = Buffer.alloc(4);
    b.writeUInt32BE(n);
    return b;
  };
  parts.push(u32(headers.size));
  for (const [name, value] of headers) {
    const n = Buffer.from(name, 'utf8');
    const v = Buffer.from(value, 'utf8');
    parts.push(u32(n.length), n, u32(v.length), v);
  }
  return Buffer.concat(parts);
}

/** The header block's names (lower case, as SPDY requires them) and each name's first value; undefined when it is malformed. */
export function decodeHeaderBlock(block: Buffer): Map<string, string> | undefined {
  if (block.length < 4) return undefined;
  const count = block.readUInt32BE(0);
  const headers = new Map<string, string>();
  let at = 4;
  for (let i = 0; i < count; i++) {
    if (block.length - at < 4) return undefined;
    const nameLength = block.readUInt32BE(at);
    at += 4;
    if (block.length - at < nameLength + 4) return undefined;
    const name = block.subarray(at, at + nameLength).toString('utf8');
    at += nameLength;
    const valueLength = block.readUInt32BE(at);
    at += 4;
    if (block.length - at < valueLength) return undefined;
    const value = block.subarray(at, at + valueLength).toString('utf8');
    at += valueLength;
    if (!headers.has(name)) headers.set(name, value.split('\0')[0] ?? '');
  }
  return headers;
}

/** One direction's zlib context: each block is written and flushed (SYNC_FLUSH), and what came out is that block's. */
function zlibContext(stream: Inflate | Deflate): (block: Buffer) => Promise<Buffer> {
  let chain: Promise<Buffer> = Promise.resolve(Buffer.alloc(0));
  let failed: Error | undefined;
  stream.on('error', (e) => (failed = e));
  return (block) => {
    chain = chain.then(
      () =>
        new Promise<Buffer>((resolve, reject) => {
          if (failed !== undefined) return reject(failed);
          stream.write(block);
          stream.flush(constants.Z_SYNC_FLUSH, () => {
            if (failed !== undefined) return reject(failed);
            const out: Buffer[] = [];
            for (let c = stream.read() as Buffer | null; c !== null; c = stream.read() as Buffer | null) out.push(c);
            resolve(Buffer.concat(out));
          });
        }),
    );
    return chain;
  };
}

/** A stream the client opened. */
export interface SpdyStream {
  readonly id: number;
  readonly headers: ReadonlyMap<string, string>;
  /** Sends DATA (split into frames of at most 32 KiB). */
  write(data: Buffer): void;
  /** Half-closes the server's side (an empty DATA with FIN); once. */
  end(): void;
  /** Ends the stream both ways (RST_STREAM CANCEL). */
  reset(): void;
  /** The client's DATA. */
  onData?: (data: Buffer) => void;
  /** The client half-closed its side (FIN). */
  onEnd?: () => void;
  /** The client reset the stream, or the session ended. */
  onReset?: () => void;
}

export interface SpdySession {
  /** Bytes from the client, in order. */
  receive(chunk: Buffer): void;
  /** The transport ended: every stream is reset. */
  close(): void;
  /** Resolves once every frame received so far has been handled (header blocks are inflated asynchronously). */
  idle(): Promise<void>;
}

interface StreamState extends SpdyStream {
  ended: boolean;
  remoteEnded: boolean;
  gone: boolean;
}

const MAX_DATA_FRAME = 32 * 1024;

/**
 * A SPDY server session over a byte transport (`send` writes to the client, `end` closes the
 * transport); `onStream` gets each stream the client opens, already replied to.
 */
export function spdyServer(send: (bytes: Buffer) => void, end: () => void, onStream: (stream: SpdyStream) => void): SpdySession {
  const inflate = zlibContext(createInflate({ dictionary: SPDY_DICTIONARY }));
  const deflate = zlibContext(createDeflate({ dictionary: SPDY_DICTIONARY }));
  const streams = new Map<number, StreamState>();
  let pending: Buffer = Buffer.alloc(0);
  let work = Promise.resolve();
  let closed = false;

  const gone = (s: StreamState): void => {
    if (s.gone) return;
    s.gone = true;
    streams.delete(s.id);
    s.onReset?.();
  };

  const protocolError = (): void => {
    if (closed) return;
    const payload = Buffer.alloc(8);
    payload.writeUInt32BE(0, 0);
    payload.writeUInt32BE(1, 4);
    send(controlFrame(TYPE_GOAWAY, 0, payload));
    session.close();
    end();
  };

  const openStream = async (payload: Buffer): Promise<void> => {
    if (payload.length < 10) return protocolError();
    const id = payload.readUInt32BE(0) & 0x7fffffff;
    const headers = decodeHeaderBlock(await inflate(payload.subarray(10)));
    if (headers === undefined || id === 0) return protocolError();
    const reply = Buffer.concat([Buffer.alloc(4), await deflate(encodeHeaderBlock(new Map()))]);
    reply.writeUInt32BE(id, 0);
    if (closed) return;
    send(controlFrame(TYPE_SYN_REPLY, 0, reply));
    const state: StreamState = {
      id,
      headers,
      ended: false,
      remoteEnded: false,
      gone: false,
      write(data) {
        if (state.ended || state.gone || closed) return;
        for (let at = 0; at < data.length; at += MAX_DATA_FRAME) send(dataFrame(id, 0, data.subarray(at, at + MAX_DATA_FRAME)));
      },
      end() {
        if (state.ended || state.gone || closed) return;
        state.ended = true;
        send(dataFrame(id, FLAG_FIN, Buffer.alloc(0)));
        if (state.remoteEnded) streams.delete(id);
      },
      reset() {
        if (state.gone || closed) return;
        const rst = Buffer.alloc(8);
        rst.writeUInt32BE(id, 0);
        rst.writeUInt32BE(RST_CANCEL, 4);
        send(controlFrame(TYPE_RST_STREAM, 0, rst));
        gone(state);
      },
    };
    streams.set(id, state);
    onStream(state);
  };

  const handle = async (frame: SpdyFrame): Promise<void> => {
    if (closed) return;
    if (!frame.control) {
      const s = streams.get(frame.streamId);
      if (s === undefined) return;
      if (frame.payload.length > 0) s.onData?.(frame.payload);
      if ((frame.flags & FLAG_FIN) !== 0 && !s.remoteEnded) {
        s.remoteEnded = true;
        s.onEnd?.();
        if (s.ended) streams.delete(s.id);
      }
      return;
    }
    if (frame.version !== SPDY_VERSION) return protocolError();
    switch (frame.type) {
      case TYPE_SYN_STREAM:
        await openStream(frame.payload);
        // A SYN_STREAM with FIN opens a stream the client never writes to.
        if ((frame.flags & FLAG_FIN) !== 0 && frame.payload.length >= 4) {
          const s = streams.get(frame.payload.readUInt32BE(0) & 0x7fffffff);
          if (s !== undefined && !s.remoteEnded) {
            s.remoteEnded = true;
            s.onEnd?.();
          }
        }
        return;
      case TYPE_RST_STREAM: {
        const s = frame.payload.length >= 4 ? streams.get(frame.payload.readUInt32BE(0) & 0x7fffffff) : undefined;
        if (s !== undefined) gone(s);
        return;
      }
      case TYPE_PING:
        send(controlFrame(TYPE_PING, 0, frame.payload));
        return;
      case TYPE_GOAWAY:
        session.close();
        end();
        return;
      case TYPE_HEADERS:
        // Its header block still goes through the shared zlib context.
        if (frame.payload.length > 4) await inflate(frame.payload.subarray(4));
        return;
      default:
        // SETTINGS, WINDOW_UPDATE and unknown types: nothing to do.
        return;
    }
  };

  const session: SpdySession = {
    receive(chunk) {
      if (closed) return;
      const { frames, rest } = readFrames(pending.length === 0 ? chunk : Buffer.concat([pending, chunk]));
      pending = rest;
      for (const frame of frames) work = work.then(() => handle(frame)).catch(() => protocolError());
    },
    close() {
      if (closed) return;
      closed = true;
      for (const s of [...streams.values()]) gone(s);
    },
    idle() {
      return work;
    },
  };
  return session;
}

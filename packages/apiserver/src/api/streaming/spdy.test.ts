// The SPDY/3.1 server session against bytes kubectl 1.33 sent for one port-forward connection
// (captured from `kubectl port-forward -v=8`, its tunnelling connection's writes): two
// SYN_STREAMs with zlib-compressed headers (the error stream, then the data stream, one
// request ID), the error stream's FIN, five bytes of data and the data stream's FIN. The
// server's own frames are read back with a zlib context of the test's.
import { createHash } from 'node:crypto';
import { constants, createInflate } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { controlFrame, decodeHeaderBlock, encodeHeaderBlock, readFrames, SPDY_DICTIONARY, spdyServer, TYPE_PING, TYPE_SYN_REPLY, type SpdyStream } from './spdy.js';

const CAPTURED = Buffer.from(
  '800300010000003D0000000100000000000078F9E3C6A7C202253A703A2B294A4DCC851625ACA9A0808614CB45A024CC6461C0C0C0C0590489C44C50E2663400000000FFFF' +
    '0000000101000000' +
    '800300010000001800000003000000000000C2AA15540A2512D209000000FFFF' +
    '000000030000000579797979790000000301000000',
  'hex',
);

interface Seen {
  readonly id: number;
  readonly headers: Record<string, string>;
  data: string;
  ended: boolean;
}

function session(): { receive: (b: Buffer) => void; sent: Buffer[]; seen: Seen[]; settle: () => Promise<void> } {
  const sent: Buffer[] = [];
  const seen: Seen[] = [];
  const s = spdyServer(
    (b) => sent.push(b),
    () => undefined,
    (stream: SpdyStream) => {
      const entry: Seen = { id: stream.id, headers: Object.fromEntries(stream.headers), data: '', ended: false };
      seen.push(entry);
      stream.onData = (d) => (entry.data += d.toString());
      stream.onEnd = () => (entry.ended = true);
    },
  );
  return { receive: (b) => s.receive(b), sent, seen, settle: () => s.idle() };
}

/** The header blocks of the server's SYN_REPLYs, inflated in order with one context, as the client reads them. */
async function replies(sent: Buffer[]): Promise<{ id: number; headers: Map<string, string> | undefined }[]> {
  const inflate = createInflate({ dictionary: SPDY_DICTIONARY });
  const out: { id: number; headers: Map<string, string> | undefined }[] = [];
  for (const frame of readFrames(Buffer.concat(sent)).frames) {
    if (!frame.control || frame.type !== TYPE_SYN_REPLY) continue;
    const block = await new Promise<Buffer>((resolve) => {
      inflate.write(frame.payload.subarray(4));
      inflate.flush(constants.Z_SYNC_FLUSH, () => {
        const chunks: Buffer[] = [];
        for (let c = inflate.read() as Buffer | null; c !== null; c = inflate.read() as Buffer | null) chunks.push(c);
        resolve(Buffer.concat(chunks));
      });
    });
    out.push({ id: frame.payload.readUInt32BE(0), headers: decodeHeaderBlock(block) });
  }
  return out;
}

describe('SPDY/3.1 server session', () => {
  it('the header dictionary is SPDY/3`s: 1423 bytes, sha256 51d27341...', () => {
    expect(SPDY_DICTIONARY.length).toBe(1423);
    expect(createHash('sha256').update(SPDY_DICTIONARY).digest('hex')).toBe('51d27341373f923f3cd88e1eb7162aeaa3723d7585ff2399201dc06498407f02');
  });

  it('reads kubectl`s streams, headers, data and FINs, and replies to each stream', async () => {
    const s = session();
    s.receive(CAPTURED);
    await s.settle();
    expect(s.seen).toEqual([
      { id: 1, headers: { streamtype: 'error', port: '80', requestid: '0' }, data: '', ended: true },
      { id: 3, headers: { streamtype: 'data', port: '80', requestid: '0' }, data: 'yyyyy', ended: true },
    ]);
    expect(await replies(s.sent)).toEqual([
      { id: 1, headers: new Map() },
      { id: 3, headers: new Map() },
    ]);
  });

  it('takes the bytes in any cuts (one byte at a time here)', async () => {
    const s = session();
    for (const byte of CAPTURED) s.receive(Buffer.of(byte));
    await s.settle();
    expect(s.seen.map((e) => [e.id, e.data, e.ended])).toEqual([
      [1, '', true],
      [3, 'yyyyy', true],
    ]);
  });

  it('echoes a PING with its ID', async () => {
    const s = session();
    s.receive(controlFrame(TYPE_PING, 0, Buffer.from('00000007', 'hex')));
    await s.settle();
    expect(Buffer.concat(s.sent).toString('hex')).toBe('80030006000000040000000' + '7');
  });

  it('header blocks: encode then decode gives the headers back', () => {
    const headers = new Map([
      ['streamtype', 'data'],
      ['port', '8080'],
    ]);
    expect(decodeHeaderBlock(encodeHeaderBlock(headers))).toEqual(headers);
    expect(decodeHeaderBlock(Buffer.from('00000001000000', 'hex'))).toBeUndefined();
  });
});

// Message compression (RFC 1035 §4.1.4) and UDP truncation, as one step after encoding.
// dns-packet writes every name in full: a headless service's 300 A records repeat the
// question's name 300 times, 13.5 KB where 4.8 KB say the same, and only 10 of them fit in a
// 512-byte UDP answer. This step reads the message dns-packet wrote and writes it again with
// each name, or its longest known suffix, replaced by a pointer to an earlier copy.
//
// What is compressed follows miekg/dns, the library CoreDNS answers with (msg.go
// packDomainName, zmsg.go):
// - owner names and question names always;
// - names inside RDATA only for the types RFC 1035 defined with names (RFC 3597 §4 forbids it
//   for any later type): CNAME, NS, PTR, SOA (both names) and MX;
// - an SRV target is written in full (RFC 2782: "name compression is not to be used for this
//   field"), but, as in miekg/dns, later names may still point into it;
// - a suffix matches only byte for byte, letter case included, so that a decoder reads back
//   exactly the names that were written (the question's case is echoed in the answer);
// - only offsets below 0x4000 can be pointed to (a pointer has 14 bits).
// Anything else (an OPT record, A, AAAA, TXT, an unknown type) is copied as it is. A message
// that is not laid out as dns-packet writes it (a pointer, a bad label, a length past the
// end) throws; the caller answers SERVFAIL rather than send it.
import { Buffer } from 'node:buffer';

const HEADER = 12;
/** Offsets a 14-bit pointer can reach. */
const POINTER_LIMIT = 0x4000;
const TYPE_OPT = 41;
const TRUNCATED = 0x02; // TC, in the flags' first byte

/** Where the names sit in the RDATA of a type that has any: fixed bytes, names, fixed bytes. */
interface RdataNames {
  readonly before: number;
  readonly names: number;
  readonly after: number;
  /** false: the names are written in full, though later names may point into them. */
  readonly compress: boolean;
}

const RDATA_NAMES: ReadonlyMap<number, RdataNames> = new Map([
  [2, { before: 0, names: 1, after: 0, compress: true }], // NS
  [5, { before: 0, names: 1, after: 0, compress: true }], // CNAME
  [6, { before: 0, names: 2, after: 20, compress: true }], // SOA: mname, rname, five 32-bit numbers
  [12, { before: 0, names: 1, after: 0, compress: true }], // PTR
  [15, { before: 2, names: 1, after: 0, compress: true }], // MX: preference, exchange
  [33, { before: 6, names: 1, after: 0, compress: false }], // SRV: priority, weight, port, target
]);

function u16(bytes: Uint8Array, at: number): number {
  if (at + 2 > bytes.length) throw new RangeError('DNS message ends inside a field');
  return ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
}

/** The offset just past the uncompressed name at `at`; throws on a pointer or a bad label. */
function nameEnd(bytes: Uint8Array, at: number): number {
  for (let p = at; ; ) {
    const length = bytes[p];
    if (length === undefined) throw new RangeError('DNS name runs past the message');
    if (length === 0) return p + 1;
    if (length > 63) throw new RangeError('DNS name has a pointer or a bad label length');
    p += 1 + length;
  }
}

interface Mark {
  readonly length: number;
  readonly inserted: number;
}

/** Writes a compressed copy of parts of `input`, remembering where each name suffix went. */
class Writer {
  readonly out: Uint8Array;
  length = 0;
  /** Suffix (its label bytes, as latin1 text) → offset in `out`. */
  private readonly suffixes = new Map<string, number>();
  /** Suffixes in the order they were added, so that a record can be taken back. */
  private readonly added: string[] = [];
  private readonly text: Buffer;

  constructor(private readonly input: Uint8Array) {
    // Compression never lengthens a name: a pointer (2 bytes) replaces at least a label and
    // the root (3 bytes). So the copy fits in the input's size.
    this.out = new Uint8Array(input.length);
    this.text = Buffer.from(input.buffer, input.byteOffset, input.byteLength);
  }

  copy(from: number, to: number): void {
    if (to > this.input.length) throw new RangeError('DNS record runs past the message');
    this.out.set(this.input.subarray(from, to), this.length);
    this.length += to - from;
  }

  /** Writes the name at `at` in the input; returns the input offset just past it. */
  name(at: number, compress: boolean): number {
    const end = nameEnd(this.input, at);
    for (let p = at; p < end - 1; p += 1 + (this.input[p] ?? 0)) {
      const key = this.text.toString('latin1', p, end);
      const earlier = this.suffixes.get(key);
      if (earlier !== undefined && compress) {
        this.out[this.length] = 0xc0 | (earlier >> 8);
        this.out[this.length + 1] = earlier & 0xff;
        this.length += 2;
        return end;
      }
      if (earlier === undefined && this.length < POINTER_LIMIT) {
        this.suffixes.set(key, this.length);
        this.added.push(key);
      }
      this.copy(p, p + 1 + (this.input[p] ?? 0));
    }
    this.out[this.length++] = 0;
    return end;
  }

  /** Writes the resource record at `at`; returns the input offset just past it. */
  record(at: number): number {
    let p = this.name(at, true);
    const type = u16(this.input, p);
    const rdStart = p + 10;
    const rdEnd = rdStart + u16(this.input, p + 8);
    if (rdEnd > this.input.length) throw new RangeError('DNS RDATA runs past the message');
    const layout = RDATA_NAMES.get(type);
    if (layout === undefined) {
      this.copy(p, rdEnd);
      return rdEnd;
    }
    // Type, class and TTL; RDLENGTH is written once the RDATA's compressed size is known.
    this.copy(p, p + 8);
    const lengthAt = this.length;
    this.length += 2;
    p = rdStart + layout.before;
    this.copy(rdStart, p);
    for (let i = 0; i < layout.names; i++) p = this.name(p, layout.compress);
    if (p + layout.after !== rdEnd) throw new RangeError('DNS RDATA is not the size its type says');
    this.copy(p, rdEnd);
    const rdLength = this.length - lengthAt - 2;
    this.out[lengthAt] = rdLength >> 8;
    this.out[lengthAt + 1] = rdLength & 0xff;
    return rdEnd;
  }

  mark(): Mark {
    return { length: this.length, inserted: this.added.length };
  }

  /** Takes back everything written since `mark`, and the suffixes it added. */
  reset(mark: Mark): void {
    for (const key of this.added.splice(mark.inserted)) this.suffixes.delete(key);
    this.length = mark.length;
  }

  setU16(at: number, value: number): void {
    this.out[at] = value >> 8;
    this.out[at + 1] = value & 0xff;
  }

  bytes(): Uint8Array {
    return this.out.subarray(0, this.length);
  }
}

/**
 * `message` (as dns-packet encodes it: no pointers) with its names compressed. If that is
 * still longer than `limit`, the TC bit is set and the answer section keeps the longest prefix
 * that fits together with the OPT record, without the authority and additional records
 * (RFC 2181 §9: the client asks again over TCP). Throws on a message it cannot read.
 */
export function compressMessage(message: Uint8Array, limit: number): Uint8Array {
  if (message.length < HEADER) throw new RangeError('DNS message shorter than its header');
  const counts = [u16(message, 4), u16(message, 6), u16(message, 8), u16(message, 10)] as const;
  const whole = new Writer(message);
  whole.copy(0, HEADER);
  let at = HEADER;
  for (let i = 0; i < counts[0]; i++) {
    at = whole.name(at, true);
    whole.copy(at, at + 4);
    at += 4;
  }
  const questionsEnd = at;
  /** Where each record starts in `message`: answers, then authorities, then additionals. */
  const starts: number[] = [];
  for (let i = 0; i < counts[1] + counts[2] + counts[3]; i++) {
    starts.push(at);
    at = whole.record(at);
  }
  if (at !== message.length) throw new RangeError('DNS message has bytes after its last record');
  if (whole.length <= limit) return whole.bytes();

  const opts = starts.slice(counts[1] + counts[2]).filter((s) => u16(message, nameEnd(message, s)) === TYPE_OPT);
  const optBytes = opts.reduce((sum, s) => sum + (nameEnd(message, s) - s) + 10 + u16(message, nameEnd(message, s) + 8), 0);
  const cut = new Writer(message);
  cut.copy(0, HEADER);
  cut.out[2] = (cut.out[2] ?? 0) | TRUNCATED;
  for (let q = HEADER; q < questionsEnd; ) {
    q = cut.name(q, true);
    cut.copy(q, q + 4);
    q += 4;
  }
  let kept = 0;
  for (const start of starts.slice(0, counts[1])) {
    const mark = cut.mark();
    cut.record(start);
    if (cut.length + optBytes > limit) {
      cut.reset(mark);
      break;
    }
    kept++;
  }
  for (const start of opts) cut.record(start);
  cut.setU16(6, kept);
  cut.setU16(8, 0);
  cut.setU16(10, opts.length);
  return cut.bytes();
}

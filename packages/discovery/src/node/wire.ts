// DNS messages on the wire: one request in, one response out, no I/O. dns-packet does the
// encoding; this file adds what it leaves to the caller: the rcode in the flags, the TC bit
// and truncation to the UDP size, FORMERR for what does not parse. It lives in the node
// adapter because dns-packet reads and writes Node Buffers.
// upstream: RFC 1035 §4.1, RFC 6891 (EDNS payload size), RFC 2181 §9 (TC);
// coredns request/request.go (SizeAndDo, Scrub) for the sizes.
import { Buffer } from 'node:buffer';
import * as dnsPacket from 'dns-packet';
import type { DnsRecord, Question, Rcode, Resolution } from '../dns/records.js';
import { RCODE_VALUES } from '../dns/records.js';
import { resolve, type ResolveOptions } from '../dns/resolve.js';
import type { Zone } from '../dns/zone.js';

/** A Buffer view of the bytes, without a copy: dns-packet reads with Buffer methods. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The classic UDP limit without EDNS. RFC 1035 §2.3.4 */
export const UDP_DEFAULT_SIZE = 512;
/** The largest message a TCP length prefix allows. RFC 1035 §4.2.2 */
export const TCP_MAX_SIZE = 65535;

const QR = 1 << 15;
const OPCODE_MASK = 0xf << 11;
const CHECKING_DISABLED = dnsPacket.CHECKING_DISABLED;

export interface HandleOptions extends ResolveOptions {
  /** 'udp' (default) truncates to 512 bytes or the client's EDNS size; 'tcp' to 65535. */
  readonly transport?: 'udp' | 'tcp';
}

/** A header-only response, built by hand so that it cannot fail. */
function headerOnly(request: Uint8Array, rcode: Rcode): Uint8Array {
  const out = new Uint8Array(12);
  out[0] = request[0] ?? 0;
  out[1] = request[1] ?? 0;
  const requestFlags = ((request[2] ?? 0) << 8) | (request[3] ?? 0);
  const flags = QR | (requestFlags & OPCODE_MASK) | RCODE_VALUES[rcode];
  out[2] = flags >> 8;
  out[3] = flags & 0xff;
  return out;
}

function toAnswer(record: DnsRecord): dnsPacket.Answer {
  switch (record.type) {
    case 'TXT':
      return { name: record.name, type: 'TXT', ttl: record.ttl, class: 'IN', data: [...record.data] };
    case 'SRV':
      return { name: record.name, type: 'SRV', ttl: record.ttl, class: 'IN', data: { ...record.data } };
    case 'SOA':
      return { name: record.name, type: 'SOA', ttl: record.ttl, class: 'IN', data: { ...record.data } };
    default:
      return { name: record.name, type: record.type, ttl: record.ttl, class: 'IN', data: record.data };
  }
}

interface Decoded {
  readonly packet: dnsPacket.DecodedPacket;
  readonly question: dnsPacket.Question;
  /** The client's EDNS UDP size, or undefined without an OPT record. */
  readonly ednsSize: number | undefined;
}

function decodeRequest(bytes: Uint8Array): Decoded | Rcode {
  if (bytes.byteLength < 12) return 'FORMERR';
  let packet: dnsPacket.DecodedPacket;
  try {
    packet = dnsPacket.decode(asBuffer(bytes));
  } catch {
    return 'FORMERR';
  }
  if (packet.flag_qr) return 'FORMERR';
  const opcode = ((((bytes[2] ?? 0) << 8) | (bytes[3] ?? 0)) & OPCODE_MASK) >> 11;
  if (opcode !== 0) return 'NOTIMP';
  const questions = packet.questions ?? [];
  const question = questions[0];
  if (questions.length !== 1 || question === undefined) return 'FORMERR';
  const opts = (packet.additionals ?? []).filter((a): a is dnsPacket.OptAnswer => a.type === 'OPT');
  if (opts.length > 1) return 'FORMERR';
  return { packet, question, ednsSize: opts[0]?.udpPayloadSize };
}

function encodeResponse(decoded: Decoded, resolution: Resolution, transport: 'udp' | 'tcp'): Uint8Array {
  const { packet, question, ednsSize } = decoded;
  const requestFlags = packet.flags ?? 0;
  let flags =
    (requestFlags & (OPCODE_MASK | dnsPacket.RECURSION_DESIRED | CHECKING_DISABLED)) |
    (resolution.authoritative ? dnsPacket.AUTHORITATIVE_ANSWER : 0) |
    RCODE_VALUES[resolution.rcode];
  const size = Math.max(UDP_DEFAULT_SIZE, ednsSize ?? 0);
  const opt: dnsPacket.Answer[] =
    ednsSize === undefined ? [] : [{ type: 'OPT', name: '.', udpPayloadSize: size, extendedRcode: 0, ednsVersion: 0, flags: 0, flag_do: false, options: [] }];
  const full: dnsPacket.Packet = {
    type: 'response',
    id: packet.id ?? 0,
    flags,
    questions: [question],
    answers: resolution.answer.map(toAnswer),
    authorities: resolution.authority.map(toAnswer),
    additionals: [...resolution.additional.map(toAnswer), ...opt],
  };
  const limit = transport === 'tcp' ? TCP_MAX_SIZE : size;
  // encode() sizes its buffer with encodingLength() itself: encoding first measures once.
  const encoded = dnsPacket.encode(full);
  if (encoded.length <= limit) return encoded;
  // Too big: set TC and keep the longest prefix of the answer section that fits, without the
  // authority and additional sections (RFC 2181 §9); the client retries over TCP.
  flags |= dnsPacket.TRUNCATED_RESPONSE;
  const answers = full.answers ?? [];
  const sized = (n: number): dnsPacket.Packet => ({ ...full, flags, answers: answers.slice(0, n), authorities: [], additionals: opt });
  let lo = 0;
  let hi = answers.length;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (dnsPacket.encodingLength(sized(mid)) <= limit) lo = mid;
    else hi = mid - 1;
  }
  return dnsPacket.encode(sized(lo));
}

/**
 * Answers one DNS request message with one response message. Never throws: a message that
 * does not parse, is a response, or has other than one question gets FORMERR; an opcode other
 * than QUERY gets NOTIMP; a failure while answering gets SERVFAIL.
 */
export function handleQuery(zone: Zone, requestBytes: Uint8Array, options: HandleOptions = {}): Uint8Array {
  const decoded = decodeRequest(requestBytes);
  if (typeof decoded === 'string') return headerOnly(requestBytes, decoded);
  try {
    const question: Question = { name: decoded.question.name, type: decoded.question.type };
    const resolution = resolve(zone, question, options);
    return new Uint8Array(encodeResponse(decoded, resolution, options.transport ?? 'udp'));
  } catch {
    return headerOnly(requestBytes, 'SERVFAIL');
  }
}

// DNS messages on the wire: one request in, at most one response out, no I/O. dns-packet does
// the encoding; this file adds what it leaves to the caller: which messages are answered at
// all, the rcode in the flags, name compression and truncation to the UDP size (compress.ts),
// FORMERR for what does not parse. It lives in the node adapter because dns-packet reads and
// writes Node Buffers.
// upstream: RFC 1035 §4.1, RFC 6891 (EDNS payload size), RFC 2181 §9 (TC);
// coredns request/request.go (SizeAndDo, Scrub) for the sizes; miekg/dns server.go
// (serveDNS) and acceptfunc.go (defaultMsgAcceptFunc) for the messages refused or ignored.
import { Buffer } from 'node:buffer';
import * as dnsPacket from 'dns-packet';
import type { DnsRecord, Question, Rcode, Resolution } from '../dns/records.js';
import { RCODE_VALUES } from '../dns/records.js';
import { resolve, type ResolveOptions } from '../dns/resolve.js';
import type { Zone } from '../dns/zone.js';
import { compressMessage } from './compress.js';

/** A Buffer view of the bytes, without a copy: dns-packet reads with Buffer methods. */
function asBuffer(bytes: Uint8Array): Buffer {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** The classic UDP limit without EDNS. RFC 1035 §2.3.4 */
export const UDP_DEFAULT_SIZE = 512;
/** The largest message a TCP length prefix allows. RFC 1035 §4.2.2 */
export const TCP_MAX_SIZE = 65535;

const HEADER = 12;
const QR = 1 << 15;
const OPCODE_MASK = 0xf << 11;
const CHECKING_DISABLED = dnsPacket.CHECKING_DISABLED;
/**
 * The request's header bits a refusal echoes: miekg/dns answers with the request's own header,
 * QR set, AA and Z cleared and the rcode replaced, so TC, RD, RA, AD and CD stay as they came.
 */
const ECHOED_BITS = dnsPacket.TRUNCATED_RESPONSE | dnsPacket.RECURSION_DESIRED | dnsPacket.RECURSION_AVAILABLE | dnsPacket.AUTHENTIC_DATA | CHECKING_DISABLED;

export interface HandleOptions extends ResolveOptions {
  /** 'udp' (default) truncates to 512 bytes or the client's EDNS size; 'tcp' to 65535. */
  readonly transport?: 'udp' | 'tcp';
}

/**
 * A header-only response, built by hand so that it cannot fail: the request's ID, QR, the
 * rcode, and the opcode, which a FORMERR resets to QUERY (miekg/dns defaults.go
 * SetRcodeFormatError) and the other rcodes echo. A refusal echoes the bits miekg/dns's
 * server keeps; a SERVFAIL only RD and CD, as CoreDNS's error reply (SetRcode, SetReply) does.
 */
function headerOnly(request: Uint8Array, rcode: Rcode): Uint8Array {
  const out = new Uint8Array(HEADER);
  out[0] = request[0] ?? 0;
  out[1] = request[1] ?? 0;
  const requestFlags = ((request[2] ?? 0) << 8) | (request[3] ?? 0);
  const opcode = rcode === 'FORMERR' ? 0 : requestFlags & OPCODE_MASK;
  const echoed = rcode === 'SERVFAIL' ? dnsPacket.RECURSION_DESIRED | CHECKING_DISABLED : ECHOED_BITS;
  const flags = QR | opcode | (requestFlags & echoed) | RCODE_VALUES[rcode];
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

/** What is done with a message that is not answered from the zone. */
type Refusal = Rcode | 'IGNORE';

function u16(bytes: Uint8Array, at: number): number {
  return ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
}

/**
 * The header checks of miekg/dns's server, in its order (server.go serveDNS, acceptfunc.go
 * defaultMsgAcceptFunc): a message shorter than a header is not answered ("any reply can be
 * used to amplify"), nor is a response (QR set: answering one lets two servers, or one
 * spoofed packet, bounce messages for ever); another opcode than QUERY is NOTIMP; other than
 * one question, more than one answer or authority record, or more than two additional
 * records is FORMERR. miekg/dns lets NOTIFY through for servers with secondary zones; this
 * one has none, so NOTIFY is NOTIMP like every other opcode.
 */
function checkHeader(bytes: Uint8Array): Refusal | undefined {
  if (bytes.byteLength < HEADER) return 'IGNORE';
  const flags = u16(bytes, 2);
  if ((flags & QR) !== 0) return 'IGNORE';
  if ((flags & OPCODE_MASK) !== 0) return 'NOTIMP';
  if (u16(bytes, 4) !== 1 || u16(bytes, 6) > 1 || u16(bytes, 8) > 1 || u16(bytes, 10) > 2) return 'FORMERR';
  return undefined;
}

function decodeRequest(bytes: Uint8Array): Decoded | Refusal {
  const refused = checkHeader(bytes);
  if (refused !== undefined) return refused;
  let packet: dnsPacket.DecodedPacket;
  try {
    packet = dnsPacket.decode(asBuffer(bytes));
  } catch {
    return 'FORMERR';
  }
  const question = packet.questions?.[0];
  if (question === undefined) return 'FORMERR';
  // RFC 6891 §6.1.1: more than one OPT record is FORMERR.
  const opts = (packet.additionals ?? []).filter((a): a is dnsPacket.OptAnswer => a.type === 'OPT');
  if (opts.length > 1) return 'FORMERR';
  return { packet, question, ednsSize: opts[0]?.udpPayloadSize };
}

function encodeResponse(decoded: Decoded, resolution: Resolution, transport: 'udp' | 'tcp'): Uint8Array {
  const { packet, question, ednsSize } = decoded;
  const requestFlags = packet.flags ?? 0;
  const flags =
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
  // Compressed, and cut to the limit with TC if it is still too big.
  return compressMessage(dnsPacket.encode(full), transport === 'tcp' ? TCP_MAX_SIZE : size);
}

/**
 * Answers one DNS request message with one response message, or with none (undefined) for a
 * message shorter than a header or one that is itself a response. Never throws: a message that
 * does not parse or has other than one question gets FORMERR, an opcode other than QUERY gets
 * NOTIMP, a failure while answering gets SERVFAIL.
 */
export function handleQuery(zone: Zone, requestBytes: Uint8Array, options: HandleOptions = {}): Uint8Array | undefined {
  const decoded = decodeRequest(requestBytes);
  if (decoded === 'IGNORE') return undefined;
  if (typeof decoded === 'string') return headerOnly(requestBytes, decoded);
  try {
    const question: Question = { name: decoded.question.name, type: decoded.question.type };
    const resolution = resolve(zone, question, options);
    return encodeResponse(decoded, resolution, options.transport ?? 'udp');
  } catch {
    return headerOnly(requestBytes, 'SERVFAIL');
  }
}

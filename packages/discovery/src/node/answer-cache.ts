// A cache of whole response messages for the server, so that a name asked again is answered
// by copying bytes instead of decoding, resolving and encoding it once more.
//
// handleQuery's response is a function of the zone, the transport and these parts of the
// request: the ID (copied into the response), the flags (opcode, RD and CD are echoed), the
// question exactly as sent (its case is echoed) and the EDNS UDP payload size (it sets the
// truncation limit and is echoed in the OPT record). Other OPT fields and options (a client
// cookie, the DO bit) do not reach the response. So a request whose shape is checked here —
// one question, no answer or authority records, at most one additional record that is a
// well-formed OPT of the root name, and nothing after it — is keyed by those parts, and a
// response cached under the key differs from a fresh one only in its first two bytes.
// Anything else (name compression in a query, trailing bytes, other records) is left to
// handleQuery, which has the final word on what is malformed.
// upstream: RFC 1035 §4.1 (header, question, names), RFC 6891 §6.1.2 (OPT).
import { Buffer } from 'node:buffer';
import type { Question, Resolution } from '../dns/records.js';
import type { ResolveOptions } from '../dns/resolve.js';
import type { Zone } from '../dns/zone.js';
import { handleQuery } from './wire.js';

/** Entries kept per transport before the cache starts over (a flood of distinct names). */
export const ANSWER_CACHE_MAX_ENTRIES = 65_536;

const HEADER = 12;
const TYPE_OPT = 41;
/**
 * EDNS options that dns-packet decodes field by field (client subnet, keepalive, key tag),
 * so that a malformed one is FORMERR; a request carrying one is left to handleQuery.
 */
const DECODED_OPTIONS: ReadonlySet<number> = new Set([8, 11, 14]);

function u16(bytes: Uint8Array, at: number): number {
  return ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0);
}

/**
 * The cache key of a request, or undefined when its shape is not one the cache answers.
 * The key is the header after the ID, the question section and the EDNS size, as text (the
 * additional count in the header tells a key with an EDNS size from one without).
 */
export function answerCacheKey(request: Uint8Array): string | undefined {
  const length = request.length;
  // One question; no answers or authorities; no additional or one (an OPT).
  if (length < HEADER + 5 || u16(request, 4) !== 1 || u16(request, 6) !== 0 || u16(request, 8) !== 0) return undefined;
  const additional = u16(request, 10);
  if (additional > 1) return undefined;
  // The question name: uncompressed labels up to the root label.
  let at = HEADER;
  for (;;) {
    const label = request[at];
    if (label === undefined || label > 63) return undefined;
    at += 1 + label;
    if (label === 0) break;
  }
  const questionEnd = at + 4;
  if (questionEnd > length) return undefined;
  let keyEnd = questionEnd;
  if (additional === 1) {
    // Root name (one zero byte), type OPT, class = UDP payload size, TTL, RDLENGTH, options.
    if (questionEnd + 11 > length || request[questionEnd] !== 0 || u16(request, questionEnd + 1) !== TYPE_OPT) return undefined;
    const rdataStart = questionEnd + 11;
    const rdataEnd = rdataStart + u16(request, questionEnd + 9);
    if (rdataEnd !== length) return undefined;
    for (let o = rdataStart; o < rdataEnd; ) {
      if (o + 4 > rdataEnd || DECODED_OPTIONS.has(u16(request, o))) return undefined;
      o += 4 + u16(request, o + 2);
      if (o > rdataEnd) return undefined;
    }
    // The key takes the OPT's name, type and class: the class is the UDP payload size.
    keyEnd = questionEnd + 5;
  } else if (questionEnd !== length) {
    return undefined;
  }
  // Flags, counts, question and the OPT's payload size, one byte a character.
  const bytes = Buffer.isBuffer(request) ? request : Buffer.from(request.buffer, request.byteOffset, request.length);
  return bytes.toString('latin1', 2, keyEnd);
}

/** Responses by request key, for one zone and one transport; emptied when the zone changes. */
export class AnswerCache {
  private readonly entries = new Map<string, Buffer>();

  constructor(private readonly maxEntries: number = ANSWER_CACHE_MAX_ENTRIES) {}

  get size(): number {
    return this.entries.size;
  }

  /**
   * The cached response for `key`, as a fresh copy carrying the request's ID; or undefined.
   * A copy, because a send may still be queued when the next request for the key arrives;
   * Buffer.from takes it from Node's buffer pool, cheaper than a new Uint8Array.
   */
  get(key: string, request: Uint8Array): Uint8Array | undefined {
    const cached = this.entries.get(key);
    if (cached === undefined) return undefined;
    const response = Buffer.from(cached);
    response[0] = request[0] ?? 0;
    response[1] = request[1] ?? 0;
    return response;
  }

  set(key: string, response: Uint8Array): void {
    if (this.entries.size >= this.maxEntries) this.entries.clear();
    this.entries.set(key, Buffer.from(response));
  }

  clear(): void {
    this.entries.clear();
  }
}

/** What the server asks for each message. */
export interface Answerer {
  /** The response, or undefined for a message that gets none (see handleQuery). */
  answer(request: Uint8Array, transport: 'udp' | 'tcp'): Uint8Array | undefined;
  zone(): Zone;
  setZone(zone: Zone): void;
}

/**
 * handleQuery with a cache per transport in front: a response is cached when it came from the
 * zone alone (the forward hook was not asked, as its answers may change), and the caches are
 * emptied when the zone is swapped. The file's opening comment says why a cached response,
 * with the request's ID, is the one handleQuery would return.
 */
export function cachedAnswerer(initial: Zone, forwardHook: ResolveOptions['forward']): Answerer {
  let zone = initial;
  const caches = { udp: new AnswerCache(), tcp: new AnswerCache() };
  let forwarded = false;
  const forward =
    forwardHook === undefined
      ? {}
      : {
          forward: (question: Question): Resolution | undefined => {
            forwarded = true;
            return forwardHook(question);
          },
        };
  return {
    answer(request, transport) {
      const key = answerCacheKey(request);
      const cache = caches[transport];
      const hit = key === undefined ? undefined : cache.get(key, request);
      if (hit !== undefined) return hit;
      forwarded = false;
      const response = handleQuery(zone, request, { transport, ...forward });
      if (key !== undefined && !forwarded && response !== undefined) cache.set(key, response);
      return response;
    },
    zone: () => zone,
    setZone(next) {
      zone = next;
      caches.udp.clear();
      caches.tcp.clear();
    },
  };
}

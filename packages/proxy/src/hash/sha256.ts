// SHA-256 (FIPS 180-4) over bytes, in plain TypeScript so that the package stays pure
// (no node:crypto). kube-proxy hashes one short string per service port and per endpoint, so
// a large cluster hashes hundreds of thousands of them: the compression (sha256-block.ts)
// works on locals and one reused message schedule, without allocating per block. Chain
// names, short ASCII, take the specialised path in short-hash.ts; both backends' chain-name
// hashes (16 characters for iptables, 8 for nftables) are here.

import { SHA256_IV, base32Words8, compressBlock, prefixedBase32Prefix16 } from './sha256-block.js';
import { shortSha256Base32Prefix16, shortSha256Base32Prefix8 } from './short-hash.js';

// Scratch space, reused by every call (single-threaded, and no call re-enters another).
const H = new Int32Array(8);
/** One block as big-endian words. */
const BLOCK = new Int32Array(16);
const TAIL = new Uint8Array(128);

function compressBytes(bytes: Uint8Array, offset: number): void {
  for (let t = 0; t < 16; t++) {
    const o = offset + t * 4;
    BLOCK[t] = ((bytes[o] ?? 0) << 24) | ((bytes[o + 1] ?? 0) << 16) | ((bytes[o + 2] ?? 0) << 8) | (bytes[o + 3] ?? 0);
  }
  compressBlock(H, BLOCK, 0);
}

/** Hashes `data` into the state H. */
function digestInto(data: Uint8Array): void {
  H.set(SHA256_IV);
  const whole = data.length - (data.length % 64);
  for (let offset = 0; offset < whole; offset += 64) compressBytes(data, offset);
  // The tail: the remaining bytes, 0x80, zeros, and the bit length (64-bit big-endian).
  const rest = data.length - whole;
  const tailLength = rest < 56 ? 64 : 128;
  TAIL.fill(0);
  for (let i = 0; i < rest; i++) TAIL[i] = data[whole + i] ?? 0;
  TAIL[rest] = 0x80;
  const bits = data.length * 8;
  const high = Math.floor(bits / 0x1_0000_0000);
  const low = bits >>> 0;
  for (let i = 0; i < 4; i++) {
    TAIL[tailLength - 8 + i] = (high >>> (24 - 8 * i)) & 0xff;
    TAIL[tailLength - 4 + i] = (low >>> (24 - 8 * i)) & 0xff;
  }
  for (let offset = 0; offset < tailLength; offset += 64) compressBytes(TAIL, offset);
}

/** The 32-byte SHA-256 digest of `data`. */
export function sha256(data: Uint8Array): Uint8Array {
  digestInto(data);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const word = H[i] as number;
    out[i * 4] = word >>> 24;
    out[i * 4 + 1] = (word >>> 16) & 0xff;
    out[i * 4 + 2] = (word >>> 8) & 0xff;
    out[i * 4 + 3] = word & 0xff;
  }
  return out;
}

const INPUT = new Uint8Array(512);

/**
 * The first 16 characters of base32(sha256(utf8(a + b + c))): kube-proxy's chain-name hash.
 * The same as `base32Std(sha256(utf8(a + b + c))).slice(0, 16)`, without the intermediate
 * values; short ASCII text (every chain name kube-proxy hashes) takes short-hash.ts, and the
 * parts spare the caller the concatenation.
 */
export function sha256Base32Prefix16(a: string, b = '', c = ''): string {
  return shortSha256Base32Prefix16(a, b, c) ?? longSha256Base32Prefix16(a + b + c);
}

/** The general path: any length, any code units. */
export function longSha256Base32Prefix16(text: string): string {
  digestText(text);
  return prefixedBase32Prefix16('.........', H).slice(9);
}

/**
 * The first 8 characters of base32(sha256(utf8(text))): the hash in the nftables proxier's
 * chain names. Short ASCII text (most names) takes short-hash.ts.
 */
export function sha256Base32Prefix8(text: string): string {
  const short = shortSha256Base32Prefix8(text);
  if (short !== undefined) return short;
  digestText(text);
  return base32Words8(H[0] as number, H[1] as number);
}

/** Hashes the UTF-8 bytes of `text` into the state H. */
function digestText(text: string): void {
  let bytes: Uint8Array | undefined;
  if (text.length <= INPUT.length) {
    // ASCII fast path: copy the code units; fall back to UTF-8 at the first non-ASCII one.
    let i = 0;
    for (; i < text.length; i++) {
      const unit = text.charCodeAt(i);
      if (unit > 0x7f) break;
      INPUT[i] = unit;
    }
    if (i === text.length) bytes = INPUT.subarray(0, text.length);
  }
  bytes ??= utf8(text);
  digestInto(bytes);
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (Go hashes the string's bytes, which are UTF-8). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}

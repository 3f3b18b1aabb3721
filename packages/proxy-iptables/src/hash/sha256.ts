// SHA-256 (FIPS 180-4) over bytes, in plain TypeScript so that the package stays pure
// (no node:crypto). kube-proxy hashes one short string per service port and per endpoint, so
// a large cluster hashes hundreds of thousands of them: the compression function works on
// locals and one reused message schedule, without allocating per block. Chain names, short
// ASCII, take the specialised path in short-hash.ts.

import { shortSha256Base32Prefix16 } from './short-hash.js';

const K = Uint32Array.of(
  0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5, 0xd807aa98,
  0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786,
  0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8,
  0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13,
  0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819,
  0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a,
  0x5b9cca4f, 0x682e6ff3, 0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
  0xc67178f2,
);

// Scratch space, reused by every call (single-threaded, and no call re-enters another).
const W = new Uint32Array(64);
const H = new Uint32Array(8);

/** Reads element i of a typed array; the indices here are always in range. */
function at(array: Uint32Array, i: number): number {
  return array[i] ?? 0;
}

function compress(block: Uint8Array, offset: number): void {
  for (let t = 0; t < 16; t++) {
    const o = offset + t * 4;
    W[t] = (((block[o] ?? 0) << 24) | ((block[o + 1] ?? 0) << 16) | ((block[o + 2] ?? 0) << 8) | (block[o + 3] ?? 0)) >>> 0;
  }
  for (let t = 16; t < 64; t++) {
    const w15 = at(W, t - 15);
    const w2 = at(W, t - 2);
    const s0 = ((w15 >>> 7) | (w15 << 25)) ^ ((w15 >>> 18) | (w15 << 14)) ^ (w15 >>> 3);
    const s1 = ((w2 >>> 17) | (w2 << 15)) ^ ((w2 >>> 19) | (w2 << 13)) ^ (w2 >>> 10);
    W[t] = (at(W, t - 16) + s0 + at(W, t - 7) + s1) >>> 0;
  }
  let a = at(H, 0);
  let b = at(H, 1);
  let c = at(H, 2);
  let d = at(H, 3);
  let e = at(H, 4);
  let f = at(H, 5);
  let g = at(H, 6);
  let h = at(H, 7);
  for (let t = 0; t < 64; t++) {
    const S1 = ((e >>> 6) | (e << 26)) ^ ((e >>> 11) | (e << 21)) ^ ((e >>> 25) | (e << 7));
    const ch = (e & f) ^ (~e & g);
    const temp1 = (h + S1 + ch + at(K, t) + at(W, t)) | 0;
    const S0 = ((a >>> 2) | (a << 30)) ^ ((a >>> 13) | (a << 19)) ^ ((a >>> 22) | (a << 10));
    const maj = (a & b) ^ (a & c) ^ (b & c);
    const temp2 = (S0 + maj) | 0;
    h = g;
    g = f;
    f = e;
    e = (d + temp1) | 0;
    d = c;
    c = b;
    b = a;
    a = (temp1 + temp2) | 0;
  }
  H[0] = at(H, 0) + a;
  H[1] = at(H, 1) + b;
  H[2] = at(H, 2) + c;
  H[3] = at(H, 3) + d;
  H[4] = at(H, 4) + e;
  H[5] = at(H, 5) + f;
  H[6] = at(H, 6) + g;
  H[7] = at(H, 7) + h;
}

const H0 = Uint32Array.of(0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19);
const TAIL = new Uint8Array(128);

/** Hashes `data` into the state H. */
function digestInto(data: Uint8Array): void {
  H.set(H0);
  const whole = data.length - (data.length % 64);
  for (let offset = 0; offset < whole; offset += 64) compress(data, offset);
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
  for (let offset = 0; offset < tailLength; offset += 64) compress(TAIL, offset);
}

/** The 32-byte SHA-256 digest of `data`. */
export function sha256(data: Uint8Array): Uint8Array {
  digestInto(data);
  const out = new Uint8Array(32);
  for (let i = 0; i < 8; i++) {
    const word = at(H, i);
    out[i * 4] = word >>> 24;
    out[i * 4 + 1] = (word >>> 16) & 0xff;
    out[i * 4 + 2] = (word >>> 8) & 0xff;
    out[i * 4 + 3] = word & 0xff;
  }
  return out;
}

const B32 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
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
  // 16 characters are 80 bits: the first two and a half words of the digest.
  const w0 = at(H, 0);
  const w1 = at(H, 1);
  const w2 = at(H, 2);
  let out = '';
  // Bits 0..29 of w0 (6 characters), then 2 bits of w0 with 3 of w1, and so on.
  for (let i = 0; i < 16; i++) {
    const bit = i * 5;
    const word = bit >> 5;
    const offset = bit & 31;
    const current = word === 0 ? w0 : word === 1 ? w1 : w2;
    const next = word === 0 ? w1 : word === 1 ? w2 : 0;
    const value = offset <= 27 ? (current >>> (27 - offset)) & 31 : ((current << (offset - 27)) | (next >>> (59 - offset))) & 31;
    out += B32[value] ?? '';
  }
  return out;
}

const encoder = new TextEncoder();

/** UTF-8 bytes of a string (Go hashes the string's bytes, which are UTF-8). */
export function utf8(text: string): Uint8Array {
  return encoder.encode(text);
}
